// Model throughput on the largest corpus files:
//   typed_read/<binary|kv2>: DMX bytes -> dmx::Document -> dmxmodel::Model (the typed view)
//   to_model: dmxmodel::Model -> neutral model; to_smd: neutral model -> SMD files (text)
//   smd_read / smd_write: the largest SMD
//   build/bench/model_bench [--benchmark_filter=...]
// Reports MB/s (bytes of the input file) and the process's peak RSS after each benchmark.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/convert/smd_model.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"
#include "levelkit/smd/smd.hpp"

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
    lk::Bytes bytes;
};

// The largest model DMX of each encoding family, and the largest SMD.
struct Inputs {
    Input binary, kv2, smd;
};

Inputs find_inputs() {
    Inputs in;
    for (const char* sub : {"model", "dmx"}) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(corpus_dir() / sub, ec)) {
            if (!e.is_regular_file()) continue;
            auto data = lk::read_file(e.path());
            if (!data) continue;
            if (e.path().extension() == ".smd") {
                if (data->size() > in.smd.bytes.size()) in.smd = {e.path(), std::move(*data)};
                continue;
            }
            if (!lk::dmx::looks_like_dmx(*data) || (*data)[0] == std::byte{0x1f}) continue;
            auto doc = lk::dmx::read(*data);
            if (!doc || doc->header.format != "model") continue;
            Input& slot = doc->header.is_binary() ? in.binary : in.kv2;
            if (data->size() > slot.bytes.size()) slot = {e.path(), std::move(*data)};
        }
    }
    return in;
}

void finish(benchmark::State& state, std::size_t bytes) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
    state.counters["peak_rss_MB"] = peak_rss_mb();
}

void register_dmx(const char* kind, const Input& in) {
    if (in.bytes.empty()) return;
    const std::string name = in.path.filename().string();
    benchmark::RegisterBenchmark((std::string("typed_read/") + kind + "/" + name).c_str(),
                                 [&in](benchmark::State& state) {
                                     for (auto _ : state) {
                                         auto doc = lk::dmx::read(in.bytes);
                                         lk::Diagnostics w;
                                         auto m = lk::dmxmodel::Model::open(doc.value(), w);
                                         benchmark::DoNotOptimize(m);
                                     }
                                     finish(state, in.bytes.size());
                                 })
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("to_model/") + kind + "/" + name).c_str(),
                                 [&in](benchmark::State& state) {
                                     auto doc = lk::dmx::read(in.bytes);
                                     lk::Diagnostics w;
                                     auto view = lk::dmxmodel::Model::open(doc.value(), w);
                                     for (auto _ : state) {
                                         auto m = lk::convert::dmxmodel_to_model(*view, w);
                                         benchmark::DoNotOptimize(m);
                                     }
                                     finish(state, in.bytes.size());
                                 })
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("to_smd/") + kind + "/" + name).c_str(),
                                 [&in](benchmark::State& state) {
                                     auto doc = lk::dmx::read(in.bytes);
                                     lk::Diagnostics w;
                                     auto m = lk::convert::dmx_to_model(doc.value(), w);
                                     for (auto _ : state) {
                                         auto out = lk::convert::model_to_smd(*m, w);
                                         std::size_t n = 0;
                                         for (const auto& o : *out) {
                                             n += lk::smd::write(o.file).size();
                                         }
                                         benchmark::DoNotOptimize(n);
                                     }
                                     finish(state, in.bytes.size());
                                 })
        ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
    static const Inputs inputs = find_inputs();
    if (inputs.binary.bytes.empty() && inputs.smd.bytes.empty()) {
        std::fprintf(stderr, "corpus not found at %s: nothing to benchmark\n",
                     corpus_dir().c_str());
        return 0;
    }
    register_dmx("binary", inputs.binary);
    register_dmx("kv2", inputs.kv2);
    if (!inputs.smd.bytes.empty()) {
        const std::string name = inputs.smd.path.filename().string();
        benchmark::RegisterBenchmark(("smd_read/" + name).c_str(), [](benchmark::State& state) {
            const Input& in = inputs.smd;
            for (auto _ : state) {
                lk::Diagnostics w;
                auto f = lk::smd::read(lk::as_text(in.bytes), w);
                benchmark::DoNotOptimize(f);
            }
            finish(state, in.bytes.size());
        })->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("smd_write/" + name).c_str(), [](benchmark::State& state) {
            const Input& in = inputs.smd;
            lk::Diagnostics w;
            auto f = lk::smd::read(lk::as_text(in.bytes), w);
            for (auto _ : state) {
                auto text = lk::smd::write(f.value());
                benchmark::DoNotOptimize(text);
            }
            finish(state, in.bytes.size());
        })->Unit(benchmark::kMillisecond);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
