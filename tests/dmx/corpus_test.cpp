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

// A sink that keeps what it is given, piece by piece, and can refuse from a byte count on.
class Collect final : public ByteSink {
public:
    Result<void> write(ByteSpan data) override {
        if (bytes.size() + data.size() > fail_after) {
            return Diagnostic::error("io.write", "cannot write: No space left on device");
        }
        bytes.insert(bytes.end(), data.begin(), data.end());
        ++pieces;
        return success();
    }
    Bytes bytes;
    std::size_t pieces = 0;
    std::size_t fail_after = SIZE_MAX;
};

// write_to hands the same bytes to a sink as write() returns, in pieces for large binary
// files (what `levelkit convert` streams into its output file), and passes a sink's error on.
TEST(DmxCorpus, WriteToASinkGivesTheBytesOfWrite) {
    LK_REQUIRE_CORPUS();
    const auto files = test::dmx_corpus_files();
    ASSERT_FALSE(files.empty());
    std::size_t same = 0, in_pieces = 0, failed_as_told = 0;
    for (const auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob.ok());
        auto doc = read(blob->bytes());
        if (!doc) continue;
        auto whole = write(doc.value());
        ASSERT_TRUE(whole.ok());
        Collect sink;
        auto r = write_to(doc.value(), sink);
        ASSERT_TRUE(r.ok()) << r.error().to_string();
        EXPECT_TRUE(sink.bytes == whole.value());
        same += sink.bytes == whole.value();
        in_pieces += sink.pieces > 1;
        if (whole.value().size() > 16) {
            Collect full;
            full.fail_after = whole.value().size() / 2;
            auto e = write_to(doc.value(), full);
            ASSERT_FALSE(e.ok());
            EXPECT_EQ(e.error().code, "io.write");
            failed_as_told += !e.ok();
        }
    }
    std::printf(
        "[dmx corpus] write_to: %zu/%zu files the bytes of write(), %zu in more than one "
        "piece, %zu sink failures passed on\n",
        same, files.size(), in_pieces, failed_as_told);
    EXPECT_EQ(same, files.size());
    EXPECT_GT(in_pieces, 0u);
}

}  // namespace
}  // namespace lk::dmx
