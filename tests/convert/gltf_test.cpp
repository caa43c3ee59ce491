// Scene -> glTF: structure, geometry read back with tinygltf, handedness, options.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "convert/gltf_readback.hpp"
#include "levelkit/convert/scene_gltf.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/scene/geometry.hpp"

using namespace lk;

namespace {

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

scene::Entity point(std::string cls, std::string origin, std::string angles = "0 0 0") {
    scene::Entity e;
    e.set("classname", cls);
    e.set("origin", origin);
    e.set("angles", angles);
    return e;
}

nlohmann::json json_of(const Bytes& glb) {
    std::uint32_t len;
    std::memcpy(&len, glb.data() + 12, 4);
    return nlohmann::json::parse(std::string(reinterpret_cast<const char*>(glb.data()) + 20, len));
}

const nlohmann::json* node_named(const nlohmann::json& j, std::string_view name) {
    for (const auto& n : j["nodes"])
        if (n.value("name", "") == name) return &n;
    return nullptr;
}

convert::GltfFiles export_scene(const scene::Scene& s, const convert::GltfOptions& opt = {}) {
    Diagnostics d;
    auto r = convert::scene_to_gltf(s, opt, d);
    if (!r) throw std::runtime_error(r.error().to_string());
    return std::move(r).value();
}

}  // namespace

TEST(Gltf, BoxRoomReadsBackExactly) {
    scene::Scene s;
    s.source_format = "vmf";
    s.world.set("classname", "worldspawn");
    s.world.brushes.push_back(box(1, {-64, -32, 0}, {64, 32, 16}, "BRICK/WALL01"));
    s.world.brushes.push_back(box(2, {-64, -32, 100}, {0, 32, 116}, "concrete/floor"));
    const auto files = export_scene(s);
    ASSERT_TRUE(files.binary);
    const auto rb = test::read_glb(files.glb);
    EXPECT_EQ(rb.triangles.size(), 24u);
    EXPECT_EQ(files.report.triangles, 24u);
    EXPECT_EQ(rb.model.materials.size(), 2u);
    EXPECT_EQ(rb.model.materials[0].name, "BRICK/WALL01");
    EXPECT_EQ(rb.index16, 2u);
    // Every read-back corner lies on an original box corner, and the bounds are the same.
    Aabb box_read;
    for (const auto& t : rb.triangles) {
        for (const Vec3& p : t.p) {
            box_read.add(p);
            for (int k = 0; k < 3; ++k) {
                const double v = p[k];
                const double r = std::round(v);
                EXPECT_NEAR(v, r, 1e-3);
            }
        }
    }
    EXPECT_NEAR(box_read.mins.x, -64, 1e-4);
    EXPECT_NEAR(box_read.maxs.z, 116, 1e-4);
    EXPECT_NEAR(box_read.mins.y, -32, 1e-4);
    // Deduplicated: a box face's four corners share its normal and UVs, so 4 vertices a face.
    EXPECT_EQ(files.report.vertices, 48u);
    // Same input, same bytes.
    EXPECT_EQ(export_scene(s).glb, files.glb);
}

// Boxes at +X, +Y and +Z of different sizes: after the axis change a box must land where a
// Y-up viewer expects it (+Y map = -Z glTF, +Z map = +Y glTF), and every triangle's winding
// must agree with its normal and face out of its box: nothing is mirrored.
TEST(Gltf, HandednessOnAnAsymmetricMap) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {200, -8, -8}, {216, 8, 8}, "x"));
    s.world.brushes.push_back(box(2, {-8, 300, -8}, {8, 332, 8}, "y"));
    s.world.brushes.push_back(box(3, {-8, -8, 400}, {8, 8, 464}, "z"));
    const auto files = export_scene(s);
    tinygltf::Model raw;
    {
        tinygltf::TinyGLTF loader;
        std::string err, warn;
        ASSERT_TRUE(loader.LoadBinaryFromMemory(
            &raw, &err, &warn, reinterpret_cast<const unsigned char*>(files.glb.data()),
            unsigned(files.glb.size())));
    }
    // Raw glTF positions per material (no node transform on the world).
    std::map<std::string, Aabb> raw_box;
    for (const auto& prim : raw.meshes.at(0).primitives) {
        const auto& a = raw.accessors.at(std::size_t(prim.attributes.at("POSITION")));
        raw_box[raw.materials.at(std::size_t(prim.material)).name].add(
            {a.minValues[0], a.minValues[1], a.minValues[2]});
        raw_box[raw.materials.at(std::size_t(prim.material)).name].add(
            {a.maxValues[0], a.maxValues[1], a.maxValues[2]});
    }
    const double m = 0.0254;
    EXPECT_NEAR(raw_box["x"].center().x, 208 * m, 1e-5);   // +X stays +X
    EXPECT_NEAR(raw_box["y"].center().z, -316 * m, 1e-5);  // +Y (north) becomes -Z
    EXPECT_NEAR(raw_box["z"].center().y, 432 * m, 1e-5);   // +Z (up) becomes +Y
    // Windings in glTF space: counter-clockwise triangles face along their normal, outward.
    const auto rb = test::read_glb(files.glb);
    for (const auto& t : rb.triangles) {
        const Vec3 wn = cross(t.p[1] - t.p[0], t.p[2] - t.p[0]);  // map space, a rotation away
        EXPECT_GT(dot(normalize(wn), t.n[0]), 0.999);
        Vec3 centre = t.material == "x"   ? Vec3{208, 0, 0}
                      : t.material == "y" ? Vec3{0, 316, 0}
                                          : Vec3{0, 0, 432};
        EXPECT_GT(dot(t.n[0], (t.p[0] + t.p[1] + t.p[2]) / 3 - centre), 0);
    }
}

TEST(Gltf, EntitiesBecomeNodesWithExtrasLightsAndProps) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    s.world.brushes.push_back(box(1, {0, 0, 0}, {64, 64, 64}, "dev/floor"));
    scene::Entity door;
    door.set("classname", "func_door");
    door.set("targetname", "door1");
    door.set("origin", "100 0 32");
    door.brushes.push_back(box(2, {96, -4, 0}, {104, 4, 64}, "dev/door"));
    door.outputs.push_back({"OnOpen", "lamp", "TurnOn", "", 0.5, -1, std::nullopt});
    s.entities.push_back(door);
    scene::Entity lamp = point("light_spot", "10 20 30", "-45 90 0");
    lamp.set("targetname", "lamp");
    lamp.set("_light", "255 128 0 400");
    lamp.set("_cone", "40");
    lamp.set("_inner_cone", "20");
    lamp.set("pitch", "-45");
    s.entities.push_back(lamp);
    scene::Entity prop = point("prop_static", "-50 0 0", "0 90 0");
    prop.set("model", "models/props/crate.mdl");
    s.entities.push_back(prop);
    s.entities.push_back(point("info_player_start", "1 2 3"));

    convert::GltfOptions opt;
    opt.prop_boxes = true;
    opt.name = "test_map";
    const auto files = export_scene(s, opt);
    const auto j = json_of(files.glb);
    EXPECT_EQ(files.report.lights, 1u);
    EXPECT_EQ(files.report.props, 1u);
    ASSERT_TRUE(node_named(j, "test_map"));
    const auto* d = node_named(j, "door1");
    ASSERT_TRUE(d);
    EXPECT_EQ((*d)["extras"]["classname"], "func_door");
    EXPECT_EQ((*d)["extras"]["outputs"][0], "OnOpen lamp,TurnOn,,0.5,-1");
    EXPECT_TRUE(d->contains("mesh"));
    EXPECT_NEAR((*d)["translation"][0].get<double>(), 100 * 0.0254, 1e-12);
    EXPECT_NEAR((*d)["translation"][1].get<double>(), 32 * 0.0254, 1e-12);
    const auto* l = node_named(j, "lamp");
    ASSERT_TRUE(l);
    const int li = (*l)["extensions"]["KHR_lights_punctual"]["light"];
    const auto& light = j["extensions"]["KHR_lights_punctual"]["lights"][li];
    EXPECT_EQ(light["type"], "spot");
    EXPECT_NEAR(light["spot"]["outerConeAngle"].get<double>(), 40 * M_PI / 180, 1e-9);
    const auto* p = node_named(j, "prop_static");
    ASSERT_TRUE(p);
    EXPECT_EQ((*p)["extras"]["model"], "models/props/crate.mdl");
    EXPECT_TRUE(p->contains("mesh"));  // the placeholder box
    EXPECT_TRUE(p->contains("rotation"));
    ASSERT_TRUE(node_named(j, "info_player_start"));
    // The door's geometry reads back at its world position.
    const auto rb = test::read_glb(files.glb);
    Aabb door_box;
    for (const auto& t : rb.triangles) {
        if (t.material != "dev/door") continue;
        for (const Vec3& q : t.p) door_box.add(q);
    }
    EXPECT_NEAR(door_box.mins.x, 96, 1e-4);
    EXPECT_NEAR(door_box.maxs.z, 64, 1e-4);
    // The spot light shines along its pitch: 45 degrees down towards yaw 90 (+Y map).
    tinygltf::Model m = rb.model;
    for (const auto& n : m.nodes) {
        if (n.name != "lamp") continue;
        const auto mat = test::detail::node_matrix(n);
        const Vec3 dir = normalize(test::detail::apply(mat, {0, 0, -1}, 0));  // glTF
        const Vec3 map_dir{dir.x, -dir.z, dir.y};
        EXPECT_NEAR(map_dir.x, 0, 1e-9);
        EXPECT_NEAR(map_dir.y, std::sqrt(0.5), 1e-9);
        EXPECT_NEAR(map_dir.z, std::sqrt(0.5), 1e-9);  // Source pitch -45 looks up
    }
}

TEST(Gltf, ToolFacesAreLeftOutUnlessAsked) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {64, 64, 64}, "TOOLS/TOOLSNODRAW"));
    s.world.brushes.back().sides[0].material = "dev/top";
    auto files = export_scene(s);
    EXPECT_EQ(files.report.triangles, 2u);
    EXPECT_EQ(files.report.tool_faces_skipped, 5u);
    convert::GltfOptions opt;
    opt.tools = true;
    files = export_scene(s, opt);
    EXPECT_EQ(files.report.triangles, 12u);
    const auto j = json_of(files.glb);
    EXPECT_EQ(j["materials"][1]["alphaMode"], "BLEND");
}

TEST(Gltf, DisplacementAlphaIsAVertexColour) {
    scene::Scene s;
    scene::Brush b = box(2, {0, 0, 0}, {64, 64, 8}, "nature/blendrock");
    scene::Displacement d;
    d.power = 2;
    d.start_position = {0, 0, 8};
    d.normals.assign(25, {0, 0, 1});
    d.distances.assign(25, 0);
    d.alphas.assign(25, 0);
    d.alphas[12] = 255;
    b.sides[0].displacement = d;
    s.world.brushes.push_back(b);
    const auto files = export_scene(s);
    const auto rb = test::read_glb(files.glb);
    ASSERT_EQ(rb.triangles.size(), 32u);
    double max_alpha = 0, min_alpha = 1;
    for (const auto& t : rb.triangles) {
        for (const auto& c : t.color) {
            max_alpha = std::max(max_alpha, c[3]);
            min_alpha = std::min(min_alpha, c[3]);
        }
    }
    EXPECT_EQ(max_alpha, 1.0);
    EXPECT_EQ(min_alpha, 0.0);
}

TEST(Gltf, QuantizedMeshesKeepTheirShape) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {-1000, -500, 0}, {1000, 500, 128}, "a"));
    convert::GltfOptions opt;
    opt.quantize = true;
    const auto files = export_scene(s, opt);
    const auto j = json_of(files.glb);
    EXPECT_EQ(j["extensionsRequired"][0], "KHR_mesh_quantization");
    const auto rb = test::read_glb(files.glb);
    ASSERT_EQ(rb.triangles.size(), 12u);
    const double step = 2000.0 / 65535;
    for (const auto& t : rb.triangles) {
        for (const Vec3& p : t.p) {
            EXPECT_NEAR(std::abs(p.x), 1000, step);
            EXPECT_TRUE(std::abs(p.z) < step || std::abs(p.z - 128) < step);
        }
    }
}

TEST(Gltf, TextJsonWithSeparateBuffer) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {8, 8, 8}, "a"));
    convert::GltfOptions opt;
    opt.binary = false;
    opt.bin_name = "room.bin";
    const auto files = export_scene(s, opt);
    ASSERT_FALSE(files.binary);
    const auto dir = std::filesystem::temp_directory_path() / "levelkit_gltf_test";
    std::filesystem::create_directories(dir);
    ASSERT_TRUE(convert::save_gltf(files, dir / "room.gltf"));
    tinygltf::Model m;
    tinygltf::TinyGLTF loader;
    std::string err, warn;
    ASSERT_TRUE(loader.LoadASCIIFromFile(&m, &err, &warn, (dir / "room.gltf").string())) << err;
    EXPECT_EQ(m.buffers.at(0).uri, "room.bin");
    EXPECT_EQ(m.buffers.at(0).data.size(), files.bin.size());
    std::filesystem::remove_all(dir);
}

TEST(Gltf, SkyboxGetsItsOwnNode) {
    scene::Scene s;
    // The map: a floor with walls; the skybox: a sealed room far away with a building inside.
    s.world.brushes.push_back(box(1, {0, 0, 0}, {512, 512, 16}, "dev/floor"));
    s.world.brushes.push_back(box(2, {0, 0, 16}, {16, 512, 256}, "dev/wall"));
    s.world.brushes.push_back(box(10, {4000, 4000, 0}, {4256, 4256, 8}, "tools/toolsskybox"));
    s.world.brushes.push_back(box(11, {4000, 4000, 248}, {4256, 4256, 256}, "tools/toolsskybox"));
    s.world.brushes.push_back(box(12, {4000, 4000, 8}, {4008, 4256, 248}, "tools/toolsskybox"));
    s.world.brushes.push_back(box(13, {4100, 4100, 8}, {4116, 4116, 40}, "city/building"));
    s.entities.push_back(point("sky_camera", "4128 4128 64"));
    s.entities.back().set("scale", "16");
    s.entities.push_back(point("info_player_start", "100 100 32"));
    const auto files = export_scene(s);
    EXPECT_TRUE(files.report.skybox);
    EXPECT_EQ(files.report.skybox_polygons, 6u + 18u);
    const auto j = json_of(files.glb);
    const auto* sky = node_named(j, "3D skybox");
    ASSERT_TRUE(sky);
    std::vector<std::string> names;
    for (int c : (*sky)["children"]) names.push_back(j["nodes"][c]["name"]);
    EXPECT_EQ(names, (std::vector<std::string>{"worldspawn (3D skybox)", "sky_camera"}));
    EXPECT_EQ((*sky)["extras"]["scale"], 16.0);
    const auto rb = test::read_glb(files.glb);
    std::size_t building = 0;
    for (const auto& t : rb.triangles)
        building += t.material == "city/building" && t.node == "worldspawn (3D skybox)";
    EXPECT_EQ(building, 12u);
}

TEST(Gltf, SmoothingGroupsAverageNormals) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {64, 64, 64}, "a"));
    for (auto& sd : s.world.brushes[0].sides) sd.smoothing_groups = 1;
    const auto files = export_scene(s);
    const auto rb = test::read_glb(files.glb);
    for (const auto& t : rb.triangles) {
        for (const Vec3& n : t.n) {
            // A corner of a cube smoothed over its three faces.
            EXPECT_NEAR(std::abs(n.x), 1 / std::sqrt(3.0), 1e-6);
        }
    }
    convert::GltfOptions flat;
    flat.smoothing_groups = false;
    for (const auto& t : test::read_glb(export_scene(s, flat).glb).triangles)
        EXPECT_NEAR(length(cross(t.n[0], t.n[1])), 0, 1e-9);
}

TEST(Gltf, EmptySceneIsStillAValidFile) {
    scene::Scene s;
    const auto files = export_scene(s);
    const auto rb = test::read_glb(files.glb);
    EXPECT_TRUE(rb.triangles.empty());
    EXPECT_EQ(rb.model.nodes.size(), 2u);  // the map and worldspawn
}

TEST(Gltf, KeyvaluesThatAreNotUtf8StillGiveValidJson) {
    scene::Scene s;
    scene::Entity e = point("info_target", "0 0 0");
    e.set("targetname", "\xcf\xf0\xe8\xe2\xe5\xf2");  // cp1251 "Привет"
    e.set("message", std::string("a\0b\x01\"\\", 6));
    s.entities.push_back(e);
    const auto files = export_scene(s);
    const auto j = json_of(files.glb);  // parses: valid JSON, valid UTF-8
    const nlohmann::json* n = nullptr;
    for (const auto& node : j["nodes"])
        if (node.contains("extras") && node["extras"].value("classname", "") == "info_target")
            n = &node;
    ASSERT_TRUE(n);
    EXPECT_EQ((*n)["extras"]["message"], std::string("a\0b\x01\"\\", 6));
    EXPECT_EQ((*n)["name"],
              "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    const auto rb = test::read_glb(files.glb);
    EXPECT_EQ(rb.model.nodes.size(), 3u);
}

// A vertex no float holds (NaN, or beyond float range) cannot be quantised: it was cast to
// uint16 as NaN (undefined behaviour). It is clamped onto the grid and reported; the finite
// corners keep their grid.
TEST(Gltf, QuantizedMeshWithANonFiniteVertexIsClampedWithAWarning) {
    scene::Scene s;
    scene::Mesh m;
    m.positions = {{0, 0, 0}, {64, 0, 0}, {0, 64, 0}, {std::nan(""), 0, 0}, {1e300, 0, 0}};
    m.face_vertices = {0, 1, 2, 0, 1, 3, 0, 1, 4};
    m.materials = {"a"};
    for (std::uint32_t f = 0; f < 3; ++f) m.faces.push_back({3 * f, 3, 0, {}, {}});
    m.uvs.assign(m.face_vertices.size(), {0, 0});
    s.world.meshes.push_back(m);
    convert::GltfOptions opt;
    opt.quantize = true;
    Diagnostics d;
    auto r = convert::scene_to_gltf(s, opt, d);
    ASSERT_TRUE(r) << r.error().to_string();
    bool warned = false;
    for (const Diagnostic& x : d.items()) warned |= x.code == "gltf.non-finite-position";
    EXPECT_TRUE(warned);
    const auto j = json_of(r->glb);
    for (const auto& a : j["accessors"]) {
        if (a.value("componentType", 0) != 5123 || a.value("type", "") != "VEC3") continue;
        for (const auto& v : a["max"]) EXPECT_LE(v.get<double>(), 65535);
    }
}
