// DMX read/write throughput on the largest corpus files of each encoding.
//   build/bench/dmx_bench [--benchmark_filter=...]
// Reports MB/s (bytes of the file) and the process's peak RSS after each benchmark.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "levelkit/core/file.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/dmx/io.hpp"

namespace {

namespace fs = std::filesystem;

double peak_rss_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

fs::path corpus_dir() {
    if (const char* env = std::getenv("LEVELKIT_CORPUS"); env && *env) return env;
    return fs::path(LEVELKIT_SOURCE_DIR) / ".." / "shared" / "corpus";
}

struct Input {
    fs::path path;
    lk::Bytes bytes;  // the file (gzip input excluded)
    bool binary = false;
};

std::vector<Input> largest_files(std::size_t per_kind) {
    std::vector<Input> binary, text;
    for (const char* sub : {"dmx", "model"}) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(corpus_dir() / sub, ec)) {
            if (!e.is_regular_file()) continue;
            auto data = lk::read_file(e.path());
            if (!data || !lk::dmx::looks_like_dmx(data.value())) continue;
            if (!data->empty() && data.value()[0] == std::byte{0x1f}) continue;
            auto doc = lk::dmx::read(data.value());
            if (!doc) continue;
            Input in{e.path(), std::move(data).value(), doc->header.is_binary()};
            (in.binary ? binary : text).push_back(std::move(in));
        }
    }
    std::vector<Input> out;
    for (auto* v : {&binary, &text}) {
        std::sort(v->begin(), v->end(),
                  [](const Input& a, const Input& b) { return a.bytes.size() > b.bytes.size(); });
        // The corpus holds some files twice (under two names): measure distinct contents.
        std::size_t taken = 0;
        for (std::size_t i = 0; i < v->size() && taken < per_kind; ++i) {
            if (taken > 0 && (*v)[i].bytes == out.back().bytes) continue;
            out.push_back(std::move((*v)[i]));
            ++taken;
        }
    }
    return out;
}

void finish(benchmark::State& state, std::size_t bytes) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters["peak_rss_MB"] = peak_rss_mb();
}

}  // namespace

int main(int argc, char** argv) {
    static std::vector<Input> inputs = largest_files(2);
    if (inputs.empty()) {
        std::fprintf(stderr, "corpus not found at %s: nothing to benchmark\n",
                     corpus_dir().c_str());
        return 0;
    }
    for (const Input& in : inputs) {
        const std::string name = in.path.filename().string();
        const char* kind = in.binary ? "binary" : "kv2";
        benchmark::RegisterBenchmark((std::string(kind) + "_read/" + name).c_str(),
                                     [&in](benchmark::State& state) {
                                         for (auto _ : state) {
                                             auto doc = lk::dmx::read(in.bytes);
                                             benchmark::DoNotOptimize(doc);
                                         }
                                         finish(state, in.bytes.size());
                                     })
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark((std::string(kind) + "_write/" + name).c_str(),
                                     [&in](benchmark::State& state) {
                                         auto doc = lk::dmx::read(in.bytes);
                                         for (auto _ : state) {
                                             auto out = lk::dmx::write(doc.value());
                                             benchmark::DoNotOptimize(out);
                                         }
                                         finish(state, in.bytes.size());
                                     })
            ->Unit(benchmark::kMillisecond);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
