#include "levelkit/convert/scene_obj.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

namespace lk::convert {

namespace {

// Clipping leaves ~1e-12 noise: numbers are written to 1e-6, shortest form.
double tidy(double v) {
    const double r = std::round(v * 1e6) / 1e6;
    return r == 0 ? 0.0 : r;
}

// OBJ names end at white space.
std::string obj_name(std::string_view s) {
    std::string out(s.empty() ? std::string_view("unnamed") : s);
    for (char& c : out) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') c = '_';
    }
    return out;
}

// A stable colour per material name (FNV-1a hashed into a pleasant range).
std::array<double, 3> colour_of(std::string_view name) {
    std::uint32_t h = 2166136261u;
    for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return {0.35 + 0.6 * ((h & 0xff) / 255.0), 0.35 + 0.6 * (((h >> 8) & 0xff) / 255.0),
            0.35 + 0.6 * (((h >> 16) & 0xff) / 255.0)};
}

struct Key3 {
    double x, y, z;
    bool operator==(const Key3&) const = default;
};
struct Key3Hash {
    std::size_t operator()(const Key3& k) const {
        const std::hash<double> h;
        return h(k.x) * 31 * 31 + h(k.y) * 31 + h(k.z);
    }
};

}  // namespace

std::vector<std::string> piece_names(const scene::Scene& s, const scene::Surfaces& surfaces) {
    std::vector<std::string> names;
    names.reserve(surfaces.pieces.size());
    for (const scene::Surfaces::Piece& p : surfaces.pieces) {
        const scene::Entity& e = p.entity == 0 ? s.world : s.entities[p.entity - 1];
        std::string_view who = p.entity == 0 ? std::string_view("world") : e.get("targetname");
        if (who.empty()) who = e.classname();
        const char* kind = p.kind == scene::Surfaces::PieceKind::mesh           ? "mesh"
                           : p.kind == scene::Surfaces::PieceKind::displacement ? "displacement"
                                                                                : "brush";
        names.push_back(obj_name(fmt::format("{}_{}_{}", who, kind, p.id)));
    }
    return names;
}

ObjFiles surfaces_to_obj(const scene::Surfaces& sf, const std::vector<std::string>& names,
                         const SceneToObjOptions& opt) {
    ObjFiles out;
    auto axes = [&](const Vec3& p) { return opt.z_up ? p : Vec3{p.x, p.z, -p.y}; };
    fmt::memory_buffer b;
    fmt::format_to(std::back_inserter(b), "# levelkit\n");
    if (!opt.mtl_name.empty()) fmt::format_to(std::back_inserter(b), "mtllib {}\n", opt.mtl_name);
    // OBJ indices are global; each piece welds its own equal positions, UVs and normals.
    std::size_t nv = 0, nt = 0, nn = 0;
    std::unordered_map<Key3, std::size_t, Key3Hash> vi, ti, ni;
    std::vector<std::array<std::size_t, 3>> corner_index;
    std::uint32_t current_material = UINT32_MAX;
    for (std::size_t pi = 0; pi < sf.pieces.size(); ++pi) {
        const scene::Surfaces::Piece& piece = sf.pieces[pi];
        fmt::format_to(std::back_inserter(b), "o {}\n",
                       pi < names.size() ? names[pi] : fmt::format("piece_{}", pi));
        ++out.objects;
        vi.clear();
        ti.clear();
        ni.clear();
        const std::uint32_t c0 = sf.polygon_begin[piece.first_polygon];
        const std::uint32_t c1 = sf.polygon_begin[piece.first_polygon + piece.polygon_count];
        corner_index.resize(c1 - c0);
        for (std::uint32_t c = c0; c < c1; ++c) {
            const Vec3 p = axes(sf.positions[c]) * opt.scale;
            const Key3 kp{tidy(p.x), tidy(p.y), tidy(p.z)};
            auto [v, vnew] = vi.try_emplace(kp, nv + vi.size() + 1);
            if (vnew) fmt::format_to(std::back_inserter(b), "v {} {} {}\n", kp.x, kp.y, kp.z);
            const Key3 kt{tidy(sf.uvs[c][0]), tidy(1 - sf.uvs[c][1]), 0};
            auto [t, tnew] = ti.try_emplace(kt, nt + ti.size() + 1);
            if (tnew) fmt::format_to(std::back_inserter(b), "vt {} {}\n", kt.x, kt.y);
            const Vec3 n = axes(sf.normals[c]);
            const Key3 kn{tidy(n.x), tidy(n.y), tidy(n.z)};
            auto [nn_it, nnew] = ni.try_emplace(kn, nn + ni.size() + 1);
            if (nnew) fmt::format_to(std::back_inserter(b), "vn {} {} {}\n", kn.x, kn.y, kn.z);
            corner_index[c - c0] = {v->second, t->second, nn_it->second};
        }
        nv += vi.size();
        nt += ti.size();
        nn += ni.size();
        for (std::uint32_t i = piece.first_polygon; i < piece.first_polygon + piece.polygon_count;
             ++i) {
            if (sf.polygon_material[i] != current_material) {
                current_material = sf.polygon_material[i];
                fmt::format_to(std::back_inserter(b), "usemtl {}\n",
                               obj_name(sf.materials[current_material]));
            }
            b.push_back('f');
            for (std::uint32_t c = sf.polygon_begin[i]; c < sf.polygon_begin[i + 1]; ++c) {
                const auto& k = corner_index[c - c0];
                fmt::format_to(std::back_inserter(b), " {}/{}/{}", k[0], k[1], k[2]);
            }
            b.push_back('\n');
            ++out.polygons;
        }
    }
    out.obj = fmt::to_string(b);
    out.vertices = nv;
    fmt::memory_buffer m;
    fmt::format_to(std::back_inserter(m), "# levelkit\n");
    for (const std::string& name : sf.materials) {
        const auto c = colour_of(name);
        fmt::format_to(std::back_inserter(m), "\nnewmtl {}\nKd {:.3f} {:.3f} {:.3f}\n",
                       obj_name(name), c[0], c[1], c[2]);
    }
    out.mtl = fmt::to_string(m);
    out.materials = sf.materials.size();
    return out;
}

ObjFiles scene_to_obj(const scene::Scene& s, const SceneToObjOptions& opt) {
    const scene::Surfaces sf = scene::build_surfaces(s, opt.surfaces);
    return surfaces_to_obj(sf, piece_names(s, sf), opt);
}

}  // namespace lk::convert
