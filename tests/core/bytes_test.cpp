#include <gtest/gtest.h>

#include "levelkit/core/bytes.hpp"

using namespace lk;

namespace {
Bytes bytes_of(std::initializer_list<int> v) {
    Bytes b;
    for (int x : v) b.push_back(std::byte(static_cast<unsigned char>(x)));
    return b;
}
}  // namespace

TEST(ByteReader, ReadsLittleAndBigEndian) {
    const Bytes b = bytes_of({0x01, 0x02, 0x03, 0x04});
    ByteReader le(b);
    EXPECT_EQ(le.u32("x"), 0x04030201u);
    ByteReader be(b, Endian::big);
    EXPECT_EQ(be.u32("x"), 0x01020304u);
    ByteReader h(b, Endian::big);
    EXPECT_EQ(h.u16("a"), 0x0102);
    EXPECT_EQ(h.u16("b"), 0x0304);
    EXPECT_TRUE(h.ok());
    EXPECT_TRUE(h.at_end());
}

TEST(ByteReader, TruncationIsStickyAndNamesFieldAndOffset) {
    const Bytes b = bytes_of({1, 2, 3});
    ByteReader r(b, Endian::little, 100);
    EXPECT_EQ(r.u16("first"), 0x0201);
    EXPECT_EQ(r.u32("lump_t::filelen"), 0u);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error().offset, 102);
    EXPECT_NE(r.error().message.find("lump_t::filelen"), std::string::npos);
    EXPECT_NE(r.error().message.find("needs 4 bytes, 1 remain"), std::string::npos);
    // Later reads return zero and keep the first error.
    EXPECT_EQ(r.u8("later"), 0);
    EXPECT_NE(r.error().message.find("lump_t::filelen"), std::string::npos);
}

TEST(ByteReader, CheckCountRejectsCountsLargerThanInput) {
    const Bytes b(16);
    ByteReader r(b);
    EXPECT_TRUE(r.check_count(4, 4, "ok"));
    EXPECT_FALSE(r.check_count(0xFFFFFFFFFFFFull, 12, "brushes"));
    EXPECT_EQ(r.error().code, "bytes.bad-count");
    ByteReader r2(b);
    EXPECT_FALSE(r2.check_count(UINT64_MAX, UINT64_MAX, "overflow"));
}

TEST(ByteReader, CStringNeedsTerminator) {
    const Bytes b = bytes_of({'a', 'b', 0, 'c'});
    ByteReader r(b);
    EXPECT_EQ(r.cstring("s"), "ab");
    EXPECT_EQ(r.cstring("t"), "");
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "bytes.unterminated-string");
}

TEST(ByteReader, SliceAndSubKeepAbsoluteOffsets) {
    Bytes b(32);
    ByteReader r(b, Endian::little, 1000);
    ByteReader s = r.slice(8, 4, "lump");
    EXPECT_EQ(s.abs_pos(), 1008u);
    s.u32("x");
    s.u8("y");
    EXPECT_EQ(s.error().offset, 1012);
    ByteReader bad = r.slice(30, 4, "lump[3]");
    EXPECT_FALSE(bad.ok());
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("lump[3]"), std::string::npos);
}

TEST(ByteWriter, WritesAndPatchesBothEndians) {
    ByteWriter w(Endian::big);
    w.u32(0x01020304);
    w.u16(0);
    w.patch<std::uint16_t>(4, 0xABCD);
    w.align(8, std::byte{0xEE});
    EXPECT_EQ(w.buffer(), bytes_of({1, 2, 3, 4, 0xAB, 0xCD, 0xEE, 0xEE}));
    ByteWriter l;
    l.f32(1.0f);
    ByteReader r(l.buffer());
    EXPECT_EQ(r.f32("f"), 1.0f);
}

namespace {
class Pieces final : public ByteSink {
public:
    Result<void> write(ByteSpan data) override {
        if (refuse) return Diagnostic::error("io.write", "cannot write: refused");
        got.emplace_back(data.begin(), data.end());
        return success();
    }
    std::vector<Bytes> got;
    bool refuse = false;
};
}  // namespace

// A draining writer hands over whole records once a chunk is full, keeps offsets of the whole
// output (patch works on what it still holds), and reports the sink's first error at finish().
TEST(ByteWriter, DrainsToASinkInChunks) {
    Pieces sink;
    ByteWriter w;
    w.drain_to(sink, 8);
    w.u32(1);
    w.drain();  // 4 bytes: kept
    EXPECT_TRUE(sink.got.empty());
    w.u32(2);
    w.u32(3);
    w.patch<std::uint32_t>(8, 7);
    w.drain();  // 12 bytes: handed over
    ASSERT_EQ(sink.got.size(), 1u);
    EXPECT_EQ(sink.got[0].size(), 12u);
    EXPECT_EQ(w.size(), 12u);
    w.u16(9);
    w.patch<std::uint16_t>(12, 5);
    EXPECT_EQ(w.size(), 14u);
    ASSERT_TRUE(w.finish());
    ASSERT_EQ(sink.got.size(), 2u);
    EXPECT_EQ(sink.got[0][8], std::byte{7});
    EXPECT_EQ(sink.got[1], (Bytes{std::byte{5}, std::byte{0}}));

    Pieces full;
    full.refuse = true;
    ByteWriter f;
    f.drain_to(full, 1);
    f.u8(1);
    f.drain();
    f.u8(2);
    auto r = f.finish();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "io.write");
}
