// VMF reader + typed model + validation (brush clipping included): no crash on any input, and
// the typed model survives its own normalised rewrite.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto doc = lk::vmf::Document::read(text);
    if (!doc) return 0;
    if (doc->write() != text) std::abort();
    lk::Diagnostics out;
    lk::vmf::validate(doc->map(), out, &doc->tree());
    lk::BrushPolygons polys;
    for (const auto& s : doc->map().world.solids) {
        lk::vmf::solid_polygons(s, polys);
        for (std::size_t i = 0; i < s.sides.size() && polys.valid(); ++i) {
            (void)lk::vmf::displacement_grid(s.sides[i], polys.face(i));
        }
    }
    const std::string again = lk::vmf::write(doc->map());
    auto reread = lk::vmf::Document::read(again);
    if (!reread) std::abort();
    return 0;
}
