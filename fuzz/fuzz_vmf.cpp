// VMF reader + typed model + validation (brush clipping included): no crash on any input, the
// typed model survives its own normalised rewrite, the threaded streaming reader (forced to cut
// small inputs) gives what the one-thread reader gives, and the streaming reader's light
// tokenizer gives what the full KeyValues parser gives (model, origins, diagnostics, error).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "../tests/support/vmf_origins.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    {
        lk::Diagnostics d1, d2;
        auto one = lk::vmf::read_map(lk::Blob::copy_of(text), d1, {.threads = 1});
        lk::vmf::ReadOptions opt;
        opt.threads = 3;
        opt.min_piece_bytes = 1;
        auto many = lk::vmf::read_map(lk::Blob::copy_of(text), d2, opt);
        if (one.ok() != many.ok()) std::abort();
        if (one.ok() && (!(one.value() == many.value()) || d1.size() != d2.size())) std::abort();
        if (!one.ok() && one.error().to_string() != many.error().to_string()) std::abort();
        for (std::size_t i = 0; i < d1.size() && i < d2.size(); ++i) {
            if (d1.items()[i].to_string() != d2.items()[i].to_string()) std::abort();
        }
    }
    {
        lk::Diagnostics d1, d2;
        lk::vmf::ReadOptions full;
        full.threads = 1;
        full.light_tokenizer = false;
        auto a = lk::vmf::read_map(lk::Blob::copy_of(text), d1, full);
        auto b = lk::vmf::read_map(lk::Blob::copy_of(text), d2, {.threads = 1});
        if (a.ok() != b.ok() || d1.size() != d2.size()) std::abort();
        if (!a.ok() && (a.error().to_string() != b.error().to_string() ||
                        a.error().offset != b.error().offset))
            std::abort();
        if (a.ok() && (!(a.value() == b.value()) ||
                       lk::test::vmf_origins(a.value()) != lk::test::vmf_origins(b.value())))
            std::abort();
        for (std::size_t i = 0; i < d1.size(); ++i) {
            if (d1.items()[i].to_string() != d2.items()[i].to_string() ||
                d1.items()[i].offset != d2.items()[i].offset)
                std::abort();
        }
    }
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
