// Helpers shared by the WMB corpus tests: finding the WMP a WMB was compiled from and comparing
// two scenes' entities and face areas.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "levelkit/core/geometry.hpp"
#include "levelkit/core/numbers.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk::test {

// The WMP with the same stem in the same directory (corpus names encode repository and path).
inline std::optional<std::filesystem::path> wmp_beside(const std::filesystem::path& wmb) {
    for (const char* ext : {".wmp", ".WMP", ".Wmp"}) {
        auto p = wmb;
        p.replace_extension(ext);
        if (std::filesystem::exists(p)) return p;
    }
    return std::nullopt;
}

// The "; "-separated parts of a wmp_scene/wmb_scene editor comment.
inline std::vector<std::string_view> split_sides(std::string_view c) {
    std::vector<std::string_view> out;
    while (!c.empty()) {
        const auto at = c.find("; ");
        out.push_back(c.substr(0, at));
        if (at == std::string_view::npos) break;
        c.remove_prefix(at + 2);
    }
    return out;
}

// Gamestudio surface flags per side/face index from a wmp_scene/wmb_scene editor comment.
inline std::map<std::size_t, unsigned long> surface_flags(std::string_view comments) {
    std::map<std::size_t, unsigned long> out;
    for (std::string_view part : split_sides(comments)) {
        if (!part.starts_with("side ") && !part.starts_with("face ")) continue;
        const auto at = part.find("flags=0x");
        if (at == std::string_view::npos) continue;
        out[std::stoul(std::string(part.substr(5)))] =
            std::stoul(std::string(part.substr(at + 8)), nullptr, 16);
    }
    return out;
}

// Surface type "none" (low nibble 11): not drawn.
inline bool invisible_surface(unsigned long flags) {
    return (flags & 0xf) == 0xb;
}

inline std::string vec_text(const Vec3& v) {
    return fmt::format("{} {} {}", v.x, v.y, v.z);
}

struct EntityMatch {
    std::size_t total = 0, found = 0;
    std::vector<std::string> missing;
};

// The file an entity refers to (model, sprite, sound), lower-cased.
inline std::string entity_file(const scene::Entity& e) {
    std::string f(e.get("model"));
    if (f.empty()) f = e.get("message");
    return to_lower(f);
}

// Every entity of `src` with an origin (regions by their box) must have a counterpart in `dst`:
// the same file and a position within `tol`. Each counterpart is used once.
// With `round_source`, source positions are rounded to whole units first (WMB1..4 store
// them so).
inline EntityMatch match_entities(const scene::Scene& src, const scene::Scene& dst, double tol,
                                  bool round_source = false) {
    EntityMatch m;
    std::vector<bool> used(dst.entities.size());
    for (const scene::Entity& e : src.entities) {
        if (e.classname() == "light_environment") continue;
        const bool region = e.classname() == "trigger_multiple";
        std::optional<Vec3> o = e.origin();
        if (o && round_source) *o = {std::round(o->x), std::round(o->y), std::round(o->z)};
        std::optional<Vec3> lo, hi;
        if (region) {
            lo = lk::parse_vec3(e.get("wmp_mins"));
            hi = lk::parse_vec3(e.get("wmp_maxs"));
            if (!lo || !hi) continue;
        } else if (!o) {
            continue;
        }
        ++m.total;
        const std::string file = entity_file(e);
        bool found = false;
        for (std::size_t i = 0; i < dst.entities.size() && !found; ++i) {
            if (used[i]) continue;
            const scene::Entity& c = dst.entities[i];
            if (region) {
                auto clo = lk::parse_vec3(c.get("wmp_mins"));
                auto chi = lk::parse_vec3(c.get("wmp_maxs"));
                found = c.classname() == "trigger_multiple" && clo && chi && near(*clo, *lo, tol) &&
                        near(*chi, *hi, tol);
            } else {
                auto co = c.origin();
                found = co && distance(*co, *o) <= tol && entity_file(c) == file;
            }
            if (found) used[i] = true;
        }
        if (!found) {
            // The nearest candidate with the same file, to tell moved from missing entities.
            double best = INFINITY;
            std::string best_at;
            for (const scene::Entity& c : dst.entities) {
                auto co = region ? lk::parse_vec3(c.get("wmp_mins")) : c.origin();
                const auto ref = region ? lo : o;
                if (!co || entity_file(c) != file || c.classname() != e.classname()) continue;
                if (distance(*co, *ref) < best) {
                    best = distance(*co, *ref);
                    best_at = vec_text(*co);
                }
            }
            m.missing.push_back(fmt::format("{} '{}' at {} (nearest same file: {} at {})",
                                            e.classname(), file,
                                            e.get(region ? "wmp_mins" : "origin"), best, best_at));
        } else {
            ++m.found;
        }
    }
    return m;
}

// The parts of polygon `w` (on a side of brush `self` facing `normal`) that lie outside brush
// `other` (its planes), appended to `out`. Parts lying on a plane of `other` count as inside
// when that plane faces the other way (two blocks touching), and when it faces the same way
// only if `other` comes later in the compile order (of two coplanar faces one is kept), as a
// BSP compiler's CSG does. `self` and `other_index` are places in that order (see
// compile_order).
inline void outside_parts(const Winding& w, const Vec3& normal, std::size_t self,
                          const std::vector<Plane>& other, std::size_t other_index,
                          std::vector<Winding>& out) {
    constexpr double eps = 0.01;
    Winding cur = w, front, back;
    for (const Plane& pl : other) {
        double lo = INFINITY, hi = -INFINITY;
        for (const Vec3& p : cur) {
            const double d = pl.distance_to(p);
            lo = std::min(lo, d);
            hi = std::max(hi, d);
        }
        if (hi <= eps && lo >= -eps) {
            const bool same = dot(pl.normal, normal) > 0;
            if (!same || other_index > self) continue;
            out.push_back(std::move(cur));
            return;
        }
        if (hi <= eps) continue;
        if (lo >= -eps) {
            out.push_back(std::move(cur));
            return;
        }
        clip_winding_back(cur, pl.flipped(), 0, front);
        clip_winding_back(cur, pl, 0, back);
        if (front.size() >= 3) out.push_back(front);
        cur = back;
        if (cur.size() < 3) return;
    }
}

// True if the ray from `o` along `d` enters the convex solid bounded by `planes` at a
// distance in (min_t, inf).
inline bool ray_hits(const std::vector<Plane>& planes, const Vec3& o, const Vec3& d, double min_t) {
    double t0 = min_t, t1 = INFINITY;
    for (const Plane& pl : planes) {
        const double dn = dot(pl.normal, d), dist = pl.distance_to(o);
        if (std::abs(dn) < 1e-12) {
            if (dist > 0) return false;
            continue;
        }
        const double t = -dist / dn;
        if (dn < 0) {
            t0 = std::max(t0, t);
        } else {
            t1 = std::min(t1, t);
        }
        if (t0 > t1) return false;
    }
    return t0 <= t1;
}

// The place of each block in the map compiler's CSG order: water and sky blocks go first (in
// file order), then all other blocks (in file order), as Quake's qbsp orders brushes before its
// CSG (Brush_LoadEntity: "add all of the water textures at the start"; WMB1..6 keep Quake's BSP
// lists). So where a water or sky face lies on a solid block's face, both facing the same way,
// the solid face is kept and the water or sky face is not (canyon.wmb: its outer sky walls lose
// the parts where rock blocks reach them, 0.7M of 3.2M square quants).
inline std::vector<std::size_t> compile_order(const std::vector<int>& contents) {
    std::vector<std::size_t> order(contents.size());
    for (std::size_t i = 0; i < contents.size(); ++i) {
        const bool first = contents[i] == 1 || contents[i] == 3;
        order[i] = (first ? 0 : contents.size()) + i;
    }
    return order;
}

// Directions for ray tests: the 26 neighbours of a cube cell.
inline std::vector<Vec3> ray_directions() {
    std::vector<Vec3> out;
    for (int x = -1; x <= 1; ++x) {
        for (int y = -1; y <= 1; ++y) {
            for (int z = -1; z <= 1; ++z) {
                if (x || y || z) out.push_back(normalize(Vec3(x, y, z)));
            }
        }
    }
    return out;
}

// A block face's plane as the A4/A5 map compiler often snaps it: written WED-style in world
// coordinates, as the point where the plane crosses the axis of its normal's largest component
// plus that point moved 500 quants along the plane's two WED tangents (each in the plane of that
// axis and one other, going up along the other axis), with all three points rounded to whole
// quants. Axial planes so move to whole-quant distances and slanted ones tilt by up to ~2 mrad.
// The WMB1..4 plane lists hold exactly these planes for 80 block sides of tree1.wmb (every one
// that is neither axial nor hidden: its trunk sides cross the x axis at 35 and 13 instead of
// 35.3 and 12.7, which makes the thin trunk 2.6% smaller than the exact planes do), 86 of
// canyon.wmb, 67 of FLYLEVEL.WMB, 28 of hh_demo.wmb, 24 of teleport.wmb, 23 of lift1.wmb; but
// testwall.wmb (150), walltest.wmb (33) and forest1.wmb (60) hold the exact planes, dream.wmb
// mixes both (2 snapped, 10 exact), and a rotated block (canyon.wmb's block 28) gets neither.
inline Plane compiler_snapped_plane(const Plane& pl) {
    const Vec3& n = pl.normal;
    int a = 0;
    for (int i = 1; i < 3; ++i) {
        if (std::abs(n[i]) > std::abs(n[a])) a = i;
    }
    if (std::abs(n[a]) < 1e-9) return pl;
    Vec3 p0;
    p0[a] = pl.dist / n[a];
    auto snap = [](const Vec3& v) {
        return Vec3(std::round(v.x), std::round(v.y), std::round(v.z));
    };
    std::array<Vec3, 2> t;
    for (int k = 0, b = 0; b < 3; ++b) {
        if (b == a) continue;
        Vec3 dir;  // in the plane and in the plane of axes a and b, going up along b
        dir[b] = 1;
        dir[a] = -n[b] / n[a];
        t[k++] = snap(p0 + normalize(dir) * 500.0);
    }
    const Vec3 q0 = snap(p0);
    Vec3 m = normalize(cross(t[0] - q0, t[1] - q0));
    if (!(length(m) > 0.5)) return pl;
    if (dot(m, n) < 0) m = -m;
    return {m, dot(m, q0)};
}

// True if `planes` holds `p` (either way round) as a WMB stores it (floats).
inline bool holds_plane(const std::vector<Plane>& planes, const Plane& p) {
    return std::any_of(planes.begin(), planes.end(), [&](const Plane& q) {
        const double s = dot(q.normal, p.normal) < 0 ? -1 : 1;
        return length(cross(q.normal, p.normal)) < 3e-5 &&
               std::abs(q.dist * s - p.dist) < 0.02 + std::abs(p.dist) * 1e-6;
    });
}

// The plane a block side was compiled with: its snapped plane (compiler_snapped_plane) where the
// compiled level's plane list (`compiled`, WMB1..4) holds that and not the exact plane. Whether
// the compiler snapped a plane is not in the WMP (it differs between builds and within one
// level), so the WMB's own plane list tells.
inline Plane compiled_plane(const Plane& exact, const std::vector<Plane>* compiled) {
    if (!compiled) return exact;
    const Plane snapped = compiler_snapped_plane(exact);
    if (same_plane(snapped, exact, 1e-9, 1e-6)) return exact;
    return holds_plane(*compiled, snapped) && !holds_plane(*compiled, exact) ? snapped : exact;
}

// Area of every world face per material name. Brush sides count only where no other brush
// covers them (see outside_parts), so hidden faces are left out as the map compiler leaves
// them out; mesh faces count whole.
// With `compiled` (the WMB's plane list), block planes are first replaced as compiled_plane
// does.
inline std::map<std::string, double> areas_by_material(
    const scene::Scene& s, bool csg, bool* sealed_out = nullptr,
    const std::vector<Plane>* compiled = nullptr) {
    std::map<std::string, double> out;
    struct Solid {
        std::vector<Plane> planes;
        std::vector<Winding> faces;
        Aabb box;
    };
    std::vector<Solid> solids;
    std::vector<int> contents;  // 0 solid, 1 water, 2 passable, 3 sky, 4 not compiled
    BrushPolygons polys;
    for (const scene::Brush& b : s.world.brushes) {
        // Gamestudio face flags from wmp_scene's comments ("side <n> flags=0x49 ..."): low
        // nibble 9 is water, bit 6 passable.
        int cont = 0;
        for (std::string_view part : split_sides(b.editor.comments)) {
            // Block flag bit 2 keeps a block out of the compiled level (all 20 such blocks of
            // the corpus pairs are missing from their WMBs).
            if (part.starts_with("wmp block=")) {
                const auto at = part.find("flags=0x");
                if (at != std::string_view::npos &&
                    (std::stoul(std::string(part.substr(at + 8)), nullptr, 16) & 4)) {
                    cont = 4;
                }
                continue;
            }
            const auto at = part.find("flags=0x");
            if (!part.starts_with("side ") || at == std::string_view::npos) continue;
            const auto flags = std::stoul(std::string(part.substr(at + 8)), nullptr, 16);
            if (cont == 4) continue;
            if ((flags & 0xf) == 9) cont = std::max(cont, 1);
            if ((flags & 0xf) == 5) cont = std::max(cont, 3);
            if (flags & 0x40) cont = std::max(cont, 2);
        }
        contents.push_back(cont);
        std::vector<std::optional<Plane>> planes;
        Vec3 c;
        for (const auto& sd : b.sides) {
            planes.push_back(compiled_plane(sd.plane, compiled));
            if (sd.points) c += ((*sd.points)[0] + (*sd.points)[1] + (*sd.points)[2]) / 3.0;
        }
        if (!b.sides.empty()) c = c / double(b.sides.size());
        build_brush_polygons(planes, c, polys);
        Solid so;
        for (std::size_t i = 0; i < b.sides.size(); ++i) {
            so.planes.push_back(*planes[i]);
            Winding w;
            if (i < polys.face_count()) w.assign(polys.face(i).begin(), polys.face(i).end());
            for (const Vec3& p : w) so.box.add(p);
            so.faces.push_back(std::move(w));
        }
        solids.push_back(std::move(so));
    }
    // A sealed BSP level (every ray from every entity hits a solid block) loses the faces that
    // look into the void: fragments from which a ray along the normal escapes.
    const auto dirs = ray_directions();
    auto escapes = [&](const Vec3& o, const Vec3& d) {
        for (std::size_t j = 0; j < solids.size(); ++j) {
            if (contents[j] == 0 && ray_hits(solids[j].planes, o, d, 1e-3)) return false;
        }
        return true;
    };
    bool sealed = csg;
    std::size_t probes = 0;
    for (const scene::Entity& e : s.entities) {
        auto o = e.origin();
        if (!o || !sealed || e.classname() == "light_environment") continue;
        bool inside = false;
        for (std::size_t j = 0; j < solids.size() && !inside; ++j) {
            inside = contents[j] == 0 &&
                     std::all_of(solids[j].planes.begin(), solids[j].planes.end(),
                                 [&](const Plane& pl) { return pl.distance_to(*o) < 0; });
        }
        if (inside) continue;
        ++probes;
        for (const Vec3& d : dirs) {
            if (escapes(*o, d)) {
                sealed = false;
                break;
            }
        }
    }
    if (probes == 0) sealed = false;
    if (sealed_out) *sealed_out = sealed;
    const std::vector<std::size_t> order = compile_order(contents);
    // A fragment of a sealed level looks into the void when its side of the face is connected
    // to the outside: the compiler floods the void from outside and drops every face facing
    // it. Rays along the 26 directions from just in front of the fragment stand in for that
    // flood; one escaping ray means the point is outside (a ray along the normal alone misses
    // outside faces whose normal points at another, separate part of the level: dream.wmb).
    auto in_void = [&](const Vec3& o) {
        return std::any_of(dirs.begin(), dirs.end(), [&](const Vec3& d) { return escapes(o, d); });
    };
    std::vector<Winding> parts, next;
    for (std::size_t i = 0; i < solids.size(); ++i) {
        const scene::Brush& b = s.world.brushes[i];
        if (contents[i] == 4) continue;
        const auto sflags = surface_flags(b.editor.comments);
        for (std::size_t k = 0; k < solids[i].faces.size(); ++k) {
            if (auto it = sflags.find(k); it != sflags.end() && invisible_surface(it->second)) {
                continue;
            }
            parts.assign(1, solids[i].faces[k]);
            if (parts[0].size() < 3) continue;
            Aabb fb;
            for (const Vec3& p : parts[0]) fb.add(p);
            for (std::size_t j = 0; csg && j < solids.size() && !parts.empty(); ++j) {
                if (j == i || !solids[j].box.overlaps(fb, 0.02)) continue;
                // Solid blocks hide faces; water hides water and sky sky (one surface where
                // two blocks of them meet).
                if (contents[j] != 0 && !(contents[j] != 2 && contents[j] == contents[i])) continue;
                next.clear();
                for (const Winding& w : parts) {
                    outside_parts(w, solids[i].planes[k].normal, order[i], solids[j].planes,
                                  order[j], next);
                }
                parts.swap(next);
            }
            for (const Winding& w : parts) {
                if (sealed && contents[i] != 3 &&
                    in_void(winding_center(w) + solids[i].planes[k].normal * 0.05)) {
                    continue;
                }
                out[to_lower(b.sides[k].material)] += winding_area(w);
            }
        }
    }
    for (const scene::Mesh& m : s.world.meshes) {
        std::vector<Vec3> poly;
        // Faces compiled for both sides (water and sky surfaces) count once.
        std::set<std::pair<std::uint32_t, std::vector<std::array<long long, 3>>>> seen;
        const auto sflags = surface_flags(m.editor.comments);
        for (std::size_t fi = 0; fi < m.faces.size(); ++fi) {
            const auto& f = m.faces[fi];
            if (auto it = sflags.find(fi); it != sflags.end() && invisible_surface(it->second)) {
                continue;
            }
            std::vector<std::array<long long, 3>> key;
            for (std::uint32_t k = 0; k < f.count; ++k) {
                const Vec3& p = m.positions[m.face_vertices[f.first + k]];
                key.push_back(
                    {std::llround(p.x * 8), std::llround(p.y * 8), std::llround(p.z * 8)});
            }
            std::sort(key.begin(), key.end());
            if (!seen.insert({f.material, std::move(key)}).second) continue;
            poly.clear();
            for (std::uint32_t k = 0; k < f.count; ++k) {
                poly.push_back(m.positions[m.face_vertices[f.first + k]]);
            }
            const std::string mat = f.material < m.materials.size() ? m.materials[f.material] : "";
            out[to_lower(mat)] += winding_area(poly);
        }
    }
    return out;
}

struct AreaMatch {
    std::size_t textures = 0, textures_off = 0;
    bool sealed = false;
    double wmp_area = 0, wmb_area = 0;
    std::vector<std::string> off;
};

inline AreaMatch match_areas(const scene::Scene& wmp, const scene::Scene& wmb, double tol, bool csg,
                             const std::vector<Plane>* compiled_planes = nullptr) {
    AreaMatch m;
    const auto a = areas_by_material(wmp, csg, &m.sealed, compiled_planes),
               b = areas_by_material(wmb, false);
    std::map<std::string, std::pair<double, double>> all;
    for (const auto& [k, v] : a) all[k].first = v;
    for (const auto& [k, v] : b) all[k].second = v;
    for (const auto& [k, v] : all) {
        ++m.textures;
        m.wmp_area += v.first;
        m.wmb_area += v.second;
        const double big = std::max(v.first, v.second);
        if (big > 0 && std::abs(v.first - v.second) > tol * big) {
            ++m.textures_off;
            m.off.push_back(fmt::format("{}: wmp {:.1f} wmb {:.1f}", k, v.first, v.second));
        }
    }
    return m;
}

}  // namespace lk::test
