// VMF -> scene -> VMF keeps brushes, texturing, displacements, entities and outputs; sides
// without plane points get points on their real face that give back the same plane.
#include <gtest/gtest.h>

#include "levelkit/any/document.hpp"
#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "support/corpus.hpp"

using namespace lk;

namespace {

struct Figures {
    std::size_t files = 0, solids = 0, sides = 0, planes_within = 0, entities = 0;
};

void compare(const vmf::Map& a, const vmf::Map& b, bool exact_points, Figures& f,
             const std::string& name) {
    auto solids = [](const vmf::Map& m) {
        std::vector<const vmf::Solid*> out;
        for (const auto& s : m.world.solids) out.push_back(&s);
        for (const auto& e : m.entities) {
            for (const auto& s : e.solids) out.push_back(&s);
        }
        return out;
    };
    const auto sa = solids(a), sb = solids(b);
    ASSERT_EQ(sa.size(), sb.size()) << name;
    ASSERT_EQ(a.entities.size(), b.entities.size()) << name;
    f.entities += a.entities.size();
    for (std::size_t i = 0; i < sa.size(); ++i) {
        ASSERT_EQ(sa[i]->sides.size(), sb[i]->sides.size()) << name;
        ++f.solids;
        for (std::size_t k = 0; k < sa[i]->sides.size(); ++k) {
            const vmf::Side& x = sa[i]->sides[k];
            const vmf::Side& y = sb[i]->sides[k];
            ++f.sides;
            EXPECT_EQ(x.material, y.material) << name;
            EXPECT_EQ(x.uaxis, y.uaxis) << name;
            EXPECT_EQ(x.vaxis, y.vaxis) << name;
            EXPECT_EQ(x.disp.has_value(), y.disp.has_value()) << name;
            if (!x.has(vmf::Side::kPlane)) continue;  // a broken side: nothing to keep
            if (exact_points) {
                EXPECT_EQ(x.plane_points, y.plane_points) << name;
                ++f.planes_within;
            } else if (auto px = x.plane(), py = y.plane(); px && py) {
                // Same orientation, and the new points lie on the original plane: comparing
                // distances from the origin would magnify tiny angle differences far away.
                double off = 0;
                for (const Vec3& p : y.plane_points)
                    off = std::max(off, std::abs(px->distance_to(p)));
                if (dot(px->normal, py->normal) > 1 - 1e-9 && off <= 1e-6) {
                    ++f.planes_within;
                } else {
                    std::printf("  %s side %lld: normal diff %.3g, dist diff %.3g\n", name.c_str(),
                                static_cast<long long>(x.id), length(px->normal - py->normal),
                                px->dist - py->dist);
                }
            }
        }
    }
    for (std::size_t i = 0; i < a.entities.size(); ++i) {
        EXPECT_EQ(a.entities[i].classname(), b.entities[i].classname()) << name;
        EXPECT_EQ(a.entities[i].connections.size(), b.entities[i].connections.size()) << name;
    }
}

}  // namespace

TEST(VmfScene, CorpusRoundTripThroughTheScene) {
    LK_REQUIRE_CORPUS();
    Figures exact, computed;
    auto files = test::corpus_files("vmf", {".vmf"});
    for (const auto& f : files) {
        Diagnostics d;
        auto map = vmf::read_map(Blob::map_file(f).value(), d);
        ASSERT_TRUE(map);
        // Only maps whose brushes are all valid can have their plane points recomputed.
        bool valid = true;
        BrushPolygons polys;
        auto check = [&](const vmf::Entity& e) {
            for (const auto& s : e.solids) {
                vmf::solid_polygons(s, polys);
                valid &= polys.valid();
            }
        };
        check(map->world);
        for (const auto& e : map->entities) check(e);

        scene::Scene sc = convert::vmf_to_scene(*map, d);
        vmf::Map back = convert::scene_to_vmf(sc, d);
        ++exact.files;
        compare(*map, back, true, exact, f.filename().string());
        // Re-reading what we wrote gives the same typed map.
        auto reread = vmf::Document::read(vmf::write(back));
        ASSERT_TRUE(reread);
        EXPECT_EQ(reread->map(), back) << f;

        if (!valid) continue;
        for (auto* e : {&sc.world}) {
            for (auto& b : e->brushes) {
                for (auto& sd : b.sides) sd.points.reset();
            }
        }
        for (auto& e : sc.entities) {
            for (auto& b : e.brushes) {
                for (auto& sd : b.sides) sd.points.reset();
            }
        }
        vmf::Map recomputed = convert::scene_to_vmf(sc, d);
        ++computed.files;
        compare(*map, recomputed, false, computed, f.filename().string());
    }
    std::printf(
        "VMF->scene->VMF: %zu files, %zu solids, %zu sides kept exactly; with plane points "
        "recomputed on the faces: %zu files, %zu/%zu planes equal (points within 1e-6)\n",
        exact.files, exact.solids, exact.sides, computed.files, computed.planes_within,
        computed.sides);
    EXPECT_EQ(computed.planes_within, computed.sides);
}

TEST(VmfScene, CompleteHammerMapFromAnEmptyScene) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    scene::Entity e;
    e.id = 5;
    e.set("classname", "info_player_start");
    e.outputs.push_back({"OnUser1", "x", "Kill", "", 0, -1, std::nullopt});
    s.entities.push_back(e);
    s.entities.push_back(e);  // duplicate id: renumbered
    Diagnostics d;
    convert::SceneToVmfReport rep;
    vmf::Map m = convert::scene_to_vmf(s, d, {}, &rep);
    EXPECT_TRUE(m.has_versioninfo && m.has_visgroups && m.viewsettings && m.has_world &&
                m.has_cameras);
    EXPECT_EQ(m.cordon_style, vmf::Map::CordonStyle::single);
    EXPECT_EQ(m.world.id(), 1);
    EXPECT_EQ(m.entities[0].id(), 5);
    EXPECT_NE(m.entities[1].id(), 5);
    EXPECT_EQ(rep.renumbered_ids, 1u);
    EXPECT_EQ(m.entities[0].connections[0].separator, '\x1b');
    auto doc = vmf::Document::read(vmf::write(m));
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->map(), m);
}

TEST(VmfScene, DoubleQuotesBecomeSingleSoTheVmfReads) {
    // A VMF string has no escapes; names from BSP string tables or DMX can hold a '"'.
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    scene::Entity e;
    e.set("classname", "info_target");
    e.set("targetname", "say \"hi\"");
    e.outputs.push_back({"OnUser1", "a\"b", "Kill", "", 0, -1, std::nullopt});
    s.entities.push_back(e);
    scene::Brush b;
    const Vec3 n[6] = {{0, 0, 1}, {0, 0, -1}, {-1, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (const Vec3& normal : n) {
        scene::BrushSide side;
        side.plane = {normal, 64};
        side.material = "dev/\"dev_measure";
        b.sides.push_back(side);
    }
    s.world.brushes.push_back(std::move(b));
    Diagnostics d;
    vmf::Map m = convert::scene_to_vmf(s, d, {});
    auto doc = vmf::Document::read(vmf::write(m));
    ASSERT_TRUE(doc) << doc.error().to_string();
    EXPECT_EQ(doc->map().entities.at(0).get("targetname"), "say 'hi'");
    EXPECT_EQ(doc->map().world.solids.at(0).sides.at(0).material, "dev/'dev_measure");
    bool warned = false;
    for (const Diagnostic& x : d.items()) warned |= x.code == "vmf.quote-replaced";
    EXPECT_TRUE(warned);
}

// A VMF read for looking or converting only (ReadOptions::lossless off: the streaming typed
// reader, no text tree) tells and writes what the lossless read does.
TEST(VmfScene, ReadWithoutTheTreeGivesTheSameDocument) {
    scene::Scene s;
    s.world.set("classname", "worldspawn");
    scene::Entity e;
    e.set("classname", "info_target");
    e.set("targetname", "t");
    s.entities.push_back(e);
    Diagnostics d;
    const std::string text = vmf::write(convert::scene_to_vmf(s, d, {}), {"\r\n"});
    ReadOptions full, typed;
    full.source_name = typed.source_name = "t.vmf";
    typed.lossless = false;
    auto a = read_document(Blob::copy_of(text), full);
    auto b = read_document(Blob::copy_of(text), typed);
    ASSERT_TRUE(a && b);
    EXPECT_EQ((*a)->format(), "vmf");
    EXPECT_EQ((*b)->format(), "vmf");
    EXPECT_EQ((*a)->info().dump(), (*b)->info().dump());
    EXPECT_EQ((*b)->info()["line_ending"], "crlf");
    auto wa = (*a)->write();
    auto wb = (*b)->write();
    ASSERT_TRUE(wa && wb);
    EXPECT_EQ(*wa, *wb);
    EXPECT_EQ(std::string(as_text(*wb)), text);
    EXPECT_EQ((*a)->line_of(text.find("info_target")), (*b)->line_of(text.find("info_target")));
}

// A visgroup colour is kept as text by the VMF reader; one that no int holds is reported and
// left out (it wrapped: 4294967296 became 0).
TEST(VmfScene, VisgroupColourOutOfIntRangeIsWarnedNotWrapped) {
    const std::string text = R"(visgroups
{
	visgroup
	{
		"name" "ok"
		"visgroupid" "1"
		"color" "10 20 30"
		visgroup
		{
			"name" "wide"
			"visgroupid" "2"
			"color" "4294967296 0 -4294967297"
		}
	}
}
world
{
	"id" "1"
	"classname" "worldspawn"
}
)";
    auto doc = vmf::Document::read(text);
    ASSERT_TRUE(doc) << doc.error().to_string();
    Diagnostics d;
    const scene::Scene s = convert::vmf_to_scene(doc->map(), d);
    ASSERT_EQ(s.visgroups.size(), 1u);
    EXPECT_EQ(s.visgroups[0].color, (std::array<int, 3>{10, 20, 30}));
    ASSERT_EQ(s.visgroups[0].children.size(), 1u);
    EXPECT_FALSE(s.visgroups[0].children[0].color.has_value());
    bool warned = false;
    for (const Diagnostic& x : d.items()) {
        warned |=
            x.code == "convert.out-of-range" && x.path == "visgroups/visgroup[0]/visgroup[0]/color";
    }
    EXPECT_TRUE(warned);
}

// A dispinfo whose power is out of 0..4 sizes no grid: its side becomes a plain face in the
// scene, and the conversions on (VMF, VMAP) run without one (found by fuzz_vmf: 1 << 255).
TEST(VmfScene, ADisplacementWithoutAValidPowerIsAPlainFace) {
    std::string text = "world\n{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n\tsolid\n\t{\n";
    const char* planes[6] = {"(0 0 64) (64 0 64) (64 64 64)", "(0 64 0) (64 64 0) (64 0 0)",
                             "(0 0 0) (0 64 0) (0 64 64)",    "(64 64 0) (64 0 0) (64 0 64)",
                             "(64 0 0) (0 0 0) (0 0 64)",     "(0 64 0) (64 64 0) (64 64 64)"};
    for (int i = 0; i < 6; ++i) {
        text += "\t\tside\n\t\t{\n\t\t\t\"id\" \"" + std::to_string(i + 1) +
                "\"\n\t\t\t\"plane\" \"" + planes[i] + "\"\n\t\t\t\"material\" \"DEV/X\"\n";
        if (i == 0) text += "\t\t\tdispinfo\n\t\t\t{\n\t\t\t\t\"power\" \"255\"\n\t\t\t}\n";
        text += "\t\t}\n";
    }
    text += "\t}\n}\n";
    auto doc = vmf::Document::read(text);
    ASSERT_TRUE(doc) << doc.error().to_string();
    Diagnostics d;
    const scene::Scene s = convert::vmf_to_scene(doc->map(), d);
    ASSERT_EQ(s.world.brushes.size(), 1u);
    for (const scene::BrushSide& side : s.world.brushes[0].sides) {
        EXPECT_FALSE(side.displacement.has_value());
    }
    Diagnostics d2;
    const vmf::Map back = convert::scene_to_vmf(s, d2);
    ASSERT_EQ(back.world.solids.size(), 1u);
    for (const vmf::Side& side : back.world.solids[0].sides) EXPECT_FALSE(side.disp);
    Diagnostics d3;
    const dmx::Document vmap = convert::scene_to_vmap(s, d3);
    EXPECT_FALSE(vmap.root.is_null());
}
