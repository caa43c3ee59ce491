// The machine's own speed, measured with fixed work that is not levelkit's: bench/targets.py
// runs it in every round beside the rows, so that a round measured while the machine is slow
// (a busy host: this is a virtual machine) shows as such instead of as a change of levelkit.
// The work is of the kinds the rows do: parsing numbers from text, small allocations freed
// again, and touching fresh memory (page faults). It never changes; nothing here links what
// levelkit's code does, so its figures compare across builds and across days.
// Run: build/bench/yardstick_bench
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

// 1 MiB of numbers spelled as map files spell them ("-123.456789 "), from a fixed sequence.
const std::string& numbers_text() {
    static const std::string text = [] {
        std::string s;
        std::uint64_t x = 0x9e3779b97f4a7c15u;
        char buf[32];
        while (s.size() < (std::size_t{1} << 20)) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            const double v =
                static_cast<double>(static_cast<std::int64_t>(x >> 20) % 20000000) / 1e4;
            const int n = std::snprintf(buf, sizeof buf, "%.6f ", v - 1000.0);
            s.append(buf, static_cast<std::size_t>(n));
        }
        return s;
    }();
    return text;
}

void BM_YardstickParse(benchmark::State& state) {
    const std::string& s = numbers_text();
    for (auto _ : state) {
        double sum = 0;
        const char* p = s.data();
        const char* end = p + s.size();
        while (p < end) {
            double v = 0;
            const auto r = std::from_chars(p, end, v);
            if (r.ec != std::errc()) break;
            sum += v;
            p = r.ptr + 1;
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * s.size()));
}

// 200,000 blocks of 16 to 271 bytes, held in a vector and freed in the order made.
void BM_YardstickAlloc(benchmark::State& state) {
    constexpr std::size_t kBlocks = 200000;
    std::vector<std::unique_ptr<char[]>> held(kBlocks);
    for (auto _ : state) {
        std::uint32_t x = 12345;
        for (auto& h : held) {
            x = x * 1103515245u + 12345u;
            h.reset(new char[16 + (x >> 24)]);
            h[0] = 1;
        }
        benchmark::ClobberMemory();
        for (auto& h : held) h.reset();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kBlocks));
}

// 32 MiB of fresh memory touched once a page and given back (the kernel clears every page).
void BM_YardstickFault(benchmark::State& state) {
    constexpr std::size_t kBytes = std::size_t{32} << 20, kPage = 4096;
    for (auto _ : state) {
        void* m = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            state.SkipWithError("mmap failed");
            return;
        }
        auto* b = static_cast<volatile char*>(m);
        for (std::size_t i = 0; i < kBytes; i += kPage) b[i] = 1;
        munmap(m, kBytes);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
}

}  // namespace

BENCHMARK(BM_YardstickParse)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_YardstickAlloc)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_YardstickFault)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
