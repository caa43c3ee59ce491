// Bit-for-bit comparison of two reads of a WMP2 or `$$M` text, for the tests and the fuzz
// target that check the lexer's record runs (Lexer::Run) against its general path: the values
// the runs read (vertices, faces, object transforms, model and path-node skills) must be the
// same bits, the record counts the same and, for two reads of one text, every token at the
// same place in the layout. Returns the first difference as a path, or an empty string.
#pragma once

#include <cstring>
#include <string>

#include "levelkit/wmp/level.hpp"

namespace lk::wmp::test {

inline std::string runs_difference(const Level& a, const Level& b, bool same_text) {
    const auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
    const auto same3 = [&](const Vec3& x, const Vec3& y) {
        return same(x.x, y.x) && same(x.y, y.y) && same(x.z, y.z);
    };
    const auto same_all = [&](const auto& x, const auto& y, auto eq) {
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!eq(x[i], y[i])) return false;
        return true;
    };
    const auto same_axis = [&](const std::optional<TexAxis>& x, const std::optional<TexAxis>& y) {
        return x.has_value() == y.has_value() &&
               (!x || (same3(x->axis, y->axis) && same(x->offset, y->offset)));
    };
    const auto same_transform = [&](const std::optional<TexTransform>& x,
                                    const std::optional<TexTransform>& y) {
        return x.has_value() == y.has_value() &&
               (!x || (same(x->offset_x, y->offset_x) && same(x->offset_y, y->offset_y) &&
                       same(x->rotation, y->rotation) && same(x->scale_x, y->scale_x) &&
                       same(x->scale_y, y->scale_y)));
    };
    const auto same_uv = [&](const std::array<double, 2>& x, const std::array<double, 2>& y) {
        return same(x[0], y[0]) && same(x[1], y[1]);
    };
    const auto at = [](const char* what, std::size_t i) {
        return std::string(what) + "[" + std::to_string(i) + "]";
    };

    if (same_text &&
        (a.layout.token_begin != b.layout.token_begin || a.layout.token_end != b.layout.token_end))
        return "layout";
    if (a.blocks.size() != b.blocks.size()) return "block count";
    for (std::size_t i = 0; i < a.blocks.size(); ++i) {
        const Block& x = a.blocks[i];
        const Block& y = b.blocks[i];
        if (!same_all(x.vertices, y.vertices, same3)) return at("block", i) + "/vertices";
        if (x.faces.size() != y.faces.size()) return at("block", i) + "/face count";
        if (x.flags != y.flags || x.function != y.function || x.index != y.index)
            return at("block", i) + "/trailer";
        for (std::size_t k = 0; k < x.faces.size(); ++k) {
            const Face& p = x.faces[k];
            const Face& q = y.faces[k];
            const bool ok = p.indices == q.indices &&
                            same_all(p.plane_points, q.plane_points, same3) &&
                            p.texture == q.texture && same_axis(p.t1, q.t1) &&
                            same_axis(p.t2, q.t2) && same_transform(p.transform, q.transform) &&
                            p.flags == q.flags && same(p.ambient, q.ambient) &&
                            same(p.albedo, q.albedo) && p.material == q.material &&
                            same_all(p.uvs, q.uvs, same_uv) && p.empty_uv_list == q.empty_uv_list &&
                            p.a4_tail == q.a4_tail && p.has_surface == q.has_surface;
            if (!ok) return at("block", i) + "/" + at("face", k);
        }
    }
    if (a.objects.size() != b.objects.size()) return "object count";
    for (std::size_t i = 0; i < a.objects.size(); ++i) {
        const Transform& p = a.objects[i].transform;
        const Transform& q = b.objects[i].transform;
        if (!same3(p.position, q.position) || !same3(p.angles, q.angles) ||
            !same3(p.scale, q.scale))
            return at("object", i) + "/transform";
    }
    if (a.models.size() != b.models.size()) return "model count";
    for (std::size_t i = 0; i < a.models.size(); ++i) {
        if (!same_all(a.models[i].skills, b.models[i].skills, same))
            return at("model", i) + "/skills";
    }
    if (a.paths.size() != b.paths.size()) return "path count";
    for (std::size_t i = 0; i < a.paths.size(); ++i) {
        const Path& p = a.paths[i];
        const Path& q = b.paths[i];
        if (p.skills_per_node != q.skills_per_node || !same_all(p.nodes, q.nodes, same3) ||
            !same_all(p.node_skills, q.node_skills, same))
            return at("path", i);
    }
    if (a.lights.size() != b.lights.size() || a.starts.size() != b.starts.size() ||
        a.sounds.size() != b.sounds.size() || a.regions.size() != b.regions.size() ||
        a.levels.size() != b.levels.size())
        return "entity counts";
    for (std::size_t i = 0; i < a.lights.size(); ++i) {
        const Light& p = a.lights[i];
        const Light& q = b.lights[i];
        if (!same(p.color.r, q.color.r) || !same(p.color.g, q.color.g) ||
            !same(p.color.b, q.color.b) || !same(p.range, q.range) || p.flags != q.flags)
            return at("light", i);
    }
    return {};
}

}  // namespace lk::wmp::test
