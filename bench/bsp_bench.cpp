// BSP benchmarks over the corpus: full typed parse of the largest map (memory-mapped), an
// unchanged write, LZMA-compressing repack, and the LZMA-heavy console map.
//
// Run: build/bench/bsp_bench [--benchmark_filter=...]. Counters: bytes/s over the file size,
// peak_rss_MB (process high-water mark so far; the parse benchmarks run first) and file_MB.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/map.hpp"

namespace fs = std::filesystem;
using namespace lk;

namespace {

fs::path corpus_bsp_dir() {
    if (const char* env = std::getenv("LEVELKIT_CORPUS"); env && *env) return fs::path(env) / "bsp";
    return fs::path(LEVELKIT_SOURCE_DIR) / ".." / "shared" / "corpus" / "bsp";
}

// The largest map, or one whose file name matches `name`.
fs::path pick(std::string_view name = {}) {
    fs::path best;
    std::uintmax_t best_size = 0;
    std::error_code ec;
    if (!fs::is_directory(corpus_bsp_dir(), ec)) return {};
    for (const auto& e : fs::recursive_directory_iterator(corpus_bsp_dir())) {
        if (!e.is_regular_file() || e.path().extension() != ".bsp") continue;
        if (!name.empty()) {
            if (e.path().filename() == name) return e.path();
            continue;
        }
        if (e.file_size() > best_size) {
            best = e.path();
            best_size = e.file_size();
        }
    }
    return best;
}

double peak_rss_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void finish(benchmark::State& state, std::size_t file_size, std::size_t decompressed = 0) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file_size));
    state.counters["file_MB"] = static_cast<double>(file_size) / (1 << 20);
    state.counters["decompressed_MB"] = static_cast<double>(decompressed) / (1 << 20);
    state.counters["peak_rss_MB"] = peak_rss_mb();
}

std::size_t decompressed_bytes(const bsp::Bsp& map) {
    std::size_t n = 0;
    for (int i = 0; i < bsp::kLumpCount; ++i) {
        if (map.lump(i).compression() == bsp::Compression::lzma) n += map.lump(i).size();
    }
    for (const bsp::GameLump& g : map.game_lumps()) {
        if (g.compressed()) n += g.bytes().size();
    }
    return n;
}

// Map the file, read the container and build every typed view.
void BM_BspMapReadParseAll(benchmark::State& state, std::string name) {
    const fs::path p = pick(name);
    if (p.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(p.filename().string());
    std::size_t size = 0, decompressed = 0;
    for (auto _ : state) {
        auto blob = Blob::map_file(p);
        auto map = bsp::Bsp::read(*blob);
        auto data = bsp::parse_map(*map);
        if (!data) {
            state.SkipWithError(data.error().to_string().c_str());
            return;
        }
        benchmark::DoNotOptimize(data->faces.size());
        size = blob->size();
        decompressed = decompressed_bytes(*map);
    }
    finish(state, size, decompressed);
}

// Every corpus map in turn: throughput over the whole corpus.
void BM_BspParseWholeCorpus(benchmark::State& state) {
    std::vector<Blob> blobs;
    std::size_t total = 0;
    std::error_code ec;
    if (fs::is_directory(corpus_bsp_dir(), ec)) {
        for (const auto& e : fs::recursive_directory_iterator(corpus_bsp_dir())) {
            if (!e.is_regular_file() || e.path().extension() != ".bsp") continue;
            blobs.push_back(*Blob::map_file(e.path()));
            total += blobs.back().size();
        }
    }
    if (blobs.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(std::to_string(blobs.size()) + " maps");
    for (auto _ : state) {
        for (const Blob& b : blobs) {
            auto map = bsp::Bsp::read(b);
            auto data = bsp::parse_map(*map);
            benchmark::DoNotOptimize(data->planes.size());
        }
    }
    finish(state, total);
}

void BM_BspWriteUnchanged(benchmark::State& state) {
    const fs::path p = pick();
    if (p.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(p.filename().string());
    auto blob = Blob::map_file(p);
    auto map = bsp::Bsp::read(*blob);
    for (auto _ : state) {
        auto out = map->write();
        benchmark::DoNotOptimize(out->data());
    }
    finish(state, blob->size());
}

void BM_BspRepackCompress(benchmark::State& state) {
    const fs::path p = pick();
    if (p.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(p.filename().string());
    auto blob = Blob::map_file(p);
    auto map = bsp::Bsp::read(*blob);
    for (auto _ : state) {
        bsp::Bsp work = *map;
        auto r = work.repack(bsp::Compression::lzma);
        auto out = work.write();
        benchmark::DoNotOptimize(out->data());
    }
    finish(state, blob->size());
}

}  // namespace

BENCHMARK_CAPTURE(BM_BspMapReadParseAll, largest, std::string())->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BspMapReadParseAll, most_geometry, std::string("css_gg_xlighty.bsp"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BspMapReadParseAll, most_props, std::string("css_de_office_h2.bsp"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BspMapReadParseAll, x360_lzma, std::string("hl2_shack_x360.bsp"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BspParseWholeCorpus)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BspWriteUnchanged)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BspRepackCompress)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
