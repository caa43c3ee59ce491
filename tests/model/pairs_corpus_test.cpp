// The DMX/SMD pairs Blender Source Tools exported from the same scenes (its test expectations):
// DMX -> SMD equals the SMD in content, and SMD -> DMX -> SMD gives the SMD back, through both a
// Source 1 and a Source 2 DMX. Also the Reactive Drop animation pairs (frame counts).
#include <gtest/gtest.h>

#include <cstdio>

#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/convert/smd_model.hpp"
#include "model/model_support.hpp"

namespace lk {
namespace {

struct Pair {
    const char* dmx;
    const char* smd;
    const char* vta;     // or null
    const char* output;  // which written SMD holds the content ("" = the reference)
    // BST of 2014 (commit 26bfa91) split square quads 1-3; later versions split them 0-2.
    model::QuadSplit split = model::QuadSplit::first;
    // A curve has no UV map: BST unwraps it anew for every export, so the DMX and the SMD of the
    // same curve carry different UVs (compared everywhere else).
    bool same_uvs = true;
};

constexpr const char* kPrefix = "Artfunkel-BlenderSourceTools__Tests__ExpectedResults__";

const Pair kPairs[] = {
    {"ActionFilter__X_Axis.dmx", "ActionFilter__X_Axis.smd", nullptr, "anims/X_Axis.smd"},
    {"Armature_NoBones__Cube.dmx", "Armature_NoBones__Cube.smd", nullptr, ""},
    {"Cube_Armature__Cube.dmx", "Cube_Armature__Cube.smd", nullptr, ""},
    {"Cube_Armature__Cube_26bfa91.dmx", "Cube_Armature__Cube_26bfa91.smd", nullptr, "",
     model::QuadSplit::second},
    {"Cube_NoArmature__Cube.dmx", "Cube_NoArmature__Cube.smd", "Cube_NoArmature__Cube.vta", ""},
    {"Cube_NoArmature__Cube_26bfa91.dmx", "Cube_NoArmature__Cube_26bfa91.smd", nullptr, "",
     model::QuadSplit::second},
    {"Curve_Armature__BezierCurve.dmx", "Curve_Armature__BezierCurve.smd", nullptr, "",
     model::QuadSplit::first, false},
    {"Curve_NoArmature__BezierCurve.dmx", "Curve_NoArmature__BezierCurve.smd", nullptr, "",
     model::QuadSplit::first, false},
};

std::string load_text(const std::string& path) {
    auto bytes = read_file(path);
    if (!bytes) return {};
    return std::string(as_text(bytes.value()));
}

const smd::File* pick(const std::vector<convert::SmdOutput>& outs, const std::string& name,
                      const char* output) {
    const std::string want = *output ? std::string(output) : name + ".smd";
    for (const auto& o : outs) {
        if (o.file_name == want) return &o.file;
    }
    return nullptr;
}

TEST(ModelPairs, BlenderSourceToolsDmxGivesItsSmd) {
    LK_REQUIRE_CORPUS();
    std::size_t equal = 0;
    for (const Pair& p : kPairs) {
        const std::string dmx_path = test::corpus_model_path(std::string(kPrefix) + p.dmx);
        SCOPED_TRACE(p.dmx);
        auto bytes = read_file(dmx_path);
        ASSERT_TRUE(bytes.ok());
        auto doc = dmx::read(*bytes);
        ASSERT_TRUE(doc.ok());
        Diagnostics w;
        auto m = convert::dmx_to_model(*doc, w);
        ASSERT_TRUE(m.ok()) << m.error().to_string();
        convert::ModelToSmdOptions opt;
        opt.base_name = "out";
        opt.quad_split = p.split;
        auto outs = convert::model_to_smd(*m, w, opt);
        ASSERT_TRUE(outs.ok()) << outs.error().to_string();
        const smd::File* got = pick(*outs, "out", p.output);
        ASSERT_NE(got, nullptr);
        Diagnostics sw;
        auto want = smd::read(load_text(test::corpus_model_path(std::string(kPrefix) + p.smd)), sw);
        ASSERT_TRUE(want.ok()) << want.error().to_string();
        test::SmdTolerance tol;
        tol.uvs = p.same_uvs;
        if (auto diff = test::compare_smd(*want, *got, tol)) {
            ADD_FAILURE() << *diff << "\n" << smd::write(*got);
        } else {
            ++equal;
        }
    }
    std::printf(
        "[model pairs] %zu/%zu Blender Source Tools DMX files convert to their SMD "
        "(bones, rest pose, triangles, weights, frames within 1e-4; UVs within 1e-5 "
        "but for the 2 curves, whose UVs BST unwrapped anew per export)\n",
        equal, std::size(kPairs));
}

TEST(ModelPairs, SmdThroughDmxGivesTheSmdBack) {
    LK_REQUIRE_CORPUS();
    std::size_t equal = 0, runs = 0;
    for (const Pair& p : kPairs) {
        SCOPED_TRACE(p.smd);
        Diagnostics w;
        auto ref = smd::read(load_text(test::corpus_model_path(std::string(kPrefix) + p.smd)), w);
        ASSERT_TRUE(ref.ok()) << ref.error().to_string();
        std::optional<smd::File> vta;
        if (p.vta) {
            auto v = smd::read(load_text(test::corpus_model_path(std::string(kPrefix) + p.vta)), w);
            ASSERT_TRUE(v.ok()) << v.error().to_string();
            vta = std::move(v).value();
        }
        convert::SmdToModelOptions so;
        so.name = *p.output ? "X_Axis" : "Cube";
        so.frame_rate = 24;
        auto m = convert::smd_to_model(*ref, vta ? &*vta : nullptr, w, so);
        ASSERT_TRUE(m.ok()) << m.error().to_string();
        for (const auto& target : {dmxmodel::Target::source1(), dmxmodel::Target::source2(),
                                   dmxmodel::Target::source1_legacy()}) {
            SCOPED_TRACE(target.format_version);
            auto doc = convert::model_to_dmx(*m, target, w);
            ASSERT_TRUE(doc.ok()) << doc.error().to_string();
            auto bytes = dmx::write(*doc);
            ASSERT_TRUE(bytes.ok());
            auto back = dmx::read(*bytes);
            ASSERT_TRUE(back.ok());
            auto m2 = convert::dmx_to_model(*back, w);
            ASSERT_TRUE(m2.ok()) << m2.error().to_string();
            convert::ModelToSmdOptions opt;
            opt.base_name = "out";
            auto outs = convert::model_to_smd(*m2, w, opt);
            ASSERT_TRUE(outs.ok());
            const smd::File* got = pick(*outs, "out", p.output);
            ASSERT_NE(got, nullptr);
            ++runs;
            if (auto diff = test::compare_smd(*ref, *got)) {
                ADD_FAILURE() << *diff << "\n" << smd::write(*got);
            } else {
                ++equal;
            }
            if (vta) {
                const smd::File* got_vta = nullptr;
                for (const auto& o : *outs) {
                    if (o.file_name == "out.vta") got_vta = &o.file;
                }
                ASSERT_NE(got_vta, nullptr);
                // Shapes keep their vertices and positions (normals of a shape are BST's
                // recomputed ones; the DMX carries normal deltas, compared when present).
                ASSERT_EQ(got_vta->vertex_animation.size(), vta->vertex_animation.size());
                for (std::size_t k = 0; k < vta->vertex_animation.size(); ++k) {
                    const auto& a = vta->vertex_animation[k];
                    const auto& b = got_vta->vertex_animation[k];
                    ASSERT_EQ(a.vertices.size(), b.vertices.size()) << "frame " << k;
                    for (std::size_t i = 0; i < a.vertices.size(); ++i) {
                        EXPECT_EQ(a.vertices[i].index, b.vertices[i].index);
                        EXPECT_NEAR(a.vertices[i].position.z, b.vertices[i].position.z, 1e-4);
                    }
                }
            }
        }
    }
    std::printf(
        "[model pairs] %zu/%zu SMD -> DMX (binary 5/18, 9/22, 2/1) -> SMD runs give the "
        "SMD back in content\n",
        equal, runs);
}

// Valve's own exports of the marine animations as DMX and SMD (vsDmxIO): the frame counts agree;
// the poses are not the same export (the SMDs list helper bones the DMX skeletons lack and some
// frames were re-animated), so only the share of equal bone poses is reported.
TEST(ModelPairs, ReactiveDropAnimationsMatchTheirSmd) {
    LK_REQUIRE_CORPUS();
    const char* prefix =
        "ReactiveDrop-reactivedrop_public_src__contentsrc__modelsrc__swarm__marine__";
    const char* names[] = {"Aim_9_directions", "RunN", "WalkN_Aim", "lowcover_aim_smg1"};
    std::size_t pairs = 0, frames = 0, poses = 0, same = 0;
    for (const char* name : names) {
        SCOPED_TRACE(name);
        auto bytes = read_file(
            test::corpus_model_path(fmt::format("{}dmx__animation__{}.dmx", prefix, name)));
        const std::string text =
            load_text(test::corpus_model_path(fmt::format("{}{}.smd", prefix, name)));
        if (!bytes || text.empty()) continue;
        auto doc = dmx::read(*bytes);
        ASSERT_TRUE(doc.ok());
        Diagnostics w;
        auto m = convert::dmx_to_model(*doc, w);
        ASSERT_TRUE(m.ok());
        ASSERT_EQ(m->clips.size(), 1u);
        const smd::File got = convert::animation_smd(*m, m->clips[0]);
        auto want = smd::read(text, w);
        ASSERT_TRUE(want.ok()) << want.error().to_string();
        ASSERT_EQ(got.skeleton.size(), want->skeleton.size());
        ++pairs;
        frames += got.skeleton.size();
        for (std::size_t k = 0; k < got.skeleton.size(); ++k) {
            for (const smd::BonePose& g : got.skeleton[k].bones) {
                const std::string& bone = got.nodes[static_cast<std::size_t>(g.bone)].name;
                for (const smd::BonePose& x : want->skeleton[k].bones) {
                    const std::int32_t i = want->node_index(x.bone);
                    if (i < 0 || want->nodes[static_cast<std::size_t>(i)].name != bone) continue;
                    const double angle = model::angle_between(test::detail::euler_quat(g.rotation),
                                                              test::detail::euler_quat(x.rotation));
                    if (test::detail::near3(g.position, x.position, 1e-4) && angle <= 1e-4) {
                        ++same;
                    }
                    ++poses;
                }
            }
        }
    }
    std::printf(
        "[model pairs] %zu Reactive Drop DMX animations give their SMD's %zu frames; "
        "%zu of %zu bone poses (bones in both) equal within 1e-4\n",
        pairs, frames, same, poses);
}

}  // namespace
}  // namespace lk
