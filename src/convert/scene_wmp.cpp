#include "levelkit/convert/scene_wmp.hpp"
#include "levelkit/core/numbers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"

namespace lk::convert {

namespace {

// Geometry tolerances, in quants.
constexpr double kWeld = 1e-3;     // corners closer than this are one vertex
constexpr double kOnPlane = 0.02;  // a corner this close to a plane lies on it
constexpr double kMinEdge = 0.02;  // shorter polygon edges are removed
constexpr double kMinArea = 1e-3;  // faces with less area are dropped
constexpr std::size_t kMaxBlockPlanes = 256;

// --- editor comment parsing --------------------------------------------------------------

struct Surface {
    std::uint32_t flags = 0;
    double ambient = 0, albedo = 50;
    std::optional<std::string> material;
};

struct BlockMeta {
    std::uint32_t flags = 0;
    std::optional<std::string> function;
    std::map<std::size_t, Surface> sides;  // by side (brushes) or face (meshes) index
};

// WMP flags: 32 bits. A longer number is no flags value (nullopt), not truncated.
std::optional<std::uint32_t> parse_hex(std::string_view s) {
    if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
    std::uint32_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

// `key=value` pairs of one comment part (values run to the next space).
std::map<std::string, std::string, std::less<>> fields(std::string_view part) {
    std::map<std::string, std::string, std::less<>> out;
    for (std::string_view tok : split_ws(part)) {
        const auto eq = tok.find('=');
        if (eq == std::string_view::npos) continue;
        out.emplace(std::string(tok.substr(0, eq)), std::string(tok.substr(eq + 1)));
    }
    return out;
}

// Flags from `text` (empty: 0); text that is not a 32-bit hex number gives 0 and a warning.
std::uint32_t flags_of(std::string_view text, std::string_view what, Diagnostics& diags) {
    if (text.empty()) return 0;
    if (auto v = parse_hex(text)) return *v;
    diags.add(Diagnostic::warning(
        "convert.bad-value",
        fmt::format("{} flags '{}' are not a 32-bit hex number: 0 written", what, text)));
    return 0;
}

BlockMeta parse_meta(std::string_view comments, Diagnostics& diags) {
    BlockMeta m;
    while (!comments.empty()) {
        const auto at = comments.find("; ");
        const std::string_view part = trim(comments.substr(0, at));
        comments = at == std::string_view::npos ? std::string_view{} : comments.substr(at + 2);
        const auto f = fields(part);
        auto get = [&](std::string_view k) -> const std::string* {
            auto it = f.find(k);
            return it == f.end() ? nullptr : &it->second;
        };
        if (part.starts_with("wmp block=")) {
            if (const auto* v = get("flags")) m.flags = flags_of(*v, "wmp block", diags);
            if (const auto* v = get("function")) m.function = *v;
            continue;
        }
        if (!part.starts_with("side ") && !part.starts_with("face ")) continue;
        const auto words = split_ws(part);
        if (words.size() < 2) continue;
        const auto index = parse_uint(words[1]);
        if (!index) continue;
        Surface s;
        if (const auto* v = get("flags")) s.flags = flags_of(*v, "wmp face", diags);
        if (const auto* v = get("ambient")) s.ambient = parse_double(*v).value_or(0);
        if (const auto* v = get("albedo")) s.albedo = parse_double(*v).value_or(50);
        if (const auto* v = get("material")) s.material = *v;
        m.sides[static_cast<std::size_t>(*index)] = s;
    }
    return m;
}

// --- polygons -----------------------------------------------------------------------------

// A face to become (part of) a block, in quants.
struct Poly {
    std::vector<Vec3> pts;  // wound clockwise seen from outside (WED's winding)
    Vec3 normal;            // outward
    double dist = 0;
    double area = 0;
    std::string material;
    scene::TextureAxis u, v;  // in scene units (as the scene stores them)
    Surface surface;
};

Vec3 newell_cw(const std::vector<Vec3>& w) {
    // Clockwise seen from outside: the area vector of the reversed polygon.
    return -winding_area_vector(w);
}

// Removes repeated and collinear corners; false if fewer than 3 remain or the face has no area.
bool clean(Poly& p) {
    std::vector<Vec3>& w = p.pts;
    for (const Vec3& v : w) {
        if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) return false;
    }
    for (bool changed = true; changed && w.size() >= 3;) {
        changed = false;
        for (std::size_t i = 0; i < w.size() && w.size() >= 3; ++i) {
            const Vec3& a = w[(i + w.size() - 1) % w.size()];
            const Vec3& b = w[i];
            const Vec3& c = w[(i + 1) % w.size()];
            const Vec3 ac = c - a;
            const double len = length(ac);
            bool drop = distance(a, b) < kMinEdge;
            if (!drop && len > 1e-12) {
                drop = length(cross(b - a, ac)) / len < kMinEdge * 0.25;
            }
            if (drop) {
                w.erase(w.begin() + static_cast<std::ptrdiff_t>(i));
                changed = true;
                break;
            }
        }
    }
    if (w.size() < 3) return false;
    const Vec3 av = newell_cw(w);
    p.area = length(av);
    if (p.area < kMinArea) return false;
    p.normal = av / p.area;
    p.dist = dot(p.normal, winding_center(w));
    return true;
}

bool is_convex(const Poly& p) {
    const std::size_t n = p.pts.size();
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3& a = p.pts[i];
        const Vec3& b = p.pts[(i + 1) % n];
        const Vec3& c = p.pts[(i + 2) % n];
        // Clockwise seen from outside: each turn goes against the normal.
        if (dot(cross(b - a, c - b), p.normal) > 1e-9 * (1 + length(b - a) * length(c - b))) {
            return false;
        }
    }
    return true;
}

// An orthonormal basis of the plane with normal n.
std::pair<Vec3, Vec3> plane_basis(const Vec3& n) {
    const Vec3 e1 = normalize(std::abs(n.z) < 0.9 ? cross(n, {0, 0, 1}) : cross(n, {1, 0, 0}));
    return {e1, cross(n, e1)};
}

// Convex hull of coplanar points (plane normal n), wound clockwise seen from the normal's side.
std::vector<Vec3> hull(const std::vector<Vec3>& pts, const Vec3& n) {
    if (pts.size() < 3) return pts;
    const auto [e1, e2] = plane_basis(n);
    struct P {
        double x, y;
        std::size_t i;
    };
    std::vector<P> q;
    for (std::size_t i = 0; i < pts.size(); ++i) q.push_back({dot(pts[i], e1), dot(pts[i], e2), i});
    std::sort(q.begin(), q.end(),
              [](const P& a, const P& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    auto turn = [](const P& o, const P& a, const P& b) {
        return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
    };
    std::vector<P> h(2 * q.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
        while (k >= 2 && turn(h[k - 2], h[k - 1], q[i]) <= 1e-9) --k;
        h[k++] = q[i];
    }
    for (std::size_t i = q.size() - 1, t = k + 1; i-- > 0;) {
        while (k >= t && turn(h[k - 2], h[k - 1], q[i]) <= 1e-9) --k;
        h[k++] = q[i];
    }
    h.resize(k > 0 ? k - 1 : 0);
    // Counter-clockwise in (e1, e2), i.e. seen from +n; WED wants clockwise.
    std::vector<Vec3> out;
    for (auto it = h.rbegin(); it != h.rend(); ++it) out.push_back(pts[it->i]);
    return out;
}

// Triangles of a simple polygon (ear clipping in the face plane).
std::vector<std::array<std::size_t, 3>> triangulate(const Poly& p) {
    const auto basis = plane_basis(p.normal);
    const Vec3 e1 = basis.first, e2 = basis.second;
    std::vector<std::size_t> idx(p.pts.size());
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    auto xy = [&](std::size_t i) { return std::pair{dot(p.pts[i], e1), dot(p.pts[i], e2)}; };
    // Clockwise seen from +n: a convex corner turns negatively in (e1, e2).
    auto cross2 = [&](std::size_t a, std::size_t b, std::size_t c) {
        const auto [ax, ay] = xy(a);
        const auto [bx, by] = xy(b);
        const auto [cx, cy] = xy(c);
        return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    };
    std::vector<std::array<std::size_t, 3>> out;
    std::size_t guard = 0;
    while (idx.size() > 3 && guard++ < 10000) {
        bool cut = false;
        for (std::size_t i = 0; i < idx.size(); ++i) {
            const std::size_t a = idx[(i + idx.size() - 1) % idx.size()], b = idx[i],
                              c = idx[(i + 1) % idx.size()];
            if (cross2(a, b, c) >= -1e-9) continue;  // reflex or flat
            bool inside = false;
            for (std::size_t j : idx) {
                if (j == a || j == b || j == c) continue;
                if (cross2(a, b, j) < 0 && cross2(b, c, j) < 0 && cross2(c, a, j) < 0) {
                    inside = true;
                    break;
                }
            }
            if (inside) continue;
            out.push_back({a, b, c});
            idx.erase(idx.begin() + static_cast<std::ptrdiff_t>(i));
            cut = true;
            break;
        }
        if (!cut) break;
    }
    if (idx.size() == 3) out.push_back({idx[0], idx[1], idx[2]});
    return out;
}

// --- the converter --------------------------------------------------------------------

std::string key_or(const scene::Entity& e, std::string_view key, std::string_view fallback = {}) {
    return std::string(e.get(key, fallback));
}

std::optional<double> key_num(const scene::Entity& e, std::string_view key) {
    const std::string_view v = e.get(key);
    if (v.empty()) return std::nullopt;
    return parse_double(trim(v));
}

class SceneWmpConverter {
public:
    SceneWmpConverter(Diagnostics& diags, const SceneToWmpOptions& opt, SceneToWmpReport& report)
        : diags_(diags), opt_(opt), k_(opt.scale > 0 ? opt.scale : 1.0), report_(report) {}

    Result<wmp::Level> run(const scene::Scene& s) {
        lv_.dialect = wmp::Dialect::wmp2_a6;
        lv_.header.editor.emplace("levelkit");
        lv_.header.version = 710;
        lv_.wed.present = true;
        lv_.wed.has_palette = true;
        lv_.wed.has_wad_section = true;
        wmp::Object root;
        root.name = "Root";
        root.kind = wmp::Kind::level;
        root.payload = 0;
        lv_.objects.push_back(root);
        lv_.root = 0;
        level(s);

        for (std::size_t i = 0; i < s.world.brushes.size(); ++i) brush(s.world.brushes[i]);
        for (const scene::Mesh& m : s.world.meshes) mesh(m);
        for (const scene::Entity& e : s.entities) entity(e);
        paths(s);
        return wmp::convert(lv_, wmp::Dialect::wmp2_a6);
    }

private:
    // --- objects --------------------------------------------------------------------------

    void add_object(wmp::Kind kind, std::size_t payload, const wmp::Transform& t,
                    std::optional<std::string> name = std::nullopt) {
        wmp::Object o;
        o.kind = kind;
        o.payload = static_cast<std::int32_t>(payload);
        o.transform = t;
        o.name = std::move(name);
        lv_.objects[lv_.root].children.push_back(static_cast<std::uint32_t>(lv_.objects.size()));
        lv_.objects.push_back(std::move(o));
    }

    wmp::Transform placement(const scene::Entity& e) const {
        wmp::Transform t;
        if (auto o = e.origin()) t.position = *o / k_;
        if (auto a = e.angles()) t.angles = wed_object_angles(angle_matrix(*a));
        return t;
    }

    // --- the level record -----------------------------------------------------------------

    void level(const scene::Scene& s) {
        const scene::Entity& w = s.world;
        wmp::LevelInfo li;
        li.wad = opt_.wad.empty() ? key_or(w, "wmp_wad", "level.$$w") : opt_.wad;
        if (li.wad.empty()) li.wad = "level.$$w";
        li.palette = key_or(w, "wmp_palette", "palette.pcx");
        if (li.palette.empty()) li.palette = "palette.pcx";
        li.nexus = key_num(w, "wmp_nexus").value_or(30);
        if (const std::string v = key_or(w, "wmp_script"); !v.empty()) li.script = v;
        const scene::Entity* sun = nullptr;
        for (const scene::Entity& e : s.entities) {
            if (e.classname() == "light_environment") {
                sun = &e;
                break;
            }
        }
        if (auto az = key_num(w, "wmp_sun_azimuth")) {
            li.sun_azimuth = *az;
        } else if (sun && sun->angles()) {
            li.sun_azimuth = sun->angles()->y;
        }
        if (auto el = key_num(w, "wmp_sun_elevation")) {
            li.sun_elevation = *el;
        } else if (sun) {
            if (auto p = key_num(*sun, "pitch")) li.sun_elevation = -*p;
        }
        static constexpr const char* kColours[] = {
            "wmp_fog1", "wmp_fog2", "wmp_fog3", "wmp_fog4", "wmp_sun_color", "wmp_ambient_color"};
        for (std::size_t i = 0; i < 6; ++i) {
            if (auto c = lk::parse_vec3(w.get(kColours[i]))) li.colors[i] = {c->x, c->y, c->z};
        }
        auto byte_colour = [&](const scene::Entity* e, std::string_view key, std::size_t slot) {
            if (!e || !w.get(kColours[slot]).empty()) return;
            const auto parts = split_ws(e->get(key));
            if (parts.size() < 3) return;
            double c[3];
            for (int i = 0; i < 3; ++i)
                c[i] = parse_double(parts[static_cast<std::size_t>(i)]).value_or(0) * 100 / 255;
            li.colors[slot] = {c[0], c[1], c[2]};
        };
        byte_colour(sun, "_light", 4);
        byte_colour(sun, "_ambient", 5);
        lv_.levels.push_back(std::move(li));
    }

    // --- blocks ---------------------------------------------------------------------------

    // A block from polygons in quants (WED winding), placed at its rounded centre.
    void emit_brush(const std::vector<Poly>& faces, const BlockMeta& meta) {
        scene::Brush b;
        std::string c = fmt::format("wmp block={} flags=0x{:x}", brush_sink_->size(), meta.flags);
        if (meta.function) c += " function=" + *meta.function;
        for (const Poly& p : faces) {
            std::vector<Vec3> w;
            for (const Vec3& v : p.pts) w.push_back(v * k_);
            scene::BrushSide sd;
            sd.plane = Plane{p.normal, p.dist * k_};
            if (auto pts = plane_points_on_face(w)) {
                sd.points = *pts;
                if (auto pl = Plane::from_points((*pts)[0], (*pts)[1], (*pts)[2])) sd.plane = *pl;
            }
            sd.material = p.material.empty() ? "#default" : p.material;
            sd.u = p.u;
            sd.v = p.v;
            if (length(sd.u.axis) < 0.5 || length(sd.v.axis) < 0.5) {
                auto [a, bx] = wmp::default_texture_axes(p.normal);
                sd.u = {a.axis, 0, k_};
                sd.v = {bx.axis, 0, k_};
            }
            const Surface& f = p.surface;
            if (f.flags != 0 || f.ambient != 0 || f.albedo != 50 || f.material) {
                c += fmt::format("; side {} flags=0x{:x} ambient={} albedo={}", b.sides.size(),
                                 f.flags, format_fixed(f.ambient, 6), format_fixed(f.albedo, 6));
                if (f.material) c += " material=" + *f.material;
            }
            b.sides.push_back(std::move(sd));
        }
        b.editor.comments = std::move(c);
        brush_sink_->push_back(std::move(b));
    }

    void emit_block(const std::vector<Poly>& faces, const BlockMeta& meta) {
        if (brush_sink_) return emit_brush(faces, meta);
        wmp::Block b;
        Aabb box;
        for (const Poly& p : faces) {
            for (const Vec3& v : p.pts) box.add(v);
        }
        const Vec3 c = box.center();
        const Vec3 origin{std::round(c.x), std::round(c.y), std::round(c.z)};
        auto vertex = [&](const Vec3& p) {
            const Vec3 q = p - origin;
            for (std::size_t i = 0; i < b.vertices.size(); ++i) {
                if (near(b.vertices[i], q, kWeld)) return static_cast<std::uint32_t>(i);
            }
            b.vertices.push_back(q);
            return static_cast<std::uint32_t>(b.vertices.size() - 1);
        };
        for (const Poly& p : faces) {
            wmp::Face f;
            for (const Vec3& v : p.pts) f.indices.push_back(vertex(v));
            f.texture = p.material.empty() ? "#default" : p.material;
            texture(p, f);
            f.flags = p.surface.flags;
            f.ambient = p.surface.ambient;
            f.albedo = p.surface.albedo;
            f.material = p.surface.material;
            b.faces.push_back(std::move(f));
        }
        b.flags = meta.flags;
        b.function = meta.function;
        lv_.blocks.push_back(std::move(b));
        wmp::Transform t;
        t.position = origin;
        add_object(wmp::Kind::block, lv_.blocks.size() - 1, t);
    }

    // Scene axis (texel = dot(p_units, axis) / scale + shift) -> WED texture vector of unit
    // length plus placement controls that bake back to the same mapping (resolve.hpp). WED
    // keeps texture offsets in world space, so the block's position does not enter.
    void texture(const Poly& p, wmp::Face& f) const {
        auto axis = [&](const scene::TextureAxis& a, double& offset, double& scale) {
            if (length(a.axis) < 0.5) return std::optional<wmp::TexAxis>{};
            // texel = dot(p_q, dir * k / sc) + shift with p_q the position in quants.
            const double sc = a.scale != 0 ? a.scale : 1;
            offset = a.shift;
            scale = sc / k_;
            return std::optional<wmp::TexAxis>{wmp::TexAxis{normalize(a.axis), 0}};
        };
        wmp::TexTransform tr;
        auto t1 = axis(p.u, tr.offset_x, tr.scale_x);
        auto t2 = axis(p.v, tr.offset_y, tr.scale_y);
        if (!t1 || !t2) {
            auto [a, b] = wmp::default_texture_axes(p.normal);
            t1 = a;
            t2 = b;
            tr = {};
        }
        f.t1 = t1;
        f.t2 = t2;
        f.transform = tr;
    }

    void brush(const scene::Brush& b) {
        std::vector<std::optional<Plane>> planes;
        Vec3 c;
        std::size_t n = 0;
        for (const auto& sd : b.sides) {
            planes.push_back(Plane{sd.plane.normal, sd.plane.dist / k_});
            if (sd.points) {
                for (const Vec3& p : *sd.points) c += p / k_;
                n += 3;
            }
        }
        if (n) c = c / double(n);
        build_brush_polygons(planes, c, polys_);
        if (!polys_.valid() || polys_.face_count() != b.sides.size()) {
            ++report_.invalid_brushes;
            diags_.add(Diagnostic::warning("convert.invalid-brush",
                                           fmt::format("brush {} does not close a convex volume; "
                                                       "skipped",
                                                       b.id)));
            return;
        }
        const BlockMeta meta = parse_meta(b.editor.comments, diags_);
        std::vector<Poly> faces;
        for (std::size_t i = 0; i < b.sides.size(); ++i) {
            Poly p;
            const auto w = polys_.face(i);
            p.pts.assign(w.begin(), w.end());
            p.material = b.sides[i].material;
            p.u = b.sides[i].u;
            p.v = b.sides[i].v;
            if (auto it = meta.sides.find(i); it != meta.sides.end()) p.surface = it->second;
            if (!clean(p)) continue;
            faces.push_back(std::move(p));
        }
        if (faces.size() < 4) {
            ++report_.invalid_brushes;
            return;
        }
        ++report_.brush_blocks;
        emit_block(faces, meta);
    }

    // The faces of a mesh as polygons in quants, WED winding; surfaces from the comments.
    std::vector<Poly> mesh_polys(const scene::Mesh& m, const BlockMeta& meta) {
        std::vector<Poly> out;
        for (std::size_t fi = 0; fi < m.faces.size(); ++fi) {
            const auto& f = m.faces[fi];
            Poly p;
            bool ok = f.count >= 3 && std::size_t{f.first} + f.count <= m.face_vertices.size();
            // Scene meshes wind counter-clockwise seen from outside; WED clockwise.
            for (std::uint32_t k = f.count; ok && k-- > 0;) {
                const std::uint32_t vi = m.face_vertices[f.first + k];
                if (vi >= m.positions.size()) {
                    ok = false;
                    break;
                }
                p.pts.push_back(m.positions[vi] / k_);
            }
            if (!ok || !clean(p)) {
                ++report_.dropped_faces;
                continue;
            }
            p.material = f.material < m.materials.size() ? m.materials[f.material] : "";
            p.u = f.u;
            p.v = f.v;
            if (auto it = meta.sides.find(fi); it != meta.sides.end()) p.surface = it->second;
            out.push_back(std::move(p));
        }
        return out;
    }

    // The block faces of polygons `ids` if they close a convex solid (see the header). With
    // `caps`, a convex group that does not close is closed by the planes of its bounding box
    // (a compiler drops the faces where blocks touch); every face of the group must then lie
    // on the solid's surface. `capped` tells which happened.
    std::optional<std::vector<Poly>> convex_solid(const std::vector<Poly>& polys,
                                                  const std::vector<std::size_t>& ids, bool caps,
                                                  bool& capped) {
        capped = false;
        if (ids.size() < (caps ? 2u : 4u)) return std::nullopt;
        struct PlaneGroup {
            Vec3 normal;
            double dist;
            std::vector<std::size_t> members;
        };
        std::vector<PlaneGroup> groups;
        for (std::size_t i : ids) {
            const Poly& p = polys[i];
            bool placed = false;
            for (PlaneGroup& g : groups) {
                if (near(g.normal, p.normal, 1e-3) && std::abs(g.dist - p.dist) < kOnPlane) {
                    g.members.push_back(i);
                    placed = true;
                    break;
                }
            }
            if (!placed) groups.push_back({p.normal, p.dist, {i}});
            // A block has a handful of faces; a mesh with this many planes is not one (and the
            // search would grow quadratically).
            if (groups.size() > kMaxBlockPlanes) return std::nullopt;
        }
        Vec3 center;
        Aabb box;
        std::size_t n = 0;
        for (std::size_t i : ids) {
            for (const Vec3& v : polys[i].pts) {
                for (const PlaneGroup& g : groups) {
                    if (dot(g.normal, v) - g.dist > kOnPlane) return std::nullopt;
                }
                center += v;
                box.add(v);
                ++n;
            }
        }
        center = center / double(n);
        auto largest = [&](const std::vector<std::size_t>& members) {
            return *std::max_element(
                members.begin(), members.end(),
                [&](std::size_t a, std::size_t b) { return polys[a].area < polys[b].area; });
        };
        std::vector<std::optional<Plane>> planes;
        for (const PlaneGroup& g : groups) {
            const Poly& big = polys[largest(g.members)];
            planes.push_back(Plane{big.normal, big.dist});
        }
        const std::size_t own = planes.size();
        auto faces_of = [&](bool with_caps) -> std::optional<std::vector<Poly>> {
            build_brush_polygons(planes, center, polys_);
            if (!polys_.valid() || polys_.face_count() != planes.size()) return std::nullopt;
            std::vector<Poly> faces;
            const std::size_t overall = largest(ids);
            for (std::size_t gi = 0; gi < planes.size(); ++gi) {
                const auto w = polys_.face(gi);
                const double face_area = winding_area(w);
                Poly p;
                if (gi < own) {
                    double covered = 0;
                    for (std::size_t i : groups[gi].members) covered += polys[i].area;
                    const double tol = 0.005 * face_area + 0.05;
                    if (covered > face_area + tol) return std::nullopt;
                    if (!with_caps && covered < face_area - tol) return std::nullopt;
                    p = polys[largest(groups[gi].members)];
                } else {
                    p = polys[overall];
                    p.surface = {};
                }
                // The solid's polygons as they are: their corners are shared exactly with
                // the neighbouring faces, so no corner may be dropped from one of them.
                p.pts.assign(w.begin(), w.end());
                remove_duplicate_points(p.pts, kWeld);
                if (p.pts.size() < 3 || winding_area(p.pts) < kMinArea) return std::nullopt;
                faces.push_back(std::move(p));
            }
            return faces;
        };
        if (groups.size() >= 4) {
            if (auto f = faces_of(false)) return f;
        }
        if (!caps) return std::nullopt;
        // Close with the bounding box planes that the group's own planes do not already give.
        const Plane box_planes[6] = {{{1, 0, 0}, box.maxs.x}, {{-1, 0, 0}, -box.mins.x},
                                     {{0, 1, 0}, box.maxs.y}, {{0, -1, 0}, -box.mins.y},
                                     {{0, 0, 1}, box.maxs.z}, {{0, 0, -1}, -box.mins.z}};
        for (const Plane& bp : box_planes) {
            bool have = false;
            for (std::size_t gi = 0; gi < own && !have; ++gi) {
                have = near(planes[gi]->normal, bp.normal, 1e-3) &&
                       std::abs(planes[gi]->dist - bp.dist) < kOnPlane;
            }
            if (!have) planes.push_back(bp);
        }
        auto f = faces_of(true);
        if (!f) return std::nullopt;
        // Every corner of the group must lie on the solid's surface (on one of its planes).
        for (std::size_t i : ids) {
            for (const Vec3& v : polys[i].pts) {
                bool on = false;
                for (const auto& pl : planes) on = on || std::abs(pl->distance_to(v)) < kOnPlane;
                if (!on) return std::nullopt;
            }
        }
        capped = true;
        return f;
    }

    void mesh(const scene::Mesh& m) {
        const BlockMeta meta = parse_meta(m.editor.comments, diags_);
        std::vector<Poly> polys = mesh_polys(m, meta);
        if (polys.empty()) return;
        std::vector<std::size_t> all(polys.size());
        std::iota(all.begin(), all.end(), std::size_t{0});
        bool capped = false;
        if (auto faces = convex_solid(polys, all, true, capped)) {
            ++(capped ? report_.capped_blocks : report_.solid_blocks);
            emit_block(*faces, meta);
            return;
        }
        // Faces sharing two corners across a convex edge belong to the same solid.
        std::map<std::array<long long, 3>, std::vector<std::size_t>> at;
        auto key = [](const Vec3& v) {
            return std::array<long long, 3>{std::llround(v.x / kWeld / 10),
                                            std::llround(v.y / kWeld / 10),
                                            std::llround(v.z / kWeld / 10)};
        };
        for (std::size_t i = 0; i < polys.size(); ++i) {
            for (const Vec3& v : polys[i].pts) {
                auto& list = at[key(v)];
                if (list.empty() || list.back() != i) list.push_back(i);
            }
        }
        std::map<std::pair<std::size_t, std::size_t>, int> shared;
        for (const auto& [k, list] : at) {
            for (std::size_t a = 0; a < list.size(); ++a) {
                for (std::size_t b = a + 1; b < list.size(); ++b) ++shared[{list[a], list[b]}];
            }
        }
        std::vector<std::size_t> parent(polys.size());
        std::iota(parent.begin(), parent.end(), std::size_t{0});
        auto find = [&](std::size_t x) {
            while (parent[x] != x) x = parent[x] = parent[parent[x]];
            return x;
        };
        auto behind = [&](const Poly& plane, const Poly& p) {
            for (const Vec3& v : p.pts) {
                if (dot(plane.normal, v) - plane.dist > kOnPlane) return false;
            }
            return true;
        };
        for (const auto& [pair, count] : shared) {
            if (count < 2) continue;
            const Poly& a = polys[pair.first];
            const Poly& b = polys[pair.second];
            if (dot(a.normal, b.normal) < -0.999) continue;  // back to back
            if (behind(a, b) && behind(b, a)) parent[find(pair.first)] = find(pair.second);
        }
        std::map<std::size_t, std::vector<std::size_t>> groups;
        for (std::size_t i = 0; i < polys.size(); ++i) groups[find(i)].push_back(i);
        std::vector<std::size_t> loose;
        for (const auto& [root, ids] : groups) {
            if (auto faces = convex_solid(polys, ids, true, capped)) {
                ++(capped ? report_.capped_blocks : report_.solid_blocks);
                emit_block(*faces, meta);
            } else {
                loose.insert(loose.end(), ids.begin(), ids.end());
            }
        }
        thin_blocks(polys, loose, meta);
    }

    // Faces that belong to no solid: coplanar same-material faces are merged while their union
    // stays convex, then each face becomes a prism.
    void thin_blocks(const std::vector<Poly>& polys, std::vector<std::size_t> ids,
                     const BlockMeta& meta) {
        // Only faces of one material on (nearly) one plane can merge: bucket them first, so
        // large meshes stay linear.
        std::map<std::tuple<std::string, long long, long long, long long, long long>,
                 std::vector<std::size_t>>
            buckets;
        std::sort(ids.begin(), ids.end());
        for (std::size_t i : ids) {
            const Poly& p = polys[i];
            buckets[{p.material, std::llround(p.normal.x * 1e3), std::llround(p.normal.y * 1e3),
                     std::llround(p.normal.z * 1e3), std::llround(p.dist / (4 * kOnPlane))}]
                .push_back(i);
        }
        // Emit in the faces' order, so blocks follow the mesh.
        std::vector<std::pair<std::size_t, std::vector<Poly>>> out;
        for (auto& [key, members] : buckets) merge_coplanar(polys, members, out);
        std::sort(out.begin(), out.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [first, faces] : out) {
            for (const Poly& p : faces) {
                if (is_convex(p)) {
                    prism(p, meta);
                    continue;
                }
                ++report_.split_faces;
                for (const auto& t : triangulate(p)) {
                    Poly tri = p;
                    tri.pts = {p.pts[t[0]], p.pts[t[1]], p.pts[t[2]]};
                    if (clean(tri)) prism(tri, meta);
                }
            }
        }
    }

    // Merges faces of one bucket while their union stays convex; appends (first face index,
    // merged faces).
    void merge_coplanar(const std::vector<Poly>& polys, const std::vector<std::size_t>& ids,
                        std::vector<std::pair<std::size_t, std::vector<Poly>>>& out) {
        std::vector<bool> done(ids.size(), false);
        for (std::size_t a = 0; a < ids.size(); ++a) {
            if (done[a]) continue;
            Poly cur = polys[ids[a]];
            done[a] = true;
            for (bool grew = true; grew;) {
                grew = false;
                for (std::size_t b = a + 1; b < ids.size(); ++b) {
                    const Poly& o = polys[ids[b]];
                    if (done[b] || o.surface.flags != cur.surface.flags ||
                        !near(o.normal, cur.normal, 1e-3) ||
                        std::abs(o.dist - cur.dist) > kOnPlane || !touches(cur, o)) {
                        continue;
                    }
                    std::vector<Vec3> pts = cur.pts;
                    pts.insert(pts.end(), o.pts.begin(), o.pts.end());
                    Poly merged = cur;
                    merged.pts = hull(pts, cur.normal);
                    if (!clean(merged)) continue;
                    if (std::abs(merged.area - (cur.area + o.area)) > 0.001 * merged.area + 0.01) {
                        continue;
                    }
                    cur = std::move(merged);
                    done[b] = true;
                    ++report_.merged_faces;
                    grew = true;
                }
            }
            out.push_back({ids[a], {std::move(cur)}});
        }
    }

    static bool touches(const Poly& a, const Poly& b) {
        Aabb ba, bb;
        for (const Vec3& v : a.pts) ba.add(v);
        for (const Vec3& v : b.pts) bb.add(v);
        return ba.overlaps(bb, kOnPlane);
    }

    void prism(Poly top, const BlockMeta& meta) {
        // Compiled faces are planar only to float precision; the block's faces must be exact.
        for (Vec3& v : top.pts) v -= top.normal * (dot(top.normal, v) - top.dist);
        if (!clean(top)) return;
        // The other faces are built from the cleaned top as they are, so every corner is
        // shared exactly.
        const Vec3 back = top.normal * -opt_.thin_thickness;
        std::vector<Poly> faces;
        faces.push_back(top);
        Poly bottom = top;
        bottom.surface = {};
        bottom.normal = -top.normal;
        bottom.pts.clear();
        for (auto it = top.pts.rbegin(); it != top.pts.rend(); ++it)
            bottom.pts.push_back(*it + back);
        faces.push_back(bottom);
        const std::size_t n = top.pts.size();
        for (std::size_t i = 0; i < n; ++i) {
            const Vec3& a = top.pts[i];
            const Vec3& b = top.pts[(i + 1) % n];
            Poly side = top;
            side.surface = {};
            // Clockwise seen from outside: along the top edge backwards, then down.
            side.pts = {b, a, a + back, b + back};
            side.normal = normalize(cross(b - a, top.normal));
            faces.push_back(std::move(side));
        }
        ++report_.thin_blocks;
        emit_block(faces, meta);
    }

    // --- entities -------------------------------------------------------------------------

    void entity(const scene::Entity& e) {
        const std::string cls(e.classname());
        // Brush entities: their brushes become blocks (regions excepted).
        const bool region = cls == "trigger_multiple" && !e.get("wmp_mins").empty();
        if (!region) {
            for (const scene::Brush& b : e.brushes) brush(b);
            for (const scene::Mesh& m : e.meshes) mesh(m);
        }
        if (cls == "light_environment" || cls == "path_track") return;
        if (region) return add_region(e);
        if (cls == "info_player_start") return add_start(e);
        if (cls == "light" || cls == "light_spot") return add_light(e);
        if (cls == "ambient_generic") return add_sound(e);
        if (!e.get("model").empty() && e.get("model").front() != '*') return add_model(e);
        if (e.brushes.empty() && e.meshes.empty()) {
            report_.skipped_entities.push_back(cls);
            diags_.add(
                Diagnostic::note("convert.entity-skipped",
                                 fmt::format("{} has no WMP counterpart; not written", cls)));
        }
    }

    std::string name_of(const scene::Entity& e) const {
        std::string n = key_or(e, "wmp_name");
        return n.empty() ? key_or(e, "targetname") : n;
    }

    void add_model(const scene::Entity& e) {
        wmp::Model m;
        m.file = std::string(e.get("model"));
        m.name = name_of(e);
        if (const std::string a = key_or(e, "wmp_action"); !a.empty()) m.action = a;
        std::vector<double> skills;
        for (int i = 1; i <= 20; ++i) {
            if (auto v = key_num(e, "wmp_skill" + std::to_string(i))) {
                skills.resize(static_cast<std::size_t>(i), 0.0);
                skills[static_cast<std::size_t>(i - 1)] = *v;
            }
        }
        skills.resize(skills.size() > 8 ? 20 : 8, 0.0);
        m.skills = std::move(skills);
        m.flags = flags_of(e.get("wmp_flags"), e.classname(), diags_);
        m.ambient = key_num(e, "wmp_ambient").value_or(0);
        m.albedo = key_num(e, "wmp_albedo").value_or(50);
        if (const std::string v = key_or(e, "wmp_material"); !v.empty()) m.material = v;
        if (const std::string v = key_or(e, "wmp_path"); !v.empty()) m.path = v;
        if (const std::string v = key_or(e, "wmp_string2"); !v.empty()) m.string2 = v;
        wmp::Transform t = placement(e);
        if (auto sc = lk::parse_vec3(e.get("wmp_scale"))) {
            t.scale = *sc;
        } else if (auto s = key_num(e, "modelscale")) {
            t.scale = {*s, *s, *s};
        } else if (auto s2 = key_num(e, "scale")) {
            t.scale = {*s2, *s2, *s2};
        }
        m.scale = t.scale;
        const std::string label = m.name;
        lv_.models.push_back(std::move(m));
        add_object(wmp::Kind::model, lv_.models.size() - 1, t,
                   label.empty() ? std::nullopt : std::optional(label));
        ++report_.entities;
    }

    void add_start(const scene::Entity& e) {
        wmp::Start st;
        st.name = name_of(e);
        if (st.name.empty()) st.name = fmt::format("pos_{:03}", lv_.starts.size());
        lv_.starts.push_back(st);
        add_object(wmp::Kind::start, lv_.starts.size() - 1, placement(e), st.name);
        ++report_.entities;
    }

    void add_light(const scene::Entity& e) {
        wmp::Light l;
        if (auto c = lk::parse_vec3(e.get("wmp_color"))) {
            l.color = {c->x, c->y, c->z};
        } else if (auto c2 = lk::parse_vec3(e.get("_light"))) {
            l.color = {c2->x * 100 / 255, c2->y * 100 / 255, c2->z * 100 / 255};
        }
        l.range = key_num(e, "wmp_range").value_or(key_num(e, "_distance").value_or(0) / k_);
        l.flags = flags_of(e.get("wmp_flags"), e.classname(), diags_);
        lv_.lights.push_back(l);
        add_object(wmp::Kind::light, lv_.lights.size() - 1, placement(e));
        ++report_.entities;
    }

    void add_sound(const scene::Entity& e) {
        wmp::Sound s;
        s.file = key_or(e, "wmp_file");
        if (s.file.empty()) s.file = key_or(e, "message");
        s.flags = flags_of(e.get("wmp_flags"), e.classname(), diags_);
        s.volume = key_num(e, "wmp_volume").value_or(key_num(e, "health").value_or(10) * 10);
        s.param2 = key_num(e, "wmp_value2").value_or(0);
        s.param3 = key_num(e, "wmp_value3").value_or(1);
        s.range = key_num(e, "wmp_range").value_or(key_num(e, "radius").value_or(0) / k_);
        lv_.sounds.push_back(s);
        add_object(wmp::Kind::sound, lv_.sounds.size() - 1, placement(e));
        ++report_.entities;
    }

    void add_region(const scene::Entity& e) {
        wmp::Region g;
        g.name = name_of(e);
        g.mins = lk::parse_vec3(e.get("wmp_mins")).value_or(Vec3{});
        g.maxs = lk::parse_vec3(e.get("wmp_maxs")).value_or(Vec3{});
        g.flags = flags_of(e.get("wmp_flags"), e.classname(), diags_);
        lv_.regions.push_back(g);
        // WED places a region's object at the centre of its (world-space) box.
        wmp::Transform t;
        t.position = (g.mins + g.maxs) * 0.5;
        add_object(wmp::Kind::region, lv_.regions.size() - 1, t, g.name);
        ++report_.entities;
    }

    // path_track entities: grouped by `wmp_path` (ordered by `wmp_node`) or, without it, into
    // chains along their `target` links.
    void paths(const scene::Scene& s) {
        std::map<std::string, std::vector<const scene::Entity*>> named;
        std::vector<const scene::Entity*> plain;
        for (const scene::Entity& e : s.entities) {
            if (e.classname() != "path_track" || !e.origin()) continue;
            if (e.get("wmp_path").empty()) {
                plain.push_back(&e);
            } else {
                named[std::string(e.get("wmp_path"))].push_back(&e);
            }
        }
        for (auto& [name, nodes] : named) {
            std::stable_sort(nodes.begin(), nodes.end(), [](const auto* a, const auto* b) {
                return parse_int(a->get("wmp_node")).value_or(0) <
                       parse_int(b->get("wmp_node")).value_or(0);
            });
            wmp::Path p;
            p.name = name;
            p.flags = flags_of(nodes.front()->get("wmp_path_flags"), "wmp path", diags_);
            for (std::size_t i = 0; i < nodes.size(); ++i) {
                const scene::Entity& n = *nodes[i];
                p.nodes.push_back(*n.origin() / k_);
                for (int j = 1; j <= 6; ++j) {
                    p.node_skills.push_back(
                        key_num(n, "wmp_skill" + std::to_string(j)).value_or(0));
                }
                std::string_view edges = n.get("wmp_edges");
                while (!edges.empty()) {
                    const auto at = edges.find("; ");
                    const auto w = split_ws(edges.substr(0, at));
                    edges =
                        at == std::string_view::npos ? std::string_view{} : edges.substr(at + 2);
                    if (w.size() < 5) continue;
                    const auto to = parse_uint(w[0]);
                    if (!to || *to >= nodes.size()) continue;
                    wmp::PathEdge ed;
                    ed.from = static_cast<std::uint32_t>(i);
                    ed.to = static_cast<std::uint32_t>(*to);
                    for (int j = 0; j < 4; ++j)
                        ed.values[static_cast<std::size_t>(j)] =
                            parse_double(w[static_cast<std::size_t>(j + 1)]).value_or(0);
                    p.edges.push_back(ed);
                }
            }
            add_path(std::move(p));
        }
        // Chains: start at nodes nobody targets, follow `target`.
        std::unordered_map<std::string, std::size_t> by_name;
        for (std::size_t i = 0; i < plain.size(); ++i) by_name[key_or(*plain[i], "targetname")] = i;
        std::vector<bool> targeted(plain.size()), used(plain.size());
        for (const auto* e : plain) {
            auto it = by_name.find(key_or(*e, "target"));
            if (it != by_name.end()) targeted[it->second] = true;
        }
        for (int pass = 0; pass < 2; ++pass) {
            for (std::size_t start = 0; start < plain.size(); ++start) {
                if (used[start] || (pass == 0 && targeted[start])) continue;
                wmp::Path p;
                p.name = key_or(*plain[start], "targetname");
                if (p.name.empty()) p.name = fmt::format("path_{:03}", lv_.paths.size());
                for (std::size_t at = start; at < plain.size() && !used[at];) {
                    used[at] = true;
                    if (!p.nodes.empty()) {
                        p.edges.push_back({static_cast<std::uint32_t>(p.nodes.size() - 1),
                                           static_cast<std::uint32_t>(p.nodes.size()),
                                           {1, 0, 0, 0}});
                    }
                    p.nodes.push_back(*plain[at]->origin() / k_);
                    for (int j = 0; j < 6; ++j) p.node_skills.push_back(0);
                    auto it = by_name.find(key_or(*plain[at], "target"));
                    if (it == by_name.end()) break;
                    if (used[it->second]) {
                        // A closed loop: the last edge goes back to the first node.
                        if (it->second == start) {
                            p.edges.push_back(
                                {static_cast<std::uint32_t>(p.nodes.size() - 1), 0, {1, 0, 0, 0}});
                        }
                        break;
                    }
                    at = it->second;
                }
                add_path(std::move(p));
            }
        }
    }

    void add_path(wmp::Path p) {
        p.skills_per_node = 6;
        p.has_node_skills = true;
        const std::string name = p.name;
        lv_.paths.push_back(std::move(p));
        add_object(wmp::Kind::path, lv_.paths.size() - 1, {}, name);
        ++report_.entities;
    }

    Diagnostics& diags_;
    const SceneToWmpOptions& opt_;
    double k_;
    SceneToWmpReport& report_;
    wmp::Level lv_;
    BrushPolygons polys_;
    std::vector<scene::Brush>* brush_sink_ = nullptr;

public:
    // Brushes instead of WMP blocks (mesh_blocks()).
    void set_brush_sink(std::vector<scene::Brush>* sink) { brush_sink_ = sink; }
    void mesh_only(const scene::Mesh& m) { mesh(m); }
};

}  // namespace

Vec3 wed_object_angles(const Mat3& r) {
    // R = Rz(a) * Rx(b) * Ry(-c): row 2 is (-cos b sin c, sin b, cos b cos c), column 1 is
    // (-sin a cos b, cos a cos b, sin b).
    const auto& m = r.m;
    const double b = std::asin(std::clamp(m[7], -1.0, 1.0));
    if (std::sqrt(m[6] * m[6] + m[8] * m[8]) > 1e-9) {
        return {std::atan2(-m[1], m[4]), b, std::atan2(-m[6], m[8])};
    }
    // Gimbal lock (b = +-90 degrees): put the whole turn into a.
    return {std::atan2(m[3], m[0]), b, 0};
}

std::vector<scene::Brush> mesh_blocks(const scene::Mesh& mesh, Diagnostics& diags,
                                      const SceneToWmpOptions& opt, SceneToWmpReport* report) {
    SceneToWmpReport local;
    std::vector<scene::Brush> out;
    SceneWmpConverter c(diags, opt, report ? *report : local);
    c.set_brush_sink(&out);
    c.mesh_only(mesh);
    return out;
}

Result<wmp::Level> scene_to_wmp(const scene::Scene& scene, Diagnostics& diags,
                                const SceneToWmpOptions& opt, SceneToWmpReport* report) {
    SceneToWmpReport local;
    SceneWmpConverter c(diags, opt, report ? *report : local);
    return c.run(scene);
}

}  // namespace lk::convert
