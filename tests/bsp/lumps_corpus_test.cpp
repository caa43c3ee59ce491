// Corpus checks for the typed lump views: every typed lump of every corpus map parses, and
// encoding the parsed records reproduces the lump's bytes exactly.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "support/corpus.hpp"

using namespace lk;
using namespace lk::bsp;

namespace {

struct Tally {
    std::size_t lumps = 0, records = 0, borrowed = 0;
};

template <class T, class Decode>
void check(const Bsp& bsp, LumpId id, Decode decode, Tally& t) {
    SCOPED_TRACE(std::string(lump_name(index_of(id))));
    auto view = decode(bsp);
    ASSERT_TRUE(view) << view.error().to_string();
    if (bsp.lump(id).empty()) return;
    auto bytes = encode(bsp, id, std::span<const T>(view->span()));
    ASSERT_TRUE(bytes) << bytes.error().to_string();
    const ByteSpan orig = bsp.lump(id).bytes();
    EXPECT_TRUE(std::equal(orig.begin(), orig.end(), bytes->begin(), bytes->end()))
        << "re-encoded lump differs";
    ++t.lumps;
    t.records += view->size();
    if (view->borrowed()) ++t.borrowed;
}

}  // namespace

TEST(BspLumpsCorpus, TypedViewsParseAndReencodeExactly) {
    LK_REQUIRE_CORPUS();
    Tally t;
    std::size_t maps = 0;
    for (const auto& p : lk::test::corpus_files("bsp", {".bsp"})) {
        SCOPED_TRACE(p.string());
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto r = Bsp::read(*blob);
        ASSERT_TRUE(r) << r.error().to_string();
        const Bsp& b = *r;
        ++maps;
        check<dplane_t>(b, LumpId::planes, planes, t);
        check<Vec3f>(b, LumpId::vertexes, vertexes, t);
        check<dedge_t>(b, LumpId::edges, edges, t);
        check<std::int32_t>(b, LumpId::surfedges, surfedges, t);
        for (LumpId f : {LumpId::faces, LumpId::originalfaces, LumpId::faces_hdr}) {
            check<dface_t>(
                b, f, [f](const Bsp& x) { return faces(x, f); }, t);
        }
        check<dbrush_t>(b, LumpId::brushes, brushes, t);
        check<dbrushside_t>(b, LumpId::brushsides, brushsides, t);
        check<dmodel_t>(b, LumpId::models, models, t);
        check<dnode_t>(b, LumpId::nodes, nodes, t);
        check<dleaf_t>(b, LumpId::leafs, leafs, t);
        check<std::uint32_t>(b, LumpId::leaffaces, leaffaces, t);
        check<std::uint32_t>(b, LumpId::leafbrushes, leafbrushes, t);
        check<texinfo_t>(b, LumpId::texinfo, texinfo, t);
        check<dtexdata_t>(b, LumpId::texdata, texdata, t);
        check<ddispinfo_t>(b, LumpId::dispinfo, dispinfo, t);
        check<CDispVert>(b, LumpId::disp_verts, disp_verts, t);
        check<CDispTri>(b, LumpId::disp_tris, disp_tris, t);
        check<doverlay_t>(b, LumpId::overlays, overlays, t);
        check<dwateroverlay_t>(b, LumpId::wateroverlays, water_overlays, t);
        check<doverlayfade_t>(b, LumpId::overlay_fades, overlay_fades, t);
        check<dcubemapsample_t>(b, LumpId::cubemaps, cubemaps, t);
        check<darea_t>(b, LumpId::areas, areas, t);
        check<dareaportal_t>(b, LumpId::areaportals, areaportals, t);
        check<Vec3f>(b, LumpId::clipportalverts, clipportalverts, t);
        for (LumpId w : {LumpId::worldlights, LumpId::worldlights_hdr}) {
            check<dworldlight_t>(
                b, w, [w](const Bsp& x) { return worldlights(x, w); }, t);
        }
        auto occ = occlusion(b);
        ASSERT_TRUE(occ) << occ.error().to_string();
        if (!b.lump(LumpId::occlusion).empty()) {
            auto bytes = encode(b, *occ);
            ASSERT_TRUE(bytes);
            const ByteSpan orig = b.lump(LumpId::occlusion).bytes();
            EXPECT_TRUE(std::equal(orig.begin(), orig.end(), bytes->begin(), bytes->end()));
        }
        auto strings = texdata_strings(b);
        ASSERT_TRUE(strings) << strings.error().to_string();
        auto td = texdata(b);
        ASSERT_TRUE(td);
        for (const dtexdata_t& x : *td) {
            EXPECT_GE(x.nameStringTableID, 0);
            EXPECT_LT(static_cast<std::size_t>(x.nameStringTableID), strings->names.size());
        }
        auto vis = visibility(b);
        ASSERT_TRUE(vis) << vis.error().to_string();
        for (std::int32_t c = 0; c < vis->numclusters; ++c) {
            for (int which : {Visibility::kPvs, Visibility::kPas}) {
                auto row = vis->decompress(c, which);
                ASSERT_TRUE(row) << row.error().to_string();
            }
        }
    }
    fmt::print(
        "typed lumps: {} maps, {} non-empty lumps, {} records, {} zero-copy views; all "
        "re-encoded byte-identical\n",
        maps, t.lumps, t.records, t.borrowed);
}
