// Gamestudio benchmarks on the largest corpus levels: read, read + resolve (what `convert
// level.wmp level.$$M` does), lossless write, and conversion to the neutral scene.
// Run: build/bench/wmp_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdio>

#include "bench_support.hpp"
#include "levelkit/convert/wmp_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"

using namespace lk;

namespace {

const Blob& largest() {
    static Blob b = [] {
        auto files = bench::largest("wmp", ".wmp", 1);
        return files.empty() ? Blob{} : Blob::map_file(files.front()).value();
    }();
    return b;
}

// The largest corpus file of a text dialect family (WMP2 text, `$$M`).
const Blob& largest_text(bool mm) {
    static Blob blobs[2];
    Blob& b = blobs[mm ? 1 : 0];
    if (b.empty()) {
        for (const auto& p : bench::largest("wmp", mm ? ".$$M" : ".wmp", 200)) {
            Blob c = Blob::map_file(p).value();
            const auto d = wmp::detect(c.bytes());
            if (d && (mm ? *d == wmp::Dialect::mm : wmp::is_wmp2(*d))) {
                b = c;
                break;
            }
        }
    }
    return b;
}

void BM_ReadText(benchmark::State& state) {
    const Blob& b = largest_text(state.range(0) != 0);
    if (b.empty()) {
        state.SkipWithError("no such file in the corpus");
        return;
    }
    for (auto _ : state) benchmark::DoNotOptimize(wmp::read(b));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
    state.counters["file_KB"] = static_cast<double>(b.size()) / 1024.0;
}

void BM_Read(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(wmp::read(largest()));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * largest().size()));
}

void BM_ReadResolve(benchmark::State& state) {
    std::size_t faces = 0;
    for (auto _ : state) {
        auto f = wmp::read(largest());
        auto mm = wmp::resolve(f->level);
        faces = mm->face_count();
        benchmark::DoNotOptimize(mm);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * largest().size()));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * faces));
    state.counters["faces"] = static_cast<double>(faces);
}

void BM_WriteLossless(benchmark::State& state) {
    const auto f = wmp::read(largest()).value();
    for (auto _ : state) benchmark::DoNotOptimize(wmp::write(f));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * largest().size()));
}

void BM_ToScene(benchmark::State& state) {
    const auto f = wmp::read(largest()).value();
    for (auto _ : state) {
        Diagnostics d;
        benchmark::DoNotOptimize(convert::wmp_to_scene(f.level, d));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * largest().size()));
}

// Peak memory of reading and resolving the largest level (run alone for a clean figure:
// --benchmark_filter=PeakMemory).
void BM_PeakMemory(benchmark::State& state) {
    const double before = bench::peak_rss_mb();
    for (auto _ : state) {
        auto f = wmp::read(largest());
        auto mm = wmp::resolve(f->level);
        benchmark::DoNotOptimize(mm);
    }
    state.counters["file_MB"] = static_cast<double>(largest().size()) / (1024.0 * 1024.0);
    state.counters["peak_rss_MB"] = bench::peak_rss_mb();
    state.counters["rss_growth_MB"] = bench::peak_rss_mb() - before;
}

}  // namespace

BENCHMARK(BM_Read)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadText)->Arg(0)->Arg(1)->ArgName("mm")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadResolve)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WriteLossless)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ToScene)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeakMemory)->Unit(benchmark::kMillisecond)->Iterations(1);

int main(int argc, char** argv) {
    if (largest().empty()) {
        std::printf("corpus not found (set LEVELKIT_CORPUS): no WMP benchmarks to run\n");
        return 0;
    }
    std::printf("input: largest corpus WMP, %.2f MB\n", largest().size() / 1e6);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
