// Corpus tests: every WMP/WMPB/$$M file reads and writes back byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "level_compare.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "runs_compare.hpp"
#include "support/corpus.hpp"

namespace lk::wmp {
namespace {

std::vector<std::filesystem::path> level_files() {
    return lk::test::corpus_files("wmp", {".wmp", ".$$m"});
}

TEST(WmpCorpus, RoundTripIsByteIdentical) {
    LK_REQUIRE_CORPUS();
    const auto files = level_files();
    ASSERT_FALSE(files.empty()) << "no WMP files under corpus/wmp";
    std::map<std::string, std::pair<int, int>> by_dialect;  // identical, total
    int failed = 0;
    for (const auto& f : files) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob.ok()) << f;
        auto file = read(blob.value());
        if (!file) {
            ADD_FAILURE() << f.filename() << ": " << file.error().to_string();
            ++failed;
            continue;
        }
        auto out = write(file.value());
        ASSERT_TRUE(out.ok()) << f.filename() << ": " << out.error().to_string();
        const ByteSpan a = blob->bytes();
        const Bytes& b = out.value();
        auto& [same, total] = by_dialect[std::string(to_string(file->dialect))];
        ++total;
        if (a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0) {
            ++same;
        } else {
            auto m = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
            ADD_FAILURE() << f.filename() << ": differs at byte " << (m.first - a.begin())
                          << " (sizes " << a.size() << " / " << b.size() << ")";
        }
    }
    int same_all = 0, total_all = 0;
    for (const auto& [d, st] : by_dialect) {
        std::printf("  roundtrip %-8s %d/%d identical\n", d.c_str(), st.first, st.second);
        same_all += st.first;
        total_all += st.second;
    }
    std::printf("  roundtrip total    %d/%d identical, %d failed to read\n", same_all, total_all,
                failed);
}

// The text readers' record runs against the general lexer alone, on every corpus text: the
// same level to the bit, every token at the same place.
TEST(WmpCorpus, RecordRunsReadAsTheGeneralLexer) {
    LK_REQUIRE_CORPUS();
    int checked = 0;
    for (const auto& f : level_files()) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob.ok()) << f;
        const auto d = detect(blob->bytes());
        if (!d || *d == Dialect::wmpb || *d == Dialect::a3) continue;
        Diagnostics w1, w2;
        auto runs = read(blob.value(), w1);
        auto general = read(blob.value(), w2, {.record_runs = false});
        ASSERT_EQ(runs.ok(), general.ok()) << f.filename();
        if (!runs.ok()) {
            EXPECT_EQ(runs.error().to_string(), general.error().to_string()) << f.filename();
            continue;
        }
        EXPECT_EQ(test::runs_difference(runs->level, general->level, true), "") << f.filename();
        EXPECT_EQ(w1.size(), w2.size()) << f.filename();
        ++checked;
    }
    std::printf("  record runs against the general lexer: %d texts\n", checked);
    EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace lk::wmp

namespace lk::wmp {
namespace {

// Without its layout a level is written in WED's canonical style; reading that back must give
// the same values (six printed decimals, hence the tolerance).
TEST(WmpCorpus, CanonicalRewriteReadsBackTheSameLevel) {
    LK_REQUIRE_CORPUS();
    int checked = 0;
    for (const auto& f : level_files()) {
        auto file = read(Blob::map_file(f).value());
        ASSERT_TRUE(file.ok()) << f;
        if (file->dialect == Dialect::wmpb || file->dialect == Dialect::a3) continue;
        Level bare = file->level;
        bare.layout = {};
        bare.record_spans.clear();
        bare.prologue_span = {};
        auto text = write_text(bare);
        ASSERT_TRUE(text.ok()) << f;
        auto again = read(Blob::copy_of(text.value()));
        ASSERT_TRUE(again.ok()) << f.filename() << ": " << again.error().to_string();
        EXPECT_EQ(test::level_difference(file->level, again->level), "") << f.filename();
        ++checked;
    }
    std::printf("  canonical rewrite re-read: %d text files\n", checked);
}

TEST(WmpCorpus, A3CanonicalRewriteReadsBack) {
    LK_REQUIRE_CORPUS();
    int checked = 0;
    for (const auto& f : level_files()) {
        auto file = read(Blob::map_file(f).value());
        ASSERT_TRUE(file.ok()) << f;
        if (file->dialect != Dialect::a3) continue;
        A3Level bare = file->a3;
        bare.layout = {};
        bare.spans.clear();
        auto again = read_a3(Blob::copy_of(write_a3(bare)));
        ASSERT_TRUE(again.ok()) << again.error().to_string();
        EXPECT_EQ(again->walls.size(), file->a3.walls.size());
        EXPECT_EQ(again->vertices.size(), file->a3.vertices.size());
        ASSERT_EQ(again->order.size(), file->a3.order.size());
        for (std::size_t i = 0; i < file->a3.vertices.size(); ++i) {
            EXPECT_NEAR(again->vertices[i].x, file->a3.vertices[i].x, 5e-4);
        }
        ++checked;
    }
    std::printf("  A3 canonical rewrite: %d files\n", checked);
}

// WMPB -> WMP2 text -> WMPB keeps every value the model holds.
TEST(WmpCorpus, WmpbToTextAndBack) {
    LK_REQUIRE_CORPUS();
    int checked = 0, identical = 0;
    for (const auto& f : level_files()) {
        auto blob = Blob::map_file(f).value();
        auto file = read(blob);
        ASSERT_TRUE(file.ok()) << f;
        if (file->dialect != Dialect::wmpb) continue;
        auto text = convert(file->level, Dialect::wmp2_a6);
        ASSERT_TRUE(text.ok()) << f.filename() << ": " << text.error().to_string();
        auto bytes = write_text(text.value());
        ASSERT_TRUE(bytes.ok());
        auto reread = read(Blob::copy_of(bytes.value()));
        ASSERT_TRUE(reread.ok()) << f.filename() << ": " << reread.error().to_string();
        EXPECT_EQ(test::level_difference(file->level, reread->level, 1e-5), "") << f.filename();
        auto back = convert(reread->level, Dialect::wmpb);
        ASSERT_TRUE(back.ok()) << back.error().to_string();
        auto wmpb = write_wmpb(back.value());
        ASSERT_TRUE(wmpb.ok());
        auto again = read_wmpb(Blob::from_bytes(wmpb.value()));
        ASSERT_TRUE(again.ok()) << again.error().to_string();
        EXPECT_EQ(test::level_difference(file->level, again.value(), 1e-5), "") << f.filename();
        // Byte identity once what text cannot carry (the banner naming the writer, WED's
        // texture folder list) is put back.
        Level restored = back.value();
        restored.header.wmpb_banner = file->level.header.wmpb_banner;
        restored.wed.texture_folders = file->level.wed.texture_folders;
        auto rb = write_wmpb(restored);
        ASSERT_TRUE(rb.ok());
        const bool same = rb.value().size() == blob.size() &&
                          std::memcmp(rb.value().data(), blob.bytes().data(), blob.size()) == 0;
        identical += same;
        if (!same) std::printf("    not byte-identical: %s\n", f.filename().string().c_str());
        ++checked;
    }
    std::printf(
        "  WMPB -> text -> WMPB: %d files equal in value, %d byte-identical apart from "
        "banner and texture folders\n",
        checked, identical);
}

// WMP2 text -> WMPB -> text keeps every value (A4 plane blocks become polygon blocks).
TEST(WmpCorpus, TextToWmpbAndBack) {
    LK_REQUIRE_CORPUS();
    int checked = 0;
    for (const auto& f : level_files()) {
        auto file = read(Blob::map_file(f).value());
        ASSERT_TRUE(file.ok()) << f;
        if (!is_wmp2(file->dialect)) continue;
        auto bin = convert(file->level, Dialect::wmpb);
        ASSERT_TRUE(bin.ok()) << f.filename() << ": " << bin.error().to_string();
        auto bytes = write_wmpb(bin.value());
        ASSERT_TRUE(bytes.ok());
        auto reread = read_wmpb(Blob::from_bytes(bytes.value()));
        ASSERT_TRUE(reread.ok()) << f.filename() << ": " << reread.error().to_string();
        Level expected = file->level;
        for (Block& b : expected.blocks) ASSERT_TRUE(plane_block_to_polygons(b));
        EXPECT_EQ(test::level_difference(expected, reread.value(), 1e-5, false, 50.0 / 255.0), "")
            << f.filename();
        ++checked;
    }
    std::printf("  WMP2 text -> WMPB -> read: %d files equal in value\n", checked);
}

// Truncated files give located errors (WMPB: always; text: unless the cut falls between
// records) and never crash.
TEST(WmpCorpus, TruncatedFilesGiveLocatedErrors) {
    LK_REQUIRE_CORPUS();
    std::map<std::string, std::pair<int, int>> figures;  // errors, cuts
    for (const auto& f : level_files()) {
        auto blob = Blob::map_file(f).value();
        const auto dialect = detect(blob.bytes());
        ASSERT_TRUE(dialect.has_value());
        const std::size_t n = blob.size();
        for (int k = 1; k <= 24; ++k) {
            const std::size_t cut = n * static_cast<std::size_t>(k) / 25;
            auto r = read(Blob::copy_of(blob.bytes().first(cut)));
            auto& [errors, cuts] = figures[std::string(to_string(*dialect))];
            ++cuts;
            if (r.ok()) {
                EXPECT_NE(*dialect, Dialect::wmpb) << f.filename() << " cut at " << cut;
                continue;
            }
            ++errors;
            const Diagnostic& d = r.error();
            EXPECT_TRUE(d.has_offset() || d.has_line()) << d.to_string();
        }
    }
    for (const auto& [d, v] : figures) {
        std::printf("  truncated %-8s %d/%d cuts rejected with a located error\n", d.c_str(),
                    v.first, v.second);
    }
}

// Garbled bytes: never a crash; whatever still reads writes back byte for byte.
TEST(WmpCorpus, GarbledFilesNeverCrash) {
    LK_REQUIRE_CORPUS();
    std::uint32_t seed = 12345;
    auto rnd = [&] {
        seed = seed * 1664525u + 1013904223u;
        return seed >> 8;
    };
    int rejected = 0, accepted = 0;
    const auto files = level_files();
    for (std::size_t fi = 0; fi < files.size(); fi += 4) {
        auto blob = Blob::map_file(files[fi]).value();
        if (blob.size() < 16) continue;
        for (int v = 0; v < 12; ++v) {
            Bytes b(blob.bytes().begin(), blob.bytes().end());
            for (int k = 0; k < 4; ++k) b[rnd() % b.size()] = static_cast<std::byte>(rnd() & 0xFF);
            auto r = read(Blob::from_bytes(b));
            if (!r) {
                ++rejected;
                EXPECT_TRUE(r.error().has_offset() || r.error().has_line());
                continue;
            }
            ++accepted;
            auto w = write(r.value());
            ASSERT_TRUE(w.ok());
            EXPECT_TRUE(w.value() == b) << files[fi].filename() << " variant " << v;
        }
    }
    std::printf("  garbled: %d rejected with located errors, %d still valid and lossless\n",
                rejected, accepted);
}

}  // namespace
}  // namespace lk::wmp
