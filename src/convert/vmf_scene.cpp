#include "levelkit/convert/vmf_scene.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "levelkit/convert/mesh_displacement.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/scene/geometry.hpp"
#include "levelkit/vmf/geometry.hpp"

namespace lk::convert {

namespace {

scene::EditorInfo editor_info(const vmf::Editor& e, bool hidden) {
    scene::EditorInfo out;
    out.color = e.color;
    out.visgroups = e.visgroup_ids;
    out.group = e.group_id;
    out.hidden = hidden;
    if (e.comments) out.comments = *e.comments;
    return out;
}

scene::Displacement to_scene(const vmf::DispInfo& d) {
    scene::Displacement out;
    out.power = d.power;
    out.start_position = d.start_position;
    out.elevation = d.elevation;
    out.flags = d.flags;
    out.normals = d.normals;
    out.distances = d.distances;
    out.offsets = d.offsets;
    out.offset_normals = d.offset_normals;
    out.alphas = d.alphas;
    out.triangle_tags = d.triangle_tags;
    out.allowed_verts = d.allowed_verts;
    out.multiblend = d.multiblend;
    out.alphablend = d.alphablend;
    out.multiblend_color = d.multiblend_color;
    return out;
}

scene::Brush to_scene(const vmf::Solid& s, Diagnostics& diags) {
    scene::Brush b;
    b.id = s.id;
    b.editor = editor_info(s.editor, s.hidden);
    b.sides.reserve(s.sides.size());
    for (const vmf::Side& sd : s.sides) {
        scene::BrushSide out;
        out.id = sd.id;
        if (auto pl = sd.plane()) {
            out.plane = *pl;
        } else {
            diags.add(Diagnostic::warning(
                "convert.degenerate-plane",
                fmt::format("side {} of solid {} has no valid plane", sd.id, s.id)));
        }
        if (sd.has(vmf::Side::kPlane)) out.points = sd.plane_points;
        out.material = sd.material;
        out.u = {sd.uaxis.axis, sd.uaxis.shift, sd.uaxis.scale};
        out.v = {sd.vaxis.axis, sd.vaxis.shift, sd.vaxis.scale};
        out.lightmap_scale = sd.lightmapscale;
        out.smoothing_groups = sd.smoothing_groups;
        // A dispinfo without a power in range has no grid (the reader kept it as written and
        // said so); the side stays a plain face.
        if (sd.disp && sd.disp->has(vmf::DispInfo::kPower)) out.displacement = to_scene(*sd.disp);
        out.exact_polygon = !sd.vertices_plus.empty() ? sd.vertices_plus : sd.point_data;
        b.sides.push_back(std::move(out));
    }
    return b;
}

// `spend`: the same entity when the caller gives it up (its solids are freed as they convert).
scene::Entity to_scene(const vmf::Entity& e, Diagnostics& diags, vmf::Entity* spend = nullptr) {
    scene::Entity out;
    out.id = e.id();
    out.keys.reserve(e.keys.size());
    for (const vmf::KeyValue& kv : e.keys) {
        if (iequals(kv.key, "id")) continue;
        out.keys.push_back({kv.key, kv.value});
    }
    for (const vmf::Connection& c : e.connections) {
        scene::Output o;
        o.output = c.output;
        if (c.parsed) {
            o.target = c.target;
            o.input = c.input;
            o.param = c.param;
            o.delay = c.delay;
            o.times = c.times;
        } else {
            o.unparsed = c.raw;
        }
        out.outputs.push_back(std::move(o));
    }
    out.brushes.reserve(e.solids.size());
    for (std::size_t i = 0; i < e.solids.size(); ++i) {
        out.brushes.push_back(to_scene(e.solids[i], diags));
        if (spend) spend->solids[i] = {};
    }
    out.editor = editor_info(e.editor, e.hidden);
    out.logical_pos = e.editor.logical_pos;
    return out;
}

// `path`: visgroups/visgroup[i]/visgroup[j]..., for the warnings.
scene::Visgroup to_scene(const vmf::Visgroup& g, const std::string& path, Diagnostics& diags) {
    scene::Visgroup out;
    out.name = g.name;
    out.id = g.id;
    const auto parts = split_ws(g.color);
    if (parts.size() == 3) {
        std::array<int, 3> c{};
        bool ok = true, in_range = true;
        for (std::size_t i = 0; i < 3 && ok; ++i) {
            auto v = parse_int(parts[i]);
            ok = v.has_value() && std::in_range<int>(*v);
            in_range = in_range && (!v || std::in_range<int>(*v));
            if (ok) c[i] = static_cast<int>(*v);
        }
        if (ok) out.color = c;
        if (!in_range) {
            diags.add(Diagnostic::warning("convert.out-of-range",
                                          fmt::format("visgroup {} colour '{}' is out of the "
                                                      "integer range: left out",
                                                      g.id, g.color))
                          .with_path(path + "/color"));
        }
    }
    for (std::size_t i = 0; i < g.children.size(); ++i) {
        out.children.push_back(
            to_scene(g.children[i], path + "/visgroup[" + std::to_string(i) + "]", diags));
    }
    return out;
}

}  // namespace

namespace {

scene::Scene vmf_to_scene(const vmf::Map& map, vmf::Map* spend, Diagnostics& diags) {
    scene::Scene s;
    s.source_format = "vmf";
    for (const vmf::KeyValue& kv : map.versioninfo) s.metadata.push_back({kv.key, kv.value});
    s.world = to_scene(map.world, diags, spend ? &spend->world : nullptr);
    if (s.world.classname().empty()) s.world.set("classname", "worldspawn");
    for (const vmf::Group& g : map.world.groups) {
        s.groups.push_back({g.id, editor_info(g.editor, false)});
    }
    s.entities.reserve(map.entities.size());
    for (std::size_t i = 0; i < map.entities.size(); ++i) {
        const vmf::Entity& e = map.entities[i];
        s.entities.push_back(to_scene(e, diags, spend ? &spend->entities[i] : nullptr));
        for (const vmf::Connection& c : e.connections) {
            if (!c.parsed || s.output_separator) continue;
            s.output_separator = c.separator;
        }
        if (spend) spend->entities[i] = {};
    }
    for (std::size_t i = 0; i < map.visgroups.size(); ++i) {
        s.visgroups.push_back(
            to_scene(map.visgroups[i], "visgroups/visgroup[" + std::to_string(i) + "]", diags));
    }
    for (const vmf::Camera& c : map.cameras) s.cameras.push_back({c.position, c.look});
    s.active_camera = map.active_camera;
    s.cordons_active = map.cordons_active;
    for (const vmf::Cordon& c : map.cordons) s.cordons.push_back({c.name, c.active, c.boxes});
    return s;
}

}  // namespace

scene::Scene vmf_to_scene(const vmf::Map& map, Diagnostics& diags) {
    return vmf_to_scene(map, nullptr, diags);
}

scene::Scene vmf_to_scene(vmf::Map&& map, Diagnostics& diags) {
    scene::Scene s = vmf_to_scene(map, &map, diags);
    map = {};
    return s;
}

std::optional<std::array<Vec3, 3>> plane_points_on_face(std::span<const Vec3> w) {
    const std::size_t n = w.size();
    if (n < 3) return std::nullopt;
    // Largest triangle with corners in winding order (keeps the orientation). Faces have a
    // handful of corners; cap the cubic search on unusually large ones.
    double best = 0;
    std::array<std::size_t, 3> idx{0, 1, 2};
    const std::size_t lim = std::min<std::size_t>(n, 24);
    for (std::size_t i = 0; i < lim; ++i) {
        for (std::size_t j = i + 1; j < lim; ++j) {
            for (std::size_t k = j + 1; k < lim; ++k) {
                const double a = length(cross(w[j] - w[i], w[k] - w[i]));
                if (a > best) {
                    best = a;
                    idx = {i, j, k};
                }
            }
        }
    }
    if (!(best > 1e-9)) return std::nullopt;
    return std::array<Vec3, 3>{w[idx[0]], w[idx[1]], w[idx[2]]};
}

std::optional<scene::Brush> mesh_to_brush(const scene::Mesh& m, double eps) {
    const std::size_t nv = m.positions.size();
    if (m.faces.size() < 4) return std::nullopt;
    // Closed and consistently oriented: each directed edge once, its reverse once.
    std::unordered_map<std::uint64_t, int> edges;
    for (const scene::Mesh::Face& f : m.faces) {
        if (f.count < 3 || std::size_t{f.first} + f.count > m.face_vertices.size())
            return std::nullopt;
        for (std::uint32_t i = 0; i < f.count; ++i) {
            const std::uint32_t a = m.face_vertices[f.first + i];
            const std::uint32_t b = m.face_vertices[f.first + (i + 1) % f.count];
            if (a >= nv || b >= nv) return std::nullopt;
            if (++edges[(std::uint64_t{a} << 32) | b] > 1) return std::nullopt;
        }
    }
    for (const auto& [k, n] : edges) {
        if (!edges.count((k << 32) | (k >> 32))) return std::nullopt;
    }
    scene::Brush b;
    b.id = m.id;
    b.editor = m.editor;
    std::vector<Vec3> poly;
    for (const scene::Mesh::Face& f : m.faces) {
        poly.clear();
        // Hammer's counter-clockwise loop reversed into VBSP's winding.
        for (std::uint32_t i = f.count; i-- > 0;)
            poly.push_back(m.positions[m.face_vertices[f.first + i]]);
        const auto pts = plane_points_on_face(poly);
        if (!pts) return std::nullopt;
        const auto plane = Plane::from_points((*pts)[0], (*pts)[1], (*pts)[2]);
        if (!plane) return std::nullopt;
        for (const Vec3& p : poly) {
            if (std::abs(plane->distance_to(p)) > eps) return std::nullopt;
        }
        for (const Vec3& p : m.positions) {
            if (plane->distance_to(p) > eps) return std::nullopt;
        }
        bool dup = false;
        for (const scene::BrushSide& sd : b.sides) dup |= same_plane(sd.plane, *plane, 1e-6, eps);
        if (dup) continue;
        scene::BrushSide sd;
        sd.plane = *plane;
        sd.points = *pts;
        sd.material = f.material < m.materials.size() ? m.materials[f.material] : std::string();
        sd.u = f.u;
        sd.v = f.v;
        b.sides.push_back(std::move(sd));
    }
    if (b.sides.size() < 4) return std::nullopt;
    return b;
}

std::array<Vec3, 3> plane_points_on_plane(const Plane& plane, const Vec3& near, double size) {
    const Vec3 c = near - plane.normal * plane.distance_to(near);
    Winding w = base_winding(Plane{plane.normal, dot(plane.normal, c)}, size);
    // base_winding is centred on the plane point nearest the origin; move it to `c`.
    const Vec3 shift = c - plane.normal * dot(plane.normal, c);
    for (Vec3& p : w) p += shift;
    return {w[0], w[1], w[2]};
}

namespace {

class VmfBuilder {
public:
    VmfBuilder(const scene::Scene& s, Diagnostics& diags, const SceneToVmfOptions& opt,
               SceneToVmfReport& report)
        : s_(s), diags_(diags), opt_(opt), report_(report) {}

    vmf::Map run() {
        reserve_ids();
        vmf::Map m;
        m.has_versioninfo = true;
        auto meta = [&](std::string_view key, std::string fallback) {
            for (const scene::KeyValue& kv : s_.metadata) {
                if (iequals(kv.key, key)) return kv.value;
            }
            return fallback;
        };
        m.versioninfo = {
            {"editorversion", meta("editorversion", std::to_string(opt_.editor_version))},
            {"editorbuild", meta("editorbuild", std::to_string(opt_.editor_build))},
            {"mapversion", meta("mapversion", std::to_string(opt_.map_version))},
            {"formatversion", meta("formatversion", "100")},
            {"prefab", meta("prefab", "0")}};
        m.has_visgroups = true;
        for (const scene::Visgroup& g : s_.visgroups) m.visgroups.push_back(visgroup(g));
        vmf::RawNode vs{"viewsettings", "", true, {}};
        for (auto [k, v] : {std::pair{"bSnapToGrid", "1"},
                            {"bShowGrid", "1"},
                            {"bShowLogicalGrid", "0"},
                            {"nGridSpacing", "64"},
                            {"bShow3DGrid", "0"}}) {
            vs.children.push_back({k, v, false, {}});
        }
        m.viewsettings = std::move(vs);
        m.has_world = true;
        m.world = entity(s_.world, true);
        if (m.world.classname().empty()) m.world.set("classname", "worldspawn");
        for (const scene::Group& g : s_.groups) {
            vmf::Group vg;
            vg.id = g.id;
            vg.editor = editor(g.editor, "0 100 195");
            m.world.groups.push_back(std::move(vg));
        }
        for (const scene::Entity& e : s_.entities) m.entities.push_back(entity(e, false));
        remap_side_references(m);
        m.has_cameras = true;
        m.active_camera = s_.cameras.empty() ? -1 : s_.active_camera;
        for (const scene::Camera& c : s_.cameras) m.cameras.push_back({c.position, c.look});
        if (s_.cordons.empty()) {
            // The single-box block every Hammer 4 build reads.
            m.cordon_style = vmf::Map::CordonStyle::single;
            vmf::Cordon c;
            Aabb box;
            box.mins = {-1024, -1024, -1024};
            box.maxs = {1024, 1024, 1024};
            c.boxes.push_back(box);
            m.cordons.push_back(std::move(c));
        } else {
            m.cordon_style = vmf::Map::CordonStyle::multiple;
            m.cordons_active = s_.cordons_active;
            for (const scene::Cordon& c : s_.cordons)
                m.cordons.push_back({c.name, c.active, c.boxes, {}});
        }
        return m;
    }

private:
    // Keeps source ids that are positive and unique; everything else gets a fresh one later.
    void reserve_ids() {
        // The world is always entity id 1.
        entity_ids_.insert(1);
        kept_entities_.insert(1);
        auto walk = [&](const scene::Entity& e) {
            for (const scene::Brush& b : e.brushes) {
                if (b.id > 0 && !solid_ids_.insert(b.id).second) dup_solids_.insert(b.id);
                for (const scene::BrushSide& sd : b.sides) {
                    if (sd.id > 0 && !side_ids_.insert(sd.id).second) dup_sides_.insert(sd.id);
                }
            }
        };
        walk(s_.world);
        for (const scene::Entity& e : s_.entities) {
            if (e.id > 0 && (!entity_ids_.insert(e.id).second || e.id == 1))
                dup_entities_.insert(e.id);
            walk(e);
        }
        for (const scene::Group& g : s_.groups) entity_ids_.insert(g.id);
        next_ = 1;
        for (auto* set : {&solid_ids_, &side_ids_, &entity_ids_}) {
            for (std::int64_t id : *set) next_ = std::max(next_, id + 1);
        }
    }
    std::int64_t keep_or_new(std::int64_t id, std::unordered_set<std::int64_t>& dups,
                             std::unordered_set<std::int64_t>& kept) {
        if (id > 0 && !dups.count(id)) return id;
        // The first holder of a duplicated id keeps it; the rest are renumbered.
        if (id > 0 && kept.insert(id).second) return id;
        ++report_.renumbered_ids;
        return next_++;
    }

    vmf::Editor editor(const scene::EditorInfo& e, std::string_view default_color) {
        vmf::Editor out;
        out.present = true;
        if (e.color) {
            out.color = e.color;
        } else {
            auto p = split_ws(default_color);
            out.color = std::array<int, 3>{static_cast<int>(parse_int(p[0]).value_or(0)),
                                           static_cast<int>(parse_int(p[1]).value_or(0)),
                                           static_cast<int>(parse_int(p[2]).value_or(0))};
        }
        out.visgroup_ids = e.visgroups;
        out.group_id = e.group;
        out.visgroup_shown = true;
        out.visgroup_autoshown = true;
        if (!e.comments.empty()) out.comments = e.comments;
        return out;
    }

    vmf::Visgroup visgroup(const scene::Visgroup& g) {
        vmf::Visgroup out;
        out.name = g.name;
        out.id = g.id;
        const auto c = g.color.value_or(std::array<int, 3>{255, 255, 255});
        out.color = fmt::format("{} {} {}", c[0], c[1], c[2]);
        for (const scene::Visgroup& ch : g.children) out.children.push_back(visgroup(ch));
        return out;
    }

    vmf::Solid solid(const scene::Brush& b) {
        ++report_.solids;
        vmf::Solid out;
        out.id = keep_or_new(b.id, dup_solids_, kept_solids_);
        out.hidden = b.editor.hidden;
        out.editor = editor(b.editor, "0 180 0");
        // Polygons only when some side lacks exact points.
        bool need_polys = false;
        for (const scene::BrushSide& sd : b.sides) need_polys |= !sd.points;
        if (need_polys) scene::brush_polygons(b, polys_);
        for (std::size_t i = 0; i < b.sides.size(); ++i) {
            const scene::BrushSide& sd = b.sides[i];
            vmf::Side vs;
            vs.present = vmf::Side::kId | vmf::Side::kPlane | vmf::Side::kMaterial |
                         vmf::Side::kUAxis | vmf::Side::kVAxis | vmf::Side::kRotation |
                         vmf::Side::kLightmapScale | vmf::Side::kSmoothingGroups;
            const std::int64_t old_id = sd.id;
            vs.id = keep_or_new(sd.id, dup_sides_, kept_sides_);
            if (old_id > 0 && old_id != vs.id) side_remap_.emplace(old_id, vs.id);
            if (sd.points) {
                vs.plane_points = *sd.points;
            } else {
                ++report_.sides_with_computed_points;
                std::optional<std::array<Vec3, 3>> pts;
                if (i < polys_.face_count()) pts = plane_points_on_face(polys_.face(i));
                vs.plane_points = pts ? *pts : plane_points_on_plane(sd.plane, brush_center(b));
            }
            vs.material = sd.material;
            vs.uaxis = {sd.u.axis, sd.u.shift, sd.u.scale};
            vs.vaxis = {sd.v.axis, sd.v.shift, sd.v.scale};
            vs.lightmapscale = sd.lightmap_scale;
            vs.smoothing_groups = sd.smoothing_groups;
            // Every scene source gives a power in 0..4; one outside could size no grid.
            if (sd.displacement && sd.displacement->power >= 0 && sd.displacement->power <= 4)
                vs.disp = dispinfo(*sd.displacement);
            out.sides.push_back(std::move(vs));
        }
        return out;
    }

    static Vec3 brush_center(const scene::Brush& b) {
        Vec3 c;
        for (const scene::BrushSide& sd : b.sides) c += sd.plane.normal * sd.plane.dist;
        return b.sides.empty() ? c : c / static_cast<double>(b.sides.size());
    }

    static vmf::DispInfo dispinfo(const scene::Displacement& d) {
        using F = vmf::DispInfo::Field;
        vmf::DispInfo out;
        out.present = F::kPower | F::kStartPosition | F::kFlags | F::kElevation | F::kSubdiv;
        out.power = d.power;
        out.start_position = d.start_position;
        out.flags = d.flags;
        out.elevation = d.elevation;
        const auto n =
            static_cast<std::size_t>(d.grid_size()) * static_cast<std::size_t>(d.grid_size());
        const auto tris = std::size_t{2} << (2 * d.power);
        // Hammer needs every row block; missing data is written as its neutral value.
        auto fill3 = [&](const std::vector<Vec3>& v, Vec3 neutral) {
            return v.size() == n ? v : std::vector<Vec3>(n, neutral);
        };
        out.normals = fill3(d.normals, {0, 0, 1});
        out.distances = d.distances.size() == n ? d.distances : std::vector<double>(n, 0.0);
        out.offsets = fill3(d.offsets, {});
        out.offset_normals = fill3(d.offset_normals, {0, 0, 1});
        out.alphas = d.alphas.size() == n ? d.alphas : std::vector<double>(n, 0.0);
        out.triangle_tags =
            d.triangle_tags.size() == tris ? d.triangle_tags : std::vector<int>(tris, 0);
        out.allowed_verts =
            d.allowed_verts.size() == 10 ? d.allowed_verts : std::vector<std::int64_t>(10, -1);
        out.allowed_verts_key = "10";
        out.present |= F::kNormals | F::kDistances | F::kOffsets | F::kOffsetNormals | F::kAlphas |
                       F::kTriangleTags | F::kAllowedVerts;
        if (d.multiblend.size() == n) {
            out.multiblend = d.multiblend;
            out.present |= F::kMultiblend;
        }
        if (d.alphablend.size() == n) {
            out.alphablend = d.alphablend;
            out.present |= F::kAlphablend;
        }
        for (int c = 0; c < 4; ++c) {
            if (d.multiblend_color[static_cast<std::size_t>(c)].size() == n) {
                out.multiblend_color[static_cast<std::size_t>(c)] =
                    d.multiblend_color[static_cast<std::size_t>(c)];
                out.present |= F::kMultiblendColor0 << c;
            }
        }
        return out;
    }

    vmf::Entity entity(const scene::Entity& e, bool world) {
        vmf::Entity out;
        const std::int64_t id = world ? 1 : keep_or_new(e.id, dup_entities_, kept_entities_);
        out.keys.push_back({"id", std::to_string(id)});
        for (const scene::KeyValue& kv : e.keys) {
            if (!iequals(kv.key, "id")) out.keys.push_back({kv.key, kv.value});
        }
        out.has_connections = !e.outputs.empty();
        for (const scene::Output& o : e.outputs) {
            vmf::Connection c;
            c.output = o.output;
            if (o.unparsed) {
                c.parsed = false;
                c.raw = *o.unparsed;
                ++report_.outputs_unparsed;
            } else {
                c.target = o.target;
                c.input = o.input;
                c.param = o.param;
                c.delay = o.delay;
                c.times = o.times;
                c.separator = s_.output_separator ? s_.output_separator : opt_.output_separator;
            }
            out.connections.push_back(std::move(c));
        }
        for (const scene::Brush& b : e.brushes) out.solids.push_back(solid(b));
        std::vector<std::int64_t> skipped;
        std::string first_reason;
        for (const scene::Mesh& mesh : e.meshes) {
            if (auto b = mesh_to_brush(mesh)) {
                ++report_.meshes_as_brushes;
                b->id = 0;  // mesh node ids are not solid ids; take a fresh one
                out.solids.push_back(solid(*b));
                continue;
            }
            MeshDisplacements d = mesh_to_displacements(mesh);
            report_.displacement_meshes += !d.brushes.empty();
            for (const scene::Brush& b : d.brushes) {
                ++report_.displacements_recovered;
                out.solids.push_back(solid(b));
            }
            if (d.rest.faces.empty()) continue;
            // What is left may still be a closed convex piece (a box beside a terrain grid).
            if (!d.brushes.empty()) {
                if (auto b = mesh_to_brush(d.rest)) {
                    ++report_.meshes_as_brushes;
                    b->id = 0;
                    out.solids.push_back(solid(*b));
                    continue;
                }
            }
            skipped.push_back(mesh.id);
            report_.faces_skipped += d.rest.faces.size();
            if (first_reason.empty()) {
                first_reason = fmt::format("mesh {}{}: {}", mesh.id,
                                           d.brushes.empty() ? "" : " (partly a displacement)",
                                           d.reason.empty() ? "not a grid" : d.reason);
            }
        }
        if (!skipped.empty()) {
            report_.meshes_skipped += skipped.size();
            report_.skipped_mesh_ids.insert(report_.skipped_mesh_ids.end(), skipped.begin(),
                                            skipped.end());
            diags_.add(Diagnostic::warning(
                "convert.mesh-skipped",
                fmt::format("{} mesh(es) of entity {} ({}) are neither closed convex polyhedra nor "
                            "displacement grids and have no VMF form: ids {} (first: {})",
                            skipped.size(), id, e.classname(), fmt::join(skipped, " "),
                            first_reason)));
        }
        if (!world) {
            out.editor = editor(e.editor, "220 30 220");
            out.editor.logical_pos = e.logical_pos;
            out.hidden = e.editor.hidden;
        }
        return out;
    }

    // `sides` lists (overlays, cubemaps, func_* side lists) follow renumbered side ids.
    void remap_side_references(vmf::Map& m) {
        if (side_remap_.empty()) return;
        for (vmf::Entity& e : m.entities) {
            for (vmf::KeyValue& kv : e.keys) {
                if (!iequals(kv.key, "sides")) continue;
                std::string out;
                for (std::string_view t : split_ws(kv.value)) {
                    auto id = parse_int(t);
                    auto it = id ? side_remap_.find(*id) : side_remap_.end();
                    if (!out.empty()) out += ' ';
                    out += it == side_remap_.end() ? std::string(t) : std::to_string(it->second);
                }
                kv.value = std::move(out);
            }
        }
    }

    const scene::Scene& s_;
    Diagnostics& diags_;
    const SceneToVmfOptions& opt_;
    SceneToVmfReport& report_;
    BrushPolygons polys_;
    std::unordered_set<std::int64_t> solid_ids_, side_ids_, entity_ids_;
    std::unordered_set<std::int64_t> dup_solids_, dup_sides_, dup_entities_;
    std::unordered_set<std::int64_t> kept_solids_, kept_sides_, kept_entities_;
    std::unordered_map<std::int64_t, std::int64_t> side_remap_;
    std::int64_t next_ = 1;
};

// A VMF string has no escapes: a '"' inside one ends it early and the file no longer reads.
// Scenes from BSP string tables, DMX or Gamestudio levels can hold one (a fuzzed BSP material
// name did); it becomes '\'' so the output stays a VMF, and the count is reported.
class QuoteMender {
public:
    std::size_t mended = 0;
    void text(std::string& t) {
        for (char& c : t) {
            if (c == '"') {
                c = '\'';
                ++mended;
            }
        }
    }
    void keys(std::vector<KeyValue>& kvs) {
        for (KeyValue& kv : kvs) {
            text(kv.key);
            text(kv.value);
        }
    }
    void editor(vmf::Editor& e) {
        if (e.comments) text(*e.comments);
        keys(e.extra_keys);
    }
    void entity(vmf::Entity& e) {
        keys(e.keys);
        for (vmf::Connection& c : e.connections) {
            for (std::string* t : {&c.output, &c.target, &c.input, &c.param, &c.raw}) text(*t);
        }
        for (vmf::Solid& so : e.solids) {
            keys(so.extra_keys);
            editor(so.editor);
            for (vmf::Side& sd : so.sides) {
                text(sd.material);
                keys(sd.extra_keys);
            }
        }
        editor(e.editor);
    }
    void visgroups(std::vector<vmf::Visgroup>& v) {
        for (vmf::Visgroup& g : v) {
            text(g.name);
            keys(g.extra_keys);
            visgroups(g.children);
        }
    }
    void map(vmf::Map& m) {
        entity(m.world);
        for (vmf::Entity& e : m.entities) entity(e);
        visgroups(m.visgroups);
        for (vmf::Cordon& c : m.cordons) {
            text(c.name);
            keys(c.extra_keys);
        }
    }
};

}  // namespace

vmf::Map scene_to_vmf(const scene::Scene& s, Diagnostics& diags, const SceneToVmfOptions& opt,
                      SceneToVmfReport* report) {
    SceneToVmfReport local;
    vmf::Map m = VmfBuilder(s, diags, opt, report ? *report : local).run();
    QuoteMender q;
    q.map(m);
    if (q.mended) {
        diags.add(Diagnostic::warning(
            "vmf.quote-replaced",
            fmt::format("{} double quote(s) in names and values written as single quotes (a VMF "
                        "string cannot hold a double quote)",
                        q.mended)));
    }
    return m;
}

}  // namespace lk::convert
