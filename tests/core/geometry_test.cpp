#include <gtest/gtest.h>

#include "levelkit/core/geometry.hpp"

using namespace lk;

namespace {
// An axis-aligned box as Hammer writes it: 6 planes with outward normals.
std::vector<std::optional<Plane>> box(Vec3 mn, Vec3 mx) {
    return {Plane{{0, 0, 1}, mx.z}, Plane{{0, 0, -1}, -mn.z}, Plane{{-1, 0, 0}, -mn.x},
            Plane{{1, 0, 0}, mx.x}, Plane{{0, 1, 0}, mx.y},   Plane{{0, -1, 0}, -mn.y}};
}
}  // namespace

TEST(Plane, FromPointsFollowsVbspRule) {
    // Top face of a box from a real Hammer file: "(-64 64 64) (64 64 64) (64 -64 64)".
    auto p = Plane::from_points({-64, 64, 64}, {64, 64, 64}, {64, -64, 64});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->normal, Vec3(0, 0, 1));
    EXPECT_EQ(p->dist, 64);
    EXPECT_FALSE(Plane::from_points({0, 0, 0}, {1, 1, 1}, {2, 2, 2}));
}

TEST(Winding, BaseWindingIsOnPlaneAndWoundOutward) {
    Plane pl{normalize({1, 2, 3}), 10};
    Winding w = base_winding(pl, 1000);
    ASSERT_EQ(w.size(), 4u);
    for (auto& p : w) EXPECT_NEAR(pl.distance_to(p), 0, 1e-9);
    auto n = Plane::from_points(w[0], w[1], w[2]);
    ASSERT_TRUE(n);
    EXPECT_TRUE(near(n->normal, pl.normal, 1e-12));
}

TEST(Winding, ClipKeepsBackSide) {
    Winding sq{{0, 0, 0}, {0, 10, 0}, {10, 10, 0}, {10, 0, 0}};
    Winding out;
    clip_winding_back(sq, Plane{{1, 0, 0}, 4}, 1e-9, out);
    ASSERT_EQ(out.size(), 4u);
    for (auto& p : out) EXPECT_LE(p.x, 4);
    EXPECT_NEAR(winding_area(out), 40, 1e-9);
    clip_winding_back(sq, Plane{{1, 0, 0}, -1}, 1e-9, out);
    EXPECT_TRUE(out.empty());
    clip_winding_back(sq, Plane{{1, 0, 0}, 11}, 1e-9, out);
    EXPECT_EQ(out.size(), 4u);
}

TEST(Brush, BoxHasSixQuads) {
    BrushPolygons bp;
    auto planes = box({-64, -32, 0}, {64, 32, 128});
    build_brush_polygons(planes, {0, 0, 64}, bp);
    EXPECT_TRUE(bp.valid());
    ASSERT_EQ(bp.face_count(), 6u);
    for (std::size_t i = 0; i < 6; ++i) {
        auto f = bp.face(i);
        ASSERT_EQ(f.size(), 4u);
        for (auto& p : f) EXPECT_NEAR(planes[i]->distance_to(p), 0, 1e-9);
        // Wound as Hammer/VBSP do: the first three points give back the outward plane, so the
        // usual right-hand area vector points inward.
        auto back = Plane::from_points(f[0], f[1], f[2]);
        ASSERT_TRUE(back);
        EXPECT_TRUE(near(back->normal, planes[i]->normal, 1e-12));
        EXPECT_LT(dot(winding_area_vector(f), planes[i]->normal), 0);
    }
}

TEST(Brush, ReportsOpenDuplicateAndUntouchedPlanes) {
    BrushPolygons bp;
    auto planes = box({0, 0, 0}, {10, 10, 10});
    planes.pop_back();  // no -y side: open
    build_brush_polygons(planes, {5, 5, 5}, bp);
    ASSERT_FALSE(bp.valid());
    EXPECT_EQ(bp.problems.back().problem, BrushProblem::open);

    planes = box({0, 0, 0}, {10, 10, 10});
    planes.push_back(planes[0]);
    build_brush_polygons(planes, {5, 5, 5}, bp);
    ASSERT_EQ(bp.problems.size(), 1u);
    EXPECT_EQ(bp.problems[0].problem, BrushProblem::duplicate_plane);
    EXPECT_EQ(bp.problems[0].side, 6u);

    planes = box({0, 0, 0}, {10, 10, 10});
    planes.push_back(Plane{normalize({1, 1, 1}), 100});  // far outside: touches nothing
    build_brush_polygons(planes, {5, 5, 5}, bp);
    ASSERT_EQ(bp.problems.size(), 1u);
    EXPECT_EQ(bp.problems[0].problem, BrushProblem::side_no_face);

    planes = box({0, 0, 0}, {10, 10, 10});
    planes[3] = std::nullopt;
    build_brush_polygons(planes, {5, 5, 5}, bp);
    EXPECT_EQ(bp.problems[0].problem, BrushProblem::degenerate_plane);
}

TEST(Brush, WedgeClipsCorner) {
    auto planes = box({0, 0, 0}, {10, 10, 10});
    planes.push_back(Plane{normalize({1, 1, 0}), 15 / std::sqrt(2.0)});
    BrushPolygons bp;
    build_brush_polygons(planes, {5, 5, 5}, bp);
    EXPECT_TRUE(bp.valid());
    EXPECT_EQ(bp.face_count(), 7u);
    EXPECT_EQ(bp.face(0).size(), 5u);  // top loses a corner
    EXPECT_EQ(bp.face(6).size(), 4u);
    EXPECT_NEAR(winding_area(bp.face(6)), 10 * 5 * std::sqrt(2.0), 1e-9);

    // A plane through the (10,0)-(0,10) diagonal leaves the +x side only an edge: no face.
    planes.back() = Plane{normalize({1, 1, 0}), 10 / std::sqrt(2.0)};
    build_brush_polygons(planes, {5, 5, 5}, bp);
    ASSERT_FALSE(bp.valid());
    EXPECT_EQ(bp.problems[0].problem, BrushProblem::side_no_face);
}

TEST(Angles, MatrixRoundTrip) {
    for (Vec3 a : {Vec3{0, 90, 0}, Vec3{30, 45, 10}, Vec3{-20, 170, -5}}) {
        Mat3 m = angle_matrix(a);
        Vec3 b = matrix_angles(m);
        EXPECT_TRUE(near(b, a, 1e-9)) << b.x << " " << b.y << " " << b.z;
    }
    // yaw 90 turns +x into +y.
    EXPECT_TRUE(near(angle_matrix({0, 90, 0}) * Vec3{1, 0, 0}, {0, 1, 0}, 1e-12));
    // pitch 90 turns +x into -z (Source pitch is "down").
    EXPECT_TRUE(near(angle_matrix({90, 0, 0}) * Vec3{1, 0, 0}, {0, 0, -1}, 1e-12));
}

TEST(Winding, NearlyAxialPlanesAreNotSnapped) {
    // Normal (0, -1.3e-8, -1): the z component rounds to exactly -1 but the plane is tilted.
    const Plane tilted{normalize({0, -1.3e-8, -1}), 0.05};
    ASSERT_EQ(tilted.normal.z, -1.0);
    Winding sq{{0, -5000, 10}, {0, 5000, 10}, {0, 5000, -10}, {0, -5000, -10}};
    Winding out;
    clip_winding_back(sq, tilted, 1e-9, out);
    // The two new corners of the cut lie on the tilted plane itself.
    int on = 0;
    for (const Vec3& p : out) on += std::abs(tilted.distance_to(p)) < 1e-9;
    EXPECT_EQ(on, 2);
}

TEST(Winding, ConvexOverlapAreaOfCoplanarSquares) {
    const Winding a{{0, 0, 5}, {10, 0, 5}, {10, 10, 5}, {0, 10, 5}};
    // Same square wound the other way, shifted by 4 in x: a 6 x 10 overlap.
    const Winding b{{4, 10, 5}, {14, 10, 5}, {14, 0, 5}, {4, 0, 5}};
    EXPECT_NEAR(convex_overlap_area(a, b), 60, 1e-9);
    EXPECT_NEAR(convex_overlap_area(b, a), 60, 1e-9);
    // Squares sharing only an edge overlap by nothing once edges are pulled in.
    const Winding c{{10, 0, 5}, {20, 0, 5}, {20, 10, 5}, {10, 10, 5}};
    EXPECT_NEAR(convex_overlap_area(a, c, 0.01), 0, 1e-12);
    EXPECT_EQ(convex_overlap_area(a, Winding{{0, 0, 0}, {1, 1, 1}}), 0);
}

namespace {

double triangles_area(std::span<const lk::Vec3> poly,
                      const std::vector<std::array<std::uint32_t, 3>>& tris) {
    double a = 0;
    for (const auto& t : tris) {
        const lk::Vec3 n = cross(poly[t[1]] - poly[t[0]], poly[t[2]] - poly[t[0]]);
        // Same winding as the polygon: positive along its normal.
        a += dot(n, lk::normalize(lk::winding_area_vector(poly))) * 0.5;
    }
    return a;
}

}  // namespace

TEST(Triangulate, ConvexPolygonIsAFan) {
    const std::vector<lk::Vec3> sq{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    std::vector<std::array<std::uint32_t, 3>> tris;
    lk::triangulate_polygon(sq, tris);
    ASSERT_EQ(tris.size(), 2u);
    EXPECT_NEAR(triangles_area(sq, tris), 1.0, 1e-12);
}

TEST(Triangulate, ConcavePolygonKeepsItsAreaAndWinding) {
    // An L shape (area 3), wound clockwise seen from +Z.
    const std::vector<lk::Vec3> l{{0, 0, 5}, {0, 2, 5}, {1, 2, 5}, {1, 1, 5}, {2, 1, 5}, {2, 0, 5}};
    std::vector<std::array<std::uint32_t, 3>> tris;
    lk::triangulate_polygon(l, tris);
    ASSERT_EQ(tris.size(), 4u);
    EXPECT_NEAR(triangles_area(l, tris), 3.0, 1e-12);
    for (const auto& t : tris) {
        const lk::Vec3 n = cross(l[t[1]] - l[t[0]], l[t[2]] - l[t[0]]);
        EXPECT_LT(n.z, 0);  // every triangle keeps the polygon's (clockwise) winding
    }
}

TEST(Displacement, GridStartsAtTheCornerNearestStartPosition) {
    const std::vector<lk::Vec3> face{{0, 0, 0}, {0, 64, 0}, {64, 64, 0}, {64, 0, 0}};
    lk::DisplacementFields d;
    d.power = 2;
    d.start_position = {64, 64, 0};
    d.elevation = 2;
    auto g = lk::displacement_grid(d, face, {0, 0, 1});
    ASSERT_TRUE(g);
    ASSERT_EQ(g->size(), 25u);
    EXPECT_EQ((*g)[0], lk::Vec3(64, 64, 2));
    EXPECT_EQ((*g)[24], lk::Vec3(0, 0, 2));
    EXPECT_FALSE(lk::displacement_grid(d, std::span(face).first(3), {0, 0, 1}));
    d.power = 5;
    EXPECT_FALSE(lk::displacement_grid(d, face, {0, 0, 1}));
    EXPECT_EQ(lk::displacement_triangles(3).size(), 128u);
}
