// glTF -> model on small files of our own: a file as another tool writes it (no levelkit extras;
// fuzz/seeds/fuzz_gltf_model/generic_skinned.gltf, made by a script from known numbers), bad
// indices and sizes reported with their JSON path, external buffers only from the file's folder.
#include <gtest/gtest.h>

#include <unistd.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "levelkit/convert/model_gltf.hpp"
#include "levelkit/core/file.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;
using namespace lk;
using namespace lk::model;

namespace {

std::string generic_text() {
    auto b = read_file(test::source_dir() / "fuzz" / "seeds" / "fuzz_gltf_model" /
                       "generic_skinned.gltf");
    EXPECT_TRUE(b);
    return b ? std::string(as_text(*b)) : std::string();
}

Result<Model> read_text(const std::string& text, convert::GltfModelOptions o = {}) {
    Diagnostics w;
    return convert::gltf_to_model(as_bytes(text), o, w);
}

TEST(GltfModel, AnotherToolsSkinnedShapeKeyedAnimatedTriangle) {
    auto m = read_text(generic_text());
    ASSERT_TRUE(m) << m.error().message;
    // Model node + Armature, Bone, Bone.001, Tri.
    ASSERT_EQ(m->nodes.size(), 5u);
    EXPECT_EQ(m->nodes[1].name, "Armature");
    EXPECT_EQ(m->nodes[2].name, "Bone");
    EXPECT_EQ(m->nodes[2].kind, NodeKind::joint);
    EXPECT_EQ(m->nodes[1].kind, NodeKind::dag);
    // Bone.001 at glTF (0, 1, 0) m = Source (0, 0, 1/0.0254) inches.
    EXPECT_NEAR(m->nodes[3].bind.translation.z, 1 / 0.0254, 1e-3);
    EXPECT_NEAR(m->nodes[3].bind.translation.y, 0, 1e-6);
    ASSERT_EQ(m->meshes.size(), 1u);
    const Mesh& mesh = m->meshes[0];
    EXPECT_EQ(mesh.node, 4u);  // skinned, on its own node, which is at the scene's origin
    ASSERT_EQ(mesh.point_count(), 3u);
    // glTF (1, 0, 0) -> Source (1, 0, 0) / 0.0254; (0, 1, 0) -> (0, 0, 1) / 0.0254.
    EXPECT_NEAR(mesh.positions.values[1].x, 1 / 0.0254, 1e-3);
    EXPECT_NEAR(mesh.positions.values[2].z, 1 / 0.0254, 1e-3);
    // Normal glTF +Z -> Source -Y.
    EXPECT_NEAR(mesh.normals.values[0].y, -1, 1e-6);
    // UV (1, 0) -> v up: (1, 1).
    EXPECT_NEAR(mesh.texcoords[0].values[1].y, 1, 1e-6);
    // Weights: vertex 0 half Bone, half Bone.001; compacted to 2 slots.
    ASSERT_EQ(mesh.skin.influences, 2u);
    EXPECT_EQ(mesh.skin.joints[0], 2u);
    EXPECT_EQ(mesh.skin.joints[1], 3u);
    EXPECT_FLOAT_EQ(mesh.skin.weights[0], 0.5f);
    EXPECT_EQ(m->materials.at(mesh.face_sets[0].material).name, "models/test/tri");
    ASSERT_EQ(mesh.shapes.size(), 1u);
    EXPECT_EQ(mesh.shapes[0].name, "Raise");
    ASSERT_EQ(mesh.shapes[0].positions.indices, std::vector<std::uint32_t>{1});
    EXPECT_NEAR(mesh.shapes[0].positions.values[0].y, -0.5 / 0.0254, 1e-3);  // glTF +Z = -Y
    ASSERT_EQ(m->flex.controllers.size(), 1u);
    EXPECT_EQ(m->flex.controllers[0].name, "Raise");
    ASSERT_EQ(m->clips.size(), 1u);
    EXPECT_EQ(m->clips[0].name, "Turn");
    EXPECT_NEAR(m->clips[0].duration, 1, 1e-9);
    ASSERT_EQ(m->clips[0].tracks.size(), 1u);
    EXPECT_EQ(m->clips[0].tracks[0].node, 3u);
    // 45 degrees about glTF +Z = about Source -Y.
    const Quat q = m->clips[0].tracks[0].rotation.values[1];
    EXPECT_NEAR(q.y, -0.3826834, 1e-6);
    EXPECT_TRUE(check(*m).empty());
}

TEST(GltfModel, ASkinnedMeshNodeAwayFromTheOriginLeavesItsMeshOnTheModel) {
    nlohmann::json j = nlohmann::json::parse(generic_text());
    j["nodes"][3]["translation"] = {1, 0, 0};  // ignored by glTF for a skinned mesh
    auto m = read_text(j.dump());
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->meshes.at(0).node, 0u);
    EXPECT_NEAR(m->meshes[0].positions.values[1].x, 1 / 0.0254, 1e-3);
}

TEST(GltfModel, BadIndicesAreErrorsWithTheirPath) {
    const nlohmann::json good = nlohmann::json::parse(generic_text());
    struct Case {
        const char* what;
        std::function<void(nlohmann::json&)> change;
        const char* path;
    };
    const std::vector<Case> cases = {
        {"joints accessor out of range",
         [](auto& j) { j["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = 99; },
         "meshes[0]/primitives[0]/attributes/JOINTS_0"},
        {"view too short for the count", [](auto& j) { j["accessors"][0]["count"] = 1000; },
         "meshes[0]/primitives[0]/attributes/POSITION"},
        {"index beyond the vertices",
         [](auto& j) {
             // Bytes 3..5 of the weights (0.5f = 00 00 00 3f): index 63.
             j["accessors"][5] = {{"bufferView", 4},
                                  {"byteOffset", 3},
                                  {"componentType", 5121},
                                  {"count", 3},
                                  {"type", "SCALAR"}};
         },
         "meshes[0]/primitives[0]/indices"},
        {"signed indices (glTF allows unsigned only; a negative one was cast)",
         [](auto& j) { j["accessors"][5]["componentType"] = 5122; },
         "meshes[0]/primitives[0]/indices"},
        {"joint index beyond the skin", [](auto& j) { j["skins"][0]["joints"] = {1}; },
         "meshes[0]/primitives[0]/attributes/JOINTS_0"},
        {"translation beyond float range in inches",
         [](auto& j) {
             j["nodes"][1]["translation"] = {3e38, 0, 0};
         },
         "nodes[2]"},
        {"compressed meshes",
         [](auto& j) { j["extensionsRequired"] = {"KHR_draco_mesh_compression"}; },
         "KHR_draco_mesh_compression"},
        {"animation node",
         [](auto& j) { j["animations"][0]["channels"][0]["target"]["node"] = 40; },
         "animations[0]/channels[0]/target/node"},
        {"times not increasing",
         [](auto& j) {
             j["accessors"][8]["count"] = 1;
             j["accessors"][9]["count"] = 2;
         },
         "animations[0]/samplers[0]/output"},
    };
    for (const Case& c : cases) {
        nlohmann::json j = good;
        c.change(j);
        auto m = read_text(j.dump());
        ASSERT_FALSE(m) << c.what;
        EXPECT_NE(m.error().message.find(c.path), std::string::npos)
            << c.what << ": " << m.error().message;
    }
}

// Textures are not part of the model: images are neither decoded nor fetched (levelkit's
// tinygltf is built without an image decoder), whether embedded, in a buffer view, external,
// missing or not images at all; the model read is the one without them.
TEST(GltfModel, ImagesOfAnyKindAreSkipped) {
    auto plain = read_text(generic_text());
    ASSERT_TRUE(plain) << plain.error().message;
    nlohmann::json j = nlohmann::json::parse(generic_text());
    // A 1x1 RGB PNG, bytes that are no picture, a file that does not exist, a buffer view.
    j["images"] = nlohmann::json::array(
        {{{"uri",
           "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4"
           "z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"}},
         {{"uri", "data:image/png;base64,bm90IGEgcGljdHVyZQ=="}},
         {{"uri", "no-such-texture.png"}},
         {{"bufferView", 0}, {"mimeType", "image/jpeg"}}});
    j["textures"] = nlohmann::json::array({{{"source", 0}}, {{"source", 1}}, {{"source", 2}}});
    auto m = read_text(j.dump());
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(compare(*m, *plain), std::nullopt);
    EXPECT_EQ(m->materials.size(), plain->materials.size());
}

TEST(GltfModel, ExternalBuffersOnlyFromTheFilesFolder) {
    auto m = read_text(generic_text());
    ASSERT_TRUE(m);
    convert::ModelGltfOptions wo;
    wo.binary = false;
    wo.bin_name = "tri.bin";
    Diagnostics w;
    auto files = convert::model_to_gltf(*m, wo, w);
    ASSERT_TRUE(files);
    const fs::path dir = fs::temp_directory_path() / ("lk-gltf-ext-" + std::to_string(::getpid()));
    fs::create_directories(dir / "sub");
    ASSERT_TRUE(write_file_atomic(dir / "tri.bin", files->bin));
    convert::GltfModelOptions o;
    o.base_dir = dir.string();
    auto read = read_text(files->json, o);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(read->meshes.at(0).point_count(), 3u);
    // Without a folder: refused.
    EXPECT_FALSE(read_text(files->json));
    // Outside the folder: refused, though the file exists.
    o.base_dir = (dir / "sub").string();
    auto j = nlohmann::json::parse(files->json);
    j["buffers"][0]["uri"] = "../tri.bin";
    EXPECT_FALSE(read_text(j.dump(), o));
    fs::remove_all(dir);
}

TEST(GltfModel, AnUnsignedIntIndexOfTwoToThe32AsFloatIsOutOfRange) {
    // 0xFFFFFFFF reads as 4294967296.0f, which no uint32 holds (casting it was undefined
    // behaviour: the old bound 4294967295.0f is that same float).
    nlohmann::json j = nlohmann::json::parse(generic_text());
    j["buffers"].push_back(
        {{"byteLength", 12}, {"uri", "data:application/octet-stream;base64,AAAAAAEAAAD/////"}});
    j["bufferViews"].push_back({{"buffer", 1}, {"byteOffset", 0}, {"byteLength", 12}});
    j["accessors"][5] = {
        {"bufferView", 10}, {"componentType", 5125}, {"count", 3}, {"type", "SCALAR"}};
    auto m = read_text(j.dump());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("meshes[0]/primitives[0]/indices: index out of range"),
              std::string::npos)
        << m.error().message;
}

TEST(GltfModel, IntegerExtrasOutOfRangeAreWarnedNotWrappedOrCast) {
    const nlohmann::json good = nlohmann::json::parse(generic_text());
    auto with = [&](nlohmann::json levelkit) {
        nlohmann::json j = good;
        j["nodes"][0]["extras"] = {{"levelkit", std::move(levelkit)}};
        Diagnostics w;
        auto m = convert::gltf_to_model(as_bytes(j.dump()), {}, w);
        return std::make_pair(std::move(m), std::move(w));
    };
    auto warned = [](const Diagnostics& w, std::string_view path) {
        for (const Diagnostic& d : w.items())
            if (d.code == "gltf.out-of-range" && d.path == path) return true;
        return false;
    };
    // 2^32 + 1 wrapped to 1 (x up); 1e30 was a double -> int cast out of range (UB).
    for (const nlohmann::json& up : {nlohmann::json(4294967297ull), nlohmann::json(1e30)}) {
        auto [m, w] = with({{"nodes", 3}, {"up_axis", up}});
        ASSERT_TRUE(m) << m.error().message;
        EXPECT_EQ(m->up_axis, Axis::z) << up.dump();
        EXPECT_TRUE(warned(w, "nodes[0]/extras/levelkit/up_axis")) << up.dump();
    }
    // A node count no size_t holds: the count is bad, not a huge cast.
    {
        auto [m, w] = with({{"nodes", 1e30}});
        ASSERT_FALSE(m);
        EXPECT_NE(m.error().message.find("nodes[0]/extras/levelkit/nodes"), std::string::npos);
    }
    // An attachment on node 2^32 wrapped to node 0 (the model); now it is left out.
    {
        auto [m, w] = with(
            {{"nodes", 3},
             {"attachments",
              {{{"name", "wrapped"}, {"node", 4294967296ull}}, {{"name", "kept"}, {"node", 1}}}}});
        ASSERT_TRUE(m) << m.error().message;
        ASSERT_EQ(m->attachments.size(), 1u);
        EXPECT_EQ(m->attachments[0].name, "kept");
        EXPECT_TRUE(warned(w, "nodes[0]/extras/levelkit/attachments[0]/node"));
    }
}

}  // namespace
