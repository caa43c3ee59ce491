// Reads a .glb back with an independent reader (Debian's tinygltf) and turns its triangles into
// map space (Hammer units, Z up) by walking the node tree, for comparing against the polygons
// that were exported.
#pragma once

#include <tiny_gltf.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/geometry.hpp"

namespace lk::test {

struct ReadTriangle {
    std::array<Vec3, 3> p;  // map space
    std::array<Vec3, 3> n;  // map space, unit
    std::array<std::array<double, 2>, 3> uv;
    std::array<std::array<double, 4>, 3> color;
    std::string material;
    std::string node;  // the node holding the mesh (or its parent, for quantised meshes)
    // Per corner: its largest coordinate relative to the node holding the mesh, in map units
    // (float32 keeps 1/1000 unit up to 16384 units).
    std::array<double, 3> reach{};
};

struct ReadBack {
    tinygltf::Model model;
    std::vector<ReadTriangle> triangles;
    std::size_t index16 = 0, index32 = 0;  // primitives by index size
};

namespace detail {

// A 4x4 column-major matrix as glTF stores it.
using Mat4 = std::array<double, 16>;

inline Mat4 mul(const Mat4& a, const Mat4& b) {
    Mat4 r{};
    for (int c = 0; c < 4; ++c)
        for (int rr = 0; rr < 4; ++rr)
            for (int k = 0; k < 4; ++k) r[c * 4 + rr] += a[k * 4 + rr] * b[c * 4 + k];
    return r;
}

inline Mat4 node_matrix(const tinygltf::Node& n) {
    if (n.matrix.size() == 16) {
        Mat4 m;
        std::copy(n.matrix.begin(), n.matrix.end(), m.begin());
        return m;
    }
    Mat4 t{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (n.translation.size() == 3) {
        t[12] = n.translation[0];
        t[13] = n.translation[1];
        t[14] = n.translation[2];
    }
    Mat4 r{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (n.rotation.size() == 4) {
        const double x = n.rotation[0], y = n.rotation[1], z = n.rotation[2], w = n.rotation[3];
        r = {1 - 2 * (y * y + z * z),
             2 * (x * y + z * w),
             2 * (x * z - y * w),
             0,
             2 * (x * y - z * w),
             1 - 2 * (x * x + z * z),
             2 * (y * z + x * w),
             0,
             2 * (x * z + y * w),
             2 * (y * z - x * w),
             1 - 2 * (x * x + y * y),
             0,
             0,
             0,
             0,
             1};
    }
    Mat4 s{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (n.scale.size() == 3) {
        s[0] = n.scale[0];
        s[5] = n.scale[1];
        s[10] = n.scale[2];
    }
    return mul(t, mul(r, s));
}

// Element i of an accessor as doubles (normalised integers mapped to -1..1 / 0..1).
inline std::vector<double> element(const tinygltf::Model& m, const tinygltf::Accessor& a,
                                   std::size_t i) {
    const tinygltf::BufferView& v = m.bufferViews.at(std::size_t(a.bufferView));
    const tinygltf::Buffer& b = m.buffers.at(std::size_t(v.buffer));
    const int comps = tinygltf::GetNumComponentsInType(std::uint32_t(a.type));
    const int csize = tinygltf::GetComponentSizeInBytes(std::uint32_t(a.componentType));
    const std::size_t stride = v.byteStride ? v.byteStride : std::size_t(comps * csize);
    const std::size_t at = v.byteOffset + a.byteOffset + i * stride;
    if (at + std::size_t(comps * csize) > b.data.size())
        throw std::runtime_error("accessor out of range");
    std::vector<double> out(static_cast<std::size_t>(comps), 0.0);
    for (int c = 0; c < comps; ++c) {
        const unsigned char* p = b.data.data() + at + std::size_t(c * csize);
        double x = 0;
        switch (a.componentType) {
            case TINYGLTF_COMPONENT_TYPE_FLOAT: {
                float f;
                std::memcpy(&f, p, 4);
                x = f;
                break;
            }
            case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
                std::uint16_t u;
                std::memcpy(&u, p, 2);
                x = a.normalized ? u / 65535.0 : u;
                break;
            }
            case TINYGLTF_COMPONENT_TYPE_SHORT: {
                std::int16_t u;
                std::memcpy(&u, p, 2);
                x = a.normalized ? std::max(u / 32767.0, -1.0) : u;
                break;
            }
            case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
                x = a.normalized ? *p / 255.0 : *p;
                break;
            case TINYGLTF_COMPONENT_TYPE_BYTE:
                x = a.normalized ? std::max(static_cast<std::int8_t>(*p) / 127.0, -1.0)
                                 : static_cast<std::int8_t>(*p);
                break;
            case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
                std::uint32_t u;
                std::memcpy(&u, p, 4);
                x = u;
                break;
            }
            default:
                throw std::runtime_error("component type");
        }
        out[std::size_t(c)] = x;
    }
    return out;
}

inline Vec3 apply(const Mat4& m, const Vec3& p, double w) {
    return {m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12] * w,
            m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13] * w,
            m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14] * w};
}

inline void walk(ReadBack& rb, int index, const Mat4& parent, const std::string& parent_name,
                 double scale) {
    const tinygltf::Model& m = rb.model;
    const tinygltf::Node& n = m.nodes.at(std::size_t(index));
    const Mat4 world = mul(parent, node_matrix(n));
    // Chunks and quantisation nodes under an entity's node carry its name plus " (...)".
    const bool part = !parent_name.empty() && n.name.rfind(parent_name + " (", 0) == 0;
    const std::string name = part ? parent_name : n.name;
    if (n.mesh >= 0) {
        // Normals transform by the inverse transpose; our nodes have uniform scale only.
        for (const tinygltf::Primitive& prim : m.meshes.at(std::size_t(n.mesh)).primitives) {
            const tinygltf::Accessor& pa =
                m.accessors.at(std::size_t(prim.attributes.at("POSITION")));
            const tinygltf::Accessor& na =
                m.accessors.at(std::size_t(prim.attributes.at("NORMAL")));
            const tinygltf::Accessor* ta =
                prim.attributes.count("TEXCOORD_0")
                    ? &m.accessors.at(std::size_t(prim.attributes.at("TEXCOORD_0")))
                    : nullptr;
            const tinygltf::Accessor* ca =
                prim.attributes.count("COLOR_0")
                    ? &m.accessors.at(std::size_t(prim.attributes.at("COLOR_0")))
                    : nullptr;
            const tinygltf::Accessor& ia = m.accessors.at(std::size_t(prim.indices));
            (ia.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT ? rb.index16
                                                                        : rb.index32)++;
            const std::string mat =
                prim.material >= 0 ? m.materials.at(std::size_t(prim.material)).name : "";
            for (std::size_t t = 0; t + 2 < ia.count; t += 3) {
                ReadTriangle tri;
                tri.material = mat;
                tri.node = name;
                for (int k = 0; k < 3; ++k) {
                    const auto idx = std::size_t(element(m, ia, t + std::size_t(k))[0]);
                    const auto p = element(m, pa, idx);
                    const auto nn = element(m, na, idx);
                    const Vec3 g = apply(world, {p[0], p[1], p[2]}, 1) / scale;
                    tri.reach[std::size_t(k)] =
                        std::max({std::abs(p[0]), std::abs(p[1]), std::abs(p[2])}) / scale;
                    const Vec3 gn = normalize(apply(world, {nn[0], nn[1], nn[2]}, 0));
                    // glTF (x, y, z) = map (x, z, -y)
                    tri.p[std::size_t(k)] = {g.x, -g.z, g.y};
                    tri.n[std::size_t(k)] = {gn.x, -gn.z, gn.y};
                    if (ta) {
                        const auto uv = element(m, *ta, idx);
                        tri.uv[std::size_t(k)] = {uv[0], uv[1]};
                    }
                    tri.color[std::size_t(k)] = {1, 1, 1, 1};
                    if (ca) {
                        const auto c = element(m, *ca, idx);
                        for (std::size_t j = 0; j < c.size() && j < 4; ++j)
                            tri.color[std::size_t(k)][j] = c[j];
                    }
                }
                rb.triangles.push_back(tri);
            }
        }
    }
    for (int c : n.children) walk(rb, c, world, name, scale);
}

}  // namespace detail

// Loads GLB bytes; throws with tinygltf's message when it cannot.
inline ReadBack read_glb(const Bytes& glb, double scale = 0.0254) {
    ReadBack rb;
    tinygltf::TinyGLTF loader;
    std::string err, warn;
    const bool ok = loader.LoadBinaryFromMemory(&rb.model, &err, &warn,
                                                reinterpret_cast<const unsigned char*>(glb.data()),
                                                static_cast<unsigned int>(glb.size()));
    if (!ok) throw std::runtime_error("tinygltf: " + err);
    const detail::Mat4 id{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const tinygltf::Scene& sc = rb.model.scenes.at(std::size_t(std::max(rb.model.defaultScene, 0)));
    for (int n : sc.nodes) detail::walk(rb, n, id, "", scale);
    return rb;
}

}  // namespace lk::test
