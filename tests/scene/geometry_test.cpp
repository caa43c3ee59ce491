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
