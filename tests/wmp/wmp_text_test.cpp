// WMP2 text, `$$M` and A3: the syntax as WED writes it, one small fixture per feature.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "levelkit/core/file.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "runs_compare.hpp"
#include "support/random_text.hpp"

namespace lk::wmp {
namespace {

Blob text(std::string_view s) {
    return Blob::copy_of(s);
}

std::string write_str(const Level& lv) {
    auto s = write_text(lv);
    EXPECT_TRUE(s.ok()) << (s ? "" : s.error().to_string());
    return s ? s.value() : std::string();
}

// The block from the Gamestudio manual's WMP page (A6+ syntax), inside a minimal level.
constexpr std::string_view kA6 = R"(// WMP2
// WMPIO V 1.30
// Created 01.11.2012

version 710

blocks 1
entities 1
objects 2

wed {
	palette {
	}

	wad {
		0 0 0 0 0
		<C:\Gstudio\wads\standard.wad> 1
	}
}

block 0 {
	vertices 8
	faces 6
	5 -5 40   5 -5 -40   5 5 40
	5 5 -40   -5 -5 40   -5 -5 -40
	-5 5 40   -5 5 -40
	4  1 0 2 3 : heavymetal ( 0 1 0 0 ) ( 0 0 -1 0 ) 0 0 0 1 1 : 0000 0 50 ndef
	4  0 1 5 4 : heavymetal ( 1 0 0 0 ) ( 0 0 -1 0 ) 0 0 0 1 1 : 0000 0 50 ndef
	4  4 5 7 6 : heavymetal ( 0 1 0 0 ) ( 0 0 -1 0 ) 0 0 0 1 1 : 0000 0 50 ndef
	4  3 2 6 7 : heavymetal ( 1 0 0 0 ) ( 0 0 -1 0 ) 0 0 0 1 1 : 0000 0 50 ndef
	4  2 0 4 6 : defaulttex ( 1 0 0 -96 ) ( 0 -1 0 -64 ) 0 32 15 2 1 : 01000000000000000000000000000001 10 70 mat_x
	4  1 3 7 5 : heavymetal ( 1 0 0 0 ) ( 0 -1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef
	{
		00000000000000010000000000000000
		ndef
		5
	}
}

level 0 {   // Root
	<box.$$w>
	<palette.pcx>
	30
	0
	60
	<box.c>
	100.000000 100.000000 100.000000
	19.607843 39.215687 100.000000
	100.000000 19.607843 19.607843
	-0.000000 -0.000000 -0.000000
	58.823528 58.823528 58.823528
	19.607843 19.607843 19.607843
}

object 0 {  // Root
	(0 0 0) (0 0 0) (1 1 1)
	object 1
	level 0
}

object 1 {
	(0 0 16) (1.570796 0 0) (1 1 1)
	block 0
}

)";

TEST(WmpText, A6BlockFieldsAreTyped) {
    auto lv = read_wmp2(text(kA6));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    EXPECT_EQ(lv->dialect, Dialect::wmp2_a6);
    EXPECT_EQ(lv->header.editor, "WMPIO V 1.30");
    EXPECT_EQ(lv->header.created, "01.11.2012");
    EXPECT_EQ(lv->header.version, 710);
    ASSERT_EQ(lv->blocks.size(), 1u);
    const Block& b = lv->blocks[0];
    ASSERT_EQ(b.vertices.size(), 8u);
    EXPECT_EQ(b.vertices[1], Vec3(5, -5, -40));
    ASSERT_EQ(b.faces.size(), 6u);
    const Face& f = b.faces[4];
    EXPECT_EQ(f.indices, (std::vector<std::uint32_t>{2, 0, 4, 6}));
    EXPECT_EQ(f.texture, "defaulttex");
    ASSERT_TRUE(f.t1 && f.t2);
    EXPECT_EQ(f.t1->axis, Vec3(1, 0, 0));
    EXPECT_EQ(f.t1->offset, -96);
    EXPECT_EQ(f.t2->offset, -64);
    ASSERT_TRUE(f.transform);
    EXPECT_EQ(f.transform->offset_y, 32);
    EXPECT_EQ(f.transform->rotation, 15);
    EXPECT_EQ(f.transform->scale_x, 2);
    // Flags are a binary number, most significant bit first.
    EXPECT_EQ(f.flags, 0x40000001u);
    EXPECT_EQ(f.ambient, 10);
    EXPECT_EQ(f.albedo, 70);
    EXPECT_EQ(f.material, "mat_x");
    EXPECT_FALSE(b.faces[0].material.has_value());  // "ndef"
    EXPECT_EQ(b.flags, block_flag::locked_textures);
    EXPECT_FALSE(b.function.has_value());
    EXPECT_EQ(b.index, 5);
}

TEST(WmpText, ObjectTreeLinksPayloads) {
    auto lv = read_wmp2(text(kA6));
    ASSERT_TRUE(lv.ok());
    ASSERT_EQ(lv->objects.size(), 2u);
    const Object& root = lv->objects[lv->root];
    EXPECT_EQ(root.name, "Root");  // the comment after `{`
    EXPECT_EQ(root.kind, Kind::level);
    EXPECT_EQ(root.payload, 0);
    ASSERT_EQ(root.children.size(), 1u);
    const Object& child = lv->objects[root.children[0]];
    EXPECT_EQ(child.kind, Kind::block);
    EXPECT_EQ(child.transform.position, Vec3(0, 0, 16));
    EXPECT_DOUBLE_EQ(child.transform.angles.x, 1.570796);  // radians
    const LevelInfo& li = lv->levels[0];
    EXPECT_EQ(li.wad, "box.$$w");
    EXPECT_EQ(li.script, "box.c");
    EXPECT_EQ(li.sun_elevation, 60);
    ASSERT_EQ(li.colors.size(), 6u);
    EXPECT_NEAR(li.colors[1].g, 39.215687, 1e-9);
    EXPECT_EQ(lv->wed.wads.size(), 1u);
    EXPECT_EQ(lv->wed.wads[0].path, "C:\\Gstudio\\wads\\standard.wad");
}

TEST(WmpText, WritesBackByteForByte) {
    auto lv = read_wmp2(text(kA6));
    ASSERT_TRUE(lv.ok());
    EXPECT_EQ(write_str(lv.value()), kA6);
}

// "// Created  30.07.2000" (two spaces) holds the same date as with one: read as that date and
// written back as it was (fuzz_wmp_text).
TEST(WmpText, CreatedLineWithExtraSpacesIsKept) {
    std::string t(kA6);
    const std::string one = "// Created 01.11.2012", two = "// Created  01.11.2012";
    t.replace(t.find(one), one.size(), two);
    auto lv = read_wmp2(text(t));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    EXPECT_EQ(lv->header.created, "01.11.2012");
    EXPECT_EQ(write_str(*lv), t);
    lv->header.created = "02.11.2012";
    EXPECT_NE(write_str(*lv).find("// Created 02.11.2012\n"), std::string::npos);
}

TEST(WmpText, ChangedValuesAreWrittenFromTheModel) {
    auto lv = read_wmp2(text(kA6));
    ASSERT_TRUE(lv.ok());
    lv->blocks[0].vertices[0].x = 7.25;
    lv->blocks[0].faces[0].texture = "stone";
    const std::string out = write_str(lv.value());
    std::string expected(kA6);
    expected.replace(expected.find("5 -5 40"), 1, "7.25");
    expected.replace(expected.find("heavymetal"), 10, "stone");
    EXPECT_EQ(out, expected);
}

TEST(WmpText, RecordsThatChangeShapeAreRewrittenCanonically) {
    auto lv = read_wmp2(text(kA6));
    ASSERT_TRUE(lv.ok());
    lv->blocks[0].faces.pop_back();  // the block now has five faces
    const std::string out = write_str(lv.value());
    auto again = read_wmp2(Blob::copy_of(out));
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    EXPECT_EQ(again->blocks[0].faces.size(), 5u);
    // Everything outside the block keeps its bytes.
    EXPECT_NE(out.find("level 0 {   // Root"), std::string::npos);
    EXPECT_NE(out.find("\tfaces 5"), std::string::npos);
}

// A4: Quake-style plane triplets, no `version`, quoted entity flags.
constexpr std::string_view kA4 = R"(// WMP2
// ACKWED V 4.34
// Created 30.07.2000

blocks 1
entities 2
objects 3

wed {
	palette {
		00 00 00  0f 0f 0f  
	}
}

block 0 {
	( 0 0 64 ) ( 0 64 64 ) ( 64 0 64 ) *water 16 0 0 1.00 1.00 : 01001001 0.0 50.0 ndef ndef 0.0 0000
	( 0 0 0 ) ( 64 0 0 ) ( 0 64 0 ) *water 0 0 0 1.00 1.00 : 0000 0.0 50.0 ndef ndef 0.0 0000
	( 0 0 0 ) ( 0 0 64 ) ( 64 0 0 ) *water 0 0 0 1.00 1.00 : 0000 0.0 50.0 ndef ndef 0.0 0000
	( 0 64 0 ) ( 64 64 0 ) ( 0 64 64 ) *water 0 0 0 1.00 1.00 : 0000 0.0 50.0 ndef ndef 0.0 0000
	( 0 0 0 ) ( 0 64 0 ) ( 0 0 64 ) *water 0 0 0 1.00 1.00 : 0000 0.0 50.0 ndef ndef 0.0 0000
	( 64 0 0 ) ( 64 0 64 ) ( 64 64 0 ) *water 0 0 0 1.00 1.00 : 0000 0.0 50.0 ndef ndef 0.0 0000
	{
		0000
		ndef
	}
}

level 0 {
	<w.$$w>
	<palette.pcx>
	30
	0.000
	45.000
	<ndef>
	0 0 0
	0 0 0
	0 0 0
	0 0 0
}

model 1 {
	1.0 1.0 1.0
	<player.mdl>
	player_mdl_001
	init_player
	0 0 0 0 0 0 0 0
	'00000100'
	0.0
}

object 0 {
	(0.0 0.0 0.0) (0.0 0.0 0.0) (1.0 1.0 1.0)
	object 1, 2
	level 0
}

object 1 {
	(0.0 0.0 0.0) (0.0 0.0 0.0) (1.0 1.0 1.0)
	block 0
}

object 2 {
	(10.0 20.0 30.0) (0.0 0.0 0.0) (1.0 1.0 1.0)
	model 1
}

)";

TEST(WmpText, A4PlaneBlocks) {
    auto lv = read_wmp2(text(kA4));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    EXPECT_EQ(lv->dialect, Dialect::wmp2_a4);
    EXPECT_FALSE(lv->header.version.has_value());
    const Block& b = lv->blocks[0];
    EXPECT_TRUE(b.plane_syntax);
    ASSERT_EQ(b.faces.size(), 6u);
    EXPECT_EQ(b.faces[0].plane_points[1], Vec3(0, 64, 64));
    EXPECT_EQ(b.faces[0].flags, 0b01001001u);
    EXPECT_EQ(b.faces[0].transform->offset_x, 16);
    EXPECT_EQ(b.faces[0].a4_tail, (std::vector<std::string>{"ndef", "0.0", "0000"}));
    EXPECT_FALSE(b.index.has_value());           // A4 trailers have no index
    EXPECT_EQ(lv->levels[0].colors.size(), 4u);  // WED 4.x writes only the fog colours
    EXPECT_EQ(lv->models[0].flags, 0b100u);
    EXPECT_TRUE(lv->models[0].text_quoted_flags);
    EXPECT_EQ(lv->objects[0].children.size(), 2u);
    EXPECT_EQ(write_str(lv.value()), kA4);

    // The planes close a 64-unit cube: eight vertices, quads wound like WED's polygon faces.
    Block poly = b;
    ASSERT_TRUE(plane_block_to_polygons(poly));
    EXPECT_EQ(poly.vertices.size(), 8u);
    for (const Face& f : poly.faces) {
        EXPECT_EQ(f.indices.size(), 4u);
        const Plane pl =
            *Plane::from_points(f.plane_points[0], f.plane_points[1], f.plane_points[2]);
        EXPECT_TRUE(near(face_normal(poly.vertices, f), pl.normal, 1e-9));
    }
}

TEST(WmpText, A8ExtendedModelRecord) {
    constexpr std::string_view kModel = R"(// WMP2
// WMPIO V 1.30
// Created 01.11.2012

version 710

blocks 0
entities 1
objects 1

model 1 {   // hill
	1 1 1
	<hill.hmp>
	hill
	Player,Core
	0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
	0101
	0
	50
	path_001
	ndef
	mtl_terrain
	LfpSun
	ndef
}

object 0 {  // hill
	(0 0 0) (0 0 0) (1 1 1)
	model 1
}

)";
    auto lv = read_wmp2(text(kModel));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    const Model& m = lv->models[0];
    EXPECT_EQ(m.file, "hill.hmp");
    EXPECT_EQ(model_file_type(m.file), ModelFileType::hmp);  // terrain
    EXPECT_EQ(m.action, "Player,Core");                      // a line field: commas allowed
    EXPECT_EQ(m.skills.size(), 20u);
    EXPECT_EQ(m.flags, 5u);
    EXPECT_EQ(m.path, "path_001");
    EXPECT_FALSE(m.string2.has_value());
    EXPECT_EQ(m.material, "mtl_terrain");
    ASSERT_EQ(m.strings.size(), 1u);
    EXPECT_EQ(m.strings[0].tag, 0);
    EXPECT_EQ(write_str(lv.value()), kModel);
}

constexpr std::string_view kMM = R"(// wmpio (1.30), 27.10.2017

version 711


{ //level
	0
	box.$$w
	palette.pcx
	{   // 0
		vertices 4
		faces 4
		0 0 0   64 0 0   0 64 0
		0 0 64
		3  0 1 2 : stone ( 1 0 0 0 ) ( 0 -1 0 0 ) : 0000 0 50 ndef
		3  0 3 1 : stone [ 0 0 1 0 1 1 ] ( 1 0 0 0 ) ( 0 0 -1 0 ) : 0000 0 50 ndef
		3  0 2 3 : stone ( 0 1 0 0 ) ( 0 0 -1 0 ) : 0011 0 50 ndef
		3  1 3 2 : stone ( 0.5 0 0 8 ) ( 0 -0.5 0 4 ) : 0000 0 50 ndef
		{
			0000
			ndef
			0
		}
	}
}
{ //sun
	5
	270
	55
}
{ //model
	7
	10 20 30
	90 0 0
	2 2 2
	guard.mdl
	guard_mdl_001
	ndef
	0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
	0000
	0
	50
	1
	0
}
{ //light
	2
	-16 32 48
	0 0 0
	71.764709 35.686275 -0.000000 400 0100
}
{ //path
	6
	path_001
	2
	8
	0 0 0
	100 0 0
	0 0 0 0 0 0
	0 0 0 0 0 0
	1 2 100 0 0 0
}
)";

TEST(WmpMM, RecordsAndBlocks) {
    auto lv = read_mm(text(kMM));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    EXPECT_EQ(lv->dialect, Dialect::mm);
    EXPECT_EQ(lv->header.mm_banner, "wmpio (1.30), 27.10.2017");
    ASSERT_EQ(lv->blocks.size(), 1u);
    const Block& b = lv->blocks[0];
    EXPECT_EQ(b.label, "0");
    EXPECT_FALSE(b.faces[0].transform.has_value());  // baked into the vectors
    EXPECT_EQ(b.faces[1].uvs.size(), 3u);
    EXPECT_EQ(b.faces[3].t1->axis, Vec3(0.5, 0, 0));
    EXPECT_EQ(b.faces[3].t2->offset, 4);
    EXPECT_EQ(lv->levels[0].sun_azimuth, 270);
    ASSERT_EQ(lv->models.size(), 1u);
    EXPECT_EQ(lv->models[0].number, 7);  // the `$$M` type number
    EXPECT_EQ(lv->models[0].mm_path_index, 1);
    const Object* guard = nullptr;
    for (const Object& o : lv->objects) {
        if (o.kind == Kind::model) guard = &o;
    }
    ASSERT_NE(guard, nullptr);
    EXPECT_EQ(guard->transform.angles, Vec3(90, 0, 0));  // degrees in `$$M`
    EXPECT_EQ(guard->transform.scale, Vec3(2, 2, 2));
    EXPECT_EQ(lv->lights[0].flags, 0b0100u);
    ASSERT_EQ(lv->paths.size(), 1u);
    ASSERT_EQ(lv->paths[0].edges.size(), 1u);
    EXPECT_EQ(lv->paths[0].edges[0].from, 0u);  // 1-based in the file
    EXPECT_EQ(lv->paths[0].edges[0].values[0], 100);
    EXPECT_EQ(lv->paths[0].mm_value_count, 8);
    EXPECT_EQ(write_str(lv.value()), kMM);
}

// An empty texture-coordinate list `[ ]` is a list, not its absence: it was read as no list and
// written back without the brackets (found by comparing the fast and general face readers).
TEST(WmpMM, EmptyUvListIsKept) {
    std::string mm(kMM);
    const std::string uvs = "[ 0 0 1 0 1 1 ]";
    const std::size_t at = mm.find(uvs);
    ASSERT_NE(at, std::string::npos);
    mm.replace(at, uvs.size(), "[ ]");
    auto lv = read_mm(text(mm));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    const Face& f = lv->blocks[0].faces[1];
    EXPECT_TRUE(f.uvs.empty());
    EXPECT_TRUE(f.empty_uv_list);
    EXPECT_FALSE(lv->blocks[0].faces[0].empty_uv_list);
    EXPECT_EQ(write_str(lv.value()), mm);
    // Written anew (the face edited), the list is still there.
    Level edited = lv.value();
    edited.blocks[0].faces[1].flags = 1;
    const std::string again = write_str(edited);
    EXPECT_NE(again.find(": stone [ ] ("), std::string::npos) << again;
}

// `ndef` entity string lines after the last string are kept: they came back as nothing, so the
// record was written anew and lost the text around it (found by fuzz_wmp_text).
TEST(WmpMM, TrailingNdefEntityStringsAreKept) {
    std::string mm(kMM);
    const std::string model_end = "\t50\n\t1\n\t0\n}";
    const std::size_t at = mm.find(model_end);
    ASSERT_NE(at, std::string::npos);
    mm.insert(at + model_end.size() - 1, "\tleaves\n\tpreset\r\tndef\n\tndef\n");
    auto lv = read_mm(text(mm));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    ASSERT_EQ(lv->models[0].strings.size(), 1u);
    EXPECT_EQ(lv->models[0].strings[0].text, "preset");
    EXPECT_EQ(lv->models[0].mm_string_lines, 3u);
    EXPECT_EQ(write_str(lv.value()), mm);
}

constexpr std::string_view kA3 =
    "#  This file \"T.WMP\" was generated by WED v3.26\r\n"
    "#vertex\txpos ypos zpos index\r\n"
    "VERTEX\t0.000 0.000 0.000;#0\r\n"
    "VERTEX\t64.000 0.000 0.000;#1\r\n"
    "REGION\tfloor 0.000 50.000;#0\r\n"
    "WALL\tbrick 0 1\t0\t0\t0.000 0.000;#0\r\n"
    "THING\tlamp 8.000 8.000 90.000\t0;#1\r\n"
    "PLAYER_START\t16.000 16.000 0.000\t0;#2\r\n"
    "WAY\tpatrol\t0.000 0.000\t32.000 32.000;#0\r\n"
    "\r\n";

TEST(WmpA3, LineRecords) {
    auto a = read_a3(text(kA3));
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    EXPECT_EQ(a->editor, "WED v3.26");
    ASSERT_EQ(a->vertices.size(), 2u);
    EXPECT_EQ(a->vertices[1].x, 64);
    EXPECT_EQ(a->regions[0].ceiling, 50);
    EXPECT_EQ(a->walls[0].v2, 1);
    EXPECT_EQ(a->things[0].angle, 90);
    EXPECT_EQ(a->player_starts[0].x, 16);
    ASSERT_EQ(a->ways[0].points.size(), 2u);
    EXPECT_EQ(write_a3(a.value()), kA3);
}

// --- errors ----------------------------------------------------------------------------

struct BadCase {
    std::string_view name;
    std::string text;
    std::string_view code;
    std::uint32_t line;
};

// Each case fails to read with its error code at its line (and a column).
template <std::size_t N>
void expect_located_errors(const BadCase (&cases)[N]) {
    for (const BadCase& c : cases) {
        auto lv = read_wmp2(Blob::copy_of(c.text));
        ASSERT_FALSE(lv.ok()) << c.name;
        EXPECT_EQ(lv.error().code, c.code) << c.name << ": " << lv.error().to_string();
        EXPECT_EQ(lv.error().line, c.line) << c.name << ": " << lv.error().to_string();
        EXPECT_GT(lv.error().column, 0u) << c.name;
    }
}

TEST(WmpText, BadInputGivesLocatedErrors) {
    const std::string head =
        "// WMP2\n// ACKWED V 5.0\n// Created 1.1.2002\n\nversion 510\n\n"
        "blocks 1\nentities 0\nobjects 1\n\n";
    const std::string block =
        "block 0 {\n\tvertices 3\n\tfaces 1\n\t0 0 0   1 0 0   0 1 0\n"
        "\t3  0 1 2 : t 0 0 0 1 1 : 0000 0 50 ndef\n\t{\n\t\t0000\n\t\tndef\n\t\t0\n\t}\n}\n";
    const BadCase cases[] = {
        {"not a number", head + "block 0 {\n\tvertices 3\n\tfaces 1\n\t0 0 x\n}\n",
         "wmp.bad-number", 14},
        {"index out of range",
         head + "block 0 {\n\tvertices 3\n\tfaces 1\n\t0 0 0   1 0 0   0 1 0\n\t3  0 1 7 : t\n",
         "wmp.bad-vertex-index", 15},
        {"huge count", head + "block 0 {\n\tvertices 4000000000\n", "wmp.bad-count", 12},
        {"dangling reference",
         head + block + "object 0 {\n\t(0 0 0) (0 0 0) (1 1 1)\n\tblock 9\n}\n",
         "wmp.dangling-reference", 24},
        {"missing header", "blocks 0\n", "wmp.bad-header", 1},
        {"truncated record", head + "block 0 {\n\tvertices 3\n\tfaces 1\n\t0 0 0   1 0",
         "wmp.bad-number", 14},
        {"bad flags",
         head + "block 0 {\n\tvertices 3\n\tfaces 1\n\t0 0 0   1 0 0   0 1 0\n"
                "\t3  0 1 2 : t 0 0 0 1 1 : 0201 0 50 ndef\n",
         "wmp.bad-flags", 15},
    };
    expect_located_errors(cases);
    // The logical path names the record and field.
    auto bad = read_wmp2(Blob::copy_of(cases[1].text));
    EXPECT_EQ(bad.error().path, "block[0]/face[0]");
}

// Numbers take a one-pass fast path when they are plain decimals; every other spelling goes
// through the general one. Both must give the same values, the same errors and the same bytes.
TEST(WmpText, NumberSpellingsReadAlikeOnBothPaths) {
    const std::string head =
        "// WMP2\n// ACKWED V 5.0\n// Created 1.1.2002\n\nversion 510\n\n"
        "blocks 1\nentities 0\nobjects 1\n\n";
    const std::string good = head +
                             "block 0 {\n\tvertices 3\n\tfaces 1\n"
                             "\t1. -.5 007   1e3 -0 +5   123456789012345678 0.1234567890123456789 "
                             "-2.50 // c\n"
                             "\t3  0 1 0000000002 : t 0 0 0 1 1 : 0000 0 50 ndef\n"
                             "\t{\n\t\t0000\n\t\tndef\n\t\t0\n\t}\n}\n";
    auto lv = read_wmp2(Blob::copy_of(good));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    const auto& v = lv->blocks.at(0).vertices;
    EXPECT_EQ(v[0], Vec3(1, -0.5, 7));
    EXPECT_EQ(v[1].x, 1000);
    EXPECT_TRUE(v[1].y == 0 && std::signbit(v[1].y));
    EXPECT_EQ(v[1].z, 5);
    EXPECT_EQ(v[2].x, 123456789012345678.0);
    EXPECT_EQ(v[2].y, 0.1234567890123456789);
    EXPECT_EQ(v[2].z, -2.5);
    EXPECT_EQ(lv->blocks[0].faces.at(0).indices, (std::vector<std::uint32_t>{0, 1, 2}));
    EXPECT_EQ(write_str(*lv), good) << "every spelling is written back as it was";

    // A number running into a comment, a sign on an index, or an index past 32 bits.
    const std::string faces = "\tvertices 3\n\tfaces 1\n\t0 0 0   1 0 0   0 1 0\n\t3  ";
    const BadCase cases[] = {
        {"comment glued to a number", head + "block 0 {\n\tvertices 3\n\tfaces 1\n\t0 0 5//c\n",
         "wmp.bad-number", 14},
        {"negative index", head + "block 0 {\n" + faces + "0 1 -0 : t\n", "wmp.bad-index", 15},
        {"index past 32 bits", head + "block 0 {\n" + faces + "0 1 4294967296 : t\n",
         "wmp.bad-index", 15},
    };
    expect_located_errors(cases);
}

// The same fields spelled at random, read once where the fast paths take them (plain tokens)
// and once where only the general paths can (each token after a comment line): values,
// errors and bytes must agree, and every number read must be the general parser's value.
TEST(WmpText, RandomSpellingsReadAlikeOnBothPaths) {
    lk::test::RandomText random(20240611);
    auto pick = [&](std::size_t n) { return random.pick(n); };
    auto digits = [&](std::size_t n) { return random.digits(n); };
    auto number = [&] {
        static const char* kOdd[] = {"nan", "inf",   "-",   ".",    "1e5", "2E-3",
                                     "0x1", "1.5.2", "--1", "5//c", "'1'", "1,5"};
        if (pick(12) == 0) return std::string(kOdd[pick(std::size(kOdd))]);
        std::string t = pick(4) == 0 ? "-" : (pick(30) == 0 ? "+" : "");
        t += digits(pick(3) == 0 ? pick(18) : pick(5));
        if (pick(3) != 0) t += "." + digits(pick(3) == 0 ? pick(18) : pick(8));
        if (t.empty() || t == "-" || t == "+") t += digits(1);  // odd spellings come above
        return t;
    };
    auto index = [&] {
        static const char* kOdd[] = {"00",         "+1",  "-0", "3", "4294967296",
                                     "0000000002", "1e0", "1.", "x"};
        return pick(6) == 0 ? std::string(kOdd[pick(std::size(kOdd))]) : std::to_string(pick(3));
    };
    auto flags = [&] {
        static const char* kOdd[] = {"'0101'", "0102", "", "0b1", "1.0"};
        if (pick(6) == 0) return std::string(kOdd[pick(std::size(kOdd))]);
        std::string f;
        for (std::size_t i = 0, n = 1 + pick(34); i < n; ++i) f += pick(2) ? '1' : '0';
        return f;
    };
    auto integer = [&] {
        static const char* kOdd[] = {
            "+5", "-0", "123456789012345678", "9999999999999999999", "1.5", "-", "0007"};
        return pick(4) == 0 ? std::string(kOdd[pick(std::size(kOdd))])
                            : (pick(3) == 0 ? "-" : "") + digits(1 + pick(15));
    };
    const std::string head =
        "// WMP2\n// ACKWED V 5.0\n// Created 1.1.2002\n\nversion 510\n\n"
        "blocks 1\nentities 0\nobjects 0\n\nblock 0 {\n\tvertices 3\n\tfaces 1\n\t";
    for (int round = 0; round < 3000; ++round) {
        std::vector<std::string> tokens;
        for (int i = 0; i < 3; ++i) tokens.push_back(number());
        for (int i = 0; i < 3; ++i) tokens.push_back(index());
        tokens.push_back(flags());
        tokens.push_back(integer());
        std::string plain, commented;
        for (int general = 0; general < 2; ++general) {
            auto tok = [&](std::size_t i) { return (general ? "// c\n\t" : "") + tokens[i]; };
            (general ? commented : plain) =
                head + tok(0) + " " + tok(1) + " " + tok(2) + "   1 0 0   0 1 0\n\t3  " + tok(3) +
                " " + tok(4) + " " + tok(5) + " : t 0 0 0 1 1 : " + tok(6) +
                " 0 50 ndef\n\t{\n\t\t0000\n\t\tndef\n\t\t" + tok(7) + "\n\t}\n}\n";
        }
        auto fast = read_wmp2(text(plain));
        auto slow = read_wmp2(text(commented));
        ASSERT_EQ(fast.ok(), slow.ok()) << plain;
        if (!fast.ok()) {
            EXPECT_EQ(fast.error().code, slow.error().code) << plain;
            EXPECT_EQ(fast.error().path, slow.error().path) << plain;
            continue;
        }
        const Block& a = fast->blocks.at(0);
        const Block& b = slow->blocks.at(0);
        for (int i = 0; i < 3; ++i) {
            const auto want = parse_double(tokens[static_cast<std::size_t>(i)]);
            ASSERT_TRUE(want.has_value()) << plain;
            const double x = a.vertices[0][i], y = b.vertices[0][i];
            EXPECT_EQ(std::memcmp(&x, &*want, sizeof x), 0) << tokens[static_cast<std::size_t>(i)];
            EXPECT_EQ(std::memcmp(&y, &*want, sizeof y), 0) << tokens[static_cast<std::size_t>(i)];
        }
        EXPECT_EQ(a.faces.at(0).indices, b.faces.at(0).indices) << plain;
        EXPECT_EQ(a.faces[0].flags, b.faces[0].flags) << plain;
        EXPECT_EQ(a.index, b.index) << plain;
        EXPECT_EQ(write_str(*fast), plain);
        EXPECT_EQ(write_str(*slow), commented);
    }
}

// Whole records (faces of every dialect, vertex lists, object and `$$M` transforms) are read in
// one run of plain tokens where they can be, and by the token readers otherwise. The same
// records, spelled at random (odd tokens, separators, lengths that cross the layout's growth),
// are read once where the runs take them and once where only the general paths can (a comment
// before each token): values, errors and bytes must agree.
TEST(WmpText, RecordRunsReadAlikeOnBothPaths) {
    lk::test::RandomText random(20250301);
    auto pick = [&](std::size_t n) { return random.pick(n); };
    auto digits = [&](std::size_t n) { return random.digits(n); };
    auto odd = [&](int in) { return pick(static_cast<std::size_t>(in)) == 0; };
    // Odd tokens (that no run takes, or that no reader takes) in half of the rounds.
    bool odd_round = false;
    auto bad = [&] { return odd_round && odd(150); };
    auto number = [&] {
        static const char* kOdd[] = {"nan", "-",   ".", "1e5", "0x1", "--1",  "5//c",
                                     "'1'", "1,5", "(", ":",   "x",   "1.5.2"};
        if (bad()) return std::string(kOdd[pick(std::size(kOdd))]);
        std::string t = pick(4) == 0 ? "-" : (bad() ? "+" : "");
        t += digits(pick(8) == 0 ? pick(17) : 1 + pick(4));
        if (pick(2)) t += "." + digits(pick(8) == 0 ? pick(17) : pick(7));
        if (t.empty() || t == "-" || t == "+") t += digits(1);
        return t;
    };
    auto word = [&] {
        static const char* kOdd[] = {"<a b>", "a//b", "/x", "<c>", "(", ":", "[", "]"};
        if (bad()) return std::string(kOdd[pick(std::size(kOdd))]);
        static const char* kWords[] = {"ndef", "stone", "03___Default", "a:b", "x-y.z", "0000"};
        return std::string(kWords[pick(std::size(kWords))]);
    };
    auto flags = [&] {
        static const char* kOdd[] = {"'0101'", "0102", "0b1", "1.0", "x"};
        if (bad()) return std::string(kOdd[pick(std::size(kOdd))]);
        std::string f;
        for (std::size_t i = 0, n = 1 + pick(odd(20) ? 34 : 8); i < n; ++i)
            f += pick(2) ? '1' : '0';
        return f;
    };
    // Tokens of a record. Before each comes a gap: blanks (random unless `gap` says) where the
    // runs may read, a comment line where only the general paths can. A4 tail words keep their
    // gap both ways (a comment would end their line), and the token after them starts a line.
    struct Tok {
        std::string text;
        std::string gap;
        bool tail = false;
    };
    auto gap = [&] {
        static const char* kGaps[] = {" ", " ", " ", "  ", "\t", "   ", "\n\t\t", "\r\n\t"};
        return std::string(bad() ? " // note\r\n\t" : kGaps[pick(std::size(kGaps))]);
    };
    auto spell = [&](const std::vector<Tok>& toks, bool general) {
        std::string s;
        for (const Tok& t : toks) {
            s += t.tail ? t.gap : general ? "\n// c\n\t" : t.gap.empty() ? gap() : t.gap;
            s += t.text;
        }
        return s;
    };
    auto nums = [&](std::vector<Tok>& t, int n) {
        for (int i = 0; i < n; ++i) t.push_back({number()});
    };
    auto paren = [&](std::vector<Tok>& t, int n) {
        t.push_back({bad() ? "[" : "("});
        nums(t, n);
        t.push_back({bad() ? "]" : ")"});
    };
    auto index = [&](std::size_t vertices) {
        if (bad()) {
            static const char* kOdd[] = {"+1", "-0", "9", "1e0", "x", "4294967296", "0000000002"};
            return std::string(kOdd[pick(std::size(kOdd))]);
        }
        return std::to_string(pick(vertices));
    };
    // One face of a dialect; `$$M` faces may have texture coordinates.
    auto face = [&](std::vector<Tok>& t, char dialect, std::size_t vertices) {
        if (dialect == '4') {
            const std::size_t first = t.size();
            for (int k = 0; k < 3; ++k) paren(t, 3);
            t[first].gap = "\n\t";
            t.push_back({word()});
            nums(t, 5);
        } else {
            const std::size_t n = odd(10) ? 3 + pick(300) : 3 + pick(3);
            t.push_back({bad() ? index(vertices) : std::to_string(n)});
            for (std::size_t k = 0; k < n; ++k) t.push_back({index(vertices)});
            t.push_back({bad() ? word() : ":"});
            t.push_back({word()});
            if (dialect == 'm' && pick(2)) {
                t.push_back({"["});
                nums(t, 2 * static_cast<int>(odd(20) ? pick(4) : n));  // "[ ]" too
                t.push_back({"]"});
            }
            if (dialect != '5' && (dialect == 'm' || !odd(20))) {
                paren(t, 4);
                paren(t, 4);
            }
            if (dialect != 'm') nums(t, 5);
        }
        t.push_back({bad() ? word() : ":"});
        t.push_back({flags()});
        nums(t, 2);
        t.push_back({word()});
        if (dialect == '4') {
            for (std::size_t k = 0, n = odd(10) ? pick(5) : 3; k < n; ++k) {
                static const char* kTailGaps[] = {" ",    " ",      " ",  "\t",       "  ",
                                                  "\n\t", "\r\n\t", "\r", " // x\n\t"};
                t.push_back({word(), kTailGaps[pick(std::size(kTailGaps))], true});
            }
        }
    };
    for (int round = 0; round < 3000; ++round) {
        odd_round = round % 2 != 0;
        const char dialect = "456m"[pick(4)];
        const std::size_t nv = 1 + pick(odd(10) ? 200 : 8);
        const std::size_t nf = 1 + pick(3);
        std::vector<Tok> body;
        if (dialect != '4') {
            body.push_back({"vertices"});
            body.push_back({std::to_string(nv)});
            body.push_back({"faces"});
            body.push_back({std::to_string(nf)});
            nums(body, 3 * static_cast<int>(nv));
        }
        for (std::size_t f = 0; f < nf; ++f) face(body, dialect, nv);
        std::vector<Tok> trailer = {{"{", "\n\t"}, {flags()}, {"ndef"}, {"0"}, {"}"}};
        if (dialect == '4') trailer.erase(trailer.begin() + 3);
        std::vector<Tok> object;
        for (int k = 0; k < 3; ++k) paren(object, 3);
        object.push_back({"block"});
        object.push_back({"0"});
        std::vector<Tok> light;
        nums(light, 10);
        light.push_back({flags()});
        // Lines of skills (models, path nodes) end at their line break, so both ways keep their
        // blanks; a comment at the end of the line makes the run decline there.
        auto skills = [&](std::size_t n) {
            std::string line[2];
            for (std::size_t k = 0; k < n; ++k) {
                const std::string v = number();
                const char* sep = k == 0 ? "\n\t" : pick(4) == 0 ? "\t" : " ";
                for (auto& l : line) l += sep + v;
            }
            line[1] += " // c";
            return std::pair{line[0], line[1]};
        };
        const std::size_t nskills = odd(10) ? 1 + pick(30) : 8;
        const auto model_skills = skills(nskills);
        const auto node1 = skills(odd(20) ? 1 + pick(8) : 6),
                   node2 = skills(odd(20) ? 1 + pick(8) : 6);
        std::vector<Tok> model;
        nums(model, 9);
        std::string texts[2];
        for (int general = 0; general < 2; ++general) {
            const bool g = general != 0;
            std::string& s = texts[general];
            if (dialect == 'm') {
                s = std::string("// banner\n\nversion 711\n\n{ //level\n\t0\n\tb.$$w\n") +
                    "\tpalette.pcx\n\t{   // 0\n" + spell(body, g) + spell(trailer, g) +
                    "\n\t}\n}\n{ //light\n\t2" + spell(light, g) + "\n}\n{ //model\n\t7" +
                    spell(model, g) + "\n\tguard.mdl\n\tguard_001\n\tndef" +
                    (g ? model_skills.second : model_skills.first) +
                    "\n\t0000\n\t0\n}\n{ //path\n\t6\n\tpath_001\n\t2\n\t8\n\t0 0 0\n\t1 0 0" +
                    (g ? node1.second + node2.second : node1.first + node2.first) +
                    "\n\t1 2 100 0 0 0\n}\n";
            } else {
                s = std::string("// WMP2\n// ACKWED V 5.0\n// Created 1.1.2002\n\n") +
                    (dialect == '4'   ? ""
                     : dialect == '5' ? "version 510\n\n"
                                      : "version 710\n\n") +
                    "blocks 1\nentities 0\nobjects 1\n\nblock 0 {" + spell(body, g) +
                    spell(trailer, g) + "\n}\n\nmodel 0 {\n\t1 1 1\n\t<a.mdl>\n\tname\n\tndef" +
                    (g ? model_skills.second : model_skills.first) +
                    "\n\t0000\n\t0\n}\n\nobject 0 {" + spell(object, g) + "\n}";
                if (pick(2)) s += "\n";  // a text may end right after its last token
            }
        }
        auto read = [&](const std::string& s) {
            return dialect == 'm' ? read_mm(text(s)) : read_wmp2(text(s));
        };
        auto fast = read(texts[0]);
        auto slow = read(texts[1]);
        ASSERT_EQ(fast.ok(), slow.ok()) << texts[0] << "\n---\n" << texts[1];
        if (!fast.ok()) {
            EXPECT_EQ(fast.error().code, slow.error().code) << texts[0];
            EXPECT_EQ(fast.error().path, slow.error().path) << texts[0];
            continue;
        }
        // The same values to the bit (the layouts differ: the general spelling has comments).
        EXPECT_EQ(test::runs_difference(*fast, *slow, false), "") << texts[0];
        EXPECT_EQ(write_str(*fast), texts[0]);
        EXPECT_EQ(write_str(*slow), texts[1]);
    }
}

// Token positions are 32-bit: a text of 4 GiB or more is refused up front (a sparse file, so
// the test needs no memory or disk).
TEST(WmpText, TextsOf4GiBOrMoreAreRefused) {
    const auto path = std::filesystem::temp_directory_path() / "levelkit_wmp_4gib.wmp";
    {
        std::ofstream f(path, std::ios::binary);
        f << "// WMP2\n";
    }
    std::filesystem::resize_file(path, (std::uintmax_t{1} << 32) + 16);
    auto blob = Blob::map_file(path);
    ASSERT_TRUE(blob.ok());
    auto lv = read_wmp2(blob.value());
    std::filesystem::remove(path);
    ASSERT_FALSE(lv.ok());
    EXPECT_EQ(lv.error().code, "wmp.too-large");
}

TEST(WmpText, ObjectCyclesAreRejected) {
    const std::string t =
        "// WMP2\n// x\n// Created 1\n\nversion 710\n\nblocks 0\nentities 0\nobjects 2\n\n"
        "object 0 {\n\t(0 0 0) (0 0 0) (1 1 1)\n\tobject 1\n}\n\n"
        "object 1 {\n\t(0 0 0) (0 0 0) (1 1 1)\n\tobject 0\n}\n";
    auto lv = read_wmp2(Blob::copy_of(t));
    ASSERT_FALSE(lv.ok());
    EXPECT_EQ(lv.error().code, "wmp.object-cycle");
}

TEST(WmpText, DetectsEveryDialect) {
    EXPECT_EQ(detect(as_bytes(kA6)), Dialect::wmp2_a6);
    EXPECT_EQ(detect(as_bytes(kA4)), Dialect::wmp2_a4);
    EXPECT_EQ(detect(as_bytes(kMM)), Dialect::mm);
    EXPECT_EQ(detect(as_bytes(kA3)), Dialect::a3);
    EXPECT_EQ(detect(as_bytes(std::string_view("WMPB\x01\x04\x05\x00", 8))), Dialect::wmpb);
    EXPECT_FALSE(detect(as_bytes(std::string_view("versioninfo {"))).has_value());
}

}  // namespace
}  // namespace lk::wmp
