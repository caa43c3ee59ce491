// The vmap map layer as a spec: what MapBuilder writes, read back through Map after a binary
// and a keyvalues2 round trip; and the scene <-> vmap conversion on small hand-made scenes.
#include <gtest/gtest.h>

#include <cmath>

#include "levelkit/any/document.hpp"
#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/vmap/vmap.hpp"

namespace lk {
namespace {

using vmap::ElementRef;

dmx::Document reread(const dmx::Document& doc) {
    auto bytes = dmx::write(doc);
    EXPECT_TRUE(bytes.ok());
    auto back = dmx::read(*bytes);
    EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().to_string());
    return std::move(back).value();
}

TEST(VmapMap, BuilderWritesWhatMapReads) {
    vmap::MapBuilder b(5);
    b.set_world_properties({{"classname", "worldspawn"}, {"skyname", "sky_day01_01"}});
    vmap::EntityData e;
    e.properties = {{"classname", "logic_relay"}, {"targetname", "relay"}, {"name", "n"}};
    e.outputs.push_back({"OnTrigger", "door", "Open", "", 1.5f, 1});
    e.transform.origin = {16, 32, 48};
    e.transform.angles = {0, 90, 0};
    const ElementRef group = b.add_group(b.world());
    const ElementRef ent = b.add_entity(group, e);
    b.hide(ent);
    const ElementRef set = b.add_selection_set(ElementRef::null(), "lights");
    b.select(set, ent);
    b.add_camera({1, 2, 3}, {4, 5, 6});
    vmap::PrefabData p;
    p.target_map = "maps/prefabs/a.vmap";
    p.target_name = "a1";
    b.add_prefab(b.world(), p);
    dmx::Document doc = reread(b.finish());
    EXPECT_EQ(doc.header.to_string(), "binary 9 / vmap 29");

    auto map = vmap::Map::open(doc);
    ASSERT_TRUE(map.ok()) << map.error().to_string();
    EXPECT_TRUE(map->root_is_hammer());
    EXPECT_EQ(map->version(), 29);
    ASSERT_EQ(map->nodes.size(), 4u);  // world, group, entity, prefab
    EXPECT_EQ(map->nodes[0].kind, vmap::NodeKind::world);
    EXPECT_EQ(map->nodes[1].kind, vmap::NodeKind::group);
    EXPECT_EQ(map->nodes[2].kind, vmap::NodeKind::entity);
    EXPECT_EQ(map->nodes[2].parent, 1);
    EXPECT_EQ(map->nodes[3].kind, vmap::NodeKind::prefab);
    ASSERT_EQ(map->entities.size(), 1u);
    const ElementRef n = map->nodes[map->entities[0]].element;
    EXPECT_EQ(map->classname(n), "logic_relay");
    EXPECT_EQ(map->property(n, "name"), "n");
    const auto props = map->properties(n);
    ASSERT_EQ(props.size(), 3u);
    EXPECT_EQ(props[0].first, "name");
    EXPECT_EQ(props[1].first, "classname");
    const auto conns = map->connections(n);
    ASSERT_EQ(conns.size(), 1u);
    EXPECT_EQ(conns[0].output, "OnTrigger");
    EXPECT_EQ(conns[0].target, "door");
    EXPECT_EQ(conns[0].input, "Open");
    EXPECT_FLOAT_EQ(conns[0].delay, 1.5f);
    EXPECT_EQ(conns[0].times, 1);
    EXPECT_EQ(conns[0].target_type, 7);
    const vmap::Transform t = map->transform(n);
    EXPECT_EQ(t.origin, (Vec3{16, 32, 48}));
    const Vec3 x = t.apply({1, 0, 0});  // yaw 90: +x turns to +y
    EXPECT_NEAR(x.x, 16, 1e-6);
    EXPECT_NEAR(x.y, 33, 1e-6);
    // Hammer numbers the visibility manager 0 and the world 1.
    EXPECT_EQ(map->node_id(map->visibility), 0);
    EXPECT_EQ(map->node_id(map->world), 1);
    const auto* hidden = doc[map->visibility].get<std::vector<ElementRef>>("nodes");
    ASSERT_NE(hidden, nullptr);
    ASSERT_EQ(hidden->size(), 1u);
    EXPECT_EQ(doc[(*hidden)[0]].type, "CMapEntity");
    EXPECT_EQ(doc.prefix_attributes().size(), 1u);  // map_asset_references

    // keyvalues2 4 holds the same graph.
    dmx::Document text = doc.clone();
    ASSERT_TRUE(dmx::convert(text, {"keyvalues2", 4}).ok());
    EXPECT_EQ(dmx::compare_graphs(doc, reread(text)), std::nullopt);
}

TEST(VmapMap, OpenNeedsAWorld) {
    dmx::Document doc;
    doc.header.format = "vmap";
    doc.root = doc.add_element("CMapRootElement");
    auto m = vmap::Map::open(doc);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().code, "vmap.no-world");
}

TEST(VmapMap, MaterialPaths) {
    EXPECT_EQ(convert::vmat_path("BRICK\\Wall01.vmt"), "materials/brick/wall01.vmat");
    EXPECT_EQ(convert::vmat_path("tools/toolsnodraw"), "materials/tools/toolsnodraw.vmat");
    EXPECT_EQ(convert::vmt_material("materials/brick/wall01.vmat"), "brick/wall01");
    EXPECT_EQ(convert::vmt_material("models/x.vmdl"), "models/x.vmdl");
}

// A 64-unit cube brush the way a VMF states it: outward planes, Hammer's default axes.
scene::Brush cube_brush(double lo, double hi) {
    scene::Brush b;
    b.id = 7;
    const Vec3 n[6] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (const Vec3& normal : n) {
        scene::BrushSide s;
        s.plane = {normal, dot(normal, Vec3{1, 1, 1}) > 0 ? hi : -lo};
        s.material = "DEV/Dev_Measuregeneric01";
        const bool floor = normal.z != 0;
        s.u = {floor ? Vec3{1, 0, 0} : (normal.x != 0 ? Vec3{0, 1, 0} : Vec3{1, 0, 0}), 8, 0.25};
        s.v = {floor ? Vec3{0, -1, 0} : Vec3{0, 0, -1}, 16, 0.5};
        b.sides.push_back(s);
    }
    return b;
}

TEST(VmapConvert, BrushBecomesAClosedMeshWithTheVmfUvs) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    s.world.brushes.push_back(cube_brush(0, 64));
    scene::Entity detail;
    detail.set("classname", "func_detail");
    detail.brushes.push_back(cube_brush(100, 164));
    s.entities.push_back(detail);
    scene::Entity light;
    light.set("classname", "light");
    light.set("origin", "1 2 3");
    light.set("angles", "0 45 0");
    light.set("_light", "255 255 255 200");
    light.outputs.push_back({"OnUser1", "x", "Kill", "", 0.5, -1, std::nullopt});
    s.entities.push_back(light);
    Diagnostics diags;
    convert::SceneToVmapReport r;
    convert::SceneToVmapOptions opt;
    opt.default_texture_size = 256;
    const dmx::Document doc = convert::scene_to_vmap(s, diags, opt, &r);
    EXPECT_EQ(r.meshes, 2u);  // the func_detail brush is world geometry
    EXPECT_EQ(r.entities, 1u);
    EXPECT_EQ(r.outputs, 1u);
    auto map = vmap::Map::open(doc);
    ASSERT_TRUE(map.ok());
    EXPECT_TRUE(vmap::validate_meshes(*map).empty());
    ASSERT_EQ(map->meshes.size(), 2u);
    for (std::uint32_t i : map->meshes) EXPECT_EQ(map->nodes[i].parent, 0);  // under the world

    auto v = vmap::view_mesh(doc, map->mesh_data(map->nodes[map->meshes[0]].element));
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->vertex_count(), 8u);
    EXPECT_EQ(v->face_count(), 6u);
    ASSERT_EQ(v->materials.size(), 1u);
    EXPECT_EQ(v->materials[0], "materials/dev/dev_measuregeneric01.vmat");
    const auto pos = v->vertices.get<dmx::Vector3>("position:0");
    const auto uv = v->face_vertices.get<dmx::Vector2>("texcoord:0");
    const auto au = v->faces.get<dmx::Vector4>("textureAxisU:0");
    const auto sc = v->faces.get<dmx::Vector2>("textureScale:0");
    const scene::Brush cube = cube_brush(0, 64);
    std::vector<vmap::Corner> corners;
    for (std::size_t f = 0; f < 6; ++f) {
        ASSERT_TRUE(vmap::face_corners(*v, f, corners));
        const scene::BrushSide& side = cube.sides[f];
        EXPECT_EQ(au[f].w, 8.0f);  // shift in w
        EXPECT_EQ(sc[f].x, 0.25f);
        EXPECT_EQ(sc[f].y, 0.5f);
        // Counter-clockwise around the outward normal.
        const auto p = [&](std::size_t k) {
            const dmx::Vector3 q = pos[static_cast<std::size_t>(corners[k].vertex)];
            return Vec3{q.x, q.y, q.z};
        };
        EXPECT_GT(dot(cross(p(1) - p(0), p(2) - p(1)), side.plane.normal), 0);
        for (std::size_t k = 0; k < corners.size(); ++k) {
            EXPECT_NEAR(side.plane.distance_to(p(k)), 0, 1e-9);
            const dmx::Vector2 t = uv[static_cast<std::size_t>(corners[k].half_edge)];
            EXPECT_NEAR(t.x, (dot(p(k), side.u.axis) / 0.25 + 8) / 256, 1e-6);
            EXPECT_NEAR(t.y, (dot(p(k), side.v.axis) / 0.5 + 16) / 256, 1e-6);
        }
    }

    const ElementRef ent = map->nodes[map->entities[0]].element;
    EXPECT_EQ(map->transform(ent).origin, (Vec3{1, 2, 3}));
    EXPECT_EQ(map->transform(ent).angles, (Vec3{0, 45, 0}));
    EXPECT_EQ(map->property(ent, "origin"), "");  // on the node, as Hammer stores it
    EXPECT_EQ(map->property(ent, "_light"), "255 255 255 200");

    // And back: the cube mesh is a brush with the same planes and axes; the light keeps its keys.
    const scene::Scene back = convert::vmap_to_scene(*map, diags);
    ASSERT_EQ(back.world.meshes.size(), 2u);
    auto brush = convert::mesh_to_brush(back.world.meshes[0]);
    ASSERT_TRUE(brush.has_value());
    ASSERT_EQ(brush->sides.size(), 6u);
    for (const scene::BrushSide& want : cube.sides) {
        bool found = false;
        for (const scene::BrushSide& got : brush->sides) {
            if (!same_plane(want.plane, got.plane, 1e-6, 1e-4)) continue;
            found = true;
            EXPECT_EQ(got.material, "dev/dev_measuregeneric01");
            EXPECT_EQ(got.u.axis, want.u.axis);
            EXPECT_EQ(got.u.shift, want.u.shift);
            EXPECT_EQ(got.v.scale, want.v.scale);
        }
        EXPECT_TRUE(found);
    }
    ASSERT_EQ(back.entities.size(), 1u);
    EXPECT_EQ(back.entities[0].get("origin"), "1 2 3");
    EXPECT_EQ(back.entities[0].get("angles"), "0 45 0");
    ASSERT_EQ(back.entities[0].outputs.size(), 1u);
    EXPECT_EQ(back.entities[0].outputs[0].input, "Kill");
}

TEST(VmapConvert, OnlyClosedConvexMeshesAreBrushes) {
    scene::Mesh m;
    // An open box (no top): not closed.
    m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    m.face_vertices = {0, 3, 2, 1, 0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7};
    for (std::uint32_t f = 0; f < 5; ++f) m.faces.push_back({f * 4, 4, 0, {}, {}});
    m.materials = {"x"};
    EXPECT_FALSE(convert::mesh_to_brush(m).has_value());
    m.face_vertices.insert(m.face_vertices.end(), {4, 5, 6, 7});
    m.faces.push_back({20, 4, 0, {}, {}});
    EXPECT_TRUE(convert::mesh_to_brush(m).has_value());
    // Push the top's corner up: the top is no longer planar.
    m.positions[6].z = 1.5;
    EXPECT_FALSE(convert::mesh_to_brush(m).has_value());
}

TEST(VmapConvert, DisplacementBecomesATriangleGridWithBlend) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    scene::Brush b = cube_brush(0, 64);
    scene::Displacement d;
    d.power = 2;
    d.start_position = {0, 0, 64};
    d.distances.assign(25, 0.0);
    d.normals.assign(25, Vec3{0, 0, 1});
    d.distances[12] = 10;  // the middle vertex rises
    d.alphas.assign(25, 255.0);
    b.sides[0].displacement = d;
    s.world.brushes.push_back(b);
    Diagnostics diags;
    convert::SceneToVmapReport r;
    const dmx::Document doc = convert::scene_to_vmap(s, diags, {}, &r);
    EXPECT_EQ(r.displacements, 1u);
    auto map = vmap::Map::open(doc);
    ASSERT_TRUE(map.ok());
    ASSERT_EQ(map->meshes.size(), 1u);  // the brush's other sides are dropped
    EXPECT_TRUE(vmap::validate_meshes(*map).empty());
    auto v = vmap::view_mesh(doc, map->mesh_data(map->nodes[map->meshes[0]].element));
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->vertex_count(), 25u);
    EXPECT_EQ(v->face_count(), 32u);
    const auto pos = v->vertices.get<dmx::Vector3>("position:0");
    double top = 0;
    for (const auto& p : pos) top = std::max(top, static_cast<double>(p.z));
    EXPECT_EQ(top, 74.0);
    const auto blend = v->face_vertices.get<dmx::Vector4>("VertexPaintBlendParams:0");
    ASSERT_EQ(blend.size(), v->half_edge_count());
    // Border half-edges have no corner; face corners carry alpha / 255.
    for (std::size_t h = 0; h < blend.size(); ++h) {
        EXPECT_EQ(blend[h].x, v->edge_face[h] >= 0 ? 1.0f : 0.0f);
    }
}

TEST(VmapAny, FormatIsDetectedAndBrokenMeshesAreReported) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    s.world.brushes.push_back(cube_brush(0, 64));
    Diagnostics diags;
    dmx::Document doc = convert::scene_to_vmap(s, diags);
    auto bytes = dmx::write(doc);
    ASSERT_TRUE(bytes.ok());
    ReadOptions ro;
    ro.source_name = "cube.vmap";
    auto good = read_document(Blob::from_bytes(*bytes), ro);
    ASSERT_TRUE(good.ok());
    EXPECT_EQ(good.value()->format(), "vmap");
    const Json info = good.value()->info();
    EXPECT_EQ(info["format"], "vmap");
    EXPECT_EQ(info["meshes"], 1);
    EXPECT_EQ(info["faces"], 6);
    EXPECT_EQ(info["entities"], 0);
    EXPECT_EQ(info["vmap_version"], 29);
    EXPECT_EQ(info["encoding"], "binary");
    Diagnostics ok;
    good.value()->validate(ok);
    EXPECT_TRUE(ok.empty());

    // Break one twin link: validate names the mesh and the invariant.
    auto map = vmap::Map::open(doc);
    ASSERT_TRUE(map.ok());
    const ElementRef md = map->mesh_data(map->nodes[map->meshes[0]].element);
    doc[md].find("edgeOppositeIndices")->value.get<std::vector<std::int32_t>>()[4] = 0;
    auto broken_bytes = dmx::write(doc);
    ASSERT_TRUE(broken_bytes.ok());
    auto broken = read_document(Blob::from_bytes(*broken_bytes), ro);
    ASSERT_TRUE(broken.ok());
    Diagnostics bad;
    broken.value()->validate(bad);
    ASSERT_TRUE(bad.has_errors());
    EXPECT_EQ(bad.items()[0].code, "vmap.invalid-mesh");
    EXPECT_NE(bad.items()[0].message.find("mesh 2: opposite:"), std::string::npos)
        << bad.items()[0].message;

    // Other DMX files stay "dmx".
    dmx::Document model;
    model.header.format = "model";
    model.header.format_version = 22;
    model.root = model.add_element("DmElement");
    auto model_bytes = dmx::write(model);
    ASSERT_TRUE(model_bytes.ok());
    auto m = read_document(Blob::from_bytes(*model_bytes), ro);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m.value()->format(), "dmx");
}

}  // namespace
}  // namespace lk
