// The BSP container, spelled out: header, lump table, layout, LZMA lumps and game lumps.
#include <gtest/gtest.h>

#include <cstring>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/lzma.hpp"

using namespace lk;
using namespace lk::bsp;

namespace {

constexpr std::size_t kHeader = 8 + 64 * 16 + 4;  // ident, version, lump_t[64], mapRevision

struct RawLump {
    std::int32_t a = 0, b = 0, c = 0;  // in file order (standard: fileofs, filelen, version)
    std::uint32_t fourcc = 0;
};

// A header followed by `body`; lump entries given per index.
Bytes make_file(std::string_view magic, std::int32_t version, Endian e,
                const std::vector<std::pair<int, RawLump>>& lumps, ByteSpan body,
                std::int32_t revision = 7) {
    ByteWriter w(e);
    w.text(magic);
    w.i32(version);
    std::vector<RawLump> table(64);
    for (const auto& [i, l] : lumps) table[static_cast<std::size_t>(i)] = l;
    for (const RawLump& l : table) {
        w.i32(l.a);
        w.i32(l.b);
        w.i32(l.c);
        w.u32(l.fourcc);
    }
    w.i32(revision);
    w.bytes(body);
    return w.take();
}

Bytes bytes_of(std::string_view s) {
    return Bytes(as_bytes(s).begin(), as_bytes(s).end());
}

Bsp read_ok(const Bytes& file, Diagnostics* warnings = nullptr) {
    auto r = Bsp::read(Blob::copy_of(file), warnings);
    EXPECT_TRUE(r) << (r ? "" : r.error().to_string());
    return r ? std::move(r).value() : Bsp{};
}

Bytes write_ok(const Bsp& b) {
    auto w = b.write();
    EXPECT_TRUE(w) << (w ? "" : w.error().to_string());
    return w ? std::move(w).value() : Bytes{};
}

}  // namespace

TEST(BspContainer, HeaderIsIdentVersionSixtyFourLumpsAndRevision) {
    // One 4-byte lump (planes would be 20 bytes; any bytes do for the container) right after
    // the 1036-byte header.
    const Bytes file =
        make_file("VBSP", 20, Endian::little, {{1, {static_cast<std::int32_t>(kHeader), 4, 0, 0}}},
                  bytes_of("abcd"));
    Bsp b = read_ok(file);
    EXPECT_EQ(b.version(), 20);
    EXPECT_EQ(b.endian(), Endian::little);
    EXPECT_EQ(b.map_revision(), 7);
    EXPECT_EQ(b.header_layout(), HeaderLayout::standard);
    EXPECT_EQ(b.lump(LumpId::planes).data().text(), "abcd");
    EXPECT_TRUE(b.lump(LumpId::entities).empty());
    EXPECT_EQ(write_ok(b), file);
}

TEST(BspContainer, ConsoleMapsAreBigEndianWithMagicPSBV) {
    const Bytes file =
        make_file("PSBV", 20, Endian::big, {{0, {static_cast<std::int32_t>(kHeader), 2, 0, 0}}},
                  bytes_of("{}"));
    EXPECT_EQ(file[4], std::byte{0});
    EXPECT_EQ(file[7], std::byte{20});
    Bsp b = read_ok(file);
    EXPECT_EQ(b.endian(), Endian::big);
    EXPECT_EQ(b.lump(LumpId::entities).data().text(), "{}");
    EXPECT_EQ(write_ok(b), file);
}

TEST(BspContainer, Left4Dead2PutsTheLumpVersionFirst) {
    // lump_t = {version, fileofs, filelen, fourCC}; the standard reading would put the lump at
    // offset 0 with length 1036, inside the header, so the L4D2 order is chosen.
    const Bytes file = make_file("VBSP", 21, Endian::little,
                                 {{0, {0, static_cast<std::int32_t>(kHeader), 3, 0}},
                                  {1, {1, static_cast<std::int32_t>(kHeader) + 4, 4, 0}}},
                                 bytes_of(std::string_view("{}\0\0wxyz", 8)));
    Bsp b = read_ok(file);
    EXPECT_EQ(b.header_layout(), HeaderLayout::l4d2);
    EXPECT_EQ(b.lump(LumpId::planes).data().text(), "wxyz");
    EXPECT_EQ(b.lump(LumpId::planes).version, 1);
    EXPECT_EQ(write_ok(b), file);
}

// Empty lumps keep the offsets they were read with; once a lump grows, those offsets can look
// like lumps inside the file under the standard field order, and the written file would read
// back in the wrong order (fuzz_bsp). The writer then gives the empty lumps offset 0.
TEST(BspContainer, Left4Dead2OrderSurvivesAGrownLump) {
    std::vector<std::pair<int, RawLump>> lumps = {
        {0, {0, static_cast<std::int32_t>(kHeader), 3, 0}},
        {1, {1, static_cast<std::int32_t>(kHeader) + 4, 4, 0}}};
    for (int i = 10; i < 15; ++i) {
        lumps.push_back({i, {static_cast<std::int32_t>(kHeader) + 8, 100, 0, 0}});  // empty
    }
    const Bytes file =
        make_file("VBSP", 21, Endian::little, lumps, bytes_of(std::string_view("{}\0\0wxyz", 8)));
    Bsp b = read_ok(file);
    ASSERT_EQ(b.header_layout(), HeaderLayout::l4d2);
    EXPECT_EQ(write_ok(b), file);  // unchanged, it writes back byte for byte
    const std::string planes(4000, 'p');
    ASSERT_TRUE(b.set_lump(LumpId::planes, Blob::copy_of(planes)));
    const Bytes grown = write_ok(b);
    Bsp again = read_ok(grown);
    EXPECT_EQ(again.header_layout(), HeaderLayout::l4d2);
    EXPECT_EQ(again.lump(LumpId::planes).data().text(), planes);
    EXPECT_EQ(again.lump(LumpId::entities).data().text(), std::string_view("{}\0", 3));
}

TEST(BspContainer, ContagionHasAnExtraWordAfterTheVersion) {
    ByteWriter w;
    w.text("VBSP");
    w.i32(27);
    w.i32(0x12345678);  // the extra word, kept
    for (int i = 0; i < 64; ++i) {
        w.i32(i == 1 ? static_cast<std::int32_t>(kHeader + 4) : 0);
        w.i32(i == 1 ? 4 : 0);
        w.i32(0);
        w.u32(0);
    }
    w.i32(3);
    w.text("ABCD");
    const Bytes file = w.take();
    Bsp b = read_ok(file);
    EXPECT_EQ(b.header_layout(), HeaderLayout::contagion);
    EXPECT_EQ(b.lump(LumpId::planes).data().text(), "ABCD");
    EXPECT_EQ(write_ok(b), file);
}

TEST(BspContainer, LayoutOrderPaddingAndEmptyLumpOffsetsSurvive) {
    // Lumps stored out of index order, 4-byte aligned with zero padding, an empty lump pointing
    // at the next stored lump, another at 0, and two trailing pad bytes.
    const auto h = static_cast<std::int32_t>(kHeader);
    const Bytes file = make_file(
        "VBSP", 20, Endian::little,
        {{3, {h, 3, 0, 0}}, {2, {h + 4, 5, 0, 0}}, {7, {h + 4, 0, 1, 0}}, {9, {0, 0, 2, 0}}},
        bytes_of(std::string_view("abc\0defgh\0\0\0", 12)));
    Bsp b = read_ok(file);
    EXPECT_EQ(b.lump(LumpId::texdata).data().text(), "defgh");
    EXPECT_EQ(write_ok(b), file);

    // Growing the first lump moves the second, keeps the alignment, and the empty lump follows.
    ASSERT_TRUE(b.set_lump(LumpId::vertexes, Blob::copy_of(std::string_view("abcdef"))));
    const Bytes out = write_ok(b);
    Bsp again = read_ok(out);
    EXPECT_EQ(again.headers_as_read()[2].offset, h + 8);
    EXPECT_EQ(again.headers_as_read()[7].offset, h + 8);
    EXPECT_EQ(again.headers_as_read()[9].offset, 0);
    EXPECT_EQ(again.lump(LumpId::texdata).data().text(), "defgh");
}

TEST(BspContainer, LumpsSharingBytesStaySharedUntilOneIsEdited) {
    const auto h = static_cast<std::int32_t>(kHeader);
    // faces and faces_hdr point at the same four bytes, as some tools write them.
    const Bytes file = make_file("VBSP", 20, Endian::little,
                                 {{7, {h, 4, 1, 0}}, {58, {h, 4, 1, 0}}}, bytes_of("FACE"));
    Bsp b = read_ok(file);
    EXPECT_EQ(b.lump(LumpId::faces_hdr).data().text(), "FACE");
    EXPECT_EQ(write_ok(b), file);
    ASSERT_TRUE(b.set_lump(LumpId::faces, Blob::copy_of(std::string_view("NEW!"))));
    Bsp split = read_ok(write_ok(b));
    EXPECT_EQ(split.lump(LumpId::faces).data().text(), "NEW!");
    EXPECT_EQ(split.lump(LumpId::faces_hdr).data().text(), "FACE");
}

TEST(BspContainer, UnexplainedBytesBetweenLumpsAreKeptVerbatim) {
    const auto h = static_cast<std::int32_t>(kHeader);
    const Bytes file =
        make_file("VBSP", 20, Endian::little, {{1, {h + 6, 4, 0, 0}}}, bytes_of("junk!!wxyz"));
    Bsp b = read_ok(file);
    EXPECT_EQ(write_ok(b), file);
}

TEST(BspContainer, LzmaLumpsAreDecompressedAndTheirBytesReusedUntilEdited) {
    const std::string plain(1000, 'x');
    auto packed = valve_lzma_compress(as_bytes(plain));
    ASSERT_TRUE(packed);
    const auto h = static_cast<std::int32_t>(kHeader);
    // fourCC holds the uncompressed size of an LZMA lump.
    const Bytes file =
        make_file("VBSP", 20, Endian::little,
                  {{8, {h, static_cast<std::int32_t>(packed->size()), 1, 1000}}}, *packed);
    Bsp b = read_ok(file);
    EXPECT_EQ(b.lump(LumpId::lighting).compression(), Compression::lzma);
    EXPECT_EQ(b.lump(LumpId::lighting).data().text(), plain);
    EXPECT_EQ(write_ok(b), file);

    ASSERT_TRUE(b.set_compression(LumpId::lighting, Compression::none));
    Bsp plain_map = read_ok(write_ok(b));
    EXPECT_EQ(plain_map.lump(LumpId::lighting).compression(), Compression::none);
    EXPECT_EQ(plain_map.headers_as_read()[8].fourcc, 0u);
    EXPECT_EQ(plain_map.headers_as_read()[8].length, 1000);
    EXPECT_FALSE(b.set_compression(LumpId::pakfile, Compression::lzma));
}

TEST(BspContainer, LumpPastTheEndNamesTheLumpAndField) {
    const auto h = static_cast<std::int32_t>(kHeader);
    const Bytes file =
        make_file("VBSP", 20, Endian::little, {{40, {h, 100, 0, 0}}}, bytes_of("short"));
    auto r = Bsp::read(Blob::copy_of(file));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "bsp.bad-lump");
    EXPECT_EQ(r.error().path, "lump[40]/filelen");
    EXPECT_NE(r.error().message.find("pakfile"), std::string::npos);
    EXPECT_EQ(r.error().offset, static_cast<std::int64_t>(8 + 40 * 16));
}

TEST(BspContainer, TruncatedHeaderAndWrongMagicAreErrors) {
    auto shortr = Bsp::read(Blob::copy_of(std::string_view("VBSP\x14\0\0\0", 8)));
    ASSERT_FALSE(shortr);
    EXPECT_EQ(shortr.error().code, "bsp.truncated-header");
    auto wrong = Bsp::read(Blob::copy_of(std::string_view("IBSP\x2e\0\0\0", 8)));
    ASSERT_FALSE(wrong);
    EXPECT_EQ(wrong.error().code, "bsp.bad-magic");
}

namespace {

// A game lump directory: count, then {id, flags, version, fileofs, filelen} per entry.
Bytes game_lump_dir(Endian e,
                    const std::vector<std::tuple<std::uint32_t, std::uint16_t, std::uint16_t,
                                                 std::int32_t, std::int32_t>>& entries) {
    ByteWriter w(e);
    w.i32(static_cast<std::int32_t>(entries.size()));
    for (const auto& [id, flags, version, ofs, len] : entries) {
        w.u32(id);
        w.u16(flags);
        w.u16(version);
        w.i32(ofs);
        w.i32(len);
    }
    return w.take();
}

}  // namespace

TEST(BspGameLumps, OffsetsAreFileRelativeOnPcAndFixedUpOnWrite) {
    const auto h = static_cast<std::int32_t>(kHeader);
    // Game lump at the header's end: directory (4 + 2 * 16 bytes) then "sprp" and "dprp" data.
    Bytes body = game_lump_dir(
        Endian::little, {{fourcc("sprp"), 0, 10, h + 36, 4}, {fourcc("dprp"), 0, 4, h + 40, 2}});
    for (char c : std::string_view("SPRPDP")) body.push_back(std::byte(c));
    const Bytes file = make_file("VBSP", 20, Endian::little,
                                 {{35, {h, static_cast<std::int32_t>(body.size()), 0, 0}}}, body);
    Bsp b = read_ok(file);
    ASSERT_EQ(b.game_lumps().size(), 2u);
    EXPECT_FALSE(b.game_lump_offsets_relative());
    EXPECT_EQ(b.find_game_lump(fourcc("sprp"))->data().text(), "SPRP");
    EXPECT_EQ(b.find_game_lump(fourcc("dprp"))->version, 4);
    EXPECT_EQ(write_ok(b), file);

    // A new lump stored before the game lump moves it: the entries' offsets follow.
    ASSERT_TRUE(b.set_lump(LumpId::entities, Blob::copy_of(std::string_view("{}\n\0", 4))));
    Bsp moved = read_ok(write_ok(b));
    EXPECT_EQ(moved.find_game_lump(fourcc("dprp"))->data().text(), "DP");
}

// Another lump listing the game lump's very bytes (fuzz_bsp) does not share them when written:
// the game lump's entries hold file offsets, which must follow it when it moves.
TEST(BspGameLumps, ALumpSharingTheGameLumpsBytesDoesNotKeepItsOffsets) {
    const auto h = static_cast<std::int32_t>(kHeader);
    Bytes body = game_lump_dir(Endian::little, {{fourcc("dprp"), 0, 4, h + 20, 2}});
    for (char c : std::string_view("DP")) body.push_back(std::byte(c));
    const auto n = static_cast<std::int32_t>(body.size());
    const Bytes file =
        make_file("VBSP", 20, Endian::little, {{24, {h, n, 0, 0}}, {35, {h, n, 0, 0}}}, body);
    Bsp b = read_ok(file);
    ASSERT_EQ(b.game_lumps().size(), 1u);
    EXPECT_EQ(b.find_game_lump(fourcc("dprp"))->data().text(), "DP");
    // A new lump stored before both moves them.
    ASSERT_TRUE(b.set_lump(LumpId::entities, Blob::copy_of(std::string_view("{}\n\0", 4))));
    Bsp moved = read_ok(write_ok(b));
    EXPECT_EQ(moved.find_game_lump(fourcc("dprp"))->data().text(), "DP");
    EXPECT_EQ(moved.lump(static_cast<LumpId>(24)).bytes().size(), body.size());
}

TEST(BspGameLumps, ConsoleOffsetsAreRelativeAndCompressedEntriesEndAtTheNextOffset) {
    const auto h = static_cast<std::int32_t>(kHeader);
    auto packed = valve_lzma_compress(as_bytes(std::string(64, 'p')));
    ASSERT_TRUE(packed);
    const auto n = static_cast<std::int32_t>(packed->size());
    // sprp is compressed: filelen keeps the uncompressed size, the terminal null entry's
    // offset marks where the compressed bytes end. Offsets count from the game lump's start.
    const std::int32_t dir = 4 + 2 * 16;
    Bytes body =
        game_lump_dir(Endian::big, {{fourcc("sprp"), 1, 6, dir, 64}, {0, 0, 0, dir + n, 0}});
    body.insert(body.end(), packed->begin(), packed->end());
    const Bytes file = make_file("PSBV", 20, Endian::big,
                                 {{35, {h, static_cast<std::int32_t>(body.size()), 0, 0}}}, body);
    Bsp b = read_ok(file);
    EXPECT_TRUE(b.game_lump_offsets_relative());
    EXPECT_TRUE(b.has_terminal_game_lump());
    ASSERT_EQ(b.game_lumps().size(), 1u);
    EXPECT_TRUE(b.game_lumps()[0].compressed());
    EXPECT_EQ(b.game_lumps()[0].data().text(), std::string(64, 'p'));
    EXPECT_EQ(write_ok(b), file);
}

TEST(BspGameLumps, RepackCompressesWithATerminalEntryAndDecompressesBack) {
    Bsp b = Bsp::make_empty(20);
    ASSERT_TRUE(b.set_lump(LumpId::lighting, Blob::copy_of(std::string(4096, '\0'))));
    b.set_game_lump(fourcc("sprp"), 10, Blob::copy_of(std::string(512, 's')));
    b.set_game_lump(fourcc("dprp"), 4, Blob::copy_of(std::string(512, 'd')));
    ASSERT_TRUE(b.repack(Compression::lzma));
    Bsp packed = read_ok(write_ok(b));
    EXPECT_EQ(packed.lump(LumpId::lighting).compression(), Compression::lzma);
    EXPECT_EQ(packed.headers_as_read()[8].offset % 4, 0);
    EXPECT_TRUE(packed.has_terminal_game_lump());
    ASSERT_EQ(packed.game_lumps().size(), 2u);
    EXPECT_TRUE(packed.game_lumps()[0].compressed());
    EXPECT_EQ(packed.find_game_lump(fourcc("dprp"))->data().text(), std::string(512, 'd'));

    ASSERT_TRUE(packed.repack(Compression::none));
    Bsp plain = read_ok(write_ok(packed));
    EXPECT_EQ(plain.lump(LumpId::lighting).compression(), Compression::none);
    EXPECT_EQ(plain.lump(LumpId::lighting).data().text(), std::string(4096, '\0'));
    EXPECT_FALSE(plain.game_lumps()[0].compressed());
    EXPECT_EQ(plain.find_game_lump(fourcc("sprp"))->data().text(), std::string(512, 's'));
}

TEST(BspGameLumps, OffsetsOutsideTheLumpAreErrors) {
    const auto h = static_cast<std::int32_t>(kHeader);
    Bytes body = game_lump_dir(Endian::little, {{fourcc("sprp"), 0, 10, h + 5000, 4}});
    const Bytes file = make_file("VBSP", 20, Endian::little,
                                 {{35, {h, static_cast<std::int32_t>(body.size()), 0, 0}}}, body);
    auto r = Bsp::read(Blob::copy_of(file));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "bsp.gamelump-bad-offset");
    EXPECT_EQ(r.error().path, "lump[35]/entry[0]/fileofs");
}

TEST(BspLzma, ValveHeaderRoundTripAndLimits) {
    const std::string text =
        "The quick brown fox jumps over the lazy dog. " + std::string(300, 'z');
    auto packed = valve_lzma_compress(as_bytes(text));
    ASSERT_TRUE(packed);
    auto h = parse_valve_lzma_header(*packed);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->actual_size, text.size());
    EXPECT_EQ(h->lzma_size + kValveLzmaHeaderSize, packed->size());
    EXPECT_EQ(h->properties.bytes[0], 0x5d);  // lc=3 lp=0 pb=2, as Valve's encoder
    auto back = valve_lzma_decompress(*packed);
    ASSERT_TRUE(back);
    EXPECT_EQ(as_text(*back), text);

    // Truncated stream, and a size over the caller's limit.
    Bytes cut(packed->begin(), packed->end() - 4);
    store<std::uint32_t>(cut.data() + 8, static_cast<std::uint32_t>(cut.size() - 17),
                         Endian::little);
    EXPECT_FALSE(valve_lzma_decompress(cut));
    EXPECT_FALSE(valve_lzma_decompress(*packed, 10));
    // A forged 4 GiB dictionary in the properties does not make the decoder allocate it.
    Bytes forged = *packed;
    store<std::uint32_t>(forged.data() + 13, 0xFFFFFFFFu, Endian::little);
    auto f = valve_lzma_decompress(forged);
    ASSERT_TRUE(f);
    EXPECT_EQ(as_text(*f), text);
}
