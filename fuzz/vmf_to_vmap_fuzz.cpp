// VMF -> scene -> vmap on any VMF text: no crash, and every mesh the converter writes passes the
// half-edge validator (invalid brushes are skipped, never written broken). The CLI's way (map
// and scene given up, meshes and leaf entities packed as they are made, on the converting thread
// or a second one) writes the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/dmx/packed.hpp"
#include "levelkit/vmf/vmf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto doc = lk::vmf::Document::read(text);
    if (!doc) return 0;
    lk::Diagnostics diags;
    const lk::scene::Scene s = lk::convert::vmf_to_scene(doc->map(), diags);
    const lk::dmx::Document out = lk::convert::scene_to_vmap(s, diags);
    auto map = lk::vmap::Map::open(out);
    if (!map || !lk::vmap::validate_meshes(*map).empty()) std::abort();
    lk::vmf::Map given = doc->map();
    lk::scene::Scene spent = lk::convert::vmf_to_scene(std::move(given), diags);
    lk::dmx::PackedSubtrees packs;
    packs.pack_on_thread(size % 2 == 1);  // every other input on a packing thread, as the CLI
    lk::convert::SceneToVmapOptions opt;
    opt.packed = &packs;
    const lk::dmx::Document skeleton = lk::convert::scene_to_vmap(std::move(spent), diags, opt);
    auto whole = lk::dmx::write(out);
    auto packed = lk::dmx::write(skeleton, packs);
    if (whole.ok() != packed.ok() || (whole.ok() && *whole != *packed)) std::abort();
    return 0;
}
