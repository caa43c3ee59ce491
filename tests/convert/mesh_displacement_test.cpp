// Grid-shaped meshes back to displacements: what is recognised (quads, either diagonal, merged
// and welded grids, any vertex order), what is not (and is handed back), and that the brushes
// reproduce every vertex through Hammer's displacement rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "levelkit/convert/mesh_displacement.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/scene/geometry.hpp"
#include "levelkit/vmf/geometry.hpp"

using namespace lk;
using convert::mesh_to_displacements;

namespace {

enum class Cells { quads, alternating, uniform };

// A rows x cols grid of cells 16 units wide over the plane z = 0 seen from +z, vertex (i, j) at
// x = 16 j + x0, y = 16 i, raised by `height`; faces counter-clockwise from +z (Hammer's VMAP
// winding), vertices in row-major order.
scene::Mesh grid_mesh(std::uint32_t rows, std::uint32_t cols, Cells cells,
                      const std::function<double(std::uint32_t, std::uint32_t)>& height,
                      double x0 = 0) {
    scene::Mesh m;
    m.materials = {"nature/blendgrass"};
    const std::uint32_t w = cols + 1;
    for (std::uint32_t i = 0; i <= rows; ++i) {
        for (std::uint32_t j = 0; j <= cols; ++j)
            m.positions.push_back({16.0 * j + x0, 16.0 * i, height(i, j)});
    }
    auto face = [&](std::initializer_list<std::uint32_t> vs) {
        scene::Mesh::Face f;
        f.first = static_cast<std::uint32_t>(m.face_vertices.size());
        f.count = static_cast<std::uint32_t>(vs.size());
        f.u = {{1, 0, 0}, 0, 0.25};
        f.v = {{0, -1, 0}, 0, 0.25};
        m.face_vertices.insert(m.face_vertices.end(), vs);
        m.faces.push_back(f);
    };
    for (std::uint32_t i = 0; i < rows; ++i) {
        for (std::uint32_t j = 0; j < cols; ++j) {
            // Counter-clockwise from +z: (i, j) -> (i, j + 1) -> (i + 1, j + 1) -> (i + 1, j).
            const std::uint32_t a = i * w + j, b = a + 1, c = a + w + 1, d = a + w;
            if (cells == Cells::quads) {
                face({a, b, c, d});
            } else if (cells == Cells::uniform || (i + j) % 2 == 0) {
                face({a, b, c});
                face({a, c, d});
            } else {
                face({a, b, d});
                face({b, c, d});
            }
        }
    }
    return m;
}

double bump(std::uint32_t i, std::uint32_t j) {
    return 3.0 * std::sin(0.7 * i) + 2.0 * std::cos(1.3 * j) + 0.25 * i * j;
}

// The displaced grid Hammer computes for a recovered brush (side 0 is the displacement).
std::vector<Vec3> grid_of(const scene::Brush& b) {
    BrushPolygons polys;
    scene::brush_polygons(b, polys);
    EXPECT_TRUE(polys.valid());
    EXPECT_EQ(polys.face(0).size(), 4u);
    auto g = scene::displacement_grid(b.sides[0], polys.face(0));
    return g ? *g : std::vector<Vec3>{};
}

double max_error(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
    if (a.size() != b.size()) return INFINITY;
    double e = 0;
    for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, distance(a[i], b[i]));
    return e;
}

TEST(MeshDisplacement, EveryCellPatternComesBackVertexForVertex) {
    for (Cells cells : {Cells::quads, Cells::alternating, Cells::uniform}) {
        for (std::uint32_t p = 2; p <= 4; ++p) {
            const std::uint32_t n = 1u << p;
            const scene::Mesh m = grid_mesh(n, n, cells, bump);
            const auto r = mesh_to_displacements(m);
            ASSERT_EQ(r.brushes.size(), 1u) << r.reason;
            EXPECT_TRUE(r.rest.faces.empty());
            EXPECT_EQ(r.reason, "");
            const scene::Brush& b = r.brushes[0];
            ASSERT_EQ(b.sides.size(), 6u);
            ASSERT_TRUE(b.sides[0].displacement);
            EXPECT_EQ(b.sides[0].displacement->power, static_cast<int>(p));
            EXPECT_EQ(b.sides[0].material, "nature/blendgrass");
            EXPECT_EQ(b.sides[0].u.axis, Vec3(1, 0, 0));
            for (std::size_t k = 1; k < 6; ++k) EXPECT_EQ(b.sides[k].material, "tools/toolsnodraw");
            // Vertex 0 is the start and the rows keep their direction: the same order (to the
            // float32 precision the numbers are written at).
            EXPECT_LT(max_error(grid_of(b), m.positions), 1e-4);
            // The front (+z, where the faces are counter-clockwise) is the face's outside; the
            // face tilts with the bumped corners.
            EXPECT_GT(b.sides[0].plane.normal.z, 0.9);
        }
    }
}

TEST(MeshDisplacement, VertexOrderAndFaceOrderDoNotMatter) {
    scene::Mesh m = grid_mesh(8, 8, Cells::alternating, bump);
    // Permute the vertices and the faces, and start each face loop at another corner.
    const std::size_t nv = m.positions.size();
    std::vector<std::uint32_t> perm(nv);
    std::iota(perm.begin(), perm.end(), 0u);
    for (std::size_t i = 0; i < nv; ++i) std::swap(perm[i], perm[(i * 37 + 11) % nv]);
    scene::Mesh s = m;
    for (std::size_t v = 0; v < nv; ++v) s.positions[perm[v]] = m.positions[v];
    s.face_vertices.clear();
    s.faces.clear();
    for (std::size_t k = m.faces.size(); k-- > 0;) {
        const scene::Mesh::Face& f = m.faces[k];
        scene::Mesh::Face g = f;
        g.first = static_cast<std::uint32_t>(s.face_vertices.size());
        for (std::uint32_t c = 0; c < f.count; ++c) {
            const std::uint32_t v = m.face_vertices[f.first + (c + k) % f.count];
            s.face_vertices.push_back(perm[v]);
        }
        s.faces.push_back(g);
    }
    const auto r = mesh_to_displacements(s);
    ASSERT_EQ(r.brushes.size(), 1u) << r.reason;
    const std::vector<Vec3> g = grid_of(r.brushes[0]);
    ASSERT_EQ(g.size(), nv);
    // Every vertex is there; the start is the corner with the lowest index.
    for (const Vec3& p : m.positions) {
        double best = INFINITY;
        for (const Vec3& q : g) best = std::min(best, distance(p, q));
        EXPECT_LT(best, 1e-4);
    }
    const std::array<std::uint32_t, 4> corners{0, 8, 72, 80};
    std::uint32_t start = perm[corners[0]];
    for (std::uint32_t c : corners) start = std::min(start, perm[c]);
    EXPECT_LT(distance(g[0], s.positions[start]), 1e-4);
    EXPECT_GT(r.brushes[0].sides[0].plane.normal.z, 0.99);
}

TEST(MeshDisplacement, ReversedWindingFacesDown) {
    scene::Mesh m = grid_mesh(4, 4, Cells::quads, bump);
    for (const scene::Mesh::Face& f : m.faces)
        std::reverse(m.face_vertices.begin() + f.first,
                     m.face_vertices.begin() + f.first + f.count);
    const auto r = mesh_to_displacements(m);
    ASSERT_EQ(r.brushes.size(), 1u) << r.reason;
    EXPECT_LT(r.brushes[0].sides[0].plane.normal.z, -0.99);
    const std::vector<Vec3> g = grid_of(r.brushes[0]);
    EXPECT_LT(distance(g[0], m.positions[0]), 1e-4);
    for (const Vec3& p : m.positions) {
        double best = INFINITY;
        for (const Vec3& q : g) best = std::min(best, distance(p, q));
        EXPECT_LT(best, 1e-4);
    }
}

TEST(MeshDisplacement, WeldedGridsSplitIntoPatches) {
    // A 16 x 8 cell terrain: two power-3 displacements.
    const scene::Mesh m = grid_mesh(8, 16, Cells::alternating, bump);
    const auto r = mesh_to_displacements(m);
    ASSERT_EQ(r.brushes.size(), 2u) << r.reason;
    for (const scene::Brush& b : r.brushes) {
        EXPECT_EQ(b.sides[0].displacement->power, 3);
        for (const Vec3& q : grid_of(b)) {
            double best = INFINITY;
            for (const Vec3& p : m.positions) best = std::min(best, distance(p, q));
            EXPECT_LT(best, 1e-4);
        }
    }
    // 12 x 8 cells: 4 divides both, 8 does not: six power-2 patches.
    const auto six = mesh_to_displacements(grid_mesh(8, 12, Cells::quads, bump));
    EXPECT_EQ(six.brushes.size(), 6u) << six.reason;
}

TEST(MeshDisplacement, SeveralGridsInOneMesh) {
    scene::Mesh a = grid_mesh(4, 4, Cells::uniform, bump);
    const scene::Mesh b = grid_mesh(8, 8, Cells::quads, bump, 200);
    const auto offset = static_cast<std::uint32_t>(a.positions.size());
    const auto corner_offset = static_cast<std::uint32_t>(a.face_vertices.size());
    a.positions.insert(a.positions.end(), b.positions.begin(), b.positions.end());
    for (std::uint32_t v : b.face_vertices) a.face_vertices.push_back(v + offset);
    for (scene::Mesh::Face f : b.faces) {
        f.first += corner_offset;
        a.faces.push_back(f);
    }
    const auto r = mesh_to_displacements(a);
    ASSERT_EQ(r.brushes.size(), 2u) << r.reason;
    EXPECT_EQ(r.brushes[0].sides[0].displacement->power, 2);
    EXPECT_EQ(r.brushes[1].sides[0].displacement->power, 3);
    EXPECT_TRUE(r.rest.faces.empty());
}

TEST(MeshDisplacement, AlphasComeFromTheColours) {
    scene::Mesh m = grid_mesh(4, 4, Cells::alternating, bump);
    for (std::uint32_t v : m.face_vertices) {
        const double a = static_cast<float>((v * 10 % 256) / 255.0);  // as the paint stream has it
        m.colors.push_back({1, 1, 1, a});
    }
    const auto r = mesh_to_displacements(m);
    ASSERT_EQ(r.brushes.size(), 1u) << r.reason;
    const auto& alphas = r.brushes[0].sides[0].displacement->alphas;
    ASSERT_EQ(alphas.size(), 25u);
    for (std::uint32_t v = 0; v < 25; ++v) EXPECT_EQ(alphas[v], v * 10 % 256) << v;
}

TEST(MeshDisplacement, RaisedCornersKeepTheFacePlane) {
    // Distances along +z from z = 0, one corner raised by 2 (16 % 7): every vertex leaves the
    // corners' surface along z, so the face is z = 0 again and the distances come back as written.
    const scene::Mesh m = grid_mesh(4, 4, Cells::alternating, [](std::uint32_t i, std::uint32_t j) {
        return static_cast<double>(i * j % 7);
    });
    const auto r = mesh_to_displacements(m);
    ASSERT_EQ(r.brushes.size(), 1u) << r.reason;
    const scene::BrushSide& sd = r.brushes[0].sides[0];
    EXPECT_LT(distance(sd.plane.normal, {0, 0, 1}), 1e-12);
    EXPECT_NEAR(sd.plane.dist, 0, 1e-12);
    EXPECT_EQ(sd.displacement->start_position, Vec3(0, 0, 0));
    for (std::uint32_t i = 0; i <= 4; ++i) {
        for (std::uint32_t j = 0; j <= 4; ++j)
            EXPECT_NEAR(sd.displacement->distances[i * 5 + j], i * j % 7, 1e-12);
    }
    EXPECT_LT(max_error(grid_of(r.brushes[0]), m.positions), 1e-4);
}

TEST(MeshDisplacement, CornersOffOnePlaneAnyWayStillReproduce) {
    // Corners off one plane and vertices moved sideways too: the best plane through the corners.
    scene::Mesh m = grid_mesh(4, 4, Cells::alternating, [](std::uint32_t i, std::uint32_t j) {
        return (i == 0 && j == 0 ? 20.0 : 0.0) + 5.0 * i + bump(i, j);
    });
    for (std::size_t v = 0; v < m.positions.size(); ++v) m.positions[v].x += 0.5 * (v % 3);
    const auto r = mesh_to_displacements(m);
    ASSERT_EQ(r.brushes.size(), 1u) << r.reason;
    EXPECT_LT(max_error(grid_of(r.brushes[0]), m.positions), 1e-4);
}

TEST(MeshDisplacement, OtherMeshesAreHandedBack) {
    // 3 x 3 cells: no power of two fits.
    auto r = mesh_to_displacements(grid_mesh(3, 3, Cells::quads, bump));
    EXPECT_TRUE(r.brushes.empty());
    EXPECT_EQ(r.rest.faces.size(), 9u);
    EXPECT_NE(r.reason, "");
    // A hole: the middle cells of an 8 x 8 grid removed.
    scene::Mesh holed = grid_mesh(8, 8, Cells::quads, bump);
    scene::Mesh h = holed;
    h.faces.clear();
    for (std::size_t k = 0; k < holed.faces.size(); ++k) {
        if (k != 27 && k != 28) h.faces.push_back(holed.faces[k]);
    }
    r = mesh_to_displacements(h);
    EXPECT_TRUE(r.brushes.empty());
    EXPECT_EQ(r.rest.faces.size(), 62u);
    EXPECT_NE(r.reason, "");
    // A cube: closed.
    scene::Mesh cube;
    cube.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                      {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    for (auto f : std::vector<std::array<std::uint32_t, 4>>{
             {0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}}) {
        cube.faces.push_back({static_cast<std::uint32_t>(cube.face_vertices.size()), 4, 0, {}, {}});
        cube.face_vertices.insert(cube.face_vertices.end(), f.begin(), f.end());
    }
    r = mesh_to_displacements(cube);
    EXPECT_TRUE(r.brushes.empty());
    EXPECT_EQ(r.rest.faces.size(), 6u);
    // A grid plus a stray triangle: the grid is recovered, the triangle handed back alone.
    scene::Mesh mixed = grid_mesh(4, 4, Cells::quads, bump);
    const auto base = static_cast<std::uint32_t>(mixed.positions.size());
    mixed.positions.insert(mixed.positions.end(), {{500, 0, 0}, {510, 0, 0}, {500, 10, 0}});
    mixed.faces.push_back({static_cast<std::uint32_t>(mixed.face_vertices.size()), 3, 0, {}, {}});
    mixed.face_vertices.insert(mixed.face_vertices.end(), {base, base + 1, base + 2});
    r = mesh_to_displacements(mixed);
    EXPECT_EQ(r.brushes.size(), 1u);
    ASSERT_EQ(r.rest.faces.size(), 1u);
    EXPECT_EQ(r.rest.positions.size(), 3u);
    EXPECT_EQ(r.rest.face_vertices, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(MeshDisplacement, BadIndicesAreHandedBackNotRead) {
    scene::Mesh m = grid_mesh(4, 4, Cells::quads, bump);
    m.face_vertices[5] = 1000;
    auto r = mesh_to_displacements(m);
    EXPECT_TRUE(r.brushes.empty());
    EXPECT_EQ(r.rest.faces.size(), m.faces.size());
    m = grid_mesh(4, 4, Cells::quads, bump);
    m.faces.back().count = 100;
    r = mesh_to_displacements(m);
    EXPECT_TRUE(r.brushes.empty());
    EXPECT_NE(r.reason, "");
    // Corner entries no face uses are never read.
    m = grid_mesh(4, 4, Cells::quads, bump);
    m.face_vertices.push_back(1000);
    r = mesh_to_displacements(m);
    EXPECT_EQ(r.brushes.size(), 1u) << r.reason;
    // Positions that are not numbers give no displacement.
    m = grid_mesh(4, 4, Cells::quads, bump);
    m.positions[7].z = std::nan("");
    r = mesh_to_displacements(m);
    EXPECT_TRUE(r.brushes.empty());
    EXPECT_EQ(r.rest.faces.size(), 16u);
}

TEST(MeshDisplacement, SceneToVmfWritesValidDisplacementBrushes) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    s.world.meshes.push_back(grid_mesh(8, 16, Cells::alternating, bump));
    s.world.meshes.push_back(grid_mesh(3, 3, Cells::quads, bump, 500));
    Diagnostics diags;
    convert::SceneToVmfReport rep;
    const vmf::Map m = convert::scene_to_vmf(s, diags, {}, &rep);
    EXPECT_EQ(rep.displacements_recovered, 2u);
    EXPECT_EQ(rep.displacement_meshes, 1u);
    EXPECT_EQ(rep.meshes_skipped, 1u);
    EXPECT_EQ(rep.faces_skipped, 9u);
    ASSERT_EQ(m.world.solids.size(), 2u);
    auto doc = vmf::Document::read(vmf::write(m));
    ASSERT_TRUE(doc.ok());
    Diagnostics problems;
    vmf::validate(doc->map(), problems);
    for (const Diagnostic& d : problems.items())
        EXPECT_NE(d.severity, Severity::error) << d.to_string();
    BrushPolygons polys;
    for (const vmf::Solid& so : doc->map().world.solids) {
        vmf::solid_polygons(so, polys);
        ASSERT_TRUE(so.sides[0].disp);
        const auto g = vmf::displacement_grid(so.sides[0], polys.face(0));
        ASSERT_TRUE(g);
        EXPECT_EQ(g->size(), 81u);
    }
}

}  // namespace
