// WMB unit tests on the fixtures of wmb_fixture.hpp: container, views, errors, conversions to
// the scene and to WMP, pictures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "levelkit/convert/scene_wmp.hpp"
#include "levelkit/convert/wmb_scene.hpp"
#include "levelkit/convert/wmp_scene.hpp"
#include "levelkit/wmb/images.hpp"
#include "levelkit/wmb/wmb.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "wmb/wmb_fixture.hpp"

namespace lk::wmb {
namespace {

File must_read(const Bytes& b, Diagnostics* out = nullptr) {
    Diagnostics w;
    auto f = read(ByteSpan(b), w, {});
    EXPECT_TRUE(f.ok()) << (f ? "" : f.error().to_string());
    EXPECT_TRUE(w.empty()) << (w.empty() ? "" : w.items()[0].to_string());
    if (out) *out = w;
    return std::move(f).value();
}

TEST(Wmb, ContainerRoundTripsAndKnowsItsLists) {
    const Bytes b = test::wmb7_fixture();
    const File f = must_read(b);
    EXPECT_EQ(f.version, 7);
    EXPECT_EQ(f.lists.size(), 20u);
    EXPECT_EQ(list_name(17), "blocks");
    EXPECT_EQ(list_path(15), "list[15]");
    auto out = write(f);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(*out, b);
    // Lists start on 4-byte boundaries after the 164-byte table.
    EXPECT_EQ(f.lists[0].offset, 164u);
    for (const List& l : f.lists) EXPECT_EQ(l.offset % 4, 0u);
}

TEST(Wmb, ChangedListsAreLaidOutAnew) {
    File f = must_read(test::wmb7_fixture());
    ByteWriter w;
    w.u32(0);  // an empty object list
    f.lists[15].data = Blob::from_bytes(w.take());
    auto out = write(f);
    ASSERT_TRUE(out.ok());
    const File g = must_read(*out);
    EXPECT_TRUE(g.views.objects.empty());
    EXPECT_EQ(g.views.blocks.size(), 1u);
    EXPECT_EQ(g.lists[17].size(), f.lists[17].size());
}

TEST(Wmb, Wmb7Views) {
    const File f = must_read(test::wmb7_fixture());
    const Views& v = f.views;
    ASSERT_EQ(v.textures.size(), 1u);
    const Texture& t = v.textures[0];
    EXPECT_EQ(t.name, "brick");
    EXPECT_EQ(t.format, PixelFormat::rgb565);
    EXPECT_FALSE(t.miptex_layout);
    EXPECT_EQ(t.mip_count, 4u);
    EXPECT_EQ(t.mips[0].size(), 32u);
    EXPECT_EQ(t.mips[1].size(), 8u);
    ASSERT_EQ(v.materials.size(), 1u);
    EXPECT_EQ(v.materials[0].flags, 0x4000);
    EXPECT_EQ(v.materials[0].user_flags, 0x80u);
    EXPECT_EQ(v.materials[0].albedo, 50);
    ASSERT_EQ(v.blocks.size(), 1u);
    EXPECT_EQ(v.blocks[0].vertices.size(), 8u);
    EXPECT_EQ(v.blocks[0].triangles.size(), 12u);
    EXPECT_EQ(v.blocks[0].triangles[11].face, 5u);
    ASSERT_EQ(v.objects.size(), 7u);
    const Info* info = v.info();
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->elevation, 60);
    EXPECT_EQ(info->fog_colors.size(), 4u);
    EXPECT_EQ(*info->sun_color, 0x939393u);
    const Entity* e = v.objects[1].get<Entity>();
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->file, "barrel.mdl");
    EXPECT_EQ(e->action, "act_barrel");
    EXPECT_EQ(e->skills.size(), 20u);
    EXPECT_EQ(e->skills[19], 19);
    EXPECT_EQ(e->material, "mtl_metal");
    EXPECT_EQ(e->path, 1u);
    const Path* p = v.objects[5].get<Path>();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->nodes.size(), 2u);
    ASSERT_EQ(p->edges.size(), 1u);
    EXPECT_EQ(p->edges[0].length, 128);
    const Region* r = v.objects[6].get<Region>();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->name, "reg_000");
    EXPECT_EQ(v.objects[4].get<Sound>()->file, "sound.wav");
    EXPECT_EQ(v.objects[3].get<Position>()->name, "pos_000");
    EXPECT_EQ(v.objects[2].get<Light>()->range, 300);
}

TEST(Wmb, Wmb4QuakeViews) {
    const File f = must_read(test::wmb4_fixture());
    const Views& v = f.views;
    EXPECT_EQ(f.lists.size(), 16u);
    EXPECT_EQ(v.planes.size(), 6u);
    EXPECT_EQ(v.vertices.size(), 8u);
    EXPECT_EQ(v.faces.size(), 6u);
    EXPECT_EQ(v.edges.size(), 25u);
    ASSERT_EQ(v.textures.size(), 1u);
    EXPECT_TRUE(v.textures[0].miptex_layout);
    EXPECT_EQ(v.textures[0].format, PixelFormat::pal8);
    EXPECT_EQ(v.textures[0].mip_count, 4u);
    ASSERT_EQ(v.models.size(), 1u);
    EXPECT_EQ(v.models[0].face_count, 6);
    EXPECT_EQ(v.face_vertices(0), (std::vector<std::uint32_t>{5, 7, 3, 1}));
    EXPECT_TRUE(v.face_vertices(6).empty());
    const Entity* e = v.objects[2].get<Entity>();
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->old_layout);
    EXPECT_EQ(e->file, "soldier_guard.mdl");  // ran on into the action field
    EXPECT_EQ(e->action, "");
    EXPECT_EQ(e->skills.size(), 8u);
    EXPECT_EQ(v.info()->fog_colors.size(), 3u);  // 56-byte info record
}

TEST(Wmb, BadInputIsLocated) {
    Diagnostics w;
    auto a = read(as_bytes(std::string_view("WMQ7xxxx")), w);
    ASSERT_FALSE(a.ok());
    EXPECT_EQ(a.error().code, "wmb.bad-magic");
    EXPECT_EQ(a.error().offset, 0);

    Bytes b = test::wmb7_fixture();
    auto t = read(ByteSpan(b).first(100), w);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().path, "header");

    // A list that runs past the end of the file.
    Bytes c = b;
    store<std::uint32_t>(c.data() + 4 + 8 * 17 + 4, 0x7fffffff, Endian::little);
    auto l = read(ByteSpan(c), w);
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.error().code, "wmb.bad-list");
    EXPECT_EQ(l.error().offset, 4 + 8 * 17);
    EXPECT_EQ(l.error().path, "header/list[17]");

    // A block count that cannot fit: a warning naming the list, the view left empty, or an
    // error when strict.
    Bytes d = b;
    const File f = must_read(b);
    store<std::uint32_t>(d.data() + f.lists[17].offset, 1000000, Endian::little);
    Diagnostics w2;
    auto g = read(ByteSpan(d), w2);
    ASSERT_TRUE(g.ok());
    EXPECT_TRUE(g->views.blocks.empty());
    ASSERT_EQ(w2.size(), 1u);
    EXPECT_EQ(w2.items()[0].path, "list[17]");
    EXPECT_EQ(w2.items()[0].offset, f.lists[17].offset + 4);
    ReadOptions strict;
    strict.strict = true;
    auto h = read(ByteSpan(d), w2, strict);
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.error().path, "list[17]");

    // A bad object record stays undecoded with a warning; the others decode.
    Bytes e = b;
    const std::uint32_t objects = f.lists[15].offset;
    const std::uint32_t path_at = objects + f.views.objects[5].offset;
    store<float>(e.data() + path_at + 24, 1e6f, Endian::little);  // node count far too big
    Diagnostics w3;
    auto k = read(ByteSpan(e), w3);
    ASSERT_TRUE(k.ok());
    EXPECT_TRUE(std::holds_alternative<std::monostate>(k->views.objects[5].value));
    EXPECT_NE(k->views.objects[6].get<Region>(), nullptr);
    ASSERT_EQ(w3.size(), 1u);
    EXPECT_EQ(w3.items()[0].path, "list[15]/object[5]");
}

TEST(Wmb, CountsAndValidation) {
    File f = must_read(test::wmb7_fixture());
    const Counts c = count(f);
    EXPECT_EQ(c.blocks, 1u);
    EXPECT_EQ(c.triangles, 12u);
    EXPECT_EQ(c.block_faces, 6u);
    EXPECT_EQ(c.entities, 1u);
    EXPECT_EQ(c.paths, 1u);
    Diagnostics ok;
    validate(f, ok);
    EXPECT_TRUE(ok.empty()) << (ok.empty() ? "" : ok.items()[0].to_string());

    f.views.blocks[0].triangles[4].v[1] = 99;
    f.views.blocks[0].skins[0].material = 7;
    Diagnostics bad;
    validate(f, bad);
    ASSERT_EQ(bad.count(Severity::error), 2u);
    EXPECT_EQ(bad.items()[0].path, "list[17]/block[0]/triangle[4]");
    EXPECT_EQ(bad.items()[1].path, "list[17]/block[0]/skin[0]");

    File g = must_read(test::wmb4_fixture());
    g.views.faces[2].material = 3;
    g.views.edges[5].v0 = 100;
    Diagnostics bad4;
    validate(g, bad4);
    EXPECT_EQ(bad4.count(Severity::error), 3u);  // the edge, the face using it, the surface
}

}  // namespace
}  // namespace lk::wmb

namespace lk::convert {
namespace {

TEST(WmbScene, Wmb7BlockBecomesAMeshOfQuadsWithEntities) {
    Diagnostics w;
    const auto f = wmb::read(ByteSpan(test::wmb7_fixture()), w).value();
    WmbToSceneReport rep;
    auto s = wmb_to_scene(f, w, {}, &rep);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s->world.meshes.size(), 1u);
    const scene::Mesh& m = s->world.meshes[0];
    EXPECT_EQ(m.faces.size(), 6u);
    EXPECT_EQ(rep.joined_faces, 6u);
    EXPECT_EQ(m.materials, std::vector<std::string>{"brick"});
    // Counter-clockwise seen from outside: the area vector points away from the centre.
    for (const auto& face : m.faces) {
        std::vector<Vec3> poly;
        for (std::uint32_t k = 0; k < face.count; ++k) {
            poly.push_back(m.positions[m.face_vertices[face.first + k]]);
        }
        EXPECT_GT(dot(winding_area_vector(poly), winding_center(poly)), 0);
        // Fitted texture axes reproduce the vertex coordinates: u = x / 4 tiles of 4 texels.
        EXPECT_NEAR(std::abs(face.u.axis.x), std::abs(face.u.axis.x) > 0.5 ? 1 : 0, 1e-9);
    }
    EXPECT_EQ(s->world.get("wmp_sun_elevation"), "60");
    std::map<std::string, int> classes;
    for (const auto& e : s->entities) ++classes[std::string(e.classname())];
    EXPECT_EQ(classes["light_environment"], 1);
    EXPECT_EQ(classes["prop_dynamic"], 1);
    EXPECT_EQ(classes["light"], 1);
    EXPECT_EQ(classes["info_player_start"], 1);
    EXPECT_EQ(classes["ambient_generic"], 1);
    EXPECT_EQ(classes["path_track"], 2);
    EXPECT_EQ(classes["trigger_multiple"], 1);
    const scene::Entity* prop = nullptr;
    for (const auto& e : s->entities) {
        if (e.classname() == "prop_dynamic") prop = &e;
    }
    ASSERT_NE(prop, nullptr);
    EXPECT_EQ(prop->get("model"), "barrel.mdl");
    EXPECT_EQ(prop->get("origin"), "100 200 16");
    EXPECT_EQ(prop->get("angles"), "0 90 0");
    EXPECT_EQ(prop->get("modelscale"), "2");
    EXPECT_EQ(prop->get("wmp_path"), "path_000");
    EXPECT_EQ(prop->get("wmp_skill20"), "19");
}

TEST(WmbScene, QuakeFacesFaceOutwards) {
    Diagnostics w;
    const auto f = wmb::read(ByteSpan(test::wmb4_fixture()), w).value();
    auto s = wmb_to_scene(f, w);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s->world.meshes.size(), 1u);
    const scene::Mesh& m = s->world.meshes[0];
    ASSERT_EQ(m.faces.size(), 6u);
    for (const auto& face : m.faces) {
        std::vector<Vec3> poly;
        for (std::uint32_t k = 0; k < face.count; ++k) {
            poly.push_back(m.positions[m.face_vertices[face.first + k]]);
        }
        EXPECT_GT(dot(winding_area_vector(poly), winding_center(poly)), 0);
    }
    bool guard = false;
    for (const auto& e : s->entities) guard = guard || e.get("model") == "soldier_guard.mdl";
    EXPECT_TRUE(guard);
}

TEST(SceneWmp, ClosedMeshBecomesOneBlockAndEntitiesComeBack) {
    Diagnostics w;
    const auto f = wmb::read(ByteSpan(test::wmb7_fixture()), w).value();
    const scene::Scene s = wmb_to_scene(f, w).value();
    SceneToWmpReport rep;
    auto lv = scene_to_wmp(s, w, {}, &rep);
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    EXPECT_EQ(rep.solid_blocks, 1u);
    EXPECT_EQ(rep.thin_blocks, 0u);
    ASSERT_EQ(lv->blocks.size(), 1u);
    EXPECT_EQ(lv->blocks[0].faces.size(), 6u);
    EXPECT_EQ(lv->models.size(), 1u);
    EXPECT_EQ(lv->lights.size(), 1u);
    EXPECT_EQ(lv->starts.size(), 1u);
    EXPECT_EQ(lv->sounds.size(), 1u);
    EXPECT_EQ(lv->paths.size(), 1u);
    EXPECT_EQ(lv->regions.size(), 1u);
    auto text = wmp::write_text(*lv);
    ASSERT_TRUE(text.ok());
    auto back = wmp::read(Blob::copy_of(*text));
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    Diagnostics checks;
    wmp::validate(back->level, checks);
    EXPECT_EQ(checks.count(Severity::error), 0u);
    // The texture mapping survives: the fixture's vertices carry u = x / 4, v = -y / 4 on a
    // 4x4 texture, i.e. texel (x, -y); faces where u or v is constant fall back to the surface
    // record's vectors, which say the same.
    auto mm = wmp::resolve(back->level);
    ASSERT_TRUE(mm.ok());
    for (const wmp::Face& face : mm->blocks[0].faces) {
        ASSERT_TRUE(face.t1 && face.t2);
        for (std::uint32_t i : face.indices) {
            const Vec3 p = mm->blocks[0].vertices[i];
            EXPECT_NEAR(dot(face.t1->axis, p) + face.t1->offset, p.x, 1e-3);
            EXPECT_NEAR(dot(face.t2->axis, p) + face.t2->offset, -p.y, 1e-3);
        }
    }
}

TEST(SceneWmp, SingleFacesBecomeThinBlocks) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    scene::Mesh m;
    m.positions = {{0, 0, 0}, {64, 0, 0}, {64, 64, 0}, {0, 64, 0}, {128, 0, 0}, {128, 64, 0}};
    m.face_vertices = {0, 1, 2, 3, 1, 4, 5, 2};  // two coplanar quads facing +z
    m.materials = {"floor"};
    m.faces = {{0, 4, 0, {}, {}}, {4, 4, 0, {}, {}}};
    s.world.meshes.push_back(m);
    Diagnostics w;
    SceneToWmpReport rep;
    auto lv = scene_to_wmp(s, w, {}, &rep);
    ASSERT_TRUE(lv.ok());
    EXPECT_EQ(rep.thin_blocks, 1u);
    EXPECT_EQ(rep.merged_faces, 1u);
    ASSERT_EQ(lv->blocks.size(), 1u);
    EXPECT_EQ(lv->blocks[0].faces.size(), 6u);
    // And the block is a valid brush on the way to VMF.
    WmpToSceneReport wr;
    auto back = wmp_to_scene(*lv, w, {}, &wr);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(wr.rejected.empty());
    EXPECT_EQ(wr.brushes, 1u);
}

TEST(SceneWmp, ObjectAnglesInvertWedsRotation) {
    for (const Vec3 a : {Vec3{0.3, -0.4, 1.2}, Vec3{-2.5, 0.9, -0.1}, Vec3{1, 0, 0},
                         Vec3{0, std::numbers::pi / 2, 0.7}}) {
        const Mat3 r = wmp::object_rotation(a);
        const Mat3 back = wmp::object_rotation(wed_object_angles(r));
        for (int i = 0; i < 9; ++i) EXPECT_NEAR(back.m[i], r.m[i], 1e-9);
    }
}

}  // namespace
}  // namespace lk::convert

namespace lk::wmb {
namespace {

TEST(WmbImages, TexturesDecodeAndEncodeAsPng) {
    Diagnostics w;
    const auto f = read(ByteSpan(test::wmb7_fixture()), w).value();
    auto img = texture_image(f.views, 0);
    ASSERT_TRUE(img.ok());
    EXPECT_EQ(img->channels, 3u);
    EXPECT_EQ(img->pixels[0], 255);  // RGB565 0xf800 is red
    EXPECT_EQ(img->pixels[1], 0);
    auto png = encode_png(*img);
    ASSERT_TRUE(png.ok());
    ASSERT_GT(png->size(), 8u);
    EXPECT_EQ(std::memcmp(png->data(), "\x89PNG\r\n\x1a\n", 8), 0);
    EXPECT_EQ(*encode_png(*img), *png);  // deterministic
    EXPECT_FALSE(texture_image(f.views, 5).ok());

    // Palette textures take the file's palette, or grey levels with a note.
    const auto g = read(ByteSpan(test::wmb4_fixture()), w).value();
    Diagnostics notes;
    auto grey = texture_image(g.views, 0, &notes);
    ASSERT_TRUE(grey.ok());
    EXPECT_EQ(grey->pixels[3], 10);
    EXPECT_EQ(notes.size(), 1u);
}

TEST(WmbImages, ExportWritesEveryTexture) {
    Diagnostics w;
    const auto f = read(ByteSpan(test::wmb7_fixture()), w).value();
    const auto dir = std::filesystem::temp_directory_path() / "levelkit_wmb_export_test";
    std::filesystem::remove_all(dir);
    auto rep = export_images(f, dir, w);
    ASSERT_TRUE(rep.ok()) << rep.error().to_string();
    EXPECT_EQ(rep->textures, 1u);
    ASSERT_EQ(rep->files.size(), 1u);
    EXPECT_EQ(rep->files[0].filename(), "brick.png");
    EXPECT_TRUE(std::filesystem::exists(rep->files[0]));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lk::wmb
