// Same bytes every run: every corpus file is converted along every conversion the graph has from
// its format (`levelkit formats`), twice, into two folders, and every output and companion file
// must be identical. A conversion that refuses an input must refuse it the same way both times.
// Under the sanitizers (10-20x slower) only inputs up to 256 KB are taken and pictures are
// 256 pixels wide, not 1024 (the rasterizer's per-pixel loop was 60% of this test there); the
// Release build of the same suite covers every file at the default size.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "levelkit/any/jobs.hpp"
#include "levelkit/core/file.hpp"
#include "support/corpus.hpp"

using namespace lk;
namespace fs = std::filesystem;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

std::vector<fs::path> every_input() {
    std::vector<fs::path> out;
    for (auto v : {test::corpus_files("vmf", {".vmf"}), test::corpus_files("bsp", {".bsp", ".vmf"}),
                   test::corpus_files("dmx", {".vmap", ".dmx", ".pcf", ".vtex", ".dmx.gz"}),
                   test::corpus_files("wmp", {".wmp", ".$$m", ".wmb"}),
                   test::corpus_files("model", {".dmx", ".smd", ".dmx.gz"})}) {
        out.insert(out.end(), v.begin(), v.end());
    }
    return out;
}

// The files of a folder (names and bytes), for comparing two runs.
std::map<std::string, Bytes> files_in(const fs::path& dir) {
    std::map<std::string, Bytes> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        auto bytes = read_file(e.path());
        out[fs::relative(e.path(), dir).string()] = bytes ? std::move(bytes).value() : Bytes{};
    }
    return out;
}

}  // namespace

TEST(Determinism, EveryConversionTwiceGivesTheSameBytes) {
    LK_REQUIRE_CORPUS();
    const auto paths = all_paths();
    const fs::path work = fs::temp_directory_path() / fmt::format("lk-determinism-{}", ::getpid());
    std::size_t inputs = 0, conversions = 0, refused = 0, files = 0, differ = 0, skipped = 0;
    std::map<std::string, std::size_t> per_pair;
    for (const fs::path& input : every_input()) {
        std::error_code ec;
        if (kSanitized && fs::file_size(input, ec) > 256 * 1024) {
            ++skipped;
            continue;
        }
        auto doc = read_document(input);
        if (!doc)
            continue;  // not every corpus file is a document levelkit reads (counted elsewhere)
        const std::string from((*doc)->format());
        ++inputs;
        for (const ConversionPath& p : paths) {
            if (p.from->name != from || p.to->extensions.empty()) continue;
            const std::string name = "out" + std::string(p.to->extensions.front());
            std::optional<ConvertJobOutcome> first;
            for (int run = 0; run < 2; ++run) {
                const fs::path dir = work / (run == 0 ? "a" : "b");
                fs::remove_all(dir, ec);
                fs::create_directories(dir);
                ConvertJob job;
                job.input = input;
                job.output = dir / name;
                job.output_format = p.to;
                if (kSanitized && p.to->name == "png") job.options.set("size", "256");
                ConvertJobOutcome o = convert_file(job);
                if (run == 0) {
                    first = std::move(o);
                    continue;
                }
                ++conversions;
                ++per_pair[fmt::format("{} -> {}", p.from->name, p.to->name)];
                if (first->ok() != o.ok()) {
                    ADD_FAILURE() << input << " -> " << p.to->name << ": one run failed";
                    continue;
                }
                if (!o.ok()) {
                    ++refused;
                    EXPECT_EQ(first->error->to_string(), o.error->to_string())
                        << input << " -> " << p.to->name;
                    continue;
                }
                const auto a = files_in(work / "a"), b = files_in(work / "b");
                files += a.size();
                if (a != b) {
                    ++differ;
                    ADD_FAILURE() << input << " -> " << p.to->name << " (" << p.describe()
                                  << "): outputs differ between two runs";
                }
            }
        }
    }
    fs::remove_all(work);
    std::string pairs;
    for (const auto& [k, n] : per_pair)
        pairs += fmt::format("{}{} {}", pairs.empty() ? "" : ", ", k, n);
    std::printf(
        "[determinism] %zu inputs, %zu conversions run twice (%zu refused the same way both "
        "times), %zu output files compared, %zu differ%s\n[determinism] per pair: %s\n",
        inputs, conversions, refused, files, differ,
        skipped
            ? fmt::format(" ({} inputs over 256 KB skipped under the sanitizers)", skipped).c_str()
            : "",
        pairs.c_str());
    EXPECT_EQ(differ, 0u);
    EXPECT_GT(conversions, 0u);
}
