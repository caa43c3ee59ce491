// Fuzz target: the decompiler (BSP -> scene -> VMF) on any map the container reader accepts:
// brush clipping, face matching, texturing, entities, props, overlays, cubemaps, portals,
// occluders and displacements must hold up against every count and index being wrong.
#include <cstddef>
#include <cstdint>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/convert/bsp_scene.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/vmf/vmf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace lk;
    bsp::ReadOptions opt;
    opt.max_decompressed = std::size_t{16} << 20;
    auto map = bsp::Bsp::read(
        Blob::copy_of(ByteSpan(reinterpret_cast<const std::byte*>(data), size)), nullptr, opt);
    if (!map) return 0;
    Diagnostics diags;
    for (const bool faces : {false, true}) {
        convert::BspToSceneOptions o;
        o.faces_mode = faces;
        auto scene = convert::bsp_to_scene(*map, diags, o);
        if (!scene) return 0;
        // What the decompiler writes must read back as a VMF.
        const std::string text = vmf::write(convert::scene_to_vmf(*scene, diags));
        if (!vmf::Document::read(text)) __builtin_trap();
    }
    return 0;
}
