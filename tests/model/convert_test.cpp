// SMD/VTA <-> neutral model <-> DMX on small hand-written files.
#include <gtest/gtest.h>

#include <algorithm>

#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/convert/model_gltf.hpp"
#include "levelkit/convert/smd_model.hpp"
#include "levelkit/dmx/io.hpp"

namespace lk::convert {
namespace {

// Two triangles sharing an edge; the shared corners are weighted alike, so they weld.
constexpr const char* kRef = R"(version 1
nodes
0 "blender_implicit" -1
1 "Bone" -1
end
skeleton
time 0
0  0 0 0  0 0 0
1  0.000000 0.000000 1.000000  0.000000 0.000000 0.000000
end
triangles
skin
0  0 0 0  0 0 1  0 0 1 1 1.000000
0  1 0 0  0 0 1  1 0 2 1 0.500000 0 0.500000
0  1 1 0  0 0 1  1 1 1 1 1.000000
skin
0  0 0 0  0 0 1  0 0 1 1 1.000000
0  1 1 0  0 0 1  1 1 1 1 1.000000
0  0 1 0  0 0 1  0 1 0
end
)";

constexpr const char* kVta = R"(version 1
nodes
0 "blender_implicit" -1
1 "Bone" -1
end
skeleton
time 0
time 1 # Raise
end
vertexanimation
time 0
0 0 0 0 0 0 1
1 1 0 0 0 0 1
2 1 1 0 0 0 1
3 0 0 0 0 0 1
4 1 1 0 0 0 1
5 0 1 0 0 0 1
time 1
2 1 1 0.5 0 0 1
4 1 1 0.5 0 0 1
end
)";

TEST(SmdModel, ReferenceAndVtaBecomeAModelWithAShape) {
    Diagnostics w;
    auto ref = smd::read(kRef, w);
    auto vta = smd::read(kVta, w);
    ASSERT_TRUE(ref.ok() && vta.ok());
    SmdToModelOptions opt;
    opt.name = "Quad";
    auto m = smd_to_model(*ref, &*vta, w, opt);
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    EXPECT_TRUE(model::check(*m).empty());
    EXPECT_TRUE(m->root_bone);  // bone 0 is BST's implicit root
    EXPECT_EQ(m->name(), "blender_implicit");
    ASSERT_EQ(m->nodes.size(), 3u);  // model, Bone, the mesh's dag
    EXPECT_EQ(m->nodes[1].name, "Bone");
    EXPECT_EQ(m->nodes[1].bind.translation.z, 1.0f);
    ASSERT_EQ(m->meshes.size(), 1u);
    const model::Mesh& mesh = m->meshes[0];
    EXPECT_EQ(mesh.corner_count(), 6u);
    EXPECT_EQ(mesh.point_count(), 4u);  // (0,0,0) and (1,1,0) are shared
    EXPECT_EQ(mesh.skin.influences, 2u);
    ASSERT_EQ(mesh.shapes.size(), 1u);
    EXPECT_EQ(mesh.shapes[0].name, "Raise");
    ASSERT_EQ(mesh.shapes[0].positions.indices.size(), 1u);  // one point moved
    EXPECT_EQ(mesh.shapes[0].positions.values[0].z, 0.5f);
    ASSERT_EQ(m->flex.controllers.size(), 1u);

    // Back to SMD: the same content; and a VTA with the same frames.
    ModelToSmdOptions so;
    so.base_name = "Quad";
    auto outs = model_to_smd(*m, w, so);
    ASSERT_TRUE(outs.ok());
    ASSERT_EQ(outs->size(), 2u);
    EXPECT_EQ((*outs)[0].file_name, "Quad.smd");
    EXPECT_EQ((*outs)[1].file_name, "Quad.vta");
    EXPECT_TRUE(smd::same_content(*ref, (*outs)[0].file)) << smd::write((*outs)[0].file);
    const smd::File& v = (*outs)[1].file;
    ASSERT_EQ(v.vertex_animation.size(), 2u);
    EXPECT_EQ(v.skeleton[1].comment, "Raise");
    EXPECT_EQ(v.vertex_animation[1].vertices, vta->vertex_animation[1].vertices);
}

TEST(SmdModel, ThroughDmxKeepsShapesAndWeights) {
    Diagnostics w;
    auto ref = smd::read(kRef, w);
    auto vta = smd::read(kVta, w);
    auto m = smd_to_model(*ref, &*vta, w);
    ASSERT_TRUE(m.ok());
    for (const auto& target : {dmxmodel::Target::source1_legacy(), dmxmodel::Target::source1(),
                               dmxmodel::Target::source2()}) {
        SCOPED_TRACE(target.format_version);
        auto doc = model_to_dmx(*m, target, w);
        ASSERT_TRUE(doc.ok()) << doc.error().to_string();
        auto bytes = dmx::write(*doc);
        ASSERT_TRUE(bytes.ok());
        auto back = dmx_to_model(*dmx::read(*bytes), w);
        ASSERT_TRUE(back.ok());
        EXPECT_FALSE(model::compare(*m, *back).has_value()) << *model::compare(*m, *back);
    }
}

// A mesh that is the shape of the DmeModel itself (no dag of its own) reads as a mesh on a dag
// at identity under the model, which is what model_to_dmx writes for it, so the model read back
// from the written file is the same (found by fuzz_dmxmodel: the written file had one node more).
TEST(SmdModel, AMeshOnTheDmeModelItselfGetsTheDagItIsWrittenWith) {
    Diagnostics w;
    auto ref = smd::read(kRef, w);
    auto m = smd_to_model(*ref, nullptr, w);
    ASSERT_TRUE(m.ok());
    auto doc = model_to_dmx(*m, dmxmodel::Target::source1(), w);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    // Move the mesh from its dag onto the DmeModel and drop the dag.
    using dmx::ElementRef;
    const ElementRef model = doc->get(doc->root)->get_or<ElementRef>("model", ElementRef::null());
    ASSERT_FALSE(model.is_null());
    std::vector<ElementRef> kids = *(*doc)[model].get<std::vector<ElementRef>>("children");
    ElementRef dag = ElementRef::null(), mesh = ElementRef::null();
    for (ElementRef k : kids) {
        const ElementRef s = (*doc)[k].get_or<ElementRef>("shape", ElementRef::null());
        if (!s.is_null() && (*doc)[s].type == "DmeMesh") dag = k, mesh = s;
    }
    ASSERT_FALSE(dag.is_null());
    auto without = [&](std::vector<ElementRef> v) {
        v.erase(std::remove(v.begin(), v.end(), dag), v.end());
        return v;
    };
    (*doc)[model].set("children", without(kids));
    if (auto* joints = (*doc)[model].get<std::vector<ElementRef>>("jointList")) {
        (*doc)[model].set("jointList", without(*joints));
    }
    (*doc)[model].set("shape", mesh);
    auto a = dmx_to_model(*doc, w);
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    ASSERT_EQ(a->meshes.size(), 1u);
    const model::Node& holder = a->nodes.at(a->meshes[0].node);
    EXPECT_EQ(holder.parent, 0);
    EXPECT_EQ(holder.kind, model::NodeKind::dag);
    EXPECT_EQ(holder.name, a->meshes[0].name);
    auto out = model_to_dmx(*a, dmxmodel::Target::source1(), w);
    ASSERT_TRUE(out.ok());
    auto bytes = dmx::write(*out);
    ASSERT_TRUE(bytes.ok());
    auto b = dmx_to_model(*dmx::read(*bytes), w);
    ASSERT_TRUE(b.ok());
    EXPECT_FALSE(model::compare(*a, *b).has_value()) << *model::compare(*a, *b);
}

// An attachment on the model node itself was dropped by the DMX builder; it is written on a dag
// of its own, and a DMX whose DmeModel carries the attachment reads the same way, so the round
// trip keeps it (found by fuzz_dmxmodel: attachments 1 vs 0).
TEST(SmdModel, AnAttachmentOnTheModelNodeIsWrittenOnADagOfItsOwn) {
    Diagnostics w;
    auto ref = smd::read(kRef, w);
    auto m = smd_to_model(*ref, nullptr, w);
    ASSERT_TRUE(m.ok());
    m->attachments.push_back({"tip", 0, true, false});
    auto doc = model_to_dmx(*m, dmxmodel::Target::source1(), w);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    auto a = dmx_to_model(*doc, w);
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    ASSERT_EQ(a->attachments.size(), 1u);
    const model::Node& holder = a->nodes.at(a->attachments[0].node);
    EXPECT_EQ(holder.name, "tip");
    EXPECT_EQ(holder.parent, 0);
    auto out = model_to_dmx(*a, dmxmodel::Target::source1(), w);
    ASSERT_TRUE(out.ok());
    auto b = dmx_to_model(*out, w);
    ASSERT_TRUE(b.ok());
    EXPECT_FALSE(model::compare(*a, *b).has_value()) << *model::compare(*a, *b);
}

// An integer vertex field (from a glTF's levelkit extras, say) holding a value no int32 holds
// was rounded and wrapped (3e9 became -1294967296); it is written as floats, with a warning.
TEST(SmdModel, IntegerFieldOutOfInt32RangeGoesToDmxAsFloats) {
    Diagnostics w;
    auto ref = smd::read(kRef, w);
    auto m = smd_to_model(*ref, nullptr, w);
    ASSERT_TRUE(m.ok());
    model::Mesh& mesh = m->meshes.at(0);
    model::ExtraField f;
    f.name = "ids";
    f.kind = model::ExtraField::Kind::integer;
    f.values = {7, 3e9f};
    f.indices.assign(mesh.positions.indices.size(), 0);
    f.indices.back() = 1;
    mesh.extra.push_back(f);
    Diagnostics d;
    auto doc = model_to_dmx(*m, dmxmodel::Target::source2(), d);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    bool warned = false;
    for (const Diagnostic& x : d.items()) warned |= x.code == "convert.out-of-range";
    EXPECT_TRUE(warned);
    auto back = dmx_to_model(*doc, w);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    const model::ExtraField* got = nullptr;
    for (const auto& e : back->meshes.at(0).extra) {
        if (e.name == "ids") got = &e;
    }
    ASSERT_NE(got, nullptr);
    ASSERT_EQ(got->values.size(), 2u);
    EXPECT_EQ(got->values[0], 7.0f);
    EXPECT_EQ(got->values[1], 3e9f);
}

TEST(SmdModel, AnimationsAreNamedAsBlenderSourceToolsNamesThem) {
    model::Model m = model::Model::with_root("Armature");
    m.root_bone = true;
    m.nodes.push_back({"Bone", 0, model::NodeKind::joint});
    model::Clip c;
    c.name = "walk/run:fast";
    c.frame_rate = 24;
    c.duration = 2.0 / 24;
    model::NodeTrack t;
    t.node = 1;
    t.translation.times = {0, 2.0 / 24};
    t.translation.values = {{0, 0, 0}, {2, 0, 0}};
    c.tracks.push_back(t);
    m.clips.push_back(c);
    Diagnostics w;
    auto outs = model_to_smd(m, w);
    ASSERT_TRUE(outs.ok());
    ASSERT_EQ(outs->size(), 1u);  // no meshes: no reference SMD
    EXPECT_EQ((*outs)[0].file_name, "anims/walk_run_fast.smd");
    const smd::File& f = (*outs)[0].file;
    ASSERT_EQ(f.nodes.size(), 2u);
    EXPECT_EQ(f.nodes[0].name, "blender_implicit");
    ASSERT_EQ(f.skeleton.size(), 3u);
    EXPECT_NEAR(f.skeleton[1].bones[1].position.x, 1.0, 1e-6);  // linear between keys
}

// A clip whose every frame would be written for every node past model::kMaxDenseNodeFrames
// (here ten days at 30 fps), or past a lower bound the caller sets, is a located error for SMD
// and glTF, not gigabytes of frames.
TEST(SmdModel, ClipTooLongToSampleIsAnError) {
    model::Model m = model::Model::with_root("Armature");
    m.nodes.push_back({"Bone", 0, model::NodeKind::joint});
    model::Clip c;
    c.name = "forever";
    c.frame_rate = 30;
    c.duration = 10 * 86400;
    model::NodeTrack t;
    t.node = 1;
    t.translation.times = {0, c.duration};
    t.translation.values = {{0, 0, 0}, {2, 0, 0}};
    c.tracks.push_back(t);
    m.clips.push_back(c);
    Diagnostics w;
    auto smd = model_to_smd(m, w);
    ASSERT_FALSE(smd.ok());
    EXPECT_EQ(smd.error().code, "model.clip-too-long");
    EXPECT_NE(smd.error().message.find("'forever'"), std::string::npos);
    auto gltf = model_to_gltf(m, {}, w);
    ASSERT_FALSE(gltf.ok());
    EXPECT_EQ(gltf.error().code, "model.clip-too-long");
    // A long but reasonable clip (ten minutes) still converts.
    m.clips[0].duration = 600;
    EXPECT_TRUE(model_to_smd(m, w).ok());
    EXPECT_TRUE(model_to_gltf(m, {}, w).ok());
    // A caller may ask for a lower bound (18,001 frames: 36,002 node-frames in an SMD, which
    // also holds the root, 18,001 sampled in glTF) ...
    ModelToSmdOptions smd_opt;
    smd_opt.max_node_frames = 16384;
    auto short_smd = model_to_smd(m, w, smd_opt);
    ASSERT_FALSE(short_smd.ok());
    EXPECT_NE(short_smd.error().message.find("36002 node-frames"), std::string::npos)
        << short_smd.error().message;
    ModelGltfOptions gltf_opt;
    gltf_opt.max_node_frames = 16384;
    EXPECT_FALSE(model_to_gltf(m, gltf_opt, w).ok());
    smd_opt.max_node_frames = 36002;
    EXPECT_TRUE(model_to_smd(m, w, smd_opt).ok());
    // ... never a higher one.
    m.clips[0].duration = 10 * 86400;
    smd_opt.max_node_frames = std::uint64_t{1} << 40;
    EXPECT_FALSE(model_to_smd(m, w, smd_opt).ok());
    gltf_opt.max_node_frames = std::uint64_t{1} << 40;
    EXPECT_FALSE(model_to_gltf(m, gltf_opt, w).ok());
}

}  // namespace
}  // namespace lk::convert
