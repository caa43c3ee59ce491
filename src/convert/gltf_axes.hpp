// Model space <-> glTF space for model_gltf.cpp / gltf_model.cpp: the model's up axis turned to
// +Y by a rotation that is a signed permutation of the axes (Z up: (x, y, z) -> (x, z, -y)), and
// lengths times `scale` (metres per model unit). Rotations conjugate to (C * q.xyz, q.w), scales
// permute with the axes.
#pragma once

#include <array>
#include <cmath>
#include <string>

#include "levelkit/model/model.hpp"

namespace lk::convert::detail {

struct GltfAxes {
    // out[i] = sign[i] * in[from[i]]
    std::array<int, 3> from{0, 1, 2};
    std::array<float, 3> sign{1, 1, 1};
    double scale = 1;

    // `metres_per_inch` for a Source model (39.37 units per metre); other units scale to it.
    static GltfAxes of(model::Axis up, double units_per_meter, double metres_per_inch) {
        GltfAxes a;
        switch (up) {
            case model::Axis::z:
                a.from = {0, 2, 1}, a.sign = {1, 1, -1};
                break;
            case model::Axis::neg_z:
                a.from = {0, 2, 1}, a.sign = {1, -1, 1};
                break;
            case model::Axis::y:
                break;
            case model::Axis::neg_y:
                a.sign = {1, -1, -1};
                break;
            case model::Axis::x:
                a.from = {1, 0, 2}, a.sign = {-1, 1, 1};
                break;
            case model::Axis::neg_x:
                a.from = {1, 0, 2}, a.sign = {1, -1, 1};
                break;
        }
        const double inches = 39.37007874015748;
        a.scale =
            units_per_meter > 0 ? metres_per_inch * inches / units_per_meter : metres_per_inch;
        return a;
    }
    static GltfAxes of(const model::Model& m, double metres_per_inch) {
        return of(m.up_axis, m.units_per_meter, metres_per_inch);
    }

    model::Vec3f direction(const model::Vec3f& v) const {
        const float in[3] = {v.x, v.y, v.z};
        return {sign[0] * in[from[0]] + 0.0f, sign[1] * in[from[1]] + 0.0f,
                sign[2] * in[from[2]] + 0.0f};
    }
    model::Vec3f vector(const model::Vec3f& v) const {
        const model::Vec3f d = direction(v);
        return {float(d.x * scale), float(d.y * scale), float(d.z * scale)};
    }
    model::Vec3f point(const model::Vec3f& v) const { return vector(v); }
    model::Quat rotation(const model::Quat& q) const {
        const model::Vec3f v = direction({q.x, q.y, q.z});
        return {v.x, v.y, v.z, q.w};
    }
    model::Vec3f scales(const model::Vec3f& s) const {
        const float in[3] = {s.x, s.y, s.z};
        return {in[from[0]], in[from[1]], in[from[2]]};
    }
    model::Transform transform(const model::Transform& t) const {
        return {vector(t.translation), rotation(t.rotation), scales(t.scale)};
    }

    // The inverses (glTF space -> model space).
    model::Vec3f direction_back(const model::Vec3f& v) const {
        const float in[3] = {v.x, v.y, v.z};
        float out[3];
        for (int i = 0; i < 3; ++i) out[from[std::size_t(i)]] = sign[std::size_t(i)] * in[i] + 0.0f;
        return {out[0], out[1], out[2]};
    }
    model::Vec3f vector_back(const model::Vec3f& v) const {
        const model::Vec3f d = direction_back(v);
        return {float(d.x / scale), float(d.y / scale), float(d.z / scale)};
    }
    model::Quat rotation_back(const model::Quat& q) const {
        const model::Vec3f v = direction_back({q.x, q.y, q.z});
        return {v.x, v.y, v.z, q.w};
    }
    model::Vec3f scales_back(const model::Vec3f& s) const {
        const float in[3] = {s.x, s.y, s.z};
        float out[3];
        for (int i = 0; i < 3; ++i) out[from[std::size_t(i)]] = in[i];
        return {out[0], out[1], out[2]};
    }
    model::Transform transform_back(const model::Transform& t) const {
        return {vector_back(t.translation), rotation_back(t.rotation), scales_back(t.scale)};
    }
};

// The first node transform, position, normal, shape delta or key of `m` that is not a finite
// number, as a path into the model; empty when all are finite. glTF JSON cannot hold NaN or
// infinity, and a glTF value near the float limit overflows when turned into inches.
inline std::string non_finite(const model::Model& m) {
    using namespace model;
    auto ok3 = [](const Vec3f& v) {
        return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
    };
    auto okq = [](const Quat& q) {
        return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w);
    };
    auto okt = [&](const Transform& t) {
        return ok3(t.translation) && okq(t.rotation) && ok3(t.scale);
    };
    for (std::size_t i = 0; i < m.nodes.size(); ++i)
        if (!okt(m.nodes[i].bind) || !okt(m.nodes[i].pose))
            return "nodes[" + std::to_string(i) + "]";
    for (std::size_t i = 0; i < m.meshes.size(); ++i) {
        const Mesh& mesh = m.meshes[i];
        const std::string p = "meshes[" + std::to_string(i) + "]";
        for (const Vec3f& v : mesh.positions.values)
            if (!ok3(v)) return p + "/POSITION";
        for (const Vec3f& v : mesh.normals.values)
            if (!ok3(v)) return p + "/NORMAL";
        for (const Shape& sh : mesh.shapes)
            for (const Vec3f& v : sh.positions.values)
                if (!ok3(v)) return p + "/targets";
    }
    for (std::size_t i = 0; i < m.clips.size(); ++i)
        for (const NodeTrack& t : m.clips[i].tracks) {
            const std::string p = "animations[" + std::to_string(i) + "]";
            for (const Vec3f& v : t.translation.values)
                if (!ok3(v)) return p;
            for (const Vec3f& v : t.scale.values)
                if (!ok3(v)) return p;
            for (const Quat& q : t.rotation.values)
                if (!okq(q)) return p;
        }
    return {};
}

}  // namespace lk::convert::detail
