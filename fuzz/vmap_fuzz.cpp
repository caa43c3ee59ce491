// vmap reading: any DMX input that reads is opened as a map, every mesh is viewed and validated,
// and the map is converted to a scene and on to VMF (closed convex meshes become brushes, grid
// meshes displacement brushes). No crash on any input; a mesh the validator accepts must read
// back as polygons.
#include <cstdint>
#include <cstdlib>

#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/vmap/vmap.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const lk::ByteSpan in(reinterpret_cast<const std::byte*>(data), size);
    auto doc = lk::dmx::read(in);
    if (!doc) return 0;
    auto map = lk::vmap::Map::open(*doc);
    if (!map) return 0;
    std::vector<lk::vmap::Corner> corners;
    for (std::uint32_t i : map->meshes) {
        auto v = lk::vmap::view_mesh(*doc, map->mesh_data(map->nodes[i].element));
        if (!v || !lk::vmap::validate_mesh(*v).empty()) continue;
        for (std::size_t f = 0; f < v->face_count(); ++f) {
            if (!lk::vmap::face_corners(*v, f, corners)) std::abort();
        }
    }
    lk::Diagnostics diags;
    const lk::scene::Scene s = lk::convert::vmap_to_scene(*map, diags);
    (void)lk::convert::scene_to_vmf(s, diags);
    return 0;
}
