// Maps to glTF and pictures, on the largest corpus BSP and VMF: what `levelkit convert map
// map.glb` and `levelkit render map -o map.png` do without the disk write (map the file, read
// it, build the scene, build the .glb bytes / draw and encode the PNG).
//
// Run: build/bench/gltf_bench [--benchmark_filter=...] (the default filter runs everything,
// BM_GlbMap/* once per corpus BSP and VMF; add --benchmark_filter=-BM_GlbMap to skip those).
// Counters: bytes/s over the input file, triangles/s (items), glb_MB / png_KB (output), peak_rss_MB
// (process high-water mark so far; each benchmark's figure includes the ones before it, so run one
// with --benchmark_filter for its own peak).
#include <benchmark/benchmark.h>

#include <chrono>

#include "bench_support.hpp"
#include "levelkit/bsp/bsp.hpp"
#include "levelkit/convert/bsp_faces.hpp"
#include "levelkit/convert/scene_gltf.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/render/render.hpp"
#include "levelkit/vmf/vmf.hpp"

namespace fs = std::filesystem;
using namespace lk;

namespace {

fs::path largest(const std::string& sub, const std::string& ext) {
    const auto all = bench::largest(sub, ext, 1);
    return all.empty() ? fs::path{} : all.front();
}

// The scene of a map file, as the CLI would build it for drawing.
std::optional<scene::Scene> load(const fs::path& path, benchmark::State& state) {
    auto blob = Blob::map_file(path);
    if (!blob) {
        state.SkipWithError(blob.error().to_string().c_str());
        return std::nullopt;
    }
    Diagnostics d;
    if (path.extension() == ".bsp") {
        auto map = bsp::Bsp::read(*blob);
        if (!map) {
            state.SkipWithError(map.error().to_string().c_str());
            return std::nullopt;
        }
        auto s = convert::bsp_faces_to_scene(*map, d);
        if (!s) {
            state.SkipWithError(s.error().to_string().c_str());
            return std::nullopt;
        }
        return std::move(s).value();
    }
    auto map = vmf::read_map(*blob, d);
    if (!map) {
        state.SkipWithError(map.error().to_string().c_str());
        return std::nullopt;
    }
    return convert::vmf_to_scene(*map, d);
}

void BM_ToGlb(benchmark::State& state, fs::path path) {
    if (path.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(path.filename().string());
    std::size_t tris = 0, bytes = 0;
    for (auto _ : state) {
        auto s = load(path, state);
        if (!s) return;
        Diagnostics d;
        auto files = convert::scene_to_gltf(*s, {}, d);
        if (!files) {
            state.SkipWithError(files.error().to_string().c_str());
            return;
        }
        benchmark::DoNotOptimize(files->glb.data());
        tris = files->report.triangles;
        bytes = files->glb.size();
    }
    const auto size = static_cast<std::int64_t>(fs::file_size(path));
    state.SetBytesProcessed(state.iterations() * size);
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(tris));
    state.counters["triangles"] = static_cast<double>(tris);
    state.counters["glb_MB"] = static_cast<double>(bytes) / (1 << 20);
    state.counters["peak_rss_MB"] = bench::peak_rss_mb();
}

void BM_Render(benchmark::State& state, fs::path path, render::View view) {
    if (path.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(path.filename().string());
    std::size_t tris = 0, png_size = 0;
    for (auto _ : state) {
        auto s = load(path, state);
        if (!s) return;
        render::RenderOptions ro;
        ro.view = view;
        ro.size = 1024;
        const render::Picture pic = render::render_scene(*s, ro);
        auto png = render::encode_png(pic.image);
        if (!png) {
            state.SkipWithError(png.error().to_string().c_str());
            return;
        }
        benchmark::DoNotOptimize(png->data());
        tris = pic.triangles;
        png_size = png->size();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(tris));
    state.counters["triangles_drawn"] = static_cast<double>(tris);
    state.counters["png_KB"] = static_cast<double>(png_size) / 1024;
    state.counters["peak_rss_MB"] = bench::peak_rss_mb();
}

// Where the time of a conversion goes: reading the file into a scene, then the glTF writer
// (build_surfaces, meshes, JSON, GLB).
void BM_GlbStages(benchmark::State& state, fs::path path) {
    if (path.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(path.filename().string());
    double read = 0, write = 0;
    for (auto _ : state) {
        auto t0 = std::chrono::steady_clock::now();
        auto s = load(path, state);
        if (!s) return;
        auto t1 = std::chrono::steady_clock::now();
        Diagnostics d;
        auto files = convert::scene_to_gltf(*s, {}, d);
        auto t2 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(files->glb.data());
        read += std::chrono::duration<double>(t1 - t0).count();
        write += std::chrono::duration<double>(t2 - t1).count();
    }
    state.counters["read_scene_ms"] = 1000 * read / double(state.iterations());
    state.counters["gltf_ms"] = 1000 * write / double(state.iterations());
}

// The parts of a render on its own: drawing (surfaces built beforehand) and PNG encoding.
void BM_RenderParts(benchmark::State& state, fs::path path) {
    if (path.empty()) {
        state.SkipWithError("corpus not found: set LEVELKIT_CORPUS");
        return;
    }
    state.SetLabel(path.filename().string());
    auto s = load(path, state);
    if (!s) return;
    scene::SurfaceOptions so;
    const scene::Surfaces surf = scene::build_surfaces(*s, so);
    render::RenderOptions ro;
    ro.size = 1024;
    render::Picture pic;
    double draw = 0, encode = 0;
    for (auto _ : state) {
        auto t0 = std::chrono::steady_clock::now();
        pic = render::render_surfaces(surf, {}, ro);
        auto t1 = std::chrono::steady_clock::now();
        auto png = render::encode_png(pic.image);
        auto t2 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(png->data());
        draw += std::chrono::duration<double>(t1 - t0).count();
        encode += std::chrono::duration<double>(t2 - t1).count();
    }
    state.counters["draw_ms"] = 1000 * draw / double(state.iterations());
    state.counters["png_ms"] = 1000 * encode / double(state.iterations());
    state.counters["png_KB"] = double(render::encode_png(pic.image)->size()) / 1024;
}

const bool registered = [] {
    const fs::path bsp = largest("bsp", ".bsp");
    const fs::path vmf = largest("vmf", ".vmf");
    benchmark::RegisterBenchmark("BM_GlbLargestBsp", BM_ToGlb, bsp)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_GlbLargestVmf", BM_ToGlb, vmf)->Unit(benchmark::kMillisecond);
    for (const auto& [name, view] :
         {std::pair{"Top", render::View::top}, {"Iso", render::View::iso}}) {
        benchmark::RegisterBenchmark((std::string("BM_Render1024") + name + "LargestBsp").c_str(),
                                     BM_Render, bsp, view)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark((std::string("BM_Render1024") + name + "LargestVmf").c_str(),
                                     BM_Render, vmf, view)
            ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark("BM_GlbStagesLargestBsp", BM_GlbStages, bsp)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_GlbStagesLargestVmf", BM_GlbStages, vmf)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("BM_RenderPartsLargestVmf", BM_RenderParts, vmf)
        ->Unit(benchmark::kMillisecond);
    // Every map, for per-map figures (select with --benchmark_filter=BM_GlbMap).
    for (const auto& [sub, ext] : {std::pair{"bsp", ".bsp"}, {"vmf", ".vmf"}}) {
        for (const fs::path& p : bench::largest(sub, ext, 1000)) {
            benchmark::RegisterBenchmark(("BM_GlbMap/" + p.filename().string()).c_str(), BM_ToGlb,
                                         p)
                ->Unit(benchmark::kMillisecond);
        }
    }
    return true;
}();

}  // namespace

BENCHMARK_MAIN();
