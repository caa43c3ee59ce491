// bsp_to_scene, entity half: the entity lump, brush entities, func_detail, areaportals,
// occluders, ladders, static props, overlays and cubemaps.
#include "levelkit/convert/bsp_scene.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "bsp_decompiler.hpp"
#include "levelkit/core/assignment.hpp"
#include "levelkit/core/text.hpp"

namespace lk::convert {

namespace detail {

namespace {

std::string num(double v) {
    return format_double(v);
}
std::string vec(const Vec3& v) {
    return fmt::format("{} {} {}", num(v.x), num(v.y), num(v.z));
}
bool is_detail(std::int32_t c) {
    return (c & contents::detail) && !(c & (contents::areaportal | contents::playerclip |
                                            contents::monsterclip | contents::ladder));
}

// Share of `poly`'s area inside the convex volume bounded by `planes` grown by `slack`.
double inside_share(std::span<const Vec3> poly, std::span<const Plane> planes, double slack) {
    const double area = winding_area(poly);
    if (area <= 0) return 0;
    Winding a(poly.begin(), poly.end()), b;
    for (const Plane& p : planes) {
        clip_winding_back(a, Plane{p.normal, p.dist + slack}, 0, b);
        std::swap(a, b);
        if (a.size() < 3) return 0;
    }
    return winding_area(a) / area;
}

struct UnionFind {
    std::vector<std::size_t> parent;
    explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
    std::size_t find(std::size_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    void unite(std::size_t a, std::size_t b) {
        a = find(a);
        b = find(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
};

}  // namespace

bool Decompiler::material_detail(std::uint32_t b) const {
    // Tool materials that only block light or sight (toolsblocklight, toolsblock_los) make
    // their brush detail and non-solid by themselves; such a brush, all nodraw, was a world
    // brush as likely as a func_detail and compiles the same either way, so it stays in the
    // world as Hammer's tool brushes usually are.
    using namespace contents;
    const bsp::dbrush_t& br = l_.brushes[b];
    if (br.contents & (solid | window | aux | grate | slime | water)) return false;
    if (br.firstside < 0 || br.numsides <= 0 ||
        std::uint64_t(br.firstside) + std::uint64_t(br.numsides) > l_.brushsides.size())
        return false;
    for (std::int64_t i = br.firstside; i < std::int64_t{br.firstside} + br.numsides; ++i) {
        const bsp::dbrushside_t& s = l_.brushsides[static_cast<std::size_t>(i)];
        if (s.bevel & 1) continue;
        if (s.texinfo < 0 || static_cast<std::size_t>(s.texinfo) >= l_.texinfo.size() ||
            !(l_.texinfo[static_cast<std::size_t>(s.texinfo)].flags & surf::nodraw))
            return false;
    }
    return true;
}

std::vector<Plane> Decompiler::brush_planes(std::uint32_t b) const {
    std::vector<Plane> out;
    for (std::uint32_t i = g_.brush_first[b]; i < g_.brush_first[b + 1]; ++i)
        out.push_back(g_.sides[i].plane);
    return out;
}

Result<scene::Scene> Decompiler::run() {
    LK_TRY(load());
    load_materials();
    assign_brushes_to_models();
    build_geometry();
    match_faces();
    study_textures();
    side_id_.assign(l_.brushsides.size(), 0);
    disp_side_id_.assign(l_.dispinfo.size(), 0);
    brush_solid_id_.assign(l_.brushes.size(), 0);
    scene::Scene s;
    s.source_format = "bsp";
    if (l_.entities.separator() != bsp::OutputSeparator::none)
        s.output_separator = l_.entities.separator() == bsp::OutputSeparator::esc ? '\x1b' : ',';
    entities(s);
    add_displacements(s.world.brushes);
    static_props(s);
    overlays(s);
    cubemaps(s);
    report_.lost.water_overlays = l_.water_overlays.size();
    report_.lost.detail_props = l_.detail_props.count();
    report_.lost.worldlights = l_.worldlights.size();
    report_.lost.visibility = bsp_.lump(bsp::LumpId::visibility).size() > 0;
    report_.lost.displacement_multiblend = multiblend_ ? l_.dispinfo.size() : 0;
    if (report_.lost.water_overlays) {
        warn("convert.water-overlays",
             fmt::format("{} water overlays (info_overlay_transition) are not rebuilt",
                         report_.lost.water_overlays));
    }
    report_losses();
    report_.recovered.world_brushes = s.world.brushes.size() - report_.recovered.displacements -
                                      (opt_.faces_mode ? report_.recovered.face_brushes : 0);
    return s;
}

void Decompiler::report_losses() {
    for (const std::uint32_t b : bad_brush_sides_) {
        const bsp::dbrush_t& br = l_.brushes[b];
        BspToSceneReport::LostSide lost;
        lost.brush = b;
        lost.reason = fmt::format("its sides [{}, {}+{}) lie outside the brush side lump",
                                  br.firstside, br.firstside, br.numsides);
        lost_sides_.push_back(std::move(lost));
    }
    if (!opt_.faces_mode) {
        // Sides of brushes no entity took (a model no entity names).
        for (std::uint32_t b = 0; b < l_.brushes.size(); ++b) {
            if (brush_solid_id_[b]) continue;
            for (std::uint32_t i = g_.brush_first[b]; i < g_.brush_first[b + 1]; ++i) {
                const std::uint32_t si = g_.sides[i].brushside;
                if (si == kSyntheticSide || g_.side_fate[si] != SideFate::kept) continue;
                lose_side(b, si,
                          brush_model_[b] > 0
                              ? fmt::format("its model *{} belongs to no entity", brush_model_[b])
                              : std::string("no entity took the brush"));
            }
        }
    }
    for (std::uint32_t b = 0; b < l_.brushes.size(); ++b) {
        const bsp::dbrush_t& br = l_.brushes[b];
        if (br.firstside < 0 || br.numsides < 0 ||
            std::uint64_t(br.firstside) + std::uint64_t(br.numsides) > l_.brushsides.size())
            continue;
        for (std::int64_t si = br.firstside; si < std::int64_t{br.firstside} + br.numsides; ++si) {
            const SideFate f = g_.side_fate[static_cast<std::size_t>(si)];
            report_.skipped.bevel_sides += f == SideFate::bevel;
            report_.skipped.redundant_sides += f == SideFate::redundant;
        }
    }
    // One error per lost side: a real part of the source map is missing from the output.
    constexpr std::size_t kMaxErrors = 100;
    for (std::size_t i = 0; i < lost_sides_.size(); ++i) {
        BspToSceneReport::LostSide& lost = lost_sides_[i];
        if (lost.brush >= 0) lost.solid_id = brush_solid_id_[static_cast<std::size_t>(lost.brush)];
        if (i == kMaxErrors) {
            diags_.add(
                Diagnostic::error("convert.side-lost",
                                  fmt::format("{} more sides are lost (the report lists them all)",
                                              lost_sides_.size() - kMaxErrors)));
        }
        if (i >= kMaxErrors) continue;
        std::string where, path;
        if (lost.dispinfo >= 0) {
            where = fmt::format("displacement {}", lost.dispinfo);
            path = fmt::format("lump[26]/record[{}]", lost.dispinfo);
        } else {
            where = lost.solid_id ? fmt::format("brush {} (solid {})", lost.brush, lost.solid_id)
                                  : fmt::format("brush {}", lost.brush);
            if (lost.brush_side >= 0) where += fmt::format(", brush side {}", lost.brush_side);
            path = lost.brush_side >= 0 ? fmt::format("lump[19]/record[{}]", lost.brush_side)
                                        : fmt::format("lump[18]/record[{}]", lost.brush);
        }
        diags_.add(Diagnostic::error("convert.side-lost",
                                     fmt::format("{}: a side is lost: {}", where, lost.reason))
                       .with_path(std::move(path)));
    }
    report_.lost.dropped_sides = lost_sides_.size();
    report_.lost_sides = lost_sides_;
}

void Decompiler::entities(scene::Scene& s) {
    const std::vector<kv::Node> ents = l_.entities.entities();
    std::int64_t max_id = 0;
    for (const kv::Node& e : ents) {
        if (auto id = parse_int(trim(e.get("hammerid")))) max_id = std::max(max_id, *id);
    }
    // Entity ids come from hammerid; brushes get ids above them (Hammer shares one counter).
    next_solid_id_ = max_id + 1;

    std::vector<std::uint32_t> world, detail, portals, unowned;
    if (!opt_.faces_mode) {
        for (std::uint32_t b = 0; b < l_.brushes.size(); ++b) {
            const std::int32_t c = l_.brushes[b].contents;
            if (brush_model_[b] < 0) {
                unowned.push_back(b);
            } else if (brush_model_[b] == 0) {
                if (c & contents::areaportal) {
                    portals.push_back(b);
                } else if (is_detail(c) && !material_detail(b)) {
                    detail.push_back(b);
                } else {
                    world.push_back(b);
                }
            }
        }
    }

    std::size_t entity_index = 0;
    for (const kv::Node& node : ents) {
        const std::size_t entity_index_here = entity_index++;
        scene::Entity e;
        const std::string_view cls = node.get("classname");
        const bool has_hammerid = !node.get("hammerid").empty();
        if (iequals(cls, "worldspawn")) {
            for (const kv::Node& kv : node) {
                // Compile results, recomputed by vbsp.
                if (iequals(kv.key(), "world_mins") || iequals(kv.key(), "world_maxs") ||
                    iequals(kv.key(), "hammerid"))
                    continue;
                if (iequals(kv.key(), "mapversion")) {
                    s.metadata.push_back({"mapversion", std::string(kv.value())});
                }
                s.world.keys.push_back({std::string(kv.key()), std::string(kv.value())});
            }
            continue;
        }
        // vbsp keeps a named overlay's name and id in an accessor entity; the overlay itself
        // is rebuilt from the overlay lump.
        if (iequals(cls, "info_overlay_accessor")) {
            if (auto oid = parse_int(trim(node.get("OverlayID")))) {
                overlay_names_[*oid] = {std::string(node.get("targetname")),
                                        parse_int(trim(node.get("hammerid"))).value_or(0)};
            }
            continue;
        }
        // Made by vbsp itself (no hammerid); the next compile makes it again.
        if (!has_hammerid && iequals(cls, "water_lod_control")) {
            ++report_.lost.compiler_entities;
            continue;
        }
        int model = -1;
        for (const kv::Node& kv : node) {
            const std::string_view k = kv.key(), v = kv.value();
            if (iequals(k, "hammerid")) {
                if (auto id = parse_int(trim(v))) {
                    e.id = *id;
                    continue;
                }
            }
            if (iequals(k, "model") && v.size() > 1 && v[0] == '*') {
                auto m = parse_int(v.substr(1));
                if (m && *m > 0 && static_cast<std::size_t>(*m) < l_.models.size()) {
                    model = static_cast<int>(*m);
                    continue;
                }
            }
            if (auto o = bsp::EntityLump::parse_output(k, v)) {
                e.outputs.push_back(scene_output(
                    *o, v, fmt::format("lump[0]/entity[{}]/{}", entity_index_here, k), diags_));
                ++report_.recovered.outputs;
                continue;
            }
            e.keys.push_back({std::string(k), std::string(v)});
        }
        if (iequals(cls, "info_ladder")) {
            // vbsp turns func_ladder into a box entity and moves the brush into the world.
            Aabb box;
            bool ok = true;
            for (int i = 0; i < 3 && ok; ++i) {
                const char axis = "xyz"[i];
                auto lo = parse_double(trim(e.get(fmt::format("mins.{}", axis))));
                auto hi = parse_double(trim(e.get(fmt::format("maxs.{}", axis))));
                ok = lo && hi;
                if (ok) {
                    box.mins[i] = *lo;
                    box.maxs[i] = *hi;
                }
            }
            if (ok) ladders_.push_back({s.entities.size(), box});
        }
        if (model > 0) {
            const Vec3 origin = e.origin().value_or(Vec3{});
            const std::size_t before = e.brushes.size();
            if (opt_.faces_mode) {
                add_face_brushes(model, origin, e.brushes);
            } else {
                for (std::uint32_t b = 0; b < l_.brushes.size(); ++b) {
                    if (brush_model_[b] != model) continue;
                    if (auto br = make_brush(b, origin)) e.brushes.push_back(std::move(*br));
                }
                report_.recovered.entity_brushes += e.brushes.size() - before;
            }
            ++report_.recovered.brush_entities;
        }
        ++report_.recovered.entities;
        s.entities.push_back(std::move(e));
    }

    if (opt_.faces_mode) {
        add_face_brushes(0, {}, s.world.brushes);
        return;
    }
    attach_ladders(s, world);
    for (const std::uint32_t b : world) {
        if (auto br = make_brush(b, {})) s.world.brushes.push_back(std::move(*br));
    }
    detail_entities(s, detail);
    attach_areaportals(s, std::move(portals));
    attach_occluders(s, unowned);
}

void Decompiler::attach_ladders(scene::Scene& s, std::vector<std::uint32_t>& world) {
    auto is_ladder = [&](std::uint32_t b) {
        return (l_.brushes[b].contents & contents::ladder) != 0 && !g_.bounds[b].empty();
    };
    // vbsp moves a func_ladder's brushes into the world and leaves an info_ladder with their
    // bounds (printed with two decimals): the ladder brushes inside those bounds are its own.
    for (const auto& ladder : ladders_) {
        // Not a structured binding: lambdas may not capture those before C++20 P1091 (clang 15).
        const Aabb& box = ladder.second;
        scene::Entity& e = s.entities[ladder.first];
        constexpr double kSlack = 0.02;
        std::erase_if(world, [&](std::uint32_t b) {
            if (!is_ladder(b)) return false;
            const Aabb& bb = g_.bounds[b];
            for (int k = 0; k < 3; ++k) {
                if (bb.mins[k] < box.mins[k] - kSlack || bb.maxs[k] > box.maxs[k] + kSlack)
                    return false;
            }
            if (auto br = make_brush(b, {})) {
                e.brushes.push_back(std::move(*br));
                ++report_.recovered.ladder_brushes;
            }
            return true;
        });
        // One that finds no brushes (a copy of another, an edited entity lump) stays as it is.
        if (e.brushes.empty()) continue;
        for (const char* k : {"mins.x", "mins.y", "mins.z", "maxs.x", "maxs.y", "maxs.z"})
            e.erase(k);
        e.set("classname", "func_ladder");
        ++report_.recovered.ladders;
    }
    if (!ladders_.empty()) return;
    // No info_ladder at all: a compiler that keeps no trace of func_ladder. The engine climbs
    // any brush with ladder contents; a func_ladder gives a recompile those contents whatever
    // its materials say, a world brush only if the material of its first side does.
    std::erase_if(world, [&](std::uint32_t b) {
        if (!is_ladder(b)) return false;
        auto br = make_brush(b, {});
        if (!br) return true;
        scene::Entity e;
        e.set("classname", "func_ladder");
        e.brushes.push_back(std::move(*br));
        s.entities.push_back(std::move(e));
        ++report_.recovered.ladder_brushes;
        ++report_.recovered.ladders;
        return true;
    });
}

std::vector<std::uint32_t> Decompiler::detail_runs(const std::vector<std::uint32_t>& detail) const {
    // vbsp appends each func_detail's brushes to the world's in entity order, so an entity's
    // brushes are consecutive in the lump; where one entity ends is not written down. It
    // certainly ends where another moved entity's brush (an areaportal, a ladder) comes in
    // between, and where planes were made between two brushes (vbsp makes planes as it reads
    // the sides, in file order): another entity's brushes were read in between.
    std::vector<std::uint32_t> run(detail.size(), 0);
    std::vector<std::uint8_t> is_detail_brush(l_.brushes.size(), 0);
    for (const std::uint32_t b : detail) is_detail_brush[b] = 1;
    std::int64_t seen = -1;  // highest plane pair any earlier brush uses
    std::uint32_t current = 0;
    bool interrupted = false, started = false;
    std::size_t k = 0;
    for (std::uint32_t b = 0; b < l_.brushes.size() && k < detail.size(); ++b) {
        const bsp::dbrush_t& br = l_.brushes[b];
        std::int64_t lowest_new = INT64_MAX, highest = -1;
        if (br.firstside >= 0 && br.numsides >= 0 &&
            std::uint64_t(br.firstside) + std::uint64_t(br.numsides) <= l_.brushsides.size()) {
            for (std::int64_t i = br.firstside; i < std::int64_t{br.firstside} + br.numsides; ++i) {
                const std::int64_t pair = l_.brushsides[static_cast<std::size_t>(i)].planenum >> 1;
                highest = std::max(highest, pair);
                if (pair > seen) lowest_new = std::min(lowest_new, pair);
            }
        }
        if (is_detail_brush[b]) {
            const bool gap = lowest_new != INT64_MAX && lowest_new > seen + 1;
            if (started && (interrupted || gap)) ++current;
            started = true;
            interrupted = false;
            run[k++] = current;
        } else if (started && brush_model_[b] == 0) {
            interrupted = true;
        }
        seen = std::max(seen, highest);
    }
    return run;
}

void Decompiler::detail_entities(scene::Scene& s, const std::vector<std::uint32_t>& detail) {
    std::vector<scene::Brush> built;
    std::vector<Aabb> boxes;
    std::vector<std::uint32_t> built_run;
    const std::vector<std::uint32_t> runs = detail_runs(detail);
    for (std::size_t i = 0; i < detail.size(); ++i) {
        if (auto br = make_brush(detail[i], {})) {
            built.push_back(std::move(*br));
            boxes.push_back(g_.bounds[detail[i]]);
            built_run.push_back(runs[i]);
        }
    }
    report_.recovered.detail_brushes = built.size();
    UnionFind groups(built.size());
    if (opt_.merge_detail) {
        // Brushes of one run that touch become one entity. Sweep along x: only boxes whose x
        // ranges overlap can touch.
        std::vector<std::size_t> order(built.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return boxes[a].mins.x < boxes[b].mins.x; });
        constexpr double kTouch = 0.01;
        for (std::size_t i = 0; i < order.size(); ++i) {
            const Aabb& a = boxes[order[i]];
            for (std::size_t j = i + 1; j < order.size(); ++j) {
                const Aabb& b = boxes[order[j]];
                if (b.mins.x > a.maxs.x + kTouch) break;
                if (built_run[order[i]] == built_run[order[j]] && a.overlaps(b, kTouch))
                    groups.unite(order[i], order[j]);
            }
        }
    }
    std::map<std::size_t, std::size_t> entity_of;  // group root -> index in s.entities
    for (std::size_t i = 0; i < built.size(); ++i) {
        const std::size_t root = groups.find(i);
        auto [it, fresh] = entity_of.emplace(root, s.entities.size());
        if (fresh) {
            scene::Entity e;
            e.set("classname", "func_detail");
            s.entities.push_back(std::move(e));
            ++report_.recovered.func_detail;
        }
        s.entities[it->second].brushes.push_back(std::move(built[i]));
    }
}

void Decompiler::attach_areaportals(scene::Scene& s, std::vector<std::uint32_t> brushes) {
    struct Portal {
        std::size_t entity = 0;
        std::int64_t number = 0;
    };
    std::vector<Portal> portals;
    for (std::size_t i = 0; i < s.entities.size(); ++i) {
        const scene::Entity& e = s.entities[i];
        if (!iequals(e.classname(), "func_areaportal") &&
            !iequals(e.classname(), "func_areaportalwindow"))
            continue;
        if (auto n = parse_int(trim(e.get("portalnumber")))) portals.push_back({i, *n});
    }
    std::stable_sort(portals.begin(), portals.end(),
                     [](const Portal& a, const Portal& b) { return a.number < b.number; });
    const std::size_t np = portals.size(), nb = brushes.size();
    std::vector<int> assigned(np, -1);
    if (np && nb) {
        // Score: how much of the compiled portal polygons lies in the brush. vbsp numbers the
        // portals in the order it moves their brushes into the world, which breaks ties.
        std::vector<double> cost(np * nb, 0);
        Winding poly;
        for (std::size_t b = 0; b < nb; ++b) {
            const std::vector<Plane> planes = brush_planes(brushes[b]);
            for (std::size_t p = 0; p < np; ++p) {
                double best = 0;
                for (const bsp::dareaportal_t& ap : l_.areaportals) {
                    if (static_cast<std::int64_t>(ap.m_PortalKey) != portals[p].number) continue;
                    const std::uint64_t end =
                        std::uint64_t{ap.m_FirstClipPortalVert} + ap.m_nClipPortalVerts;
                    if (ap.m_nClipPortalVerts < 3 || end > l_.clipportalverts.size()) continue;
                    poly.clear();
                    for (std::uint64_t k = ap.m_FirstClipPortalVert; k < end; ++k)
                        poly.push_back(l_.clipportalverts[k].to_vec3());
                    best = std::max(best, inside_share(poly, planes, 1.0));
                }
                cost[p * nb + b] = -(best + (p == b ? 1e-3 : 0));
            }
        }
        assigned = min_cost_assignment(cost, np, nb);
    }
    std::vector<std::uint8_t> used(nb, 0);
    for (std::size_t p = 0; p < np; ++p) {
        scene::Entity& e = s.entities[portals[p].entity];
        const int b = assigned[p];
        if (b < 0) {
            ++report_.lost.areaportals_unmatched;
            continue;
        }
        used[static_cast<std::size_t>(b)] = 1;
        if (auto br = make_brush(brushes[static_cast<std::size_t>(b)], {})) {
            e.brushes.push_back(std::move(*br));
            e.erase("portalnumber");
            ++report_.recovered.areaportals;
            ++report_.recovered.areaportal_brushes;
        }
    }
    // Portal brushes no entity claimed still close off areas: give each its own entity.
    for (std::size_t b = 0; b < nb; ++b) {
        if (used[b]) continue;
        auto br = make_brush(brushes[b], {});
        if (!br) continue;
        scene::Entity e;
        e.set("classname", "func_areaportal");
        e.set("StartOpen", "1");
        e.set("PortalVersion", "1");
        e.brushes.push_back(std::move(*br));
        s.entities.push_back(std::move(e));
        ++report_.recovered.areaportal_brushes;
        ++report_.lost.areaportals_unmatched;
    }
}

void Decompiler::attach_occluders(scene::Scene& s, const std::vector<std::uint32_t>& brushes) {
    // func_occluder brushes belong to no model; the occlusion lump keeps their visible faces.
    struct Occluder {
        std::size_t entity = 0;
        std::vector<Winding> polys;
    };
    std::vector<Occluder> occ;
    for (std::size_t i = 0; i < s.entities.size(); ++i) {
        const scene::Entity& e = s.entities[i];
        if (!iequals(e.classname(), "func_occluder")) continue;
        const auto n = parse_int(trim(e.get("occludernumber")));
        if (!n || *n < 0 || static_cast<std::size_t>(*n) >= l_.occlusion.occluders.size()) {
            ++report_.lost.occluders_unmatched;
            continue;
        }
        Occluder o{i, {}};
        const bsp::doccluderdata_t& d = l_.occlusion.occluders[static_cast<std::size_t>(*n)];
        for (std::int64_t p = d.firstpoly; p >= 0 && p < std::int64_t{d.firstpoly} + d.polycount &&
                                           static_cast<std::size_t>(p) < l_.occlusion.polys.size();
             ++p) {
            const bsp::doccluderpolydata_t& pd = l_.occlusion.polys[static_cast<std::size_t>(p)];
            Winding w;
            for (std::int64_t k = pd.firstvertexindex;
                 k >= 0 && k < std::int64_t{pd.firstvertexindex} + pd.vertexcount &&
                 static_cast<std::size_t>(k) < l_.occlusion.vertex_indices.size();
                 ++k) {
                const std::int32_t v = l_.occlusion.vertex_indices[static_cast<std::size_t>(k)];
                if (v >= 0 && static_cast<std::size_t>(v) < l_.vertexes.size())
                    w.push_back(l_.vertexes[static_cast<std::size_t>(v)].to_vec3());
            }
            if (w.size() >= 3) o.polys.push_back(std::move(w));
        }
        occ.push_back(std::move(o));
    }
    std::vector<std::uint8_t> claimed(s.entities.size(), 0);
    for (const std::uint32_t b : brushes) {
        const std::vector<Plane> planes = brush_planes(b);
        double best = 0;
        std::size_t which = 0;
        for (std::size_t o = 0; o < occ.size(); ++o) {
            double score = 0;
            for (const Winding& w : occ[o].polys) score += inside_share(w, planes, 1.0);
            if (score > best) {
                best = score;
                which = o;
            }
        }
        if (best <= 0) {
            // No occluder claims it: keep it as a world brush rather than lose it.
            if (auto br = make_brush(b, {})) s.world.brushes.push_back(std::move(*br));
            ++report_.lost.unowned_brushes;
            continue;
        }
        // Sides an occluder polygon lies on render as occluders; the rest were nodraw.
        const std::uint32_t first = g_.brush_first[b], last = g_.brush_first[b + 1];
        std::vector<std::uint8_t> marks(last - first, 0);
        for (std::uint32_t i = first; i < last; ++i) {
            const SideGeo& sg = g_.sides[i];
            for (const Winding& w : occ[which].polys) {
                if (convex_overlap_area(w, g_.polygon(sg), 0.01) > 0.01 &&
                    std::abs(sg.plane.distance_to(winding_center(w))) < 0.1)
                    marks[i - first] = 1;
            }
        }
        if (auto br = make_brush(b, {}, &marks)) {
            scene::Entity& e = s.entities[occ[which].entity];
            e.brushes.push_back(std::move(*br));
            ++report_.recovered.occluder_brushes;
            if (!claimed[occ[which].entity]) {
                claimed[occ[which].entity] = 1;
                e.erase("occludernumber");
                ++report_.recovered.occluders;
            }
        }
    }
    for (const Occluder& o : occ) report_.lost.occluders_unmatched += !claimed[o.entity];
}

void Decompiler::static_props(scene::Scene& s) {
    const bsp::StaticProps& sp = l_.static_props;
    if (!opt_.static_props) {
        report_.lost.static_props_skipped = sp.props.size();
        return;
    }
    using L = bsp::StaticPropLayout;
    const L lay = sp.layout;
    const bool lightmap = lay == L::v7_lightmap || lay == L::v10_lightmap;
    const bool csgo = lay == L::v10 || lay == L::v11;
    // Lighting origins point at info_lighting entities by position.
    std::vector<std::pair<Vec3, std::string>> lighting;
    for (const scene::Entity& e : s.entities) {
        if (!iequals(e.classname(), "info_lighting")) continue;
        if (auto o = e.origin()) lighting.emplace_back(*o, std::string(e.get("targetname")));
    }
    std::size_t new_lighting = 0;
    for (std::size_t i = 0; i < sp.props.size(); ++i) {
        const bsp::StaticPropLump_t& p = sp.props[i];
        if (p.m_PropType >= sp.dict.size()) {
            ++report_.lost.static_props_skipped;
            warn("convert.bad-static-prop",
                 fmt::format("static prop {} names model {} of {}; left out", i, p.m_PropType,
                             sp.dict.size()));
            continue;
        }
        scene::Entity e;
        auto set = [&](std::string_view k, std::string v) {
            e.keys.push_back({std::string(k), v});
        };
        auto flag = [&](std::string_view k, bool v) { set(k, v ? "1" : "0"); };
        set("classname", "prop_static");
        set("origin", vec(tidy(p.m_Origin)));
        set("angles", vec(tidy(p.m_Angles)));
        set("model", std::string(sp.model_name(p.m_PropType)));
        set("skin", std::to_string(p.m_Skin));
        set("solid", std::to_string(p.m_Solid));
        const std::uint32_t flags = lightmap ? p.m_Flags2013 : p.m_Flags;
        set("fademindist",
            num(p.m_FadeMinDist > 0 || p.m_FadeMaxDist > 0 ? tidy(p.m_FadeMinDist) : -1.0));
        set("fademaxdist", num(tidy(p.m_FadeMaxDist)));
        if (lay != L::v4) set("fadescale", num(tidy(p.m_flForcedFadeScale)));
        flag("disableshadows", flags & 0x10);
        flag("ignorenormals", flags & 0x8);
        flag(csgo ? "drawinfastreflection" : "screenspacefade", flags & 0x20);
        flag("disablevertexlighting", flags & 0x40);
        flag("disableselfshadowing", flags & 0x80);
        if (lay == L::v6 || lay == L::v7 || lightmap) {
            set("mindxlevel", std::to_string(p.m_nMinDXLevel));
            set("maxdxlevel", std::to_string(p.m_nMaxDXLevel));
        }
        if (lay == L::v8 || lay == L::v9 || csgo || lay == L::v12_strata || lay == L::v13_strata) {
            set("mincpulevel", std::to_string(p.m_nMinCPULevel));
            set("maxcpulevel", std::to_string(p.m_nMaxCPULevel));
            set("mingpulevel", std::to_string(p.m_nMinGPULevel));
            set("maxgpulevel", std::to_string(p.m_nMaxGPULevel));
        }
        if (lay == L::v7 || lay == L::v8 || lay == L::v9 || csgo || lay == L::v11_mesa ||
            lay == L::v12_strata || lay == L::v13_strata) {
            const auto& c = p.m_DiffuseModulation;
            set("rendercolor", fmt::format("{} {} {}", c[0], c[1], c[2]));
            set("renderamt", std::to_string(c[3]));
        }
        if (lay == L::v9 || csgo) set("disableX360", std::to_string(p.m_bDisableX360));
        if (csgo || lay == L::v11_mesa || lay == L::v12_strata || lay == L::v13_strata) {
            flag("disableshadowdepth", p.m_FlagsEx & 0x1);
            flag("enablelightbounce", p.m_FlagsEx & 0x4);
        }
        if (lightmap) {
            flag("generatelightmaps", !(flags & 0x100));
            set("lightmapresolutionx", std::to_string(p.m_nLightmapResolutionX));
            set("lightmapresolutiony", std::to_string(p.m_nLightmapResolutionY));
        }
        if (lay == L::v11 || lay == L::v12_strata) set("uniformscale", num(tidy(p.m_flScale[0])));
        if (lay == L::v13_strata) {
            set("modelscale", fmt::format("{} {} {}", num(tidy(p.m_flScale[0])),
                                          num(tidy(p.m_flScale[1])), num(tidy(p.m_flScale[2]))));
        }
        if (lay == L::v5_ship) {
            const std::size_t len = strnlen(p.m_TargetName, sizeof p.m_TargetName);
            if (len) set("targetname", std::string(p.m_TargetName, len));
        }
        if (flags & 0x2) {
            const Vec3 at = tidy(p.m_LightingOrigin);
            auto it = std::find_if(lighting.begin(), lighting.end(),
                                   [&](const auto& l) { return near(l.first, at, 0.01); });
            if (it == lighting.end() || it->second.empty()) {
                std::string name = fmt::format("lighting_origin_{}", ++new_lighting);
                scene::Entity info;
                info.set("classname", "info_lighting");
                info.set("targetname", name);
                info.set("origin", vec(at));
                lighting.emplace_back(at, name);
                s.entities.push_back(std::move(info));
                ++report_.recovered.lighting_origins;
                it = lighting.end() - 1;
            }
            set("lightingorigin", it->second);
        }
        s.entities.push_back(std::move(e));
        ++report_.recovered.static_props;
    }
}

namespace {

// One overlay whichever lump layout held it.
struct OverlayIn {
    std::int64_t id = 0;
    std::int64_t texinfo = -1;
    std::vector<std::int64_t> faces;
    std::uint32_t render_order = 0;
    float u[2] = {0, 0}, v[2] = {0, 0};
    Vec3 uv[4];  // corner handles (z unused)
    Vec3 basis_u, origin, normal;
    bool v_flipped = false;
};

std::vector<OverlayIn> read_overlays(const bsp::MapData& l) {
    std::vector<OverlayIn> out;
    for (const bsp::doverlay_t& o : l.overlays) {
        OverlayIn in;
        in.id = o.nId;
        in.texinfo = o.nTexInfo;
        const std::uint32_t nf = std::min<std::uint32_t>(o.GetFaceCount(), 64);
        in.faces.assign(o.aFaces, o.aFaces + nf);
        in.render_order = o.GetRenderOrder();
        std::copy(std::begin(o.flU), std::end(o.flU), in.u);
        std::copy(std::begin(o.flV), std::end(o.flV), in.v);
        for (int k = 0; k < 4; ++k) in.uv[k] = {o.vecUVPoints[k].x, o.vecUVPoints[k].y, 0};
        // Before Strata v3 the handles' z values carry basis U, and the fourth's flips V.
        in.basis_u = {o.vecUVPoints[0].z, o.vecUVPoints[1].z, o.vecUVPoints[2].z};
        in.v_flipped = o.vecUVPoints[3].z == 1;
        in.origin = o.vecOrigin.to_vec3();
        in.normal = o.vecBasisNormal.to_vec3();
        out.push_back(std::move(in));
    }
    const bsp::StrataOverlays& so = l.strata_overlays;
    for (const bsp::doverlay_v3_t& o : so.overlays) {
        OverlayIn in;
        in.id = o.nId;
        in.texinfo = o.nTexInfo;
        const std::int64_t first = o.faceOffset, n = o.faceCount;
        if (first >= 0 && n >= 0 && std::uint64_t(first) + std::uint64_t(n) <= so.faces.size())
            in.faces.assign(so.faces.begin() + first, so.faces.begin() + first + n);
        in.render_order = o.renderOrder;
        std::copy(std::begin(o.flU), std::end(o.flU), in.u);
        std::copy(std::begin(o.flV), std::end(o.flV), in.v);
        for (int k = 0; k < 4; ++k) in.uv[k] = {o.uv[k][0], o.uv[k][1], 0};
        in.basis_u = o.basisU.to_vec3();
        in.v_flipped = (o.flags & bsp::doverlay_v3_t::kBasisVFlipped) != 0;
        in.origin = o.origin.to_vec3();
        in.normal = o.basisNormal.to_vec3();
        out.push_back(std::move(in));
    }
    return out;
}

}  // namespace

void Decompiler::overlays(scene::Scene& s) {
    const std::vector<OverlayIn> list = read_overlays(l_);
    if (!opt_.overlays) {
        report_.lost.overlays_skipped = list.size();
        return;
    }
    constexpr double kLimit = 1 << 17;  // Hammer hangs on overlays far outside the map
    auto huge = [&](const Vec3& v) {
        return !(std::abs(v.x) < kLimit && std::abs(v.y) < kLimit && std::abs(v.z) < kLimit);
    };
    for (std::size_t i = 0; i < list.size(); ++i) {
        const OverlayIn& o = list[i];
        const Vec3 origin = tidy(o.origin);
        bool bad = huge(origin);
        for (const Vec3& p : o.uv) bad |= huge(p);
        if (bad) {
            ++report_.lost.overlays_skipped;
            warn("convert.overlay-skipped",
                 fmt::format("overlay {} lies outside the map and is left out", i));
            continue;
        }
        // Sides: each face the overlay was cut onto, back to the brush sides it came from.
        std::vector<std::int64_t> sides;
        for (const std::int64_t f : o.faces) {
            if (f < 0 || static_cast<std::uint64_t>(f) >= l_.faces.size()) continue;
            const bsp::dface_t& face = l_.faces[static_cast<std::size_t>(f)];
            if (face.dispinfo >= 0) {
                if (static_cast<std::size_t>(face.dispinfo) < disp_side_id_.size() &&
                    disp_side_id_[static_cast<std::size_t>(face.dispinfo)])
                    sides.push_back(disp_side_id_[static_cast<std::size_t>(face.dispinfo)]);
            } else if (opt_.faces_mode) {
                if (static_cast<std::size_t>(f) < face_side_id_.size() &&
                    face_side_id_[static_cast<std::size_t>(f)])
                    sides.push_back(face_side_id_[static_cast<std::size_t>(f)]);
            } else {
                for (const std::uint32_t bs : g_.face_sides[static_cast<std::size_t>(f)]) {
                    if (side_id_[bs]) sides.push_back(side_id_[bs]);
                }
            }
        }
        std::sort(sides.begin(), sides.end());
        sides.erase(std::unique(sides.begin(), sides.end()), sides.end());
        if (sides.empty()) ++report_.lost.overlay_sides_unmapped;
        std::string side_list;
        for (const std::int64_t id : sides) {
            if (!side_list.empty()) side_list += ' ';
            side_list += std::to_string(id);
        }
        const Vec3 normal = tidy(o.normal);
        const Vec3 basis_u = tidy(o.basis_u);
        Vec3 basis_v = normalize(cross(normal, basis_u));
        if (o.v_flipped) basis_v = -basis_v;
        std::string material = "TOOLS/TOOLSNODRAW";
        if (o.texinfo >= 0 && static_cast<std::uint64_t>(o.texinfo) < l_.texinfo.size()) {
            const std::int32_t td = l_.texinfo[static_cast<std::size_t>(o.texinfo)].texdata;
            if (td >= 0 && static_cast<std::size_t>(td) < materials_.size())
                material = materials_[static_cast<std::size_t>(td)];
        }
        scene::Entity e;
        auto set = [&](std::string_view k, std::string v) {
            e.keys.push_back({std::string(k), v});
        };
        set("classname", "info_overlay");
        if (auto it = overlay_names_.find(o.id); it != overlay_names_.end()) {
            e.id = it->second.second;
            set("targetname", it->second.first);
        }
        set("material", material);
        set("sides", side_list);
        set("RenderOrder", std::to_string(o.render_order));
        set("StartU", num(tidy(o.u[0])));
        set("EndU", num(tidy(o.u[1])));
        set("StartV", num(tidy(o.v[0])));
        set("EndV", num(tidy(o.v[1])));
        set("BasisOrigin", vec(origin));
        set("BasisU", vec(basis_u));
        set("BasisV", vec(tidy(basis_v)));
        set("BasisNormal", vec(normal));
        for (int k = 0; k < 4; ++k) set(fmt::format("uv{}", k), vec(tidy(o.uv[k])));
        if (i < l_.overlay_fades.size()) {
            const bsp::doverlayfade_t& fd = l_.overlay_fades[i];
            const auto dist = [](float sq) {
                return sq > 0 && std::isfinite(sq) && sq < 1e30f ? std::sqrt(double{sq}) : 0.0;
            };
            const double lo = dist(fd.flFadeDistMinSq);
            set("fademindist", num(lo > 0 ? tidy_distance(lo) : -1.0));
            set("fademaxdist", num(tidy_distance(dist(fd.flFadeDistMaxSq))));
        }
        set("origin", vec(origin));
        s.entities.push_back(std::move(e));
        ++report_.recovered.overlays;
    }
}

double Decompiler::tidy_distance(double v) {
    // Fade distances went through a float square; whole units are what the mapper typed.
    return std::abs(v - std::round(v)) < 1e-2 ? std::round(v) : std::round(v * 1e3) / 1e3;
}

void Decompiler::cubemaps(scene::Scene& s) {
    const auto& cms = l_.cubemaps;
    std::vector<Vec3> at(cms.size());
    for (std::size_t i = 0; i < cms.size(); ++i) {
        at[i] = {double(cms[i].origin[0]), double(cms[i].origin[1]), double(cms[i].origin[2])};
    }
    // vbsp gives every cubemap-using side the nearest cubemap in front of it unless the mapper
    // listed the side on another env_cubemap; only those exceptions need to be written back
    // for a recompile to give each side the cubemap it has now.
    std::vector<std::vector<std::int64_t>> sides(cms.size());
    for (const WrittenSide& w : written_sides_) {
        if (w.texdata < 0 || static_cast<std::size_t>(w.texdata) >= material_cubemap_.size())
            continue;
        const auto& cm = material_cubemap_[static_cast<std::size_t>(w.texdata)];
        if (!cm) continue;
        const Vec3 target{double((*cm)[0]), double((*cm)[1]), double((*cm)[2])};
        std::size_t nearest = cms.size(), owner = cms.size();
        double best = INFINITY;
        for (int pass = 0; pass < 2 && nearest == cms.size(); ++pass) {
            for (std::size_t i = 0; i < cms.size(); ++i) {
                if (pass == 0 && dot(w.normal, at[i] - w.center) < 0) continue;
                const double d = distance(at[i], w.center);
                if (d < best) {
                    best = d;
                    nearest = i;
                }
            }
        }
        for (std::size_t i = 0; i < cms.size() && owner == cms.size(); ++i) {
            if (at[i] == target) owner = i;
        }
        if (owner < cms.size() && nearest < cms.size() && at[owner] != at[nearest]) {
            sides[owner].push_back(w.id);
            ++report_.recovered.cubemap_sides;
        }
    }
    for (std::size_t i = 0; i < cms.size(); ++i) {
        scene::Entity e;
        e.set("classname", "env_cubemap");
        e.set("origin", vec(at[i]));
        e.set("cubemapsize", std::to_string(cms[i].size));
        std::string list;
        for (const std::int64_t id : sides[i]) {
            if (!list.empty()) list += ' ';
            list += std::to_string(id);
        }
        // Hammer cuts values at 1023 bytes; a cut list would name arbitrary sides.
        constexpr std::size_t kMaxValue = 1023;
        if (list.size() > kMaxValue) {
            warn("convert.cubemap-sides-dropped",
                 fmt::format("env_cubemap at {} would list {} sides, more than a Hammer value "
                             "holds; the list is left out (vbsp assigns those sides by itself)",
                             vec(at[i]), sides[i].size()));
            report_.recovered.cubemap_sides -= sides[i].size();
            report_.lost.cubemap_sides += sides[i].size();
            list.clear();
        }
        e.set("sides", list);
        s.entities.push_back(std::move(e));
        ++report_.recovered.cubemaps;
    }
}

}  // namespace detail

Result<scene::Scene> bsp_to_scene(const bsp::Bsp& map, Diagnostics& diags,
                                  const BspToSceneOptions& opt, BspToSceneReport* report) {
    BspToSceneReport local;
    BspToSceneReport& r = report ? *report : local;
    r = {};
    return detail::Decompiler(map, diags, opt, r).run();
}

}  // namespace lk::convert
