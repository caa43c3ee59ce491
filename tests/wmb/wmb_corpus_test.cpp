// Corpus: every WMB reads, writes back byte for byte and decodes every list it knows (figures
// printed per file); a forced new layout reads back to the same lists; truncated and
// byte-flipped files give located errors or located warnings, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "levelkit/convert/scene_wmp.hpp"
#include "levelkit/convert/wmb_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/wmb/images.hpp"
#include "levelkit/wmb/wmb.hpp"
#include "support/corpus.hpp"

namespace lk::wmb {
namespace {

std::vector<std::filesystem::path> wmb_files() {
    return test::corpus_files("wmp", {".wmb"});
}

std::size_t entity_count(const Views& v) {
    std::size_t n = 0;
    for (const Object& o : v.objects) n += o.type != 5;  // everything but the level info
    return n;
}

TEST(WmbCorpus, EveryFileReadsAndWritesBackIdentically) {
    LK_REQUIRE_CORPUS();
    const auto files = wmb_files();
    ASSERT_FALSE(files.empty());
    std::map<int, std::pair<int, int>> by_version;  // identical, total
    std::size_t warnings_total = 0;
    for (const auto& p : files) {
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob.ok()) << p;
        Diagnostics w;
        auto f = read(*blob, w);
        ASSERT_TRUE(f.ok()) << p.filename() << ": " << f.error().to_string();
        auto out = write(*f);
        ASSERT_TRUE(out.ok());
        const bool same = out->size() == blob->size() &&
                          std::memcmp(out->data(), blob->bytes().data(), out->size()) == 0;
        EXPECT_TRUE(same) << p.filename();
        auto& [ok, total] = by_version[f->version];
        ok += same;
        ++total;
        for (const Diagnostic& d : w.items()) EXPECT_TRUE(d.has_offset()) << d.to_string();
        warnings_total += w.size();
        const Views& v = f->views;
        std::size_t faces = v.faces.size(), triangles = 0;
        for (const Block& b : v.blocks) triangles += b.triangles.size();
        std::printf(
            "  WMB%d %-62s lists %2zu: faces %5zu blocks %3zu triangles %5zu entities "
            "%4zu textures %2zu lightmaps %zu%s\n",
            f->version, p.filename().string().c_str(), f->lists.size(), faces, v.blocks.size(),
            triangles, entity_count(v), v.textures.size(),
            v.lightmaps.size() + v.terrain_lightmaps.size(), same ? "" : "  DIFFERS");
    }
    for (const auto& [ver, st] : by_version) {
        std::printf("  roundtrip WMB%d %d/%d identical\n", ver, st.first, st.second);
    }
    std::printf("  list warnings %zu (lists that overlap other data and do not decode)\n",
                warnings_total);
}

// Changing a list forces the new layout; the result must read back to the same lists.
TEST(WmbCorpus, NewLayoutKeepsEveryList) {
    LK_REQUIRE_CORPUS();
    int checked = 0;
    for (const auto& p : wmb_files()) {
        Diagnostics w;
        auto f = read(Blob::map_file(p).value(), w);
        ASSERT_TRUE(f.ok());
        File g = *f;
        g.source = {};  // no source: write() lays the file out anew
        auto out = write(g);
        ASSERT_TRUE(out.ok());
        Diagnostics w2;
        auto back = read(Blob::from_bytes(std::move(out).value()), w2);
        ASSERT_TRUE(back.ok()) << p.filename() << ": " << back.error().to_string();
        ASSERT_EQ(back->lists.size(), f->lists.size());
        for (std::size_t i = 0; i < f->lists.size(); ++i) {
            const ByteSpan a = f->lists[i].bytes(), b = back->lists[i].bytes();
            EXPECT_TRUE(a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin()))
                << p.filename() << " list " << i;
        }
        ++checked;
    }
    std::printf("  relayout: %d files read back with identical lists\n", checked);
}

// Reads `data`: an error must name a byte offset; a success must only carry located warnings,
// and its scene and WMP conversions must run.
void check_bad_input(ByteSpan data, const std::string& what, bool convert_too, int& errors,
                     int& warned) {
    Diagnostics w;
    auto f = read(data, w);
    if (!f) {
        ++errors;
        EXPECT_TRUE(f.error().has_offset()) << what << ": " << f.error().to_string();
        EXPECT_FALSE(f.error().path.empty()) << what << ": " << f.error().to_string();
        return;
    }
    warned += !w.empty();
    for (const Diagnostic& d : w.items()) {
        EXPECT_TRUE(d.has_offset()) << what << ": " << d.to_string();
        EXPECT_FALSE(d.path.empty()) << what << ": " << d.to_string();
    }
    if (!convert_too) return;
    Diagnostics d;
    auto s = convert::wmb_to_scene(*f, d);
    ASSERT_TRUE(s.ok());
    auto lv = convert::scene_to_wmp(*s, d);
    (void)lv;
    for (std::size_t i = 0; i < f->views.textures.size(); ++i) (void)texture_image(f->views, i);
}

TEST(WmbCorpus, TruncationsAndByteFlipsGiveLocatedErrors) {
    LK_REQUIRE_CORPUS();
    int variants = 0, errors = 0, warned = 0;
    for (const auto& p : wmb_files()) {
        const Blob blob = Blob::map_file(p).value();
        const ByteSpan all = blob.bytes();
        const std::size_t n = all.size();
        // Truncations: every byte of the header, then 48 cuts spread over the file.
        std::vector<std::size_t> cuts;
        for (std::size_t i = 0; i < std::min<std::size_t>(n, 170); ++i) cuts.push_back(i);
        for (std::size_t k = 1; k < 48; ++k) cuts.push_back(n * k / 48);
        for (std::size_t c : cuts) {
            ++variants;
            check_bad_input(all.first(c), p.filename().string() + " cut at " + std::to_string(c),
                            false, errors, warned);
        }
        // Byte flips: every word of the list table, then 64 places spread over the file (a
        // deterministic walk); the first 16 also go through both conversions.
        Bytes copy(all.begin(), all.end());
        std::vector<std::size_t> at;
        for (std::size_t i = 4; i < std::min<std::size_t>(n, 164); i += 4) at.push_back(i + 3);
        std::uint64_t x = 0x9E3779B97F4A7C15ull ^ n;
        for (int k = 0; k < 64; ++k) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            at.push_back(static_cast<std::size_t>(x % n));
        }
        for (std::size_t k = 0; k < at.size(); ++k) {
            const std::size_t i = at[k];
            copy[i] ^= std::byte{0xA5};
            ++variants;
            check_bad_input(copy, p.filename().string() + " flip at " + std::to_string(i),
                            k >= at.size() - 64 && k < at.size() - 48, errors, warned);
            copy[i] ^= std::byte{0xA5};
        }
    }
    std::printf(
        "  bad input: %d variants, %d located errors, %d read with located warnings, "
        "no crash\n",
        variants, errors, warned);
}

}  // namespace
}  // namespace lk::wmb
