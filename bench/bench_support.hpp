// Shared helpers for benchmarks: corpus lookup and peak memory.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace lk::bench {

inline std::filesystem::path corpus_dir() {
    if (const char* env = std::getenv("LEVELKIT_CORPUS"); env && *env) return env;
    return std::filesystem::path(LEVELKIT_SOURCE_DIR) / ".." / "shared" / "corpus";
}

// The `count` largest files under corpus/<sub> ending in `ext` (largest first).
inline std::vector<std::filesystem::path> largest(const std::string& sub, const std::string& ext,
                                                  std::size_t count) {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    const auto dir = corpus_dir() / sub;
    if (!std::filesystem::is_directory(dir, ec)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return std::filesystem::file_size(a) > std::filesystem::file_size(b);
    });
    if (out.size() > count) out.resize(count);
    return out;
}

// Peak resident set size of this process so far, in MB.
inline double peak_rss_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace lk::bench
