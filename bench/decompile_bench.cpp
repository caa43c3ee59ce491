// BSP -> VMF decompiler benchmarks: what `levelkit convert map.bsp map.vmf` does without the
// disk write (map the file, read the container, rebuild the scene, build the VMF, write its
// text), on the largest corpus map, then once per corpus map for per-map times.
//
// Run: build/bench/decompile_bench [--benchmark_filter=...]. Counters: bytes/s over the BSP
// size, brushes/s (items), vmf_MB (text written), peak_rss_MB (process high-water mark so far:
// the largest map runs first).
#include <benchmark/benchmark.h>

#include "bench_support.hpp"
#include "levelkit/bsp/bsp.hpp"
#include "levelkit/convert/bsp_scene.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/vmf/vmf.hpp"

namespace fs = std::filesystem;
using namespace lk;

namespace {

void BM_Decompile(benchmark::State& state, fs::path path) {
    if (path.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(path.filename().string());
    std::size_t solids = 0, text = 0;
    for (auto _ : state) {
        auto blob = Blob::map_file(path);
        auto map = bsp::Bsp::read(std::move(blob).value());
        if (!map) {
            state.SkipWithError(map.error().to_string().c_str());
            return;
        }
        Diagnostics diags;
        auto scene = convert::bsp_to_scene(*map, diags);
        if (!scene) {
            state.SkipWithError(scene.error().to_string().c_str());
            return;
        }
        convert::SceneToVmfReport rep;
        const vmf::Map vmf = convert::scene_to_vmf(*scene, diags, {}, &rep);
        const std::string out = vmf::write(vmf);
        benchmark::DoNotOptimize(out.data());
        solids = rep.solids;
        text = out.size();
    }
    const auto size = static_cast<std::int64_t>(fs::file_size(path));
    state.SetBytesProcessed(state.iterations() * size);
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(solids));
    state.counters["file_MB"] = static_cast<double>(size) / (1 << 20);
    state.counters["vmf_MB"] = static_cast<double>(text) / (1 << 20);
    state.counters["peak_rss_MB"] = bench::peak_rss_mb();
}

const bool registered = [] {
    // The largest map first (its figure is the acceptance one; peak memory is its own), then
    // every map.
    const auto all = bench::largest("bsp", ".bsp", 1000);
    benchmark::RegisterBenchmark("BM_DecompileLargest", BM_Decompile,
                                 all.empty() ? fs::path{} : all.front())
        ->Unit(benchmark::kMillisecond);
    for (const fs::path& p : all) {
        benchmark::RegisterBenchmark(("BM_DecompileMap/" + p.filename().string()).c_str(),
                                     BM_Decompile, p)
            ->Unit(benchmark::kMillisecond);
    }
    return true;
}();

}  // namespace

BENCHMARK_MAIN();
