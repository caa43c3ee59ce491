// func_instance collapsing, on a hand-made instance and on real instanced maps.
#include <gtest/gtest.h>

#include "levelkit/core/file.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/instances.hpp"
#include "support/corpus.hpp"

using namespace lk;

namespace {

constexpr std::string_view kOuter = R"vmf(world
{
	"id" "1"
	"classname" "worldspawn"
}
entity
{
	"id" "2"
	"classname" "func_instance"
	"targetname" "door1"
	"file" "instances\Door"
	"origin" "100 0 0"
	"angles" "0 90 0"
	"replace01" "$speed 50"
	"replace02" "#DEV/OLD DEV/NEW"
}
)vmf";

constexpr std::string_view kInner = R"vmf(world
{
	"id" "1"
	"classname" "worldspawn"
	solid
	{
		"id" "2"
		side
		{
			"id" "3"
			"plane" "(0 0 8) (8 0 8) (8 -8 8)"
			"material" "DEV/OLD"
			"uaxis" "[1 0 0 4] 0.25"
			"vaxis" "[0 -1 0 0] 0.25"
		}
	}
}
entity
{
	"id" "4"
	"classname" "func_door"
	"targetname" "door"
	"speed" "$speed"
	"origin" "8 0 0"
	"angles" "0 0 0"
	connections
	{
		"OnOpen" "relay,Trigger,,0,-1"
		"OnClose" "!activator,Kill,,0,1"
	}
}
entity
{
	"id" "5"
	"classname" "func_instance_parms"
	"parm1" "$speed integer 100"
}
entity
{
	"id" "6"
	"classname" "info_overlay"
	"sides" "3"
	"BasisNormal" "1 0 0"
	"origin" "0 0 8"
}
)vmf";

}  // namespace

TEST(Instances, TransformsRenamesAndSubstitutes) {
    auto outer = vmf::Document::read(kOuter).value().map();
    std::string asked;
    vmf::InstanceLoader loader = [&](std::string_view file,
                                     const std::filesystem::path&) -> Result<vmf::Map> {
        asked = std::string(file);
        return vmf::Document::read(kInner).value().map();
    };
    Diagnostics d;
    auto rep = vmf::collapse_instances(outer, ".", loader, d);
    EXPECT_EQ(asked, "instances/Door.vmf");  // backslashes and extension normalised
    EXPECT_EQ(rep.instances, 1u);
    ASSERT_EQ(outer.world.solids.size(), 1u);
    const vmf::Side& side = outer.world.solids[0].sides[0];
    // (0 0 8) rotated by yaw 90 and moved by (100 0 0).
    EXPECT_TRUE(near(side.plane_points[0], {100, 0, 8}, 1e-9));
    EXPECT_TRUE(near(side.plane_points[1], {100, 8, 8}, 1e-9));
    EXPECT_TRUE(near(side.uaxis.axis, {0, 1, 0}, 1e-12));
    // Texture lock: the texel at a moved point equals the texel at the original point.
    const Vec3 p{3, -2, 8};
    const Vec3 moved = angle_matrix({0, 90, 0}) * p + Vec3{100, 0, 0};
    EXPECT_NEAR(dot(moved, side.uaxis.axis) / 0.25 + side.uaxis.shift, dot(p, {1, 0, 0}) / 0.25 + 4,
                1e-9);
    EXPECT_EQ(side.material, "DEV/NEW");

    ASSERT_EQ(outer.entities.size(), 2u);  // door and overlay; parms and the instance are gone
    const vmf::Entity& door = outer.entities[0];
    EXPECT_EQ(door.get("targetname"), "door1-door");
    EXPECT_EQ(door.get("speed"), "50");
    EXPECT_EQ(door.get("origin"), "100 8 0");
    EXPECT_EQ(door.get("angles"), "0 90 0");
    EXPECT_EQ(door.connections[0].target, "door1-relay");
    EXPECT_EQ(door.connections[1].target, "!activator");  // special names are not fixed up
    const vmf::Entity& overlay = outer.entities[1];
    EXPECT_EQ(overlay.get("sides"), std::to_string(side.id));
    EXPECT_EQ(overlay.get("BasisNormal"), "0 1 0");
    EXPECT_NE(door.id(), 4);
    EXPECT_NE(side.id, 3);
}

TEST(Instances, MissingFilesAreReportedAndKept) {
    auto outer = vmf::Document::read(kOuter).value().map();
    Diagnostics d;
    auto rep = vmf::collapse_instances(outer, "/nonexistent", vmf::filesystem_instance_loader(), d);
    EXPECT_EQ(rep.unresolved, 1u);
    EXPECT_EQ(outer.entities.size(), 1u);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NE(d.items()[0].message.find("Door.vmf"), std::string::npos);
}

TEST(Instances, CaseInsensitiveLookup) {
    const auto dir = std::filesystem::temp_directory_path() / "lk-inst-test" / "maps" / "instances";
    std::filesystem::create_directories(dir);
    ASSERT_TRUE(write_file_atomic(dir / "LandingBay_AudioTriggers.vmf", kInner));
    auto found =
        vmf::find_case_insensitive(dir.parent_path(), "INSTANCES/landingbay_audiotriggers.vmf");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->filename(), "LandingBay_AudioTriggers.vmf");
    // From a subfolder of maps/, VBSP's second rule (relative to maps/) finds it.
    auto outer = vmf::Document::read(kOuter).value().map();
    outer.entities[0].set("file", "instances/landingbay_audiotriggers.vmf");
    Diagnostics d;
    std::filesystem::create_directories(dir.parent_path() / "sub");
    auto rep = vmf::collapse_instances(outer, dir.parent_path() / "sub",
                                       vmf::filesystem_instance_loader(), d);
    EXPECT_EQ(rep.instances, 1u) << (d.empty() ? "" : d.items()[0].to_string());
    std::filesystem::remove_all(dir.parent_path().parent_path());
}

// The corpus keeps instance files flattened ("rd__instances__name.vmf"); map the references.
TEST(Instances, CorpusMapsCollapse) {
    LK_REQUIRE_CORPUS();
    const auto vmf_dir = *test::corpus_dir() / "vmf";
    vmf::InstanceLoader loader = [&](std::string_view file,
                                     const std::filesystem::path&) -> Result<vmf::Map> {
        std::string flat(file);
        for (std::size_t at; (at = flat.find('/')) != std::string::npos;) flat.replace(at, 1, "__");
        for (const auto& e : std::filesystem::directory_iterator(vmf_dir)) {
            if (iends_with(e.path().filename().string(), "__" + flat)) {
                Diagnostics d;
                return vmf::read_map(Blob::map_file(e.path()).value(), d);
            }
        }
        return Diagnostic::error("test.missing", "not in corpus: " + flat);
    };
    for (auto [name, min_instances] : {std::pair{"srctools__test_vec__rot_main.vmf", 512},
                                       std::pair{"rd__ASI-Jac1-LandingBay_01.vmf", 5}}) {
        Diagnostics d;
        auto map = vmf::read_map(Blob::map_file(vmf_dir / name).value(), d).value();
        auto duplicates = [](const vmf::Map& m) {
            Diagnostics v;
            vmf::validate(m, v);
            std::size_t dup = 0;
            for (const auto& x : v.items()) dup += x.code == "vmf.duplicate-id";
            return std::pair{v.count(Severity::error), dup};
        };
        const auto before = duplicates(map);
        const std::size_t solids_before = map.world.solids.size();
        auto rep = vmf::collapse_instances(map, vmf_dir, loader, d);
        std::printf(
            "%s: %zu instances collapsed (%zu solids, %zu entities), %zu not in the corpus\n", name,
            rep.instances, rep.solids, rep.entities, rep.unresolved);
        EXPECT_GE(rep.instances, static_cast<std::size_t>(min_instances)) << name;
        EXPECT_GE(map.world.solids.size(), solids_before);
        // Still a valid map: every brush closes, and no id was duplicated by the merge (the
        // originals may already repeat some).
        EXPECT_EQ(duplicates(map), before) << name;
    }
}
