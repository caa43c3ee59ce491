// VMF reader + typed model + validation (brush clipping included): no crash on any input, the
// typed model survives its own normalised rewrite, the threaded streaming reader (forced to cut
// small inputs) gives what the one-thread reader gives, and the streaming reader's light
// tokenizer gives what the full KeyValues parser gives (model, origins, diagnostics, error), and
// the summary `levelkit info` reads (counted piece by piece) is that of the model.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "../tests/support/vmf_origins.hpp"
#include "../tests/support/vmf_summary.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // The same diagnostics, with positions, in the same order.
    auto same_diags = [](const lk::Diagnostics& a, const lk::Diagnostics& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (a.items()[i].to_string() != b.items()[i].to_string() ||
                a.items()[i].offset != b.items()[i].offset)
                return false;
        }
        return true;
    };
    // One thread with the light tokenizer (the default), against the same text cut into
    // nine pieces (of a byte or more) and joined, and against the full KeyValues parser.
    // The pieces are read on this thread: starting threads for every input made the target
    // three times slower under ASan, and the cut and the join are what is checked here (tests
    // read cut texts on 2, 3 and 7 threads).
    lk::Diagnostics d1;
    auto one = lk::vmf::read_map(lk::Blob::copy_of(text), d1, {.threads = 1});
    {
        lk::Diagnostics d2, d3;
        lk::vmf::ReadOptions opt;
        opt.threads = 1;
        opt.pieces = 9;
        opt.min_piece_bytes = 1;
        auto many = lk::vmf::read_map(lk::Blob::copy_of(text), d2, opt);
        lk::vmf::ReadOptions full;
        full.threads = 1;
        full.light_tokenizer = false;
        auto whole = lk::vmf::read_map(lk::Blob::copy_of(text), d3, full);
        for (const auto* other : {&many, &whole}) {
            if (one.ok() != other->ok()) std::abort();
            if (!one.ok() && one.error().to_string() != other->error().to_string()) std::abort();
            if (one.ok() && !(one.value() == other->value())) std::abort();
        }
        if (!same_diags(d1, d2) || !same_diags(d1, d3)) std::abort();
        if (!one.ok() && one.error().offset != whole.error().offset) std::abort();
        if (one.ok() && lk::test::vmf_origins(one.value()) != lk::test::vmf_origins(whole.value()))
            std::abort();
    }
    auto doc = lk::vmf::Document::read(text);
    // The streaming read (read_map) gives the model the lossless tree gives.
    if (doc.ok() != one.ok()) std::abort();
    if (doc.ok() && !(doc->map() == one.value())) std::abort();
    {
        lk::vmf::ReadOptions opt;
        opt.threads = 1;
        opt.pieces = 9;
        opt.min_piece_bytes = 1;
        if (!lk::test::summary_mismatch(lk::Blob::copy_of(text), opt, std::move(one), d1).empty())
            std::abort();
    }
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
