// Corpus: every WMB becomes an editable WMP level (scene -> WMP2 text) that levelkit reads back
// as a valid level, and that converts on to a VMF without invalid brushes. Prints per version
// how the blocks were rebuilt.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "levelkit/convert/scene_wmp.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/convert/wmb_scene.hpp"
#include "levelkit/convert/wmp_scene.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "support/corpus.hpp"
#include "wmb_test_util.hpp"

namespace lk::convert {
namespace {

struct Totals {
    int files = 0, ok = 0;
    std::size_t brush = 0, solid = 0, capped = 0, thin = 0, merged = 0, split = 0, dropped = 0,
                entities = 0;
    std::size_t not_brushes = 0, invalid_brushes = 0, solids = 0, ents_total = 0, ents_found = 0;
};

TEST(WmbToWmp, EveryCorpusWmbBecomesAValidLevelAndVmf) {
    LK_REQUIRE_CORPUS();
    std::map<int, Totals> by;
    for (const auto& p : test::corpus_files("wmp", {".wmb"})) {
        Diagnostics d;
        auto wf = wmb::read(Blob::map_file(p).value(), d);
        ASSERT_TRUE(wf.ok()) << p;
        auto sc = wmb_to_scene(*wf, d);
        ASSERT_TRUE(sc.ok()) << p;
        SceneToWmpReport rep;
        auto lv = scene_to_wmp(*sc, d, {}, &rep);
        ASSERT_TRUE(lv.ok()) << p.filename() << ": " << lv.error().to_string();
        auto text = wmp::write_text(*lv);
        ASSERT_TRUE(text.ok()) << p.filename() << ": " << text.error().to_string();

        Diagnostics back_warnings, checks;
        auto back = wmp::read(Blob::copy_of(*text), &back_warnings);
        ASSERT_TRUE(back.ok()) << p.filename() << ": " << back.error().to_string();
        EXPECT_EQ(back->dialect, wmp::Dialect::wmp2_a6);
        wmp::validate(back->level, checks);
        const bool level_ok =
            checks.count(Severity::error) == 0 && back_warnings.count(Severity::error) == 0;
        EXPECT_TRUE(level_ok) << p.filename() << ": "
                              << (checks.empty() ? "" : checks.items()[0].to_string());

        WmpToSceneReport wr;
        Diagnostics cd;
        auto s2 = wmp_to_scene(back->level, cd, {}, &wr);
        ASSERT_TRUE(s2.ok()) << p.filename();
        const vmf::Map map = scene_to_vmf(*s2, cd);
        Diagnostics v;
        vmf::validate(map, v);
        std::size_t invalid = 0;
        for (const auto& item : v.items()) invalid += item.code == "vmf.invalid-solid";
        EXPECT_EQ(invalid, 0u) << p.filename();
        EXPECT_EQ(wr.rejected.size(), 0u)
            << p.filename() << ": " << (wr.rejected.empty() ? "" : wr.rejected[0].reason);

        // Every entity survives the trip (place and file).
        const test::EntityMatch em = test::match_entities(*sc, *s2, 0.01);
        EXPECT_EQ(em.found, em.total)
            << p.filename() << ": " << (em.missing.empty() ? "" : em.missing[0]);

        Totals& t = by[wf->version];
        t.ents_total += em.total;
        t.ents_found += em.found;
        ++t.files;
        t.ok += level_ok && invalid == 0 && wr.rejected.empty();
        t.brush += rep.brush_blocks;
        t.solid += rep.solid_blocks;
        t.capped += rep.capped_blocks;
        t.thin += rep.thin_blocks;
        t.merged += rep.merged_faces;
        t.split += rep.split_faces;
        t.dropped += rep.dropped_faces;
        t.entities += rep.entities;
        t.not_brushes += wr.rejected.size();
        t.invalid_brushes += invalid;
        t.solids += vmf::stats(map).solids;
    }
    for (const auto& [v, t] : by) {
        std::printf(
            "  WMB%d: %d/%d ok; blocks: %zu solid, %zu capped, %zu thin (%zu faces merged, %zu "
            "split, "
            "%zu dropped); entities %zu (back %zu/%zu); VMF solids %zu, invalid %zu, blocks not "
            "brushes "
            "%zu\n",
            v, t.ok, t.files, t.solid, t.capped, t.thin, t.merged, t.split, t.dropped, t.entities,
            t.ents_found, t.ents_total, t.solids, t.invalid_brushes, t.not_brushes);
    }
}

// WMB -> VMF straight through the scene, with the world rebuilt as brushes: no invalid brush.
TEST(WmbToVmf, RebuiltBrushesAreValid) {
    LK_REQUIRE_CORPUS();
    std::size_t files = 0, brushes = 0, solids = 0, invalid = 0;
    for (const auto& p : test::corpus_files("wmp", {".wmb"})) {
        Diagnostics d;
        auto wf = wmb::read(Blob::map_file(p).value(), d);
        ASSERT_TRUE(wf.ok());
        WmbToSceneOptions opt;
        opt.brushes = true;
        WmbToSceneReport rep;
        auto s = wmb_to_scene(*wf, d, opt, &rep);
        ASSERT_TRUE(s.ok());
        EXPECT_TRUE(s->world.meshes.empty());
        const vmf::Map map = scene_to_vmf(*s, d);
        Diagnostics v;
        vmf::validate(map, v);
        std::size_t bad = 0;
        for (const auto& item : v.items()) bad += item.code == "vmf.invalid-solid";
        EXPECT_EQ(bad, 0u) << p.filename();
        ++files;
        brushes += rep.brushes;
        solids += vmf::stats(map).solids;
        invalid += bad;
    }
    std::printf("  %zu WMBs -> %zu rebuilt brushes -> VMF: %zu solids, %zu invalid\n", files,
                brushes, solids, invalid);
}

// Brushes of any scene become blocks: the 12 smallest corpus VMFs go VMF -> scene -> WMP, read
// back as valid levels with one block per valid brush, and turn into brushes again.
TEST(SceneToWmp, VmfBrushesBecomeBlocks) {
    LK_REQUIRE_CORPUS();
    auto files = test::corpus_files("vmf", {".vmf"});
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
        return std::filesystem::file_size(a) < std::filesystem::file_size(b);
    });
    if (files.size() > 12) files.resize(12);
    std::size_t brushes = 0, blocks = 0, back_brushes = 0, skipped = 0;
    for (const auto& p : files) {
        auto doc = vmf::Document::read(Blob::map_file(p).value());
        ASSERT_TRUE(doc.ok()) << p;
        Diagnostics d;
        const scene::Scene s = vmf_to_scene(doc->map(), d);
        SceneToWmpReport rep;
        auto lv = scene_to_wmp(s, d, {}, &rep);
        ASSERT_TRUE(lv.ok()) << p.filename();
        const scene::Counts c = scene::count(s);
        EXPECT_EQ(rep.brush_blocks + rep.invalid_brushes, c.brushes) << p.filename();
        auto back = wmp::read(Blob::copy_of(wmp::write_text(*lv).value()));
        ASSERT_TRUE(back.ok()) << p.filename() << ": " << back.error().to_string();
        Diagnostics checks;
        wmp::validate(back->level, checks);
        EXPECT_EQ(checks.count(Severity::error), 0u) << p.filename();
        WmpToSceneReport wr;
        ASSERT_TRUE(wmp_to_scene(back->level, d, {}, &wr).ok());
        EXPECT_TRUE(wr.rejected.empty()) << p.filename();
        brushes += c.brushes;
        blocks += rep.brush_blocks;
        back_brushes += wr.brushes;
        skipped += rep.skipped_entities.size();
    }
    std::printf(
        "  %zu VMFs: %zu brushes -> %zu blocks -> %zu brushes; %zu point entities "
        "without a WMP form\n",
        files.size(), brushes, blocks, back_brushes, skipped);
}

}  // namespace
}  // namespace lk::convert
