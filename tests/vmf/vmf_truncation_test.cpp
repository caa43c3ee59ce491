// Broken input: every truncation and random byte damage must give an error with a line:column
// (or parse fine, for prefixes that happen to be complete) and never crash. Run under ASan.
#include <gtest/gtest.h>

#include <random>

#include "levelkit/core/file.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"
#include "support/corpus.hpp"
#include "support/vmf_summary.hpp"

using namespace lk;

namespace {

// Reads `text` both ways; any failure must be located.
void check(std::string_view text, const std::string& what) {
    auto doc = vmf::Document::read(text);
    if (!doc) {
        ASSERT_GT(doc.error().line, 0u) << what << ": " << doc.error().to_string();
        ASSERT_GT(doc.error().column, 0u) << what;
    } else {
        Diagnostics out;
        vmf::validate(doc->map(), out, &doc->tree());
        for (const Diagnostic& d : doc->diagnostics().items()) ASSERT_GT(d.line, 0u) << what;
    }
    Diagnostics d;
    auto map = vmf::read_map(Blob::copy_of(text), d);
    ASSERT_EQ(map.ok(), doc.ok()) << what;
    // The text cut into pieces and joined (forced even for small texts; read on this thread,
    // as thread starts would dominate) fails the same way, or not at all.
    vmf::ReadOptions opt;
    opt.threads = 1;
    opt.pieces = 6;
    opt.min_piece_bytes = 1;
    Diagnostics td;
    auto threaded = vmf::read_map(Blob::copy_of(text), td, opt);
    ASSERT_EQ(threaded.ok(), map.ok()) << what;
    if (!map.ok()) {
        ASSERT_EQ(threaded.error().to_string(), map.error().to_string()) << what;
    } else {
        ASSERT_TRUE(threaded.value() == map.value()) << what;
        ASSERT_EQ(td.size(), d.size()) << what;
    }
    // Its summary (in the same pieces) is that of the model, or the same error.
    ASSERT_EQ(test::summary_mismatch(Blob::copy_of(text), opt, std::move(map), d), "") << what;
}

std::string load(const std::filesystem::path& p) {
    return std::string(Blob::map_file(p).value().text());
}

}  // namespace

TEST(VmfBadInput, EveryTruncationOfTheSample) {
    const std::string text = load(test::source_dir() / "samples" / "demo.vmf");
    ASSERT_GT(text.size(), 1000u);
    std::size_t failed = 0;
    for (std::size_t n = 0; n < text.size(); n += 3) {
        check(std::string_view(text).substr(0, n), "prefix " + std::to_string(n));
        if (!vmf::Document::read(std::string_view(text).substr(0, n))) ++failed;
    }
    std::printf("sample: %zu prefixes tried, %zu rejected with a location\n", text.size() / 3,
                failed);
    EXPECT_GT(failed, text.size() / 6);
}

TEST(VmfBadInput, EveryTruncationOfSmallCorpusFiles) {
    LK_REQUIRE_CORPUS();
    std::size_t files = 0, prefixes = 0;
    for (const auto& f : test::corpus_files("vmf", {".vmf"})) {
        if (std::filesystem::file_size(f) > 12000 || files == 3) continue;
        ++files;
        const std::string text = load(f);
        for (std::size_t n = 0; n <= text.size(); ++n, ++prefixes) {
            check(std::string_view(text).substr(0, n),
                  f.filename().string() + " prefix " + std::to_string(n));
        }
    }
    std::printf("%zu small corpus files, %zu prefixes, all rejected with a location or read\n",
                files, prefixes);
}

TEST(VmfBadInput, SampledTruncationsAndDamageOfLargeFiles) {
    LK_REQUIRE_CORPUS();
    std::mt19937 rng(7);
    std::size_t tried = 0;
    for (const char* name : {"rd__rd-bio1operationx5.vmf", "p2cedev__sdk_d2_coast_12.vmf"}) {
        const auto path = *test::corpus_dir() / "vmf" / name;
        if (!std::filesystem::exists(path)) continue;
        const std::string text = load(path);
        for (int i = 0; i < 20; ++i, ++tried) {
            const std::size_t n = rng() % text.size();
            check(std::string_view(text).substr(0, n),
                  std::string(name) + " prefix " + std::to_string(n));
            std::string damaged = text;
            for (int k = 0; k < 20; ++k) {
                damaged[rng() % damaged.size()] = static_cast<char>("\"{}\n\r x0-.(["[rng() % 13]);
            }
            check(damaged, std::string(name) + " damaged #" + std::to_string(i));
        }
    }
    std::printf("%zu truncations and %zu damaged copies of large files\n", tried, tried);
}
