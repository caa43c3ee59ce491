#include "levelkit/scene/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_map>

#include "levelkit/core/text.hpp"

namespace lk::scene {

double texel(const TextureAxis& a, const Vec3& p) {
    const double scale = a.scale != 0 ? a.scale : 1;
    return dot(p, a.axis) / scale + a.shift;
}

std::array<double, 3> material_color(std::string_view material) {
    // FNV-1a over the lower-case name: the same colour on every platform and run.
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (char c : material) {
        h ^= static_cast<std::uint8_t>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        h *= 0x100000001b3ull;
    }
    // A hue from the hash, saturation and value in a band that reads well under shading.
    const double hue = static_cast<double>(h % 3600) / 600.0;  // 0..6
    const double sat = 0.35 + 0.3 * static_cast<double>((h >> 16) % 1000) / 1000.0;
    const double val = 0.7 + 0.25 * static_cast<double>((h >> 32) % 1000) / 1000.0;
    const int sector = static_cast<int>(hue);
    const double f = hue - sector;
    const double p = val * (1 - sat), q = val * (1 - sat * f), t = val * (1 - sat * (1 - f));
    switch (sector) {
        case 0:
            return {val, t, p};
        case 1:
            return {q, val, p};
        case 2:
            return {p, val, t};
        case 3:
            return {p, q, val};
        case 4:
            return {t, p, val};
        default:
            return {val, p, q};
    }
}

bool is_tool_material(std::string_view m) {
    if (m.size() >= 10 && iequals(m.substr(0, 10), "materials/")) m.remove_prefix(10);
    return m.size() >= 6 && iequals(m.substr(0, 6), "tools/");
}

void brush_polygons(const Brush& brush, BrushPolygons& out, const BrushPolygonOptions& opt) {
    thread_local std::vector<std::optional<Plane>> planes;
    planes.clear();
    Vec3 center, plane_center;
    std::size_t npoints = 0;
    for (const BrushSide& sd : brush.sides) {
        planes.push_back(sd.plane.normal == Vec3{} ? std::nullopt : std::optional<Plane>(sd.plane));
        plane_center += sd.plane.normal * sd.plane.dist;
        if (sd.points) {
            for (const Vec3& p : *sd.points) center += p;
            npoints += 3;
        }
    }
    if (npoints) {
        center = center / static_cast<double>(npoints);
    } else if (!brush.sides.empty()) {
        center = plane_center / static_cast<double>(brush.sides.size());
    }
    build_brush_polygons(planes, center, out, opt.clip);
    if (!opt.prefer_exact_polygons) return;
    bool any = false;
    for (const BrushSide& sd : brush.sides) any |= sd.exact_polygon.size() >= 3;
    if (!any) return;
    std::vector<Vec3> points;
    std::vector<std::uint32_t> begins;
    for (std::size_t i = 0; i < brush.sides.size(); ++i) {
        begins.push_back(static_cast<std::uint32_t>(points.size()));
        const auto& exact = brush.sides[i].exact_polygon;
        if (exact.size() >= 3) {
            points.insert(points.end(), exact.begin(), exact.end());
        } else if (i < out.face_count()) {
            const auto f = out.face(i);
            points.insert(points.end(), f.begin(), f.end());
        }
    }
    begins.push_back(static_cast<std::uint32_t>(points.size()));
    out.points = std::move(points);
    out.face_begin = std::move(begins);
}

namespace {

std::optional<std::vector<Vec3>> grid_of(const BrushSide& side, std::span<const Vec3> face,
                                         bool displaced) {
    if (!side.displacement) return std::nullopt;
    const Displacement& d = *side.displacement;
    DisplacementFields f{d.power, d.start_position, 0, {}, {}, {}};
    if (displaced) {
        f.elevation = d.elevation;
        f.normals = d.normals;
        f.distances = d.distances;
        f.offsets = d.offsets;
    }
    return lk::displacement_grid(f, face, side.plane.normal);
}

class SurfaceBuilder {
public:
    SurfaceBuilder(const Scene& s, const SurfaceOptions& opt, Surfaces& out)
        : s_(s), opt_(opt), out_(out) {}

    void run() {
        entity(0, s_.world);
        for (std::size_t i = 0; i < s_.entities.size(); ++i) entity(i + 1, s_.entities[i]);
        if (any_color_) {
            // Pieces before the first coloured one get white.
            out_.colors.resize(out_.positions.size(), {1, 1, 1, 1});
        } else {
            out_.colors.clear();
        }
    }

private:
    void entity(std::size_t index, const Entity& e) {
        for (const Brush& b : e.brushes) brush(index, b);
        for (const Mesh& m : e.meshes) mesh(index, m);
    }

    std::uint32_t material(const std::string& name) {
        auto [it, added] =
            index_.try_emplace(name, static_cast<std::uint32_t>(out_.materials.size()));
        if (added) out_.materials.push_back(name);
        return it->second;
    }

    std::array<double, 2> size_of(const std::string& name) {
        if (!opt_.texture_size && s_.texture_sizes.empty())
            return {opt_.default_texture_size, opt_.default_texture_size};
        auto [it, added] = sizes_.try_emplace(name);
        if (added) {
            const auto known = s_.texture_sizes.find(to_lower(name));
            it->second = known != s_.texture_sizes.end() ? known->second
                         : opt_.texture_size             ? opt_.texture_size(name)
                                                         : std::array<double, 2>{0, 0};
            for (double& v : it->second) {
                if (!(v > 0)) v = opt_.default_texture_size;
            }
        }
        return it->second;
    }

    bool skip_material(const std::string& m) {
        if (!opt_.skip_tool_materials || !is_tool_material(m)) return false;
        ++out_.tool_faces_skipped;
        return true;
    }

    void begin_piece(std::size_t entity, std::int64_t id, Surfaces::PieceKind kind) {
        Surfaces::Piece p;
        p.entity = entity;
        p.id = id;
        p.kind = kind;
        p.first_polygon = static_cast<std::uint32_t>(out_.polygon_count());
        out_.pieces.push_back(p);
    }

    void end_piece() {
        Surfaces::Piece& p = out_.pieces.back();
        p.polygon_count = static_cast<std::uint32_t>(out_.polygon_count()) - p.first_polygon;
        if (p.polygon_count == 0) out_.pieces.pop_back();
    }

    // Every corner normal is a unit vector (glTF requires it): a normal read from a file may be
    // zero, denormal or not finite and a degenerate polygon has no area vector; those corners
    // fall back to the given polygon normal, else to +Z.
    static Vec3 unit_normal(const Vec3& n, const Vec3& fallback) {
        for (const Vec3& v : {n, fallback}) {
            const double l2 = dot(v, v);
            if (!std::isfinite(l2) || l2 < 1e-24) continue;
            if (std::abs(l2 - 1) < 1e-9) return v;
            const double l = std::sqrt(l2);
            return {v.x / l, v.y / l, v.z / l};
        }
        return {0, 0, 1};
    }

    void corner(const Vec3& p, const Vec3& n, std::array<double, 2> uv, const Vec3& fallback = {}) {
        out_.positions.push_back(p);
        out_.normals.push_back(unit_normal(n, fallback));
        out_.uvs.push_back(uv);
        if (any_color_) out_.colors.push_back({1, 1, 1, 1});
    }

    void end_polygon(std::uint32_t mat, std::uint32_t smoothing) {
        out_.polygon_begin.push_back(static_cast<std::uint32_t>(out_.positions.size()));
        out_.polygon_material.push_back(mat);
        out_.polygon_smoothing.push_back(smoothing);
    }

    void start_colors() {
        if (any_color_) return;
        any_color_ = true;
        out_.colors.assign(out_.positions.size(), {1, 1, 1, 1});
    }

    void brush(std::size_t entity, const Brush& b) {
        brush_polygons(b, polys_, opt_.polygons);
        for (const BrushFaceProblem& p : polys_.problems) {
            // A duplicated side, or one that touches the brush in no area, leaves the rest closed
            // (VBSP compiles such brushes); other problems leave no solid to draw.
            if (p.problem != BrushProblem::duplicate_plane &&
                p.problem != BrushProblem::side_no_face) {
                out_.skipped.push_back({entity, b.id, std::string(to_string(p.problem))});
                return;
            }
        }
        bool has_disp = false;
        for (const BrushSide& sd : b.sides) has_disp |= static_cast<bool>(sd.displacement);
        if (has_disp) return displacements(entity, b);
        begin_piece(entity, b.id, Surfaces::PieceKind::brush);
        for (std::size_t i = 0; i < b.sides.size() && i < polys_.face_count(); ++i) {
            const BrushSide& sd = b.sides[i];
            const auto face = polys_.face(i);
            if (face.size() < 3 || skip_material(sd.material)) continue;
            const auto size = size_of(sd.material);
            const Vec3 n = sd.plane.normal;
            // Hammer winds clockwise seen from outside; emit counter-clockwise.
            for (std::size_t k = face.size(); k-- > 0;) {
                corner(face[k], n,
                       {texel(sd.u, face[k]) / size[0], texel(sd.v, face[k]) / size[1]});
            }
            end_polygon(material(sd.material), sd.smoothing_groups);
        }
        end_piece();
    }

    void displacements(std::size_t entity, const Brush& b) {
        begin_piece(entity, b.id, Surfaces::PieceKind::displacement);
        for (std::size_t i = 0; i < b.sides.size() && i < polys_.face_count(); ++i) {
            const BrushSide& sd = b.sides[i];
            if (!sd.displacement) continue;
            const auto face = polys_.face(i);
            const auto grid = grid_of(sd, face, true);
            const auto flat = grid_of(sd, face, false);
            if (!grid || !flat) {
                out_.skipped.push_back({entity, b.id, "a displacement side that is not a quad"});
                continue;
            }
            if (skip_material(sd.material)) continue;
            const Displacement& d = *sd.displacement;
            const auto tris = displacement_triangles(d.power);
            // Counter-clockwise around the face's outward normal, judged on the flat grid.
            const auto& t0 = tris.front();
            const bool flip =
                dot(cross((*flat)[t0[1]] - (*flat)[t0[0]], (*flat)[t0[2]] - (*flat)[t0[0]]),
                    sd.plane.normal) < 0;
            // Smooth normals: area-weighted sums of the displaced triangles at each vertex.
            std::vector<Vec3> vn(grid->size());
            for (const auto& t : tris) {
                const Vec3 a = (*grid)[t[0]], b2 = (*grid)[t[1]], c = (*grid)[t[2]];
                Vec3 n = cross(b2 - a, c - a);
                if (flip) n = -n;
                for (std::uint32_t v : t) vn[v] += n;
            }
            for (Vec3& n : vn) {
                n = normalize(n);
                if (n == Vec3{}) n = sd.plane.normal;
            }
            const bool has_alpha = d.alphas.size() == grid->size();
            if (has_alpha) start_colors();
            const auto size = size_of(sd.material);
            const std::uint32_t mat = material(sd.material);
            for (const auto& t : tris) {
                const std::array<std::uint32_t, 3> c =
                    flip ? std::array<std::uint32_t, 3>{t[0], t[2], t[1]} : t;
                for (std::uint32_t v : c) {
                    const Vec3& fp = (*flat)[v];
                    corner((*grid)[v], vn[v],
                           {texel(sd.u, fp) / size[0], texel(sd.v, fp) / size[1]});
                    if (has_alpha)
                        out_.colors.back()[3] = std::clamp(d.alphas[v] / 255.0, 0.0, 1.0);
                }
                end_polygon(mat, 0);
            }
        }
        end_piece();
    }

    void mesh(std::size_t entity, const Mesh& m) {
        begin_piece(entity, m.id, Surfaces::PieceKind::mesh);
        const bool has_colors = !m.colors.empty();
        if (has_colors) start_colors();
        for (const Mesh::Face& f : m.faces) {
            if (f.count < 3 || std::size_t{f.first} + f.count > m.face_vertices.size()) continue;
            const std::string& mat_name =
                f.material < m.materials.size() ? m.materials[f.material] : empty_;
            if (skip_material(mat_name)) continue;
            bool ok = true;
            pts_.clear();
            for (std::uint32_t k = 0; k < f.count; ++k) {
                const std::uint32_t v = m.face_vertices[f.first + k];
                if (v >= m.positions.size()) {
                    ok = false;
                    break;
                }
                pts_.push_back(m.positions[v]);
            }
            if (!ok) continue;
            const Vec3 flat_n = normalize(winding_area_vector(pts_));
            const auto size = size_of(mat_name);
            const bool axes = f.u.axis != Vec3{} || f.v.axis != Vec3{};
            for (std::uint32_t k = 0; k < f.count; ++k) {
                const std::size_t c = std::size_t{f.first} + k;
                const Vec3& p = pts_[k];
                const Vec3 n = c < m.normals.size() ? m.normals[c] : flat_n;
                std::array<double, 2> uv{0, 0};
                if (c < m.uvs.size()) {
                    uv = m.uvs[c];
                } else if (axes) {
                    uv = {texel(f.u, p) / size[0], texel(f.v, p) / size[1]};
                }
                corner(p, n, uv, flat_n);
                if (has_colors && c < m.colors.size()) out_.colors.back() = m.colors[c];
            }
            end_polygon(material(mat_name), 0);
        }
        end_piece();
    }

    const Scene& s_;
    const SurfaceOptions& opt_;
    Surfaces& out_;
    BrushPolygons polys_;
    std::vector<Vec3> pts_;
    std::unordered_map<std::string, std::uint32_t> index_;
    std::unordered_map<std::string, std::array<double, 2>> sizes_;
    bool any_color_ = false;
    const std::string empty_;
};

}  // namespace

std::optional<std::vector<Vec3>> displacement_grid(const BrushSide& side,
                                                   std::span<const Vec3> face) {
    return grid_of(side, face, true);
}

std::optional<std::vector<Vec3>> flat_displacement_grid(const BrushSide& side,
                                                        std::span<const Vec3> face) {
    return grid_of(side, face, false);
}

std::size_t Surfaces::triangle_count() const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < polygon_count(); ++i) {
        n += polygon_begin[i + 1] - polygon_begin[i] - 2;
    }
    return n;
}

namespace {

// Corner positions of different brushes meet only within clipping precision: compare them on a
// 1/64-unit grid.
struct GridKey {
    std::int64_t x, y, z;
    bool operator==(const GridKey&) const = default;
};
struct GridKeyHash {
    std::size_t operator()(const GridKey& k) const {
        std::uint64_t h = static_cast<std::uint64_t>(k.x) * 0x9E3779B97F4A7C15ull;
        h ^= static_cast<std::uint64_t>(k.y) * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
        h ^= static_cast<std::uint64_t>(k.z) * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
        return static_cast<std::size_t>(h);
    }
};
GridKey grid_key(const Vec3& p) {
    return {std::llround(p.x * 64), std::llround(p.y * 64), std::llround(p.z * 64)};
}

void smooth_by_groups(Surfaces& out) {
    std::unordered_map<GridKey, std::vector<std::uint32_t>, GridKeyHash> at;
    std::vector<Vec3> flat;
    for (std::size_t p = 0; p < out.pieces.size();) {
        std::size_t q = p;
        while (q < out.pieces.size() && out.pieces[q].entity == out.pieces[p].entity) ++q;
        const std::uint32_t first = out.pieces[p].first_polygon;
        const std::uint32_t last =
            out.pieces[q - 1].first_polygon + out.pieces[q - 1].polygon_count;
        p = q;
        at.clear();
        for (std::uint32_t i = first; i < last; ++i) {
            if (!out.polygon_smoothing[i]) continue;
            for (std::uint32_t c = out.polygon_begin[i]; c < out.polygon_begin[i + 1]; ++c) {
                auto& v = at[grid_key(out.positions[c])];
                if (v.empty() || v.back() != i) v.push_back(i);
            }
        }
        if (at.empty()) continue;
        flat.resize(last - first);
        for (std::uint32_t i = first; i < last; ++i)
            flat[i - first] = normalize(winding_area_vector(out.polygon(i)));
        for (std::uint32_t i = first; i < last; ++i) {
            const std::uint32_t groups = out.polygon_smoothing[i];
            if (!groups) continue;
            for (std::uint32_t c = out.polygon_begin[i]; c < out.polygon_begin[i + 1]; ++c) {
                Vec3 n;
                for (std::uint32_t j : at[grid_key(out.positions[c])]) {
                    if (out.polygon_smoothing[j] & groups) n += flat[j - first];
                }
                n = normalize(n);
                if (n != Vec3{}) out.normals[c] = n;
            }
        }
    }
}

}  // namespace

Surfaces build_surfaces(const Scene& s, const SurfaceOptions& opt) {
    Surfaces out;
    SurfaceBuilder(s, opt, out).run();
    if (opt.smoothing_group_normals) smooth_by_groups(out);
    return out;
}

Aabb piece_bounds(const Surfaces& surfaces, const Surfaces::Piece& piece) {
    Aabb box;
    const std::uint32_t end = surfaces.polygon_begin[piece.first_polygon + piece.polygon_count];
    for (std::uint32_t c = surfaces.polygon_begin[piece.first_polygon]; c < end; ++c)
        box.add(surfaces.positions[c]);
    return box;
}

std::optional<Skybox> find_skybox(const Scene& s, const Surfaces& surfaces) {
    Skybox sky;
    for (std::size_t i = 0; i < s.entities.size() && !sky.camera; ++i) {
        const Entity& e = s.entities[i];
        if (!iequals(e.classname(), "sky_camera")) continue;
        if (auto o = e.origin()) {
            sky.camera = i + 1;
            sky.origin = *o;
            if (auto k = parse_double(trim(e.get("scale"))); k && *k > 0) sky.scale = *k;
        }
    }
    if (!sky.camera) return std::nullopt;

    // World pieces, sorted along x for a sweep over overlapping bounds.
    constexpr double eps = 1;
    std::vector<std::uint32_t> world;
    std::vector<Aabb> box(surfaces.pieces.size());
    for (std::uint32_t i = 0; i < surfaces.pieces.size(); ++i) {
        if (surfaces.pieces[i].entity != 0) continue;
        box[i] = piece_bounds(surfaces, surfaces.pieces[i]);
        if (!box[i].empty()) world.push_back(i);
    }
    if (world.size() < 2) return std::nullopt;
    std::sort(world.begin(), world.end(), [&](std::uint32_t a, std::uint32_t b) {
        return box[a].mins.x != box[b].mins.x ? box[a].mins.x < box[b].mins.x : a < b;
    });
    std::vector<std::uint32_t> parent(surfaces.pieces.size());
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](std::uint32_t a) {
        while (parent[a] != a) a = parent[a] = parent[parent[a]];
        return a;
    };
    for (std::size_t i = 0; i < world.size(); ++i) {
        const Aabb& a = box[world[i]];
        for (std::size_t j = i + 1; j < world.size() && box[world[j]].mins.x <= a.maxs.x + eps;
             ++j) {
            if (!a.overlaps(box[world[j]], eps)) continue;
            const std::uint32_t ra = find(world[i]), rb = find(world[j]);
            if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
        }
    }
    std::unordered_map<std::uint32_t, Aabb> groups;
    for (std::uint32_t i : world) groups[find(i)].add(box[i]);
    const Aabb* best = nullptr;
    std::uint32_t best_root = 0;
    auto volume = [](const Aabb& b) {
        const Vec3 d = b.size();
        return d.x * d.y * d.z;
    };
    for (const auto& [root, b] : groups) {
        if (!b.contains(sky.origin, eps)) continue;
        const double v = volume(b);
        if (!best || v < volume(*best) || (v == volume(*best) && root < best_root)) {
            best = &b;
            best_root = root;
        }
    }
    if (!best) return std::nullopt;
    sky.pieces.assign(surfaces.pieces.size(), false);
    std::size_t inside = 0;
    for (std::uint32_t i : world) {
        if (best->contains(box[i].mins, eps) && best->contains(box[i].maxs, eps)) {
            sky.pieces[i] = true;
            sky.bounds.add(box[i]);
            ++inside;
        }
    }
    if (inside == world.size()) return std::nullopt;
    // Players never start in the skybox: a camera in the playable map is not a 3D skybox.
    for (const Entity& e : s.entities) {
        if (!istarts_with(e.classname(), "info_player")) continue;
        if (auto o = e.origin(); o && sky.bounds.contains(*o, eps)) return std::nullopt;
    }
    return sky;
}

}  // namespace lk::scene
