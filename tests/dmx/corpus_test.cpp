// Corpus round trips: every real DMX file reads, and writes back byte-identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "corpus_support.hpp"

namespace lk::dmx {
namespace {

TEST(DmxCorpus, RoundTripIsByteIdentical) {
    LK_REQUIRE_CORPUS();
    const auto files = test::dmx_corpus_files();
    ASSERT_FALSE(files.empty());
    std::size_t identical = 0, bytes = 0;
    for (const auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob.ok());
        auto doc = read(blob->bytes());
        if (!doc) {
            ADD_FAILURE() << "read failed: " << doc.error().to_string();
            continue;
        }
        auto out = write(doc.value());
        if (!out) {
            ADD_FAILURE() << "write failed: " << out.error().to_string();
            continue;
        }
        const ByteSpan a = blob->bytes();
        const Bytes& b = out.value();
        auto m = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
        if (m.first == a.end() && m.second == b.end()) {
            ++identical;
            bytes += a.size();
        } else {
            ADD_FAILURE() << "differs at byte " << (m.first - a.begin()) << " (sizes " << a.size()
                          << " / " << b.size() << ")";
        }
    }
    std::printf("[dmx corpus] %zu/%zu files byte-identical after read+write (%zu bytes)\n",
                identical, files.size(), bytes);
}

}  // namespace
}  // namespace lk::dmx
