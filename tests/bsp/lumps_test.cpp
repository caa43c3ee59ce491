// Typed lumps, props, entities and the pakfile, each rule as a small inline fixture.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/map.hpp"
#include "levelkit/bsp/pak.hpp"
#include "levelkit/bsp/props.hpp"

using namespace lk;
using namespace lk::bsp;

namespace {

Bsp map_with(std::int32_t version, LumpId id, Bytes data, std::int32_t lump_version = 0,
             Endian e = Endian::little) {
    Bsp b = Bsp::make_empty(version, e);
    EXPECT_TRUE(b.set_lump(id, Blob::from_bytes(std::move(data))));
    b.set_lump_version(id, lump_version);
    return b;
}

template <class T>
Bytes encoded(const Bsp& b, LumpId id, const std::vector<T>& items) {
    auto r = encode(b, id, std::span<const T>(items));
    EXPECT_TRUE(r) << (r ? "" : r.error().to_string());
    return r ? std::move(r).value() : Bytes{};
}

}  // namespace

TEST(BspLumps, PlanesAreTwentyByteRecordsBorrowedWithoutCopying) {
    ByteWriter w;
    for (float f : {0.f, 0.f, 1.f, 64.f}) w.f32(f);
    w.i32(2);  // PLANE_Z
    Bsp b = map_with(20, LumpId::planes, w.take());
    auto p = planes(b);
    ASSERT_TRUE(p);
    ASSERT_EQ(p->size(), 1u);
    EXPECT_EQ((*p)[0].normal, (Vec3f{0, 0, 1}));
    EXPECT_EQ((*p)[0].dist, 64.f);
    EXPECT_EQ((*p)[0].type, 2);
    EXPECT_TRUE(p->borrowed());
}

TEST(BspLumps, BigEndianRecordsAreDecodedIntoCopies) {
    ByteWriter w(Endian::big);
    for (float f : {1.f, 0.f, 0.f, -32.f}) w.f32(f);
    w.i32(0);
    Bsp b = map_with(20, LumpId::planes, w.take(), 0, Endian::big);
    auto p = planes(b);
    ASSERT_TRUE(p);
    EXPECT_EQ((*p)[0].normal.x, 1.f);
    EXPECT_EQ((*p)[0].dist, -32.f);
    EXPECT_FALSE(p->borrowed());
    EXPECT_EQ(encoded(b, LumpId::planes, std::vector<dplane_t>(p->begin(), p->end())),
              Bytes(b.lump(LumpId::planes).bytes().begin(), b.lump(LumpId::planes).bytes().end()));
}

TEST(BspLumps, SizeThatIsNotWholeRecordsIsAnError) {
    Bsp b = map_with(20, LumpId::planes, Bytes(30));
    auto p = planes(b);
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().code, "bsp.bad-lump-size");
    EXPECT_EQ(p.error().path, "lump[1]/filelen");
}

TEST(BspLumps, StandardFacesAre56BytesAndStrataFaces72) {
    dface_t f;
    f.planenum = 3;
    f.side = 1;
    f.firstedge = 10;
    f.numedges = 4;
    f.texinfo = -1;
    f.dispinfo = -1;
    f.origFace = 2;
    f.m_NumPrims = 0x8001;  // top bit: no dynamic shadows
    Bsp std_map = Bsp::make_empty(20);
    const Bytes std_bytes = encoded(std_map, LumpId::faces, std::vector<dface_t>{f});
    EXPECT_EQ(std_bytes.size(), 56u);
    Bsp strata = Bsp::make_empty(25);
    strata.set_lump_version(LumpId::faces, 2);
    const Bytes strata_bytes = encoded(strata, LumpId::originalfaces, std::vector<dface_t>{f});
    EXPECT_EQ(strata_bytes.size(), 72u);  // original faces follow the faces lump's layout

    Bsp back = map_with(20, LumpId::faces, std_bytes, 1);
    auto v = faces(back);
    ASSERT_TRUE(v);
    EXPECT_EQ((*v)[0].planenum, 3u);
    EXPECT_EQ((*v)[0].texinfo, -1);
    EXPECT_EQ((*v)[0].num_prims(), 1u);

    // A value too wide for the 16-bit standard field is reported, not truncated.
    f.planenum = 70000;
    auto too_wide = encode(std_map, LumpId::faces, std::span<const dface_t>(&f, 1));
    ASSERT_FALSE(too_wide);
    EXPECT_EQ(too_wide.error().code, "bsp.value-out-of-range");
    EXPECT_EQ(too_wide.error().path, "lump[7]/record[0]");
}

// Node bounds are doubles in memory (a Strata map reads them as floats: any value, NaN
// included); a standard map stores int16 and VitaminSource int32. Bounds those cannot hold are
// reported, and never cast (a double -> int16 cast out of range is undefined behaviour; the
// writer did the cast after its range check had failed).
TEST(BspLumps, NodeBoundsOutOfTheIntegerFieldAreReportedNotCast) {
    for (const double bad : {1e10, -1e10, std::nan(""), 32768.0, 2147483648.0}) {
        dnode_t n;
        n.mins[1] = bad;
        Bsp std_map = Bsp::make_empty(20);
        auto r = encode(std_map, LumpId::nodes, std::span<const dnode_t>(&n, 1));
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "bsp.value-out-of-range") << bad;
        EXPECT_EQ(r.error().path, "lump[5]/record[0]") << bad;
    }
    dnode_t ok;
    ok.mins[0] = -32768;
    ok.maxs[2] = 32767;
    Bsp std_map = Bsp::make_empty(20);
    EXPECT_TRUE(encode(std_map, LumpId::nodes, std::span<const dnode_t>(&ok, 1)));
}

TEST(BspLumps, LeafAreaAndFlagsUnpackFromTheBitfield) {
    // Standard: short area:9 (low bits), flags:7.  0x0802 -> area 2, flags 4 (2D sky).
    ByteWriter w;
    w.i32(1);       // contents
    w.i16(5);       // cluster
    w.u16(0x0802);  // area | flags << 9
    for (int i = 0; i < 6; ++i) w.i16(static_cast<std::int16_t>(i * 8 - 16));
    for (int i = 0; i < 4; ++i) w.u16(static_cast<std::uint16_t>(i));
    w.i16(-1);  // leafWaterDataID
    w.u16(0);   // padding
    Bsp b = map_with(20, LumpId::leafs, w.take(), 1);
    auto l = leafs(b);
    ASSERT_TRUE(l);
    EXPECT_EQ((*l)[0].area, 2);
    EXPECT_EQ((*l)[0].flags, 4);
    EXPECT_EQ((*l)[0].mins[0], -16.f);
    EXPECT_EQ((*l)[0].leafWaterDataID, -1);

    // Strata: int with flags in the low 17 bits and the area above.
    ByteWriter s;
    s.i32(1);
    s.i32(5);
    s.u32((3u << 17) | 1u);
    for (int i = 0; i < 6; ++i) s.f32(0.5f);
    for (int i = 0; i < 4; ++i) s.u32(0);
    s.i32(-1);
    Bsp strata = map_with(25, LumpId::leafs, s.take(), 2);
    auto sl = leafs(strata);
    ASSERT_TRUE(sl);
    EXPECT_EQ((*sl)[0].area, 3);
    EXPECT_EQ((*sl)[0].flags, 1);
    EXPECT_EQ((*sl)[0].mins[0], 0.5f);
}

TEST(BspLumps, EdgesAndLeafIndicesWidenToThirtyTwoBits) {
    ByteWriter w;
    w.u16(1);
    w.u16(65535);
    Bsp b = map_with(20, LumpId::edges, w.take());
    auto e = edges(b);
    ASSERT_TRUE(e);
    EXPECT_EQ((*e)[0].v[1], 65535u);
    ByteWriter s;
    s.u32(1);
    s.u32(100000);
    Bsp strata = map_with(25, LumpId::edges, s.take(), 1);
    auto se = edges(strata);
    ASSERT_TRUE(se);
    EXPECT_EQ((*se)[0].v[1], 100000u);
}

TEST(BspLumps, VisibilityRunLengthDecompression) {
    // 10 clusters -> 2 bytes per row. Cluster 0's PVS: literal 0x05, then a run of one zero.
    ByteWriter w;
    w.i32(10);
    for (int c = 0; c < 10; ++c) {
        w.i32(84);  // every PVS row points at the same bytes, every PAS row 3 bytes later
        w.i32(87);
    }
    w.u8(0x05);
    w.u8(0x00);
    w.u8(0x01);
    w.u8(0xFF);
    w.u8(0x03);
    Bsp b = map_with(20, LumpId::visibility, w.take());
    auto v = visibility(b);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->numclusters, 10);
    auto pvs = v->decompress(0, Visibility::kPvs);
    ASSERT_TRUE(pvs);
    EXPECT_EQ(*pvs, (Bytes{std::byte{0x05}, std::byte{0x00}}));
    auto pas = v->decompress(9, Visibility::kPas);
    ASSERT_TRUE(pas);
    EXPECT_EQ(*pas, (Bytes{std::byte{0xFF}, std::byte{0x03}}));
    EXPECT_FALSE(v->decompress(10, Visibility::kPvs));
}

TEST(BspLumps, TextureNamesResolveThroughTheStringTable) {
    Bsp b = Bsp::make_empty(20);
    ASSERT_TRUE(b.set_lump(LumpId::texdata_string_data,
                           Blob::copy_of(std::string_view("TOOLS/TOOLSNODRAW\0BRICK/A\0", 26))));
    ByteWriter t;
    t.i32(0);
    t.i32(18);
    ASSERT_TRUE(b.set_lump(LumpId::texdata_string_table, Blob::from_bytes(t.take())));
    auto s = texdata_strings(b);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->names, (std::vector<std::string_view>{"TOOLS/TOOLSNODRAW", "BRICK/A"}));
    ByteWriter bad;
    bad.i32(99);
    ASSERT_TRUE(b.set_lump(LumpId::texdata_string_table, Blob::from_bytes(bad.take())));
    auto e = texdata_strings(b);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().path, "lump[44]/record[0]");
}

namespace {

// A sprp game lump: dictionary, leaf list, then `count` records of `size` bytes.
Bytes sprp(std::size_t size, int count, int leaves = 1) {
    ByteWriter w;
    w.i32(1);
    std::string name = "models/props/crate.mdl";
    name.resize(128, '\0');
    w.text(name);
    w.i32(leaves);
    for (int i = 0; i < leaves; ++i) w.u16(static_cast<std::uint16_t>(i));
    w.i32(count);
    for (int i = 0; i < count; ++i) {
        const std::size_t start = w.size();
        for (float f : {16.f, 32.f, 48.f, 0.f, 90.f, 0.f}) w.f32(f);
        w.u16(0);  // model
        w.u16(0);  // first leaf
        w.u16(1);  // leaf count
        w.u8(6);   // solid
        w.u8(0);
        w.zeros(size - (w.size() - start));
    }
    return w.take();
}

Bsp map_with_props(std::int32_t bsp_version, std::uint16_t version, Bytes lump) {
    Bsp b = Bsp::make_empty(bsp_version);
    b.set_game_lump(kStaticPropsId, version, Blob::from_bytes(std::move(lump)));
    return b;
}

}  // namespace

TEST(BspStaticProps, LayoutComesFromVersionAndRecordSize) {
    struct Case {
        std::int32_t bsp;
        std::uint16_t version;
        std::size_t size;
        StaticPropLayout want;
    };
    for (const Case& c :
         {Case{19, 5, 60, StaticPropLayout::v5}, Case{20, 7, 72, StaticPropLayout::v7_lightmap},
          Case{20, 10, 72, StaticPropLayout::v10_lightmap}, Case{21, 10, 76, StaticPropLayout::v10},
          Case{21, 11, 80, StaticPropLayout::v11}, Case{20, 11, 80, StaticPropLayout::v11_mesa},
          Case{20, 5, 188, StaticPropLayout::v5_ship}}) {
        SCOPED_TRACE(describe(c.want));
        Bsp b = map_with_props(c.bsp, c.version, sprp(c.size, 2));
        auto sp = static_props(b);
        ASSERT_TRUE(sp) << sp.error().to_string();
        EXPECT_EQ(sp->layout, c.want);
        ASSERT_EQ(sp->props.size(), 2u);
        EXPECT_EQ(sp->model_name(sp->props[1].m_PropType), "models/props/crate.mdl");
        EXPECT_EQ(sp->props[0].m_Origin, (Vec3f{16, 32, 48}));
        EXPECT_EQ(sp->props[0].m_Solid, 6);
        auto back = encode(b, *sp);
        ASSERT_TRUE(back);
        EXPECT_EQ(as_text(*back), b.find_game_lump(kStaticPropsId)->data().text());
    }
}

TEST(BspStaticProps, UnknownVersionAndSizeIsAnErrorNotAGuess) {
    Bsp b = map_with_props(20, 10, sprp(68, 1));
    auto sp = static_props(b);
    ASSERT_FALSE(sp);
    EXPECT_EQ(sp.error().code, "bsp.sprp-layout");
    EXPECT_EQ(sp.error().path, "lump[35]/sprp/props");
    Bsp uneven = map_with_props(20, 10, sprp(72, 2));
    Bytes data(uneven.find_game_lump(kStaticPropsId)->bytes().begin(),
               uneven.find_game_lump(kStaticPropsId)->bytes().end());
    data.pop_back();
    uneven.set_game_lump(kStaticPropsId, 10, Blob::from_bytes(std::move(data)));
    EXPECT_FALSE(static_props(uneven));
}

TEST(BspStaticProps, StrataV12UsesThirtyTwoBitLeaves) {
    ByteWriter w;
    w.i32(0);
    w.i32(1);
    w.u32(70000);
    w.i32(0);
    Bsp b = map_with_props(25, 12, w.take());
    auto sp = static_props(b);
    ASSERT_TRUE(sp);
    EXPECT_EQ(sp->leaves, (std::vector<std::uint32_t>{70000}));
    EXPECT_EQ(sp->layout, StaticPropLayout::v12_strata);
}

TEST(BspEntities, AnonymousBlocksOutputsAndTheTerminatingNul) {
    const std::string text =
        "{\n\"classname\" \"worldspawn\"\n}\n"
        "{\n\"classname\" \"logic_relay\"\n\"OnTrigger\" \"door\x1bOpen\x1b\x1b"
        "0.5\x1b-1\"\n}\n";
    Bsp b = Bsp::make_empty(21);
    ASSERT_TRUE(replace_entities(b, text));
    EXPECT_EQ(b.lump(LumpId::entities).data().text(), text + '\0');
    auto e = entities(b);
    ASSERT_TRUE(e);
    ASSERT_EQ(e->size(), 2u);
    EXPECT_EQ(e->separator(), OutputSeparator::esc);
    const auto out = EntityLump::parse_output("OnTrigger", e->entities()[1].get("OnTrigger"));
    ASSERT_TRUE(out);
    EXPECT_EQ(out->target, "door");
    EXPECT_EQ(out->input, "Open");
    EXPECT_EQ(out->delay, 0.5);
    EXPECT_EQ(out->times, -1);
    const Bytes w = e->write();
    EXPECT_EQ(as_text(w), text + '\0');

    // Older maps separate with commas; a value with four commas but non-numeric delay is not
    // an output.
    auto comma = EntityLump::parse_output("OnPressed", "lamp,TurnOn,,0,1");
    ASSERT_TRUE(comma);
    EXPECT_EQ(comma->separator, OutputSeparator::comma);
    EXPECT_FALSE(EntityLump::parse_output("message", "a,b,c,d,e"));
}

TEST(BspEntities, EmptyLumpIsAnEmptyDocument) {
    Bsp b = Bsp::make_empty(20);
    auto e = entities(b);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->size(), 0u);
    EXPECT_TRUE(e->write().empty());
}

TEST(BspEntities, NestedBlocksAreRejectedWithLineAndColumn) {
    Bsp b = Bsp::make_empty(20);
    auto r = replace_entities(b, "{\n\"classname\" \"worldspawn\"\n}\n{\n  solid\n  {\n  }\n}\n");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "bsp.bad-entities");
    EXPECT_EQ(r.error().line, 5u);
    EXPECT_EQ(r.error().column, 3u);
    EXPECT_EQ(r.error().path, "lump[0]");
}

TEST(BspPak, StoredDeflateAndLzmaEntriesRoundTrip) {
    Pak pak;
    const std::string vmt(200, 'v');
    ASSERT_TRUE(pak.put("materials/a.vmt", as_bytes(vmt), ZipMethod::stored));
    ASSERT_TRUE(pak.put("materials\\b.vmt", as_bytes(vmt), ZipMethod::deflate));
    ASSERT_TRUE(pak.put("materials/c.vmt", as_bytes(vmt), ZipMethod::lzma));
    ASSERT_TRUE(pak.put("empty.txt", {}, ZipMethod::deflate));
    auto bytes = pak.write();
    ASSERT_TRUE(bytes);
    auto back = Pak::parse(Blob::from_bytes(*bytes));
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(back->entries().size(), 4u);
    EXPECT_EQ(back->entries()[1].name(), "materials/b.vmt");
    EXPECT_EQ(back->entries()[2].method(), 14);
    for (const PakEntry& e : back->entries()) {
        auto c = Pak::contents(e);
        ASSERT_TRUE(c) << c.error().to_string();
        EXPECT_EQ(as_text(*c), e.name() == "empty.txt" ? "" : vmt);
    }
    auto again = back->write();
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *bytes);
    ASSERT_NE(back->find("MATERIALS\\A.VMT"), nullptr);  // lookup ignores case and slashes
    EXPECT_TRUE(back->remove("materials/a.vmt"));
    EXPECT_FALSE(back->remove("materials/a.vmt"));
    EXPECT_EQ(back->entries().size(), 3u);
}

TEST(BspPak, CorruptEntriesAndMissingEndRecordAreReported) {
    Pak pak;
    ASSERT_TRUE(pak.put("x.txt", as_bytes(std::string_view("hello")), ZipMethod::stored));
    Bytes bytes = *pak.write();
    bytes[30 + 5] = std::byte{'j'};  // first data byte, after the 30-byte header and the name
    auto broken = Pak::parse(Blob::from_bytes(bytes));
    ASSERT_TRUE(broken);
    auto c = Pak::contents(broken->entries()[0]);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, "bsp.pak-crc");
    auto none = Pak::parse(Blob::copy_of(std::string_view("not a zip at all, definitely")));
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, "bsp.pak-no-end-record");
}

TEST(BspPak, EmptyArchiveWithValveCommentKeepsTheComment) {
    // An empty pakfile as vbsp writes it: just the end record with an "XZP1 0" comment.
    ByteWriter w;
    w.u32(0x06054b50);
    w.zeros(16);
    const std::string comment = std::string("XZP1 0") + std::string(26, '\0');
    w.u16(static_cast<std::uint16_t>(comment.size()));
    w.text(comment);
    const Bytes lump = w.take();
    auto pak = Pak::parse(Blob::copy_of(lump));
    ASSERT_TRUE(pak);
    EXPECT_TRUE(pak->entries().empty());
    EXPECT_EQ(*pak->write(), lump);
}

TEST(BspPak, BytesBetweenDirectoryAndEndRecordAreKept) {
    // Found by fuzz_bsp_pak: an end record whose directory ends before it (here: an empty
    // directory at offset 0 followed by junk). The junk must be written back, or the rewritten
    // archive no longer parses the same way.
    ByteWriter w;
    w.text("junk between the directory and the end record");
    w.u32(0x06054b50);
    w.zeros(16);
    w.u16(0);
    const Bytes lump = w.take();
    auto pak = Pak::parse(Blob::copy_of(lump));
    ASSERT_TRUE(pak);
    EXPECT_TRUE(pak->entries().empty());
    EXPECT_EQ(*pak->write(), lump);
}

TEST(BspMap, SetPakfileStoresTheArchiveInTheMap) {
    Bsp b = Bsp::make_empty(20);
    Pak pak;
    ASSERT_TRUE(pak.put("maps/x.txt", as_bytes(std::string_view("x")), ZipMethod::stored));
    ASSERT_TRUE(set_pakfile(b, pak));
    auto reread = Bsp::read(Blob::from_bytes(*b.write()));
    ASSERT_TRUE(reread);
    auto p = pakfile(*reread);
    ASSERT_TRUE(p);
    ASSERT_EQ(p->entries().size(), 1u);
    EXPECT_EQ(p->entries()[0].name(), "maps/x.txt");
}

TEST(BspMap, LenientParseSkipsAndNamesLumpsThatDoNotParse) {
    // Overlays of 30 bytes are no whole record: strict parsing fails naming the lump, lenient
    // parsing leaves the view empty, names the lump and warns.
    Bsp b = map_with(20, LumpId::overlays, Bytes(30));
    ByteWriter planes;
    for (float f : {0.f, 0.f, 1.f, 64.f}) planes.f32(f);
    planes.i32(2);
    ASSERT_TRUE(b.set_lump(LumpId::planes, Blob::from_bytes(planes.take())));

    auto strict = parse_map(b);
    ASSERT_FALSE(strict);
    EXPECT_EQ(strict.error().path.rfind("lump[45]", 0), 0u) << strict.error().to_string();

    Diagnostics w;
    ParseOptions opt;
    opt.lenient = true;
    auto lenient = parse_map(b, &w, opt);
    ASSERT_TRUE(lenient) << lenient.error().to_string();
    EXPECT_EQ(lenient->planes.size(), 1u);
    EXPECT_TRUE(lenient->overlays.empty());
    ASSERT_EQ(lenient->skipped.size(), 1u);
    EXPECT_EQ(lenient->skipped[0].name, "overlays");
    EXPECT_EQ(lenient->skipped[0].lump, index_of(LumpId::overlays));
    EXPECT_EQ(lenient->skipped[0].error.code, "bsp.bad-lump-size");
    EXPECT_NE(lenient->skipped_error(LumpId::overlays), nullptr);
    EXPECT_EQ(lenient->skipped_error(LumpId::planes), nullptr);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w.items()[0].severity, Severity::warning);
    EXPECT_EQ(w.items()[0].code, "bsp.lump-skipped");
}

namespace {

// Bytes of a record with every byte distinct (so a field read from the wrong place shows).
Bytes counting(std::size_t n, std::uint8_t from = 1) {
    Bytes b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = std::byte(std::uint8_t(from + i));
    return b;
}

template <class T, class Decode>
void expect_round_trip(const Bsp& b, LumpId id, Decode decode) {
    auto v = decode(b);
    ASSERT_TRUE(v) << v.error().to_string();
    auto back = encode(b, id, std::span<const T>(v->begin(), v->end()));
    ASSERT_TRUE(back) << back.error().to_string();
    const ByteSpan orig = b.lump(id).bytes();
    EXPECT_EQ(*back, Bytes(orig.begin(), orig.end()));
}

}  // namespace

TEST(BspLumps, V17FacesAreBloodlinesOrHalfLife2Beta) {
    // Bloodlines: 8 average colours, then the standard fields up to the styles, 8 styles, 8 day
    // and 8 night style bytes, then lighting offset .. smoothing groups (104 bytes).
    ByteWriter w;
    for (int i = 0; i < 8; ++i) w.u32(0x01020300u + i);
    w.u16(7);   // planenum
    w.u8(1);    // side
    w.u8(0);    // onNode
    w.i32(40);  // firstedge
    w.i16(4);   // numedges
    w.i16(2);   // texinfo
    w.i16(-1);  // dispinfo
    w.i16(-1);  // fog volume
    for (int i = 0; i < 24; ++i) w.u8(std::uint8_t(0x40 + i));
    w.i32(1234);  // lightofs
    w.f32(64);    // area
    for (int i = 0; i < 4; ++i) w.i32(i);
    w.i32(-1);  // origFace
    w.u32(5);   // smoothing groups
    Bytes vtmb = w.take();
    ASSERT_EQ(vtmb.size(), 104u);
    Bsp b = map_with(17, LumpId::faces, vtmb);
    auto f = faces(b);
    ASSERT_TRUE(f) << f.error().to_string();
    ASSERT_EQ(f->size(), 1u);
    EXPECT_EQ((*f)[0].planenum, 7u);
    EXPECT_EQ((*f)[0].firstedge, 40);
    EXPECT_EQ((*f)[0].texinfo, 2);
    EXPECT_EQ((*f)[0].dispinfo, -1);
    EXPECT_EQ((*f)[0].styles[7], 0x47);
    EXPECT_EQ((*f)[0].day[0], 0x48);
    EXPECT_EQ((*f)[0].night[7], 0x57);
    EXPECT_EQ((*f)[0].lightofs, 1234);
    EXPECT_EQ((*f)[0].smoothingGroups, 5u);
    expect_round_trip<dface_t>(b, LumpId::faces, [](const Bsp& m) { return faces(m); });

    // Half-Life 2 beta: four colours and four styles (68 bytes); the lump size decides.
    Bsp beta = map_with(17, LumpId::faces, counting(68 * 3));
    auto fb = faces(beta);
    ASSERT_TRUE(fb) << fb.error().to_string();
    EXPECT_EQ(fb->size(), 3u);
    expect_round_trip<dface_t>(beta, LumpId::faces, [](const Bsp& m) { return faces(m); });

    // 26 faces of 68 bytes are 17 of 104: the models' face count decides.
    Bsp both = map_with(17, LumpId::faces, counting(68 * 26));
    std::vector<dmodel_t> models(1);
    models[0].numfaces = 26;
    ASSERT_TRUE(
        both.set_lump(LumpId::models, Blob::from_bytes(encoded(both, LumpId::models, models))));
    auto fboth = faces(both);
    ASSERT_TRUE(fboth);
    EXPECT_EQ(fboth->size(), 26u);
    models[0].numfaces = 17;
    ASSERT_TRUE(
        both.set_lump(LumpId::models, Blob::from_bytes(encoded(both, LumpId::models, models))));
    EXPECT_EQ(faces(both)->size(), 17u);
}

TEST(BspLumps, VitaminSourceRecords) {
    // VitaminSource (v43): faces of 9 ints and a flags byte, brush sides with 32-bit plane and
    // texinfo and separate bevel/thin bytes, 32-bit node and leaf bounds, leaves with area and
    // flags fields of their own, texdata without the view size, wide overlay headers.
    ByteWriter f;
    for (std::int32_t v : {5, 3, -1, 100, 4, 1, 2, 8, 9}) f.i32(v);
    f.u8(0x21);
    f.zeros(3);
    Bsp b = map_with(43, LumpId::faces, f.take());
    auto fv = faces(b);
    ASSERT_TRUE(fv) << fv.error().to_string();
    EXPECT_EQ((*fv)[0].planenum, 5u);
    EXPECT_EQ((*fv)[0].texinfo, 3);
    EXPECT_EQ((*fv)[0].dispinfo, -1);
    EXPECT_EQ((*fv)[0].firstedge, 100);
    EXPECT_EQ((*fv)[0].numedges, 4);
    EXPECT_EQ((*fv)[0].m_LightmapTextureSizeInLuxels[1], 9);
    EXPECT_EQ((*fv)[0].vitamin_flags, 0x21);
    expect_round_trip<dface_t>(b, LumpId::faces, [](const Bsp& m) { return faces(m); });

    ByteWriter s;
    s.u32(70000);
    s.i32(-1);
    s.i16(-1);
    s.u8(1);
    s.u8(1);
    ASSERT_TRUE(b.set_lump(LumpId::brushsides, Blob::from_bytes(s.take())));
    auto sv = brushsides(b);
    ASSERT_TRUE(sv) << sv.error().to_string();
    EXPECT_EQ((*sv)[0].planenum, 70000u);
    EXPECT_EQ((*sv)[0].texinfo, -1);
    EXPECT_EQ((*sv)[0].bevel, 1);
    EXPECT_EQ((*sv)[0].thin, 1);
    expect_round_trip<dbrushside_t>(b, LumpId::brushsides,
                                    [](const Bsp& m) { return brushsides(m); });

    ByteWriter n;
    n.i32(1);
    n.i32(2);
    n.i32(-3);
    for (std::int32_t v : {-70000, -2, -3, 70000, 2, 3}) n.i32(v);
    n.u16(10);
    n.u16(20);
    n.i16(1);
    n.zeros(2);
    ASSERT_TRUE(b.set_lump(LumpId::nodes, Blob::from_bytes(n.take())));
    auto nv = nodes(b);
    ASSERT_TRUE(nv) << nv.error().to_string();
    EXPECT_EQ((*nv)[0].mins[0], -70000);
    EXPECT_EQ((*nv)[0].maxs[0], 70000);
    EXPECT_EQ((*nv)[0].numfaces, 20u);
    expect_round_trip<dnode_t>(b, LumpId::nodes, [](const Bsp& m) { return nodes(m); });

    ByteWriter l;
    l.i32(1);
    l.i16(4);  // cluster
    l.i16(2);  // area
    for (std::int32_t v : {-70000, -2, -3, 70000, 2, 3}) l.i32(v);
    for (std::uint16_t v : {1, 2, 3, 4}) l.u16(v);
    l.i16(-1);
    l.u8(0x7F);
    l.u8(0);
    ASSERT_TRUE(b.set_lump(LumpId::leafs, Blob::from_bytes(l.take())));
    auto lv = leafs(b);
    ASSERT_TRUE(lv) << lv.error().to_string();
    EXPECT_EQ((*lv)[0].area, 2);
    EXPECT_EQ((*lv)[0].flags, 0x7F);
    EXPECT_EQ((*lv)[0].mins[0], -70000);
    EXPECT_EQ((*lv)[0].numleafbrushes, 4u);
    expect_round_trip<dleaf_t>(b, LumpId::leafs, [](const Bsp& m) { return leafs(m); });

    ASSERT_TRUE(b.set_lump(LumpId::texdata, Blob::from_bytes(counting(48))));
    auto tv = texdata(b);
    ASSERT_TRUE(tv) << tv.error().to_string();
    EXPECT_EQ(tv->size(), 2u);
    expect_round_trip<dtexdata_t>(b, LumpId::texdata, [](const Bsp& m) { return texdata(m); });

    ASSERT_TRUE(b.set_lump(LumpId::overlays, Blob::from_bytes(counting(356))));
    auto ov = overlays(b);
    ASSERT_TRUE(ov) << ov.error().to_string();
    EXPECT_EQ(ov->size(), 1u);
    expect_round_trip<doverlay_t>(b, LumpId::overlays, [](const Bsp& m) { return overlays(m); });
}

TEST(BspLumps, StrataDispinfoV1AndHalfLife2BetaDispinfo) {
    // Strata dispinfo lump version 1: 232 bytes, 32-bit map face and neighbour indices.
    ByteWriter w;
    for (float v : {1.f, 2.f, 3.f}) w.f32(v);
    w.i32(0);      // vert start
    w.i32(0);      // tri start
    w.i32(2);      // power
    w.i32(0);      // min tess
    w.f32(0);      // smoothing angle
    w.i32(1);      // contents
    w.u32(70000);  // map face
    w.i32(0);
    w.i32(0);
    for (int e = 0; e < 8; ++e) {
        w.u32(100000 + e);
        w.u8(1);
        w.u8(2);
        w.u8(3);
        w.u8(0);
    }
    for (int c = 0; c < 4; ++c) {
        for (int k = 0; k < 4; ++k) w.u32(200000 + c * 4 + k);
        w.u8(4);
        w.zeros(3);
    }
    for (int k = 0; k < 10; ++k) w.u32(0xFFFFFFFFu);
    Bytes rec = w.take();
    ASSERT_EQ(rec.size(), 232u);
    Bsp strata = map_with(25, LumpId::dispinfo, rec, 1);
    auto d = dispinfo(strata);
    ASSERT_TRUE(d) << d.error().to_string();
    EXPECT_EQ((*d)[0].m_iMapFace, 70000u);
    EXPECT_EQ((*d)[0].power, 2);
    EXPECT_EQ((*d)[0].m_EdgeNeighbors[3].m_SubNeighbors[1].m_iNeighbor, 100007u);
    EXPECT_EQ((*d)[0].m_CornerNeighbors[3].m_Neighbors[3], 200015u);
    EXPECT_EQ((*d)[0].m_CornerNeighbors[3].m_nNeighbors, 4);
    expect_round_trip<ddispinfo_t>(strata, LumpId::dispinfo,
                                   [](const Bsp& m) { return dispinfo(m); });

    // Half-Life 2 beta v17: 172 bytes, no triangle start.
    Bsp beta = map_with(17, LumpId::dispinfo, counting(172 * 2));
    auto db = dispinfo(beta);
    ASSERT_TRUE(db) << db.error().to_string();
    EXPECT_EQ(db->size(), 2u);
    expect_round_trip<ddispinfo_t>(beta, LumpId::dispinfo,
                                   [](const Bsp& m) { return dispinfo(m); });
}

TEST(BspDetailProps, OtherVersionsKeepTheirRecordsWhole) {
    // Every version starts with the model dictionary; the records of versions other than 4
    // have no published layout and are kept as bytes, with the count they state.
    auto lump = [](std::uint16_t version, bool sprites, std::int32_t count, std::size_t record) {
        ByteWriter w;
        w.i32(1);
        std::string name = "models/grass.mdl";
        name.resize(128, '\0');
        w.text(name);
        if (sprites) {
            w.i32(1);
            w.zeros(32);
        }
        w.i32(count);
        for (std::int32_t i = 0; i < count; ++i) {
            for (std::size_t k = 0; k < record; ++k) w.u8(std::uint8_t(k + i));
        }
        Bsp b = Bsp::make_empty(20);
        b.set_game_lump(kDetailPropsId, version, Blob::from_bytes(w.take()));
        return b;
    };
    for (const auto& [version, sprites] :
         std::vector<std::pair<std::uint16_t, bool>>{{3, false}, {5, true}}) {
        Bsp b = lump(version, sprites, 3, 48);
        auto dp = detail_props(b);
        ASSERT_TRUE(dp) << dp.error().to_string();
        EXPECT_EQ(dp->version, version);
        ASSERT_EQ(dp->dict.size(), 1u);
        EXPECT_EQ(std::string_view(dp->dict[0].data()), "models/grass.mdl");
        EXPECT_TRUE(dp->props.empty());
        EXPECT_EQ(dp->count(), 3u);
        auto back = encode(b, *dp);
        ASSERT_TRUE(back);
        const ByteSpan orig = b.find_game_lump(kDetailPropsId)->bytes();
        EXPECT_EQ(*back, Bytes(orig.begin(), orig.end()));
    }
    // Bytes that are no count of whole records: kept all the same, no count claimed.
    Bsp odd = lump(3, false, 3, 48);
    Bytes bytes(odd.find_game_lump(kDetailPropsId)->bytes().begin(),
                odd.find_game_lump(kDetailPropsId)->bytes().end());
    bytes.push_back(std::byte{1});
    odd.set_game_lump(kDetailPropsId, 3, Blob::from_bytes(bytes));
    auto dp = detail_props(odd);
    ASSERT_TRUE(dp);
    EXPECT_FALSE(dp->rest_count.has_value());
    EXPECT_EQ(*encode(odd, *dp), bytes);
}

TEST(BspLumps, StrataOverlaysV3ShareOneFaceArray) {
    StrataOverlays o;
    o.faces = {4, 5, 6, 70000};
    doverlay_v3_t a;
    a.nId = 1;
    a.nTexInfo = 2;
    a.flags = doverlay_v3_t::kBasisVFlipped;
    a.renderOrder = 1;
    a.faceOffset = 0;
    a.faceCount = 3;
    a.flU[1] = 1;
    a.uv[2][0] = 8;
    a.basisU = {1, 0, 0};
    a.origin = {1, 2, 3};
    a.basisNormal = {0, 0, 1};
    doverlay_v3_t c = a;
    c.nId = 2;
    c.faceOffset = 3;
    c.faceCount = 1;
    o.overlays = {a, c};
    Bsp b = Bsp::make_empty(25);
    b.set_lump_version(LumpId::overlays, 3);
    auto bytes = encode(b, o);
    ASSERT_TRUE(bytes);
    EXPECT_EQ(bytes->size(), 8u + 4 * 4 + 2 * 108);
    ASSERT_TRUE(b.set_lump(LumpId::overlays, Blob::from_bytes(*bytes)));
    auto back = strata_overlays(b);
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_EQ(back->faces, o.faces);
    ASSERT_EQ(back->overlays.size(), 2u);
    EXPECT_EQ(back->overlays[1].faceOffset, 3);
    EXPECT_EQ(back->overlays[0].uv[2][0], 8);
    EXPECT_EQ(back->overlays[0].origin, (Vec3f{1, 2, 3}));
    EXPECT_EQ(*encode(b, *back), *bytes);
    // overlays() does not read it as records; parse_map reads it through strata_overlays().
    EXPECT_FALSE(overlays(b));
    auto m = parse_map(b);
    ASSERT_TRUE(m) << m.error().to_string();
    EXPECT_EQ(m->strata_overlays.overlays.size(), 2u);
    // A count larger than the lump holds is an error, not an allocation.
    Bytes cut = *bytes;
    cut[0] = std::byte{0xFF};
    cut[1] = std::byte{0xFF};
    ASSERT_TRUE(b.set_lump(LumpId::overlays, Blob::from_bytes(cut)));
    EXPECT_FALSE(strata_overlays(b));
}

TEST(BspLumps, DisplacementCountsOfAnyPowerDoNotOverflow) {
    // The power is an int32 in the file; counts are exact for real powers and -1 for powers no
    // grid can have (fuzz_bsp found 16 overflowing int).
    ddispinfo_t d;
    d.power = 4;
    EXPECT_EQ(d.vertex_count(), 289);
    EXPECT_EQ(d.triangle_count(), 512);
    d.power = 16;
    EXPECT_EQ(d.vertex_count(), std::int64_t{65537} * 65537);
    for (std::int32_t p : {-1, 31, 64, INT32_MAX, INT32_MIN}) {
        d.power = p;
        EXPECT_EQ(d.vertex_count(), -1) << p;
        EXPECT_EQ(d.triangle_count(), -1) << p;
    }
}
