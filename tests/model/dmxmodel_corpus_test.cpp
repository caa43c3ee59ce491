// DMX models of the corpus: every one reads into the typed model, writes back byte-identical,
// takes edits, converts to the neutral model and re-targets to Source 1 / Source 2.
#include <gtest/gtest.h>

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
        if (out.value() == f.bytes || (f.doc.container.gzip && out.value() == f.bytes)) {
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
        "joints, %zu shapes, %zu controllers, %zu clips, %zu frames)\n",
        opened, files.size(), identical, converted, total.meshes, total.vertices, total.faces,
        total.joints, total.shapes, total.controllers, total.clips, total.frames);
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

}  // namespace
}  // namespace lk
