// VMAP benchmarks: VMF -> VMAP conversion of the largest corpus VMF (read, scene, half-edge
// meshes, binary 9 write) and its stages; reading and validating the largest corpus vmap.
// Run: build/bench/bench_vmap [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdio>

#include "bench_support.hpp"
#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/vmap/vmap.hpp"
#include "levelkit/vmf/vmf.hpp"

using namespace lk;

namespace {

// The largest VMF of vmf/ and bsp/vmf/.
const Blob& largest_vmf() {
    static const Blob blob = [] {
        auto a = bench::largest("vmf", ".vmf", 1);
        auto b = bench::largest("bsp/vmf", ".vmf", 1);
        a.insert(a.end(), b.begin(), b.end());
        std::sort(a.begin(), a.end(), [](const auto& x, const auto& y) {
            return std::filesystem::file_size(x) > std::filesystem::file_size(y);
        });
        std::printf("VMF input: %s\n", a.front().filename().c_str());
        return Blob::map_file(a.front()).value();
    }();
    return blob;
}

Bytes convert_once(const Blob& b) {
    Diagnostics d;
    const vmf::Map m = vmf::read_map(b, d).value();
    const scene::Scene s = convert::vmf_to_scene(m, d);
    const dmx::Document doc = convert::scene_to_vmap(s, d);
    return dmx::write(doc).value();
}

// What `levelkit convert map.vmf map.vmap` does between reading the file and writing it.
void BM_VmfToVmap(benchmark::State& state) {
    const Blob& b = largest_vmf();
    for (auto _ : state) benchmark::DoNotOptimize(convert_once(b));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
}

void BM_SceneToVmap(benchmark::State& state) {
    const Blob& b = largest_vmf();
    Diagnostics d;
    const scene::Scene s = convert::vmf_to_scene(vmf::read_map(b, d).value(), d);
    std::size_t meshes = 0;
    for (auto _ : state) {
        convert::SceneToVmapReport r;
        benchmark::DoNotOptimize(convert::scene_to_vmap(s, d, {}, &r));
        meshes = r.meshes;
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * meshes));
}

void BM_VmapWriteBinary9(benchmark::State& state) {
    const Blob& b = largest_vmf();
    Diagnostics d;
    const dmx::Document doc =
        convert::scene_to_vmap(convert::vmf_to_scene(vmf::read_map(b, d).value(), d), d);
    std::size_t out = 0;
    for (auto _ : state) {
        auto bytes = dmx::write(doc).value();
        out = bytes.size();
        benchmark::DoNotOptimize(bytes);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * out));
}

// The corpus vmap with the most mesh faces (the largest ones are Dota tile maps without meshes).
const Blob& richest_vmap() {
    static const Blob blob = [] {
        std::filesystem::path best;
        std::size_t best_faces = 0;
        for (const auto& p : bench::largest("dmx", ".vmap", 64)) {
            const Blob b = Blob::map_file(p).value();
            auto doc = dmx::read(b.bytes());
            if (!doc) continue;
            auto map = vmap::Map::open(*doc);
            if (!map) continue;
            std::size_t faces = 0;
            for (std::uint32_t i : map->meshes) {
                if (auto v = vmap::view_mesh(*doc, map->mesh_data(map->nodes[i].element)))
                    faces += v->face_count();
            }
            if (faces > best_faces) {
                best_faces = faces;
                best = p;
            }
        }
        std::printf("vmap input: %s (%zu faces)\n", best.filename().c_str(), best_faces);
        return Blob::map_file(best).value();
    }();
    return blob;
}

// A real vmap: read, open as a map, validate every mesh.
void BM_VmapReadValidate(benchmark::State& state) {
    const Blob& b = richest_vmap();
    std::size_t meshes = 0;
    for (auto _ : state) {
        auto doc = dmx::read(b.bytes()).value();
        auto map = vmap::Map::open(doc).value();
        meshes = map.meshes.size();
        benchmark::DoNotOptimize(vmap::validate_meshes(map));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * b.size()));
    state.counters["meshes"] = static_cast<double>(meshes);
}

// Peak RSS growth of one conversion of the largest VMF, measured before anything else runs
// (RSS only grows). Includes the mapped input and the written bytes.
void report_peak_memory() {
    const Blob& b = largest_vmf();
    const double base = bench::peak_rss_mb();
    const Bytes out = convert_once(b);
    const double used = bench::peak_rss_mb() - base;
    std::printf("peak memory, VMF -> VMAP of a %.2f MB map (%.2f MB binary 9 out): %.1f MB\n",
                static_cast<double>(b.size()) / (1024.0 * 1024.0),
                static_cast<double>(out.size()) / (1024.0 * 1024.0), used);
}

}  // namespace

BENCHMARK(BM_VmfToVmap)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SceneToVmap)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VmapWriteBinary9)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VmapReadValidate)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    if (bench::largest("vmf", ".vmf", 1).empty() || bench::largest("dmx", ".vmap", 1).empty()) {
        std::printf("corpus not found (set LEVELKIT_CORPUS): no VMAP benchmarks to run\n");
        return 0;
    }
    report_peak_memory();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
