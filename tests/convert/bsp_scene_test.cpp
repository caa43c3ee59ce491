// The decompiler on small maps built in memory: each test is one rule of how a compiled map
// turns back into Hammer source.
#include <gtest/gtest.h>

#include <algorithm>

#include "bsp_builder.hpp"
#include "levelkit/any/document.hpp"
#include "levelkit/convert/bsp_scene.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/vmf/geometry.hpp"

using namespace lk;
using test::BspBuilder;

namespace {

constexpr std::int32_t kSolid = 0x1, kDetail = 0x8000000, kAreaportal = 0x8000,
                       kLadder = 0x20000000, kPlayerClip = 0x10000;
constexpr std::int32_t kNodraw = 0x80 | 0x400, kTrigger = 0x40 | kNodraw;

struct Decompiled {
    scene::Scene scene;
    convert::BspToSceneReport report;
    Diagnostics diags;
};

Decompiled decompile(const BspBuilder& b, const convert::BspToSceneOptions& opt = {}) {
    Decompiled r;
    auto map = bsp::Bsp::read(Blob::from_bytes(b.write()));
    EXPECT_TRUE(map) << (map ? "" : map.error().to_string());
    auto s = convert::bsp_to_scene(*map, r.diags, opt, &r.report);
    EXPECT_TRUE(s) << (s ? "" : s.error().to_string());
    if (s) r.scene = std::move(s).value();
    return r;
}

const scene::Entity* find(const scene::Scene& s, std::string_view cls, std::size_t nth = 0) {
    for (const scene::Entity& e : s.entities) {
        if (e.classname() == cls && nth-- == 0) return &e;
    }
    return nullptr;
}

const scene::BrushSide* side_facing(const scene::Brush& b, const Vec3& n) {
    for (const scene::BrushSide& s : b.sides) {
        if (near(s.plane.normal, n, 1e-9)) return &s;
    }
    return nullptr;
}

// A room floor: one world box whose top shows brick, the rest nodraw.
struct Floor {
    BspBuilder b;
    std::int32_t brick = 0, nodraw = 0, brush = 0;
    Floor() {
        const auto m = b.material("BRICK/WALL01", 256, 128);
        const auto nd = b.material("TOOLS/TOOLSNODRAW", 64, 64);
        // Rotated 90 degrees, fractional shift, scale 0.5, lightmap 32.
        brick = b.tex(m, {0, 1, 0}, 12.25, 0.5, {-1, 0, 0}, -3.5, 0.5, 0, 32);
        nodraw = b.tex(nd, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25, kNodraw);
        brush = b.box({-128, -64, -16}, {128, 64, 0}, kSolid,
                      {nodraw, nodraw, nodraw, nodraw, brick, nodraw}, true);
    }
};

}  // namespace

TEST(BspScene, UnpatchMaterialUndoesVbspNames) {
    std::array<int, 3> cm{};
    EXPECT_EQ(convert::unpatch_material("maps/de_x/brick/wall01_12_-40_96", "", &cm),
              "brick/wall01");
    EXPECT_EQ(cm, (std::array<int, 3>{12, -40, 96}));
    EXPECT_EQ(convert::unpatch_material("maps/de_x/nature/blend01_wvt_patch"), "nature/blend01");
    EXPECT_EQ(convert::unpatch_material("maps/de_x/water/water01_depth_64"), "water/water01");
    // The map folder can be required; other folders, and names vbsp did not make, stay.
    EXPECT_EQ(convert::unpatch_material("maps/other/brick/a_1_2_3", "de_x"),
              "maps/other/brick/a_1_2_3");
    EXPECT_EQ(convert::unpatch_material("MAPS/LIMONAD/EZH_1"), "MAPS/LIMONAD/EZH_1");
    EXPECT_EQ(convert::unpatch_material("brick/wall_1_2_3"), "brick/wall_1_2_3");
}

TEST(BspScene, BrushPlanesTexturesAndToolSides) {
    Floor f;
    f.b.face(f.brush, BspBuilder::pz);
    f.b.model({f.brush}, 0);
    Decompiled r = decompile(f.b);
    ASSERT_EQ(r.scene.world.brushes.size(), 1u);
    const scene::Brush& br = r.scene.world.brushes[0];
    // The bevel side is not written; six real sides are.
    ASSERT_EQ(br.sides.size(), 6u);
    const scene::BrushSide* top = side_facing(br, {0, 0, 1});
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(top->material, "BRICK/WALL01");
    // texinfo inverted: axis, scale, fractional shift, lightmap scale.
    EXPECT_EQ(top->u, (scene::TextureAxis{{0, 1, 0}, 12.25, 0.5}));
    EXPECT_EQ(top->v, (scene::TextureAxis{{-1, 0, 0}, -3.5, 0.5}));
    EXPECT_EQ(top->lightmap_scale, 32);
    // Plane points lie on the real face, on whole units, and give back the plane.
    ASSERT_TRUE(top->points);
    for (const Vec3& p : *top->points) {
        EXPECT_EQ(p.z, 0);
        EXPECT_TRUE(p.x >= -128 && p.x <= 128 && p.y >= -64 && p.y <= 64);
        EXPECT_EQ(p.x, std::round(p.x));
    }
    const auto pl = Plane::from_points((*top->points)[0], (*top->points)[1], (*top->points)[2]);
    ASSERT_TRUE(pl);
    EXPECT_TRUE(same_plane(*pl, Plane{{0, 0, 1}, 0}, 1e-12, 1e-12));
    // Sides without a face get the tool texture their flags say.
    EXPECT_EQ(side_facing(br, {0, 0, -1})->material, "TOOLS/TOOLSNODRAW");
    EXPECT_EQ(r.report.recovered.world_brushes, 1u);
    EXPECT_EQ(r.report.recovered.visible_sides, 1u);
    EXPECT_EQ(r.report.recovered.tool_sides, 5u);
}

TEST(BspScene, HiddenSideKeepsItsMaterialUnlessFlagsSayTool) {
    // A side without a face whose texinfo is an ordinary material (vbsp re-points hidden sides
    // at any texinfo with the same flags) keeps that material; trigger flags give toolstrigger.
    BspBuilder b;
    const auto m = b.material("CONCRETE/FLOOR", 512, 512);
    const auto t = b.material("TOOLS/TOOLSTRIGGER", 64, 64);
    const auto plain = b.tex(m, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const auto trig = b.tex(t, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25, kTrigger);
    const auto wall =
        b.box({0, 0, 0}, {64, 64, 64}, kSolid, {plain, plain, plain, plain, plain, plain});
    const auto trigger = b.box({0, 0, 0}, {32, 32, 32}, 0, {trig, trig, trig, trig, trig, trig});
    b.model({wall}, 0);
    b.model({trigger}, 0);
    b.entities +=
        "{\n\"classname\" \"trigger_multiple\"\n\"model\" \"*1\"\n\"hammerid\" \"7\"\n}\n";
    Decompiled r = decompile(b);
    ASSERT_EQ(r.scene.world.brushes.size(), 1u);
    for (const auto& s : r.scene.world.brushes[0].sides) EXPECT_EQ(s.material, "CONCRETE/FLOOR");
    const scene::Entity* e = find(r.scene, "trigger_multiple");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->id, 7);
    EXPECT_TRUE(e->get("model").empty());
    ASSERT_EQ(e->brushes.size(), 1u);
    for (const auto& s : e->brushes[0].sides) EXPECT_EQ(s.material, "TOOLS/TOOLSTRIGGER");
}

TEST(BspScene, HiddenSideReadBackFromWhereVbspRepointedIt) {
    // vbsp re-points a side no face shows at the lowest texinfo a face uses with the side's
    // flags and surface properties. Brush A shows concrete/a on top; its bottom points at
    // concrete/b's texinfo (on a face of brush B, lower than any concrete/a texinfo), so it
    // can have been concrete/a: it takes the brush's material. Brush C's bottom points at a
    // concrete/b texinfo with a lower concrete/b sibling on a face, which a re-point would have
    // chosen instead: it is the side's own. Brush D's bottom points at a wall texinfo whose
    // axes do not span it: Hammer's default axes come back.
    BspBuilder b;
    const auto ca = b.material("CONCRETE/A", 512, 512);
    const auto cb = b.material("CONCRETE/B", 512, 512);
    const auto b_floor = b.tex(cb, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const auto b_floor2 = b.tex(cb, {1, 0, 0}, 64, 0.25, {0, -1, 0}, 0, 0.25);
    const auto b_wall = b.tex(cb, {0, 1, 0}, 0, 0.25, {0, 0, -1}, 0, 0.25);
    const auto a_floor = b.tex(ca, {1, 0, 0}, 0, 0.5, {0, -1, 0}, 0, 0.5);
    const auto brush_b =
        b.box({0, 0, 0}, {64, 64, 64}, kSolid, {b_wall, b_wall, b_wall, b_wall, b_floor, b_floor});
    const auto brush_a = b.box({100, 0, 0}, {164, 64, 64}, kSolid,
                               {a_floor, a_floor, a_floor, a_floor, a_floor, b_floor});
    const auto brush_c = b.box({200, 0, 0}, {264, 64, 64}, kSolid,
                               {b_floor2, b_floor2, b_floor2, b_floor2, b_floor2, b_floor2});
    const auto brush_d = b.box({300, 0, 0}, {364, 64, 64}, kSolid,
                               {a_floor, a_floor, a_floor, a_floor, a_floor, b_wall});
    b.face(brush_b, BspBuilder::pz);
    b.face(brush_b, BspBuilder::px);
    b.face(brush_a, BspBuilder::pz);
    b.face(brush_c, BspBuilder::pz);
    b.face(brush_d, BspBuilder::pz);
    b.model({brush_b, brush_a, brush_c, brush_d}, 0);
    Decompiled r = decompile(b);
    ASSERT_EQ(r.scene.world.brushes.size(), 4u);
    const scene::BrushSide* a_bottom = side_facing(r.scene.world.brushes[1], {0, 0, -1});
    ASSERT_NE(a_bottom, nullptr);
    EXPECT_EQ(a_bottom->material, "CONCRETE/A");
    const scene::BrushSide* c_bottom = side_facing(r.scene.world.brushes[2], {0, 0, -1});
    ASSERT_NE(c_bottom, nullptr);
    EXPECT_EQ(c_bottom->material, "CONCRETE/B");
    EXPECT_DOUBLE_EQ(c_bottom->u.shift, 64);
    const scene::BrushSide* d_bottom = side_facing(r.scene.world.brushes[3], {0, 0, -1});
    ASSERT_NE(d_bottom, nullptr);
    EXPECT_EQ(d_bottom->material, "CONCRETE/A");
    // Its material's scale on the brush, unshifted. World-aligned, the bottom would have had
    // the top's very texinfo (a floor's world axes do not depend on the side it faces), which
    // a face uses, so vbsp would have kept it: Hammer's face alignment is what is left.
    EXPECT_TRUE(near(d_bottom->u.axis, {-1, 0, 0}, 1e-9));
    EXPECT_TRUE(near(d_bottom->v.axis, {0, -1, 0}, 1e-9));
    EXPECT_DOUBLE_EQ(d_bottom->u.scale, 0.5);
    EXPECT_DOUBLE_EQ(d_bottom->u.shift, 0);
}

TEST(BspScene, BrushEntityMovesBackByItsOriginAndKeepsOutputs) {
    BspBuilder b;
    const auto m = b.material("METAL/DOOR", 128, 128);
    const Vec3 origin{100, 50, 8};
    // vbsp stores the door around its origin and folds the origin into the texture shift.
    const auto t = b.tex(m, {1, 0, 0}, 3.5, 0.25, {0, 0, -1}, 0, 0.25, 0, 16, origin);
    const auto world = b.box({-512, -512, -16}, {512, 512, 0}, kSolid, {t, t, t, t, t, t});
    b.model({world}, 0);
    const auto door = b.box({-8, -32, -8}, {8, 32, 56}, kSolid, {t, t, t, t, t, t});
    const auto first = std::int32_t(b.faces.size());
    b.face(door, BspBuilder::ny);
    b.model({door}, first, origin);
    b.entities +=
        "{\n\"origin\" \"100 50 8\"\n\"targetname\" \"door\"\n\"OnOpen\" "
        "\"relay\x1bTrigger\x1b\x1b"
        "0.5\x1b-1\"\n\"classname\" \"func_door\"\n\"model\" \"*1\"\n"
        "\"hammerid\" \"42\"\n}\n";
    Decompiled r = decompile(b);
    const scene::Entity* e = find(r.scene, "func_door");
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->brushes.size(), 1u);
    const scene::BrushSide* s = side_facing(e->brushes[0], {0, -1, 0});
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(same_plane(s->plane, Plane{{0, -1, 0}, -(50 - 32)}, 1e-9, 1e-9));
    EXPECT_EQ(s->u.shift, 3.5);
    ASSERT_EQ(e->outputs.size(), 1u);
    EXPECT_EQ(e->outputs[0], (scene::Output{"OnOpen", "relay", "Trigger", "", 0.5, -1, {}}));
    EXPECT_EQ(r.scene.output_separator, '\x1b');
    EXPECT_EQ(e->get("origin"), "100 50 8");
}

TEST(BspScene, DetailBrushesGroupedWhenTheyTouch) {
    BspBuilder b;
    const auto m = b.material("WOOD/CRATE");
    const auto t = b.tex(m, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const std::array<std::int32_t, 6> all{t, t, t, t, t, t};
    const auto a = b.box({0, 0, 0}, {32, 32, 32}, kSolid | kDetail, all);
    const auto c = b.box({32, 0, 0}, {64, 32, 32}, kSolid | kDetail, all);  // touches a
    const auto d = b.box({200, 0, 0}, {232, 32, 32}, kSolid | kDetail, all);
    const auto clip = b.box({0, 100, 0}, {32, 132, 32}, kPlayerClip | kDetail, all);
    b.face(a, BspBuilder::pz);
    b.model({a, c, d, clip}, 0);
    Decompiled merged = decompile(b);
    ASSERT_NE(find(merged.scene, "func_detail", 1), nullptr);
    EXPECT_EQ(find(merged.scene, "func_detail", 2), nullptr);
    EXPECT_EQ(find(merged.scene, "func_detail", 0)->brushes.size(), 2u);
    // Clip brushes carry CONTENTS_DETAIL too but stay world brushes, textured by contents.
    ASSERT_EQ(merged.scene.world.brushes.size(), 1u);
    EXPECT_EQ(merged.scene.world.brushes[0].sides[0].material, "TOOLS/TOOLSPLAYERCLIP");
    convert::BspToSceneOptions opt;
    opt.merge_detail = false;
    Decompiled apart = decompile(b, opt);
    EXPECT_NE(find(apart.scene, "func_detail", 2), nullptr);
    EXPECT_EQ(apart.report.recovered.func_detail, 3u);
}

TEST(BspScene, AreaportalAndLadderGetTheirBrushesBack) {
    BspBuilder b;
    const auto m = b.material("TOOLS/TOOLSNODRAW", 64, 64);
    const auto t = b.tex(m, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25, kNodraw);
    const std::array<std::int32_t, 6> all{t, t, t, t, t, t};
    const auto wall = b.box({-64, -64, 0}, {64, 64, 8}, kSolid, all);
    const auto portal = b.box({0, -32, 8}, {2, 32, 72}, kAreaportal, all);
    const auto ladder = b.box({40, 0, 8}, {41, 24, 100}, kLadder | 0x8, all);
    b.face(wall, BspBuilder::pz);
    b.model({wall, portal, ladder}, 0);
    // The compiled portal polygon lies on the brush's +x side.
    for (const Vec3& p : b.polygon(portal, BspBuilder::px)) b.clipportalverts.push_back(b.f3(p));
    bsp::dareaportal_t ap;
    ap.m_PortalKey = 1;
    ap.m_nClipPortalVerts = 4;
    b.areaportals = {bsp::dareaportal_t{}, ap};
    b.entities +=
        "{\n\"portalnumber\" \"1\"\n\"StartOpen\" \"1\"\n\"classname\" \"func_areaportal\"\n"
        "\"hammerid\" \"5\"\n}\n"
        "{\n\"maxs.z\" \"100.00\"\n\"maxs.y\" \"24.00\"\n\"maxs.x\" \"41.00\"\n\"mins.z\" "
        "\"8.00\"\n"
        "\"mins.y\" \"0.00\"\n\"mins.x\" \"40.00\"\n\"classname\" \"info_ladder\"\n"
        "\"hammerid\" \"6\"\n}\n";
    Decompiled r = decompile(b);
    const scene::Entity* ape = find(r.scene, "func_areaportal");
    ASSERT_NE(ape, nullptr);
    ASSERT_EQ(ape->brushes.size(), 1u);
    EXPECT_TRUE(ape->get("portalnumber").empty());
    EXPECT_EQ(ape->brushes[0].sides[0].material, "TOOLS/TOOLSAREAPORTAL");
    const scene::Entity* lad = find(r.scene, "func_ladder");
    ASSERT_NE(lad, nullptr);
    EXPECT_EQ(lad->id, 6);
    EXPECT_EQ(lad->brushes.size(), 1u);
    EXPECT_TRUE(lad->get("mins.x").empty());
    EXPECT_EQ(r.scene.world.brushes.size(), 1u);
    EXPECT_EQ(r.report.recovered.areaportals, 1u);
    EXPECT_EQ(r.report.recovered.ladders, 1u);
}

TEST(BspScene, LaddersFromTheirBoundsOrTheirContents) {
    BspBuilder b;
    const auto m = b.material("TOOLS/TOOLSNODRAW", 64, 64);
    const auto t = b.tex(m, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25, kNodraw);
    const std::array<std::int32_t, 6> all{t, t, t, t, t, t};
    const auto wall = b.box({-64, -64, 0}, {64, 64, 8}, kSolid, all);
    // A func_ladder of two brushes: its info_ladder spans both.
    const auto l1 = b.box({40, 0, 8}, {41, 24, 50}, kLadder | 0x8, all);
    const auto l2 = b.box({40, 0, 50}, {41, 24, 100}, kLadder | 0x8, all);
    b.face(wall, BspBuilder::pz);
    b.model({wall, l1, l2}, 0);
    b.entities +=
        "{\n\"classname\" \"info_ladder\"\n\"mins.x\" \"40.00\"\n\"mins.y\" \"0.00\"\n"
        "\"mins.z\" \"8.00\"\n\"maxs.x\" \"41.00\"\n\"maxs.y\" \"24.00\"\n\"maxs.z\" "
        "\"100.00\"\n}\n"
        // A copy elsewhere in the lump finds no brushes of its own and stays as it is.
        "{\n\"classname\" \"info_ladder\"\n\"mins.x\" \"-500.00\"\n\"mins.y\" \"0.00\"\n"
        "\"mins.z\" \"8.00\"\n\"maxs.x\" \"-499.00\"\n\"maxs.y\" \"24.00\"\n\"maxs.z\" "
        "\"100.00\"\n}\n";
    Decompiled r = decompile(b);
    const scene::Entity* lad = find(r.scene, "func_ladder");
    ASSERT_NE(lad, nullptr);
    EXPECT_EQ(lad->brushes.size(), 2u);
    const scene::Entity* info = find(r.scene, "info_ladder");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->get("mins.x"), "-500.00");
    EXPECT_EQ(r.report.recovered.ladders, 1u);

    // Without any info_ladder (compilers that keep no trace of func_ladder), each brush with
    // ladder contents becomes a func_ladder: a recompile then gives it those contents again.
    BspBuilder c;
    const auto cm = c.material("METAL/FENCE", 64, 64);
    const auto ct = c.tex(cm, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const std::array<std::int32_t, 6> call{ct, ct, ct, ct, ct, ct};
    const auto cw = c.box({-64, -64, 0}, {64, 64, 8}, kSolid, call);
    const auto c1 = c.box({40, 0, 8}, {41, 24, 50}, kLadder | 0x8, call);
    const auto c2 = c.box({-40, 0, 8}, {-39, 24, 50}, kLadder | 0x8, call);
    c.model({cw, c1, c2}, 0);
    Decompiled rc = decompile(c);
    EXPECT_NE(find(rc.scene, "func_ladder", 0), nullptr);
    EXPECT_NE(find(rc.scene, "func_ladder", 1), nullptr);
    EXPECT_EQ(rc.report.recovered.ladders, 2u);
    EXPECT_EQ(rc.scene.world.brushes.size(), 1u);
}

TEST(BspScene, OccluderBrushOutsideEveryModel) {
    BspBuilder b;
    const auto m = b.material("TOOLS/TOOLSNODRAW", 64, 64);
    const auto t = b.tex(m, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25, kNodraw);
    const std::array<std::int32_t, 6> all{t, t, t, t, t, t};
    const auto floor = b.box({-256, -256, -16}, {256, 256, 0}, kSolid, all);
    b.model({floor}, 0);
    // func_occluder brushes are in no model's tree; the occlusion lump keeps the faces.
    b.box({0, 0, 0}, {8, 128, 128}, 0, all);
    bsp::Occlusion occ;
    occ.version = 2;
    bsp::doccluderdata_t od;
    od.polycount = 1;
    occ.occluders.push_back(od);
    bsp::doccluderpolydata_t pd;
    pd.vertexcount = 4;
    occ.polys.push_back(pd);
    for (const Vec3& p : b.polygon(1, BspBuilder::nx)) {
        occ.vertex_indices.push_back(std::int32_t(b.vertexes.size()));
        b.vertexes.push_back(b.f3(p));
    }
    b.occlusion = occ;
    b.entities += "{\n\"occludernumber\" \"0\"\n\"classname\" \"func_occluder\"\n}\n";
    Decompiled r = decompile(b);
    const scene::Entity* e = find(r.scene, "func_occluder");
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->brushes.size(), 1u);
    EXPECT_EQ(side_facing(e->brushes[0], {-1, 0, 0})->material, "TOOLS/TOOLSOCCLUDER");
    EXPECT_EQ(side_facing(e->brushes[0], {1, 0, 0})->material, "TOOLS/TOOLSNODRAW");
}

TEST(BspScene, StaticPropsOverlaysAndCubemaps) {
    Floor f;
    const auto top = f.b.face(f.brush, BspBuilder::pz);
    f.b.model({f.brush}, 0);
    bsp::StaticProps sp;
    sp.version = 6;
    sp.layout = bsp::StaticPropLayout::v6;
    std::array<char, 128> name{};
    std::string("models/props/crate.mdl").copy(name.data(), 127);
    sp.dict.push_back(name);
    bsp::StaticPropLump_t p;
    p.m_Origin = {10.5f, -20, 0};
    p.m_Angles = {0, 90, 0};
    p.m_Solid = 6;
    p.m_Flags = 0x10;  // no shadows
    sp.props.push_back(p);
    f.b.static_props = sp;
    bsp::doverlay_t o;
    o.nId = 3;
    o.nTexInfo = f.brick;
    o.m_nFaceCountAndRenderOrder = 1;
    o.aFaces[0] = top;
    o.flU[1] = 1;
    o.flV[1] = 1;
    o.vecUVPoints[0] = {-8, -8, 1};  // z of the first three: basis U = (1, 0, 0)
    o.vecUVPoints[1] = {-8, 8, 0};
    o.vecUVPoints[2] = {8, 8, 0};
    o.vecUVPoints[3] = {8, -8, 0};
    o.vecOrigin = {0, 0, 0};
    o.vecBasisNormal = {0, 0, 1};
    f.b.overlays.push_back(o);
    f.b.entities +=
        "{\n\"OverlayID\" \"3\"\n\"targetname\" \"logo\"\n\"classname\" "
        "\"info_overlay_accessor\"\n\"hammerid\" \"77\"\n}\n";
    bsp::dcubemapsample_t c;
    c.origin[2] = 64;
    f.b.cubemaps.push_back(c);
    Decompiled r = decompile(f.b);
    const scene::Entity* prop = find(r.scene, "prop_static");
    ASSERT_NE(prop, nullptr);
    EXPECT_EQ(prop->get("model"), "models/props/crate.mdl");
    EXPECT_EQ(prop->get("origin"), "10.5 -20 0");
    EXPECT_EQ(prop->get("angles"), "0 90 0");
    EXPECT_EQ(prop->get("solid"), "6");
    EXPECT_EQ(prop->get("disableshadows"), "1");
    const scene::Entity* ov = find(r.scene, "info_overlay");
    ASSERT_NE(ov, nullptr);
    EXPECT_EQ(ov->id, 77);
    EXPECT_EQ(ov->get("targetname"), "logo");
    EXPECT_EQ(ov->get("material"), "BRICK/WALL01");
    EXPECT_EQ(ov->get("BasisU"), "1 0 0");
    EXPECT_EQ(ov->get("BasisV"), "0 1 0");
    const std::int64_t side = side_facing(r.scene.world.brushes[0], {0, 0, 1})->id;
    EXPECT_EQ(ov->get("sides"), std::to_string(side));
    EXPECT_EQ(find(r.scene, "info_overlay_accessor"), nullptr);
    const scene::Entity* cm = find(r.scene, "env_cubemap");
    ASSERT_NE(cm, nullptr);
    EXPECT_EQ(cm->get("origin"), "0 0 64");
}

TEST(BspScene, CubemapSidesListOnlyWhatVbspWouldNotChoose) {
    BspBuilder b;
    // Both tops use the cubemap at x = 1000 (vbsp renamed their material for it), though the
    // one at x = 0 is nearer to the left box: only the left top needs listing.
    const auto shiny = b.material("maps/test/metal/shiny_1000_0_64", 128, 128);
    const auto nd = b.material("TOOLS/TOOLSNODRAW", 64, 64);
    const auto t = b.tex(shiny, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const auto n = b.tex(nd, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25, kNodraw);
    const std::array<std::int32_t, 6> top_only{n, n, n, n, t, n};
    const auto left = b.box({-32, -32, -16}, {32, 32, 0}, kSolid, top_only);
    const auto right = b.box({968, -32, -16}, {1032, 32, 0}, kSolid, top_only);
    b.face(left, BspBuilder::pz);
    b.face(right, BspBuilder::pz);
    b.model({left, right}, 0);
    bsp::dcubemapsample_t c0, c1;
    c0.origin[2] = 64;
    c1.origin[0] = 1000;
    c1.origin[2] = 64;
    b.cubemaps = {c0, c1};
    Decompiled r = decompile(b);
    const scene::Entity* far = find(r.scene, "env_cubemap", 1);
    ASSERT_NE(far, nullptr);
    EXPECT_EQ(far->get("sides"),
              std::to_string(side_facing(r.scene.world.brushes[0], {0, 0, 1})->id));
    EXPECT_EQ(find(r.scene, "env_cubemap", 0)->get("sides"), "");
    EXPECT_EQ(side_facing(r.scene.world.brushes[0], {0, 0, 1})->material, "metal/shiny");
}

TEST(BspScene, DisplacementGivesBackTheCompiledVertices) {
    Floor f;
    const auto top = f.b.face(f.brush, BspBuilder::pz, 0);
    f.b.model({f.brush}, 0);
    bsp::ddispinfo_t d;
    const Winding w = f.b.polygon(f.brush, BspBuilder::pz);
    d.startPosition = f.b.f3(w[2]);
    d.power = 2;
    d.m_iMapFace = std::uint16_t(top);
    for (std::uint32_t& a : d.m_AllowedVerts) a = 0xFFFFFFFFu;
    f.b.dispinfo.push_back(d);
    for (int i = 0; i < 25; ++i) {
        bsp::CDispVert v;
        v.m_vVector = {0, 0, 1};
        v.m_flDist = float(i % 5) * 4;
        v.m_flAlpha = float(i * 10);
        f.b.disp_verts.push_back(v);
    }
    f.b.disp_tris.assign(32, bsp::CDispTri{1});
    Decompiled r = decompile(f.b);
    EXPECT_EQ(r.report.recovered.displacements, 1u);
    // Through VMF: Hammer's grid from the written side equals the engine's from the lump.
    const vmf::Map m = convert::scene_to_vmf(r.scene, r.diags);
    const vmf::Solid* solid = nullptr;
    std::size_t k = 0;
    for (const vmf::Solid& s : m.world.solids) {
        for (std::size_t i = 0; i < s.sides.size(); ++i) {
            if (s.sides[i].disp) {
                solid = &s;
                k = i;
            }
        }
    }
    ASSERT_NE(solid, nullptr);
    EXPECT_EQ(solid->sides[k].material, "BRICK/WALL01");
    EXPECT_EQ(solid->sides[k].disp->alphas[3], 30);
    BrushPolygons polys;
    vmf::solid_polygons(*solid, polys);
    auto grid = vmf::displacement_grid(solid->sides[k], polys.face(k));
    ASSERT_TRUE(grid);
    std::size_t start = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        if (near(w[i], d.startPosition.to_vec3(), 1e-9)) start = i;
    }
    const Vec3 c0 = w[start], c1 = w[(start + 1) % 4], c2 = w[(start + 2) % 4],
               c3 = w[(start + 3) % 4];
    for (int i = 0; i < 5; ++i) {
        for (int j = 0; j < 5; ++j) {
            const Vec3 flat = lerp(lerp(c0, c1, i / 4.0), lerp(c3, c2, i / 4.0), j / 4.0);
            const Vec3 want =
                flat + Vec3{0, 0, double(f.b.disp_verts[std::size_t(i * 5 + j)].m_flDist)};
            EXPECT_TRUE(near((*grid)[std::size_t(i * 5 + j)], want, 1e-6)) << i << "," << j;
        }
    }
}

TEST(BspScene, FacesModeBuildsOneBrushPerFace) {
    Floor f;
    f.b.face(f.brush, BspBuilder::pz);
    f.b.face(f.brush, BspBuilder::px);
    f.b.model({f.brush}, 0);
    convert::BspToSceneOptions opt;
    opt.faces_mode = true;
    Decompiled r = decompile(f.b, opt);
    ASSERT_EQ(r.scene.world.brushes.size(), 2u);
    EXPECT_EQ(r.report.recovered.face_brushes, 2u);
    EXPECT_EQ(r.scene.world.brushes[0].sides[0].material, "BRICK/WALL01");
    const vmf::Map m = convert::scene_to_vmf(r.scene, r.diags);
    Diagnostics v;
    vmf::validate(m, v);
    EXPECT_FALSE(v.has_errors());
}

TEST(BspScene, DamagedBrushesAreClosedOrReported) {
    Floor f;
    // Sides missing from the lump (here: the bottom): closed by the box its leaves fill.
    bsp::dbrush_t open = f.b.brushes[0];
    open.numsides = 5;
    f.b.brushes.push_back(open);
    // Two opposed planes at x = 300: no volume at all, so no solid.
    const auto t = f.brick;
    const auto flat = f.b.box({300, 0, 0}, {300, 10, 10}, kSolid, {t, t, t, t, t, t});
    // Garbage references must not crash: a plane past the plane lump, a texinfo past the
    // texinfo lump.
    bsp::dbrush_t bad;
    bad.firstside = std::int32_t(f.b.sides.size());
    bad.numsides = 2;
    f.b.sides.push_back({60000, 0, 0, 0, 0, {0, 0}});
    f.b.sides.push_back({0, 12345, 0, 0, 0, {0, 0}});
    f.b.brushes.push_back(bad);
    f.b.model({f.brush}, 0);
    f.b.leafbrushes.insert(f.b.leafbrushes.end(), {1, std::uint32_t(flat), 3});
    f.b.leafs[0].numleafbrushes = 4;
    Decompiled r = decompile(f.b);
    EXPECT_EQ(r.report.recovered.closed_brushes, 2u);
    EXPECT_EQ(r.report.lost.invalid_brushes, 1u);
    bool warned = false;
    for (const Diagnostic& d : r.diags.items()) warned |= d.code == "convert.invalid-brush";
    EXPECT_TRUE(warned);
    // Every real side that did not make it is listed with its brush and is an error: the flat
    // brush's six, the bad brush's side whose plane is outside the plane lump.
    std::size_t flat_lost = 0, bad_plane_lost = 0;
    for (const auto& l : r.report.lost_sides) {
        EXPECT_GE(l.brush, 0);
        EXPECT_GE(l.brush_side, 0);
        EXPECT_FALSE(l.reason.empty());
        flat_lost += l.brush == flat;
        bad_plane_lost += l.brush == std::int64_t(f.b.brushes.size()) - 1 &&
                          l.reason.find("outside the plane lump") != std::string::npos;
    }
    EXPECT_EQ(flat_lost, 6u);
    EXPECT_EQ(bad_plane_lost, 1u);
    EXPECT_EQ(r.report.lost.dropped_sides, r.report.lost_sides.size());
    std::size_t errors = 0;
    for (const Diagnostic& d : r.diags.items()) {
        if (d.code != "convert.side-lost") continue;
        ++errors;
        EXPECT_EQ(d.severity, Severity::error);
        EXPECT_EQ(d.path.rfind("lump[19]/record[", 0), 0u) << d.path;
        EXPECT_NE(d.message.find("brush "), std::string::npos);
    }
    EXPECT_EQ(errors, r.report.lost_sides.size());
    // Whatever is written is a valid solid.
    const vmf::Map m = convert::scene_to_vmf(r.scene, r.diags);
    Diagnostics v;
    vmf::validate(m, v);
    EXPECT_FALSE(v.has_errors());
}

TEST(BspScene, PlanesThatOnlyTouchTheSolidAreNotSides) {
    // A wedge in a trigger: its sloped side runs from the top at x = 0 down to the floor at
    // x = 64. vbsp writes axial planes at the brush bounds without the bevel flag when the
    // bevels it made first no longer match (entity brushes moved by their origin): +z at the
    // top edge and +x at the bottom edge touch the wedge along an edge only.
    BspBuilder b;
    const auto mat = b.material("TOOLS/TOOLSTRIGGER", 64, 64);
    const auto ti = b.tex(mat, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25, kTrigger);
    const double r = std::sqrt(0.5);
    const auto wedge = b.brush(kSolid,
                               {{{-1, 0, 0}, 0},
                                {{0, -1, 0}, 0},
                                {{0, 1, 0}, 64},
                                {{0, 0, -1}, 0},
                                {{r, 0, r}, 64 * r},
                                {{0, 0, 1}, 64},
                                {{1, 0, 0}, 64},
                                {{1, 0, 0}, 64.0001}},
                               ti, {false, false, false, false, false, false, false, true});
    b.entities += "{\n\"classname\" \"trigger_multiple\"\n\"model\" \"*1\"\n}\n";
    b.model({}, 0);
    b.model({wedge}, 0);
    Decompiled d = decompile(b);
    const scene::Entity* trig = find(d.scene, "trigger_multiple");
    ASSERT_NE(trig, nullptr);
    ASSERT_EQ(trig->brushes.size(), 1u);
    EXPECT_EQ(trig->brushes[0].sides.size(), 5u);
    EXPECT_EQ(side_facing(trig->brushes[0], {0, 0, 1}), nullptr);
    EXPECT_EQ(side_facing(trig->brushes[0], {1, 0, 0}), nullptr);
    EXPECT_EQ(d.report.skipped.redundant_sides, 2u);
    EXPECT_EQ(d.report.skipped.bevel_sides, 1u);
    EXPECT_TRUE(d.report.lost_sides.empty());
    EXPECT_FALSE(d.diags.has_errors());
}

TEST(BspScene, BrushesOfAModelNoEntityNamesAreReportedLost) {
    Floor f;
    const auto extra = f.b.box({0, 0, 64}, {16, 16, 80}, kSolid,
                               {f.brick, f.brick, f.brick, f.brick, f.brick, f.brick});
    f.b.model({f.brush}, 0);
    f.b.model({extra}, 0);  // *1, which no entity names
    Decompiled r = decompile(f.b);
    ASSERT_EQ(r.report.lost_sides.size(), 6u);
    for (const auto& l : r.report.lost_sides) {
        EXPECT_EQ(l.brush, extra);
        EXPECT_EQ(l.solid_id, 0);
        EXPECT_NE(l.reason.find("*1"), std::string::npos) << l.reason;
    }
    EXPECT_EQ(r.diags.count(Severity::error), 6u);
}

TEST(BspScene, ConverterReportsPerKind) {
    Floor f;
    f.b.face(f.brush, BspBuilder::pz);
    f.b.model({f.brush}, 0);
    ReadOptions ro;
    ro.source_name = "floor.bsp";
    auto in = read_document(Blob::from_bytes(f.b.write()), ro);
    ASSERT_TRUE(in);
    Diagnostics d;
    auto out = convert_document(*in.value(), "vmf", {}, d);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->document->format(), "vmf");
    EXPECT_EQ(out->report["recovered"]["world_brushes"], 1);
    EXPECT_EQ(out->report["not_recovered"]["invalid_brushes"], 0);
    EXPECT_TRUE(out->report["not_recovered"].contains("visibility"));
    Options bad;
    bad.set("compress", "1");  // a BSP output option
    auto refused = convert_document(*in.value(), "vmf", bad, d);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, "option.unknown");
}

TEST(BspScene, EveryLayoutVariantDecompilesAlike) {
    // The same small map (a floor whose top carries an overlay, a displacement on its +x side)
    // written in each record layout comes back the same.
    struct Variant {
        const char* name;
        std::int32_t version;
        std::size_t face_record;
        std::vector<std::pair<bsp::LumpId, std::int32_t>> lumps;
        bool strata_v3_overlays = false;
    };
    using L = bsp::LumpId;
    const Variant variants[] = {
        {"standard v20", 20, 56, {}},
        {"Bloodlines v17", 17, 104, {}},
        {"VitaminSource v43", 43, 40, {}},
        {"Strata v25",
         25,
         72,
         {{L::faces, 2},
          {L::originalfaces, 0},
          {L::brushsides, 1},
          {L::nodes, 1},
          {L::leafs, 2},
          {L::edges, 1},
          {L::leaffaces, 1},
          {L::leafbrushes, 1},
          {L::dispinfo, 1}},
         true},
    };
    for (const Variant& v : variants) {
        SCOPED_TRACE(v.name);
        Floor f;
        f.b.version = v.version;
        f.b.lump_versions = v.lumps;
        const auto top = f.b.face(f.brush, BspBuilder::pz);
        const auto side = f.b.face(f.brush, BspBuilder::px, 0);
        f.b.model({f.brush}, 0);
        bsp::ddispinfo_t d;
        const Winding w = f.b.polygon(f.brush, BspBuilder::px);
        d.startPosition = f.b.f3(w[0]);
        d.power = 2;
        d.m_iMapFace = std::uint32_t(side);
        for (std::uint32_t& a : d.m_AllowedVerts) a = 0xFFFFFFFFu;
        f.b.dispinfo.push_back(d);
        for (int i = 0; i < 25; ++i) f.b.disp_verts.push_back({{1, 0, 0}, float(i % 5), 0});
        f.b.disp_tris.assign(32, bsp::CDispTri{0});
        if (v.strata_v3_overlays) {
            bsp::StrataOverlays so;
            so.faces = {std::uint32_t(top)};
            bsp::doverlay_v3_t o;
            o.nId = 3;
            o.nTexInfo = std::uint32_t(f.brick);
            o.faceCount = 1;
            o.flU[1] = o.flV[1] = 1;
            o.uv[0][0] = o.uv[0][1] = o.uv[1][0] = o.uv[3][1] = -8;
            o.uv[1][1] = o.uv[2][0] = o.uv[2][1] = o.uv[3][0] = 8;
            o.basisU = {1, 0, 0};
            o.basisNormal = {0, 0, 1};
            so.overlays.push_back(o);
            f.b.strata_overlays = so;
        } else {
            bsp::doverlay_t o;
            o.nId = 3;
            o.nTexInfo = f.brick;
            o.m_nFaceCountAndRenderOrder = 1;
            o.aFaces[0] = top;
            o.flU[1] = o.flV[1] = 1;
            o.vecUVPoints[0] = {-8, -8, 1};
            o.vecUVPoints[1] = {-8, 8, 0};
            o.vecUVPoints[2] = {8, 8, 0};
            o.vecUVPoints[3] = {8, -8, 0};
            o.vecBasisNormal = {0, 0, 1};
            f.b.overlays.push_back(o);
        }
        auto written = bsp::Bsp::read(Blob::from_bytes(f.b.write()));
        ASSERT_TRUE(written);
        EXPECT_EQ(written->lump(L::faces).size(), 2 * v.face_record);
        Decompiled r = decompile(f.b);
        EXPECT_FALSE(r.diags.has_errors());
        EXPECT_TRUE(r.report.unreadable_lumps.empty());
        EXPECT_EQ(r.report.recovered.displacements, 1u);
        ASSERT_EQ(r.scene.world.brushes.size(), 2u);
        const scene::BrushSide* up = side_facing(r.scene.world.brushes[0], {0, 0, 1});
        ASSERT_NE(up, nullptr);
        EXPECT_EQ(up->material, "BRICK/WALL01");
        EXPECT_DOUBLE_EQ(up->u.shift, 12.25);
        const scene::Entity* ov = find(r.scene, "info_overlay");
        ASSERT_NE(ov, nullptr);
        EXPECT_EQ(ov->get("sides"), std::to_string(up->id));
        EXPECT_EQ(ov->get("BasisU"), "1 0 0");
        EXPECT_EQ(ov->get("uv2"), "8 8 0");
    }
}

// A times-to-fire no int holds was clamped to INT32_MAX; the output keeps its text (which a
// VMF writes back as it was) and the value is reported with its entity and key.
TEST(BspScene, OutputTimesOutOfIntRangeIsKeptAsText) {
    Floor f;
    f.b.model({f.brush}, 0);
    f.b.entities +=
        "{\n\"classname\" \"logic_relay\"\n"
        "\"OnTrigger\" \"door,Open,,0,99999999999\"\n"
        "\"OnSpawn\" \"door,Close,,0.5,-5\"\n}\n";
    Decompiled r = decompile(f.b);
    const scene::Entity* e = find(r.scene, "logic_relay");
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->outputs.size(), 2u);
    EXPECT_EQ(e->outputs[0].output, "OnTrigger");
    EXPECT_EQ(e->outputs[0].unparsed, "door,Open,,0,99999999999");
    EXPECT_EQ(e->outputs[1], (scene::Output{"OnSpawn", "door", "Close", "", 0.5, -1, {}}));
    bool warned = false;
    for (const Diagnostic& d : r.diags.items()) {
        warned |= d.code == "convert.out-of-range" && d.path == "lump[0]/entity[1]/OnTrigger";
    }
    EXPECT_TRUE(warned);
}
