// Gamestudio WMB benchmarks on the largest corpus WMB: container read alone, read + every
// typed view (what read() does by default), lossless write, conversion to the neutral scene.
// Run: build/bench/wmb_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include "bench_support.hpp"
#include "levelkit/convert/wmb_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/wmb/wmb.hpp"

using namespace lk;

namespace {

const Blob& largest() {
    static Blob b = [] {
        auto files = bench::largest("wmp", ".wmb", 1);
        return files.empty() ? Blob{} : Blob::map_file(files.front()).value();
    }();
    return b;
}

bool have(benchmark::State& state) {
    if (!largest().empty()) return true;
    state.SkipWithError("no WMB in the corpus");
    return false;
}

void BM_ReadContainer(benchmark::State& state) {
    if (!have(state)) return;
    wmb::ReadOptions opt;
    opt.decode = false;
    for (auto _ : state) {
        Diagnostics w;
        benchmark::DoNotOptimize(wmb::read(largest(), w, opt));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * largest().size()));
}

void BM_ReadViews(benchmark::State& state) {
    if (!have(state)) return;
    std::size_t triangles = 0, objects = 0;
    for (auto _ : state) {
        Diagnostics w;
        auto f = wmb::read(largest(), w);
        triangles = 0;
        for (const auto& b : f->views.blocks) triangles += b.triangles.size();
        objects = f->views.objects.size();
        benchmark::DoNotOptimize(f);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * largest().size()));
    state.counters["file_KB"] = static_cast<double>(largest().size()) / 1024.0;
    state.counters["triangles"] = static_cast<double>(triangles);
    state.counters["objects"] = static_cast<double>(objects);
    state.counters["peak_MB"] = bench::peak_rss_mb();
}

void BM_WriteLossless(benchmark::State& state) {
    if (!have(state)) return;
    Diagnostics w;
    const auto f = wmb::read(largest(), w).value();
    for (auto _ : state) benchmark::DoNotOptimize(wmb::write(f));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * largest().size()));
}

void BM_ToScene(benchmark::State& state) {
    if (!have(state)) return;
    Diagnostics w;
    const auto f = wmb::read(largest(), w).value();
    std::size_t faces = 0;
    for (auto _ : state) {
        Diagnostics d;
        convert::WmbToSceneReport rep;
        benchmark::DoNotOptimize(convert::wmb_to_scene(f, d, {}, &rep));
        faces = rep.faces;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * faces));
    state.counters["faces"] = static_cast<double>(faces);
}

}  // namespace

BENCHMARK(BM_ReadContainer);
BENCHMARK(BM_ReadViews);
BENCHMARK(BM_WriteLossless);
BENCHMARK(BM_ToScene);
BENCHMARK_MAIN();
