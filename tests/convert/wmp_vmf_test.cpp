// Gamestudio -> VMF: every corpus level converts to a map that passes validation; blocks that
// cannot become brushes are reported (not dropped silently). Prints the figures.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/convert/wmp_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "support/corpus.hpp"

namespace lk {
namespace {

struct Converted {
    convert::WmpToSceneReport report;
    std::size_t solids = 0, entities = 0;
    Diagnostics validation;
};

Converted to_vmf(const wmp::File& f) {
    Converted c;
    Diagnostics diags;
    scene::Scene s;
    if (f.dialect == wmp::Dialect::a3) {
        s = convert::a3_to_scene(f.a3, diags, {}, &c.report);
    } else {
        auto r = convert::wmp_to_scene(f.level, diags, {}, &c.report);
        EXPECT_TRUE(r.ok());
        if (!r) return c;
        s = std::move(r).value();
    }
    const vmf::Map map = convert::scene_to_vmf(s, diags);
    auto doc = vmf::Document::read(Blob::copy_of(vmf::write(map)));
    EXPECT_TRUE(doc.ok()) << (doc ? "" : doc.error().to_string());
    if (!doc) return c;
    vmf::validate(doc->map(), c.validation, &doc->tree());
    const vmf::Stats st = vmf::stats(doc->map());
    c.solids = st.solids;
    c.entities = st.entities;
    return c;
}

TEST(WmpToVmf, EveryCorpusLevelConvertsAndValidates) {
    LK_REQUIRE_CORPUS();
    struct Totals {
        int files = 0, valid = 0;
        std::size_t blocks = 0, brushes = 0, rejected = 0, merged = 0, degenerate = 0, entities = 0;
    };
    std::map<std::string, Totals> by;
    for (const auto& p : test::corpus_files("wmp", {".wmp", ".$$m"})) {
        auto f = wmp::read(Blob::map_file(p).value());
        ASSERT_TRUE(f.ok()) << p;
        const Converted c = to_vmf(f.value());
        Totals& t = by[std::string(wmp::to_string(f->dialect))];
        ++t.files;
        const bool valid = c.validation.count(Severity::error) == 0;
        t.valid += valid;
        EXPECT_TRUE(valid) << p.filename() << ": "
                           << (c.validation.empty() ? "" : c.validation.items()[0].to_string());
        t.blocks += c.report.blocks;
        t.brushes += c.report.brushes;
        t.rejected += c.report.rejected.size();
        t.merged += c.report.merged_faces;
        t.degenerate += c.report.degenerate_faces;
        t.entities += c.report.entities;
        for (const auto& r : c.report.rejected) {
            std::printf("    not a brush: %s block %zu: %s\n", p.filename().string().c_str(),
                        r.block, r.reason.c_str());
        }
    }
    for (const auto& [d, t] : by) {
        std::printf(
            "  vmf %-8s %3d/%-3d valid; blocks %6zu -> brushes %6zu, not brushes %zu; merged "
            "faces %zu, degenerate faces %zu; entities %zu\n",
            d.c_str(), t.valid, t.files, t.blocks, t.brushes, t.rejected, t.merged, t.degenerate,
            t.entities);
    }
}

}  // namespace
}  // namespace lk
