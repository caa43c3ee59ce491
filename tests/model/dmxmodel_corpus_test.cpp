// DMX models of the corpus: every one reads into the typed model, writes back byte-identical,
// takes edits, converts to the neutral model and re-targets to Source 1 / Source 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"
#include "model/model_support.hpp"

namespace lk {
namespace {

std::string first_error(const Diagnostics& d) {
    for (const Diagnostic& x : d.items()) {
        if (x.severity == Severity::error) return x.to_string();
    }
    return {};
}

TEST(DmxModelCorpus, EveryModelReadsAndWritesBackByteIdentical) {
    LK_REQUIRE_CORPUS();
    const auto files = test::model_corpus();
    ASSERT_FALSE(files.empty());
    std::size_t opened = 0, identical = 0, converted = 0;
    std::size_t validation_errors = 0, validation_warnings = 0;
    dmxmodel::Stats total;
    for (const auto& f : files) {
        SCOPED_TRACE(f.path.filename().string());
        Diagnostics w;
        auto view = dmxmodel::Model::open(f.doc, w);
        if (!view) {
            ADD_FAILURE() << view.error().to_string();
            continue;
        }
        ++opened;
        Diagnostics findings;
        const std::size_t errors = dmxmodel::validate(*view, findings);
        EXPECT_EQ(errors, 0u) << first_error(findings);
        validation_errors += errors;
        validation_warnings += findings.count(Severity::warning);
        const dmxmodel::Stats s = dmxmodel::stats(*view);
        total.meshes += s.meshes;
        total.vertices += s.vertices;
        total.faces += s.faces;
        total.joints += s.joints;
        total.shapes += s.shapes;
        total.controllers += s.controllers;
        total.clips += s.clips;
        total.frames += s.frames;
        auto out = dmx::write(view->doc());
        ASSERT_TRUE(out.ok());
        if (out.value() == f.bytes) {
            ++identical;
        } else {
            ADD_FAILURE() << "write-back differs";
        }
        auto m = convert::dmxmodel_to_model(*view, w);
        if (!m) {
            ADD_FAILURE() << m.error().to_string();
            continue;
        }
        const auto problems = model::check(*m);
        EXPECT_TRUE(problems.empty()) << problems.front();
        if (problems.empty()) ++converted;
    }
    std::printf(
        "[dmxmodel corpus] %zu/%zu models open, %zu byte-identical write-back, %zu "
        "converted to the neutral model (%zu meshes, %zu vertices, %zu faces, %zu "
        "joints, %zu shapes, %zu controllers, %zu clips, %zu frames); validator: %zu errors, "
        "%zu warnings\n",
        opened, files.size(), identical, converted, total.meshes, total.vertices, total.faces,
        total.joints, total.shapes, total.controllers, total.clips, total.frames, validation_errors,
        validation_warnings);
}

// Attributes that differ between two documents of the same elements: "element[i].attr".
std::vector<std::string> differences(const dmx::Document& a, const dmx::Document& b) {
    std::vector<std::string> out;
    if (a.size() != b.size()) return {"element count"};
    for (std::size_t i = 0; i < a.size(); ++i) {
        const dmx::Element &x = a.elements()[i], &y = b.elements()[i];
        if (x.name != y.name) out.push_back(fmt::format("element[{}].name", i));
        if (x.type.str() != y.type.str()) out.push_back(fmt::format("element[{}].type", i));
        if (x.attributes.size() != y.attributes.size()) {
            out.push_back(fmt::format("element[{}].attributes", i));
            continue;
        }
        for (std::size_t k = 0; k < x.attributes.size(); ++k) {
            if (x.attributes[k].name.str() != y.attributes[k].name.str() ||
                !(x.attributes[k].value == y.attributes[k].value)) {
                out.push_back(fmt::format("element[{}].{}", i, x.attributes[k].name.str()));
            }
        }
    }
    return out;
}

TEST(DmxModelCorpus, EditsReReadWithExactlyThatChange) {
    LK_REQUIRE_CORPUS();
    const auto files = test::model_corpus();
    std::size_t renamed = 0, moved = 0;
    for (const auto& f : files) {
        SCOPED_TRACE(f.path.filename().string());
        Diagnostics w;
        auto base = convert::dmx_to_model(f.doc, w);
        ASSERT_TRUE(base.ok());

        // Rename the first material.
        {
            dmx::Document doc = f.doc.clone();
            auto view = dmxmodel::Model::open(doc, w);
            ASSERT_TRUE(view.ok());
            if (!view->meshes.empty() && !view->meshes[0].face_sets.empty() &&
                !view->meshes[0].face_sets[0].material.is_null()) {
                const dmx::ElementRef mat = view->meshes[0].face_sets[0].material;
                const std::string old(view->meshes[0].face_sets[0].material_name);
                ASSERT_TRUE(dmxmodel::rename_material(doc, mat, "levelkit/renamed").ok());
                auto bytes = dmx::write(doc);
                ASSERT_TRUE(bytes.ok());
                auto back = dmx::read(*bytes);
                ASSERT_TRUE(back.ok());
                // In the datamodel: only the material's name attributes changed.
                for (const std::string& d : differences(f.doc, *back)) {
                    EXPECT_TRUE(d == fmt::format("element[{}].mtlName", mat.index) ||
                                d == fmt::format("element[{}].name", mat.index))
                        << d;
                }
                // In the model: that material, nothing else.
                model::Model want = *base;
                for (auto& m : want.materials) {
                    if (m.name == old) m.name = "levelkit/renamed";
                }
                auto got = convert::dmx_to_model(*back, w);
                ASSERT_TRUE(got.ok());
                const auto diff = model::compare(want, *got);
                EXPECT_FALSE(diff.has_value()) << *diff;
                renamed += !diff.has_value();
            }
        }
        // Move the last joint 1 unit along x (transform and bind pose); the first may be BST's
        // stand-in for the model, which moving would turn into a bone of its own.
        {
            dmx::Document doc = f.doc.clone();
            auto view = dmxmodel::Model::open(doc, w);
            ASSERT_TRUE(view.ok());
            std::uint32_t node = 0;
            for (std::uint32_t i = 1; i < view->nodes.size(); ++i) {
                if (view->nodes[i].kind == dmxmodel::NodeKind::joint) node = i;
            }
            if (node == 0) continue;
            const dmx::Element& t = doc[view->nodes[node].transform];
            dmx::Vector3 p = t.get_or<dmx::Vector3>("position", {});
            const dmx::Quaternion q = t.get_or<dmx::Quaternion>("orientation", {0, 0, 0, 1});
            p.x += 1;
            ASSERT_TRUE(dmxmodel::set_transform(doc, *view, node, p, q).ok());
            auto bytes = dmx::write(doc);
            ASSERT_TRUE(bytes.ok());
            auto back = dmx::read(*bytes);
            ASSERT_TRUE(back.ok());
            // The dag's transform and its bind pose entry (which takes the orientation too).
            for (const std::string& d : differences(f.doc, *back)) {
                EXPECT_TRUE(d.find(".position") != std::string::npos ||
                            d.find(".orientation") != std::string::npos)
                    << d;
            }
            model::Model want = *base;
            const std::int32_t n = want.find_node(view->nodes[node].name);
            ASSERT_GE(n, 0);
            model::Node& wn = want.nodes[static_cast<std::size_t>(n)];
            wn.pose.translation = {p.x, p.y, p.z};
            if (!view->bind_pose.is_null() &&
                std::count(view->bind_pose_nodes.begin(), view->bind_pose_nodes.end(),
                           static_cast<std::int32_t>(node)) > 0) {
                wn.bind.translation = {p.x, p.y, p.z};
                wn.bind.rotation = {q.x, q.y, q.z, q.w};
            } else {
                wn.bind = wn.pose;
            }
            auto got = convert::dmx_to_model(*back, w);
            ASSERT_TRUE(got.ok());
            const auto diff = model::compare(want, *got);
            EXPECT_FALSE(diff.has_value()) << *diff;
            moved += !diff.has_value();
        }
    }
    std::printf(
        "[dmxmodel edits] material renamed in %zu models, joint moved in %zu models: each "
        "re-reads with exactly that change\n",
        renamed, moved);
}

TEST(DmxModelCorpus, RetargetedModelsReReadEqualAndValidate) {
    LK_REQUIRE_CORPUS();
    const auto files = test::model_corpus();
    ASSERT_FALSE(files.empty());
    const std::pair<const char*, dmxmodel::Target> targets[] = {
        {"binary 5 / model 18", dmxmodel::Target::source1()},
        {"binary 9 / model 22", dmxmodel::Target::source2()},
        {"binary 2 / model 1", dmxmodel::Target::source1_legacy()},
    };
    std::size_t equal = 0, valid = 0, written = 0;
    for (const auto& f : files) {
        Diagnostics w;
        auto m = convert::dmx_to_model(f.doc, w);
        ASSERT_TRUE(m.ok()) << f.path.filename() << ": " << m.error().to_string();
        for (const auto& [label, target] : targets) {
            SCOPED_TRACE(f.path.filename().string() + " -> " + label);
            auto doc = convert::model_to_dmx(*m, target, w);
            ASSERT_TRUE(doc.ok()) << doc.error().to_string();
            auto bytes = dmx::write(*doc);
            ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
            ++written;
            auto back = dmx::read(*bytes);
            ASSERT_TRUE(back.ok()) << back.error().to_string();
            Diagnostics w2;
            auto view = dmxmodel::Model::open(*back, w2);
            ASSERT_TRUE(view.ok()) << view.error().to_string();
            Diagnostics problems;
            if (dmxmodel::validate(*view, problems) == 0) {
                ++valid;
            } else {
                ADD_FAILURE() << "validator: " << first_error(problems);
            }
            auto m2 = convert::dmxmodel_to_model(*view, w2);
            ASSERT_TRUE(m2.ok()) << m2.error().to_string();
            if (auto diff = model::compare(*m, *m2)) {
                ADD_FAILURE() << "re-read differs: " << *diff;
            } else {
                ++equal;
            }
        }
    }
    std::printf(
        "[dmxmodel retarget] %zu models x 3 targets: %zu written, %zu re-read equal, %zu "
        "pass the validator\n",
        files.size(), written, equal, valid);
}

// The same, converting the original documents in place (unknown attributes stay).
TEST(DmxModelCorpus, RetargetedInPlaceReReadEqualAndValidate) {
    LK_REQUIRE_CORPUS();
    const auto files = test::model_corpus();
    ASSERT_FALSE(files.empty());
    const std::pair<const char*, dmxmodel::Target> targets[] = {
        {"binary 5 / model 18", dmxmodel::Target::source1()},
        {"binary 9 / model 22", dmxmodel::Target::source2()},
        {"binary 2 / model 1", dmxmodel::Target::source1_legacy()},
    };
    std::size_t equal = 0, valid = 0, written = 0;
    for (const auto& f : files) {
        Diagnostics w;
        auto m = convert::dmx_to_model(f.doc, w);
        ASSERT_TRUE(m.ok());
        for (const auto& [label, target] : targets) {
            SCOPED_TRACE(f.path.filename().string() + " -> " + label);
            dmx::Document doc = f.doc.clone();
            auto r = dmxmodel::retarget(doc, target, w);
            ASSERT_TRUE(r.ok()) << r.error().to_string();
            auto bytes = dmx::write(doc);
            ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
            ++written;
            auto back = dmx::read(*bytes);
            ASSERT_TRUE(back.ok()) << back.error().to_string();
            EXPECT_EQ(back->header.format_version, target.format_version);
            Diagnostics w2;
            auto view = dmxmodel::Model::open(*back, w2);
            ASSERT_TRUE(view.ok()) << view.error().to_string();
            Diagnostics problems;
            if (dmxmodel::validate(*view, problems) == 0) {
                ++valid;
            } else {
                ADD_FAILURE() << "validator: " << first_error(problems);
            }
            auto m2 = convert::dmxmodel_to_model(*view, w2);
            ASSERT_TRUE(m2.ok());
            if (auto diff = model::compare(*m, *m2)) {
                ADD_FAILURE() << "re-read differs: " << *diff;
            } else {
                ++equal;
            }
        }
    }
    std::printf(
        "[dmxmodel retarget in place] %zu models x 3 targets: %zu written, %zu re-read "
        "equal, %zu pass the validator\n",
        files.size(), written, equal, valid);
}

}  // namespace
}  // namespace lk
