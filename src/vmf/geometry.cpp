#include "levelkit/vmf/geometry.hpp"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

namespace lk::vmf {

void solid_polygons(const Solid& solid, BrushPolygons& out, const PolygonOptions& opt) {
    thread_local std::vector<std::optional<Plane>> planes;
    planes.clear();
    Vec3 center;
    std::size_t n = 0;
    for (const Side& s : solid.sides) {
        planes.push_back(s.has(Side::kPlane) ? s.plane() : std::nullopt);
        if (s.has(Side::kPlane)) {
            for (const Vec3& p : s.plane_points) center += p;
            n += 3;
        }
    }
    if (n) center = center / static_cast<double>(n);
    build_brush_polygons(planes, center, out, opt.clip);
    if (!opt.prefer_stored_vertices) return;
    // Swap in stored exact polygons where a side has them.
    bool any = false;
    for (const Side& s : solid.sides) any |= !s.vertices_plus.empty() || !s.point_data.empty();
    if (!any) return;
    std::vector<Vec3> points;
    std::vector<std::uint32_t> begins;
    for (std::size_t i = 0; i < solid.sides.size(); ++i) {
        begins.push_back(static_cast<std::uint32_t>(points.size()));
        const Side& s = solid.sides[i];
        const std::vector<Vec3>& stored = !s.vertices_plus.empty() ? s.vertices_plus : s.point_data;
        if (stored.size() >= 3) {
            points.insert(points.end(), stored.begin(), stored.end());
        } else {
            auto f = out.face(i);
            points.insert(points.end(), f.begin(), f.end());
        }
    }
    begins.push_back(static_cast<std::uint32_t>(points.size()));
    out.points = std::move(points);
    out.face_begin = std::move(begins);
}

std::optional<std::vector<Vec3>> displacement_grid(const Side& side, std::span<const Vec3> face) {
    if (!side.disp || face.size() != 4 || !side.disp->has(DispInfo::kPower)) return std::nullopt;
    const DispInfo& d = *side.disp;
    const std::optional<Plane> pl = side.plane();
    const Vec3 normal = pl ? pl->normal : normalize(cross(face[0] - face[1], face[2] - face[1]));
    return lk::displacement_grid(
        {d.power, d.start_position, d.elevation, d.normals, d.distances, d.offsets}, face, normal);
}

namespace {

class Validator {
public:
    Validator(const Map& m, Diagnostics& out, const kv::Document* tree, const ValidateOptions& opt)
        : m_(m), out_(out), tree_(tree), opt_(opt) {}

    void run() {
        if (!m_.has_versioninfo || !m_.has_visgroups || !m_.viewsettings || !m_.has_world) {
            std::string missing;
            if (!m_.has_versioninfo) missing += " versioninfo";
            if (!m_.has_visgroups) missing += " visgroups";
            if (!m_.viewsettings) missing += " viewsettings";
            if (!m_.has_world) missing += " world";
            add(Diagnostic::warning("vmf.missing-block",
                                    "missing top-level block(s):" + missing +
                                        " (Valve's Source 2 importer rejects such files)"),
                {});
        }
        entity(m_.world, "world");
        for (std::size_t i = 0; i < m_.entities.size(); ++i) {
            entity(m_.entities[i], fmt::format("entity[{}]", i));
        }
        check_side_refs();
    }

private:
    void add(Diagnostic d, const Origin& o) {
        if (tree_ && o.node != kv::kNone) {
            const TextPos p = tree_->locate(o.offset);
            d.line = p.line;
            d.column = p.column;
            d.offset = o.offset;
        }
        out_.add(std::move(d));
    }

    void id_seen(std::unordered_map<std::int64_t, Origin>& seen, std::int64_t id, const Origin& o,
                 std::string_view what, const std::string& path) {
        auto [it, inserted] = seen.emplace(id, o);
        if (inserted) return;
        std::string where;
        if (tree_ && it->second.node != kv::kNone) {
            where = fmt::format(" (first at line {})", tree_->locate(it->second.offset).line);
        }
        add(Diagnostic::warning("vmf.duplicate-id",
                                fmt::format("duplicate {} id {}{}", what, id, where))
                .with_path(path),
            o);
    }

    void entity(const Entity& e, const std::string& path) {
        if (&e != &m_.world) id_seen(entity_ids_, e.id(), e.origin, "entity", path);
        for (std::size_t i = 0; i < e.solids.size(); ++i) {
            solid(e.solids[i], fmt::format("{}/solid[{}]", path, i));
        }
    }

    void solid(const Solid& s, const std::string& path) {
        ++solids_;
        id_seen(solid_ids_, s.id, s.origin, "solid", path);
        for (std::size_t i = 0; i < s.sides.size(); ++i) {
            const Side& sd = s.sides[i];
            id_seen(side_ids_, sd.id, sd.origin, "side", fmt::format("{}/side[{}]", path, i));
            side_ids_present_.insert(sd.id);
        }
        solid_polygons(s, polys_, opt_.polygons);
        for (const BrushFaceProblem& p : polys_.problems) {
            const bool has_side =
                p.side < s.sides.size() &&
                (p.problem != BrushProblem::open && p.problem != BrushProblem::too_few_sides);
            std::string msg = fmt::format("solid {} is invalid: {}", s.id, to_string(p.problem));
            if (has_side) msg += fmt::format(" (side id {})", s.sides[p.side].id);
            if (p.other_side < s.sides.size()) {
                msg += fmt::format(" with side id {}", s.sides[p.other_side].id);
            }
            const Origin& o = has_side ? s.sides[p.side].origin : s.origin;
            add(Diagnostic::error("vmf.invalid-solid", std::move(msg))
                    .with_path(has_side ? fmt::format("{}/side[{}]", path, p.side) : path),
                o);
        }
        for (std::size_t i = 0; i < s.sides.size(); ++i) {
            const Side& sd = s.sides[i];
            if (!sd.disp) continue;
            if (polys_.valid() && polys_.face(i).size() != 4) {
                add(Diagnostic::error(
                        "vmf.bad-displacement",
                        fmt::format("displacement on side id {} needs a 4-sided face, "
                                    "the face has {} corners",
                                    sd.id, polys_.face(i).size()))
                        .with_path(fmt::format("{}/side[{}]/dispinfo", path, i)),
                    sd.disp->origin);
            }
        }
    }

    // info_overlay / env_cubemap / func_* `sides` lists must name existing side ids.
    void check_side_refs() {
        for (std::size_t i = 0; i < m_.entities.size(); ++i) {
            const Entity& e = m_.entities[i];
            const std::string* sides = find_key(e.keys, "sides");
            if (!sides) continue;
            for (std::string_view t : split_ws(*sides)) {
                auto id = parse_int(t);
                if (id && side_ids_present_.count(*id)) continue;
                add(Diagnostic::warning(
                        "vmf.dangling-side",
                        fmt::format("{} '{}' refers to side id {} which does not exist",
                                    e.classname(), e.get("targetname"), printable(t)))
                        .with_path(fmt::format("entity[{}]/sides", i)),
                    e.origin);
            }
        }
    }

    const Map& m_;
    Diagnostics& out_;
    const kv::Document* tree_;
    const ValidateOptions& opt_;
    BrushPolygons polys_;
    std::size_t solids_ = 0;
    std::unordered_map<std::int64_t, Origin> solid_ids_, side_ids_, entity_ids_;
    std::unordered_set<std::int64_t> side_ids_present_;
};

}  // namespace

void validate(const Map& map, Diagnostics& out, const kv::Document* tree,
              const ValidateOptions& opt) {
    Validator(map, out, tree, opt).run();
}

}  // namespace lk::vmf

namespace lk::vmf {

namespace {

void take_max(std::int64_t& next, std::int64_t id) {
    if (id >= next) next = id + 1;
}

void scan_ids(const Entity& e, NextIds& ids) {
    take_max(ids.entity, e.id());
    for (const Solid& s : e.solids) {
        take_max(ids.solid, s.id);
        for (const Side& side : s.sides) take_max(ids.side, side.id);
    }
    for (const Group& g : e.groups) take_max(ids.entity, g.id);
}

}  // namespace

NextIds next_ids(const Map& map) {
    NextIds ids;
    if (map.has_world) scan_ids(map.world, ids);
    for (const Entity& e : map.entities) scan_ids(e, ids);
    return ids;
}

Solid box_solid(const Aabb& box, std::string_view material, NextIds& ids) {
    const Vec3 lo = box.mins, hi = box.maxs;
    const Vec3 x{1, 0, 0}, y{0, 1, 0}, down{0, 0, -1}, minus_y{0, -1, 0};
    struct Face {
        std::array<Vec3, 3> points;
        Vec3 u, v;
    };
    // Hammer's block tool: points clockwise seen from outside, so the plane normal (VBSP's rule)
    // points out of the brush.
    const std::array<Face, 6> faces = {{
        {{{{lo.x, hi.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, lo.y, hi.z}}}, x, minus_y},
        {{{{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}}}, x, minus_y},
        {{{{lo.x, hi.y, hi.z}, {lo.x, lo.y, hi.z}, {lo.x, lo.y, lo.z}}}, y, down},
        {{{{hi.x, hi.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, lo.y, hi.z}}}, y, down},
        {{{{hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}, {lo.x, hi.y, lo.z}}}, x, down},
        {{{{hi.x, lo.y, lo.z}, {lo.x, lo.y, lo.z}, {lo.x, lo.y, hi.z}}}, x, down},
    }};
    Solid solid;
    solid.id = ids.solid++;
    for (const Face& f : faces) {
        Side side;
        side.present = Side::kId | Side::kPlane | Side::kMaterial | Side::kUAxis | Side::kVAxis |
                       Side::kRotation | Side::kLightmapScale | Side::kSmoothingGroups;
        side.id = ids.side++;
        side.plane_points = f.points;
        side.material = std::string(material);
        side.uaxis = {f.u, 0, 0.25};
        side.vaxis = {f.v, 0, 0.25};
        solid.sides.push_back(std::move(side));
    }
    solid.editor.present = true;
    solid.editor.color = std::array<int, 3>{0, 180, 240};
    solid.editor.visgroup_shown = true;
    solid.editor.visgroup_autoshown = true;
    return solid;
}

}  // namespace lk::vmf
