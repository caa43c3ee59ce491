// Bad input on real files: every truncation of a corpus file is an error that names a byte
// offset (binary) or a line (text) and a field; nothing crashes (run under ASan/UBSan in CI).
#include <gtest/gtest.h>

#include <cstdio>

#include "corpus_support.hpp"

namespace lk::dmx {
namespace {

TEST(DmxTruncation, EveryCutIsANamedError) {
    LK_REQUIRE_CORPUS();
    std::size_t cuts = 0, files = 0;
    for (const auto& f : test::dmx_corpus_files()) {
        SCOPED_TRACE(f.filename().string());
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob.ok());
        const ByteSpan all = blob->bytes();
        auto whole = read(all);
        ASSERT_TRUE(whole.ok());
        const bool text = whole->header.is_kv2() && !whole->container.gzip;
        ++files;
        // ~48 cuts spread over the file plus every one of the last 24 bytes.
        std::vector<std::size_t> at;
        for (std::size_t k = 0; k < 48; ++k) at.push_back(all.size() * k / 48);
        for (std::size_t k = 1; k <= 24 && k <= all.size(); ++k) at.push_back(all.size() - k);
        for (std::size_t n : at) {
            ++cuts;
            auto doc = read(all.first(n));
            if (doc.ok()) {
                // Text may end early and still be complete (a missing final line break).
                EXPECT_TRUE(text) << "binary prefix of " << n << " bytes was accepted";
                continue;
            }
            const Diagnostic& d = doc.error();
            EXPECT_TRUE(d.has_offset() || d.has_line()) << n << ": " << d.to_string();
            if (n > 64) {
                EXPECT_FALSE(d.path.empty()) << n << ": " << d.to_string();
            }
        }
    }
    std::printf("[dmx truncation] %zu cuts of %zu files: all rejected with a position\n", cuts,
                files);
}

}  // namespace
}  // namespace lk::dmx
