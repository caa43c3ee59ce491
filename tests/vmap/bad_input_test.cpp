// Damaged real vmaps: truncated and byte-flipped copies of every corpus vmap go through the whole
// vmap pipeline (read, open, validate every mesh, convert to scene and VMF). Nothing may crash;
// the sanitizer build turns any out-of-range access into a failure.
#include <gtest/gtest.h>

#include <cstdio>

#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/vmap/vmap.hpp"
#include "support/corpus.hpp"

namespace lk::vmap {
namespace {

// Returns true if the input got as far as an opened map.
bool run_pipeline(ByteSpan data) {
    auto doc = dmx::read(data);
    if (!doc) return false;
    auto map = Map::open(*doc);
    if (!map) return false;
    (void)validate_meshes(*map);
    Diagnostics d;
    (void)convert::scene_to_vmf(convert::vmap_to_scene(*map, d), d);
    return true;
}

TEST(VmapBadInput, TruncatedAndFlippedCorpusFilesNeverCrash) {
    LK_REQUIRE_CORPUS();
    std::size_t files = 0, runs = 0, opened = 0;
    for (const auto& f : test::corpus_files("dmx", {".vmap", ".vmap.txt"})) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob.ok());
        const ByteSpan all = blob->bytes();
        // Larger maps add time, not coverage: the small ones hold every element class.
        if (all.size() > (512u << 10)) continue;
        ++files;
        std::vector<std::byte> buf(all.begin(), all.end());
        for (std::size_t i = 1; i <= 32; ++i) {
            ++runs;
            opened += run_pipeline(all.first(all.size() * i / 33));
        }
        // Deterministic single-byte damage spread over the file (binary: counts, indices, types).
        std::uint64_t x = 0x9E3779B97F4A7C15ull ^ all.size();
        for (int k = 0; k < 200; ++k) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            const std::size_t at = x % buf.size();
            const std::byte old = buf[at];
            buf[at] = static_cast<std::byte>(static_cast<unsigned>(old) ^ (1u << (x >> 61)));
            ++runs;
            opened += run_pipeline(buf);
            buf[at] = old;
        }
    }
    std::printf(
        "[vmap bad input] %zu files, %zu damaged copies, %zu still opened as maps, "
        "no crash\n",
        files, runs, opened);
}

}  // namespace
}  // namespace lk::vmap
