#include "levelkit/wmp/resolve.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>

#include "levelkit/core/text.hpp"

#include "model_util.hpp"

namespace lk::wmp {

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

Mat3 rot_z(double a) {
    const double c = std::cos(a), s = std::sin(a);
    Mat3 m;
    m.m = {c, -s, 0, s, c, 0, 0, 0, 1};
    return m;
}
// Positive angles tilt +x towards +z.
Mat3 rot_y(double a) {
    const double c = std::cos(a), s = std::sin(a);
    Mat3 m;
    m.m = {c, 0, -s, 0, 1, 0, s, 0, c};
    return m;
}
Mat3 rot_x(double a) {
    const double c = std::cos(a), s = std::sin(a);
    Mat3 m;
    m.m = {1, 0, 0, 0, c, -s, 0, s, c};
    return m;
}
Mat3 scale_matrix(const Vec3& s) {
    Mat3 m;
    m.m = {s.x, 0, 0, 0, s.y, 0, 0, 0, s.z};
    return m;
}

double det(const Mat3& a) {
    const auto& m = a.m;
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

// Inverse transpose (for mapping texture axes); identity if singular.
Mat3 inverse_transpose(const Mat3& a) {
    const auto& m = a.m;
    const double d = det(a);
    if (std::abs(d) < 1e-300) return Mat3::identity();
    Mat3 r;
    // Cofactor matrix divided by the determinant is the inverse transpose.
    r.m = {(m[4] * m[8] - m[5] * m[7]) / d, -(m[3] * m[8] - m[5] * m[6]) / d,
           (m[3] * m[7] - m[4] * m[6]) / d, -(m[1] * m[8] - m[2] * m[7]) / d,
           (m[0] * m[8] - m[2] * m[6]) / d, -(m[0] * m[7] - m[1] * m[6]) / d,
           (m[1] * m[5] - m[2] * m[4]) / d, -(m[0] * m[5] - m[2] * m[3]) / d,
           (m[0] * m[4] - m[1] * m[3]) / d};
    return r;
}

double wrap360(double deg) {
    double d = std::fmod(deg, 360.0);
    if (d < 0) d += 360.0;
    if (d >= 360.0) d -= 360.0;
    return d;
}

// WED computes in single precision; rounding the results the same way reproduces the numbers
// it writes into `$$M` files (1352.9 prints as 1352.900024) instead of their double neighbours.
double f32(double v) {
    return nearest_float(v);
}
Vec3 f32(const Vec3& v) {
    return {f32(v.x), f32(v.y), f32(v.z)};
}
TexAxis f32(const TexAxis& a) {
    return {f32(a.axis), f32(a.offset)};
}

struct WorldXf {
    Mat3 linear;    // rotation * scale, accumulated
    Mat3 rotation;  // rotation only, accumulated
    Vec3 translation;
    Vec3 scale{1, 1, 1};
};

}  // namespace

Vec3 face_normal(const std::vector<Vec3>& verts, const Face& f) {
    Vec3 n;
    for (std::size_t i = 0; i < f.indices.size(); ++i) {
        if (f.indices[i] >= verts.size() || f.indices[(i + 1) % f.indices.size()] >= verts.size())
            return {};
        const Vec3& a = verts[f.indices[i]];
        const Vec3& b = verts[f.indices[(i + 1) % f.indices.size()]];
        // Newell's method; WED winds faces clockwise seen from outside, hence the sign.
        n.x -= (a.y - b.y) * (a.z + b.z);
        n.y -= (a.z - b.z) * (a.x + b.x);
        n.z -= (a.x - b.x) * (a.y + b.y);
    }
    return normalize(n);
}

Mat3 object_rotation(const Vec3& a) {
    return rot_z(a.x) * rot_x(a.y) * rot_y(-a.z);
}

Mat3 mm_rotation(const Vec3& d) {
    return rot_z(d.x * kDeg) * rot_y(d.y * kDeg) * rot_x(d.z * kDeg);
}

Vec3 mm_angles(const Mat3& r) {
    const auto& m = r.m;
    const double st = std::clamp(m[6], -1.0, 1.0);
    const double tilt = std::asin(st);
    double pan = 0, roll = 0;
    if (std::sqrt(m[7] * m[7] + m[8] * m[8]) > 1e-9) {
        pan = std::atan2(m[3], m[0]);
        roll = std::atan2(m[7], m[8]);
    } else {
        pan = std::atan2(-m[1], m[4]);
    }
    return {wrap360(pan / kDeg), wrap360(tilt / kDeg), wrap360(roll / kDeg)};
}

std::pair<TexAxis, TexAxis> default_texture_axes(const Vec3& n) {
    // Quake's TextureAxisFromPlane table: normal, s axis, t axis; first best wins ties.
    static const Vec3 kTable[6][3] = {
        {{0, 0, 1}, {1, 0, 0}, {0, -1, 0}}, {{0, 0, -1}, {1, 0, 0}, {0, -1, 0}},
        {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}}, {{-1, 0, 0}, {0, 1, 0}, {0, 0, -1}},
        {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, -1}},
    };
    int best = 0;
    double best_dot = 0;
    for (int i = 0; i < 6; ++i) {
        const double d = dot(n, kTable[i][0]);
        if (d > best_dot) {
            best_dot = d;
            best = i;
        }
    }
    return {TexAxis{kTable[best][1], 0}, TexAxis{kTable[best][2], 0}};
}

std::pair<TexAxis, TexAxis> bake_texture(const TexAxis& t1, const TexAxis& t2,
                                         const TexTransform& t) {
    const double r = t.rotation * kDeg;
    const double c = std::cos(r), s = std::sin(r);
    const double sx = t.scale_x != 0 ? t.scale_x : 1.0;
    const double sy = t.scale_y != 0 ? t.scale_y : 1.0;
    TexAxis a, b;
    a.axis = (t1.axis * c - t2.axis * s) / sx;
    b.axis = (t1.axis * s + t2.axis * c) / sy;
    a.offset = (t1.offset * c - t2.offset * s) / sx + t.offset_x;
    b.offset = (t1.offset * s + t2.offset * c) / sy + t.offset_y;
    return {a, b};
}

bool plane_block_to_polygons(Block& b) {
    if (!b.plane_syntax) return true;
    std::vector<std::optional<Plane>> planes;
    Vec3 center;
    for (const Face& f : b.faces) {
        planes.push_back(
            Plane::from_points(f.plane_points[0], f.plane_points[1], f.plane_points[2]));
        for (const Vec3& p : f.plane_points) center += p;
    }
    if (!b.faces.empty()) center = center / (3.0 * static_cast<double>(b.faces.size()));
    BrushPolygons polys;
    build_brush_polygons(planes, center, polys);
    if (!polys.valid()) return false;
    std::vector<Vec3> verts;
    constexpr double kWeld = 1e-3;
    auto vertex = [&](const Vec3& p) {
        for (std::size_t i = 0; i < verts.size(); ++i) {
            if (near(verts[i], p, kWeld)) return static_cast<std::uint32_t>(i);
        }
        verts.push_back(p);
        return static_cast<std::uint32_t>(verts.size() - 1);
    };
    std::vector<std::vector<std::uint32_t>> indices(b.faces.size());
    for (std::size_t i = 0; i < b.faces.size(); ++i) {
        for (const Vec3& p : polys.face(i)) indices[i].push_back(vertex(p));
    }
    b.vertices = std::move(verts);
    for (std::size_t i = 0; i < b.faces.size(); ++i) b.faces[i].indices = std::move(indices[i]);
    b.plane_syntax = false;
    return true;
}

Result<Level> resolve(const Level& in, const ResolveOptions& opt, Diagnostics* notes) {
    if (in.dialect == Dialect::mm) {
        return Diagnostic::error("wmp.already-resolved", "the level is already a $$M file");
    }
    if (in.dialect == Dialect::a3) {
        return Diagnostic::error("wmp.wrong-dialect",
                                 "A3 levels have no group structure to resolve");
    }
    Level out;
    out.dialect = Dialect::mm;
    out.newline = in.newline;
    out.wed.present = out.wed.has_palette = out.wed.has_wad_section = false;
    out.header.version = 711;
    std::string date = in.header.created.value_or("");
    if (date.empty()) {
        // WMPB banner: "file created: 27.10.2017, wmpio (1.30)\n".
        const std::string& b = in.header.wmpb_banner;
        const auto colon = b.find(':');
        const auto comma = b.find(',');
        if (colon != std::string::npos && comma != std::string::npos && comma > colon) {
            date = std::string(trim(std::string_view(b).substr(colon + 1, comma - colon - 1)));
        }
    }
    out.header.mm_banner = opt.banner.empty() ? "wmpio (1.30), " + date : opt.banner;

    LevelInfo li;
    if (!in.levels.empty()) li = in.levels.front();
    li.number = 0;
    li.label.reset();
    li.mm_sun_type = 5;
    if (!opt.wad.empty()) li.wad = opt.wad;
    out.levels.push_back(li);
    Object& root = out.objects.emplace_back();
    root.kind = Kind::level;
    root.payload = 0;
    out.root = 0;
    auto add_object = [&](Kind k, std::size_t payload, const Transform& t) {
        Object& o = out.objects.emplace_back();
        o.kind = k;
        o.payload = static_cast<std::int32_t>(payload);
        o.transform = t;
        o.number = static_cast<std::int64_t>(out.objects.size() - 1);
        out.objects[0].children.push_back(static_cast<std::uint32_t>(out.objects.size() - 1));
    };

    // World transforms in preorder (parents before children).
    const std::vector<std::uint32_t> pre = object_preorder(in);
    std::vector<WorldXf> world(in.objects.size());
    std::vector<std::uint8_t> done(in.objects.size(), 0);
    std::vector<std::int64_t> parent(in.objects.size(), -1);
    for (std::uint32_t oi : pre) {
        for (std::uint32_t c : in.objects[oi].children) {
            if (c < in.objects.size() && parent[c] < 0 && c != oi) parent[c] = oi;
        }
    }
    for (std::uint32_t oi : pre) {
        const Object& o = in.objects[oi];
        WorldXf p;
        if (parent[oi] >= 0 && done[static_cast<std::size_t>(parent[oi])]) {
            p = world[static_cast<std::size_t>(parent[oi])];
        }
        const Mat3 r = object_rotation(o.transform.angles);
        WorldXf& w = world[oi];
        w.translation = p.translation + p.linear * o.transform.position;
        w.linear = p.linear * r * scale_matrix(o.transform.scale);
        w.rotation = p.rotation * r;
        w.scale = {p.scale.x * o.transform.scale.x, p.scale.y * o.transform.scale.y,
                   p.scale.z * o.transform.scale.z};
        done[oi] = 1;
    }

    // Path names in tree order, for the model path index.
    std::vector<std::string> path_names;
    for (std::uint32_t oi : pre) {
        const Object& o = in.objects[oi];
        if (o.kind == Kind::path && o.payload >= 0 &&
            static_cast<std::size_t>(o.payload) < in.paths.size()) {
            path_names.push_back(in.paths[static_cast<std::size_t>(o.payload)].name);
        }
    }

    for (std::uint32_t oi : pre) {
        const Object& o = in.objects[oi];
        if (o.kind != Kind::block || o.payload < 0 ||
            static_cast<std::size_t>(o.payload) >= in.blocks.size()) {
            continue;
        }
        const WorldXf& w = world[oi];
        Block b = in.blocks[static_cast<std::size_t>(o.payload)];
        if (b.plane_syntax && !plane_block_to_polygons(b)) {
            if (notes) {
                notes->add(Diagnostic::warning("wmp.open-block",
                                               "plane block does not close a convex volume; "
                                               "left out of the $$M")
                               .with_path("block[" + std::to_string(b.number) + "]"));
            }
            continue;
        }
        const Mat3 tex_map = inverse_transpose(w.linear);
        const bool mirrored = det(w.linear) < 0;
        const bool world_offsets = (b.flags & block_flag::world_texture_offsets) != 0;
        for (Face& f : b.faces) {
            const Vec3 local_normal = face_normal(b.vertices, f);
            if (!f.has_surface) {
                f.texture = "#default";
                f.flags = 0;
                f.ambient = 0;
                f.albedo = 50;
                f.transform.reset();
                f.t1.reset();
                f.t2.reset();
            }
            TexAxis t1, t2;
            if (f.t1 && f.t2) {
                t1 = *f.t1;
                t2 = *f.t2;
            } else {
                std::tie(t1, t2) = default_texture_axes(local_normal);
            }
            auto [a, c] = bake_texture(t1, t2, f.transform.value_or(TexTransform{}));
            a.axis = tex_map * a.axis;
            c.axis = tex_map * c.axis;
            // Either lock bit moves the offsets with the block: WED shifts faces with bit 28
            // in blocks without bit 16 and faces without it in bit-16 blocks alike.
            const bool locked =
                (f.flags & face_flag::texture_lock) || (b.flags & block_flag::locked_textures);
            if (locked && !world_offsets) {
                a.offset -= dot(a.axis, w.translation);
                c.offset -= dot(c.axis, w.translation);
            }
            f.t1 = f32(a);
            f.t2 = f32(c);
            f.transform.reset();
            f.flags &= ~face_flag::texture_lock;
            f.material.reset();
            f.a4_tail.clear();
            f.wmpb_chunks.clear();
            f.has_surface = true;
            if (mirrored) std::reverse(f.indices.begin(), f.indices.end());
        }
        for (Vec3& v : b.vertices) v = f32(w.linear * v + w.translation);
        b.flags &= ~block_flag::locked_textures;
        b.number = static_cast<std::int64_t>(out.blocks.size());
        b.label = std::to_string(out.blocks.size());
        if (!b.index) b.index = b.number;
        out.blocks.push_back(std::move(b));
        add_object(Kind::block, out.blocks.size() - 1, {});
    }

    for (std::uint32_t oi : pre) {
        const Object& o = in.objects[oi];
        if (o.kind == Kind::group || o.kind == Kind::block || o.kind == Kind::level) continue;
        if (o.payload < 0 || static_cast<std::size_t>(o.payload) >= in.count(o.kind)) continue;
        const auto pi = static_cast<std::size_t>(o.payload);
        const WorldXf& w = world[oi];
        Transform t;
        t.position = f32(w.translation);
        t.angles = f32(mm_angles(w.rotation));
        switch (o.kind) {
            case Kind::model: {
                Model m = in.models[pi];
                const bool extended = o.wmpb.has_code ? o.wmpb.code == 0x45 : m.skills.size() > 8;
                if (extended && model_file_type(m.file) == ModelFileType::wmb) {
                    // WED turns type-7 map entities a quarter turn clockwise about their own
                    // z axis (type-3 ones keep their angles); see docs/wmp.md.
                    t.angles = f32(mm_angles(w.rotation * rot_z(-90 * kDeg)));
                }
                m.number = extended ? 7 : 3;
                m.label.reset();
                t.scale = f32(w.scale);
                m.scale = t.scale;
                m.text_extended = extended;
                m.text_material_lines = extended && (m.material || !m.strings.empty());
                m.mm_path_index = 0;
                if (m.path) {
                    for (std::size_t i = 0; i < path_names.size(); ++i) {
                        if (path_names[i] == *m.path) {
                            m.mm_path_index = static_cast<std::int64_t>(i + 1);
                            break;
                        }
                    }
                }
                m.mm_reserved = 0;
                out.models.push_back(std::move(m));
                add_object(Kind::model, out.models.size() - 1, t);
                break;
            }
            case Kind::light: {
                Light l = in.lights[pi];
                l.number = 2;
                l.label.reset();
                out.lights.push_back(l);
                add_object(Kind::light, out.lights.size() - 1, t);
                break;
            }
            case Kind::start: {
                Start s = in.starts[pi];
                s.number = 1;
                s.label.reset();
                out.starts.push_back(std::move(s));
                add_object(Kind::start, out.starts.size() - 1, t);
                break;
            }
            case Kind::sound: {
                Sound s = in.sounds[pi];
                s.number = 4;
                s.label.reset();
                out.sounds.push_back(std::move(s));
                add_object(Kind::sound, out.sounds.size() - 1, t);
                break;
            }
            case Kind::path: {
                Path p = in.paths[pi];
                p.number = 6;
                p.label.reset();
                for (Vec3& v : p.nodes) v = f32(w.linear * v + w.translation);
                if (!p.has_node_skills) {
                    p.skills_per_node = 6;
                    p.node_skills.assign(p.nodes.size() * 6, 0.0);
                    p.edges.clear();
                    for (std::uint32_t i = 0; i + 1 < p.nodes.size(); ++i)
                        p.edges.push_back({i, i + 1});
                    p.has_node_skills = true;
                }
                for (PathEdge& e : p.edges) {
                    if (e.from < p.nodes.size() && e.to < p.nodes.size()) {
                        e.values[0] = f32(distance(p.nodes[e.from], p.nodes[e.to]));
                    }
                }
                p.mm_value_count = 3 * static_cast<std::int64_t>(p.nodes.size()) +
                                   2 * static_cast<std::int64_t>(p.edges.size());
                out.paths.push_back(std::move(p));
                add_object(Kind::path, out.paths.size() - 1, {});
                break;
            }
            case Kind::region: {
                // A region's box is stored in world coordinates already (its object's
                // position is the box centre in every corpus file, and the map compiler writes
                // the box unchanged into the WMB), so the object transform is not applied.
                Region g = in.regions[pi];
                g.number = 8;
                g.label.reset();
                out.regions.push_back(std::move(g));
                add_object(Kind::region, out.regions.size() - 1, {});
                break;
            }
            default:
                break;
        }
    }
    out.header.blocks = static_cast<std::int64_t>(out.blocks.size());
    out.header.entities = static_cast<std::int64_t>(out.entity_count());
    out.header.objects = static_cast<std::int64_t>(out.objects.size());
    return out;
}

}  // namespace lk::wmp
