// Damaged copies of corpus maps: truncations and garbled lump tables must give diagnostics that
// name the lump and field, never crashes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/map.hpp"
#include "support/corpus.hpp"

using namespace lk;
using namespace lk::bsp;

namespace {

// A few small maps covering the header variants (L4D2, big-endian, Strata, Contagion-free v23).
std::vector<std::filesystem::path> sample_maps() {
    std::vector<std::filesystem::path> out;
    for (const auto& p : lk::test::corpus_files("bsp", {".bsp"})) {
        const std::string name = p.filename().string();
        if (name == "l4d2_tooltextures.bsp" || name == "hl2_shack_x360.bsp" ||
            name == "momentum_mp_lobby.bsp" || name == "dota2s1_test.bsp" ||
            name == "tf2_test2.bsp" || name == "css_fy_iceworld_cssource.bsp") {
            out.push_back(p);
        }
    }
    return out;
}

bool names_a_place(const Diagnostic& d) {
    return !d.path.empty() && (d.path.rfind("lump[", 0) == 0 || d.path.rfind("header", 0) == 0);
}

}  // namespace

TEST(BspBadInput, TruncationsNameTheLumpThatNoLongerFits) {
    LK_REQUIRE_CORPUS();
    std::size_t cuts = 0, errors = 0;
    for (const auto& p : sample_maps()) {
        SCOPED_TRACE(p.string());
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto whole = Bsp::read(*blob);
        ASSERT_TRUE(whole);
        // Cut at every lump boundary (start, middle, end - 1) and inside the header.
        std::vector<std::size_t> at = {0, 4, 7, 100, 1035};
        for (const LumpHeader& h : whole->headers_as_read()) {
            if (h.length <= 0) continue;
            at.push_back(static_cast<std::size_t>(h.offset + h.length / 2));
            at.push_back(static_cast<std::size_t>(h.offset + h.length - 1));
        }
        for (std::size_t n : at) {
            if (n >= blob->size()) continue;
            ++cuts;
            auto r = Bsp::read(blob->slice(0, n));
            if (r) continue;  // cut inside padding only
            ++errors;
            EXPECT_TRUE(names_a_place(r.error())) << r.error().to_string();
            EXPECT_GE(r.error().offset, 0) << r.error().to_string();
        }
    }
    fmt::print("truncations: {} cuts, {} rejected with a lump/header path\n", cuts, errors);
    EXPECT_GT(errors, 0u);
}

TEST(BspBadInput, GarbledLumpTableEntriesAreRejectedByName) {
    LK_REQUIRE_CORPUS();
    std::size_t tried = 0;
    for (const auto& p : sample_maps()) {
        SCOPED_TRACE(p.string());
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto whole = Bsp::read(*blob);
        ASSERT_TRUE(whole);
        const std::size_t table = whole->header_layout() == HeaderLayout::contagion ? 12 : 8;
        const std::size_t length_field = whole->header_layout() == HeaderLayout::l4d2 ? 8 : 4;
        for (int i = 0; i < kLumpCount; ++i) {
            if (whole->headers_as_read()[static_cast<std::size_t>(i)].length == 0) continue;
            Bytes bad(blob->bytes().begin(), blob->bytes().end());
            // A length far past the end of the file.
            store<std::int32_t>(bad.data() + table + 16 * i + length_field, 0x7FFFFF00,
                                whole->endian());
            auto r = Bsp::read(Blob::from_bytes(std::move(bad)));
            ++tried;
            ASSERT_FALSE(r);
            EXPECT_EQ(r.error().path, fmt::format("lump[{}]/filelen", i)) << r.error().to_string();
        }
    }
    fmt::print("garbled lump lengths: {} tried, all rejected naming lump[N]/filelen\n", tried);
}

TEST(BspBadInput, ByteFlipsInsideLumpsNeverCrashTypedParsing) {
    LK_REQUIRE_CORPUS();
    std::size_t parsed = 0, rejected = 0;
    for (const auto& p : sample_maps()) {
        SCOPED_TRACE(p.string());
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        Bytes work(blob->bytes().begin(), blob->bytes().end());
        std::uint32_t seed = 12345;
        for (int round = 0; round < 40; ++round) {
            Bytes bad = work;
            for (int k = 0; k < 16; ++k) {
                seed = seed * 1664525u + 1013904223u;
                const std::size_t at = 1036 + seed % (bad.size() - 1036);
                bad[at] = std::byte(static_cast<std::uint8_t>(seed >> 24));
            }
            auto r = Bsp::read(Blob::from_bytes(std::move(bad)));
            if (!r) {
                ++rejected;
                continue;
            }
            Diagnostics diags;
            validate(*r, diags);
            for (const Diagnostic& d : diags.items()) {
                EXPECT_TRUE(d.severity != Severity::error || names_a_place(d)) << d.to_string();
            }
            ++parsed;
            auto out = r->write();
            EXPECT_TRUE(out);
        }
    }
    fmt::print("byte flips: {} damaged maps validated, {} rejected at read\n", parsed, rejected);
}
