// Test helpers: locating the shared real-file corpus and this repo's own fixtures.
//
// Corpus tests read files in place from $LEVELKIT_CORPUS (default ../shared/corpus next to the
// source tree) and skip with a clear message when it is absent, e.g. on a fresh clone.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "levelkit/core/text.hpp"

namespace lk::test {

inline std::filesystem::path source_dir() {
    return LEVELKIT_SOURCE_DIR;
}

inline std::optional<std::filesystem::path> corpus_dir() {
    std::filesystem::path p;
    if (const char* env = std::getenv("LEVELKIT_CORPUS"); env && *env) {
        p = env;
    } else {
        p = source_dir() / ".." / "shared" / "corpus";
    }
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) return std::nullopt;
    return std::filesystem::weakly_canonical(p, ec);
}

// Every regular file under corpus/<sub> whose name ends (case-insensitively) with one of `exts`,
// sorted by path. Empty if the corpus is absent.
inline std::vector<std::filesystem::path> corpus_files(const std::string& sub,
                                                       std::vector<std::string> exts) {
    std::vector<std::filesystem::path> out;
    auto dir = corpus_dir();
    if (!dir || !std::filesystem::is_directory(*dir / sub)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(*dir / sub)) {
        if (!e.is_regular_file()) continue;
        const std::string name = e.path().filename().string();
        for (const auto& x : exts) {
            if (lk::iends_with(name, x)) {
                out.push_back(e.path());
                break;
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

#define LK_REQUIRE_CORPUS()                                                         \
    do {                                                                            \
        if (!::lk::test::corpus_dir()) {                                            \
            GTEST_SKIP() << "corpus not found: set LEVELKIT_CORPUS or place it at " \
                            "../shared/corpus (corpus tests are skipped)";          \
        }                                                                           \
    } while (0)

inline std::filesystem::path fixture(const std::string& rel) {
    return source_dir() / "tests" / "fixtures" / rel;
}

}  // namespace lk::test
