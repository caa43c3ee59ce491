// Compiled faces as the game draws them, on small maps built in memory.
#include <gtest/gtest.h>

#include "bsp_builder.hpp"
#include "levelkit/convert/bsp_faces.hpp"
#include "levelkit/convert/scene_gltf.hpp"
#include "levelkit/scene/geometry.hpp"

using namespace lk;
using test::BspBuilder;

namespace {

constexpr std::int32_t kSolid = 0x1;

struct Built {
    scene::Scene scene;
    convert::BspFacesReport report;
    Diagnostics diags;
};

Built build(const BspBuilder& b) {
    Built r;
    auto map = bsp::Bsp::read(Blob::from_bytes(b.write()));
    EXPECT_TRUE(map) << (map ? "" : map.error().to_string());
    auto s = convert::bsp_faces_to_scene(*map, r.diags, {}, &r.report);
    EXPECT_TRUE(s) << (s ? "" : s.error().to_string());
    if (s) r.scene = std::move(s).value();
    return r;
}

// The engine's texture coordinate of `p` on texinfo `t` of a texture w x h.
std::array<double, 2> engine_uv(const bsp::texinfo_t& t, const Vec3& p, double w, double h) {
    const auto& s = t.textureVecsTexelsPerWorldUnits;
    return {(p.x * s[0][0] + p.y * s[0][1] + p.z * s[0][2] + s[0][3]) / w,
            (p.x * s[1][0] + p.y * s[1][1] + p.z * s[1][2] + s[1][3]) / h};
}

}  // namespace

TEST(BspFaces, FacesAreCounterClockwiseWithTheEngineUvs) {
    BspBuilder b;
    const auto brick = b.material("BRICK/WALL01", 256, 128);
    const auto t = b.tex(brick, {0, 1, 0}, 12.25, 0.5, {-1, 0, 0}, -3.5, 0.5);
    const auto box = b.box({-128, -64, -16}, {128, 64, 0}, kSolid, {t, t, t, t, t, t});
    b.face(box, BspBuilder::pz);
    b.face(box, BspBuilder::px);
    b.model({box}, 0);
    Built r = build(b);
    EXPECT_EQ(r.report.faces, 2u);
    EXPECT_EQ(r.scene.source_format, "bsp");
    EXPECT_EQ(r.scene.world.get("classname"), "worldspawn");
    ASSERT_EQ(r.scene.world.meshes.size(), 1u);
    const scene::Mesh& m = r.scene.world.meshes[0];
    ASSERT_EQ(m.faces.size(), 2u);
    EXPECT_EQ(m.materials, (std::vector<std::string>{"BRICK/WALL01"}));
    const Vec3 normals[2] = {{0, 0, 1}, {1, 0, 0}};
    for (std::size_t f = 0; f < 2; ++f) {
        std::vector<Vec3> poly;
        for (std::uint32_t k = 0; k < m.faces[f].count; ++k)
            poly.push_back(m.positions[m.face_vertices[m.faces[f].first + k]]);
        // Counter-clockwise seen from the front.
        EXPECT_NEAR(dot(normalize(winding_area_vector(poly)), normals[f]), 1, 1e-12);
        for (std::uint32_t k = 0; k < m.faces[f].count; ++k) {
            const auto want = engine_uv(b.texinfo[std::size_t(t)], poly[k], 256, 128);
            EXPECT_NEAR(m.uvs[m.faces[f].first + k][0], want[0], 1e-12);
            EXPECT_NEAR(m.uvs[m.faces[f].first + k][1], want[1], 1e-12);
        }
    }
    // Positions are shared by vertex index; this builder gives every face its own vertices.
    EXPECT_EQ(m.positions.size(), 8u);
}

TEST(BspFaces, BrushEntityFacesMoveToItsOriginWithModelSpaceUvs) {
    BspBuilder b;
    const auto mat = b.material("METAL/DOOR", 128, 128);
    const Vec3 origin{100, 50, 8};
    const auto t = b.tex(mat, {1, 0, 0}, 3.5, 0.25, {0, 0, -1}, 0, 0.25, 0, 16, origin);
    const auto world = b.box({-512, -512, -16}, {512, 512, 0}, kSolid, {t, t, t, t, t, t});
    b.face(world, BspBuilder::pz);
    b.model({world}, 0);
    const auto door = b.box({-8, -32, -8}, {8, 32, 56}, kSolid, {t, t, t, t, t, t});
    const auto first = std::int32_t(b.faces.size());
    b.face(door, BspBuilder::ny);
    b.model({door}, first, origin);
    b.entities +=
        "{\n\"origin\" \"100 50 8\"\n\"targetname\" \"door\"\n\"OnOpen\" "
        "\"relay\x1bTrigger\x1b\x1b"
        "0.5\x1b-1\"\n\"classname\" \"func_door\"\n\"model\" \"*1\"\n}\n";
    Built r = build(b);
    ASSERT_EQ(r.scene.entities.size(), 1u);
    const scene::Entity& e = r.scene.entities[0];
    EXPECT_EQ(e.get("targetname"), "door");
    ASSERT_EQ(e.outputs.size(), 1u);
    EXPECT_EQ(e.outputs[0].target, "relay");
    ASSERT_EQ(e.meshes.size(), 1u);
    const scene::Mesh& m = e.meshes[0];
    Aabb box;
    for (const Vec3& p : m.positions) box.add(p);
    EXPECT_NEAR(box.mins.y, 50 - 32, 1e-9);  // the -y face of the door, in world space
    EXPECT_NEAR(box.maxs.x, 108, 1e-9);
    // UVs come from the model-space position, as the engine draws them.
    for (std::uint32_t k = 0; k < m.faces[0].count; ++k) {
        const Vec3 local = m.positions[m.face_vertices[k]] - origin;
        const auto want = engine_uv(b.texinfo[std::size_t(t)], local, 128, 128);
        EXPECT_NEAR(m.uvs[k][0], want[0], 1e-9);
        EXPECT_NEAR(m.uvs[k][1], want[1], 1e-9);
    }
    EXPECT_EQ(r.report.brush_entities, 1u);
}

TEST(BspFaces, DisplacementIsItsDisplacedGridWithAlpha) {
    BspBuilder b;
    const auto mat = b.material("NATURE/BLENDROCK", 512, 512);
    const auto t = b.tex(mat, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const auto brush = b.box({-128, -64, -16}, {128, 64, 0}, kSolid, {t, t, t, t, t, t});
    const auto top = b.face(brush, BspBuilder::pz, 0);
    b.model({brush}, 0);
    bsp::ddispinfo_t d;
    const Winding w = b.polygon(brush, BspBuilder::pz);
    d.startPosition = b.f3(w[2]);
    d.power = 2;
    d.m_iMapFace = std::uint16_t(top);
    b.dispinfo.push_back(d);
    for (int i = 0; i < 25; ++i) {
        bsp::CDispVert v;
        v.m_vVector = {0, 0, 1};
        v.m_flDist = float(i % 5) * 4;
        v.m_flAlpha = float(i * 10);
        b.disp_verts.push_back(v);
    }
    b.disp_tris.assign(32, bsp::CDispTri{0});
    Built r = build(b);
    EXPECT_EQ(r.report.displacements, 1u);
    ASSERT_EQ(r.scene.world.meshes.size(), 1u);
    const scene::Mesh& m = r.scene.world.meshes[0];
    ASSERT_EQ(m.faces.size(), 32u);
    ASSERT_EQ(m.positions.size(), 25u);
    ASSERT_EQ(m.colors.size(), m.face_vertices.size());
    // The engine's grid: rows from the start corner towards the next corner of the face.
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
                flat + Vec3{0, 0, double(b.disp_verts[std::size_t(i * 5 + j)].m_flDist)};
            EXPECT_TRUE(near(m.positions[std::size_t(i * 5 + j)], want, 1e-6)) << i << "," << j;
        }
    }
    // Every corner's colour carries its vertex's alpha; triangles face up.
    for (std::size_t f = 0; f < m.faces.size(); ++f) {
        std::vector<Vec3> tri;
        for (std::uint32_t k = 0; k < 3; ++k) {
            const std::uint32_t c = m.faces[f].first + k;
            const std::uint32_t v = m.face_vertices[c];
            tri.push_back(m.positions[v]);
            EXPECT_NEAR(m.colors[c][3], b.disp_verts[v].m_flAlpha / 255.0, 1e-6);
        }
        EXPECT_GT(winding_area_vector(tri).z, 0);
    }
}

TEST(BspFaces, StaticPropsBecomePropStaticEntities) {
    BspBuilder b;
    const auto mat = b.material("DEV/FLOOR", 512, 512);
    const auto t = b.tex(mat, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const auto brush = b.box({-128, -64, -16}, {128, 64, 0}, kSolid, {t, t, t, t, t, t});
    b.face(brush, BspBuilder::pz);
    b.model({brush}, 0);
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
    sp.props.push_back(p);
    p.m_PropType = 7;  // no such model: left out
    sp.props.push_back(p);
    b.static_props = sp;
    Built r = build(b);
    EXPECT_EQ(r.report.static_props, 1u);
    ASSERT_EQ(r.scene.entities.size(), 1u);
    EXPECT_EQ(r.scene.entities[0].get("classname"), "prop_static");
    EXPECT_EQ(r.scene.entities[0].get("model"), "models/props/crate.mdl");
    EXPECT_EQ(r.scene.entities[0].get("origin"), "10.5 -20 0");
    EXPECT_EQ(r.scene.entities[0].get("angles"), "0 90 0");
}

TEST(BspFaces, BadIndicesAreSkippedWithAWarning) {
    BspBuilder b;
    const auto mat = b.material("DEV/FLOOR", 512, 512);
    const auto t = b.tex(mat, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const auto brush = b.box({-128, -64, -16}, {128, 64, 0}, kSolid, {t, t, t, t, t, t});
    b.face(brush, BspBuilder::pz);
    b.face(brush, BspBuilder::nz);
    b.model({brush}, 0);
    b.faces[1].firstedge = 1000;  // past the surfedges
    b.surfedges[0] = 999;         // an edge that does not exist
    Built r = build(b);
    EXPECT_EQ(r.report.faces, 0u);
    EXPECT_EQ(r.report.faces_skipped, 2u);
    EXPECT_GE(r.diags.count(Severity::warning), 2u);
}

TEST(BspFaces, ExportsToGltfWithTheSameTriangles) {
    BspBuilder b;
    const auto mat = b.material("DEV/FLOOR", 512, 512);
    const auto t = b.tex(mat, {1, 0, 0}, 0, 0.25, {0, -1, 0}, 0, 0.25);
    const auto brush = b.box({-128, -64, -16}, {128, 64, 0}, kSolid, {t, t, t, t, t, t});
    for (int k = 0; k < 6; ++k) b.face(brush, k);
    b.model({brush}, 0);
    Built r = build(b);
    Diagnostics d;
    auto files = convert::scene_to_gltf(r.scene, {}, d);
    ASSERT_TRUE(files);
    EXPECT_EQ(files->report.triangles, 12u);
    EXPECT_EQ(files->report.materials, 1u);
}

TEST(BspFaces, TextureSizesFromTexdataForDecompiledBrushes) {
    BspBuilder b;
    b.material("BRICK/WALL01", 256, 128);
    b.material("maps/test/metal/floor_1_2_3", 64, 32);
    auto map = bsp::Bsp::read(Blob::from_bytes(b.write()));
    ASSERT_TRUE(map);
    const auto sizes = convert::bsp_texture_sizes(*map);
    EXPECT_EQ(sizes.at("brick/wall01"), (std::array<double, 2>{256, 128}));
    EXPECT_EQ(sizes.at("metal/floor"), (std::array<double, 2>{64, 32}));
    EXPECT_EQ(sizes.count("dev/missing"), 0u);
}
