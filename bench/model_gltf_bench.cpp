// Models <-> glTF on the largest corpus model DMX (by file size):
//   dmx_to_glb: DMX bytes -> document -> neutral model -> .glb bytes (what convert x.dmx y.glb
//   runs) glb_to_dmx: .glb bytes -> neutral model -> DMX (binary 5 / model 18) bytes
//   build/bench/model_gltf_bench [--benchmark_filter=...]
// Reports MB/s of the input, the vertices per second and the process's peak RSS after each.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "bench_support.hpp"
#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/convert/model_gltf.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"

namespace {

struct Input {
    std::filesystem::path path;
    lk::Bytes dmx, glb;
    std::size_t vertices = 0;
};

Input& input() {
    static Input in = [] {
        Input best;
        for (const char* sub : {"model", "dmx"}) {
            for (const auto& p : lk::bench::largest(sub, ".dmx", 1000)) {
                auto data = lk::read_file(p);
                if (!data || data->size() <= best.dmx.size()) continue;
                auto doc = lk::dmx::read(*data);
                if (!doc || doc->header.format != "model") continue;
                best.path = p;
                best.dmx = std::move(*data);
            }
        }
        if (best.dmx.empty()) return best;
        lk::Diagnostics w;
        auto doc = lk::dmx::read(best.dmx);
        auto m = lk::convert::dmx_to_model(*doc, w);
        auto glb = lk::convert::model_to_gltf(*m, {}, w);
        best.glb = glb->glb;
        best.vertices = glb->report.vertices;
        return best;
    }();
    return in;
}

void dmx_to_glb(benchmark::State& state) {
    const Input& in = input();
    if (in.dmx.empty()) return state.SkipWithError("no corpus model");
    for (auto _ : state) {
        lk::Diagnostics w;
        auto doc = lk::dmx::read(in.dmx);
        auto m = lk::convert::dmx_to_model(*doc, w);
        auto glb = lk::convert::model_to_gltf(*m, {}, w);
        benchmark::DoNotOptimize(glb->glb.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.dmx.size()));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.vertices));
    state.counters["peak_rss_MB"] = lk::bench::peak_rss_mb();
    state.SetLabel(in.path.filename().string());
}

void glb_to_dmx(benchmark::State& state) {
    const Input& in = input();
    if (in.glb.empty()) return state.SkipWithError("no corpus model");
    for (auto _ : state) {
        lk::Diagnostics w;
        auto m = lk::convert::gltf_to_model(in.glb, {}, w);
        auto doc = lk::convert::model_to_dmx(*m, lk::dmxmodel::Target::source1(), w);
        auto bytes = lk::dmx::write(*doc);
        benchmark::DoNotOptimize(bytes->data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.glb.size()));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.vertices));
    state.counters["peak_rss_MB"] = lk::bench::peak_rss_mb();
    state.SetLabel(in.path.filename().string());
}

BENCHMARK(dmx_to_glb)->Unit(benchmark::kMillisecond);
BENCHMARK(glb_to_dmx)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
