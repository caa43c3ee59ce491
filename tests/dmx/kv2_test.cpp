// keyvalues2 as a spec: Valve's layout, references by id, inline elements, every value type,
// and the guarantee that what was read is written back unchanged.
#include <gtest/gtest.h>

#include <cmath>

#include "levelkit/dmx/io.hpp"

namespace lk::dmx {
namespace {

Result<Document> parse(std::string_view text) {
    return read(as_bytes(text));
}

std::string text_of(const Bytes& b) {
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

constexpr std::string_view kValveMap = R"(<!-- dmx encoding keyvalues2 4 format vmap 29 -->
"$prefix_element$"
{
	"id" "elementid" "630c65de-10b3-44f3-a469-fc48168b1da1"
	"map_asset_references" "string_array" 
	[
		"materials/dev/reflectivity_30.vmat"
	]
}
"CMapRootElement"
{
	"id" "elementid" "2929200b-cff6-4e61-8ff9-8857c60a79df"
	"name" "string" "None"
	"isprefab" "bool" "0"
	"gridspacing" "float" "64"
	"snap" "float" "14.6804666519"
	"referenceID" "uint64" "0x46c228c721086c27"
	"tint" "color" "255 255 255 255"
	"origin" "vector3" "-0 -0.0253375135 1"
	"defaultcamera" "CStoredCamera"
	{
		"id" "elementid" "dd98ebb2-ed5d-4f40-ad05-8a2e2a7c92ad"
		"position" "vector3" "0 -1000 1000"
	}
	
	"shared" "element" "1a12c3c7-9f68-4928-9611-5fbbe6404732"
	"children" "element_array" 
	[
		"element" "1a12c3c7-9f68-4928-9611-5fbbe6404732",
		"CMapMesh"
		{
			"id" "elementid" "9024010d-a24d-4dce-b9de-b4a17bc47e95"
			"edges" "int_array" 
			[
				"1",
				"-1"
			]
		},
		"element" ""
	]
	"thumb" "binary" 
	"
		FFD8FF00
	"
}
"CMapWorld"
{
	"id" "elementid" "1a12c3c7-9f68-4928-9611-5fbbe6404732"
	"text" "string" "tab\there \"quoted\" \\ what\? it\'s"
}
)";

TEST(DmxKv2, ReadsValveLayout) {
    auto doc = parse(kValveMap);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    ASSERT_TRUE(doc->valid(doc->prefix));
    EXPECT_EQ(doc->prefix_attributes().size(), 1u);
    const Element& root = (*doc)[doc->root];
    EXPECT_EQ(root.type.str(), "CMapRootElement");
    EXPECT_EQ(root.name, "None");
    EXPECT_EQ(*root.get<float>("snap"), 14.6804666519f);
    EXPECT_EQ(*root.get<std::uint64_t>("referenceID"), 0x46c228c721086c27ull);
    EXPECT_EQ(*root.get<Color>("tint"), (Color{255, 255, 255, 255}));
    EXPECT_TRUE(std::signbit(root.get<Vector3>("origin")->x));
    // "shared" and the first array item name the same element, written once at top level.
    const ElementRef shared = *root.get<ElementRef>("shared");
    const auto& kids = *root.get<std::vector<ElementRef>>("children");
    ASSERT_EQ(kids.size(), 3u);
    EXPECT_EQ(kids[0], shared);
    EXPECT_EQ((*doc)[shared].type.str(), "CMapWorld");
    EXPECT_EQ(*(*doc)[shared].get<std::string>("text"), "tab\there \"quoted\" \\ what? it's");
    EXPECT_EQ((*doc)[kids[1]].get<std::vector<std::int32_t>>("edges")->at(1), -1);
    EXPECT_TRUE(kids[2].is_null());
    EXPECT_EQ(root.get<Binary>("thumb")->size(), 4u);
}

TEST(DmxKv2, WritesWhatItReadUnchanged) {
    auto doc = parse(kValveMap);
    ASSERT_TRUE(doc.ok());
    auto out = write(doc.value());
    ASSERT_TRUE(out.ok()) << out.error().to_string();
    EXPECT_EQ(text_of(out.value()), kValveMap);
}

TEST(DmxKv2, KeepsOddSpacingAndSpellings) {
    // Hand-written: CRLF, aligned columns, a comment, a trailing comma, "1.0", upper-case hex.
    const std::string text =
        "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\r\n"
        "// made by hand\r\n"
        "\"DmElement\"\r\n{\r\n"
        "\t\"a\"    \"float\" \"1.0\"\r\n"
        "\t\"bb\"   \"int_array\" [ \"1\", \"2\", ]\r\n"
        "\t\"ccc\"  \"uint64\" \"0X1F\"\r\n"
        // Found by dmx_kv2_fuzz: vector fields split by a newline or form feed, not a space.
        "\t\"d\" \"vector4\" \"0 0\n0 0\"\r\n"
        "\t\"e\" \"qangle\" \"0 135\f180\"\r\n"
        "}\r\n";
    auto doc = parse(text);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    EXPECT_EQ(*(*doc)[doc->root].get<std::uint64_t>("ccc"), 31u);
    auto out = write(doc.value());
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(text_of(out.value()), text);
}

// Items of number arrays are read straight from the text while they are spelled and spaced as
// the layout and the float style have it, and token by token otherwise: both ways give the same
// values and keep every odd spelling, including near the end of the text, where fewer bytes
// remain than the word-at-a-time reads take.
TEST(DmxKv2, NumberArraysKeepEverySpelling) {
    const std::string text = R"(<!-- dmx encoding keyvalues2 1 format dmx 1 -->
"DmElement"
{
	"id" "elementid" "2929200b-cff6-4e61-8ff9-8857c60a79df"
	"v" "vector3_array" 
	[
		"0 -1 0.5",
		"0.0500000007 -3 100000.5",
		"0.05 1.50 -0",
		"1	2 3",
		"-123.4560012817 0.0000305176 7",
		"0.0000305176 7 0.0004882813"
		"1 2 3",
	]
	"i" "int_array" 
	[
		"1",
		"-0",
		"007",
		"+3",
		"2147483647",
		"-2147483648",
		"123456789"
	]
	"f" "float_array" [ "0.25", "1e5" ,"3" ]
	"q" "quaternion_array" 
	[
		"0 0 0 1",
		"0.7071067691 0 0 0.7071067691"
	]
	"t" "int_array" 
	[
		"12",
		"3"
	]
}
)";
    auto doc = parse(text);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    const Element& root = (*doc)[doc->root];
    const auto& v = *root.get<std::vector<Vector3>>("v");
    ASSERT_EQ(v.size(), 7u);
    EXPECT_EQ(v[1].x, 0.0500000007f);
    EXPECT_EQ(v[1].z, 100000.5f);
    EXPECT_EQ(v[2].x, 0.05f);
    EXPECT_EQ(v[2].y, 1.5f);
    EXPECT_TRUE(std::signbit(v[2].z));
    EXPECT_EQ(v[3].x, 1.0f);
    EXPECT_EQ(v[4].x, -123.4560012817f);
    EXPECT_EQ(v[5].z, 0.0004882813f);
    const auto& i = *root.get<std::vector<std::int32_t>>("i");
    EXPECT_EQ(i, (std::vector<std::int32_t>{1, 0, 7, 3, 2147483647, INT32_MIN, 123456789}));
    EXPECT_EQ(*root.get<std::vector<float>>("f"), (std::vector<float>{0.25f, 1e5f, 3.0f}));
    EXPECT_EQ(root.get<std::vector<Quaternion>>("q")->at(1).w, 0.7071067691f);
    EXPECT_EQ(*root.get<std::vector<std::int32_t>>("t"), (std::vector<std::int32_t>{12, 3}));
    auto out = write(doc.value());
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(text_of(out.value()), text);
}

// A layout hint line with nothing after its prefix is a comment like any other (the writer
// never writes an empty hint; dmx_kv2_fuzz: the line was taken out and not written back).
TEST(DmxKv2, EmptyLayoutHintStaysAComment) {
    for (const std::string body : {"", "\"DmElement\"\n{\n}\n"}) {
        const std::string text =
            "<!-- dmx encoding keyvalues2 4 format vmap 29 -->\n// levelkit-binary \n" + body;
        auto doc = parse(text);
        ASSERT_TRUE(doc.ok()) << doc.error().to_string();
        auto out = write(doc.value());
        ASSERT_TRUE(out.ok());
        EXPECT_EQ(text_of(out.value()), text);
    }
    const std::string at_end =
        "<!-- dmx encoding keyvalues2 4 format vmap 29 -->\n// levelkit-binary ";
    auto doc = parse(at_end);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    EXPECT_EQ(text_of(write(doc.value()).value()), at_end);
}

// Only the first top-level "$prefix_element$" block is the prefix; a second is an element of
// that class and is written back under its name (it came back as "DmElement": found by
// dmx_kv2_fuzz).
TEST(DmxKv2, SecondPrefixBlockKeepsItsName) {
    const std::string text =
        "<!-- dmx encoding keyvalues2 4 format dmx 1 -->\n\"$prefix_element$\"\n{\n}\n\n"
        "\"$prefix_element$\"\n{\n\t\"x\" \"int\" \"1\"\n}\n\n\"DmElement\"\n{\n\t\"id\" "
        "\"elementid\" \"7d6a2b2c-a2a9-4f38-9e61-2c6a0f3a6b4e\"\n}\n";
    auto doc = parse(text);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    ASSERT_FALSE(doc->prefix.is_null());
    EXPECT_EQ((*doc)[doc->prefix].type.str(), "DmElement");
    EXPECT_EQ(doc->elements()[1].type.str(), "$prefix_element$");
    EXPECT_EQ((*doc)[doc->root].type.str(), "DmElement");
    auto out = write(doc.value());
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(text_of(out.value()), text);
}

TEST(DmxKv2, BinaryDocumentsGetValvesLayout) {
    auto doc = parse(kValveMap);
    ASSERT_TRUE(doc.ok());
    Document d = doc->clone();
    ASSERT_TRUE(convert(d, {"binary", 9}).ok());
    auto bin = write(d);
    ASSERT_TRUE(bin.ok()) << bin.error().to_string();
    auto back = read(bin.value());
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(compare_graphs(doc.value(), back.value()), std::nullopt);
    // Written as text again it is the original (Valve's layout, no layout line needed).
    Document t = back->clone();
    ASSERT_TRUE(convert(t, {"keyvalues2", 4}).ok());
    auto text = write(t);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(text_of(text.value()), kValveMap);
}

// Floats a binary document hands to the text writer are spelled as Valve's tools do: ten
// decimals, ties away from zero (2^-11 ends in a 5 at the eleventh), zeros trimmed, the
// fraction's leading zeros kept.
TEST(DmxKv2, FloatsFromBinaryAreSpelledAsValveDoes) {
    constexpr std::string_view kFloats = R"(<!-- dmx encoding keyvalues2 4 format vmap 29 -->
"CMapRootElement"
{
	"id" "elementid" "2929200b-cff6-4e61-8ff9-8857c60a79df"
	"a" "float" "0.0004882813"
	"b" "vector3" "0.0500000007 -3 100000.5"
	"c" "float" "-123.4560012817"
	"d" "vector2" "0.0000305176 7"
}
)";
    auto doc = parse(kFloats);
    ASSERT_TRUE(doc.ok()) << doc.error().to_string();
    Document d = doc->clone();
    ASSERT_TRUE(convert(d, {"binary", 9}).ok());
    auto bin = write(d);
    ASSERT_TRUE(bin.ok());
    auto back = read(bin.value());
    ASSERT_TRUE(back.ok());
    Document t = back->clone();
    ASSERT_TRUE(convert(t, {"keyvalues2", 4}).ok());
    auto text = write(t);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(text_of(text.value()), kFloats);
}

TEST(DmxKv2, NoidsDuplicatesSharedElements) {
    auto doc = parse(kValveMap);
    ASSERT_TRUE(doc.ok());
    Document d = doc->clone();
    ASSERT_TRUE(convert(d, {"keyvalues2_noids", 4}).ok());
    auto text = write(d);
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    const std::string s = text_of(text.value());
    EXPECT_EQ(s.find("\"id\""), std::string::npos);
    auto back = parse(s);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    const Element& root = (*back)[back->root];
    // The shared world was written twice: two elements now.
    EXPECT_NE(*root.get<ElementRef>("shared"),
              root.get<std::vector<ElementRef>>("children")->at(0));
}

TEST(DmxKv2, FlatWritesEveryElementAtTopLevel) {
    auto doc = parse(kValveMap);
    ASSERT_TRUE(doc.ok());
    Document d = doc->clone();
    ASSERT_TRUE(convert(d, {"keyvalues2_flat", 4}).ok());
    auto text = write(d);
    ASSERT_TRUE(text.ok());
    auto back = parse(text_of(text.value()));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->kv2().toplevel.size(), back->size());
    EXPECT_EQ(compare_graphs(doc.value(), back.value()), std::nullopt);
}

TEST(DmxKv2, SyntaxErrorsHaveLineAndColumn) {
    auto doc =
        parse("<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\"\n{\n\t\"x\" \"int\" 5\n}\n");
    ASSERT_FALSE(doc.ok());
    EXPECT_EQ(doc.error().line, 4u);
    EXPECT_EQ(doc.error().column, 12u);
    auto bad = parse(
        "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\"\n{\n\t\"x\" \"int\" \"five\"\n}\n");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "dmx.bad-value");
    EXPECT_NE(bad.error().path.find("attribute 'x'"), std::string::npos);
    auto dup = parse(
        "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\"\n{\n"
        "\"id\" \"elementid\" \"2929200b-cff6-4e61-8ff9-8857c60a79df\"\n\"b\" \"B\" {\n"
        "\"id\" \"elementid\" \"2929200b-cff6-4e61-8ff9-8857c60a79df\"\n}\n}\n");
    ASSERT_FALSE(dup.ok());
    EXPECT_EQ(dup.error().code, "dmx.duplicate-id");
}

TEST(DmxKv2, UnknownIdsAreExternalElements) {
    auto doc = parse(
        "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\"\n{\n"
        "\t\"far\" \"element\" \"2929200b-cff6-4e61-8ff9-8857c60a79df\"\n}\n");
    ASSERT_TRUE(doc.ok());
    const ElementRef far = *(*doc)[doc->root].get<ElementRef>("far");
    EXPECT_TRUE((*doc)[far].external());
    Document d = doc->clone();
    ASSERT_TRUE(convert(d, {"binary", 5}).ok());
    auto bin = write(d);
    ASSERT_TRUE(bin.ok());
    // Binary stores it as -2 followed by the GUID text.
    EXPECT_NE(text_of(bin.value()).find("2929200b-cff6-4e61-8ff9-8857c60a79df"), std::string::npos);
}

TEST(DmxKv2, LongChainsAreWrittenWithinTheNestingLimit) {
    // 3000 elements each referenced once by the previous: Valve's layout would nest them all.
    Document doc;
    doc.root = doc.add_element("Link", "0", Guid{});
    ElementRef prev = doc.root;
    for (int i = 1; i < 3000; ++i) {
        Guid g;
        g.bytes[0] = static_cast<std::uint8_t>(i);
        g.bytes[1] = static_cast<std::uint8_t>(i >> 8);
        const ElementRef e = doc.add_element("Link", std::to_string(i), g);
        doc[prev].set("next", e);
        prev = e;
    }
    Document text = doc.clone();
    ASSERT_TRUE(convert(text, {"keyvalues2", 1}).ok());
    auto bytes = write(text);
    ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
    auto back = read(bytes.value());
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(compare_graphs(doc, back.value()), std::nullopt);
}

TEST(DmxKv2, DeepNestingIsLimited) {
    std::string text = "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\" {";
    for (int i = 0; i < 2000; ++i) text += "\"x\" \"A\" {";
    auto doc = parse(text);
    ASSERT_FALSE(doc.ok());
    EXPECT_EQ(doc.error().code, "dmx.too-deep");
}

}  // namespace
}  // namespace lk::dmx
