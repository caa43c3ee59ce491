// Corpus checks for the BSP container: every map reads and writes back byte-identical.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/pak.hpp"
#include "support/corpus.hpp"

using namespace lk;
using namespace lk::bsp;

namespace {

std::vector<std::filesystem::path> maps() {
    return lk::test::corpus_files("bsp", {".bsp"});
}

}  // namespace

TEST(BspCorpus, RoundTripIsByteIdentical) {
    LK_REQUIRE_CORPUS();
    std::size_t same = 0, total = 0, bytes = 0;
    for (const auto& p : maps()) {
        SCOPED_TRACE(p.string());
        ++total;
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        Diagnostics warnings;
        auto bsp = Bsp::read(*blob, &warnings);
        ASSERT_TRUE(bsp) << bsp.error().to_string();
        for (const auto& w : warnings.items()) fmt::print("  warning: {}\n", w.to_string());
        auto out = bsp->write();
        ASSERT_TRUE(out) << out.error().to_string();
        const ByteSpan a = blob->bytes();
        const bool eq = out->size() == a.size() && std::equal(a.begin(), a.end(), out->begin());
        if (!eq) {
            auto m = std::mismatch(a.begin(), a.end(), out->begin(), out->end());
            ADD_FAILURE() << "differs at byte " << (m.first - a.begin()) << " (sizes " << a.size()
                          << " vs " << out->size() << ")";
        } else {
            ++same;
            bytes += a.size();
        }
    }
    fmt::print("bsp round trip: {}/{} byte-identical ({} bytes)\n", same, total, bytes);
}

TEST(BspCorpus, PakfilesRoundTrip) {
    LK_REQUIRE_CORPUS();
    std::size_t paks = 0, entries = 0;
    for (const auto& p : maps()) {
        SCOPED_TRACE(p.string());
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto bsp = Bsp::read(*blob);
        ASSERT_TRUE(bsp);
        const Lump& l = bsp->lump(LumpId::pakfile);
        if (l.empty()) continue;
        const auto at = bsp->headers_as_read()[40].offset;
        auto pak = Pak::parse(l.data(), static_cast<std::uint64_t>(at));
        ASSERT_TRUE(pak) << pak.error().to_string();
        for (const PakEntry& e : pak->entries()) {
            auto c = Pak::contents(e);
            ASSERT_TRUE(c) << c.error().to_string();
        }
        auto w = pak->write(static_cast<std::uint64_t>(at));
        ASSERT_TRUE(w);
        EXPECT_TRUE(std::equal(l.bytes().begin(), l.bytes().end(), w->begin(), w->end()));
        ++paks;
        entries += pak->entries().size();
    }
    fmt::print("pakfiles: {} parsed, {} entries, all re-written identical\n", paks, entries);
}

TEST(BspCorpus, EntityLumpsRoundTrip) {
    LK_REQUIRE_CORPUS();
    std::size_t ents = 0, outputs_comma = 0, outputs_esc = 0, maps_n = 0;
    for (const auto& p : maps()) {
        SCOPED_TRACE(p.string());
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto bsp = Bsp::read(*blob);
        ASSERT_TRUE(bsp);
        Diagnostics warnings;
        auto e = entities(*bsp, &warnings);
        ASSERT_TRUE(e) << e.error().to_string();
        const Bytes w = e->write();
        const ByteSpan orig = bsp->lump(LumpId::entities).bytes();
        EXPECT_TRUE(std::equal(orig.begin(), orig.end(), w.begin(), w.end()));
        ASSERT_GT(e->size(), 0u);
        EXPECT_EQ(e->entities().front().get("classname"), "worldspawn");
        ents += e->size();
        ++maps_n;
        if (e->separator() == OutputSeparator::comma) ++outputs_comma;
        if (e->separator() == OutputSeparator::esc) ++outputs_esc;
    }
    fmt::print(
        "entity lumps: {} maps, {} entities, outputs comma-separated in {} maps, "
        "ESC-separated in {}\n",
        maps_n, ents, outputs_comma, outputs_esc);
}

// Valve's repack rules both ways: every lump's contents survive compress -> decompress.
// LZMA-compressing the maps over 1 MiB takes most of the time, so they only run with
// LEVELKIT_FULL_CORPUS=1; the rest cover every version and layout in the corpus.
TEST(BspCorpus, CompressThenDecompressKeepsEveryLump) {
    LK_REQUIRE_CORPUS();
    const char* full = std::getenv("LEVELKIT_FULL_CORPUS");
    const bool all = full && *full && *full != '0';
    constexpr std::uintmax_t kQuickLimit = 1u << 20;
    std::size_t maps_n = 0, compressed = 0, in_bytes = 0, packed_bytes = 0;
    for (const auto& p : maps()) {
        SCOPED_TRACE(p.string());
        if (!all && std::filesystem::file_size(p) > kQuickLimit) continue;
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto orig = Bsp::read(*blob);
        ASSERT_TRUE(orig);
        Bsp work = *orig;
        ASSERT_TRUE(work.repack(Compression::lzma));
        auto packed = work.write();
        ASSERT_TRUE(packed) << packed.error().to_string();
        auto reread = Bsp::read(Blob::from_bytes(*packed));
        ASSERT_TRUE(reread) << reread.error().to_string();
        Bsp back = *reread;
        ASSERT_TRUE(back.repack(Compression::none));
        auto plain = back.write();
        ASSERT_TRUE(plain);
        auto final_map = Bsp::read(Blob::from_bytes(*plain));
        ASSERT_TRUE(final_map);
        for (int i = 0; i < kLumpCount; ++i) {
            SCOPED_TRACE(lump_name(i));
            if (i == index_of(LumpId::game_lump)) continue;
            const ByteSpan a = orig->lump(i).bytes();
            for (const Bsp* b : {&*reread, &*final_map}) {
                const ByteSpan c = b->lump(i).bytes();
                EXPECT_TRUE(std::equal(a.begin(), a.end(), c.begin(), c.end()));
            }
            if (reread->lump(i).compression() == Compression::lzma) ++compressed;
            EXPECT_EQ(final_map->lump(i).compression(), Compression::none);
        }
        ASSERT_EQ(orig->game_lumps().size(), final_map->game_lumps().size());
        for (std::size_t k = 0; k < orig->game_lumps().size(); ++k) {
            for (const Bsp* b : {&*reread, &*final_map}) {
                const GameLump& g0 = orig->game_lumps()[k];
                const GameLump& g1 = b->game_lumps()[k];
                EXPECT_EQ(g0.id, g1.id);
                EXPECT_EQ(g0.version, g1.version);
                EXPECT_TRUE(std::equal(g0.bytes().begin(), g0.bytes().end(), g1.bytes().begin(),
                                       g1.bytes().end()));
            }
        }
        ++maps_n;
        in_bytes += blob->size();
        packed_bytes += packed->size();
    }
    fmt::print(
        "compress/decompress: {} maps, {} lumps compressed, {} -> {} bytes; every lump "
        "and game lump restored\n",
        maps_n, compressed, in_bytes, packed_bytes);
}
