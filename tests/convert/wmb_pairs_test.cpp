// Corpus: WMB levels next to the WMP they were compiled from (same stem, same repository).
// The WMB conversion must hold every WMP entity (same place within 0.01 quants, same file) and
// polygons that cover the WMP's visible block faces (area per texture within 1%).
//
// "Visible" follows what the map compiler does (worked out from the pairs): blocks with block
// flag bit 2 and faces of surface type "none" are not drawn; BSP levels (WMB1..6, and WMB7
// files with BSP nodes) lose the parts of faces inside solid blocks (water hides water, sky
// hides sky) and, when sealed, the faces looking into the void; faces compiled for both sides
// (water, sky) count once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "levelkit/convert/wmb_scene.hpp"
#include "levelkit/convert/wmp_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "support/corpus.hpp"
#include "wmb_test_util.hpp"

namespace lk::convert {
namespace {

using test::corpus_files;

TEST(WmbPairs, EntitiesAndFacesMatchTheSourceLevel) {
    LK_REQUIRE_CORPUS();
    int pairs = 0, pairs_ok = 0;
    std::size_t ents_total = 0, ents_found = 0;
    for (const auto& wmb_path : corpus_files("wmp", {".wmb"})) {
        const auto pair = test::wmp_beside(wmb_path);
        if (!pair) continue;
        ++pairs;
        Diagnostics d;
        auto wf = wmb::read(Blob::map_file(wmb_path).value(), d);
        ASSERT_TRUE(wf.ok()) << wmb_path;
        auto ws = wmb_to_scene(*wf, d);
        ASSERT_TRUE(ws.ok());
        auto pf = wmp::read(Blob::map_file(*pair).value(), &d);
        ASSERT_TRUE(pf.ok()) << *pair;
        // The A4 compiler places path nodes by their object's position only, ignoring its
        // rotation (hh_demo: all 65 nodes of a path turned 90 degrees in WED), so for WMB1..4
        // the path objects lose their angles before the comparison.
        wmp::Level level = pf->level;
        if (wf->version <= 4) {
            for (wmp::Object& o : level.objects) {
                if (o.kind == wmp::Kind::path) o.transform.angles = {};
            }
        }
        auto ps = wmp_to_scene(level, d);
        ASSERT_TRUE(ps.ok());

        // WMB1..4 store entity positions rounded to whole quants (all 290 such records in
        // the corpus are integral), so the WMP positions are rounded the same way first.
        const test::EntityMatch em = test::match_entities(*ps, *ws, 0.01, wf->version <= 4);
        // BSP levels (WMB1..6, WMB7 with a BSP tree) were cut by the compiler's CSG.
        const bool bsp = wf->version < 7 || !wf->list_bytes(wmb::ListId::bsp_nodes).empty();
        const test::AreaMatch am = test::match_areas(*ps, *ws, 0.01, bsp);
        ents_total += em.total;
        ents_found += em.found;
        const bool ok = em.found == em.total && am.textures_off == 0;
        pairs_ok += ok;
        std::printf(
            "  %-58s entities %4zu/%-4zu faces%s: %zu textures, %zu off, area %.0f / %.0f%s\n",
            wmb_path.filename().string().c_str(), em.found, em.total,
            !bsp        ? ""
            : am.sealed ? " (bsp, sealed)"
                        : " (bsp)",
            am.textures, am.textures_off, am.wmb_area, am.wmp_area, ok ? "" : "  <--");
        for (const auto& m : em.missing) std::printf("      missing %s\n", m.c_str());
        for (const auto& m : am.off) std::printf("      area %s\n", m.c_str());
    }
    std::printf("  pairs %d, all matching %d; entities %zu/%zu\n", pairs, pairs_ok, ents_found,
                ents_total);
    EXPECT_GT(pairs, 0);
    // A ratchet on today's figures (63 pairs: 58 match fully; the others differ in content
    // or in compiler rules the comparison does not model, see the printed lines).
    EXPECT_GE(pairs_ok, 58);
    EXPECT_GE(ents_found, 3652u);
}

}  // namespace
}  // namespace lk::convert
