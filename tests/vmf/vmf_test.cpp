// The typed VMF model, from small hand-written maps.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "levelkit/core/numbers.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"
#include "support/random_text.hpp"
#include "support/vmf_origins.hpp"
#include "support/vmf_summary.hpp"

using namespace lk;

namespace {

// A 128x128x64 box as Hammer 4 writes it, with one displacement on top.
// Hammer (L4D and later) separates output fields with ESC; "<ESC>" stands for it below.
std::string with_esc(std::string s) {
    for (std::size_t at; (at = s.find("<ESC>")) != std::string::npos;) s.replace(at, 5, 1, '\x1b');
    return s;
}

const std::string kBoxMap = with_esc(R"vmf(versioninfo
{
	"editorversion" "400"
	"editorbuild" "8864"
	"mapversion" "3"
	"formatversion" "100"
	"prefab" "0"
}
visgroups
{
	visgroup
	{
		"name" "walls"
		"visgroupid" "7"
		"color" "255 0 0"
		visgroup
		{
			"name" "inner"
			"visgroupid" "8"
			"color" "0 255 0"
		}
	}
}
viewsettings
{
	"bSnapToGrid" "1"
	"nGridSpacing" "16"
}
world
{
	"id" "1"
	"mapversion" "3"
	"classname" "worldspawn"
	"skyname" "sky_day01_01"
	solid
	{
		"id" "2"
		side
		{
			"id" "1"
			"plane" "(-64 64 64) (64 64 64) (64 -64 64)"
			"material" "NATURE/BLENDGROUNDTOGRASS001"
			"uaxis" "[1 0 0 0] 0.25"
			"vaxis" "[0 -1 0 0] 0.25"
			"rotation" "0"
			"lightmapscale" "16"
			"smoothing_groups" "0"
			dispinfo
			{
				"power" "2"
				"startposition" "[-64 -64 64]"
				"flags" "0"
				"elevation" "0"
				"subdiv" "0"
				normals
				{
					"row0" "0 0 1 0 0 1 0 0 1 0 0 1 0 0 1"
					"row1" "0 0 1 0 0 1 0 0 1 0 0 1 0 0 1"
					"row2" "0 0 1 0 0 1 0 0 1 0 0 1 0 0 1"
					"row3" "0 0 1 0 0 1 0 0 1 0 0 1 0 0 1"
					"row4" "0 0 1 0 0 1 0 0 1 0 0 1 0 0 1"
				}
				distances
				{
					"row0" "0 0 0 0 0"
					"row1" "0 0 0 0 0"
					"row2" "0 0 16 0 0"
					"row3" "0 0 0 0 0"
					"row4" "0 0 0 0 0"
				}
				alphas
				{
					"row0" "0 0 0 0 255"
					"row1" "0 0 0 0 0"
					"row2" "0 0 0 0 0"
					"row3" "0 0 0 0 0"
					"row4" "0 0 0 0 0"
				}
				triangle_tags
				{
					"row0" "9 9 9 9 9 9 9 9"
					"row1" "9 9 9 9 9 9 9 9"
					"row2" "9 9 9 9 9 9 9 9"
					"row3" "9 9 9 9 9 9 9 9"
				}
				allowed_verts
				{
					"10" "-1 -1 -1 -1 -1 -1 -1 -1 -1 -1"
				}
			}
		}
		side
		{
			"id" "2"
			"plane" "(-64 -64 0) (64 -64 0) (64 64 0)"
			"material" "TOOLS/TOOLSNODRAW"
			"uaxis" "[1 0 0 0] 0.25"
			"vaxis" "[0 -1 0 0] 0.25"
			"rotation" "0"
			"lightmapscale" "16"
			"smoothing_groups" "0"
		}
		side
		{
			"id" "3"
			"plane" "(-64 64 64) (-64 -64 64) (-64 -64 0)"
			"material" "TOOLS/TOOLSNODRAW"
			"uaxis" "[0 1 0 0] 0.25"
			"vaxis" "[0 0 -1 0] 0.25"
			"rotation" "0"
			"lightmapscale" "16"
			"smoothing_groups" "0"
		}
		side
		{
			"id" "4"
			"plane" "(64 64 0) (64 -64 0) (64 -64 64)"
			"material" "TOOLS/TOOLSNODRAW"
			"uaxis" "[0 1 0 0] 0.25"
			"vaxis" "[0 0 -1 0] 0.25"
			"rotation" "0"
			"lightmapscale" "16"
			"smoothing_groups" "0"
		}
		side
		{
			"id" "5"
			"plane" "(64 64 64) (-64 64 64) (-64 64 0)"
			"material" "TOOLS/TOOLSNODRAW"
			"uaxis" "[1 0 0 0] 0.25"
			"vaxis" "[0 0 -1 0] 0.25"
			"rotation" "0"
			"lightmapscale" "16"
			"smoothing_groups" "0"
		}
		side
		{
			"id" "6"
			"plane" "(64 -64 0) (-64 -64 0) (-64 -64 64)"
			"material" "TOOLS/TOOLSNODRAW"
			"uaxis" "[1 0 0 0] 0.25"
			"vaxis" "[0 0 -1 0] 0.25"
			"rotation" "0"
			"lightmapscale" "16"
			"smoothing_groups" "0"
		}
		editor
		{
			"color" "0 180 0"
			"visgroupid" "7"
			"visgroupid" "8"
			"visgroupshown" "1"
			"visgroupautoshown" "1"
		}
	}
}
entity
{
	"id" "20"
	"classname" "logic_relay"
	"targetname" "relay"
	connections
	{
		"OnTrigger" "door,Open,,0,-1"
		"OnTrigger" "door<ESC>SetAnimationspeed<ESC>1.5<ESC>0.25<ESC>1"
		"OnTrigger" "cmd,Command,say a,b,c,2,-1"
		"OnSpawn" "broken"
	}
	"origin" "16 -32 8"
	editor
	{
		"color" "220 30 220"
		"visgroupshown" "1"
		"logicalpos" "[0 500]"
	}
}
hidden
{
	entity
	{
		"id" "21"
		"classname" "func_detail"
		hidden
		{
			solid
			{
				"id" "22"
			}
		}
	}
}
cameras
{
	"activecamera" "0"
	camera
	{
		"position" "[0 -256 128]"
		"look" "[0 0 0]"
	}
}
cordon
{
	"mins" "(-1024 -1024 -1024)"
	"maxs" "(1024 1024 1024)"
	"active" "0"
}
palette_plus
{
	"color0" "255 255 255"
}
)vmf");

}  // namespace

TEST(Vmf, ReadsEveryTopLevelBlock) {
    auto doc = vmf::Document::read(kBoxMap);
    ASSERT_TRUE(doc) << doc.error().to_string();
    EXPECT_EQ(doc->write(), kBoxMap);
    const vmf::Map& m = doc->map();
    EXPECT_EQ(m.editor_build(), 8864);
    EXPECT_EQ(m.map_version(), 3);
    ASSERT_EQ(m.visgroups.size(), 1u);
    EXPECT_EQ(m.visgroups[0].name, "walls");
    ASSERT_EQ(m.visgroups[0].children.size(), 1u);
    EXPECT_EQ(m.visgroups[0].children[0].id, 8);
    ASSERT_TRUE(m.viewsettings);
    EXPECT_EQ(m.world.classname(), "worldspawn");
    EXPECT_EQ(m.world.get("SKYNAME"), "sky_day01_01");
    ASSERT_EQ(m.entities.size(), 2u);
    EXPECT_TRUE(m.entities[1].hidden);
    ASSERT_EQ(m.entities[1].solids.size(), 1u);
    EXPECT_TRUE(m.entities[1].solids[0].hidden);
    EXPECT_EQ(m.active_camera, 0);
    ASSERT_EQ(m.cameras.size(), 1u);
    EXPECT_EQ(m.cameras[0].position, Vec3(0, -256, 128));
    EXPECT_EQ(m.cordon_style, vmf::Map::CordonStyle::single);
    EXPECT_EQ(m.cordons[0].boxes[0].maxs, Vec3(1024, 1024, 1024));
    ASSERT_EQ(m.extra_blocks.size(), 1u);
    EXPECT_EQ(m.extra_blocks[0].key, "palette_plus");
}

TEST(Vmf, SidesAxesAndDisplacements) {
    auto doc = vmf::Document::read(kBoxMap);
    ASSERT_TRUE(doc);
    const vmf::Solid& s = doc->map().world.solids.at(0);
    EXPECT_EQ(s.id, 2);
    ASSERT_EQ(s.sides.size(), 6u);
    const vmf::Side& top = s.sides[0];
    EXPECT_EQ(top.material, "NATURE/BLENDGROUNDTOGRASS001");
    EXPECT_EQ(top.uaxis.axis, Vec3(1, 0, 0));
    EXPECT_EQ(top.vaxis.scale, 0.25);
    auto pl = top.plane();
    ASSERT_TRUE(pl);
    EXPECT_EQ(pl->normal, Vec3(0, 0, 1));  // VBSP rule: outward
    EXPECT_EQ(pl->dist, 64);
    ASSERT_TRUE(top.disp);
    EXPECT_EQ(top.disp->grid_size(), 5);
    EXPECT_FALSE(top.disp->has(vmf::DispInfo::kOffsets));
    EXPECT_EQ(top.disp->distances[12], 16);
    EXPECT_EQ(top.disp->alphas[4], 255);
    EXPECT_EQ(top.disp->triangle_tags.size(), 32u);
    EXPECT_EQ(top.disp->allowed_verts.size(), 10u);
    EXPECT_EQ(s.editor.visgroup_ids, (std::vector<std::int64_t>{7, 8}));
    EXPECT_EQ(s.editor.color, (std::array<int, 3>{0, 180, 0}));
    EXPECT_EQ(s.editor.visgroup_shown, true);
    EXPECT_EQ(doc->map().entities[0].editor.logical_pos, (std::array<double, 2>{0, 500}));
}

TEST(Vmf, ConnectionsBothSeparatorsAndCommasInParameters) {
    auto doc = vmf::Document::read(kBoxMap);
    ASSERT_TRUE(doc);
    const auto& c = doc->map().entities[0].connections;
    ASSERT_EQ(c.size(), 4u);
    EXPECT_EQ(c[0].target, "door");
    EXPECT_EQ(c[0].input, "Open");
    EXPECT_EQ(c[0].times, -1);
    EXPECT_EQ(c[1].target, "door");  // ESC separated
    EXPECT_EQ(c[1].input, "SetAnimationspeed");
    EXPECT_EQ(c[1].param, "1.5");
    EXPECT_EQ(c[1].delay, 0.25);
    EXPECT_EQ(c[1].separator, '\x1b');
    EXPECT_EQ(c[2].param, "say a,b,c");  // extra commas belong to the parameter
    EXPECT_EQ(c[2].delay, 2);
    EXPECT_FALSE(c[3].parsed);  // kept as written, with a warning
    EXPECT_EQ(c[3].value_text(), "broken");
    EXPECT_EQ(doc->diagnostics().count(Severity::warning), 1u);
    EXPECT_EQ(doc->map().entities[0].origin_vec(), Vec3(16, -32, 8));
}

// parse_connection's fields are what splitting the value at every separator gives: the first
// two fields, the last two (delay and times), and the parameter between, which may hold the
// separator. Some 400,000 values built from fields and both separators are checked against that
// rule written out, and a few as Hammer writes them.
TEST(Vmf, ConnectionFieldsAreThoseOfSplittingAtEverySeparator) {
    const auto by_splitting = [](std::string_view v) -> std::optional<vmf::Connection> {
        const char sep = v.find('\x1b') != std::string_view::npos ? '\x1b' : ',';
        std::vector<std::string_view> f;
        std::vector<std::size_t> at;  // where each field starts
        for (std::size_t start = 0;;) {
            const std::size_t p = v.find(sep, start);
            at.push_back(start);
            f.push_back(v.substr(start, p == std::string_view::npos ? p : p - start));
            if (p == std::string_view::npos) break;
            start = p + 1;
        }
        if (f.size() < 5) return std::nullopt;
        double delay = 0;
        NumberCursor d(f[f.size() - 2]);
        const auto times = parse_int(trim(f.back()));
        if (!d.number(delay) || !d.at_end() || !times) return std::nullopt;
        vmf::Connection c;
        c.output = "o";
        c.target = std::string(f[0]);
        c.input = std::string(f[1]);
        c.param = std::string(v.substr(at[2], at[f.size() - 2] - 1 - at[2]));
        c.delay = delay;
        c.times = static_cast<int>(*times);
        c.separator = sep;
        return c;
    };
    std::size_t checked = 0, parsed = 0;
    const auto check = [&](const std::string& s) {
        const auto got = vmf::parse_connection("o", s);
        const auto want = by_splitting(s);
        ++checked;
        ASSERT_EQ(got.has_value(), want.has_value()) << printable(s);
        if (!got) return;
        ++parsed;
        EXPECT_EQ(*got, *want) << printable(s);
    };
    std::string v;
    // Values of one to six fields drawn from `fields`, joined by ',' or ESC at each place (six
    // fields: commas only): empty fields, spaces, numbers that are and are not valid delays.
    const std::vector<std::string> fields = {"", "1", "-1", " 2", "0.5 ", "a", "a b"};
    const auto count_of = [&](std::size_t n, std::size_t seps) {
        std::size_t c = 1;
        for (std::size_t i = 0; i < n; ++i) c *= fields.size();
        return c << seps;
    };
    for (std::size_t n = 1; n <= 6; ++n) {
        const std::size_t seps = n < 6 ? n - 1 : 0;  // separators chosen freely
        for (std::size_t k = 0; k < count_of(n, seps); ++k) {
            std::size_t x = k >> seps;
            v.clear();
            for (std::size_t i = 0; i < n; ++i, x /= fields.size()) {
                if (i > 0) v += ((k >> (i - 1)) & 1) && i - 1 < seps ? '\x1b' : ',';
                v += fields[x % fields.size()];
            }
            check(v);
        }
    }
    // Longer ones as Hammer writes them.
    for (const char* s : {"door,Open,,0,-1", "relay,AddOutput,targetname a,b,c,1.5,1",
                          "a\x1b"
                          "b\x1b"
                          "c,d,e\x1b"
                          "2\x1b"
                          "3",
                          "a,b,c,d", "a,b,c,d,e,f,g,h"})
        check(s);
    EXPECT_GT(parsed, 30000u);
    EXPECT_GT(checked, 400000u);
}

TEST(Vmf, NormalisedRewriteKeepsTheModel) {
    auto doc = vmf::Document::read(kBoxMap);
    ASSERT_TRUE(doc);
    const std::string text = vmf::write(doc->map());
    auto again = vmf::Document::read(text);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->map(), doc->map());
    // Hammer's own layout writes the same bytes back.
    EXPECT_EQ(vmf::write(again->map()), text);
}

// vmf::write renders straight to text; it must give exactly what the canonical tree of
// vmf::to_tree writes, including block names that cannot be bare, anonymous blocks, hidden
// wrappers, empty blocks and a first top-level node that is a value.
TEST(Vmf, DirectWriteEqualsTreeWrite) {
    auto doc = vmf::Document::read(kBoxMap);
    ASSERT_TRUE(doc);
    vmf::Map map = doc->map();
    vmf::RawNode odd{"odd name", "", true, {}};
    odd.children.push_back({"k", "v", false, {}});
    odd.children.push_back({"", "", true, {{"inner", "1", false, {}}}});
    odd.children.push_back({"//c", "", true, {}});
    odd.children.push_back({"{", "", true, {}});
    odd.children.push_back({"empty", "", true, {}});
    map.extra_blocks.push_back(odd);
    map.extra_blocks.push_back({"", "", true, {}});
    map.extra_blocks.push_back({"tail", "x", false, {}});
    if (!map.entities.empty()) map.entities.front().hidden = true;
    if (!map.world.solids.empty()) map.world.solids.front().hidden = true;
    // Numbers on both sides of the writer's short-decimal path (fixed vs scientific, 1e5, -0).
    ASSERT_FALSE(map.world.solids.empty());
    ASSERT_FALSE(map.world.solids.back().sides.empty());
    vmf::Side& side = map.world.solids.back().sides.front();
    side.plane_points = {Vec3(0.0001, -0.00015, 1e5), Vec3(99999.5, 1.0 / 3, -0.0),
                         Vec3(1e-300, 123456789.125, 0.001)};
    side.uaxis.shift = -0.000123;
    side.uaxis.scale = 0.1 + 0.2;
    side.vaxis.shift = 99999.99999999;
    side.vaxis.scale = std::numeric_limits<double>::quiet_NaN();
    side.rotation = -std::numeric_limits<double>::infinity();
    side.lightmapscale = 1e-7;
    for (const char* eol : {"\n", "\r\n"}) {
        EXPECT_EQ(vmf::write(map, {eol}), vmf::to_tree(map, {eol}).write()) << eol;
    }
    vmf::Map first_is_value;
    first_is_value.extra_blocks.push_back({"key", "value", false, {}});
    first_is_value.extra_blocks.push_back({"b", "", true, {{"", "", true, {}}}});
    EXPECT_EQ(vmf::write(first_is_value), vmf::to_tree(first_is_value).write());
    EXPECT_EQ(vmf::write(vmf::Map{}), vmf::to_tree(vmf::Map{}).write());
}

TEST(Vmf, BrushPolygonsAndDisplacementGrid) {
    auto doc = vmf::Document::read(kBoxMap);
    ASSERT_TRUE(doc);
    const vmf::Solid& s = doc->map().world.solids[0];
    BrushPolygons polys;
    vmf::solid_polygons(s, polys);
    ASSERT_TRUE(polys.valid());
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(polys.face(i).size(), 4u);
    auto grid = vmf::displacement_grid(s.sides[0], polys.face(0));
    ASSERT_TRUE(grid);
    ASSERT_EQ(grid->size(), 25u);
    EXPECT_EQ((*grid)[0], Vec3(-64, -64, 64));  // starts at startposition
    EXPECT_EQ((*grid)[12], Vec3(0, 0, 80));     // centre raised by distance 16
    EXPECT_EQ(vmf::displacement_triangles(2).size(), 32u);
}

TEST(Vmf, ValidationReportsInvalidBrushesWithIds) {
    std::string text(kBoxMap);
    // Make side 4 coincide with side 3's plane, mirrored: the brush has no volume.
    const std::string bad = "\"plane\" \"(64 64 0) (64 -64 0) (64 -64 64)\"";
    const std::size_t at = text.find(bad);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, bad.size(), "\"plane\" \"(-64 -64 0) (-64 64 0) (-64 64 64)\"");
    auto doc = vmf::Document::read(text);
    ASSERT_TRUE(doc);
    Diagnostics out;
    vmf::validate(doc->map(), out, &doc->tree());
    ASSERT_TRUE(out.has_errors());
    const Diagnostic& d = out.items().front();
    EXPECT_EQ(d.code, "vmf.invalid-solid");
    EXPECT_NE(d.message.find("solid 2"), std::string::npos);
    EXPECT_NE(d.message.find("side id"), std::string::npos);
    EXPECT_GT(d.line, 0u);
}

TEST(Vmf, MalformedFieldsAreKeptAndReported) {
    const std::string_view text =
        "world\n{\n\t\"id\" \"1\"\n\tsolid\n\t{\n\t\t\"id\" \"2\"\n\t\tside\n\t\t{\n"
        "\t\t\t\"id\" \"3\"\n\t\t\t\"plane\" \"(0 0 0) (1 1)\"\n\t\t\t\"uaxis\" \"[1 0 0] 0.25\"\n"
        "\t\t}\n\t}\n}\n";
    auto doc = vmf::Document::read(text);
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->write(), text);
    ASSERT_EQ(doc->diagnostics().count(Severity::error), 2u);
    const Diagnostic& d = doc->diagnostics().items()[0];
    EXPECT_EQ(d.path, "world/solid[0]/side[0]/plane");
    EXPECT_EQ(d.line, 10u);
    const vmf::Side& side = doc->map().world.solids[0].sides[0];
    EXPECT_FALSE(side.has(vmf::Side::kPlane));
    ASSERT_EQ(side.extra_keys.size(), 2u);  // the raw text survives in the typed model
    EXPECT_EQ(side.extra_keys[0].value, "(0 0 0) (1 1)");
    auto again = vmf::Document::read(vmf::write(doc->map()));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->map(), doc->map());
}

// "nan" and "inf" are not numbers in a map (NumberCursor refuses them): the fields holding them
// are reported and kept as text, and the model stays equal to itself (a NaN would not be) on
// every read path (found by fuzz_vmf: a plane of "(-nan ...").
TEST(Vmf, NonFiniteNumbersAreKeptAsTextNotRead) {
    const std::string text =
        "world\n{\n\tsolid\n\t{\n\t\tside\n\t\t{\n"
        "\t\t\t\"plane\" \"(nan 0 0) (0 1 0) (1 0 0)\"\n"
        "\t\t\t\"uaxis\" \"[1 0 0 -inf] 0.25\"\n\t\t\t\"vaxis\" \"[0 1 0 0] 1e999\"\n"
        "\t\t\t\"rotation\" \"-nan\"\n\t\t\t\"lightmapscale\" \"infinity\"\n"
        "\t\t}\n\t}\n}\n";
    auto doc = vmf::Document::read(text);
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->write(), text);
    EXPECT_EQ(doc->diagnostics().count(Severity::error), 5u);
    const vmf::Side& side = doc->map().world.solids.at(0).sides.at(0);
    EXPECT_FALSE(side.has(vmf::Side::kPlane));
    EXPECT_FALSE(side.has(vmf::Side::kUAxis));
    EXPECT_FALSE(side.has(vmf::Side::kVAxis));
    EXPECT_FALSE(side.has(vmf::Side::kRotation));
    EXPECT_FALSE(side.has(vmf::Side::kLightmapScale));
    EXPECT_EQ(side.extra_keys.size(), 5u);
    EXPECT_EQ(doc->map(), doc->map());
    for (const bool light : {true, false}) {
        Diagnostics d;
        auto map = vmf::read_map(Blob::copy_of(text), d, {.threads = 1, .light_tokenizer = light});
        ASSERT_TRUE(map);
        EXPECT_EQ(*map, doc->map());
    }
    auto again = vmf::Document::read(vmf::write(doc->map()));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->map(), doc->map());
}

TEST(Vmf, HammerPlusPlusAndStrataVertices) {
    const std::string_view text =
        "world\n{\n\tsolid\n\t{\n\t\tside\n\t\t{\n\t\t\t\"id\" \"1\"\n"
        "\t\t\t\"plane\" \"(0 0 0) (0 768 0) (768 768 0)\"\n"
        "\t\t\tvertices_plus\n\t\t\t{\n\t\t\t\t\"v\" \"0 0 0\"\n\t\t\t\t\"v\" \"0 768 0\"\n"
        "\t\t\t\t\"v\" \"768 768 0\"\n\t\t\t}\n"
        "\t\t\tpoint_data\n\t\t\t{\n\t\t\t\t\"numpts\" \"2\"\n\t\t\t\t\"point\" \"0 1 2 3\"\n"
        "\t\t\t\t\"point\" \"1 4 5 6\"\n\t\t\t}\n\t\t}\n\t}\n}\n";
    auto doc = vmf::Document::read(text);
    ASSERT_TRUE(doc);
    const vmf::Side& side = doc->map().world.solids[0].sides[0];
    ASSERT_EQ(side.vertices_plus.size(), 3u);
    EXPECT_EQ(side.vertices_plus[2], Vec3(768, 768, 0));
    ASSERT_EQ(side.point_data.size(), 2u);
    EXPECT_EQ(side.point_data[1], Vec3(4, 5, 6));
    auto again = vmf::Document::read(vmf::write(doc->map()));
    EXPECT_EQ(again->map(), doc->map());
}

TEST(Vmf, DecompiledMapsWithoutVersioninfo) {
    auto doc = vmf::Document::read("world\n{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n}\n");
    ASSERT_TRUE(doc);
    EXPECT_FALSE(doc->map().has_versioninfo);
    Diagnostics out;
    vmf::validate(doc->map(), out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out.items()[0].code, "vmf.missing-block");
    EXPECT_EQ(out.items()[0].severity, Severity::warning);
}

// read_map on several threads: the text is cut before top-level `entity` blocks. Whatever the
// cuts, the model and every diagnostic (line, column, offset, entity index) must be what the
// one-thread read gives, including in the cases the pieces cannot be joined.
// read_map's light tokenizer gives what the full KeyValues parser gives: the same model, the same
// origins and the same diagnostics (with positions), or the same error; on texts it leaves to the
// full parser (warnings, errors, concatenation, anonymous blocks) as well as on those it reads.
void expect_same_readers(const std::string& text, const std::string& label) {
    for (unsigned threads : {1u, 3u}) {
        vmf::ReadOptions full, light;
        full.threads = light.threads = threads;
        full.min_piece_bytes = light.min_piece_bytes = 1;
        full.light_tokenizer = false;
        Diagnostics fd, ld;
        auto f = vmf::read_map(Blob::copy_of(text), fd, full);
        auto l = vmf::read_map(Blob::copy_of(text), ld, light);
        ASSERT_EQ(f.ok(), l.ok()) << label;
        if (!f) {
            EXPECT_EQ(f.error().to_string(), l.error().to_string()) << label;
            EXPECT_EQ(f.error().offset, l.error().offset) << label;
            continue;
        }
        EXPECT_TRUE(f.value() == l.value()) << label << " threads " << threads;
        EXPECT_EQ(test::vmf_origins(f.value()), test::vmf_origins(l.value())) << label;
        ASSERT_EQ(fd.size(), ld.size()) << label;
        for (std::size_t i = 0; i < fd.size(); ++i) {
            EXPECT_EQ(fd.items()[i].to_string(), ld.items()[i].to_string()) << label;
            EXPECT_EQ(fd.items()[i].offset, ld.items()[i].offset) << label;
            EXPECT_EQ(fd.items()[i].path, ld.items()[i].path) << label;
        }
    }
}

TEST(Vmf, LightTokenizerEqualsFullParser) {
    auto replaced = [](std::string s, std::string_view from, std::string_view to) {
        const std::size_t at = s.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return s.replace(at, from.size(), to);
    };
    std::string crlf;
    for (char c : kBoxMap) {
        if (c == '\n') crlf += '\r';
        crlf += c;
    }
    const std::string side = "\"plane\" \"(-64 -64 0) (64 -64 0) (64 64 0)\"";
    const std::vector<std::pair<std::string, std::string>> texts = {
        {"box", kBoxMap},
        {"crlf", crlf},
        {"bom", "\xEF\xBB\xBF" + kBoxMap},
        {"comments", replaced(kBoxMap, side, "// before\n\t\t\t" + side + " // after")},
        {"bare tokens", replaced(kBoxMap, side, "plane \"(0 0 0) (0 64 0) (64 64 0)\"")},
        {"odd whitespace",
         replaced(kBoxMap, side, std::string("\v\f\0 \t") + side + std::string("\0\n", 2))},
        {"cr in a string", replaced(kBoxMap, side, "\"plane\" \"(0 0 0)\r(0 64 0) (64 64 0)\"")},
        {"long value",
         replaced(kBoxMap, side, side + "\n\"comment\" \"" + std::string(1500, 'x') + "\"")},
        {"long key", replaced(kBoxMap, side, side + "\n\"" + std::string(1024, 'k') + "\" \"1\"")},
        {"concatenation",
         replaced(kBoxMap, side, "\"plane\" \"(0 0 0) \" + \"(0 64 0) (64 64 0)\"")},
        {"plus without a string", replaced(kBoxMap, side, side + " + \n\"x\" \"1\"")},
        {"anonymous block", replaced(kBoxMap, side, side + "\n{\n\"a\" \"b\"\n}")},
        {"bad fields", replaced(replaced(kBoxMap, side, "\"plane\" \"(0 0 0) (0 x 0) (64 64 0)\""),
                                "\"id\" \"2\"", "\"id\" \"two\"")},
        {"numbers", replaced(kBoxMap, side,
                             "\"plane\" \"(-0.5 .25 7.) (1e3 -12345678.125 0.000000001) "
                             "(123456789012 -0 +5)\"")},
        {"missing value", replaced(kBoxMap, side, "\"plane\"\n}")},
        {"stray brace", kBoxMap + "}\n"},
        {"unclosed", kBoxMap + "entity\n{\n\"id\" \"9\"\n"},
        {"unterminated", kBoxMap + "entity\n{\n\"id\" \"9\n}\n"},
        {"top-level value", "\"loose\" \"1\"\n" + kBoxMap},
        {"deep", std::string(300, '{')},
        {"deep keys",
         [] {
             std::string t;
             for (int i = 0; i < 300; ++i) t += "a {\n";
             return t;
         }()},
        {"empty", ""},
        {"only whitespace", " \n\t"},
        // Gaps the light tokenizer guesses (a line ending and the depth's tabs) and near misses.
        {"comment after the depth's tabs", replaced(kBoxMap, side, "// c\n\t\t\t" + side)},
        {"control byte after the depth's tabs",
         replaced(kBoxMap, side, side + "\n\t\t\t\x01x\" \"1\"")},
        {"one tab too many and too few",
         replaced(kBoxMap, side, "\t" + side + "\n\t\t\t\t\"a\" \"1\"\n\t\t\"b\" \"2\"")},
        {"spaces for tabs", replaced(kBoxMap, side, side + "\n   \"a\" \"1\"\n\t \"b\" \"2\"")},
        {"crlf at depth", replaced(kBoxMap, side, side + "\r\n\t\t\t\"a\" \"1\"\r\r\n\"b\" \"2\"")},
        {"tabbed deeper than eight",
         [] {
             std::string t;
             for (int i = 0; i < 12; ++i)
                 t += std::string(i, '\t') + "b\n" + std::string(i, '\t') + "{\n";
             t += std::string(12, '\t') + "\"k\" \"v\"\n";
             for (int i = 11; i >= 0; --i) t += std::string(i, '\t') + "}\n";
             return t;
         }()},
        {"ending after a line's tabs", kBoxMap + "entity\n{\n\t\"id\" \"9\"\n}\n\t"},
        {"ending after a line ending", kBoxMap + "entity\n{\n\t\"id\" \"9\"\n}\r\n"},
    };
    for (const auto& [label, text] : texts) expect_same_readers(text, label);
}

// Each text as it is and followed by an entity (the light path reads a taken block's lines in
// place only where a few hundred bytes follow them, and the last lines of a text as the tree
// path does), with LF and with CRLF line ends: both readers must agree on all.
void expect_same_readers_in_place(const std::vector<std::pair<std::string, std::string>>& texts) {
    const std::string entity =
        "entity\n{\n\t\"id\" \"9\"\n\t\"classname\" \"info_null\"\n\t\"c\" \"" +
        std::string(300, 'c') + "\"\n}\n";
    for (const auto& [label, text] : texts) {
        for (const std::string& t : {text, text + entity}) {
            std::string crlf;
            for (char c : t) {
                if (c == '\n') crlf += '\r';
                crlf += c;
            }
            expect_same_readers(t, label);
            expect_same_readers(crlf, label + " (crlf)");
        }
    }
}

// read_map's light path reads the sides of a streamed solid straight from the text (no tree
// nodes) when they hold only a side's keys and a Hammer++ `vertices_plus` block, each once, in
// Hammer's layout, with values that read cleanly; everything else is left to the tree. Each
// text below changes one side; both readers must agree on all of them.
TEST(Vmf, SidesReadFromTheTextEqualTheFullParser) {
    const std::string lines[] = {
        "\"id\" \"5\"",
        "\"plane\" \"(-64 -64 0) (64 -64 0) (64 64 0)\"",
        "\"material\" \"TOOLS/TOOLSNODRAW\"",
        "\"uaxis\" \"[1 0 0 0] 0.25\"",
        "\"vaxis\" \"[0 -1 0 0] 0.25\"",
        "\"rotation\" \"0\"",
        "\"lightmapscale\" \"16\"",
        "\"smoothing_groups\" \"0\"",
    };
    const std::string vertices =
        "vertices_plus\n\t\t\t{\n\t\t\t\t\"v\" \"-64 -64 0\"\n\t\t\t\t\"v\" \"64 -64 0\"\n"
        "\t\t\t\t\"v\" \"64 64 0\"\n\t\t\t}";
    // A side from its lines (each indented by three tabs) in a solid of the world.
    auto side = [](const std::vector<std::string>& body) {
        std::string s = "\t\tside\n\t\t{\n";
        for (const std::string& l : body) s += "\t\t\t" + l + "\n";
        return s + "\t\t}\n";
    };
    auto map = [](const std::string& sides, std::string_view owner = "world") {
        return std::string(owner) + "\n{\n\t\"id\" \"1\"\n\tsolid\n\t{\n\t\t\"id\" \"2\"\n" +
               sides + "\t\teditor\n\t\t{\n\t\t\t\"color\" \"0 180 233\"\n\t\t}\n\t}\n}\n";
    };
    std::vector<std::string> canonical(std::begin(lines), std::end(lines));
    auto with = [&](std::size_t i, const std::string& line) {
        std::vector<std::string> b = canonical;
        b[i] = line;
        return b;
    };
    auto plus = [&](const std::string& line) {
        std::vector<std::string> b = canonical;
        b.push_back(line);
        return b;
    };
    std::vector<std::pair<std::string, std::string>> texts = {
        {"canonical", map(side(canonical) + side(canonical))},
        {"empty side", map(side({}) + side(canonical))},
        {"only a material", map(side({lines[2]}))},
        {"keys in another order", map(side({lines[7], lines[2], lines[0], lines[4], lines[3],
                                            lines[1], lines[6], lines[5]}))},
        {"uppercase keys",
         map(side(with(0, "\"ID\" \"5\"")) + side(with(2, "\"Material\" \"x\"")))},
        {"unknown key", map(side(plus("\"foo\" \"1\"")))},
        {"empty key", map(side(plus("\"\" \"1\"")))},
        {"repeated id", map(side(plus("\"id\" \"6\"")))},
        {"repeated plane", map(side(plus(lines[1])))},
        {"repeated material", map(side(plus("\"material\" \"OTHER\"")))},
        {"repeated axes", map(side(plus(lines[3])) + side(plus(lines[4])))},
        {"repeated scalars",
         map(side(plus(lines[5])) + side(plus(lines[6])) + side(plus(lines[7])))},
        {"bad id", map(side(with(0, "\"id\" \"five\"")))},
        {"float id", map(side(with(0, "\"id\" \"16.000000\"")))},
        {"fractional id", map(side(with(0, "\"id\" \"1.5\"")))},
        {"huge id", map(side(with(0, "\"id\" \"99999999999999999999\"")))},
        {"spaced id", map(side(with(0, "\"id\" \" 5 \"")))},
        {"bad plane", map(side(with(1, "\"plane\" \"(0 0 0) (0 0 0)\"")))},
        {"bad plane after good sides",  // the diagnostic's path counts the sides before it
         map(side(canonical) + side(canonical) + side(with(1, "\"plane\" \"(0 0 0)\"")) +
             side(canonical))},
        {"non-finite plane", map(side(with(1, "\"plane\" \"(nan 0 0) (0 1 0) (1 0 0)\"")))},
        {"long plane numbers",
         map(side(with(1, "\"plane\" \"(-0.123456789 1e3 7.) (0 1 0) (12345678 0 -0)\"")))},
        {"bad uaxis", map(side(with(3, "\"uaxis\" \"[1 0 0] 0.25\"")))},
        {"bad vaxis", map(side(with(4, "\"vaxis\" \"[0 -1 0 0 0.25\"")))},
        {"bad rotation", map(side(with(5, "\"rotation\" \"-inf\"")))},
        {"empty lightmapscale", map(side(with(6, "\"lightmapscale\" \"\"")))},
        {"float smoothing groups", map(side(with(7, "\"smoothing_groups\" \"2.0\"")))},
        {"negative smoothing groups", map(side(with(7, "\"smoothing_groups\" \"-1\"")))},
        {"smoothing groups past 32 bits",
         map(side(with(7, "\"smoothing_groups\" \"4294967296\"")) +
             side(with(7, "\"smoothing_groups\" \"-2147483649\"")))},
        {"empty material", map(side(with(2, "\"material\" \"\"")))},
        {"material of 1023 bytes",
         map(side(with(2, "\"material\" \"" + std::string(1023, 'm') + "\"")))},
        {"material of 1024 bytes",
         map(side(with(2, "\"material\" \"" + std::string(1024, 'm') + "\"")))},
        {"plane of 1024 bytes",
         map(side(with(1, "\"plane\" \"(0 0 0) (0 1 0) (1 0 0)" + std::string(1000, ' ') + "\"")))},
        {"cr in a value", map(side(with(2, "\"material\" \"A\rB\"")))},
        {"lf in a value", map(side(with(2, "\"material\" \"A\nB\"")))},
        {"trailing space", map(side(with(0, "\"id\" \"5\" ")))},
        {"trailing tab", map(side(with(0, "\"id\" \"5\"\t")))},
        {"two pairs on a line", map(side(with(0, "\"id\" \"5\" \"rotation\" \"0\"")))},
        {"tab between key and value", map(side(with(0, "\"id\"\t\"5\"")))},
        {"two spaces between key and value", map(side(with(0, "\"id\"  \"5\"")))},
        {"bare key", map(side(with(0, "id \"5\"")))},
        {"bare value", map(side(with(0, "\"id\" 5")))},
        {"concatenated value", map(side(with(2, "\"material\" \"A\" + \"B\"")))},
        {"concatenated key", map(side(with(2, "\"mate\" + \"rial\" \"A\"")))},
        {"comment lines", map(side(plus("// c")) + side(with(0, "// c\n\t\t\t" + lines[0])))},
        {"comment after a value", map(side(with(0, lines[0] + " // c")))},
        {"nul in a gap", map(side(with(0, lines[0] + std::string(1, '\0'))))},
        {"block in a side", map(side(plus("extra\n\t\t\t{\n\t\t\t}")))},
        {"dispinfo", map(side(plus("dispinfo\n\t\t\t{\n\t\t\t\t\"power\" \"2\"\n\t\t\t}")))},
        {"anonymous block in a side", map(side(plus("{\n\t\t\t}")))},
        {"key without a value", map(side(plus("\"id\"")))},
        {"vertices", map(side(with(2, vertices)) + side(plus(vertices)))},
        {"empty vertices", map(side(plus("vertices_plus\n\t\t\t{\n\t\t\t}")))},
        {"vertices twice", map(side(plus(vertices + "\n\t\t\t" + vertices)))},
        {"vertices in capitals",
         map(side(plus("VERTICES_PLUS\n\t\t\t{\n\t\t\t\t\"V\" \"0 0 0\"\n\t\t\t}")))},
        {"quoted vertices key",
         map(side(plus("\"vertices_plus\"\n\t\t\t{\n\t\t\t\t\"v\" \"0 0 0\"\n\t\t\t}")))},
        {"bad vertex", map(side(plus("vertices_plus\n\t\t\t{\n\t\t\t\t\"v\" \"0 0\"\n\t\t\t}")))},
        {"bracketed vertex",
         map(side(plus("vertices_plus\n\t\t\t{\n\t\t\t\t\"v\" \"[0 0 0]\"\n\t\t\t}")))},
        {"other key in vertices",
         map(side(plus("vertices_plus\n\t\t\t{\n\t\t\t\t\"w\" \"0 0 0\"\n\t\t\t}")))},
        {"block in vertices",
         map(side(plus("vertices_plus\n\t\t\t{\n\t\t\t\tv\n\t\t\t\t{\n\t\t\t\t}\n\t\t\t}")))},
        {"vertices as a value", map(side(plus("vertices_plus \"1\"")))},
        {"vertices without a block", map(side(plus("vertices_plus\n\t\t\t}")))},
        {"point data",
         map(side(plus("point_data\n\t\t\t{\n\t\t\t\t\"numpts\" \"1\"\n\t\t\t\t\"point\" \"0 1 2 "
                       "3\"\n\t\t\t}")))},
        {"entity solid", map(side(canonical), "entity")},
        {"unknown owner", map(side(canonical), "wrapper")},
        {"second world", map(side(canonical)) + map(side(canonical))},
        {"capital names",
         "WORLD\n{\n\tSOLID\n\t{\n\t\tSIDE\n\t\t{\n\t\t\t" + lines[0] + "\n\t\t}\n\t}\n}\n"},
        {"hidden solid",
         "world\n{\n\thidden\n\t{\n\t\tsolid\n\t\t{\n\t\t\tside\n\t\t\t{\n\t\t\t\t" + lines[0] +
             "\n\t\t\t}\n\t\t}\n\t}\n}\n"},
        {"side of a side",
         map("\t\tside\n\t\t{\n\t\t\tside\n\t\t\t{\n\t\t\t\t" + lines[0] + "\n\t\t\t}\n\t\t}\n")},
        {"top-level side", "side\n{\n\t" + lines[0] + "\n}\n"},
        {"side as a value", map("\t\t\"side\" \"1\"\n" + side(canonical))},
    };
    // The map's end inside a side, at every byte of its last side.
    const std::string whole = map(side(canonical) + side(plus(vertices)));
    for (std::size_t n = whole.size() - 120; n < whole.size(); ++n)
        texts.emplace_back("cut at " + std::to_string(n), whole.substr(0, n));
    expect_same_readers_in_place(texts);
}

// The light path also reads the first `editor` block of a streamed solid, and of a top-level
// entity or the map's world, straight from the text when read_editor would keep nothing of it
// as text; each text below changes one editor.
TEST(Vmf, EditorsReadFromTheTextEqualTheFullParser) {
    const std::string solid_lines[] = {"\"color\" \"0 180 233\"", "\"visgroupshown\" \"1\"",
                                       "\"visgroupautoshown\" \"1\""};
    const std::string entity_lines[] = {
        "\"color\" \"220 30 220\"", "\"visgroupid\" \"12\"",      "\"visgroupid\" \"-3\"",
        "\"groupid\" \"77\"",       "\"visgroupshown\" \"0\"",    "\"visgroupautoshown\" \"1\"",
        "\"cordonsolid\" \"1\"",    "\"comments\" \"a \\ note\"", "\"logicalpos\" \"[0 -1500.5]\""};
    auto block = [](std::string_view indent, const std::vector<std::string>& body) {
        std::string s = std::string(indent) + "editor\n" + std::string(indent) + "{\n";
        for (const std::string& l : body) s += std::string(indent) + "\t" + l + "\n";
        return s + std::string(indent) + "}\n";
    };
    const std::string side =
        "\t\tside\n\t\t{\n\t\t\t\"id\" \"5\"\n\t\t\t\"plane\" \"(0 0 0) (0 1 0) (1 1 0)\"\n\t\t}\n";
    // An entity (or world) whose editor is `entity_editor`, holding a solid whose editor is
    // `solid_editor`.
    auto map = [&](const std::string& solid_editor, const std::string& entity_editor,
                   std::string_view owner = "entity") {
        return std::string(owner) + "\n{\n\t\"id\" \"1\"\n\tsolid\n\t{\n\t\t\"id\" \"2\"\n" + side +
               solid_editor + "\t}\n" + entity_editor + "}\n";
    };
    std::vector<std::string> solid(std::begin(solid_lines), std::end(solid_lines));
    std::vector<std::string> entity(std::begin(entity_lines), std::end(entity_lines));
    auto in_solid = [&](const std::vector<std::string>& body) {
        return map(block("\t\t", body), block("\t", entity));
    };
    auto in_entity = [&](const std::vector<std::string>& body) {
        return map(block("\t\t", solid), block("\t", body));
    };
    auto plus = [](std::vector<std::string> b, const std::string& line) {
        b.push_back(line);
        return b;
    };
    const std::vector<std::string> odd = {
        "\"color\" \"0 180\"",
        "\"color\" \"0.0 180 233.000\"",
        "\"color\" \"1.5 2 3\"",
        "\"color\" \"12345678 0 0\"",
        "\"color\" \"9999999999 0 0\"",
        "\"color\" \"0  180 233\"",
        "\"Color\" \"0 180 233\"",
        "\"visgroupshown\" \"2\"",
        "\"visgroupshown\" \"01\"",
        "\"visgroupshown\" \"\"",
        "\"visgroupshown\" \" 1\"",
        "\"visgroupid\" \"x\"",
        "\"visgroupid\" \"123456789012\"",
        "\"logicalpos\" \"[1 2 3]\"",
        "\"logicalpos\" \"[1.5 -2.25]\"",
        "\"logicalpos\" \"1 2\"",
        "\"groupid\" \"g\"",
        "\"unknown\" \"1\"",
        "\"comments\" \"\"",
        "\"visgroupshown\" \"1\" \"x\" \"1\"",
        "\"visgroupshown\" \"1\" ",
        "inner\n\t\t\t{\n\t\t\t}",
    };
    std::vector<std::pair<std::string, std::string>> texts = {
        {"canonical", in_solid(solid)},
        {"empty editors", map(block("\t\t", {}), block("\t", {}))},
        {"no editors", map("", "")},
        {"world", map(block("\t\t", solid), block("\t", entity), "world")},
        {"second world", map(block("\t\t", solid), block("\t", entity), "world") +
                             map(block("\t\t", solid), block("\t", entity), "world")},
        {"unknown owner", map(block("\t\t", solid), block("\t", entity), "wrapper")},
        {"two solid editors",
         map(block("\t\t", solid) + block("\t\t", {"\"color\" \"1 2 3\""}), block("\t", entity))},
        {"two entity editors",
         map(block("\t\t", solid), block("\t", entity) + block("\t", {"\"groupid\" \"1\""}))},
        {"a bad editor then a good one",
         map(block("\t\t", {"\"x\" \"1\""}) + block("\t\t", solid), block("\t", entity))},
        {"editor before the sides",
         "entity\n{\n\tsolid\n\t{\n" + block("\t\t", solid) + side + "\t}\n}\n"},
        {"hidden solid", "world\n{\n\thidden\n\t{\n\t\tsolid\n\t\t{\n" + block("\t\t\t", solid) +
                             "\t\t}\n\t}\n}\n"},
        {"hidden entity", "hidden\n{\n\tentity\n\t{\n" + block("\t\t", entity) + "\t}\n}\n"},
        {"editor of a group", "world\n{\n\tgroup\n\t{\n" + block("\t\t", entity) + "\t}\n}\n"},
        {"top-level editor", block("", entity)},
    };
    for (std::size_t i = 0; i < solid.size(); ++i) {
        texts.emplace_back("solid repeats " + solid[i], in_solid(plus(solid, solid[i])));
    }
    for (std::size_t i = 0; i < entity.size(); ++i) {
        texts.emplace_back("entity repeats " + entity[i], in_entity(plus(entity, entity[i])));
    }
    for (const std::string& line : odd) {
        texts.emplace_back("solid " + line, in_solid(plus(solid, line)));
        texts.emplace_back("entity " + line, in_entity(plus({}, line)));
    }
    const std::string whole = in_solid(solid);
    for (std::size_t n = whole.size() - 260; n < whole.size(); ++n)
        texts.emplace_back("cut at " + std::to_string(n), whole.substr(0, n));
    expect_same_readers_in_place(texts);
}

// The numbers of a side spelled at random (plane, vertices, axes, scalars): the light path reads
// Hammer's spelling (an optional '-', up to seven digits, an optional fraction of up to seven)
// with readers of its own and leaves every other spelling to the general ones; both readers
// must agree on every text, and the light one must read exactly the general parser's values.
TEST(Vmf, RandomSideNumbersReadAlikeOnBothPaths) {
    test::RandomText random(20261130);
    auto pick = [&](std::size_t n) { return random.pick(n); };
    auto digits = [&](std::size_t n) { return random.digits(n); };
    auto number = [&] {
        static const char* kOdd[] = {"nan", "inf", "-",  ".",   "1e5", "2E-3", "0x1", "1.5.2",
                                     "--1", "+5",  "-0", "-.5", ".5",  "5.",   "",    "1,5"};
        if (pick(10) == 0) return std::string(kOdd[pick(std::size(kOdd))]);
        std::string t = pick(3) == 0 ? "-" : "";
        t += digits(pick(6) == 0 ? pick(18) : 1 + pick(8));
        if (pick(2) == 0) t += "." + digits(pick(6) == 0 ? pick(18) : pick(9));
        return t;
    };
    auto gap = [&] { return pick(12) == 0 ? std::string(pick(2) ? "  " : "\t") : " "; };
    auto point = [&](char open, char close) {
        std::string t;
        if (open) t += open;
        if (pick(20) == 0) t += gap();
        t += number() + gap() + number() + gap() + number();
        if (pick(20) == 0) t += gap();
        if (close) t += close;
        return t;
    };
    auto integer = [&] {
        static const char* kOdd[] = {
            "+5", "-0", "12345678", "99999999999999999999", "1.0", "-", " 7", "7 ", "0007", ""};
        if (pick(5) == 0) return std::string(kOdd[pick(std::size(kOdd))]);
        return (pick(4) == 0 ? "-" : "") + digits(1 + pick(9));
    };
    for (int round = 0; round < 400; ++round) {
        std::string sides;
        for (int n = 0; n < 4; ++n) {
            std::string plane = point('(', ')') + gap() + point('(', ')') + gap() + point('(', ')');
            if (pick(20) == 0) plane += " ";
            sides += "\t\tside\n\t\t{\n\t\t\t\"id\" \"" + integer() + "\"\n\t\t\t\"plane\" \"" +
                     plane + "\"\n";
            if (pick(2) == 0) {
                sides += "\t\t\tvertices_plus\n\t\t\t{\n";
                for (int v = 0; v < 3; ++v)
                    sides +=
                        "\t\t\t\t\"v\" \"" + (pick(10) ? point(0, 0) : point('[', ']')) + "\"\n";
                sides += "\t\t\t}\n";
            }
            // Axes: "[x y z shift] scale", often one seen before (the memo's copy).
            for (const char* key : {"uaxis", "vaxis"}) {
                std::string axis = point('[', 0) + gap() + number() + "]" + gap() + number();
                if (pick(3) == 0) axis = pick(2) ? "[1 0 0 0] 0.25" : "[0 -1 0 -16.5] 0.125";
                sides += std::string("\t\t\t\"") + key + "\" \"" + axis + "\"\n";
            }
            sides += "\t\t\t\"material\" \"M\"\n\t\t\t\"rotation\" \"" + number() +
                     "\"\n\t\t\t\"lightmapscale\" \"" + number() +
                     "\"\n\t\t\t\"smoothing_groups\" \"" + integer() + "\"\n\t\t}\n";
        }
        const std::string text = "world\n{\n\tsolid\n\t{\n" + sides + "\t}\n}\n" +
                                 "entity\n{\n\t\"c\" \"" + std::string(250, 'c') + "\"\n}\n";
        expect_same_readers(text, text);
        // Near the end of the text, where the light path reads the lines as the tree path does.
        expect_same_readers("world\n{\n\tsolid\n\t{\n" + sides + "\t}\n}\n", text);
    }
}

// The streaming reader (read_map, whole or in pieces) builds the model the lossless tree gives,
// on texts where blocks that hold solids are not where a map has them. Found by fuzz_vmf: the
// solids of a second `world` were dropped (and, read in pieces, joined to the first world), and
// top-level key/values were read after every block.
TEST(Vmf, StreamingReadEqualsTreeRead) {
    const std::string solid =
        "\tsolid\n\t{\n\t\t\"id\" \"7\"\n\t\tside\n\t\t{\n\t\t\t\"plane\" "
        "\"(0 0 0) (0 1 0) (1 1 0)\"\n\t\t}\n\t}\n";
    const std::string entity =
        "entity\n{\n\t\"id\" \"3\"\n\t\"classname\" \"func_brush\"\n" + solid + "}\n";
    const std::vector<std::pair<std::string, std::string>> texts = {
        {"second world", "world\n{\n\t\"id\" \"1\"\n" + solid + "}\nworld\n{\n\t\"id\" \"2\"\n" +
                             solid + solid + "}\n" + entity},
        {"top-level values between blocks",
         "\"a\" \"1\"\nquickhide\n{\n}\n\"b\" \"2\"\nworld\n{\n" + solid + "}\n\"c\" \"3\"\n" +
             entity + "\"d\" \"4\"\n"},
        {"entity in an unknown block", "world\n{\n" + solid + "}\nwrapper\n{\n" + entity + "}\n"},
        {"hidden entity", "world\n{\n}\nhidden\n{\n" + entity + "}\n"},
        {"hidden entity and more", "world\n{\n}\nhidden\n{\n" + entity + entity + "}\n"},
        {"hidden solids", "world\n{\n\thidden\n\t{\n" + solid + "\t}\n\thidden\n\t{\n" + solid +
                              solid + "\t}\n\thidden\n\t{\n\t}\n" + solid + "}\n"},
    };
    for (const auto& [label, text] : texts) {
        auto tree = vmf::Document::read(text);
        ASSERT_TRUE(tree) << label;
        for (unsigned threads : {1u, 3u}) {
            vmf::ReadOptions opt;
            opt.threads = threads;
            opt.min_piece_bytes = 1;
            Diagnostics d;
            auto streamed = vmf::read_map(Blob::copy_of(text), d, opt);
            ASSERT_TRUE(streamed) << label;
            EXPECT_TRUE(streamed.value() == tree->map()) << label << " threads " << threads;
        }
        expect_same_readers(text, label);
    }
    auto two = vmf::Document::read(texts[0].second);
    EXPECT_EQ(two->map().world.solids.size(), 1u);
    ASSERT_EQ(two->map().extra_blocks.size(), 1u);  // the second world, whole
    EXPECT_EQ(two->map().extra_blocks[0].children.size(), 3u);
}

TEST(Vmf, ThreadedReadEqualsOneThreadRead) {
    auto entity = [](int i, bool bad) {
        return "entity\n{\n\t\"id\" \"" + std::to_string(i) +
               "\"\n\t\"classname\" \"info_target\"\n"
               "\tsolid\n\t{\n\t\t\"id\" \"" +
               std::to_string(1000 + i) + "\"\n\t\tside\n\t\t{\n\t\t\t\"plane\" \"" +
               (bad ? std::string("(0 0 0) (1 x)") : std::string("(0 0 0) (1 0 0) (0 1 0)")) +
               "\"\n\t\t}\n\t}\n}\n";
    };
    const std::string head =
        "versioninfo\n{\n\t\"mapversion\" \"1\"\n}\nworld\n{\n\t\"id\" \"1\"\n}\n";
    std::vector<std::string> texts;
    std::string body;
    for (int i = 0; i < 12; ++i) body += entity(i, i % 5 == 3);
    texts.push_back(head + body);                           // joins
    texts.push_back(head + body + "world\n{\n}\n" + body);  // second world: whole
    texts.push_back(head + "\"loose\" \"1\"\n" + body + "quickhide\n{\n}\n");  // top-level value
    texts.push_back(head + body + "cameras\n{\n}\n" + body + "cameras\n{\n}\n");
    texts.push_back(head + body + "entity\n{\n\t\"unclosed\" \"1\"\n");  // error in the last piece
    texts.push_back(head + body.substr(0, body.size() / 2) + "\"open\n" + body);
    // A lone CR ends a line too (found by fuzz_vmf: later pieces' lines were off by one).
    texts.push_back("world\n{\n\t\"note\" \"a\rb\"\n}\n" + body);
    for (std::size_t t = 0; t < texts.size(); ++t) {
        Diagnostics one_d;
        auto one = vmf::read_map(Blob::copy_of(texts[t]), one_d, {.threads = 1});
        // Cut three pieces a thread on 2, 3 and 7 threads, and five pieces read in turn on one.
        using Cut = std::pair<unsigned, std::size_t>;
        for (auto [threads, pieces] : std::initializer_list<Cut>{{2, 0}, {3, 0}, {7, 0}, {1, 5}}) {
            vmf::ReadOptions opt;
            opt.threads = threads;
            opt.pieces = pieces;
            opt.min_piece_bytes = 1;
            Diagnostics d;
            auto many = vmf::read_map(Blob::copy_of(texts[t]), d, opt);
            ASSERT_EQ(many.ok(), one.ok()) << t;
            if (!one) {
                EXPECT_EQ(many.error().to_string(), one.error().to_string()) << t;
                continue;
            }
            EXPECT_TRUE(many.value() == one.value()) << t << " threads " << threads;
            ASSERT_EQ(d.size(), one_d.size()) << t;
            for (std::size_t i = 0; i < d.size(); ++i) {
                EXPECT_EQ(d.items()[i].to_string(), one_d.items()[i].to_string()) << t;
                EXPECT_EQ(d.items()[i].offset, one_d.items()[i].offset) << t;
            }
        }
        // The summary of each way of cutting is that of the one-thread model.
        for (auto [threads, pieces] : std::initializer_list<std::pair<unsigned, std::size_t>>{
                 {1, 0}, {2, 0}, {2, 5}, {1, 5}, {3, 100}}) {
            vmf::ReadOptions opt;
            opt.threads = threads;
            opt.pieces = pieces;
            opt.min_piece_bytes = 1;
            EXPECT_EQ(test::summary_mismatch(Blob::copy_of(texts[t]), opt), "")
                << t << " threads " << threads << " pieces " << pieces;
        }
        if (t == 0) {
            ASSERT_TRUE(one);
            EXPECT_EQ(one->entities.size(), 12u);
            ASSERT_GE(one_d.size(), 2u);
            EXPECT_EQ(one_d.items()[1].path.substr(0, 10), "entity[8]/");
        }
    }
}

// Found by vmf_to_vmap_fuzz: numbers no integer holds, where integers are expected, are
// reported and kept as written (casting them would be undefined behaviour; UBSan checks this).
TEST(Vmf, HugeNumbersWhereIntegersBelongAreReported) {
    std::string rows;
    for (int r = 0; r < 4; ++r) {
        rows += "\t\t\t\t\t\"row" + std::to_string(r) + "\" \"" +
                (r == 0 ? std::string("1e60 9 9 9 9 9 9 9") : std::string("9 9 9 9 9 9 9 9")) +
                "\"\n";
    }
    const std::string text =
        "world\n{\n\t\"id\" \"1\"\n\tsolid\n\t{\n\t\t\"id\" \"1e60\"\n\t\tside\n\t\t{\n"
        "\t\t\t\"id\" \"-9.3e18\"\n"
        "\t\t\tdispinfo\n\t\t\t{\n\t\t\t\t\"power\" \"2\"\n\t\t\t\ttriangle_tags\n\t\t\t\t{\n" +
        rows + "\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n}\n";
    auto doc = vmf::Document::read(text);
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->write(), text);
    std::string paths;
    for (const Diagnostic& d : doc->diagnostics().items()) paths += d.path + ";";
    EXPECT_NE(paths.find("world/solid[0]/id"), std::string::npos) << paths;
    EXPECT_NE(paths.find("side[0]/id"), std::string::npos) << paths;
    EXPECT_NE(paths.find("triangle_tags"), std::string::npos) << paths;
    const vmf::Side& side = doc->map().world.solids[0].sides[0];
    ASSERT_TRUE(side.disp);
    EXPECT_FALSE(side.disp->has(vmf::DispInfo::kTriangleTags));
    ASSERT_EQ(side.disp->extra_blocks.size(), 1u);  // the rows survive as written
}

// A one-side map whose dispinfo has `"power" "<power>"` and then `rest` (inner lines), read;
// the power must be reported with its path, kept as written and not taken by the model.
std::optional<vmf::Document> read_bad_power(const std::string& text) {
    auto doc = vmf::Document::read(text);
    if (!doc) return std::nullopt;
    EXPECT_EQ(doc->write(), text);
    std::string paths;
    for (const Diagnostic& d : doc->diagnostics().items()) paths += d.path + ";";
    EXPECT_NE(paths.find("dispinfo/power"), std::string::npos) << paths;
    const vmf::Side& side = doc->map().world.solids.at(0).sides.at(0);
    EXPECT_TRUE(side.disp && !side.disp->has(vmf::DispInfo::kPower));
    return std::move(doc.value());
}
std::string bad_power_map(std::string_view power, std::string_view rest = {}) {
    return "world\n{\n\t\"id\" \"1\"\n\tsolid\n\t{\n\t\t\"id\" \"2\"\n\t\tside\n\t\t{\n"
           "\t\t\t\"id\" \"3\"\n\t\t\tdispinfo\n\t\t\t{\n\t\t\t\t\"power\" \"" +
           std::string(power) + "\"\n" + std::string(rest) + "\t\t\t}\n\t\t}\n\t}\n}\n";
}

// Integers past the field's type are refused, not wrapped: "power" "4294967299" would pass as
// 3 (narrowing audit). The value is reported with its path and kept as written.
TEST(Vmf, IntegersPastTheFieldsTypeAreReportedNotWrapped) {
    ASSERT_TRUE(read_bad_power(bad_power_map("4294967299")));
}

// A power that reads as an int but is out of 0..4 ("255") is reported and kept as written; the
// model keeps no power (the grid size 1 << 255 was undefined behaviour: found by fuzz_vmf).
// The full and the light tokenizer agree.
TEST(Vmf, APowerOutOfRangeIsKeptAsWrittenAndSizesNoGrid) {
    const std::string text = bad_power_map(
        "255", "\t\t\t\tnormals\n\t\t\t\t{\n\t\t\t\t\t\"row0\" \"0 0 1\"\n\t\t\t\t}\n");
    auto doc = read_bad_power(text);
    ASSERT_TRUE(doc);
    const vmf::Side& side = doc->map().world.solids.at(0).sides.at(0);
    ASSERT_TRUE(side.disp);
    EXPECT_EQ(side.disp->power, 0);
    EXPECT_FALSE(side.disp->has(vmf::DispInfo::kNormals));
    for (const bool light : {true, false}) {
        vmf::ReadOptions opt;
        opt.light_tokenizer = light;
        Diagnostics d;
        auto map = vmf::read_map(Blob::copy_of(text), d, opt);
        ASSERT_TRUE(map);
        EXPECT_TRUE(map.value() == doc->map()) << light;
    }
    // A model built with such a power writes its rows empty instead of shifting by it.
    vmf::Map built = doc->map();
    vmf::DispInfo& disp = *built.world.solids.at(0).sides.at(0).disp;
    disp.present |= vmf::DispInfo::kPower | vmf::DispInfo::kNormals;
    disp.power = 255;
    disp.normals.assign(25, Vec3{0, 0, 1});
    disp.extra_blocks.clear();  // the rows kept as written
    const std::string out = vmf::write(built);
    EXPECT_NE(out.find("\"power\" \"255\""), std::string::npos);
    EXPECT_EQ(out.find("row0"), std::string::npos);
}

TEST(Vmf, BoxSolidIsAValidBrushWithOutwardPlanesAndFreshIds) {
    auto doc = vmf::Document::read(kBoxMap);
    ASSERT_TRUE(doc) << doc.error().to_string();
    vmf::Map& map = doc->map();
    vmf::NextIds ids = vmf::next_ids(map);
    for (const vmf::Entity* e : {&map.world}) {
        EXPECT_GT(ids.entity, e->id());
        for (const vmf::Solid& s : e->solids) {
            EXPECT_GT(ids.solid, s.id);
            for (const vmf::Side& side : s.sides) EXPECT_GT(ids.side, side.id);
        }
    }
    const vmf::NextIds before = ids;
    Aabb box;
    box.add({-32, 16, 0});
    box.add({96, 48, 256});
    const vmf::Solid solid = vmf::box_solid(box, "TOOLS/TOOLSNODRAW", ids);
    EXPECT_EQ(solid.id, before.solid);
    EXPECT_EQ(ids.solid, before.solid + 1);
    EXPECT_EQ(ids.side, before.side + 6);
    ASSERT_EQ(solid.sides.size(), 6u);
    BrushPolygons polys;
    vmf::solid_polygons(solid, polys);
    EXPECT_TRUE(polys.valid());
    ASSERT_EQ(polys.face_count(), 6u);
    for (std::size_t i = 0; i < 6; ++i) {
        const auto plane = solid.sides[i].plane();
        ASSERT_TRUE(plane);
        EXPECT_LT(plane->distance_to(box.center()), 0) << "side " << i;
        EXPECT_EQ(polys.face(i).size(), 4u);
        for (const Vec3& p : polys.face(i)) EXPECT_TRUE(box.contains(p, 1e-6));
    }
    // Written and read back, the new brush is part of the map.
    map.world.solids.push_back(solid);
    auto again = vmf::Document::read(vmf::write(map));
    ASSERT_TRUE(again) << again.error().to_string();
    EXPECT_EQ(again->map().world.solids.back(), solid);
}

// The reader remembers parsed displacement rows by their text (read.cpp, RowMemo): rows that
// repeat, many different ones (slots taken over), texts at and past the lengths kept (8 and 120
// bytes), rows of more numbers than a slot holds, bad rows repeated, and one text read as rows
// of different lengths must all read as the same displacement alone does.
TEST(Vmf, RepeatedDisplacementRowsReadAsEachAloneDoes) {
    struct Disp {
        int power;
        std::vector<std::string> distances;  // rows; normals are derived from them
    };
    auto rows_of = [](int power, const std::string& row) {
        return std::vector<std::string>(static_cast<std::size_t>((1 << power) + 1), row);
    };
    std::vector<Disp> disps;
    for (int i = 0; i < 400; ++i) {
        // Every third repeats an earlier displacement's rows; the rest are new.
        const int k = i % 3 == 0 ? i / 7 : i;
        std::vector<std::string> r = rows_of(2, "0 0 0 0 0");
        r[static_cast<std::size_t>(k % 5)] = fmt::format("{} 0.5 0 {} 0", k, k % 11);
        disps.push_back({2, r});
    }
    disps.push_back({1, rows_of(1, "1 2 300")});   // 7 bytes: not kept
    disps.push_back({1, rows_of(1, "1 20 300")});  // 8 bytes: kept
    const std::string long_number = "0." + std::string(106, '1');
    disps.push_back({2, rows_of(2, long_number + " 0 0 0 0")});       // 116 bytes
    disps.push_back({2, rows_of(2, long_number + "11 0 0 0 0")});     // 118
    disps.push_back({2, rows_of(2, long_number + "1111 0 0 0 0")});   // 120: kept
    disps.push_back({2, rows_of(2, long_number + "11111 0 0 0 0")});  // 121: not kept
    disps.push_back(disps.back());
    disps.push_back({2, rows_of(2, "0 0 0 0")});            // bad: four numbers
    disps.push_back({2, rows_of(2, "0 0 0 0")});            // the same bad rows again
    disps.push_back({2, rows_of(2, "0 0 x 0 0")});          // bad: a letter
    disps.push_back({3, rows_of(3, "0 0 0 0 0 0 0 0 0")});  // nine numbers, kept
    disps.push_back({2, rows_of(2, "0 0 0 0 0 0 0 0 0")});  // the same text: bad for five
    disps.push_back({4, rows_of(4, "1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0")});  // 51 normals
    disps.push_back({2, rows_of(2, "0 0 0 0 0")});
    auto side_text = [](const Disp& d) {
        std::string t = fmt::format(
            "\t\tside\n\t\t{{\n\t\t\t\"plane\" \"(0 0 0) (0 1 0) (1 0 0)\"\n"
            "\t\t\tdispinfo\n\t\t\t{{\n\t\t\t\t\"power\" \"{}\"\n",
            d.power);
        // Normals: each row's text three times over (a row of 3 * size numbers).
        for (const char* block : {"distances", "normals", "alphas"}) {
            t += fmt::format("\t\t\t\t{}\n\t\t\t\t{{\n", block);
            for (std::size_t r = 0; r < d.distances.size(); ++r) {
                const std::string& row = d.distances[r];
                const std::string v =
                    std::string(block) == "normals" ? row + " " + row + " " + row : row;
                t += fmt::format("\t\t\t\t\t\"row{}\" \"{}\"\n", r, v);
            }
            t += "\t\t\t\t}\n";
        }
        return t + "\t\t\t}\n\t\t}\n";
    };
    std::string text = "world\n{\n\t\"id\" \"1\"\n";
    for (const Disp& d : disps) text += "\tsolid\n\t{\n" + side_text(d) + "\t}\n";
    text += "}\n";
    for (const bool light : {true, false}) {
        Diagnostics d;
        auto map = vmf::read_map(Blob::copy_of(text), d, {.threads = 1, .light_tokenizer = light});
        ASSERT_TRUE(map) << map.error().to_string();
        ASSERT_EQ(map->world.solids.size(), disps.size());
        std::size_t errors = 0, typed = 0;
        for (std::size_t i = 0; i < disps.size(); ++i) {
            const vmf::Side& s = map->world.solids[i].sides.at(0);
            const std::string alone = "world\n{\n\tsolid\n\t{\n" + side_text(disps[i]) + "\t}\n}\n";
            Diagnostics ad;
            auto one = vmf::read_map(Blob::copy_of(alone), ad, {.threads = 1});
            ASSERT_TRUE(one);
            const vmf::Side& o = one->world.solids.at(0).sides.at(0);
            ASSERT_TRUE(s.disp && o.disp) << i;
            EXPECT_EQ(*s.disp, *o.disp) << i << ": " << disps[i].distances[0];
            errors += ad.count(Severity::error);
            typed += o.disp->has(vmf::DispInfo::kDistances) && o.disp->has(vmf::DispInfo::kNormals);
        }
        EXPECT_EQ(d.count(Severity::error), errors);
        EXPECT_EQ(errors, 12u);  // four bad displacements, three blocks each
        EXPECT_EQ(typed, disps.size() - 4);
    }
}

// The reader remembers parsed texture axes by their text (read.cpp, AxisMemo): repeated texts,
// many different ones (so remembered slots are taken over by others), texts at and past the
// lengths it keeps, and a bad text repeated must all read as each text alone does.
TEST(Vmf, RepeatedTextureAxesReadAsEachAloneDoes) {
    std::vector<std::string> axes;
    for (int i = 0; i < 700; ++i) {
        // Every third text repeats an earlier one; the rest are new.
        const int k = i % 3 == 0 ? i / 7 : i;
        axes.push_back(fmt::format("[1 0 0 {}] 0.25", k));
    }
    axes.push_back("[1 0 0] 0.25");   // bad (a shift is missing)
    axes.push_back("[1 0 0] 0.25");   // the same bad text again
    axes.push_back("[0 0 -1 0] 1");   // 13 bytes
    axes.push_back("[0 0 -1 0]");     // bad: no scale
    axes.push_back("[1 0 0 0]  .5");  // 13 bytes, two spaces
    axes.push_back(std::string("[0.") + std::string(30, '1') + " 0 0 0] 1");  // 41 bytes: not kept
    axes.push_back(std::string("[0.") + std::string(29, '1') + " 0 0 0] 1");  // 40 bytes: kept
    axes.push_back(axes.back());
    std::string text = "world\n{\n\t\"id\" \"1\"\n";
    for (std::size_t i = 0; i < axes.size(); ++i) {
        text += fmt::format(
            "\tsolid\n\t{{\n\t\t\"id\" \"{}\"\n\t\tside\n\t\t{{\n\t\t\t\"id\" \"{}\"\n"
            "\t\t\t\"uaxis\" \"{}\"\n\t\t\t\"vaxis\" \"{}\"\n\t\t}}\n\t}}\n",
            2 * i + 2, 2 * i + 3, axes[i], axes[axes.size() - 1 - i]);
    }
    text += "}\n";
    for (const bool light : {true, false}) {
        Diagnostics d;
        auto map = vmf::read_map(Blob::copy_of(text), d, {.threads = 1, .light_tokenizer = light});
        ASSERT_TRUE(map) << map.error().to_string();
        ASSERT_EQ(map->world.solids.size(), axes.size());
        std::size_t bad = 0;
        for (std::size_t i = 0; i < axes.size(); ++i) {
            const vmf::Side& s = map->world.solids[i].sides.at(0);
            for (const bool u : {true, false}) {
                const std::string& want = u ? axes[i] : axes[axes.size() - 1 - i];
                // The same text in a map of its own.
                const std::string alone =
                    "world\n{\n\tsolid\n\t{\n\t\tside\n\t\t{\n\t\t\t\"uaxis\" \"" + want +
                    "\"\n\t\t}\n\t}\n}\n";
                Diagnostics ad;
                auto one = vmf::read_map(Blob::copy_of(alone), ad, {.threads = 1});
                ASSERT_TRUE(one);
                const vmf::Side& o = one->world.solids.at(0).sides.at(0);
                EXPECT_EQ(s.has(u ? vmf::Side::kUAxis : vmf::Side::kVAxis),
                          o.has(vmf::Side::kUAxis))
                    << want;
                if (o.has(vmf::Side::kUAxis)) {
                    EXPECT_EQ(u ? s.uaxis : s.vaxis, o.uaxis) << want;
                } else {
                    ++bad;
                }
            }
        }
        EXPECT_EQ(bad, 6u);  // three bad texts, each as a uaxis and as a vaxis
        EXPECT_EQ(d.count(Severity::error), 6u);
    }
}
