#include "levelkit/convert/wmb_scene.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "gamestudio_keyvalues.hpp"
#include "levelkit/convert/scene_wmp.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/wmp/level.hpp"
#include "levelkit/wmp/resolve.hpp"

namespace lk::convert {

namespace {

using gamestudio::byte_of;
using gamestudio::hex;
using gamestudio::num;
using gamestudio::source_angles;
using gamestudio::vec;

// A 0xAARRGGBB word as a percent triple (WED's colour unit).
Vec3 percent_rgb(std::uint32_t argb) {
    auto c = [&](int shift) { return ((argb >> shift) & 0xffu) * 100.0 / 255.0; };
    return {c(16), c(8), c(0)};
}
std::string byte_rgb(std::uint32_t argb) {
    return fmt::format("{} {} {} 200", (argb >> 16) & 0xffu, (argb >> 8) & 0xffu, argb & 0xffu);
}

scene::TextureAxis texture_axis(const Vec3& axis, double offset, double scale) {
    const double len = length(axis);
    if (len < 1e-12) return {};
    return {axis / len, offset, scale / len};
}

class WmbConverter {
public:
    WmbConverter(const wmb::File& f, Diagnostics& diags, const WmbToSceneOptions& opt,
                 WmbToSceneReport& report)
        : f_(f), v_(f.views), diags_(diags), opt_(opt), report_(report) {}

    scene::Scene run() {
        scene::Scene s;
        s.source_format = "wmb";
        s.world.set("classname", "worldspawn");
        s.metadata.push_back({"wmp_unit_scale", num(opt_.scale)});
        s.metadata.push_back({"wmb_version", std::to_string(f_.version)});
        collect_paths();
        if (const wmb::Info* info = v_.info()) level(*info, s);
        if (f_.version >= 7) {
            for (std::size_t i = 0; i < v_.blocks.size(); ++i) block(i, s);
        } else {
            legacy_faces(s);
        }
        for (std::size_t i = 0; i < v_.objects.size(); ++i) object(v_.objects[i], s);
        if (opt_.brushes) {
            SceneToWmpOptions wo;
            wo.scale = opt_.scale;
            for (const scene::Mesh& m : s.world.meshes) {
                for (scene::Brush& b : mesh_blocks(m, diags_, wo)) {
                    s.world.brushes.push_back(std::move(b));
                    ++report_.brushes;
                }
            }
            s.world.meshes.clear();
        }
        return s;
    }

private:
    // --- level info -----------------------------------------------------------------------

    void level(const wmb::Info& info, scene::Scene& s) {
        scene::Entity& w = s.world;
        w.set("wmp_sun_azimuth", num(info.azimuth));
        w.set("wmp_sun_elevation", num(info.elevation));
        static constexpr const char* kFog[] = {"wmp_fog1", "wmp_fog2", "wmp_fog3", "wmp_fog4"};
        for (std::size_t i = 0; i < info.fog_colors.size() && i < 4; ++i) {
            w.set(kFog[i], vec(percent_rgb(info.fog_colors[i])));
        }
        if (info.sun_color) w.set("wmp_sun_color", vec(percent_rgb(*info.sun_color)));
        if (info.ambient_color) w.set("wmp_ambient_color", vec(percent_rgb(*info.ambient_color)));
        w.set("wmb_compiler_version", num(info.compiler_version));
        w.set("wmb_info_flags", hex(info.flags));
        w.set("wmb_gamma", std::to_string(info.gamma));
        w.set("wmb_lightmap_size", std::to_string(info.lightmap_size));
        scene::Entity sun;
        sun.set("classname", "light_environment");
        sun.set("origin", "0 0 0");
        sun.set("angles", "0 " + num(info.azimuth) + " 0");
        sun.set("pitch", num(-info.elevation));
        sun.set("_light", byte_rgb(info.sun_color.value_or(0x969696)));
        sun.set("_ambient", byte_rgb(info.ambient_color.value_or(0x323232)));
        s.entities.push_back(std::move(sun));
        ++report_.entities;
    }

    // --- geometry -------------------------------------------------------------------------

    std::string texture_name(std::size_t t) const {
        return t < v_.textures.size() ? v_.textures[t].name : std::string("#default");
    }
    std::array<double, 2> texture_size(std::size_t t) const {
        if (t < v_.textures.size() && v_.textures[t].format != wmb::PixelFormat::dds &&
            v_.textures[t].width && v_.textures[t].height) {
            return {double(v_.textures[t].width), double(v_.textures[t].height)};
        }
        return {64, 64};
    }

    std::uint32_t material_slot(scene::Mesh& m, const std::string& name) {
        auto it = std::find(m.materials.begin(), m.materials.end(), name);
        if (it != m.materials.end()) return static_cast<std::uint32_t>(it - m.materials.begin());
        m.materials.push_back(name);
        return static_cast<std::uint32_t>(m.materials.size() - 1);
    }

    static void surface_comment(std::string& c, std::size_t face, std::uint32_t flags,
                                double ambient, double albedo) {
        if (flags == 0 && ambient == 0 && albedo == 50) return;
        c += fmt::format("; face {} flags={} ambient={} albedo={}", face, hex(flags), num(ambient),
                         num(albedo));
    }

    void legacy_faces(scene::Scene& s) {
        if (v_.faces.empty()) return;
        scene::Mesh m;
        m.id = 1;
        const double k = opt_.scale;
        m.positions.reserve(v_.vertices.size());
        for (const wmb::Vec3f& p : v_.vertices) m.positions.push_back(p.to_vec3() * k);
        std::string comments = "wmp block=0 flags=0x0";
        for (std::size_t i = 0; i < v_.faces.size(); ++i) {
            const wmb::Face& fc = v_.faces[i];
            std::vector<std::uint32_t> vs = v_.face_vertices(i);
            if (vs.size() < 3 || fc.material >= v_.materials.size()) {
                ++report_.dropped_faces;
                diags_.add(Diagnostic::warning("convert.bad-face",
                                               fmt::format("face {} refers to missing edges, "
                                                           "vertices or surface; dropped",
                                                           i))
                               .with_path(wmb::list_path(7) + "/face[" + std::to_string(i) + "]"));
                continue;
            }
            const wmb::Material& mat = v_.materials[fc.material];
            const auto [w, h] = texture_size(mat.texture);
            scene::Mesh::Face mf;
            mf.first = static_cast<std::uint32_t>(m.face_vertices.size());
            // Quake winds faces clockwise seen from the front; scene meshes counter-clockwise.
            for (auto it = vs.rbegin(); it != vs.rend(); ++it) {
                m.face_vertices.push_back(*it);
                const Vec3 p = v_.vertices[*it].to_vec3();
                m.uvs.push_back({(dot(mat.s_axis.to_vec3(), p) + mat.s_offset) / w,
                                 (dot(mat.t_axis.to_vec3(), p) + mat.t_offset) / h});
            }
            mf.count = static_cast<std::uint32_t>(vs.size());
            mf.material = material_slot(m, texture_name(mat.texture));
            mf.u = texture_axis(mat.s_axis.to_vec3(), mat.s_offset, k);
            mf.v = texture_axis(mat.t_axis.to_vec3(), mat.t_offset, k);
            surface_comment(comments, m.faces.size(), mat.flags | (mat.user_flags << 16),
                            mat.ambient, mat.albedo);
            m.faces.push_back(mf);
            ++report_.faces;
        }
        m.editor.comments = std::move(comments);
        ++report_.meshes;
        s.world.meshes.push_back(std::move(m));
    }

    // The triangles of one compiled face joined into a polygon (block vertex indices, in the
    // triangles' winding), or empty if their outline is not one simple loop.
    static std::vector<std::uint32_t> join(const wmb::Block& b,
                                           const std::vector<std::uint32_t>& tris) {
        // Corners are compared by position: the compiler may repeat a vertex.
        std::vector<std::uint32_t> canon(b.vertices.size());
        std::map<std::array<float, 3>, std::uint32_t> first;
        for (std::uint32_t t : tris) {
            for (std::uint16_t vi : b.triangles[t].v) {
                const auto& p = b.vertices[vi].position;
                canon[vi] = first.emplace(std::array<float, 3>{p.x, p.y, p.z}, vi).first->second;
            }
        }
        std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
        for (std::uint32_t t : tris) {
            const auto& v = b.triangles[t].v;
            for (int e = 0; e < 3; ++e) {
                const std::uint32_t a = canon[v[e]], c = canon[v[(e + 1) % 3]];
                if (a == c) return {};
                ++directed[{a, c}];
            }
        }
        std::unordered_map<std::uint32_t, std::uint32_t> next;
        for (const auto& [e, n] : directed) {
            if (n != 1) return {};
            if (directed.count({e.second, e.first})) continue;       // interior edge
            if (!next.emplace(e.first, e.second).second) return {};  // not a simple loop
        }
        if (next.size() < 3) return {};
        std::vector<std::uint32_t> loop;
        std::uint32_t at = next.begin()->first;
        for (std::size_t i = 0; i <= next.size(); ++i) {
            loop.push_back(at);
            auto it = next.find(at);
            if (it == next.end()) return {};
            at = it->second;
            if (at == loop.front()) break;
        }
        if (loop.size() != next.size()) return {};
        return loop;
    }

    // Texture vectors (texel = dot(axis, p) + offset, p in quants) that reproduce the corners'
    // texture coordinates in the face plane (least squares); nullopt for faces without area.
    static std::optional<std::pair<wmp::TexAxis, wmp::TexAxis>> fit_axes(
        const wmb::Block& b, const std::vector<std::uint32_t>& corners, double w, double h) {
        std::vector<Vec3> pts;
        for (std::uint32_t c : corners) pts.push_back(b.vertices[c].position.to_vec3());
        const Vec3 n = normalize(winding_area_vector(pts));
        if (length(n) < 0.5) return std::nullopt;
        // An orthonormal basis of the plane, relative to the first corner.
        const Vec3 e1 = normalize(std::abs(n.z) < 0.9 ? cross(n, {0, 0, 1}) : cross(n, {1, 0, 0}));
        const Vec3 e2 = cross(n, e1);
        double sxx = 0, sxy = 0, syy = 0, sx = 0, sy = 0, cnt = 0;
        double su[3] = {0, 0, 0}, sv[3] = {0, 0, 0};
        for (std::size_t i = 0; i < pts.size(); ++i) {
            const double x = dot(pts[i] - pts[0], e1), y = dot(pts[i] - pts[0], e2);
            const double u = b.vertices[corners[i]].u * w, v = b.vertices[corners[i]].v * h;
            sxx += x * x, sxy += x * y, syy += y * y, sx += x, sy += y, cnt += 1;
            su[0] += x * u, su[1] += y * u, su[2] += u;
            sv[0] += x * v, sv[1] += y * v, sv[2] += v;
        }
        // Normal equations of u = a x + b y + c.
        const double m[3][3] = {{sxx, sxy, sx}, {sxy, syy, sy}, {sx, sy, cnt}};
        const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        if (std::abs(det) < 1e-9) return std::nullopt;
        auto solve = [&](const double r[3]) {
            std::array<double, 3> x{};
            for (int c = 0; c < 3; ++c) {
                double mc[3][3];
                for (int i = 0; i < 3; ++i) {
                    for (int j = 0; j < 3; ++j) mc[i][j] = j == c ? r[i] : m[i][j];
                }
                x[c] = (mc[0][0] * (mc[1][1] * mc[2][2] - mc[1][2] * mc[2][1]) -
                        mc[0][1] * (mc[1][0] * mc[2][2] - mc[1][2] * mc[2][0]) +
                        mc[0][2] * (mc[1][0] * mc[2][1] - mc[1][1] * mc[2][0])) /
                       det;
            }
            const Vec3 axis = e1 * x[0] + e2 * x[1];
            // c is the texel at pts[0]: offset = c - dot(axis, pts[0]).
            return wmp::TexAxis{axis, x[2] - dot(axis, pts[0])};
        };
        wmp::TexAxis s = solve(su), t = solve(sv);
        if (length(s.axis) < 1e-9 || length(t.axis) < 1e-9) return std::nullopt;
        return std::pair{s, t};
    }

    void block(std::size_t bi, scene::Scene& s) {
        const wmb::Block& b = v_.blocks[bi];
        const double k = opt_.scale;
        scene::Mesh m;
        m.id = static_cast<std::int64_t>(bi + 1);
        m.positions.reserve(b.vertices.size());
        for (const wmb::BlockVertex& bv : b.vertices)
            m.positions.push_back(bv.position.to_vec3() * k);
        // Triangles grouped by their compiled face, in order of first appearance.
        std::vector<std::vector<std::uint32_t>> groups;
        std::unordered_map<std::uint64_t, std::size_t> group_of;
        for (std::uint32_t t = 0; t < b.triangles.size(); ++t) {
            const wmb::Triangle& tr = b.triangles[t];
            auto finite = [&](std::uint16_t vi) {
                const wmb::Vec3f& p = b.vertices[vi].position;
                return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z);
            };
            if (tr.skin >= b.skins.size() || tr.v[0] >= b.vertices.size() ||
                tr.v[1] >= b.vertices.size() || tr.v[2] >= b.vertices.size() || !finite(tr.v[0]) ||
                !finite(tr.v[1]) || !finite(tr.v[2])) {
                ++report_.dropped_faces;
                diags_.add(Diagnostic::warning("convert.bad-face",
                                               fmt::format("triangle {} of block {} refers to a "
                                                           "missing vertex or skin, or has no "
                                                           "place; dropped",
                                                           t, bi))
                               .with_path(wmb::list_path(17) + "/block[" + std::to_string(bi) +
                                          "]/triangle[" + std::to_string(t) + "]"));
                continue;
            }
            ++report_.triangles;
            const std::uint64_t key = (std::uint64_t{tr.face} << 16) | tr.skin;
            auto [it, added] = group_of.emplace(key, groups.size());
            if (added) groups.emplace_back();
            groups[it->second].push_back(t);
        }
        std::string comments = "wmp block=" + std::to_string(bi) + " flags=0x0";
        auto emit = [&](const std::vector<std::uint32_t>& corners, const wmb::Skin& sk) {
            const wmb::Material* mat =
                sk.material < v_.materials.size() ? &v_.materials[sk.material] : nullptr;
            scene::Mesh::Face mf;
            mf.first = static_cast<std::uint32_t>(m.face_vertices.size());
            mf.count = static_cast<std::uint32_t>(corners.size());
            // WMB7 triangles wind clockwise seen from outside, as WED does; scene meshes wind
            // counter-clockwise.
            for (auto it = corners.rbegin(); it != corners.rend(); ++it) {
                const std::uint32_t c = *it;
                m.face_vertices.push_back(c);
                m.uvs.push_back({b.vertices[c].u, b.vertices[c].v});
            }
            mf.material = material_slot(m, texture_name(sk.texture));
            // The block vertices' texture coordinates are what the engine draws; the surface
            // record's vectors often disagree with them, so the axes are fitted to the corners.
            const auto [tw, th] = texture_size(sk.texture);
            if (auto axes = fit_axes(b, corners, tw, th)) {
                mf.u = texture_axis(axes->first.axis, axes->first.offset, k);
                mf.v = texture_axis(axes->second.axis, axes->second.offset, k);
            } else if (mat) {
                mf.u = texture_axis(mat->s_axis.to_vec3(), mat->s_offset, k);
                mf.v = texture_axis(mat->t_axis.to_vec3(), mat->t_offset, k);
            }
            surface_comment(comments, m.faces.size(), sk.flags, sk.ambient, sk.albedo);
            m.faces.push_back(mf);
            ++report_.faces;
        };
        for (const auto& g : groups) {
            const wmb::Skin& sk = b.skins[b.triangles[g.front()].skin];
            if (g.size() > 1) {
                std::vector<std::uint32_t> loop = join(b, g);
                if (!loop.empty()) {
                    ++report_.joined_faces;
                    emit(loop, sk);
                    continue;
                }
                ++report_.split_faces;
            }
            for (std::uint32_t t : g) {
                const auto& v = b.triangles[t].v;
                emit({v[0], v[1], v[2]}, sk);
            }
        }
        m.editor.comments = std::move(comments);
        ++report_.meshes;
        s.world.meshes.push_back(std::move(m));
    }

    // --- objects --------------------------------------------------------------------------

    void collect_paths() {
        for (const wmb::Object& o : v_.objects) {
            if (const wmb::Path* p = o.get<wmb::Path>()) path_names_.push_back(p->name);
        }
    }

    scene::Entity& add(scene::Scene& s, std::string_view cls) {
        ++report_.entities;
        scene::Entity& e = s.entities.emplace_back();
        e.set("classname", cls);
        return e;
    }

    void object(const wmb::Object& o, scene::Scene& s) {
        std::visit(
            [&](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, wmb::Position>) {
                    position(v, s);
                } else if constexpr (std::is_same_v<T, wmb::Light>) {
                    light(v, s);
                } else if constexpr (std::is_same_v<T, wmb::Entity>) {
                    entity(v, s);
                } else if constexpr (std::is_same_v<T, wmb::Sound>) {
                    sound(v, s);
                } else if constexpr (std::is_same_v<T, wmb::Path>) {
                    path(v, s);
                } else if constexpr (std::is_same_v<T, wmb::Region>) {
                    region(v, s);
                } else if constexpr (std::is_same_v<T, std::monostate>) {
                    ++report_.unknown_objects;
                }
            },
            o.value);
    }

    void place(scene::Entity& e, const wmb::Vec3f& origin, const wmb::Vec3f& angles) {
        e.set("origin", vec(origin.to_vec3() * opt_.scale));
        e.set("angles", source_angles(angles.to_vec3()));
    }

    void position(const wmb::Position& p, scene::Scene& s) {
        scene::Entity& e = add(s, "info_player_start");
        place(e, p.origin, p.angles);
        e.set("targetname", p.name);
        e.set("wmp_name", p.name);
    }

    void light(const wmb::Light& l, scene::Scene& s) {
        scene::Entity& e = add(s, "light");
        place(e, l.origin, {});
        e.set("_light", fmt::format("{} {} {} 200", byte_of(l.color.x), byte_of(l.color.y),
                                    byte_of(l.color.z)));
        e.set("_distance", num(l.range * opt_.scale));
        e.set("wmp_color", vec(l.color.to_vec3()));
        e.set("wmp_range", num(l.range));
        e.set("wmp_flags", hex(l.flags));
    }

    void entity(const wmb::Entity& m, scene::Scene& s) {
        const wmp::ModelFileType type = wmp::model_file_type(m.file);
        const bool sprite =
            type == wmp::ModelFileType::sprite || type == wmp::ModelFileType::dds_sprite;
        const char* cls = sprite                                                 ? "env_sprite"
                          : !m.action.empty() && type == wmp::ModelFileType::mdl ? "prop_dynamic"
                                                                                 : "prop_static";
        scene::Entity& e = add(s, cls);
        place(e, m.origin, m.angles);
        e.set("model", m.file);
        if (!m.name.empty()) e.set("targetname", m.name);
        const Vec3 sc = m.scale.to_vec3();
        if (sc.x == sc.y && sc.y == sc.z && sc.x != 1) {
            e.set(sprite ? "scale" : "modelscale", num(sc.x));
        }
        static constexpr const char* kKinds[] = {"sprite", "sprite", "model", "map_entity",
                                                 "terrain"};
        e.set("wmp_kind", kKinds[static_cast<int>(type)]);
        e.set("wmp_name", m.name);
        e.set("wmp_action", m.action);
        e.set("wmp_scale", vec(sc));
        for (std::size_t i = 0; i < m.skills.size(); ++i) {
            e.set("wmp_skill" + std::to_string(i + 1), num(m.skills[i]));
        }
        e.set("wmp_flags", hex(m.flags));
        e.set("wmp_ambient", num(m.ambient));
        e.set("wmp_albedo", num(m.albedo));
        if (!m.material.empty()) e.set("wmp_material", m.material);
        if (m.path > 0 && m.path <= path_names_.size()) e.set("wmp_path", path_names_[m.path - 1]);
        if (!m.string1.empty()) e.set("wmp_string1", m.string1);
        if (!m.string2.empty()) e.set("wmp_string2", m.string2);
        if (m.attached) e.set("wmb_attached", std::to_string(m.attached));
        if (m.old_layout) e.set("wmb_old_entity", "1");
    }

    void sound(const wmb::Sound& snd, scene::Scene& s) {
        scene::Entity& e = add(s, "ambient_generic");
        place(e, snd.origin, {});
        e.set("message", snd.file);
        e.set("health", num(std::clamp(snd.volume / 10.0, 0.0, 10.0)));
        e.set("radius", num(snd.range * opt_.scale));
        e.set("wmp_file", snd.file);
        e.set("wmp_flags", hex(snd.flags));
        e.set("wmp_volume", num(snd.volume));
        e.set("wmp_value2", num(snd.values[0]));
        e.set("wmp_value3", num(snd.values[1]));
        e.set("wmp_range", num(snd.range));
    }

    void path(const wmb::Path& p, scene::Scene& s) {
        const std::size_t n = p.nodes.size();
        // WMB edges name their nodes 1-based, as floats.
        std::vector<std::vector<const wmb::PathEdge*>> out(n);
        for (const wmb::PathEdge& e : p.edges) {
            const double a = e.node1 - 1, b = e.node2 - 1;
            if (a >= 0 && b >= 0 && a < double(n) && b < double(n)) {
                out[static_cast<std::size_t>(a)].push_back(&e);
            }
        }
        auto node_name = [&](std::size_t i) { return p.name + "_" + std::to_string(i); };
        for (std::size_t i = 0; i < n; ++i) {
            scene::Entity& e = add(s, "path_track");
            e.set("origin", vec(p.nodes[i].to_vec3() * opt_.scale));
            e.set("targetname", node_name(i));
            auto to = [&](const wmb::PathEdge* pe) {
                return static_cast<std::size_t>(pe->node2 - 1);
            };
            if (!out[i].empty()) e.set("target", node_name(to(out[i][0])));
            if (out[i].size() > 1) e.set("altpath", node_name(to(out[i][1])));
            e.set("wmp_path", p.name);
            e.set("wmp_node", std::to_string(i));
            if (i < p.skills.size()) {
                for (std::size_t j = 0; j < 6; ++j) {
                    e.set("wmp_skill" + std::to_string(j + 1), num(p.skills[i][j]));
                }
            }
            std::string edges;
            for (const wmb::PathEdge* pe : out[i]) {
                if (!edges.empty()) edges += "; ";
                // WED's edge values: an unexplained 1, then bezier, weight, skill.
                edges += fmt::format("{} 1 {} {} {}", to(pe), num(pe->bezier), num(pe->weight),
                                     num(pe->skill));
            }
            if (!edges.empty()) e.set("wmp_edges", edges);
        }
    }

    void region(const wmb::Region& r, scene::Scene& s) {
        scene::Entity& e = add(s, "trigger_multiple");
        e.set("targetname", r.name);
        e.set("wmp_name", r.name);
        e.set("wmp_mins", vec(r.mins.to_vec3()));
        e.set("wmp_maxs", vec(r.maxs.to_vec3()));
        const Vec3 lo = r.mins.to_vec3() * opt_.scale, hi = r.maxs.to_vec3() * opt_.scale;
        if (!(hi.x - lo.x > 1e-3 && hi.y - lo.y > 1e-3 && hi.z - lo.z > 1e-3)) return;
        scene::Brush b;
        const Plane planes[6] = {{{1, 0, 0}, hi.x},   {{-1, 0, 0}, -lo.x}, {{0, 1, 0}, hi.y},
                                 {{0, -1, 0}, -lo.y}, {{0, 0, 1}, hi.z},   {{0, 0, -1}, -lo.z}};
        for (const Plane& pl : planes) {
            scene::BrushSide sd;
            sd.plane = pl;
            sd.points = plane_points_on_plane(pl, (lo + hi) * 0.5);
            sd.material = "tools/toolstrigger";
            auto [u, v] = wmp::default_texture_axes(pl.normal);
            sd.u = {u.axis, 0, 0.25};
            sd.v = {v.axis, 0, 0.25};
            b.sides.push_back(std::move(sd));
        }
        e.brushes.push_back(std::move(b));
    }

    const wmb::File& f_;
    const wmb::Views& v_;
    Diagnostics& diags_;
    const WmbToSceneOptions& opt_;
    WmbToSceneReport& report_;
    std::vector<std::string> path_names_;
};

}  // namespace

Result<scene::Scene> wmb_to_scene(const wmb::File& file, Diagnostics& diags,
                                  const WmbToSceneOptions& opt, WmbToSceneReport* report) {
    WmbToSceneReport local;
    WmbConverter c(file, diags, opt, report ? *report : local);
    return c.run();
}

}  // namespace lk::convert
