// Semantic comparison of two levels for tests: every typed value must agree (numbers within a
// relative tolerance, since text writers print six decimals). Returns the first difference as
// a path, or an empty string.
#pragma once

#include <cmath>
#include <string>

#include "levelkit/wmp/level.hpp"

namespace lk::wmp::test {

struct Compare {
    double tol = 1e-5;
    double color_tol = 1e-5;     // percent; WMPB stores bytes, so text -> WMPB rounds to 100/255
    bool geometry_only = false;  // skip fields one encoding cannot carry (names, text extras)
    std::string diff;

    bool num(double a, double b) const {
        return std::abs(a - b) <= tol * std::max(1.0, std::max(std::abs(a), std::abs(b)));
    }
    bool fail(std::string what) {
        if (diff.empty()) diff = std::move(what);
        return false;
    }
    bool vec(const Vec3& a, const Vec3& b, const std::string& p) {
        return (num(a.x, b.x) && num(a.y, b.y) && num(a.z, b.z)) || fail(p);
    }
    // Axes are compared where both sides have them (A5 text and WMPB default surfaces have
    // none; conversions fill in WED's default axes).
    bool axis(const std::optional<TexAxis>& a, const std::optional<TexAxis>& b,
              const std::string& p) {
        if (!a || !b) return true;
        return (vec(a->axis, b->axis, p) && num(a->offset, b->offset)) || fail(p + ".offset");
    }

    bool face(const Face& a, const Face& b, const std::string& p) {
        if (a.indices != b.indices) return fail(p + "/indices");
        if (a.texture != b.texture) return fail(p + "/texture");
        if (a.flags != b.flags) return fail(p + "/flags");
        if (!num(a.ambient, b.ambient) || !num(a.albedo, b.albedo)) return fail(p + "/light");
        if (!axis(a.t1, b.t1, p + "/t1") || !axis(a.t2, b.t2, p + "/t2")) return false;
        const TexTransform ta = a.transform.value_or(TexTransform{});
        const TexTransform tb = b.transform.value_or(TexTransform{});
        if (!num(ta.offset_x, tb.offset_x) || !num(ta.offset_y, tb.offset_y) ||
            !num(ta.rotation, tb.rotation) || !num(ta.scale_x, tb.scale_x) ||
            !num(ta.scale_y, tb.scale_y)) {
            return fail(p + "/transform");
        }
        if (a.uvs.size() != b.uvs.size()) return fail(p + "/uvs");
        if (a.empty_uv_list != b.empty_uv_list) return fail(p + "/empty_uv_list");
        for (std::size_t i = 0; i < a.uvs.size(); ++i) {
            if (!num(a.uvs[i][0], b.uvs[i][0]) || !num(a.uvs[i][1], b.uvs[i][1])) {
                return fail(p + "/uvs");
            }
        }
        return true;
    }

    bool block(const Block& a, const Block& b, const std::string& p) {
        if (a.vertices.size() != b.vertices.size()) return fail(p + "/vertex count");
        for (std::size_t i = 0; i < a.vertices.size(); ++i) {
            if (!vec(a.vertices[i], b.vertices[i], p + "/vertex[" + std::to_string(i) + "]"))
                return false;
        }
        if (a.faces.size() != b.faces.size()) return fail(p + "/face count");
        for (std::size_t i = 0; i < a.faces.size(); ++i) {
            if (!face(a.faces[i], b.faces[i], p + "/face[" + std::to_string(i) + "]")) return false;
        }
        if (a.flags != b.flags || a.function != b.function) return fail(p + "/trailer");
        return true;
    }

    bool level(const Level& a, const Level& b) {
        if (a.blocks.size() != b.blocks.size()) return fail("block count");
        for (std::size_t i = 0; i < a.blocks.size(); ++i) {
            if (!block(a.blocks[i], b.blocks[i], "block[" + std::to_string(i) + "]")) return false;
        }
        if (a.objects.size() != b.objects.size()) return fail("object count");
        for (std::size_t i = 0; i < a.objects.size(); ++i) {
            const Object& x = a.objects[i];
            const Object& y = b.objects[i];
            const std::string p = "object[" + std::to_string(i) + "]";
            if (x.kind != y.kind || x.payload != y.payload || x.children != y.children)
                return fail(p + "/structure");
            if (!geometry_only && x.name != y.name) return fail(p + "/name");
            if (!vec(x.transform.position, y.transform.position, p + "/position") ||
                !vec(x.transform.angles, y.transform.angles, p + "/angles") ||
                !vec(x.transform.scale, y.transform.scale, p + "/scale")) {
                return false;
            }
        }
        if (a.levels.size() != b.levels.size()) return fail("level count");
        for (std::size_t i = 0; i < a.levels.size(); ++i) {
            const LevelInfo& x = a.levels[i];
            const LevelInfo& y = b.levels[i];
            if (x.palette != y.palette || x.script != y.script || !num(x.nexus, y.nexus) ||
                !num(x.sun_azimuth, y.sun_azimuth) || !num(x.sun_elevation, y.sun_elevation)) {
                return fail("level[" + std::to_string(i) + "]");
            }
        }
        if (a.models.size() != b.models.size()) return fail("model count");
        for (std::size_t i = 0; i < a.models.size(); ++i) {
            const Model& x = a.models[i];
            const Model& y = b.models[i];
            bool skills = x.skills.size() == y.skills.size();
            for (std::size_t k = 0; skills && k < x.skills.size(); ++k)
                skills = num(x.skills[k], y.skills[k]);
            if (x.file != y.file || x.name != y.name || x.action != y.action || !skills ||
                x.flags != y.flags || !num(x.ambient, y.ambient) || x.material != y.material ||
                x.path != y.path) {
                return fail("model[" + std::to_string(i) + "]");
            }
        }
        if (a.lights.size() != b.lights.size() || a.starts.size() != b.starts.size() ||
            a.sounds.size() != b.sounds.size() || a.paths.size() != b.paths.size() ||
            a.regions.size() != b.regions.size()) {
            return fail("entity counts");
        }
        for (std::size_t i = 0; i < a.lights.size(); ++i) {
            const Light& x = a.lights[i];
            const Light& y = b.lights[i];
            auto close = [&](double p, double q) { return std::abs(p - q) <= color_tol; };
            if (!close(x.color.r, y.color.r) || !close(x.color.g, y.color.g) ||
                !close(x.color.b, y.color.b) || !num(x.range, y.range)) {
                return fail("light[" + std::to_string(i) + "]");
            }
        }
        for (std::size_t i = 0; i < a.paths.size(); ++i) {
            const Path& x = a.paths[i];
            const Path& y = b.paths[i];
            if (x.name != y.name || x.nodes.size() != y.nodes.size()) {
                return fail("path[" + std::to_string(i) + "]");
            }
            for (std::size_t n = 0; n < x.nodes.size(); ++n) {
                if (!vec(x.nodes[n], y.nodes[n], "path[" + std::to_string(i) + "]/node"))
                    return false;
            }
        }
        return true;
    }
};

// Empty if equal, else the path of the first difference.
inline std::string level_difference(const Level& a, const Level& b, double tol = 1e-5,
                                    bool geometry_only = false, double color_tol = 1e-5) {
    Compare c;
    c.tol = tol;
    c.color_tol = color_tol;
    c.geometry_only = geometry_only;
    c.level(a, b);
    return c.diff;
}

}  // namespace lk::wmp::test
