// CDmePolygonMesh as a spec: Hammer's worked quad, meshes built from polygons, and one broken
// copy per invariant the validator checks.
#include <gtest/gtest.h>

#include <algorithm>

#include "levelkit/dmx/io.hpp"
#include "levelkit/vmap/mesh.hpp"

namespace lk::vmap {
namespace {

using Ints = std::vector<std::int32_t>;

// A unit cube, faces counter-clockwise seen from outside.
Polygons cube() {
    Polygons p;
    p.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    p.corners = {0, 3, 2, 1,   // bottom (-z)
                 4, 5, 6, 7,   // top (+z)
                 0, 1, 5, 4,   // -y
                 1, 2, 6, 5,   // +x
                 2, 3, 7, 6,   // +y
                 3, 0, 4, 7};  // -x
    p.face_begin = {0, 4, 8, 12, 16, 20, 24};
    return p;
}

MeshData with_streams(Topology t, std::size_t positions) {
    MeshData m;
    m.vertex_streams.push_back({"position:0", 3, std::vector<dmx::Vector3>(positions)});
    m.face_vertex_streams.push_back(
        {"texcoord:0", 1, std::vector<dmx::Vector2>(t.edge_vertex.size())});
    m.edge_streams.push_back({"flags:0", 3, Ints(t.edge_count(), 0)});
    m.face_streams.push_back({"materialindex:0", 8, Ints(t.face_edge.size(), 0)});
    m.materials = {"materials/dev/reflectivity_30.vmat"};
    m.topology = std::move(t);
    return m;
}

struct Built {
    dmx::Document doc;
    ElementRef mesh;
    Ints& ints(std::string_view attr) { return doc[mesh].find(attr)->value.get<Ints>(); }
    std::vector<MeshProblem> problems() {
        auto v = view_mesh(doc, mesh);
        EXPECT_TRUE(v.ok());
        return validate_mesh(*v);
    }
};

Built build(const Polygons& p) {
    auto t = build_topology(p);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().to_string());
    Built b;
    IdSource ids(1);
    b.mesh = add_mesh(b.doc, with_streams(std::move(t).value(), p.positions.size()), ids);
    b.doc.root = b.mesh;
    return b;
}

std::string first_invariant(Built& b) {
    const auto p = b.problems();
    return p.empty() ? std::string() : p.front().invariant;
}

TEST(VmapMesh, HammersWorkedQuadIsValid) {
    // notes/dmx.md §5.3, from a Hammer-saved one-quad map.
    Topology t;
    t.vertex_edge = {0, 1, 2, 3};
    t.vertex_data = {0, 1, 2, 3};
    t.edge_vertex = {1, 0, 3, 2, 2, 0, 1, 3};
    t.edge_opposite = {1, 0, 3, 2, 5, 4, 7, 6};
    t.edge_next = {7, 4, 6, 5, 2, 0, 1, 3};
    t.edge_face = {0, -1, -1, 0, -1, 0, -1, 0};
    t.edge_data = {0, 0, 1, 1, 2, 2, 3, 3};
    t.edge_vertex_data = {0, 1, 2, 3, 4, 5, 6, 7};
    t.face_edge = {3};
    t.face_data = {0};
    dmx::Document doc;
    IdSource ids(7);
    const ElementRef m = add_mesh(doc, with_streams(t, 4), ids);
    auto v = view_mesh(doc, m);
    ASSERT_TRUE(v.ok());
    EXPECT_TRUE(validate_mesh(*v).empty());
    // The face loop 3 -> 5 -> 0 -> 7 visits destinations 2, 0, 1, 3.
    std::vector<Corner> c;
    ASSERT_TRUE(face_corners(*v, 0, c));
    ASSERT_EQ(c.size(), 4u);
    EXPECT_EQ(c[0].half_edge, 3);
    EXPECT_EQ(c[0].vertex, 2);
    EXPECT_EQ(c[1].vertex, 0);
    EXPECT_EQ(c[2].vertex, 1);
    EXPECT_EQ(c[3].vertex, 3);
}

TEST(VmapMesh, BuildingAQuadLeavesABorderLoop) {
    Polygons p;
    p.positions = {{-3.5, -3.5, 0}, {3.5, -3.5, 0}, {-3.5, 3.5, 0}, {3.5, 3.5, 0}};
    p.corners = {2, 0, 1, 3};
    p.face_begin = {0, 4};
    auto t = build_topology(p);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->edge_vertex.size(), 8u);
    EXPECT_EQ(t->edge_count(), 4u);
    std::size_t border = 0;
    for (std::size_t h = 0; h < 8; ++h) {
        EXPECT_EQ(t->edge_opposite[h], static_cast<std::int32_t>(h ^ 1));
        if (t->edge_face[h] < 0) {
            ++border;
            // Border half-edges chain into their own closed loop.
            EXPECT_LT(t->edge_face[static_cast<std::size_t>(t->edge_next[h])], 0);
        }
    }
    EXPECT_EQ(border, 4u);
    // Corner c's row is the half-edge that ends at it.
    for (std::size_t c = 0; c < 4; ++c) {
        EXPECT_EQ(t->edge_vertex[static_cast<std::size_t>(t->corner_edge[c])],
                  static_cast<std::int32_t>(p.corners[c]));
    }
    Built b = build(p);
    EXPECT_EQ(first_invariant(b), "");
}

TEST(VmapMesh, BuildingACubeClosesEveryEdge) {
    Built b = build(cube());
    auto v = view_mesh(b.doc, b.mesh);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->vertex_count(), 8u);
    EXPECT_EQ(v->half_edge_count(), 24u);
    EXPECT_EQ(v->face_count(), 6u);
    EXPECT_TRUE(std::none_of(v->edge_face.begin(), v->edge_face.end(),
                             [](std::int32_t f) { return f < 0; }));
    EXPECT_TRUE(validate_mesh(*v).empty());
}

TEST(VmapMesh, TwoTrianglesShareOneEdge) {
    Polygons p;
    p.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    p.corners = {0, 1, 2, 0, 2, 3};
    p.face_begin = {0, 3, 6};
    auto t = build_topology(p);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->edge_count(), 5u);
    Built b = build(p);
    EXPECT_EQ(first_invariant(b), "");
}

TEST(VmapMesh, BuildRejectsWhatIsNotAnOrientedSurface) {
    Polygons p;
    p.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    p.face_begin = {0, 2};
    p.corners = {0, 1};
    EXPECT_FALSE(build_topology(p).ok());  // fewer than 3 corners
    p.corners = {0, 1, 0};
    p.face_begin = {0, 3};
    EXPECT_FALSE(build_topology(p).ok());  // a vertex twice
    p.corners = {0, 1, 9};
    EXPECT_FALSE(build_topology(p).ok());  // out of range
    // Two faces wound the same way over their shared edge 0-2.
    p.corners = {0, 1, 2, 0, 2, 3, 2, 0, 3};
    p.face_begin = {0, 3, 6, 9};
    auto t = build_topology(p);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code, "vmap.non-manifold");
}

TEST(VmapMesh, ValidatorNamesEachBrokenInvariant) {
    {
        Built b = build(cube());
        b.ints("edgeOppositeIndices")[0] = 2;
        EXPECT_EQ(first_invariant(b), "opposite");
    }
    {
        Built b = build(cube());
        auto& e = b.ints("edgeDataIndices");
        e[0] = e[0] == 0 ? 1 : 0;
        EXPECT_EQ(first_invariant(b), "edge-data");
    }
    {
        Built b = build(cube());
        auto& n = b.ints("edgeNextIndices");
        std::swap(n[0], n[2]);
        EXPECT_EQ(first_invariant(b), "next");
    }
    {
        Built b = build(cube());
        auto& fe = b.ints("faceEdgeIndices");
        std::swap(fe[0], fe[1]);
        EXPECT_EQ(first_invariant(b), "face-loop");
    }
    {
        Built b = build(cube());
        auto& ve = b.ints("vertexEdgeIndices");
        std::swap(ve[0], ve[6]);
        EXPECT_EQ(first_invariant(b), "vertex-edge");
    }
    {
        Built b = build(cube());
        b.ints("edgeVertexIndices")[3] = 99;
        EXPECT_EQ(first_invariant(b), "index-range");
    }
    {
        Built b = build(cube());
        b.ints("edgeFaceIndices").pop_back();
        EXPECT_EQ(first_invariant(b), "array-sizes");
    }
    {
        Built b = build(cube());
        b.ints("edgeVertexDataIndices")[5] = 24;  // faceVertexData has 24 rows
        EXPECT_EQ(first_invariant(b), "index-range");
    }
    {
        Built b = build(cube());
        const auto v = view_mesh(b.doc, b.mesh);
        const StreamView* s = v->faces.find("materialindex:0");
        ASSERT_NE(s, nullptr);
        b.doc[s->element].find("data")->value.get<Ints>()[2] = 3;  // one material
        EXPECT_EQ(first_invariant(b), "material-index");
        b.doc[s->element].find("data")->value.get<Ints>().pop_back();
        EXPECT_EQ(first_invariant(b), "stream-size");
    }
}

TEST(VmapMesh, TwoFansAtOneVertexAreNotManifold) {
    // Two triangles touching only at vertex 0 (a bow tie).
    Polygons p;
    p.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {-1, 0, 0}, {-1, -1, 0}};
    p.corners = {0, 1, 2, 0, 3, 4};
    p.face_begin = {0, 3, 6};
    Built b = build(p);
    EXPECT_EQ(first_invariant(b), "manifold");
}

TEST(VmapMesh, ViewRejectsWrongTypes) {
    Built b = build(cube());
    b.doc[b.mesh].set("edgeNextIndices", std::vector<float>{1.0f});
    auto v = view_mesh(b.doc, b.mesh);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.error().code, "vmap.bad-attribute");
    EXPECT_EQ(v.error().path, "CDmePolygonMesh/edgeNextIndices");
}

TEST(VmapMesh, IdSourceIsDeterministic) {
    IdSource a(42), b(42), c(43);
    const dmx::Guid g = a.guid();
    EXPECT_EQ(g, b.guid());
    EXPECT_NE(g, c.guid());
    EXPECT_EQ(g.to_string()[14], '4');  // version 4
    EXPECT_NE(a.reference(), 0u);
}

}  // namespace
}  // namespace lk::vmap
