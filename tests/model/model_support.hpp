// Model corpus helpers: the DMX model files of the shared corpus, and an SMD content comparison
// with the tolerances of the model acceptance (positions/normals/weights/rest pose/animation
// 1e-4, UVs 1e-5; triangles as a multiset, each up to rotation of its corners).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/model/model.hpp"
#include "levelkit/smd/smd.hpp"
#include "support/corpus.hpp"

namespace lk::test {

struct ModelFile {
    std::filesystem::path path;
    Bytes bytes;
    dmx::Document doc;
};

// Every corpus DMX (models/ and dmx/) whose header says "format model".
inline std::vector<ModelFile> model_corpus() {
    std::vector<ModelFile> out;
    std::vector<std::filesystem::path> paths = corpus_files("model", {".dmx", ".dmx.gz"});
    for (auto& p : corpus_files("dmx", {".dmx", ".dmx.gz"})) paths.push_back(p);
    for (const auto& p : paths) {
        auto bytes = read_file(p);
        if (!bytes) continue;
        auto doc = dmx::read(bytes.value());
        if (!doc || doc->header.format != "model") continue;
        out.push_back({p, std::move(bytes).value(), std::move(doc).value()});
    }
    return out;
}

inline std::string corpus_model_path(const std::string& name) {
    auto dir = corpus_dir();
    return dir ? (*dir / "model" / name).string() : std::string();
}

struct SmdTolerance {
    double position = 1e-4, normal = 1e-4, uv = 1e-5, weight = 1e-4, rotation = 1e-4;
    bool uvs = true;
};

namespace detail {

inline bool near3(const smd::Vec3& a, const smd::Vec3& b, double eps) {
    return std::abs(a.x - b.x) <= eps && std::abs(a.y - b.y) <= eps && std::abs(a.z - b.z) <= eps;
}

inline model::Quat euler_quat(const smd::Vec3& r) {
    return model::from_euler_xyz(
        {static_cast<float>(r.x), static_cast<float>(r.y), static_cast<float>(r.z)});
}

// Effective weights of a vertex: its links, or its parent bone at 1 without links; by bone name.
inline std::vector<std::pair<std::string, double>> weights(const smd::File& f,
                                                           const smd::Vertex& v) {
    std::vector<std::pair<std::string, double>> out;
    auto name = [&](std::int32_t id) {
        const std::int32_t i = f.node_index(id);
        return i >= 0 ? f.nodes[static_cast<std::size_t>(i)].name : fmt::format("#{}", id);
    };
    if (v.link_count > 0) {
        for (const smd::Link& l : f.links_of(v)) {
            if (l.weight != 0) out.emplace_back(name(l.bone), l.weight);
        }
    } else {
        out.emplace_back(name(v.parent), 1.0);
    }
    std::sort(out.begin(), out.end());
    return out;
}

inline bool same_vertex(const smd::File& fa, const smd::Vertex& a, const smd::File& fb,
                        const smd::Vertex& b, const SmdTolerance& t) {
    if (!near3(a.position, b.position, t.position) || !near3(a.normal, b.normal, t.normal) ||
        (t.uvs && (std::abs(a.u - b.u) > t.uv || std::abs(a.v - b.v) > t.uv))) {
        return false;
    }
    const auto wa = weights(fa, a), wb = weights(fb, b);
    if (wa.size() != wb.size()) return false;
    for (std::size_t i = 0; i < wa.size(); ++i) {
        if (wa[i].first != wb[i].first || std::abs(wa[i].second - wb[i].second) > t.weight) {
            return false;
        }
    }
    return true;
}

}  // namespace detail

// nullopt when `got` has the content of `want`: bones (names, parents by name; the name of an
// implicit root bone may differ when `root_name_free`), every skeleton frame (positions within
// tolerance, rotations compared as rotations), triangles (material, corners, any order of
// triangles, corners up to rotation), VTA frames.
inline std::optional<std::string> compare_smd(const smd::File& want, const smd::File& got,
                                              const SmdTolerance& t = {}) {
    if (want.nodes.size() != got.nodes.size()) {
        return fmt::format("{} bones, want {}", got.nodes.size(), want.nodes.size());
    }
    auto parent_name = [](const smd::File& f, const smd::Node& n) {
        const std::int32_t i = f.node_index(n.parent);
        return i >= 0 ? f.nodes[static_cast<std::size_t>(i)].name : std::string("-");
    };
    for (std::size_t i = 0; i < want.nodes.size(); ++i) {
        if (want.nodes[i].name != got.nodes[i].name) {
            return fmt::format("bone {} is '{}', want '{}'", i, got.nodes[i].name,
                               want.nodes[i].name);
        }
        if (parent_name(want, want.nodes[i]) != parent_name(got, got.nodes[i])) {
            return fmt::format("bone '{}' has parent '{}', want '{}'", want.nodes[i].name,
                               parent_name(got, got.nodes[i]), parent_name(want, want.nodes[i]));
        }
    }
    if (want.skeleton.size() != got.skeleton.size()) {
        return fmt::format("{} frames, want {}", got.skeleton.size(), want.skeleton.size());
    }
    for (std::size_t k = 0; k < want.skeleton.size(); ++k) {
        const auto &a = want.skeleton[k], &b = got.skeleton[k];
        if (a.time != b.time)
            return fmt::format("frame {} has time {}, want {}", k, b.time, a.time);
        if (a.bones.size() != b.bones.size()) {
            return fmt::format("frame {} lists {} bones, want {}", k, b.bones.size(),
                               a.bones.size());
        }
        for (const smd::BonePose& p : a.bones) {
            const std::string& name =
                want.nodes[static_cast<std::size_t>(want.node_index(p.bone))].name;
            const smd::BonePose* q = nullptr;
            for (const smd::BonePose& x : b.bones) {
                const std::int32_t i = got.node_index(x.bone);
                if (i >= 0 && got.nodes[static_cast<std::size_t>(i)].name == name) q = &x;
            }
            if (!q) return fmt::format("frame {}: no pose for '{}'", k, name);
            if (!detail::near3(p.position, q->position, t.position)) {
                return fmt::format("frame {} bone '{}': position ({} {} {}) want ({} {} {})", k,
                                   name, q->position.x, q->position.y, q->position.z, p.position.x,
                                   p.position.y, p.position.z);
            }
            const double angle = model::angle_between(detail::euler_quat(p.rotation),
                                                      detail::euler_quat(q->rotation));
            if (angle > t.rotation) {
                return fmt::format("frame {} bone '{}': rotation off by {} rad", k, name, angle);
            }
        }
    }
    if (want.triangles.size() != got.triangles.size()) {
        return fmt::format("{} triangles, want {}", got.triangles.size(), want.triangles.size());
    }
    std::vector<bool> used(got.triangles.size(), false);
    for (std::size_t i = 0; i < want.triangles.size(); ++i) {
        const smd::Triangle& a = want.triangles[i];
        bool found = false;
        for (std::size_t j = 0; j < got.triangles.size() && !found; ++j) {
            if (used[j]) continue;
            const smd::Triangle& b = got.triangles[j];
            if (want.materials[a.material] != got.materials[b.material]) continue;
            for (int r = 0; r < 3 && !found; ++r) {
                bool all = true;
                for (int k = 0; k < 3 && all; ++k) {
                    all = detail::same_vertex(want, a.v[k], got, b.v[(k + r) % 3], t);
                }
                if (all) {
                    used[j] = true;
                    found = true;
                }
            }
        }
        if (!found) {
            const smd::Vertex& v = a.v[0];
            return fmt::format("triangle {} ({} at {} {} {}) has no match", i,
                               want.materials[a.material], v.position.x, v.position.y,
                               v.position.z);
        }
    }
    if (want.vertex_animation.size() != got.vertex_animation.size()) {
        return fmt::format("{} VTA frames, want {}", got.vertex_animation.size(),
                           want.vertex_animation.size());
    }
    return std::nullopt;
}

}  // namespace lk::test
