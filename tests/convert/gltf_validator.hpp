// Runs the Khronos glTF-Validator (npm gltf-validator, through validate_gltf.js under node) over
// written files from a corpus test: expects no errors, prints warnings and infos by code. Skips
// with a message when node or the validator is not installed (scripts/deps.sh installs both).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/corpus.hpp"

namespace lk::test {

namespace fs = std::filesystem;

inline std::optional<fs::path> validator_modules() {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("LEVELKIT_GLTF_VALIDATOR"); env && *env)
        candidates.emplace_back(env);
    candidates.push_back(source_dir() / ".." / "npm" / "node_modules");
    for (const fs::path& p : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(p / "gltf-validator" / "package.json", ec)) return p;
    }
    return std::nullopt;
}

// Validates `files` in one node process; records failures; prints the issue codes.
inline void validate_gltf_files(const std::vector<fs::path>& files, const std::string& family) {
    const auto modules = validator_modules();
    if (!modules || std::system("node --version >/dev/null 2>&1") != 0) {
        std::printf(
            "[%s] glTF-Validator not run: node or npm gltf-validator not found "
            "(scripts/deps.sh installs them into ../npm; or set LEVELKIT_GLTF_VALIDATOR "
            "to a node_modules folder)\n",
            family.c_str());
        return;
    }
    const fs::path list = fs::path("gltf_corpus") / (family + ".list");
    std::string cmd = "NODE_PATH='" + modules->string() + "' node '" +
                      (source_dir() / "tests" / "convert" / "validate_gltf.js").string() + "'";
    for (const fs::path& f : files) cmd += " '" + f.string() + "'";
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    const int status = pclose(p);
    std::size_t errors = 0, warnings = 0, infos = 0, checked = 0;
    std::map<std::string, std::size_t> codes;
    std::size_t start = 0;
    while (start < out.size()) {
        std::size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        const std::string line = out.substr(start, end - start);
        start = end + 1;
        if (line.empty()) continue;
        const auto j = nlohmann::json::parse(line);
        ++checked;
        const int e = j.value("errors", -1);
        EXPECT_EQ(e, 0) << line;
        errors += std::size_t(std::max(e, 0));
        warnings += j.value("warnings", 0);
        infos += j.value("infos", 0);
        if (j.contains("codes")) {
            for (const auto& [k, v] : j["codes"].items()) codes[k] += v.get<std::size_t>();
        }
    }
    EXPECT_EQ(checked, files.size()) << "validator output:\n" << out;
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out.substr(0, 2000);
    std::printf("[%s] glTF-Validator: %zu files, %zu errors, %zu warnings, %zu infos\n",
                family.c_str(), checked, errors, warnings, infos);
    for (const auto& [k, v] : codes) std::printf("[%s]   %s: %zu\n", family.c_str(), k.c_str(), v);
}

}  // namespace lk::test
