// Corpus tests: every WMP/WMPB/$$M file reads and writes back byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "levelkit/core/file.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "support/corpus.hpp"

namespace lk::wmp {
namespace {

std::vector<std::filesystem::path> level_files() {
    return test::corpus_files("wmp", {".wmp", ".$$m"});
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

}  // namespace
}  // namespace lk::wmp
