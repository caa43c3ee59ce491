// Binary DMX encodings as a spec: small files built byte by byte (notes/dmx.md §3).
#include <gtest/gtest.h>

#include "levelkit/core/bytes.hpp"
#include "levelkit/dmx/io.hpp"

namespace lk::dmx {
namespace {

Bytes bytes_of(const ByteWriter& w) {
    return w.buffer();
}

void header(ByteWriter& w, std::string_view enc, int ver, std::string_view fmt, int fver) {
    w.text("<!-- dmx encoding ");
    w.text(enc);
    w.text(" " + std::to_string(ver) + " format ");
    w.text(fmt);
    w.text(" " + std::to_string(fver) + " -->\n");
    w.u8(0);  // binary bodies start after one NUL
}

void guid(ByteWriter& w, std::uint8_t seed) {
    for (int i = 0; i < 16; ++i) w.u8(static_cast<std::uint8_t>(seed + i));
}

// binary 9: prefix block, int32 string table, int32 indices, v9 type ids (arrays = id + 32).
Bytes binary9_fixture() {
    ByteWriter w;
    header(w, "binary", 9, "vmap", 29);
    w.i32(1);  // one prefix container
    w.i32(1);  // one prefix attribute, name and value inline
    w.cstring("map_asset_references");
    w.u8(37);  // string_array
    w.i32(1);
    w.cstring("materials/dev.vmat");
    // String table (Valve gather order: class, name, then attributes last to first).
    w.i32(6);
    for (const char* s : {"CMapRootElement", "root", "world", "referenceID", "size", "CMapWorld"}) {
        w.cstring(s);
    }
    w.i32(2);  // elements: type index, name index, GUID
    w.i32(0);
    w.i32(1);
    guid(w, 0x10);
    w.i32(5);
    w.i32(-1);  // index -1: no name
    guid(w, 0x40);
    // element 0 body
    w.i32(3);
    w.i32(4);  // "size"
    w.u8(10);  // vector3
    w.f32(1);
    w.f32(2);
    w.f32(3);
    w.i32(3);  // "referenceID"
    w.u8(15);  // uint64 (v9 only)
    w.u64(0x46c228c721086c27ull);
    w.i32(2);  // "world"
    w.u8(1);   // element
    w.i32(1);
    // element 1 body: an element array with the root, null and an external element
    w.i32(1);
    w.i32(2);
    w.u8(33);  // element_array
    w.i32(3);
    w.i32(0);
    w.i32(-1);
    w.i32(-2);  // external: GUID as text follows
    w.cstring("00112233-4455-6677-8899-aabbccddeeff");
    return bytes_of(w);
}

TEST(DmxBinary, ReadsVersion9) {
    const Bytes file = binary9_fixture();
    auto doc = read(file);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    EXPECT_EQ(doc->header.encoding, "binary");
    EXPECT_EQ(doc->header.encoding_version, 9);
    EXPECT_EQ(doc->header.format, "vmap");
    ASSERT_EQ(doc->size(), 4u);  // 2 stored + the external + the prefix element
    const Element& root = (*doc)[doc->root];
    EXPECT_EQ(root.type.str(), "CMapRootElement");
    EXPECT_EQ(root.name, "root");
    EXPECT_EQ(root.id.bytes[0], 0x10);
    EXPECT_EQ(*root.get<Vector3>("size"), (Vector3{1, 2, 3}));
    EXPECT_EQ(*root.get<std::uint64_t>("referenceID"), 0x46c228c721086c27ull);
    const ElementRef world = *root.get<ElementRef>("world");
    EXPECT_EQ((*doc)[world].type.str(), "CMapWorld");
    EXPECT_TRUE((*doc)[world].null_name);
    const auto* kids_p = (*doc)[world].get<std::vector<ElementRef>>("world");
    ASSERT_NE(kids_p, nullptr);
    const auto& kids = *kids_p;
    ASSERT_EQ(kids.size(), 3u);
    EXPECT_EQ(kids[0], doc->root);  // a cycle back to the root
    EXPECT_TRUE(kids[1].is_null());
    const Element& ext = (*doc)[kids[2]];
    EXPECT_TRUE(ext.external());
    EXPECT_EQ(ext.id.to_string(), "00112233-4455-6677-8899-aabbccddeeff");
    ASSERT_EQ(doc->prefix_attributes().size(), 1u);
    EXPECT_EQ(doc->prefix_attributes()[0].value.get<std::vector<std::string>>()[0],
              "materials/dev.vmat");
}

TEST(DmxBinary, WritesVersion9BackByteForByte) {
    const Bytes file = binary9_fixture();
    auto doc = read(file);
    ASSERT_TRUE(doc.ok());
    auto out = write(doc.value());
    ASSERT_TRUE(out.ok()) << out.error().to_string();
    EXPECT_EQ(out.value(), file);
}

// Bool arrays are stored boxed (a std::vector<bool> is 40 bytes, every other array 24, and a
// value is as large as its largest kind): typed access, copies, visiting and both encodings see
// the plain vector.
TEST(DmxBinary, BoolArraysRoundTripThroughBothEncodings) {
    static_assert(sizeof(Value) <= 40);
    Document doc;
    doc.header.format = "test";
    doc.root = doc.add_element("DmElement", "root");
    const std::vector<bool> flags{true, false, false, true, true};
    doc[doc.root].set("flags", flags);
    doc[doc.root].set("none", std::vector<bool>{});
    const Value& v = doc[doc.root].find("flags")->value;
    EXPECT_EQ(v.type(), Type::boolean_array);
    EXPECT_EQ(v.array_size(), 5u);
    EXPECT_EQ(v.get<std::vector<bool>>(), flags);
    Value copy = v;
    copy.get<std::vector<bool>>()[1] = true;
    EXPECT_FALSE(copy == v);
    EXPECT_EQ(v.get<std::vector<bool>>()[1], false);
    std::size_t seen = 0;
    v.visit([&](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::vector<bool>>) seen = x.size();
    });
    EXPECT_EQ(seen, 5u);
    EXPECT_EQ(Value::of_type(Type::boolean_array).array_size(), 0u);
    for (const char* enc : {"binary:9", "binary:2", "keyvalues2:1"}) {
        SCOPED_TRACE(enc);
        Document d = doc.clone();
        ASSERT_TRUE(convert(d, *Encoding::parse(enc)));
        auto bytes = write(d);
        ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
        auto back = read(bytes.value());
        ASSERT_TRUE(back.ok()) << back.error().to_string();
        const Element& r = back.value()[back.value().root];
        ASSERT_NE(r.get<std::vector<bool>>("flags"), nullptr);
        EXPECT_EQ(*r.get<std::vector<bool>>("flags"), flags);
        ASSERT_NE(r.get<std::vector<bool>>("none"), nullptr);
        EXPECT_TRUE(r.get<std::vector<bool>>("none")->empty());
    }
}

// binary 2: int16 string table used for types and attribute names only; element names and
// string values inline; type id 7 is elementid and arrays start at 15.
TEST(DmxBinary, Version2KeepsNamesAndStringsInline) {
    ByteWriter w;
    header(w, "binary", 2, "pcf", 1);
    w.i16(3);
    w.cstring("DmeElement");
    w.cstring("material");
    w.cstring("ids");
    w.i32(1);
    w.i16(0);
    w.cstring("untitled");
    guid(w, 1);
    w.i32(2);
    w.i16(1);
    w.u8(5);
    w.cstring("vgui/white");
    w.i16(2);
    w.u8(21);  // elementid_array in versions 1-2
    w.i32(1);
    guid(w, 7);
    const Bytes file = bytes_of(w);
    auto doc = read(file);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    const Element& e = (*doc)[doc->root];
    EXPECT_EQ(e.name, "untitled");
    EXPECT_EQ(*e.get<std::string>("material"), "vgui/white");
    EXPECT_EQ(e.find("ids")->value.type(), Type::elementid_array);
    auto out = write(doc.value());
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out.value(), file);
}

TEST(DmxBinary, TruncationNamesOffsetAndField) {
    const Bytes file = binary9_fixture();
    for (std::size_t n = 0; n < file.size(); ++n) {
        auto doc = read(ByteSpan(file).first(n));
        ASSERT_FALSE(doc.ok()) << "prefix of " << n << " bytes was accepted";
        if (n > 60) {
            EXPECT_TRUE(doc.error().has_offset()) << doc.error().to_string();
            EXPECT_FALSE(doc.error().path.empty()) << doc.error().to_string();
        }
    }
}

TEST(DmxBinary, GarbageCountsAreRejectedBeforeAllocating) {
    Bytes file = binary9_fixture();
    // The element count (after the string table) becomes 0x7fffffff.
    const std::size_t at = std::string_view(reinterpret_cast<const char*>(file.data()), file.size())
                               .find("CMapWorld") +
                           10;
    store<std::int32_t>(file.data() + at, 0x7fffffff, Endian::little);
    auto doc = read(file);
    ASSERT_FALSE(doc.ok());
    EXPECT_EQ(doc.error().code, "bytes.bad-count");
    EXPECT_EQ(doc.error().offset, static_cast<std::int64_t>(at + 4));
}

TEST(DmxBinary, BadIndicesAreErrors) {
    Bytes file = binary9_fixture();
    // The root's "world" reference (last i32 of element 0's body) points past the index.
    const std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
    const std::size_t ext = text.find("00112233");
    const std::size_t world_ref = ext - 4 /*-2*/ - 4 /*-1*/ - 4 /*0*/ - 4 /*count*/ - 1 /*type*/ -
                                  4 /*name*/ - 4 /*attr count*/ - 4;
    store<std::int32_t>(file.data() + world_ref, 7, Endian::little);
    auto doc = read(file);
    ASSERT_FALSE(doc.ok());
    EXPECT_EQ(doc.error().code, "dmx.bad-element-index");
    EXPECT_NE(doc.error().path.find("attribute 'world'"), std::string::npos) << doc.error().path;
}

TEST(DmxBinary, ConversionRefusesTypesTheTargetLacks) {
    auto doc = read(binary9_fixture());
    ASSERT_TRUE(doc.ok());
    Document d = doc->clone();
    auto r = convert(d, {"binary", 5}, ConvertOptions{.demote_prefix = true});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "dmx.type-not-representable");
    EXPECT_NE(r.error().path.find("referenceID"), std::string::npos);
    // The explicit option stores uint64 as int32 when it fits; this one does not.
    Document e = doc->clone();
    r = convert(e, {"binary", 5}, ConvertOptions{.coerce_integers = true, .demote_prefix = true});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "dmx.value-not-representable");
}

TEST(DmxBinary, PrefixNeedsVersion7) {
    auto doc = read(binary9_fixture());
    ASSERT_TRUE(doc.ok());
    Document d = doc->clone();
    auto r = convert(d, {"keyvalues2", 1});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "dmx.prefix-not-representable");
}

TEST(DmxBinary, EveryVersionRoundTripsThroughTheDatamodel) {
    Document doc;
    doc.header.format = "dmx";
    doc.root =
        doc.add_element("DmElement", "root", Guid::parse("c73e29a3-b55d-40db-afdc-61203fabce54"));
    Element& r = doc[doc.root];
    r.set("i", std::int32_t{-5});
    r.set("f", 0.25f);
    r.set("b", true);
    r.set("s", "text");
    r.set("bin", Binary{std::byte{1}, std::byte{2}});
    r.set("c", Color{1, 2, 3, 4});
    r.set("q", Quaternion{0, 0, 0, 1});
    r.set("m", Matrix{});
    r.set("fa", std::vector<float>{1, 2, 3});
    r.set("sa", std::vector<std::string>{"a", "b"});
    for (int v = 1; v <= 9; ++v) {
        Document d = doc.clone();
        ASSERT_TRUE(convert(d, {"binary", v}).ok()) << v;
        auto bytes = write(d);
        ASSERT_TRUE(bytes.ok()) << v << ": " << bytes.error().to_string();
        auto back = read(bytes.value());
        ASSERT_TRUE(back.ok()) << v << ": " << back.error().to_string();
        EXPECT_EQ(compare(d, back.value()), std::nullopt) << v;
        auto again = write(back.value());
        ASSERT_TRUE(again.ok());
        EXPECT_EQ(again.value(), bytes.value()) << v;
    }
}

}  // namespace
}  // namespace lk::dmx

namespace lk::dmx {
namespace {

// The legacy header of early tools: no format name, body laid out as binary version 1 (no
// string table, everything inline, type id 7 = elementid).
TEST(DmxBinary, LegacyHeaderUsesTheVersion1Layout) {
    ByteWriter w;
    w.text("<!-- DMXVersion binary_v2 -->\n");
    w.u8(0);
    w.i32(1);
    w.cstring("DmElement");
    w.cstring("root");
    guid(w, 3);
    w.i32(1);
    w.cstring("count");
    w.u8(2);
    w.i32(42);
    const Bytes file = bytes_of(w);
    auto doc = read(file);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    EXPECT_TRUE(doc->header.legacy);
    EXPECT_EQ(doc->header.encoding_version, 2);
    EXPECT_EQ(*(*doc)[doc->root].get<std::int32_t>("count"), 42);
    auto out = write(doc.value());
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out.value(), file);
}

}  // namespace
}  // namespace lk::dmx
