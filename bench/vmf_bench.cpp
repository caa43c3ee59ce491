// VMF benchmarks on the largest corpus maps: KeyValues parse, typed parse, lossless write,
// normalised write, brush polygons. Run: build/bench/vmf_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "bench_support.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"

using namespace lk;

namespace {

std::vector<Blob>& inputs() {
    static std::vector<Blob> blobs = [] {
        std::vector<Blob> v;
        for (const auto& p : bench::largest("vmf", ".vmf", 3))
            v.push_back(Blob::map_file(p).value());
        return v;
    }();
    return blobs;
}

std::size_t total_bytes() {
    std::size_t n = 0;
    for (const Blob& b : inputs()) n += b.size();
    return n;
}

void BM_KvParse(benchmark::State& state) {
    for (auto _ : state) {
        for (const Blob& b : inputs()) benchmark::DoNotOptimize(kv::Document::parse(b));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * total_bytes()));
}

// The typed model alone (streaming reader): what conversions use. Args: threads (0 = one per
// core, read_map's default; 1 = one thread) and tokenizer (1 = the light one, read_map's
// default; 0 = the full KeyValues parser it falls back to).
void BM_VmfParseTyped(benchmark::State& state) {
    vmf::ReadOptions opt;
    opt.threads = static_cast<unsigned>(state.range(0));
    opt.light_tokenizer = state.range(1) != 0;
    for (auto _ : state) {
        for (const Blob& b : inputs()) {
            Diagnostics d;
            benchmark::DoNotOptimize(vmf::read_map(b, d, opt));
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * total_bytes()));
    state.counters["threads"] = static_cast<double>(
        opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency()));
}

// Lossless tree + typed model (what `levelkit info/validate/roundtrip` read).
void BM_VmfReadDocument(benchmark::State& state) {
    for (auto _ : state) {
        for (const Blob& b : inputs()) benchmark::DoNotOptimize(vmf::Document::read(b));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * total_bytes()));
}

void BM_VmfWriteLossless(benchmark::State& state) {
    std::vector<vmf::Document> docs;
    for (const Blob& b : inputs()) docs.push_back(vmf::Document::read(b).value());
    std::string out;
    for (auto _ : state) {
        for (const auto& d : docs) {
            out.clear();
            d.tree().write_to(out);
            benchmark::DoNotOptimize(out.data());
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * total_bytes()));
}

void BM_VmfWriteNormalised(benchmark::State& state) {
    std::vector<vmf::Document> docs;
    for (const Blob& b : inputs()) docs.push_back(vmf::Document::read(b).value());
    for (auto _ : state) {
        for (const auto& d : docs) benchmark::DoNotOptimize(vmf::write(d.map()));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * total_bytes()));
}

void BM_BrushPolygons(benchmark::State& state) {
    std::vector<vmf::Document> docs;
    for (const Blob& b : inputs()) docs.push_back(vmf::Document::read(b).value());
    BrushPolygons polys;
    std::size_t sides = 0;
    for (auto _ : state) {
        sides = 0;
        for (const auto& d : docs) {
            auto run = [&](const vmf::Entity& e) {
                for (const vmf::Solid& s : e.solids) {
                    vmf::solid_polygons(s, polys);
                    sides += s.sides.size();
                    benchmark::DoNotOptimize(polys.points.data());
                }
            };
            run(d.map().world);
            for (const auto& e : d.map().entities) run(e);
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * sides));
    state.counters["sides"] = static_cast<double>(sides);
}

// Peak RSS growth of one read of the largest map, each in a fresh process (this program run
// again with LEVELKIT_BENCH_PEAK=typed|tree): RSS only grows, and memory the first read freed
// would hide part of the second. Includes the mapped input.
int peak_child(std::string_view what) {
    const Blob b = Blob::map_file(bench::largest("vmf", ".vmf", 1).front()).value();
    const double base = bench::peak_rss_mb();
    if (what == "typed") {
        Diagnostics d;
        auto map = vmf::read_map(b, d);
        benchmark::DoNotOptimize(map);
    } else {
        auto doc = vmf::Document::read(b);
        benchmark::DoNotOptimize(doc);
    }
    std::printf("%.3f\n", bench::peak_rss_mb() - base);
    return 0;
}

double peak_growth_mb(const char* what) {
    const std::string cmd = fmt::format("LEVELKIT_BENCH_PEAK={} /proc/{}/exe", what, getpid());
    FILE* p = popen(cmd.c_str(), "r");
    double mb = -1;
    if (p) {
        if (std::fscanf(p, "%lf", &mb) != 1) mb = -1;
        pclose(p);
    }
    return mb;
}

void report_peak_memory() {
    const Blob b = Blob::map_file(bench::largest("vmf", ".vmf", 1).front()).value();
    const double file_mb = static_cast<double>(b.size()) / (1024.0 * 1024.0);
    const double typed = peak_growth_mb("typed");
    const double both = peak_growth_mb("tree");
    std::printf(
        "peak memory, %.2f MB map (input mapping included): typed model %.1f MB (%.2fx), "
        "tree + typed %.1f MB (%.2fx)\n",
        file_mb, typed, typed / file_mb, both, both / file_mb);
}

}  // namespace

BENCHMARK(BM_KvParse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VmfParseTyped)
    ->ArgNames({"threads", "light"})
    ->Args({1, 1})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_VmfReadDocument)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VmfWriteLossless)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VmfWriteNormalised)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BrushPolygons)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    if (const char* what = std::getenv("LEVELKIT_BENCH_PEAK")) return peak_child(what);
    if (bench::largest("vmf", ".vmf", 1).empty()) {
        std::printf("corpus not found (set LEVELKIT_CORPUS): no VMF benchmarks to run\n");
        return 0;
    }
    report_peak_memory();
    std::printf("inputs: %zu largest corpus VMFs, %.2f MB\n", inputs().size(), total_bytes() / 1e6);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
