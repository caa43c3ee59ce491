// VMF -> VMAP on every corpus VMF (vmf/ and bsp/vmf/): every mesh valid, mesh vertices equal the
// brush polygons (0.001), texcoords equal the VMF axes' UVs (1e-4), entity and output counts
// equal; VMF -> VMAP -> VMF of maps without displacements gives back the brush planes (0.01) and
// materials; every element class and attribute written appears in a Hammer-saved corpus vmap.
// VMF -> VMAP -> VMF of maps with displacements gives every displacement back as a dispinfo with
// the same power and its vertices within 0.01 units, in a VMF that reads back and validates.
// Hammer-saved vmaps -> VMF accounts for every mesh (a brush, displacements or reported).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/dmx/packed.hpp"
#include "levelkit/vmap/vmap.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "support/corpus.hpp"

using namespace lk;

namespace {

std::vector<std::filesystem::path> vmf_files() {
    auto files = test::corpus_files("vmf", {".vmf"});
    auto more = test::corpus_files("bsp/vmf", {".vmf"});
    files.insert(files.end(), more.begin(), more.end());
    return files;
}

struct Figures {
    std::size_t files = 0, meshes = 0, invalid_meshes = 0, brush_meshes = 0, disp_meshes = 0;
    std::size_t vertices = 0, vertices_off = 0, corners = 0, uvs_off = 0;
    std::size_t entities = 0, entities_vmap = 0, outputs = 0, outputs_vmap = 0;
    std::size_t skipped_brushes = 0;
    double max_vertex_err = 0, max_uv_err = 0;
};

Vec3 v3(const dmx::Vector3& v) {
    return {v.x, v.y, v.z};
}

double uv_of(const Vec3& p, const vmf::UVAxis& a) {
    return (dot(p, a.axis) / (a.scale != 0 ? a.scale : 1) + a.shift) / 512.0;
}

// The meshes the converter makes for one solid, in its order: one per valid brush, or one per
// displacement side.
struct Expected {
    const vmf::Solid* solid = nullptr;
    int disp_side = -1;
};

void expected_meshes(const vmf::Solid& s, std::vector<Expected>& out, Figures& f) {
    BrushPolygons polys;
    vmf::solid_polygons(s, polys);
    for (const BrushFaceProblem& p : polys.problems) {
        if (p.problem != BrushProblem::duplicate_plane && p.problem != BrushProblem::side_no_face) {
            ++f.skipped_brushes;
            return;
        }
    }
    bool disp = false;
    for (std::size_t i = 0; i < s.sides.size(); ++i) {
        if (s.sides[i].disp) {
            disp = true;
            if (vmf::displacement_grid(s.sides[i], polys.face(i)))
                out.push_back({&s, static_cast<int>(i)});
        }
    }
    if (!disp) out.push_back({&s, -1});
}

void check_mesh(const vmap::Map& map, std::uint32_t node, const Expected& ex, Figures& f,
                const std::string& name) {
    const auto view = vmap::view_mesh(map.doc(), map.mesh_data(map.nodes[node].element));
    ASSERT_TRUE(view.ok()) << name;
    const auto pos = view->vertices.get<dmx::Vector3>("position:0");
    const auto uv = view->face_vertices.get<dmx::Vector2>("texcoord:0");
    BrushPolygons polys;
    vmf::solid_polygons(*ex.solid, polys);
    std::vector<vmap::Corner> corners;
    auto note = [&](double err, double tol, std::size_t& off, double& max) {
        max = std::max(max, err);
        if (err > tol) ++off;
    };
    if (ex.disp_side >= 0) {
        ++f.disp_meshes;
        const vmf::Side& side = ex.solid->sides[static_cast<std::size_t>(ex.disp_side)];
        const auto face = polys.face(static_cast<std::size_t>(ex.disp_side));
        const auto grid = vmf::displacement_grid(side, face);
        vmf::Side flat_side = side;
        flat_side.disp->offsets.clear();
        flat_side.disp->distances.clear();
        flat_side.disp->elevation = 0;
        const auto flat = vmf::displacement_grid(flat_side, face);
        ASSERT_EQ(grid->size(), pos.size()) << name;
        for (std::size_t v = 0; v < pos.size(); ++v) {
            ++f.vertices;
            note(distance(v3(pos[v]), (*grid)[v]), 1e-3, f.vertices_off, f.max_vertex_err);
        }
        for (std::size_t k = 0; k < view->face_count(); ++k) {
            ASSERT_TRUE(vmap::face_corners(*view, k, corners));
            for (const vmap::Corner& c : corners) {
                const Vec3& p = (*flat)[static_cast<std::size_t>(c.vertex)];
                const dmx::Vector2 t = uv[static_cast<std::size_t>(
                    view->edge_vertex_data[static_cast<std::size_t>(c.half_edge)])];
                ++f.corners;
                note(std::max(std::abs(t.x - uv_of(p, side.uaxis)),
                              std::abs(t.y - uv_of(p, side.vaxis))),
                     1e-4, f.uvs_off, f.max_uv_err);
            }
        }
        return;
    }
    ++f.brush_meshes;
    std::size_t k = 0;
    for (std::size_t i = 0; i < polys.face_count(); ++i) {
        const auto face = polys.face(i);
        if (face.size() < 3) continue;
        ASSERT_LT(k, view->face_count()) << name;
        ASSERT_TRUE(vmap::face_corners(*view, k++, corners));
        const vmf::Side& side = ex.solid->sides[i];
        // Every mesh corner is a polygon vertex and every polygon vertex a mesh corner.
        for (const vmap::Corner& c : corners) {
            const Vec3 p = v3(pos[static_cast<std::size_t>(c.vertex)]);
            double best = INFINITY;
            Vec3 at;
            for (const Vec3& q : face) {
                if (distance(p, q) < best) {
                    best = distance(p, q);
                    at = q;
                }
            }
            ++f.vertices;
            note(best, 1e-3, f.vertices_off, f.max_vertex_err);
            const dmx::Vector2 t = uv[static_cast<std::size_t>(
                view->edge_vertex_data[static_cast<std::size_t>(c.half_edge)])];
            ++f.corners;
            note(std::max(std::abs(t.x - uv_of(at, side.uaxis)),
                          std::abs(t.y - uv_of(at, side.vaxis))),
                 1e-4, f.uvs_off, f.max_uv_err);
        }
        for (const Vec3& q : face) {
            double best = INFINITY;
            for (const vmap::Corner& c : corners) {
                best = std::min(best, distance(v3(pos[static_cast<std::size_t>(c.vertex)]), q));
            }
            note(best, 1e-3, f.vertices_off, f.max_vertex_err);
        }
    }
    EXPECT_EQ(k, view->face_count()) << name;
}

// Brushes of a VMF keyed by their rounded bounding box, for matching after a round trip that
// reorders them (func_detail moves into the world).
struct BrushKey {
    std::array<long long, 6> k;
    auto operator<=>(const BrushKey&) const = default;
};

BrushKey key_of(const BrushPolygons& p) {
    Aabb b;
    for (const Vec3& q : p.points) b.add(q);
    auto r = [](double x) { return std::llround(x * 4); };
    return {{r(b.mins.x), r(b.mins.y), r(b.mins.z), r(b.maxs.x), r(b.maxs.y), r(b.maxs.z)}};
}

struct PlaneSet {
    std::vector<Plane> planes;
    std::vector<std::string> materials;
    std::vector<std::vector<Vec3>> faces;
};

// The same plane over its face: every corner of the original face within 0.01 units of the
// returned plane, normals agreeing. (Comparing plane distances at the origin would magnify the
// float32 rounding of vertices on small faces far from the origin.)
bool same_over_face(const std::vector<Vec3>& face, const Plane& a, const Plane& b) {
    if (dot(a.normal, b.normal) < 0.999) return false;
    for (const Vec3& p : face) {
        if (std::abs(b.distance_to(p)) > 0.01) return false;
    }
    return true;
}

PlaneSet planes_of(const vmf::Solid& s, const BrushPolygons& polys) {
    PlaneSet out;
    for (std::size_t i = 0; i < s.sides.size(); ++i) {
        if (polys.face(i).size() < 3) continue;
        const auto pl = s.sides[i].plane();
        if (!pl) continue;
        bool dup = false;
        for (const Plane& q : out.planes) dup |= same_plane(q, *pl, 1e-6, 0.01);
        if (dup) continue;
        out.planes.push_back(*pl);
        out.materials.push_back(to_lower(s.sides[i].material));
        const auto f = polys.face(i);
        out.faces.emplace_back(f.begin(), f.end());
    }
    return out;
}

// Element classes and, per class, attribute names found in Hammer-saved corpus vmaps (the
// hand-written dmnet_vmaptest1_kv2.dmx is not one).
struct HammerNames {
    std::map<std::string, std::set<std::string>, std::less<>> attrs;

    HammerNames() {
        for (const auto& f : test::corpus_files("dmx", {".vmap", ".vmap.txt"})) {
            auto blob = Blob::map_file(f);
            if (!blob) continue;
            auto doc = dmx::read(blob->bytes());
            if (!doc || doc->header.format != "vmap") continue;
            for (const dmx::Element& e : doc->elements()) {
                auto& set = attrs[std::string(e.type.str())];
                for (const dmx::Attribute& a : e.attributes) set.insert(std::string(a.name.str()));
            }
        }
    }

    // "" if every class/attribute of `doc` is known, else the first unknown one. The attributes
    // of EditGameClassProps are the entities' keyvalues (game data, not schema).
    std::string unknown(const dmx::Document& doc) const {
        for (const dmx::Element& e : doc.elements()) {
            auto it = attrs.find(e.type.str());
            if (it == attrs.end()) return std::string(e.type.str());
            if (e.type == "EditGameClassProps") continue;
            for (const dmx::Attribute& a : e.attributes) {
                if (!it->second.count(std::string(a.name.str())))
                    return fmt::format("{}.{}", e.type.str(), a.name.str());
            }
        }
        return {};
    }
};

TEST(VmapConvertCorpus, VmfToVmapMatchesTheBrushes) {
    LK_REQUIRE_CORPUS();
    const auto files = vmf_files();
    ASSERT_FALSE(files.empty());
    Figures f;
    const HammerNames hammer;
    ASSERT_FALSE(hammer.attrs.empty());
    std::set<std::string> classes_written;
    std::size_t names_ok = 0, reread_bin = 0, reread_kv2 = 0, spent_same = 0, packed_same = 0,
                threaded_same = 0;
    std::size_t rt_maps = 0, rt_brushes = 0, rt_matched = 0, rt_planes = 0, rt_planes_ok = 0,
                rt_materials_ok = 0;
    for (const auto& path : files) {
        const std::string name = path.filename().string();
        auto blob = Blob::map_file(path);
        ASSERT_TRUE(blob.ok());
        const std::size_t blob_size = blob->bytes().size();
        auto doc = vmf::Document::read(std::move(blob).value());
        if (!doc) {
            // Not every corpus file is a VMF the reader accepts; the VMF tests cover those.
            continue;
        }
        const vmf::Map& m = doc->map();
        ++f.files;
        Diagnostics diags;
        const scene::Scene s = convert::vmf_to_scene(m, diags);
        convert::SceneToVmapReport rep;
        const dmx::Document out = convert::scene_to_vmap(s, diags, {}, &rep);
        auto map = vmap::Map::open(out);
        ASSERT_TRUE(map.ok()) << name;
        const std::string unknown = hammer.unknown(out);
        EXPECT_EQ(unknown, "") << name << ": not in any Hammer-saved vmap";
        names_ok += unknown.empty();
        for (const dmx::Element& e : out.elements())
            classes_written.insert(std::string(e.type.str()));
        // The written bytes read back to the same datamodel: binary 9 always, keyvalues2 4 for
        // the smaller maps (the text is 3x the size).
        {
            auto bytes = dmx::write(out);
            ASSERT_TRUE(bytes.ok()) << name;
            auto again = dmx::read(*bytes);
            ASSERT_TRUE(again.ok()) << name << ": " << again.error().to_string();
            EXPECT_EQ(dmx::compare_graphs(out, *again), std::nullopt) << name;
            ++reread_bin;
            // A scene given up to the conversion (freed as it goes) makes the same bytes.
            scene::Scene spent = s;
            Diagnostics d2;
            auto from_spent = dmx::write(convert::scene_to_vmap(std::move(spent), d2));
            ASSERT_TRUE(from_spent.ok()) << name;
            EXPECT_TRUE(*from_spent == *bytes) << name;
            // NOLINTNEXTLINE(bugprone-use-after-move): the conversion leaves it empty
            EXPECT_TRUE(spent.entities.empty() && spent.world.brushes.empty()) << name;
            spent_same += *from_spent == *bytes;
            // What the CLI does: the typed map and the scene given up in turn, each mesh and
            // leaf entity packed as it is made (by a second thread for a lone conversion; on
            // the converting thread in a batch), the document written with the packs.
            for (const bool on_thread : {false, true}) {
                vmf::Map given = m;
                Diagnostics d3;
                scene::Scene from_given = convert::vmf_to_scene(std::move(given), d3);
                // NOLINTNEXTLINE(bugprone-use-after-move): the conversion leaves it empty
                EXPECT_TRUE(given.entities.empty() && given.world.solids.empty()) << name;
                dmx::PackedSubtrees packs;
                packs.pack_on_thread(on_thread);
                convert::SceneToVmapOptions po;
                po.packed = &packs;
                const dmx::Document skeleton =
                    convert::scene_to_vmap(std::move(from_given), d3, po);
                auto packed = dmx::write(skeleton, packs);
                ASSERT_TRUE(packed.ok()) << name << ": " << packed.error().to_string();
                EXPECT_TRUE(*packed == *bytes) << name << (on_thread ? " (thread)" : "");
                // Each placeholder stands for its subtree's elements.
                std::size_t elements = skeleton.size() - packs.size();
                for (std::size_t i = 0; i < packs.size(); ++i) elements += packs.pack(i).elements;
                EXPECT_EQ(elements, out.size()) << name;
                (on_thread ? threaded_same : packed_same) += *packed == *bytes;
            }
            if (blob_size < (1u << 20)) {
                dmx::Document text = out.clone();
                ASSERT_TRUE(dmx::convert(text, {"keyvalues2", 4}).ok());
                auto kv2 = dmx::write(text);
                ASSERT_TRUE(kv2.ok()) << name;
                auto back = dmx::read(*kv2);
                ASSERT_TRUE(back.ok()) << name << ": " << back.error().to_string();
                EXPECT_EQ(dmx::compare_graphs(out, *back), std::nullopt) << name;
                ++reread_kv2;
            }
        }
        f.invalid_meshes += vmap::validate_meshes(*map).size();
        f.meshes += map->meshes.size();

        // Expected meshes in converter order: world brushes, then entities' (func_detail too).
        std::vector<Expected> expected;
        for (const vmf::Solid& so : m.world.solids) expected_meshes(so, expected, f);
        std::size_t entities = 0, outputs = 0;
        for (const vmf::Entity& e : m.entities) {
            const bool detail = iequals(e.classname(), "func_detail");
            const bool instance = iequals(e.classname(), "func_instance");
            if (!detail && !instance) {
                ++entities;
                outputs += e.connections.size();
            }
            if (!instance) {
                for (const vmf::Solid& so : e.solids) expected_meshes(so, expected, f);
            }
        }
        ASSERT_EQ(expected.size(), map->meshes.size()) << name;
        // Meshes in the order they were made (node order follows groups).
        std::vector<std::uint32_t> made = map->meshes;
        std::sort(made.begin(), made.end(), [&](std::uint32_t a, std::uint32_t b) {
            return map->nodes[a].element.index < map->nodes[b].element.index;
        });
        for (std::size_t i = 0; i < expected.size(); ++i) {
            check_mesh(*map, made[i], expected[i], f, name);
        }
        std::size_t conns = 0;
        for (std::uint32_t i : map->entities)
            conns += map->connections(map->nodes[i].element).size();
        f.entities += entities;
        f.entities_vmap += map->entities.size();
        f.outputs += outputs;
        f.outputs_vmap += conns;
        EXPECT_EQ(entities, map->entities.size()) << name;
        EXPECT_EQ(outputs, conns) << name;

        // Round trip of maps without displacements.
        bool has_disp = false;
        for (const Expected& e : expected) has_disp |= e.disp_side >= 0;
        if (has_disp) continue;
        ++rt_maps;
        const scene::Scene back_scene = convert::vmap_to_scene(*map, diags);
        const vmf::Map back = convert::scene_to_vmf(back_scene, diags);
        std::multimap<BrushKey, PlaneSet> got;
        BrushPolygons polys;
        auto collect = [&](const vmf::Entity& e) {
            for (const vmf::Solid& so : e.solids) {
                vmf::solid_polygons(so, polys);
                got.emplace(key_of(polys), planes_of(so, polys));
            }
        };
        collect(back.world);
        for (const vmf::Entity& e : back.entities) collect(e);
        for (const Expected& ex : expected) {
            ++rt_brushes;
            vmf::solid_polygons(*ex.solid, polys);
            const PlaneSet want = planes_of(*ex.solid, polys);
            auto [lo, hi] = got.equal_range(key_of(polys));
            const PlaneSet* best = nullptr;
            std::size_t best_ok = 0;
            // Coincident brushes (a trigger over a nodraw brush) share a box: best match wins.
            for (auto it = lo; it != hi; ++it) {
                std::size_t ok = 0;
                for (std::size_t i = 0; i < want.planes.size(); ++i) {
                    for (std::size_t j = 0; j < it->second.planes.size(); ++j) {
                        if (same_over_face(want.faces[i], want.planes[i], it->second.planes[j]))
                            ok += 1 + (want.materials[i] == it->second.materials[j]);
                    }
                }
                if (!best || ok > best_ok) {
                    best = &it->second;
                    best_ok = ok;
                }
            }
            if (!best) {
                ADD_FAILURE() << name << ": brush " << ex.solid->id << " did not come back";
                continue;
            }
            ++rt_matched;
            for (std::size_t i = 0; i < want.planes.size(); ++i) {
                ++rt_planes;
                for (std::size_t j = 0; j < best->planes.size(); ++j) {
                    if (same_over_face(want.faces[i], want.planes[i], best->planes[j])) {
                        ++rt_planes_ok;
                        rt_materials_ok += want.materials[i] == best->materials[j];
                        break;
                    }
                }
            }
        }
    }
    EXPECT_EQ(f.invalid_meshes, 0u);
    EXPECT_EQ(f.vertices_off, 0u);
    EXPECT_EQ(f.uvs_off, 0u);
    EXPECT_EQ(rt_planes, rt_planes_ok);
    EXPECT_EQ(rt_planes, rt_materials_ok);
    EXPECT_EQ(f.entities, f.entities_vmap);
    EXPECT_EQ(f.outputs, f.outputs_vmap);
    std::printf(
        "[vmf->vmap] %zu/%zu VMFs read: %zu meshes (%zu brush, %zu displacement), %zu invalid; "
        "%zu invalid brushes skipped\n",
        f.files, files.size(), f.meshes, f.brush_meshes, f.disp_meshes, f.invalid_meshes,
        f.skipped_brushes);
    std::printf(
        "[vmf->vmap] vertices: %zu checked, %zu off by > 0.001 (max %.6f); corner UVs: "
        "%zu checked, %zu off by > 1e-4 (max %.2e)\n",
        f.vertices, f.vertices_off, f.max_vertex_err, f.corners, f.uvs_off, f.max_uv_err);
    std::printf("[vmf->vmap] entities %zu -> %zu, outputs %zu -> %zu\n", f.entities,
                f.entities_vmap, f.outputs, f.outputs_vmap);
    std::printf(
        "[vmf->vmap->vmf] %zu maps without displacements: %zu/%zu brushes back, planes "
        "%zu/%zu within 0.01, materials %zu/%zu\n",
        rt_maps, rt_matched, rt_brushes, rt_planes_ok, rt_planes, rt_materials_ok, rt_planes);
    std::printf(
        "[vmf->vmap] written class/attribute names all in Hammer-saved vmaps: %zu/%zu "
        "maps (%zu classes: %s); re-read: binary 9 %zu, keyvalues2 4 %zu; from a spent scene: "
        "same bytes %zu/%zu; spent map and scene, packed: same bytes %zu/%zu, packed on a "
        "second thread: %zu/%zu\n",
        names_ok, f.files, classes_written.size(),
        fmt::format("{}", fmt::join(classes_written, " ")).c_str(), reread_bin, reread_kv2,
        spent_same, reread_bin, packed_same, reread_bin, threaded_same, reread_bin);
}

// A displacement's vertex grid in a VMF, with what identifies it.
struct DispGrid {
    std::int64_t solid = 0, side = 0;
    int power = 0;
    std::vector<Vec3> grid;
    std::vector<double> alphas;
    Plane plane;  // the displacement face's
};

std::vector<DispGrid> disp_grids(const vmf::Map& m, std::size_t* unusable = nullptr) {
    std::vector<DispGrid> out;
    BrushPolygons polys;
    auto walk = [&](const vmf::Entity& e) {
        for (const vmf::Solid& so : e.solids) {
            bool any = false;
            for (const vmf::Side& sd : so.sides) any |= static_cast<bool>(sd.disp);
            if (!any) continue;
            vmf::solid_polygons(so, polys);
            bool closed = true;
            for (const BrushFaceProblem& p : polys.problems) {
                closed &= p.problem == BrushProblem::duplicate_plane ||
                          p.problem == BrushProblem::side_no_face;
            }
            for (std::size_t i = 0; i < so.sides.size(); ++i) {
                const vmf::Side& sd = so.sides[i];
                if (!sd.disp) continue;
                auto grid = closed && i < polys.face_count()
                                ? vmf::displacement_grid(sd, polys.face(i))
                                : std::nullopt;
                // VMF -> VMAP writes powers 2..4 only (Hammer's range).
                if (!grid || sd.disp->power < 2) {
                    if (unusable) ++*unusable;
                    continue;
                }
                out.push_back({so.id, sd.id, sd.disp->power, std::move(*grid), sd.disp->alphas,
                               sd.plane().value_or(Plane{})});
            }
        }
    };
    walk(m.world);
    for (const vmf::Entity& e : m.entities) walk(e);
    return out;
}

TEST(VmapConvertCorpus, VmfToVmapToVmfKeepsDisplacements) {
    LK_REQUIRE_CORPUS();
    const auto files = vmf_files();
    ASSERT_FALSE(files.empty());
    std::size_t maps = 0, total = 0, unusable = 0, back = 0, same_power = 0, within = 0,
                alphas_ok = 0, extra = 0, invalid = 0, skipped_meshes = 0, same_face = 0;
    double max_err = 0;
    for (const auto& path : files) {
        const std::string name = path.filename().string();
        auto blob = Blob::map_file(path);
        ASSERT_TRUE(blob.ok());
        auto doc = vmf::Document::read(std::move(blob).value());
        if (!doc) continue;
        std::size_t file_unusable = 0;
        const std::vector<DispGrid> want = disp_grids(doc->map(), &file_unusable);
        if (want.empty() && file_unusable == 0) continue;
        ++maps;
        Diagnostics diags;
        const scene::Scene s = convert::vmf_to_scene(doc->map(), diags);
        const dmx::Document vmap_doc = convert::scene_to_vmap(s, diags);
        auto map = vmap::Map::open(vmap_doc);
        ASSERT_TRUE(map.ok()) << name;
        const scene::Scene back_scene = convert::vmap_to_scene(*map, diags);
        convert::SceneToVmfReport rep;
        const vmf::Map back_map = convert::scene_to_vmf(back_scene, diags, {}, &rep);
        // What a mapper gets: the written text, read again.
        auto reread = vmf::Document::read(vmf::write(back_map));
        ASSERT_TRUE(reread.ok()) << name << ": " << reread.error().to_string();
        Diagnostics problems;
        vmf::validate(reread->map(), problems);
        std::size_t file_invalid = 0;
        for (const Diagnostic& d : problems.items()) {
            if (d.severity == Severity::error) {
                ++file_invalid;
                ADD_FAILURE() << name << ": " << d.to_string();
            }
        }
        const std::vector<DispGrid> got = disp_grids(reread->map());
        // Match by start vertex (the converter keeps vertex 0 and the row direction).
        std::multimap<std::array<long long, 3>, std::size_t> by_start;
        auto key = [](const Vec3& p) {
            return std::array<long long, 3>{std::llround(p.x * 10), std::llround(p.y * 10),
                                            std::llround(p.z * 10)};
        };
        for (std::size_t i = 0; i < got.size(); ++i) by_start.emplace(key(got[i].grid[0]), i);
        std::vector<bool> used(got.size(), false);
        std::size_t f_back = 0, f_power = 0, f_within = 0, f_alpha = 0, f_face = 0;
        double f_max = 0;
        for (const DispGrid& w : want) {
            std::size_t best = SIZE_MAX;
            double best_err = INFINITY;
            // Neighbours in the rounding cell and next to it.
            for (int dx = -1; dx <= 1; ++dx) {
                for (int dy = -1; dy <= 1; ++dy) {
                    for (int dz = -1; dz <= 1; ++dz) {
                        auto k = key(w.grid[0]);
                        k[0] += dx;
                        k[1] += dy;
                        k[2] += dz;
                        auto [lo, hi] = by_start.equal_range(k);
                        for (auto it = lo; it != hi; ++it) {
                            const DispGrid& g = got[it->second];
                            if (used[it->second] || g.grid.size() != w.grid.size()) continue;
                            double err = 0;
                            for (std::size_t v = 0; v < g.grid.size(); ++v)
                                err = std::max(err, distance(g.grid[v], w.grid[v]));
                            if (err < best_err) {
                                best_err = err;
                                best = it->second;
                            }
                        }
                    }
                }
            }
            if (best == SIZE_MAX) {
                ADD_FAILURE() << name << ": displacement of side " << w.side << " (solid "
                              << w.solid << ") did not come back";
                continue;
            }
            used[best] = true;
            ++f_back;
            f_power += got[best].power == w.power;
            // Not required (a face raised at its corners along varying normals has no one
            // answer), but the converter finds the original face where the grid shows it.
            const Plane& gp = got[best].plane;
            f_face +=
                dot(gp.normal, w.plane.normal) > 0.9999 && std::abs(gp.dist - w.plane.dist) <= 0.01;
            f_max = std::max(f_max, best_err);
            if (best_err <= 0.01) {
                ++f_within;
            } else {
                ADD_FAILURE() << name << ": side " << w.side << " vertices off by " << best_err;
            }
            // Alphas: absent counts as zero on both sides.
            bool a_ok = true;
            for (std::size_t v = 0; v < w.grid.size(); ++v) {
                const double a = v < w.alphas.size() ? w.alphas[v] : 0;
                const double b = v < got[best].alphas.size() ? got[best].alphas[v] : 0;
                a_ok &= std::abs(a - b) <= 0.01;
            }
            f_alpha += a_ok;
        }
        const std::size_t f_extra = got.size() - f_back;
        std::printf(
            "[vmf->vmap->vmf disp] %s: %zu displacements (+%zu unusable in the VMF): %zu back, "
            "%zu same power, %zu within 0.01 (max %.5f), alphas %zu, same face plane %zu; %zu "
            "extra; %zu meshes skipped; %zu validate errors\n",
            name.c_str(), want.size(), file_unusable, f_back, f_power, f_within, f_max, f_alpha,
            f_face, f_extra, rep.meshes_skipped, file_invalid);
        EXPECT_EQ(rep.displacements_recovered, got.size()) << name;
        EXPECT_EQ(f_extra, 0u) << name;
        total += want.size();
        unusable += file_unusable;
        back += f_back;
        same_power += f_power;
        within += f_within;
        alphas_ok += f_alpha;
        same_face += f_face;
        extra += f_extra;
        invalid += file_invalid;
        skipped_meshes += rep.meshes_skipped;
        max_err = std::max(max_err, f_max);
    }
    EXPECT_EQ(back, total);
    EXPECT_EQ(same_power, total);
    EXPECT_EQ(within, total);
    EXPECT_EQ(alphas_ok, total);
    EXPECT_EQ(invalid, 0u);
    std::printf(
        "[vmf->vmap->vmf disp] %zu maps with displacements: %zu displacements (+%zu the VMAP "
        "writer skips: power < 2 or no valid face): %zu back as dispinfo, %zu same power, %zu "
        "within 0.01 (max %.5f), alphas %zu, same face plane %zu; %zu extra; %zu meshes "
        "skipped; %zu validate errors\n",
        maps, total, unusable, back, same_power, within, max_err, alphas_ok, same_face, extra,
        skipped_meshes, invalid);
}

// Vmaps saved by Hammer: every mesh comes back as a brush, as displacements or is reported.
TEST(VmapConvertCorpus, HammerVmapsToVmfAccountForEveryMesh) {
    LK_REQUIRE_CORPUS();
    std::size_t files = 0, meshes = 0, brushes = 0, disp_meshes = 0, disps = 0, skipped = 0,
                unreadable = 0;
    for (const auto& f : test::corpus_files("dmx", {".vmap", ".vmap.txt"})) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob.ok());
        auto doc = dmx::read(blob->bytes());
        if (!doc || doc->header.format != "vmap") continue;
        auto map = vmap::Map::open(*doc);
        if (!map) continue;
        ++files;
        Diagnostics diags;
        convert::VmapToSceneReport vr;
        const scene::Scene s = convert::vmap_to_scene(*map, diags, &vr);
        convert::SceneToVmfReport rep;
        (void)convert::scene_to_vmf(s, diags, {}, &rep);
        std::size_t scene_meshes = s.world.meshes.size();
        for (const scene::Entity& e : s.entities) scene_meshes += e.meshes.size();
        EXPECT_EQ(vr.meshes, scene_meshes + vr.unreadable_meshes.size()) << f.filename();
        // A mesh partly made of grids counts as a displacement mesh and, for what is left, as a
        // brush or a skipped mesh; none is counted nowhere.
        EXPECT_GE(rep.meshes_as_brushes + rep.displacement_meshes + rep.meshes_skipped,
                  scene_meshes)
            << f.filename();
        std::printf(
            "[vmap->vmf] %s: %zu meshes: %zu brushes, %zu displacement meshes (%zu "
            "displacements), %zu skipped, %zu unreadable\n",
            f.filename().string().c_str(), vr.meshes, rep.meshes_as_brushes,
            rep.displacement_meshes, rep.displacements_recovered, rep.meshes_skipped,
            vr.unreadable_meshes.size());
        meshes += vr.meshes;
        brushes += rep.meshes_as_brushes;
        disp_meshes += rep.displacement_meshes;
        disps += rep.displacements_recovered;
        skipped += rep.meshes_skipped;
        unreadable += vr.unreadable_meshes.size();
    }
    std::printf(
        "[vmap->vmf] %zu Hammer-saved vmaps: %zu meshes: %zu brushes, %zu displacement meshes "
        "(%zu displacements), %zu skipped and reported, %zu unreadable and reported\n",
        files, meshes, brushes, disp_meshes, disps, skipped, unreadable);
}

}  // namespace
