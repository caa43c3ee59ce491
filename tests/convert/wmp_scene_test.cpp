// Gamestudio -> scene mapping rules on small levels built in code.
#include <gtest/gtest.h>

#include <cmath>

#include "levelkit/convert/scene_wmp.hpp"
#include "levelkit/convert/wmp_scene.hpp"
#include "levelkit/wmp/resolve.hpp"

namespace lk::convert {
namespace {

// A 64-quant cube (WED winding: clockwise seen from outside) in a `$$M` level, plus entities.
wmp::Level cube_level() {
    wmp::Level lv;
    lv.dialect = wmp::Dialect::mm;
    lv.levels.emplace_back();
    wmp::Block& b = lv.blocks.emplace_back();
    b.vertices = {{0, 0, 0},  {64, 0, 0},  {64, 64, 0},  {0, 64, 0},
                  {0, 0, 64}, {64, 0, 64}, {64, 64, 64}, {0, 64, 64}};
    b.index = 3;
    const std::vector<std::vector<std::uint32_t>> faces = {
        {4, 7, 6, 5}, {0, 1, 2, 3}, {0, 4, 5, 1}, {2, 6, 7, 3}, {3, 7, 4, 0}, {1, 5, 6, 2}};
    for (const auto& idx : faces) {
        wmp::Face& f = b.faces.emplace_back();
        f.indices = idx;
        f.texture = "stone";
        auto [s, t] = wmp::default_texture_axes(wmp::face_normal(b.vertices, f));
        f.t1 = wmp::TexAxis{s.axis * 0.5, 16};  // texture scale 2, offset 16 texels
        f.t2 = t;
    }
    b.faces[1].flags = wmp::face_flag::sky;
    lv.objects.resize(1);
    lv.objects[0].kind = wmp::Kind::level;
    lv.objects[0].payload = 0;
    auto add = [&](wmp::Kind k, std::int32_t payload, Vec3 pos, Vec3 ang) {
        wmp::Object& o = lv.objects.emplace_back();
        o.kind = k;
        o.payload = payload;
        o.transform.position = pos;
        o.transform.angles = ang;
        lv.objects[0].children.push_back(static_cast<std::uint32_t>(lv.objects.size() - 1));
    };
    wmp::Model& m = lv.models.emplace_back();
    m.file = "guard.mdl";
    m.name = "guard_1";
    m.action = "patrol";
    m.skills = {1, 2, 0, 0, 0, 0, 0, 0};
    add(wmp::Kind::model, 0, {10, 20, 30}, {90, 0, 0});
    wmp::Light& l = lv.lights.emplace_back();
    l.color = {100, 50, 0};
    l.range = 300;
    add(wmp::Kind::light, 0, {0, 0, 100}, {});
    wmp::Path& p = lv.paths.emplace_back();
    p.name = "route";
    p.nodes = {{0, 0, 0}, {100, 0, 0}, {100, 100, 0}};
    p.node_skills.assign(18, 0);
    p.edges = {{0, 1}, {1, 2}, {1, 0}};
    add(wmp::Kind::path, 0, {}, {});
    return lv;
}

TEST(WmpScene, BlocksBecomeBrushesWithTheSameTexelMapping) {
    Diagnostics d;
    WmpToSceneReport rep;
    auto s = wmp_to_scene(cube_level(), d, {2.0}, &rep);  // 2 units per quant
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s->world.brushes.size(), 1u);
    EXPECT_EQ(rep.brushes, 1u);
    EXPECT_TRUE(rep.rejected.empty());
    const scene::Brush& b = s->world.brushes[0];
    ASSERT_EQ(b.sides.size(), 6u);
    const scene::BrushSide& top = b.sides[0];
    EXPECT_TRUE(near(top.plane.normal, {0, 0, 1}, 1e-9));
    EXPECT_NEAR(top.plane.dist, 128, 1e-9);  // 64 quants * 2
    // WED: texel = dot(t1, p) + 16 with |t1| = 0.5; Hammer: dot(axis, p') / scale + shift.
    const Vec3 p_quants{10, 20, 64};
    const double wed = dot(Vec3(0.5, 0, 0), p_quants) + 16;
    const double hammer = dot(top.u.axis, p_quants * 2.0) / top.u.scale + top.u.shift;
    EXPECT_NEAR(hammer, wed, 1e-9);
    EXPECT_EQ(top.material, "stone");
    // Flags and block data ride in the editor comments.
    EXPECT_EQ(b.editor.comments, "wmp block=3 flags=0x0; side 1 flags=0x4 ambient=0 albedo=50");
}

TEST(WmpScene, EntitiesKeepEveryField) {
    Diagnostics d;
    auto s = wmp_to_scene(cube_level(), d);
    ASSERT_TRUE(s.ok());
    const scene::Entity* model = nullptr;
    const scene::Entity* light = nullptr;
    std::vector<const scene::Entity*> track;
    for (const scene::Entity& e : s->entities) {
        if (e.classname() == "prop_dynamic") model = &e;
        if (e.classname() == "light") light = &e;
        if (e.classname() == "path_track") track.push_back(&e);
    }
    ASSERT_NE(model, nullptr);  // a model with an action
    EXPECT_EQ(model->get("model"), "guard.mdl");
    EXPECT_EQ(model->get("origin"), "10 20 30");
    EXPECT_EQ(model->get("angles"), "0 90 0");  // pan 90 is Source yaw 90
    EXPECT_EQ(model->get("wmp_action"), "patrol");
    EXPECT_EQ(model->get("wmp_skill2"), "2");
    ASSERT_NE(light, nullptr);
    EXPECT_EQ(light->get("_light"), "255 128 0 200");
    EXPECT_EQ(light->get("_distance"), "300");
    ASSERT_EQ(track.size(), 3u);
    EXPECT_EQ(track[0]->get("targetname"), "route_0");
    EXPECT_EQ(track[0]->get("target"), "route_1");
    EXPECT_EQ(track[1]->get("altpath"), "route_0");  // the second outgoing edge
    EXPECT_EQ(s->world.get("wmp_nexus"), "30");
}

TEST(WmpScene, OpenAndConcaveBlocksAreReported) {
    wmp::Level lv = cube_level();
    lv.blocks[0].faces.pop_back();  // no longer closed
    wmp::Block concave = lv.blocks[0];
    Diagnostics d;
    WmpToSceneReport rep;
    auto s = wmp_to_scene(lv, d, {}, &rep);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(rep.rejected.size(), 1u);
    EXPECT_EQ(rep.rejected[0].reason, "open");
    EXPECT_EQ(s->world.brushes.size(), 0u);
    EXPECT_EQ(s->world.meshes.size(), 1u);  // kept, not dropped
    EXPECT_EQ(d.count(Severity::warning), 1u);
    // Push one top corner inwards: the block is closed but no longer convex.
    lv = cube_level();
    lv.blocks[0].vertices[6] = {40, 40, 40};
    rep = {};
    s = wmp_to_scene(lv, d, {}, &rep);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(rep.rejected.size(), 1u);
    EXPECT_EQ(rep.rejected[0].reason, "non-convex");
}

TEST(WmpScene, A3WallsBecomeThinBrushes) {
    wmp::A3Level a;
    a.vertices = {{0, 0, 0}, {64, 0, 0}};
    a.regions = {{"low", 0, 100}, {"high", 16, 80}};
    a.walls.push_back({"brick", 0, 1, 0, 1, 0, 0});  // between regions: the two height steps
    a.walls.push_back({"brick", 0, 1, 0, 0, 0, 0});  // one region: floor to ceiling
    Diagnostics d;
    WmpToSceneReport rep;
    const scene::Scene s = a3_to_scene(a, d, {}, &rep);
    EXPECT_EQ(s.world.brushes.size(), 3u);
    for (const scene::Brush& b : s.world.brushes) {
        ASSERT_EQ(b.sides.size(), 6u);
        std::vector<std::optional<Plane>> planes;
        for (const auto& sd : b.sides) planes.push_back(sd.plane);
        BrushPolygons polys;
        build_brush_polygons(planes, {32, 0, 50}, polys);
        EXPECT_TRUE(polys.valid());
    }
}

// WMP flags are 32 bits; a longer hex value in a scene key was cut to its low 32 bits
// ("100000001" became 1). It is reported and written as 0, as text that is no number is.
TEST(WmpScene, FlagsWiderThan32BitsAreReportedNotTruncated) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    scene::Entity wide, ok;
    wide.set("classname", "light");
    wide.set("wmp_flags", "100000001");
    ok.set("classname", "light");
    ok.set("wmp_flags", "FFFFFFFF");
    s.entities = {wide, ok};
    Diagnostics d;
    auto lv = scene_to_wmp(s, d);
    ASSERT_TRUE(lv) << lv.error().to_string();
    ASSERT_EQ(lv->lights.size(), 2u);
    EXPECT_EQ(lv->lights[0].flags, 0u);
    EXPECT_EQ(lv->lights[1].flags, 0xFFFFFFFFu);
    std::size_t warned = 0;
    for (const Diagnostic& x : d.items()) warned += x.code == "convert.bad-value";
    EXPECT_EQ(warned, 1u);
}

}  // namespace
}  // namespace lk::convert
