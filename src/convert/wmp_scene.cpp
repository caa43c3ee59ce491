#include "levelkit/convert/wmp_scene.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gamestudio_keyvalues.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/wmp/resolve.hpp"

namespace lk::convert {

namespace {

using gamestudio::byte_of;
using gamestudio::hex;
using gamestudio::num;
using gamestudio::source_angles;
using gamestudio::vec;

scene::TextureAxis texture_axis(const wmp::TexAxis& t, double scale) {
    const double len = length(t.axis);
    if (len < 1e-12) return {};
    // texel = dot(t, p_quants) + offset = dot(t / |t|, p_units) / (scale * |t|^-1 ...).
    return {t.axis / len, t.offset, scale / len};
}

// A brush from convex face polygons; each face is turned to face away from the middle of the
// solid, so callers need not care about winding. nullopt if a face has no area.
std::optional<scene::Brush> convex_brush(const std::vector<std::array<Vec3, 4>>& faces,
                                         const std::string& material, double texture_scale,
                                         double shift_u = 0, double shift_v = 0) {
    Vec3 middle;
    for (const auto& f : faces) {
        for (const Vec3& p : f) middle += p;
    }
    middle = middle / (4.0 * static_cast<double>(faces.size()));
    scene::Brush b;
    for (auto f : faces) {
        auto pts = plane_points_on_face(f);
        auto pl = pts ? Plane::from_points((*pts)[0], (*pts)[1], (*pts)[2]) : std::nullopt;
        if (pl && pl->distance_to(middle) > 0) {
            std::reverse(f.begin(), f.end());
            pts = plane_points_on_face(f);
            pl = pts ? Plane::from_points((*pts)[0], (*pts)[1], (*pts)[2]) : std::nullopt;
        }
        if (!pl) return std::nullopt;
        scene::BrushSide sd;
        sd.points = *pts;
        sd.plane = *pl;
        sd.material = material;
        auto [u, v] = wmp::default_texture_axes(pl->normal);
        sd.u = {u.axis, shift_u, texture_scale};
        sd.v = {v.axis, shift_v, texture_scale};
        b.sides.push_back(std::move(sd));
    }
    return b;
}

class WmpConverter {
public:
    WmpConverter(Diagnostics& diags, const WmpToSceneOptions& opt, WmpToSceneReport& report)
        : diags_(diags), opt_(opt), report_(report) {}

    scene::Scene run(const wmp::Level& lv) {
        scene::Scene s;
        s.source_format = "wmp";
        s.world.keys.push_back({"classname", "worldspawn"});
        s.metadata.push_back({"wmp_unit_scale", num(opt_.scale)});
        if (!lv.levels.empty()) level(lv.levels.front(), s);
        for (std::size_t i = 0; i < lv.blocks.size(); ++i) block(lv.blocks[i], i, s);
        entities(lv, s);
        return s;
    }

private:
    void level(const wmp::LevelInfo& li, scene::Scene& s) {
        scene::Entity& w = s.world;
        w.set("wmp_wad", li.wad);
        w.set("wmp_palette", li.palette);
        w.set("wmp_nexus", num(li.nexus));
        w.set("wmp_script", li.script.value_or(""));
        w.set("wmp_sun_azimuth", num(li.sun_azimuth));
        w.set("wmp_sun_elevation", num(li.sun_elevation));
        static constexpr const char* kColourNames[] = {
            "wmp_fog1", "wmp_fog2", "wmp_fog3", "wmp_fog4", "wmp_sun_color", "wmp_ambient_color"};
        for (std::size_t i = 0; i < li.colors.size() && i < 6; ++i) {
            w.set(kColourNames[i], vec({li.colors[i].r, li.colors[i].g, li.colors[i].b}));
        }
        // The sun as Source's light_environment: elevation above the horizon is minus pitch.
        scene::Entity sun;
        sun.set("classname", "light_environment");
        sun.set("origin", "0 0 0");
        sun.set("angles", "0 " + num(li.sun_azimuth) + " 0");
        sun.set("pitch", num(-li.sun_elevation));
        auto colour = [&](std::size_t i, double fallback) {
            const wmp::Rgb c =
                i < li.colors.size() ? li.colors[i] : wmp::Rgb{fallback, fallback, fallback};
            return fmt::format("{} {} {} 200", byte_of(c.r), byte_of(c.g), byte_of(c.b));
        };
        sun.set("_light", colour(4, 150 / 2.55));
        sun.set("_ambient", colour(5, 50 / 2.55));
        s.entities.push_back(std::move(sun));
        ++report_.entities;
    }

    // --- blocks ---------------------------------------------------------------------------

    void block(const wmp::Block& b, std::size_t index, scene::Scene& s) {
        ++report_.blocks;
        const double k = opt_.scale;
        std::vector<Vec3> verts;
        verts.reserve(b.vertices.size());
        for (const Vec3& v : b.vertices) verts.push_back(v * k);

        // One side per plane: faces coplanar with an earlier face fold into it.
        struct SideSrc {
            std::size_t face;
            Plane plane;
            std::vector<Vec3> polygon;
        };
        std::vector<SideSrc> sides;
        for (std::size_t fi = 0; fi < b.faces.size(); ++fi) {
            const wmp::Face& f = b.faces[fi];
            std::vector<Vec3> poly;
            for (std::uint32_t i : f.indices) {
                if (i < verts.size()) poly.push_back(verts[i]);
            }
            const Vec3 n = wmp::face_normal(verts, f);
            if (poly.size() < 3 || length(n) < 0.5 || winding_area(poly) < 1e-6) {
                ++report_.degenerate_faces;
                continue;
            }
            const Plane pl{n, dot(n, winding_center(poly))};
            bool merged = false;
            for (SideSrc& sd : sides) {
                if (same_plane(sd.plane, pl, 1e-4, 1e-2)) {
                    merged = true;
                    ++report_.merged_faces;
                    break;
                }
            }
            if (!merged) sides.push_back({fi, pl, std::move(poly)});
        }

        std::string why = closed_and_convex(b, verts);
        scene::Brush brush;
        brush.id = 0;
        if (why.empty()) {
            std::vector<std::optional<Plane>> planes;
            Vec3 center;
            for (const SideSrc& sd : sides) {
                auto pts = plane_points_on_face(sd.polygon);
                scene::BrushSide side;
                if (!pts) {
                    why = "degenerate side";
                    break;
                }
                side.points = *pts;
                side.plane = Plane::from_points((*pts)[0], (*pts)[1], (*pts)[2]).value_or(sd.plane);
                planes.push_back(side.plane);
                for (const Vec3& p : *pts) center += p;
                surface(b.faces[sd.face], side);
                brush.sides.push_back(std::move(side));
            }
            if (why.empty()) {
                // The planes must rebuild a valid brush, exactly as validation will do it.
                if (!planes.empty()) center = center / (3.0 * static_cast<double>(planes.size()));
                build_brush_polygons(planes, center, polys_);
                if (!polys_.valid())
                    why =
                        "invalid brush: " + std::string(to_string(polys_.problems.front().problem));
            }
        }
        if (!why.empty()) {
            report_.rejected.push_back({index, why});
            diags_.add(Diagnostic::warning("convert.block-not-brush",
                                           fmt::format("block {} cannot become a brush ({}); kept "
                                                       "as a mesh",
                                                       index, why))
                           .with_path("block[" + std::to_string(index) + "]"));
            s.world.meshes.push_back(mesh(b, verts));
            return;
        }
        brush.editor.comments = comments(b, sides);
        report_.sides += brush.sides.size();
        ++report_.brushes;
        s.world.brushes.push_back(std::move(brush));
    }

    // Empty if the block is a closed convex polyhedron, else why not.
    static std::string closed_and_convex(const wmp::Block& b, const std::vector<Vec3>& verts) {
        std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
        for (const wmp::Face& f : b.faces) {
            for (std::size_t i = 0; i < f.indices.size(); ++i) {
                const std::uint32_t a = f.indices[i], c = f.indices[(i + 1) % f.indices.size()];
                if (a == c) continue;
                ++edges[{a, c}];
            }
        }
        for (const auto& [e, n] : edges) {
            auto it = edges.find({e.second, e.first});
            if (n != 1 || it == edges.end() || it->second != 1) return "open";
        }
        for (const wmp::Face& f : b.faces) {
            const Vec3 n = wmp::face_normal(verts, f);
            if (length(n) < 0.5 || f.indices.empty()) continue;
            const double d = dot(n, verts[f.indices[0]]);
            for (const Vec3& v : verts) {
                if (dot(n, v) - d > 0.01) return "non-convex";
            }
        }
        return {};
    }

    void surface(const wmp::Face& f, scene::BrushSide& side) const {
        side.material = f.texture;
        if (f.t1 && f.t2) {
            side.u = texture_axis(*f.t1, opt_.scale);
            side.v = texture_axis(*f.t2, opt_.scale);
        }
        if (length(side.u.axis) < 0.5 || length(side.v.axis) < 0.5) {
            auto [a, c] = wmp::default_texture_axes(side.plane.normal);
            side.u = texture_axis(a, opt_.scale);
            side.v = texture_axis(c, opt_.scale);
        }
    }

    template <class Sides>
    static std::string comments(const wmp::Block& b, const Sides& sides) {
        std::string c =
            "wmp block=" + std::to_string(b.index.value_or(0)) + " flags=" + hex(b.flags);
        if (b.function) c += " function=" + *b.function;
        for (std::size_t i = 0; i < sides.size(); ++i) {
            const wmp::Face& f = b.faces[sides[i].face];
            if (f.flags == 0 && f.ambient == 0 && f.albedo == 50 && !f.material) continue;
            c += fmt::format("; side {} flags={} ambient={} albedo={}", i, hex(f.flags),
                             num(f.ambient), num(f.albedo));
            if (f.material) c += " material=" + *f.material;
        }
        return c;
    }

    static scene::Mesh mesh(const wmp::Block& b, const std::vector<Vec3>& verts) {
        scene::Mesh m;
        m.positions = verts;
        for (const wmp::Face& f : b.faces) {
            scene::Mesh::Face mf;
            mf.first = static_cast<std::uint32_t>(m.face_vertices.size());
            // Scene meshes wind counter-clockwise seen from outside; WED winds clockwise.
            for (auto it = f.indices.rbegin(); it != f.indices.rend(); ++it) {
                if (*it < verts.size()) m.face_vertices.push_back(*it);
            }
            mf.count = static_cast<std::uint32_t>(m.face_vertices.size()) - mf.first;
            auto mat = std::find(m.materials.begin(), m.materials.end(), f.texture);
            mf.material = static_cast<std::uint32_t>(mat - m.materials.begin());
            if (mat == m.materials.end()) m.materials.push_back(f.texture);
            m.faces.push_back(mf);
        }
        return m;
    }

    // --- entities -------------------------------------------------------------------------

    void entities(const wmp::Level& lv, scene::Scene& s) {
        for (const wmp::Object& o : lv.objects) {
            if (o.payload < 0 || static_cast<std::size_t>(o.payload) >= lv.count(o.kind)) continue;
            const auto i = static_cast<std::size_t>(o.payload);
            switch (o.kind) {
                case wmp::Kind::model:
                    model(lv.models[i], o.transform, s);
                    break;
                case wmp::Kind::light:
                    light(lv.lights[i], o.transform, s);
                    break;
                case wmp::Kind::start:
                    start(lv.starts[i], o.transform, s);
                    break;
                case wmp::Kind::sound:
                    sound(lv.sounds[i], o.transform, s);
                    break;
                case wmp::Kind::path:
                    path(lv.paths[i], s);
                    break;
                case wmp::Kind::region:
                    region(lv.regions[i], s);
                    break;
                default:
                    break;
            }
        }
    }

    scene::Entity& add(scene::Scene& s, std::string_view cls, const wmp::Transform* t) {
        ++report_.entities;
        scene::Entity& e = s.entities.emplace_back();
        e.set("classname", cls);
        if (t) {
            e.set("origin", vec(t->position * opt_.scale));
            e.set("angles", source_angles(t->angles));
        }
        return e;
    }

    void model(const wmp::Model& m, const wmp::Transform& t, scene::Scene& s) {
        const wmp::ModelFileType type = wmp::model_file_type(m.file);
        const bool sprite =
            type == wmp::ModelFileType::sprite || type == wmp::ModelFileType::dds_sprite;
        const char* cls = sprite                                        ? "env_sprite"
                          : m.action && type == wmp::ModelFileType::mdl ? "prop_dynamic"
                                                                        : "prop_static";
        scene::Entity& e = add(s, cls, &t);
        e.set("model", m.file);
        if (!m.name.empty()) e.set("targetname", m.name);
        if (t.scale.x == t.scale.y && t.scale.y == t.scale.z && t.scale.x != 1) {
            e.set(sprite ? "scale" : "modelscale", num(t.scale.x));
        }
        static constexpr const char* kKinds[] = {"sprite", "sprite", "model", "map_entity",
                                                 "terrain"};
        e.set("wmp_kind", kKinds[static_cast<int>(type)]);
        e.set("wmp_name", m.name);
        e.set("wmp_action", m.action.value_or(""));
        e.set("wmp_scale", vec(t.scale));
        for (std::size_t i = 0; i < m.skills.size(); ++i) {
            e.set("wmp_skill" + std::to_string(i + 1), num(m.skills[i]));
        }
        e.set("wmp_flags", hex(m.flags));
        e.set("wmp_ambient", num(m.ambient));
        e.set("wmp_albedo", num(m.albedo));
        if (m.material) e.set("wmp_material", *m.material);
        if (m.path) e.set("wmp_path", *m.path);
        if (m.string2) e.set("wmp_string2", *m.string2);
        for (const wmp::TaggedString& ts : m.strings) {
            e.set("wmp_string_tag" + std::to_string(ts.tag), ts.text);
        }
    }

    void light(const wmp::Light& l, const wmp::Transform& t, scene::Scene& s) {
        scene::Entity& e = add(s, "light", &t);
        e.set("_light", fmt::format("{} {} {} 200", byte_of(l.color.r), byte_of(l.color.g),
                                    byte_of(l.color.b)));
        e.set("_distance", num(l.range * opt_.scale));
        e.set("wmp_color", vec({l.color.r, l.color.g, l.color.b}));
        e.set("wmp_range", num(l.range));
        e.set("wmp_flags", hex(l.flags));
    }

    void start(const wmp::Start& st, const wmp::Transform& t, scene::Scene& s) {
        scene::Entity& e = add(s, "info_player_start", &t);
        e.set("targetname", st.name);
        e.set("wmp_name", st.name);
        e.set("wmp_flags", hex(st.flags));
    }

    void sound(const wmp::Sound& snd, const wmp::Transform& t, scene::Scene& s) {
        scene::Entity& e = add(s, "ambient_generic", &t);
        e.set("message", snd.file);
        e.set("health", num(std::clamp(snd.volume / 10.0, 0.0, 10.0)));
        e.set("radius", num(snd.range * opt_.scale));
        e.set("wmp_file", snd.file);
        e.set("wmp_flags", hex(snd.flags));
        e.set("wmp_volume", num(snd.volume));
        e.set("wmp_value2", num(snd.param2));
        e.set("wmp_value3", num(snd.param3));
        e.set("wmp_range", num(snd.range));
    }

    void path(const wmp::Path& p, scene::Scene& s) {
        const std::size_t n = p.nodes.size();
        std::vector<std::vector<const wmp::PathEdge*>> out(n);
        for (const wmp::PathEdge& e : p.edges) {
            if (e.from < n && e.to < n) out[e.from].push_back(&e);
        }
        auto node_name = [&](std::size_t i) { return p.name + "_" + std::to_string(i); };
        for (std::size_t i = 0; i < n; ++i) {
            scene::Entity& e = add(s, "path_track", nullptr);
            e.set("origin", vec(p.nodes[i] * opt_.scale));
            e.set("targetname", node_name(i));
            if (!out[i].empty()) e.set("target", node_name(out[i][0]->to));
            if (out[i].size() > 1) e.set("altpath", node_name(out[i][1]->to));
            e.set("wmp_path", p.name);
            e.set("wmp_node", std::to_string(i));
            const std::size_t k = p.skills_per_node;
            for (std::size_t j = 0; k && j < k && i * k + j < p.node_skills.size(); ++j) {
                e.set("wmp_skill" + std::to_string(j + 1), num(p.node_skills[i * k + j]));
            }
            std::string edges;
            for (const wmp::PathEdge* pe : out[i]) {
                if (!edges.empty()) edges += "; ";
                edges += fmt::format("{} {} {} {} {}", pe->to, num(pe->values[0]),
                                     num(pe->values[1]), num(pe->values[2]), num(pe->values[3]));
            }
            if (!edges.empty()) e.set("wmp_edges", edges);
            if (i == 0) e.set("wmp_path_flags", hex(p.flags));
        }
    }

    void region(const wmp::Region& r, scene::Scene& s) {
        scene::Entity& e = add(s, "trigger_multiple", nullptr);
        e.set("targetname", r.name);
        e.set("wmp_name", r.name);
        e.set("wmp_flags", hex(r.flags));
        e.set("wmp_mins", vec(r.mins));
        e.set("wmp_maxs", vec(r.maxs));
        const Vec3 lo = r.mins * opt_.scale, hi = r.maxs * opt_.scale;
        if (hi.x - lo.x > 1e-3 && hi.y - lo.y > 1e-3 && hi.z - lo.z > 1e-3) {
            const Vec3 c[8] = {{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z},
                               {lo.x, hi.y, lo.z}, {lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z},
                               {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}};
            const std::vector<std::array<Vec3, 4>> faces = {
                {c[4], c[5], c[6], c[7]}, {c[0], c[1], c[2], c[3]}, {c[0], c[1], c[5], c[4]},
                {c[2], c[3], c[7], c[6]}, {c[3], c[0], c[4], c[7]}, {c[1], c[2], c[6], c[5]}};
            if (auto b = convex_brush(faces, "tools/toolstrigger", 0.25)) {
                e.brushes.push_back(std::move(*b));
            }
        }
    }

    Diagnostics& diags_;
    const WmpToSceneOptions& opt_;
    WmpToSceneReport& report_;
    BrushPolygons polys_;
};

}  // namespace

Result<scene::Scene> wmp_to_scene(const wmp::Level& level, Diagnostics& diags,
                                  const WmpToSceneOptions& opt, WmpToSceneReport* report) {
    WmpToSceneReport local;
    WmpToSceneReport& rep = report ? *report : local;
    WmpConverter c(diags, opt, rep);
    if (level.dialect == wmp::Dialect::mm) return c.run(level);
    auto resolved = wmp::resolve(level, {}, &diags);
    if (!resolved) return std::move(resolved).error();
    return c.run(resolved.value());
}

scene::Scene a3_to_scene(const wmp::A3Level& a, Diagnostics& diags, const WmpToSceneOptions& opt,
                         WmpToSceneReport* report) {
    WmpToSceneReport local;
    WmpToSceneReport& rep = report ? *report : local;
    scene::Scene s;
    s.source_format = "wmp";
    s.world.keys.push_back({"classname", "worldspawn"});
    s.metadata.push_back({"wmp_unit_scale", num(opt.scale)});
    const double k = opt.scale;
    auto region = [&](std::int64_t r) -> const wmp::A3Level::Region* {
        return r >= 0 && static_cast<std::size_t>(r) < a.regions.size()
                   ? &a.regions[static_cast<std::size_t>(r)]
                   : nullptr;
    };
    // Walls: one-region walls stand floor to ceiling; walls between two regions fill only the
    // height steps between their floors and between their ceilings (openings stay open).
    for (std::size_t wi = 0; wi < a.walls.size(); ++wi) {
        const wmp::A3Level::Wall& w = a.walls[wi];
        ++rep.blocks;
        const auto* r1 = region(w.region1);
        const auto* r2 = region(w.region2);
        const bool bad_vertex = w.v1 < 0 || w.v2 < 0 ||
                                static_cast<std::size_t>(w.v1) >= a.vertices.size() ||
                                static_cast<std::size_t>(w.v2) >= a.vertices.size();
        if (bad_vertex || (!r1 && !r2)) {
            rep.rejected.push_back({wi, "wall refers to a missing vertex or region"});
            diags.add(Diagnostic::warning(
                "convert.block-not-brush",
                fmt::format("wall {} refers to a missing vertex or region", wi)));
            continue;
        }
        const auto& p = a.vertices[static_cast<std::size_t>(w.v1)];
        const auto& q = a.vertices[static_cast<std::size_t>(w.v2)];
        std::vector<std::pair<double, double>> spans;
        if (!r1 || !r2 || w.region1 == w.region2) {
            const auto* r = r1 ? r1 : r2;
            spans.push_back({r->floor, r->ceiling});
        } else {
            spans.push_back({std::min(r1->floor, r2->floor), std::max(r1->floor, r2->floor)});
            spans.push_back(
                {std::min(r1->ceiling, r2->ceiling), std::max(r1->ceiling, r2->ceiling)});
        }
        const Vec3 a2{p.x * k, p.y * k, 0}, b2{q.x * k, q.y * k, 0};
        const Vec3 dir = b2 - a2;
        if (length(dir) < 1e-6) continue;
        const Vec3 side = normalize(cross(dir, {0, 0, 1})) * 0.5;
        for (const auto& [lo, hi] : spans) {
            if (hi - lo < 1e-6) continue;
            // A thin box along the wall.
            const Vec3 c[4] = {a2 - side, b2 - side, b2 + side, a2 + side};
            const Vec3 zl{0, 0, lo * k}, zh{0, 0, hi * k};
            std::vector<std::array<Vec3, 4>> faces = {{c[0] + zh, c[1] + zh, c[2] + zh, c[3] + zh},
                                                      {c[0] + zl, c[1] + zl, c[2] + zl, c[3] + zl}};
            for (int i = 0; i < 4; ++i) {
                const Vec3 u = c[i], v = c[(i + 1) % 4];
                faces.push_back({u + zh, u + zl, v + zl, v + zh});
            }
            auto made = convex_brush(faces, w.name, k, w.offset_x, w.offset_y);
            if (!made) continue;
            scene::Brush brush = std::move(*made);
            brush.editor.comments =
                fmt::format("wmp a3 wall={} regions={} {}", wi, w.region1, w.region2);
            rep.sides += brush.sides.size();
            ++rep.brushes;
            s.world.brushes.push_back(std::move(brush));
        }
    }
    auto thing = [&](const wmp::A3Level::Thing& t, std::string_view cls, std::string_view kind) {
        scene::Entity& e = s.entities.emplace_back();
        ++rep.entities;
        const auto* r = region(t.region);
        e.set("classname", cls);
        e.set("origin", vec({t.x * k, t.y * k, (r ? r->floor : 0) * k}));
        e.set("angles", "0 " + num(t.angle) + " 0");
        e.set("wmp_kind", kind);
        e.set("wmp_name", t.name);
        e.set("wmp_region", std::to_string(t.region));
    };
    for (const auto& t : a.things) thing(t, "prop_static", "thing");
    for (const auto& t : a.actors) thing(t, "prop_dynamic", "actor");
    for (const auto& p : a.player_starts) {
        thing({"", p.x, p.y, p.angle, p.region}, "info_player_start", "player_start");
    }
    for (const auto& w : a.ways) {
        for (std::size_t i = 0; i < w.points.size(); ++i) {
            scene::Entity& e = s.entities.emplace_back();
            ++rep.entities;
            e.set("classname", "path_track");
            e.set("origin", vec({w.points[i][0] * k, w.points[i][1] * k, 0}));
            e.set("targetname", w.name + "_" + std::to_string(i));
            if (i + 1 < w.points.size()) e.set("target", w.name + "_" + std::to_string(i + 1));
            e.set("wmp_way", w.name);
        }
    }
    return s;
}

}  // namespace lk::convert
