// The typed DMX model layer on self-built documents: field names per version, the builder's
// version-dependent output, the view, the validator, edits, and the neutral conversion.
#include <gtest/gtest.h>

#include <algorithm>

#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"

namespace lk::dmxmodel {
namespace {

TEST(DmxModelFields, NamesPerVersion) {
    EXPECT_EQ(parse_field_name("positions"), (FieldId{Semantic::position, 0}));
    EXPECT_EQ(parse_field_name("position$0"), (FieldId{Semantic::position, 0}));
    EXPECT_EQ(parse_field_name("texcoord$2"), (FieldId{Semantic::texcoord, 2}));
    EXPECT_EQ(parse_field_name("textureCoordinates"), (FieldId{Semantic::texcoord, 0}));
    EXPECT_EQ(parse_field_name("blendweights$0"), (FieldId{Semantic::joint_weights, 0}));
    EXPECT_EQ(parse_field_name("jointIndices"), (FieldId{Semantic::joint_indices, 0}));
    EXPECT_EQ(parse_field_name("cloth_enable$0").semantic, Semantic::other);
    EXPECT_EQ(parse_field_name("texcoord$x").semantic, Semantic::other);
    EXPECT_EQ(field_name(Semantic::position, 0, 18), "positions");
    EXPECT_EQ(field_name(Semantic::position, 0, 22), "position$0");
    EXPECT_EQ(field_name(Semantic::texcoord, 1, 18), "texcoord$1");
    EXPECT_EQ(field_name(Semantic::joint_weights, 0, 22), "blendweights$0");
    EXPECT_EQ(corrective_separator(18), "_");
    EXPECT_EQ(corrective_separator(22), "__");
    EXPECT_EQ(Target::parse("source1")->format_version, 18);
    EXPECT_EQ(Target::parse("binary:9/model:22")->encoding_version, 9);
    EXPECT_EQ(Target::parse("keyvalues2:1/model:1")->encoding, "keyvalues2");
    EXPECT_FALSE(Target::parse("binary:12/model:18").has_value());
}

// A skinned quad with one bone, one shape and a one-second clip, built for `target`.
dmx::Document build(const Target& target) {
    Builder b(target, "Scene", "Armature");
    b.set_root_bone("blender_implicit");
    const std::uint32_t bone = b.add_node("Bone", 0, true, {0, 0, 1}, {0, 0, 0, 1});
    const std::uint32_t dag = b.add_node("Quad", 0, false, {}, {0, 0, 0, 1});
    const std::uint32_t mesh = b.add_mesh(dag, "Quad");
    b.add_field(mesh, Semantic::position, 0,
                std::vector<dmx::Vector3>{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
                {0, 1, 2, 3});
    b.add_field(mesh, Semantic::texcoord, 0, std::vector<dmx::Vector2>{{0, 0}, {1, 1}},
                {0, 1, 1, 0});
    b.set_skin(mesh, 1, {1, 1, 1, 1},
               {b.joint_index(bone), b.joint_index(bone), b.joint_index(bone), 0});
    b.add_face_set(mesh, "models/quad", {0, 1, 2, 3, -1});
    b.add_delta(mesh, "Lift", {{Semantic::position, std::vector<dmx::Vector3>{{0, 0, 1}}, {2}}});
    ControlData c;
    c.name = "Lift";
    c.raw_controls = {"Lift"};
    b.add_control(c);
    const std::uint32_t clip = b.add_clip("Raise", 24, 0, 1);
    const double times[] = {0, 1};
    b.add_channel(clip, bone, ChannelKind::position, times,
                  std::vector<dmx::Vector3>{{0, 0, 1}, {0, 0, 2}});
    auto doc = b.finish();
    EXPECT_TRUE(doc.ok());
    return std::move(doc).value();
}

TEST(DmxModelBuilder, WritesVersionDependentParts) {
    // Source 2: semantic$index names, the model as joint 0, Time logs, float frame rate.
    {
        dmx::Document doc = build(Target::source2());
        Diagnostics w;
        auto m = Model::open(doc, w);
        ASSERT_TRUE(m.ok()) << m.error().to_string();
        EXPECT_TRUE(m->model_is_joint0);
        EXPECT_EQ(m->joint_space, JointSpace::joint_list);
        ASSERT_EQ(m->meshes.size(), 1u);
        EXPECT_NE(m->meshes[0].bind.find(Semantic::position), nullptr);
        EXPECT_EQ(m->meshes[0].bind.find(Semantic::position)->name, "position$0");
        EXPECT_TRUE(m->axes.axis_system);
        const dmx::Element& clip = doc[m->clips[0].element];
        EXPECT_NE(clip.get<float>("frameRate"), nullptr);
        EXPECT_TRUE(m->clips[0].channels[0].times->holds<std::vector<dmx::Time>>());
        Diagnostics v;
        EXPECT_EQ(validate(*m, v), 0u) << (v.empty() ? "" : v.items()[0].to_string());
        EXPECT_EQ(stats(*m).frames, 25u);
    }
    // Source 1 legacy (model 1): jointTransforms only, int logs and durationTime, int frame rate,
    // an implicit root joint standing in for the model.
    {
        dmx::Document doc = build(Target::source1_legacy());
        Diagnostics w;
        auto m = Model::open(doc, w);
        ASSERT_TRUE(m.ok());
        EXPECT_FALSE(m->model_is_joint0);
        EXPECT_EQ(m->joint_space, JointSpace::joint_transforms);
        EXPECT_EQ(m->meshes[0].bind.find(Semantic::position)->name, "positions");
        EXPECT_EQ(m->nodes[1].name, "blender_implicit");
        EXPECT_TRUE(m->clips[0].channels[0].times->holds<std::vector<std::int32_t>>());
        const dmx::Element& tf = doc[m->clips[0].time_frame];
        EXPECT_EQ(tf.get_or<std::int32_t>("durationTime", 0), 10000);
        Diagnostics v;
        EXPECT_EQ(validate(*m, v), 0u) << (v.empty() ? "" : v.items()[0].to_string());
        // Both read to the same neutral model.
        Diagnostics cw;
        auto a = convert::dmx_to_model(doc, cw);
        auto b = convert::dmx_to_model(build(Target::source2()), cw);
        ASSERT_TRUE(a.ok() && b.ok());
        EXPECT_FALSE(model::compare(*a, *b).has_value()) << *model::compare(*a, *b);
        EXPECT_TRUE(a->root_bone);
    }
}

// A skeleton without meshes or clips (an SMD with one skeleton frame and no triangles) is a
// reference: the root names the model, or Blender Source Tools reads it as an animation and fails
// on the missing animationList.
TEST(DmxModelBuilder, BareSkeletonIsAReference) {
    for (const Target& target : {Target::source1(), Target::source2()}) {
        Builder b(target, "Scene", "Armature");
        b.add_node("Bone", 0, true, {0, 0, 1}, {0, 0, 0, 1});
        auto doc = b.finish();
        ASSERT_TRUE(doc.ok());
        const dmx::Element& root = (*doc)[doc->root];
        const ElementRef* model = root.get<ElementRef>("model");
        ASSERT_NE(model, nullptr);
        EXPECT_EQ(*model, *root.get<ElementRef>("skeleton"));
        EXPECT_EQ(root.find("animationList"), nullptr);
    }
    // With a clip and no meshes it stays an animation file.
    dmx::Document anim = [] {
        Builder b(Target::source1(), "Scene", "Armature");
        const std::uint32_t bone = b.add_node("Bone", 0, true, {0, 0, 1}, {0, 0, 0, 1});
        const std::uint32_t clip = b.add_clip("Raise", 24, 0, 1);
        const double times[] = {0, 1};
        b.add_channel(clip, bone, ChannelKind::position, times,
                      std::vector<dmx::Vector3>{{0, 0, 1}, {0, 0, 2}});
        return std::move(b.finish()).value();
    }();
    EXPECT_EQ(anim[anim.root].find("model"), nullptr);
    EXPECT_NE(anim[anim.root].find("animationList"), nullptr);
}

TEST(DmxModelBuilder, WritesEveryTargetEncoding) {
    for (const char* t : {"source1-legacy", "source1", "source2", "keyvalues2:1/model:18"}) {
        SCOPED_TRACE(t);
        dmx::Document doc = build(*Target::parse(t));
        auto bytes = dmx::write(doc);
        ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
        auto back = dmx::read(*bytes);
        ASSERT_TRUE(back.ok()) << back.error().to_string();
        EXPECT_FALSE(dmx::compare_graphs(doc, *back).has_value());
    }
}

TEST(DmxModelRetarget, ConvertsVersionPartsInPlace) {
    dmx::Document doc = build(Target::source2());
    // Something no converter knows about stays.
    doc[doc.root].set("levelkitNote", "kept");
    Diagnostics w;
    auto before = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(before.ok());
    ASSERT_TRUE(retarget(doc, Target::source1_legacy(), w).ok());
    EXPECT_EQ(doc.header.format_version, 1);
    EXPECT_EQ(doc.header.encoding_version, 2);
    EXPECT_EQ(*doc[doc.root].get<std::string>("levelkitNote"), "kept");
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->joint_space, JointSpace::joint_transforms);
    EXPECT_FALSE(m->model_is_joint0);
    EXPECT_EQ(m->nodes[1].name, "blender_implicit");  // stands in for the model as joint 0
    EXPECT_EQ(m->meshes[0].bind.find(Semantic::position)->name, "positions");
    EXPECT_TRUE(m->clips[0].channels[0].times->holds<std::vector<std::int32_t>>());
    auto bytes = dmx::write(doc);
    ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
    auto after = convert::dmx_to_model(*dmx::read(*bytes), w);
    ASSERT_TRUE(after.ok());
    EXPECT_FALSE(model::compare(*before, *after).has_value()) << *model::compare(*before, *after);
    // And back to Source 2.
    ASSERT_TRUE(retarget(doc, Target::source2(), w).ok());
    auto again = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(model::compare(*before, *again).has_value());
}

// A time frame field of an unexpected type is converted as Model::open reads it before it takes
// its new name: a float "durationTime" is ticks (it came back as seconds, 10,000 times longer:
// fuzz_dmxmodel), a float "duration" is seconds, and a time-typed "durationTime" reads as no time
// under either name, so it keeps its name.
TEST(DmxModelRetarget, TimeFrameFieldsKeepTheirTimeWhateverTheirType) {
    struct Case {
        Target from, to;
        const char* field;
        dmx::Value value;
    };
    const Case cases[] = {
        {Target::source1_legacy(), Target::source2(), "durationTime", dmx::Value(1.0f)},
        {Target::source1_legacy(), Target::source2(), "durationTime", dmx::Value(dmx::Time{5})},
        {Target::source2(), Target::source1_legacy(), "duration", dmx::Value(2.5f)},
        {Target::source2(), Target::source1_legacy(), "duration", dmx::Value(std::int32_t{3})},
    };
    for (const Case& c : cases) {
        dmx::Document doc = build(c.from);
        Diagnostics w;
        auto m = Model::open(doc, w);
        ASSERT_TRUE(m.ok());
        ASSERT_FALSE(m->clips.empty());
        doc[m->clips[0].time_frame].set(c.field, c.value);
        auto before = convert::dmx_to_model(doc, w);
        ASSERT_TRUE(before.ok());
        ASSERT_TRUE(retarget(doc, c.to, w).ok());
        auto after = convert::dmx_to_model(doc, w);
        ASSERT_TRUE(after.ok());
        EXPECT_FALSE(model::compare(*before, *after).has_value())
            << c.field << ": " << *model::compare(*before, *after);
    }
}

// A field without its index array (it does not read) keeps its name when the new name's index
// array exists: renamed, it would read as a field paired with an unrelated array, and the mesh
// that did not read before would read after (fuzz_dmxmodel: 'position$0In#ices' beside a stray
// 'positionsIndices').
TEST(DmxModelRetarget, FieldWithoutIndicesIsNotPairedWithAnotherArray) {
    dmx::Document doc = build(Target::source2());
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    const ElementRef bind = m->meshes[0].bind.element;
    dmx::Attribute* idx = doc[bind].find("position$0Indices");
    ASSERT_NE(idx, nullptr);
    idx->name = doc.intern("position$0In#ices");
    doc[bind].set("positionsIndices", std::vector<std::int32_t>{0, 1, 2, 3});
    auto before = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(before.ok());
    ASSERT_TRUE(retarget(doc, Target::source1(), w).ok());
    EXPECT_TRUE(doc[bind].has("position$0"));
    EXPECT_FALSE(doc[bind].has("positions"));
    auto after = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(after.ok());
    EXPECT_FALSE(model::compare(*before, *after).has_value()) << *model::compare(*before, *after);
}

// A field whose new name is free but whose index array's new name is taken keeps both old names
// (renaming only the values left a field that no longer read: fuzz_dmxmodel).
TEST(DmxModelRetarget, FieldAndIndicesAreRenamedTogether) {
    dmx::Document doc = build(Target::source2());
    Diagnostics w;
    auto before = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(before.ok());
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    const ElementRef bind = m->meshes[0].bind.element;
    doc[bind].set("positionsIndices", true);  // an unrelated attribute in the way
    ASSERT_TRUE(retarget(doc, Target::source1(), w).ok());
    EXPECT_TRUE(doc[bind].has("position$0"));
    EXPECT_TRUE(doc[bind].has("position$0Indices"));
    EXPECT_FALSE(doc[bind].has("positions"));
    EXPECT_TRUE(doc[bind].has("textureCoordinates"));  // the other fields still move
    bool warned = false;
    for (const Diagnostic& d : w.items()) warned = warned || d.code == "dmxmodel.retarget-field";
    EXPECT_TRUE(warned);
    auto bytes = dmx::write(doc);
    ASSERT_TRUE(bytes.ok());
    auto after = convert::dmx_to_model(*dmx::read(*bytes), w);
    ASSERT_TRUE(after.ok());
    EXPECT_FALSE(model::compare(*before, *after).has_value()) << *model::compare(*before, *after);
}

// A vertexFormat entry whose values are missing keeps its name: renamed, it could come to name
// an array that the source did not mean (fuzz_dmxmodel: a mesh that did not read before the
// conversion read after it).
TEST(DmxModelRetarget, ListedFieldWithoutValuesStays) {
    dmx::Document doc = build(Target::source2());
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    const ElementRef bind = m->meshes[0].bind.element;
    // "texcoord$0" stays listed, but its arrays go by other names.
    doc[bind].find("texcoord$0")->name = doc.intern("uvs");
    doc[bind].find("texcoord$0Indices")->name = doc.intern("uvsIndices");
    auto before = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(before.ok());
    ASSERT_TRUE(retarget(doc, Target::source1(), w).ok());
    const auto& names = doc[bind].find("vertexFormat")->value.get<std::vector<std::string>>();
    EXPECT_NE(std::find(names.begin(), names.end(), "texcoord$0"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "positions"), names.end());
    auto bytes = dmx::write(doc);
    ASSERT_TRUE(bytes.ok());
    auto after = convert::dmx_to_model(*dmx::read(*bytes), w);
    ASSERT_TRUE(after.ok());
    EXPECT_FALSE(model::compare(*before, *after).has_value()) << *model::compare(*before, *after);
}

// Source 1 names the up axis by a letter: a negative up axis loses its sign there, with a
// warning, whether the model is written anew or converted in place; Source 2 keeps it.
TEST(DmxModelRetarget, NegativeUpAxisIsWarnedWhereTheTargetCannotHoldIt) {
    dmx::Document doc = build(Target::source2());
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    doc[*doc[m->nodes[0].element].get<ElementRef>("axisSystem")].set("upAxis", std::int32_t{-3});
    auto model = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(model.ok());
    ASSERT_EQ(static_cast<int>(model->up_axis), -3);
    auto warned = [](const Diagnostics& d) {
        for (const Diagnostic& x : d.items()) {
            if (x.code == "dmxmodel.up-axis-sign") return true;
        }
        return false;
    };
    for (const bool in_place : {false, true}) {
        Diagnostics w1, w2;
        dmx::Document s1 = doc.clone();
        if (in_place) {
            ASSERT_TRUE(retarget(s1, Target::source1(), w1).ok());
        } else {
            s1 = std::move(convert::model_to_dmx(*model, Target::source1(), w1)).value();
        }
        EXPECT_TRUE(warned(w1)) << in_place;
        auto back = convert::dmx_to_model(s1, w1);
        ASSERT_TRUE(back.ok());
        EXPECT_EQ(static_cast<int>(back->up_axis), 3);
        auto s2 = convert::model_to_dmx(*model, Target::source2(), w2);
        ASSERT_TRUE(s2.ok());
        EXPECT_FALSE(warned(w2));
        EXPECT_EQ(static_cast<int>(convert::dmx_to_model(*s2, w2)->up_axis), -3);
    }
}

// A model whose "axisSystem" name appears twice reads the first; converted in place to a target
// without an axis system it keeps its up axis (fuzz_dmxmodel: the second, a DmeTransform, was
// read as the axis system once the first was removed, and the up axis came back Z for Y).
TEST(DmxModelRetarget, ARepeatedAxisSystemDoesNotReplaceTheRemovedOne) {
    dmx::Document doc = build(Target::source2());
    const ElementRef other = doc.add_element("DmeTransform", "axisSystem");
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    dmx::Element& model_el = doc[m->nodes[0].element];
    doc[*model_el.get<ElementRef>("axisSystem")].set("upAxis", std::int32_t{2});
    dmx::Attribute dup = *model_el.find("axisSystem");
    dup.value = other;
    model_el.attributes.push_back(dup);
    auto before = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(before.ok());
    ASSERT_EQ(static_cast<int>(before->up_axis), 2);
    for (const Target& t : {Target::source1(), Target::source1_legacy()}) {
        dmx::Document copy = doc.clone();
        Diagnostics cw;
        ASSERT_TRUE(retarget(copy, t, cw).ok());
        auto bytes = dmx::write(copy);
        ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
        auto after = convert::dmx_to_model(*dmx::read(*bytes), cw);
        ASSERT_TRUE(after.ok());
        EXPECT_EQ(static_cast<int>(after->up_axis), 2) << t.format_version;
        EXPECT_FALSE(model::compare(*before, *after).has_value())
            << *model::compare(*before, *after);
    }
}

// A corrective's name follows the target's separator only where the element is nothing but a
// delta: one that is also a dag (or any other referenced part) keeps its name, so the dag does
// not change with it (fuzz_dmxmodel: dag 'Lift_Twist' came back as 'Lift__Twist'); a warning
// says so where a name was due to change.
TEST(DmxModelRetarget, ACorrectiveThatIsAlsoADagKeepsItsName) {
    Builder b(Target::source1(), "Scene", "Armature");
    const std::uint32_t dag = b.add_node("Quad", 0, false, {}, {0, 0, 0, 1});
    const std::uint32_t mesh = b.add_mesh(dag, "Quad");
    b.add_field(mesh, Semantic::position, 0,
                std::vector<dmx::Vector3>{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}, {0, 1, 2});
    b.add_face_set(mesh, "models/tri", {0, 1, 2, -1});
    for (const char* n : {"Lift", "Twist", "Lift_Twist", "Twist_Lift"}) {
        b.add_delta(mesh, n, {{Semantic::position, std::vector<dmx::Vector3>{{0, 0, 1}}, {2}}});
    }
    for (const char* n : {"Lift", "Twist"}) {
        ControlData c;
        c.name = n;
        c.raw_controls = {n};
        b.add_control(c);
    }
    auto built = b.finish();
    ASSERT_TRUE(built.ok());
    dmx::Document doc = std::move(built).value();
    Diagnostics w;
    auto view = Model::open(doc, w);
    ASSERT_TRUE(view.ok());
    const ElementRef shared = view->meshes[0].deltas[2].element;
    ASSERT_EQ(doc[shared].name, "Lift_Twist");
    // The delta 'Lift' (a control's own shape, no corrective) is shared too: nothing to rename.
    auto& kids = doc[view->nodes[0].element].find("children")->value.get<std::vector<ElementRef>>();
    kids.push_back(shared);
    kids.push_back(view->meshes[0].deltas[0].element);
    auto before = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(before.ok());

    Diagnostics rw;
    ASSERT_TRUE(retarget(doc, Target::source2(), rw).ok());
    EXPECT_EQ(doc[shared].name, "Lift_Twist");
    EXPECT_EQ(doc[view->meshes[0].deltas[3].element].name, "Twist__Lift");
    EXPECT_EQ(std::count_if(rw.items().begin(), rw.items().end(),
                            [](const Diagnostic& d) { return d.code == "dmxmodel.shared-delta"; }),
              1);
    auto after = convert::dmx_to_model(*dmx::read(*dmx::write(doc)), w);
    ASSERT_TRUE(after.ok());
    EXPECT_FALSE(model::compare(*before, *after).has_value()) << *model::compare(*before, *after);
}

// A dag whose shape cannot be read carries nothing in the model: it is a bone, decided on what
// the model carries, so writing it (bare) and reading it again gives the same model
// (fuzz_dmxmodel: kind 2 vs 1).
TEST(DmxModelRetarget, DagWithAnUnreadableShapeIsABoneBothWays) {
    dmx::Document doc = build(Target::source2());
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    doc[m->meshes[0].bind.element].find("position$0")->name = doc.intern("unknown");
    auto model = convert::dmx_to_model(doc, w);
    ASSERT_TRUE(model.ok());
    EXPECT_TRUE(model->meshes.empty());
    const std::int32_t quad = model->find_node("Quad");
    ASSERT_GE(quad, 0);
    EXPECT_EQ(model->nodes[std::size_t(quad)].kind, model::NodeKind::joint);
    for (const Target& t : {Target::source1(), Target::source2()}) {
        auto out = convert::model_to_dmx(*model, t, w);
        ASSERT_TRUE(out.ok());
        auto back = convert::dmx_to_model(*dmx::read(*dmx::write(*out)), w);
        ASSERT_TRUE(back.ok());
        EXPECT_FALSE(model::compare(*model, *back).has_value()) << *model::compare(*model, *back);
    }
}

TEST(DmxModelValidate, ReportsProblemsWithPaths) {
    dmx::Document doc = build(Target::source2());
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    // Break things: an index past the values, weights that do not add up, a face-vertex out of
    // range, a delta index out of range, a channel aimed at a non-transform.
    dmx::Element& vd = doc[m->meshes[0].bind.element];
    vd.find("texcoord$0Indices")->value.get<std::vector<std::int32_t>>()[3] = 9;
    vd.find("blendweights$0")->value.get<std::vector<float>>()[1] = 0.5f;
    doc[m->meshes[0].face_sets[0].element]
        .find("faces")
        ->value.get<std::vector<std::int32_t>>()[1] = 4;
    doc[m->meshes[0].deltas[0].element]
        .find("position$0Indices")
        ->value.get<std::vector<std::int32_t>>()[0] = 4;
    doc[m->clips[0].channels[0].element].set("toElement", m->meshes[0].element);
    auto again = Model::open(doc, w);
    ASSERT_TRUE(again.ok());
    Diagnostics v;
    EXPECT_EQ(validate(*again, v), 4u);
    auto has = [&](const char* code, const char* path) {
        for (const Diagnostic& d : v.items()) {
            if (d.code == code && d.path.find(path) != std::string::npos) return true;
        }
        return false;
    };
    EXPECT_TRUE(has("dmxmodel.index-range", "meshes[0] 'Quad'/bind/texcoord$0Indices[3]"));
    EXPECT_TRUE(has("dmxmodel.weight-sum", "blendweights$0[1]"));
    EXPECT_TRUE(has("dmxmodel.face-index", "faceSets[0] 'models/quad'/faces[1]"));
    EXPECT_TRUE(has("dmxmodel.index-range", "deltaStates[0] 'Lift'/position$0Indices[0]"));
    EXPECT_TRUE(has("dmxmodel.channel-target", "channels[0]"));
}

TEST(DmxModelEdit, RenameAndMove) {
    dmx::Document doc = build(Target::source1());
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    ASSERT_TRUE(rename_material(doc, m->meshes[0].face_sets[0].material, "models/other").ok());
    EXPECT_EQ(*doc[m->meshes[0].face_sets[0].material].get<std::string>("mtlName"), "models/other");
    std::uint32_t bone = 0;
    for (std::uint32_t i = 0; i < m->nodes.size(); ++i) {
        if (m->nodes[i].name == "Bone") bone = i;
    }
    ASSERT_TRUE(set_transform(doc, *m, bone, {5, 0, 0}, {0, 0, 0, 1}).ok());
    Diagnostics cw;
    auto n = convert::dmx_to_model(doc, cw);
    ASSERT_TRUE(n.ok());
    const auto b = static_cast<std::size_t>(n->find_node("Bone"));
    EXPECT_EQ(n->nodes[b].pose.translation.x, 5.0f);
    EXPECT_EQ(n->nodes[b].bind.translation.x, 5.0f);
    EXPECT_EQ(n->materials[0].name, "models/other");
}

TEST(DmxModelOpen, RejectsWhatIsNotAModel) {
    dmx::Document doc;
    doc.root = doc.add_element("DmElement", "root");
    doc[doc.root].set("world", dmx::ElementRef::null());
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().code, "dmxmodel.not-a-model");
    doc[doc.root].set("skeleton", std::int32_t{3});
    auto bad = Model::open(doc, w);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().path, "root/skeleton");
}

TEST(DmxModelOpen, SurvivesCyclesAndSharedDags) {
    dmx::Document doc;
    doc.root = doc.add_element("DmElement", "root");
    const auto model = doc.add_element("DmeModel", "m");
    const auto a = doc.add_element("DmeJoint", "a");
    const auto b = doc.add_element("DmeJoint", "b");
    doc[doc.root].set("skeleton", model);
    doc[model].set("children", std::vector<dmx::ElementRef>{a, b});
    doc[a].set("children", std::vector<dmx::ElementRef>{b, model});  // shared + cycle
    doc[b].set("children", std::vector<dmx::ElementRef>{a});
    Diagnostics w;
    auto m = Model::open(doc, w);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->nodes.size(), 3u);
    EXPECT_FALSE(w.empty());
    Diagnostics cw;
    auto n = convert::dmxmodel_to_model(*m, cw);
    ASSERT_TRUE(n.ok());
    EXPECT_TRUE(model::check(*n).empty());
}

}  // namespace
}  // namespace lk::dmxmodel
