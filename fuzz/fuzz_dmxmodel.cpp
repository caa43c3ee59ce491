// DMX models: any DMX that reads is opened as a model, validated, measured and converted to the
// neutral model, which must be consistent; that model written at the Source 1 and Source 2
// targets, and the document converted to them in place, must read back to an equal model; the
// model converts on to SMD.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/convert/smd_model.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"

namespace {
// Stops with the difference printed, so a CI log says what was lost.
void expect_same(const lk::model::Model& a, lk::model::Model& b, const lk::Diagnostics& w,
                 const char* path) {
    // A childless joint "root"/"blender_implicit" at identity that the rewrite puts first in
    // the joint list reads back as the model's own bone (the documented BST convention).
    if (a.root_bone != b.root_bone) return;
    // A target without an axis system keeps the up axis but not its sign, and says so.
    for (const lk::Diagnostic& d : w.items()) {
        if (d.code == "dmxmodel.up-axis-sign" &&
            static_cast<int>(b.up_axis) == -static_cast<int>(a.up_axis))
            b.up_axis = a.up_axis;
    }
    if (auto diff = lk::model::compare(a, b)) {
        std::fprintf(stderr, "%s: the model read back differs: %s\n", path, diff->c_str());
        std::abort();
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const lk::ByteSpan in(reinterpret_cast<const std::byte*>(data), size);
    lk::dmx::ReadOptions opt;
    opt.max_inflated_size = 1u << 24;
    auto doc = lk::dmx::read(in, opt);
    if (!doc) return 0;
    lk::Diagnostics w;
    auto view = lk::dmxmodel::Model::open(*doc, w);
    if (!view) return 0;
    lk::Diagnostics problems;
    (void)lk::dmxmodel::validate(*view, problems);
    (void)lk::dmxmodel::stats(*view);
    auto m = lk::convert::dmxmodel_to_model(*view, w);
    if (!m || !lk::model::check(*m).empty()) std::abort();
    for (const auto& target : {lk::dmxmodel::Target::source1(), lk::dmxmodel::Target::source2()}) {
        lk::Diagnostics cw;
        auto out = lk::convert::model_to_dmx(*m, target, cw);
        if (!out) continue;
        auto bytes = lk::dmx::write(*out);
        if (!bytes) continue;  // e.g. a name with a NUL byte, which binary DMX cannot store
        auto back = lk::dmx::read(*bytes);
        if (!back) std::abort();
        auto m2 = lk::convert::dmx_to_model(*back, w);
        if (!m2) std::abort();
        expect_same(*m, *m2, cw, "model_to_dmx");
    }
    // In-place conversion keeps what it does not convert; it must read back to the same model.
    for (const auto& target : {lk::dmxmodel::Target::source1(), lk::dmxmodel::Target::source2()}) {
        lk::Diagnostics cw;
        lk::dmx::Document copy = doc->clone();
        if (!lk::dmxmodel::retarget(copy, target, cw)) continue;
        auto bytes = lk::dmx::write(copy);
        if (!bytes) continue;
        auto back = lk::dmx::read(*bytes);
        if (!back) std::abort();
        auto m2 = lk::convert::dmx_to_model(*back, w);
        if (!m2) std::abort();
        expect_same(*m, *m2, cw, "retarget");
    }
    // Every frame of every clip is sampled: bounded far below the library's limit, as in
    // fuzz_smd, so that every input stays cheap.
    lk::convert::ModelToSmdOptions smd;
    smd.max_node_frames = std::uint64_t{1} << 16;
    (void)lk::convert::model_to_smd(*m, w, smd);
    return 0;
}
