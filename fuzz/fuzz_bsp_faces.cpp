// Fuzz target: a compiled map's faces as the game draws them (bsp_faces_to_scene), then the
// glTF writer and a small picture of the result: every face, edge, vertex, texinfo,
// displacement and model index in the lumps may be wrong.
#include <cstddef>
#include <cstdint>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/convert/bsp_faces.hpp"
#include "levelkit/convert/scene_gltf.hpp"
#include "levelkit/render/render.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace lk;
    bsp::ReadOptions opt;
    opt.max_decompressed = std::size_t{16} << 20;
    auto map = bsp::Bsp::read(
        Blob::copy_of(ByteSpan(reinterpret_cast<const std::byte*>(data), size)), nullptr, opt);
    if (!map) return 0;
    Diagnostics diags;
    auto scene = convert::bsp_faces_to_scene(*map, diags);
    if (!scene) return 0;
    convert::GltfOptions go;
    go.prop_boxes = true;
    auto files = convert::scene_to_gltf(*scene, go, diags);
    if (!files || files->glb.size() < 12) __builtin_trap();
    render::RenderOptions ro;
    ro.size = 32;
    const render::Picture pic = render::render_scene(*scene, ro);
    if (pic.image.rgb.size() != std::size_t(pic.image.width) * pic.image.height * 3)
        __builtin_trap();
    return 0;
}
