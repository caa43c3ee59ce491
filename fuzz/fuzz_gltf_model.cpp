// glTF -> model: no crash on any input (a .glb or a .gltf text; external files are refused); a
// model read is consistent, writes as glTF and reads back with the same nodes, meshes, shapes
// and clips (and shapes
// where a mesh has triangles).
#include <cstdint>
#include <cstdlib>

#include "levelkit/convert/model_gltf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    lk::Diagnostics w;
    const lk::ByteSpan bytes(reinterpret_cast<const std::byte*>(data), size);
    auto m = lk::convert::gltf_to_model(bytes, {}, w);
    if (!m) return 0;
    if (!lk::model::check(*m).empty()) std::abort();
    // Clips are sampled at every frame; as in fuzz_smd, a bound far below the library's keeps
    // every input cheap.
    lk::convert::ModelGltfOptions opt;
    opt.max_node_frames = std::uint64_t{1} << 16;
    auto files = lk::convert::model_to_gltf(*m, opt, w);
    if (!files) return 0;  // e.g. a clip past that bound, more than 4 GiB of buffers
    auto again = lk::convert::gltf_to_model(files->glb, {}, w);
    if (!again) std::abort();
    if (again->nodes.size() != m->nodes.size() || again->meshes.size() != m->meshes.size() ||
        again->clips.size() != m->clips.size())
        std::abort();
    // Shapes are morph targets of drawn triangles: a mesh without any has none to write.
    for (std::size_t i = 0; i < m->meshes.size(); ++i) {
        bool drawn = false;
        for (const auto& part : lk::model::flatten(m->meshes[i]).parts)
            drawn |= !part.triangles.empty();
        if (drawn && again->meshes[i].shapes.size() != m->meshes[i].shapes.size()) std::abort();
    }
    return 0;
}
