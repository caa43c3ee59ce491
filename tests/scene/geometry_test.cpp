// Scene surfaces: the one polygon soup every map consumer draws from.
#include "levelkit/scene/geometry.hpp"

#include <gtest/gtest.h>

using namespace lk;

namespace {

// An axis-aligned box brush from min to max (sides with outward planes and Hammer points).
scene::Brush box(std::int64_t id, Vec3 lo, Vec3 hi, std::string material) {
    scene::Brush b;
    b.id = id;
    const Vec3 n[6] = {{0, 0, 1}, {0, 0, -1}, {-1, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    const double d[6] = {hi.z, -lo.z, -lo.x, hi.x, hi.y, -lo.y};
    for (int i = 0; i < 6; ++i) {
        scene::BrushSide s;
        s.plane = {n[i], d[i]};
        s.material = material;
        s.u = {{1, 0, 0}, 0, 0.25};
        s.v = {{0, -1, 0}, 0, 0.25};
        if (std::abs(n[i].x) > 0) s.u = {{0, 1, 0}, 0, 0.25};
        if (std::abs(n[i].z) < 1) s.v = {{0, 0, -1}, 0, 0.25};
        s.id = id * 10 + i;
        b.sides.push_back(s);
    }
    return b;
}

}  // namespace

TEST(SceneSurfaces, BoxBrushGivesSixOutwardQuads) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {64, 32, 16}, "BRICK/WALL01"));
    const scene::Surfaces out = scene::build_surfaces(s);
    ASSERT_EQ(out.polygon_count(), 6u);
    EXPECT_EQ(out.triangle_count(), 12u);
    ASSERT_EQ(out.materials.size(), 1u);
    ASSERT_EQ(out.pieces.size(), 1u);
    for (std::size_t i = 0; i < out.polygon_count(); ++i) {
        const auto p = out.polygon(i);
        ASSERT_EQ(p.size(), 4u);
        // Counter-clockwise seen from outside: the area vector points along the outward normal.
        const Vec3 a = normalize(winding_area_vector(p));
        EXPECT_NEAR(dot(a, out.normals[out.polygon_begin[i]]), 1.0, 1e-9);
    }
    // Texture coordinates: texels (dot / 0.25) divided by the default 512 texture size.
    const auto& top = out.polygon(0);
    for (std::size_t k = 0; k < top.size(); ++k) {
        const auto uv = out.uvs[out.polygon_begin[0] + k];
        EXPECT_NEAR(uv[0], top[k].x / 0.25 / 512, 1e-12);
        EXPECT_NEAR(uv[1], -top[k].y / 0.25 / 512, 1e-12);
    }
}

TEST(SceneSurfaces, ToolFacesAreLeftOutOnRequest) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {64, 64, 64}, "TOOLS/TOOLSNODRAW"));
    s.world.brushes.back().sides[0].material = "dev/dev_measuregeneric01";
    scene::SurfaceOptions opt;
    opt.skip_tool_materials = true;
    const scene::Surfaces out = scene::build_surfaces(s, opt);
    EXPECT_EQ(out.polygon_count(), 1u);
    EXPECT_EQ(out.tool_faces_skipped, 5u);
    EXPECT_TRUE(scene::is_tool_material("materials/tools/toolsclip.vmat"));
    EXPECT_FALSE(scene::is_tool_material("toolshed/wood"));
}

TEST(SceneSurfaces, DisplacementSideIsItsGridWithAlphaColours) {
    scene::Scene s;
    scene::Brush b = box(2, {0, 0, 0}, {64, 64, 8}, "nature/blendrock");
    scene::Displacement d;
    d.power = 2;
    d.start_position = {0, 0, 8};
    d.normals.assign(25, {0, 0, 1});
    d.distances.assign(25, 0);
    d.distances[12] = 10;  // the middle vertex rises
    d.alphas.assign(25, 255);
    b.sides[0].displacement = d;
    s.world.brushes.push_back(b);
    s.world.brushes.push_back(box(3, {100, 0, 0}, {164, 64, 8}, "brick/wall"));
    const scene::Surfaces out = scene::build_surfaces(s);
    ASSERT_EQ(out.pieces.size(), 2u);
    EXPECT_EQ(out.pieces[0].kind, scene::Surfaces::PieceKind::displacement);
    EXPECT_EQ(out.pieces[0].polygon_count, 32u);  // the other five sides are not drawn
    ASSERT_EQ(out.colors.size(), out.positions.size());
    double top = 0;
    for (std::size_t c = 0; c < out.pieces[0].polygon_count * 3; ++c) {
        top = std::max(top, out.positions[c].z);
        EXPECT_EQ(out.colors[c][3], 1.0);
        EXPECT_GT(out.normals[c].z, 0);  // drawn facing up
    }
    EXPECT_DOUBLE_EQ(top, 18);
    EXPECT_EQ(out.colors.back()[3], 1.0);  // pieces without alpha are opaque white
}

TEST(SceneSurfaces, MeshFacesKeepTheirUvsAndInvalidBrushesAreReported) {
    scene::Scene s;
    scene::Mesh m;
    m.positions = {{0, 0, 0}, {10, 0, 0}, {10, 10, 0}, {0, 10, 0}};
    m.face_vertices = {0, 1, 2, 3};
    m.faces.push_back({0, 4, 0, {}, {}});
    m.materials = {"materials/dev/floor.vmat"};
    m.uvs = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    s.world.meshes.push_back(m);
    scene::Brush open = box(4, {0, 0, 0}, {8, 8, 8}, "x");
    open.sides.pop_back();
    s.world.brushes.push_back(open);
    const scene::Surfaces out = scene::build_surfaces(s);
    ASSERT_EQ(out.polygon_count(), 1u);
    EXPECT_EQ(out.uvs[2][0], 1.0);
    ASSERT_EQ(out.skipped.size(), 1u);
    EXPECT_EQ(out.skipped[0].id, 4);
}

TEST(SceneSurfaces, SmoothingGroupsAverageNormalsWhereGroupsMeet) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {64, 64, 64}, "a"));
    auto& sides = s.world.brushes[0].sides;
    sides[0].smoothing_groups = 1;  // top
    sides[3].smoothing_groups = 1;  // +x
    sides[4].smoothing_groups = 2;  // +y: another group
    scene::SurfaceOptions opt;
    opt.smoothing_group_normals = true;
    const scene::Surfaces out = scene::build_surfaces(s, opt);
    // The top's corner at (64, 0, 64) is shared with +x only (group 1): the mean of the two.
    const Vec3 mean = normalize(Vec3{1, 0, 1});
    bool seen = false;
    for (std::uint32_t c = out.polygon_begin[0]; c < out.polygon_begin[1]; ++c) {
        if (out.positions[c] == Vec3{64, 0, 64}) {
            EXPECT_NEAR(distance(out.normals[c], mean), 0, 1e-12);
            seen = true;
        }
    }
    EXPECT_TRUE(seen);
    // The bottom has no group: flat.
    for (std::uint32_t c = out.polygon_begin[1]; c < out.polygon_begin[2]; ++c)
        EXPECT_EQ(out.normals[c], (Vec3{0, 0, -1}));
}

TEST(SceneSurfaces, SkyboxIsTheSeparateRoomAroundTheSkyCamera) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {512, 512, 16}, "dev/floor"));
    s.world.brushes.push_back(
        box(2, {-2000, -2000, -1000}, {-1744, -1744, -992}, "tools/toolsskybox"));
    s.world.brushes.push_back(
        box(3, {-2000, -2000, -992}, {-1992, -1744, -744}, "tools/toolsskybox"));
    s.world.brushes.push_back(box(4, {-1900, -1900, -990}, {-1890, -1890, -950}, "city/tower"));
    scene::Entity cam;
    cam.set("classname", "sky_camera");
    cam.set("origin", "-1872 -1872 -900");
    cam.set("scale", "32");
    s.entities.push_back(cam);
    const scene::Surfaces out = scene::build_surfaces(s);
    const auto sky = scene::find_skybox(s, out);
    ASSERT_TRUE(sky);
    EXPECT_EQ(sky->camera, 1u);
    EXPECT_EQ(sky->scale, 32);
    EXPECT_EQ(sky->pieces, (std::vector<bool>{false, true, true, true}));
    // With the camera in the map itself (where players start) there is none.
    s.entities[0].set("origin", "100 100 8");
    scene::Entity start;
    start.set("classname", "info_player_start");
    start.set("origin", "200 200 10");
    s.entities.push_back(start);
    EXPECT_FALSE(scene::find_skybox(s, out));
}

TEST(SceneSurfaces, MaterialColoursAreStableAndCaseBlind) {
    EXPECT_EQ(scene::material_color("BRICK/Wall01"), scene::material_color("brick/wall01"));
    EXPECT_NE(scene::material_color("brick/wall01"), scene::material_color("brick/wall02"));
    for (double c : scene::material_color("x")) {
        EXPECT_GE(c, 0);
        EXPECT_LE(c, 1);
    }
}
