// Neutral model -> glTF 2.0. See levelkit/convert/model_gltf.hpp for what the file holds.
#include "levelkit/convert/model_gltf.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "gltf_axes.hpp"
#include "gltf_glb.hpp"

namespace lk::convert {

namespace {

using Json = nlohmann::ordered_json;
using namespace model;

constexpr int kFloat = 5126, kUShort = 5123, kUInt = 5125, kUByte = 5121;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;

Json vec(const Vec3f& v) {
    return Json::array({v.x, v.y, v.z});
}
Json quat(const Quat& q) {
    return Json::array({q.x, q.y, q.z, q.w});
}

class Writer {
public:
    Writer(const Model& m, const ModelGltfOptions& opt)
        : m_(m), opt_(opt), ax_(detail::GltfAxes::of(m, opt.scale)) {}

    Result<ModelGltfFiles> run();

private:
    // One buffer view per accessor (no target for animation, skin and sparse data).
    int view(const void* data, std::size_t bytes, int target) {
        while (bin_.size() % 4) bin_.push_back(std::byte{0});
        Json v;
        v["buffer"] = 0;
        v["byteOffset"] = bin_.size();
        v["byteLength"] = bytes;
        if (target) v["target"] = target;
        const std::size_t at = bin_.size();
        bin_.resize(at + bytes);
        if (bytes) std::memcpy(bin_.data() + at, data, bytes);
        views_.push_back(std::move(v));
        return static_cast<int>(views_.size() - 1);
    }
    int accessor(Json a) {
        accessors_.push_back(std::move(a));
        return static_cast<int>(accessors_.size() - 1);
    }
    template <std::size_t N>
    int floats(const std::vector<std::array<float, N>>& v, int target, bool bounds) {
        static const char* const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
        Json a;
        a["bufferView"] = view(v.data(), v.size() * N * 4, target);
        a["componentType"] = kFloat;
        a["count"] = v.size();
        a["type"] = N == 16 ? "MAT4" : types[N];
        if (bounds) add_bounds(a, v);
        return accessor(std::move(a));
    }
    template <std::size_t N>
    static void add_bounds(Json& a, const std::vector<std::array<float, N>>& v) {
        std::array<float, N> lo, hi;
        lo.fill(INFINITY);
        hi.fill(-INFINITY);
        for (const auto& e : v)
            for (std::size_t k = 0; k < N; ++k) {
                lo[k] = std::min(lo[k], e[k]);
                hi[k] = std::max(hi[k], e[k]);
            }
        if (v.empty()) return;
        a["min"] = lo;
        a["max"] = hi;
    }
    // A morph target's deltas: sparse when under a third of the vertices move.
    int deltas(const std::vector<std::array<float, 3>>& d, bool bounds);

    int node_json(std::uint32_t i);
    void write_mesh(std::size_t index);
    void write_clip(const Clip& clip);
    Json root_extras() const;

    const Model& m_;
    const ModelGltfOptions& opt_;
    detail::GltfAxes ax_;
    ModelGltfReport rep_;

    Bytes bin_;
    Json nodes_ = Json::array(), meshes_ = Json::array(), accessors_ = Json::array(),
         views_ = Json::array(), skins_ = Json::array(), animations_ = Json::array(),
         materials_ = Json::array();
    std::vector<Affine> world_;  // glTF-space world bind transforms of the model's nodes
    std::vector<int> scene_roots_;
    // Per model mesh: the glTF node holding it and its target names (for weight channels).
    std::vector<int> mesh_node_;
    std::vector<std::vector<std::string>> target_names_;
};

int Writer::deltas(const std::vector<std::array<float, 3>>& d, bool bounds) {
    std::vector<std::uint32_t> idx;
    std::vector<std::array<float, 3>> val;
    for (std::uint32_t i = 0; i < d.size(); ++i) {
        if (d[i][0] != 0 || d[i][1] != 0 || d[i][2] != 0) {
            idx.push_back(i);
            val.push_back(d[i]);
        }
    }
    if (idx.size() * 3 >= d.size() && !idx.empty()) return floats(d, kArrayBuffer, bounds);
    Json a;
    a["componentType"] = kFloat;
    a["count"] = d.size();
    a["type"] = "VEC3";
    if (bounds) add_bounds(a, d);
    if (!idx.empty()) {
        Json s;
        s["count"] = idx.size();
        s["indices"] = {{"bufferView", view(idx.data(), idx.size() * 4, 0)},
                        {"componentType", kUInt}};
        s["values"] = {{"bufferView", view(val.data(), val.size() * 12, 0)}};
        a["sparse"] = std::move(s);
        ++rep_.sparse_targets;
    }
    return accessor(std::move(a));
}

int Writer::node_json(std::uint32_t i) {
    const Node& n = m_.nodes[i];
    Json j;
    j["name"] = n.name;
    const Transform t = ax_.transform(n.bind);
    if (t.rotation != Quat{}) j["rotation"] = quat(t.rotation);
    if (t.scale != Vec3f{1, 1, 1}) j["scale"] = vec(t.scale);
    if (t.translation != Vec3f{}) j["translation"] = vec(t.translation);
    Json x;
    x["kind"] = n.kind == NodeKind::model ? "model" : n.kind == NodeKind::joint ? "joint" : "dag";
    if (!(n.pose == n.bind)) {
        const Transform p = ax_.transform(n.pose);
        x["pose"] = {vec(p.translation), quat(p.rotation), vec(p.scale)};
    }
    if (i == 0) x["levelkit"] = root_extras();
    j["extras"] = std::move(x);
    nodes_.push_back(std::move(j));
    return static_cast<int>(nodes_.size() - 1);
}

Json Writer::root_extras() const {
    Json x;
    x["nodes"] = m_.nodes.size();
    x["root_bone"] = m_.root_bone;
    x["up_axis"] = static_cast<int>(m_.up_axis);
    x["units_per_meter"] = m_.units_per_meter;
    x["metres_per_unit"] = ax_.scale;
    if (!m_.attachments.empty()) {
        Json a = Json::array();
        for (const Attachment& at : m_.attachments) {
            a.push_back({{"name", at.name},
                         {"node", at.node},
                         {"rigid", at.rigid},
                         {"world_aligned", at.world_aligned}});
        }
        x["attachments"] = std::move(a);
    }
    if (!m_.eyeballs.empty()) {
        Json a = Json::array();
        for (const Eyeball& e : m_.eyeballs) {
            a.push_back({{"name", e.name},
                         {"node", e.node},
                         {"position", vec(e.position)},
                         {"radius", e.radius},
                         {"iris_scale", e.iris_scale},
                         {"yaw_degrees", e.yaw_degrees},
                         {"material", e.material}});
        }
        x["eyeballs"] = std::move(a);
    }
    if (!m_.flex.empty()) {
        Json c = Json::array();
        for (const FlexController& f : m_.flex.controllers) {
            c.push_back({{"name", f.name},
                         {"raw_controls", f.raw_controls},
                         {"stereo", f.stereo},
                         {"eyelid", f.eyelid},
                         {"min", f.min},
                         {"max", f.max},
                         {"default", vec(f.default_value)},
                         {"wrinkle_scales", f.wrinkle_scales},
                         {"eyes_up_down", f.eyes_up_down}});
        }
        Json r = Json::array();
        for (const DominationRule& d : m_.flex.domination_rules) {
            r.push_back({{"dominators", d.dominators}, {"suppressed", d.suppressed}});
        }
        x["flex"] = {{"controllers", std::move(c)}, {"domination_rules", std::move(r)}};
    }
    return x;
}

// The nearest joint at or above `node` (a vertex without weights moves with it), or -1.
std::int32_t joint_above(const Model& m, std::uint32_t node) {
    for (std::int32_t n = static_cast<std::int32_t>(node); n >= 0;
         n = m.nodes[std::size_t(n)].parent) {
        if (m.is_joint(static_cast<std::uint32_t>(n))) return n;
    }
    return -1;
}

Vec3f unit_or(const Vec3f& v, const Vec3f& fallback, std::size_t& fixed) {
    const double l = std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z);
    if (!(l > 1e-12) || !std::isfinite(l)) {
        ++fixed;
        return fallback;
    }
    return {float(v.x / l), float(v.y / l), float(v.z / l)};
}

void Writer::write_mesh(std::size_t mi) {
    const Mesh& mesh = m_.meshes[mi];
    const Flattened fl = flatten(mesh, QuadSplit::first);
    const std::size_t nv = fl.corner.size();
    Json gm;
    gm["name"] = mesh.name;
    Json attrs;
    // Positions in the mesh node's space.
    {
        std::vector<std::array<float, 3>> p(nv);
        for (std::size_t v = 0; v < nv; ++v) {
            const Vec3f g = ax_.point(mesh.positions.at(fl.corner[v]));
            p[v] = {g.x, g.y, g.z};
        }
        attrs["POSITION"] = floats(p, kArrayBuffer, true);
    }
    if (mesh.normals.present()) {
        std::vector<std::array<float, 3>> n(nv);
        for (std::size_t v = 0; v < nv; ++v) {
            const Vec3f g = unit_or(ax_.direction(mesh.normals.at(fl.corner[v])), {0, 1, 0},
                                    rep_.normals_fixed);
            n[v] = {g.x, g.y, g.z};
        }
        attrs["NORMAL"] = floats(n, kArrayBuffer, false);
    }
    if (mesh.tangents.present() && mesh.normals.present()) {
        std::vector<std::array<float, 4>> t(nv);
        for (std::size_t v = 0; v < nv; ++v) {
            const Vec4f& s = mesh.tangents.at(fl.corner[v]);
            const Vec3f g = unit_or(ax_.direction({s.x, s.y, s.z}), {1, 0, 0}, rep_.tangents_fixed);
            t[v] = {g.x, g.y, g.z, s.w < 0 ? -1.0f : 1.0f};
        }
        attrs["TANGENT"] = floats(t, kArrayBuffer, false);
    }
    int set = 0;
    for (const Indexed<Vec2f>& tc : mesh.texcoords) {
        if (!tc.present()) continue;
        std::vector<std::array<float, 2>> uv(nv);
        for (std::size_t v = 0; v < nv; ++v) {
            const Vec2f& u = tc.at(fl.corner[v]);
            uv[v] = {u.x, 1.0f - u.y};
        }
        attrs["TEXCOORD_" + std::to_string(set++)] = floats(uv, kArrayBuffer, false);
    }
    set = 0;
    for (const Indexed<Vec4f>& cs : mesh.colors) {
        if (!cs.present()) continue;
        std::vector<std::array<float, 4>> c(nv);
        for (std::size_t v = 0; v < nv; ++v) {
            const Vec4f& s = cs.at(fl.corner[v]);
            c[v] = {std::clamp(s.x, 0.f, 1.f), std::clamp(s.y, 0.f, 1.f), std::clamp(s.z, 0.f, 1.f),
                    std::clamp(s.w, 0.f, 1.f)};
        }
        attrs["COLOR_" + std::to_string(set++)] = floats(c, kArrayBuffer, false);
    }
    auto scalar = [&](const Indexed<float>& f, const char* name) {
        if (!f.present()) return;
        std::vector<std::array<float, 1>> s(nv);
        for (std::size_t v = 0; v < nv; ++v) s[v] = {f.at(fl.corner[v])};
        attrs[name] = floats(s, kArrayBuffer, false);
    };
    scalar(mesh.balance, "_BALANCE");
    scalar(mesh.speed, "_SPEED");
    scalar(mesh.wrinkle, "_WRINKLE");
    // Fields no glTF semantic holds (Source 2 paint layers, cloth maps): _EXTRA_<k>, their names
    // and kinds in the mesh's extras.extraFields.
    Json extra_fields = Json::array();
    for (std::size_t k = 0; k < mesh.extra.size(); ++k) {
        const ExtraField& f = mesh.extra[k];
        const std::size_t n = f.components;
        if (f.indices.size() != mesh.corner_count() || n < 1 || n > 4) continue;
        std::vector<float> data(nv * n, 0.0f);
        for (std::size_t v = 0; v < nv; ++v) {
            const std::size_t at = std::size_t(f.indices[fl.corner[v]]) * n;
            if (at + n <= f.values.size())
                std::copy_n(f.values.data() + at, n, data.data() + v * n);
        }
        static const char* const types[] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
        const std::string key = "_EXTRA_" + std::to_string(k);
        Json a;
        a["bufferView"] = view(data.data(), data.size() * 4, kArrayBuffer);
        a["componentType"] = kFloat;
        a["count"] = nv;
        a["type"] = types[n];
        attrs[key] = accessor(std::move(a));
        extra_fields.push_back({{"attribute", key},
                                {"name", f.name},
                                {"kind", static_cast<int>(f.kind)},
                                {"components", n}});
    }

    // Skin: joints = every joint plus any node weights name; per vertex the 4 heaviest.
    const bool skinned = mesh.skin.influences > 0;
    int skin = -1;
    if (skinned) {
        std::vector<std::uint32_t> joints;
        for (std::uint32_t i = 0; i < m_.nodes.size(); ++i)
            if (m_.is_joint(i)) joints.push_back(i);
        for (std::uint32_t j : mesh.skin.joints)
            if (j < m_.nodes.size()) joints.push_back(j);
        const std::int32_t fallback = joint_above(m_, mesh.node);
        joints.push_back(fallback >= 0 ? std::uint32_t(fallback) : 0);
        std::sort(joints.begin(), joints.end());
        joints.erase(std::unique(joints.begin(), joints.end()), joints.end());
        std::vector<std::uint32_t> slot(m_.nodes.size(), 0);
        for (std::uint32_t k = 0; k < joints.size(); ++k) slot[joints[k]] = k;

        const std::uint32_t per = mesh.skin.influences;
        std::vector<std::array<std::uint16_t, 4>> jv(nv);
        std::vector<std::array<float, 4>> wv(nv);
        std::vector<std::pair<float, std::uint32_t>> inf;
        for (std::size_t v = 0; v < nv; ++v) {
            const std::uint32_t point = mesh.positions.indices[fl.corner[v]];
            inf.clear();
            for (std::uint32_t k = 0; k < per; ++k) {
                const std::size_t at = std::size_t(point) * per + k;
                if (at >= mesh.skin.weights.size()) break;
                const float w = mesh.skin.weights[at];
                const std::uint32_t j = mesh.skin.joints[at];
                if (!(w > 0) || j >= m_.nodes.size()) continue;
                auto same = std::find_if(inf.begin(), inf.end(),
                                         [&](const auto& e) { return e.second == j; });
                if (same != inf.end()) {
                    same->first += w;
                } else {
                    inf.emplace_back(w, j);
                }
            }
            if (inf.empty()) {
                inf.emplace_back(1.0f, fallback >= 0 ? std::uint32_t(fallback) : 0);
                ++rep_.unweighted_vertices;
            }
            // Heaviest first; ties by node index: a stable order.
            std::sort(inf.begin(), inf.end(), [](const auto& a, const auto& b) {
                return a.first != b.first ? a.first > b.first : a.second < b.second;
            });
            if (inf.size() > 4) {
                inf.resize(4);
                ++rep_.influences_reduced;
            }
            double sum = 0;
            for (const auto& e : inf) sum += e.first;
            jv[v] = {0, 0, 0, 0};
            wv[v] = {0, 0, 0, 0};
            for (std::size_t k = 0; k < inf.size(); ++k) {
                jv[v][k] = static_cast<std::uint16_t>(slot[inf[k].second]);
                wv[v][k] = static_cast<float>(inf[k].first / sum);
            }
        }
        {
            Json a;
            if (joints.size() <= 256) {
                std::vector<std::array<std::uint8_t, 4>> b(nv);
                for (std::size_t v = 0; v < nv; ++v)
                    for (int k = 0; k < 4; ++k) b[v][k] = static_cast<std::uint8_t>(jv[v][k]);
                a["bufferView"] = view(b.data(), b.size() * 4, kArrayBuffer);
                a["componentType"] = kUByte;
            } else {
                a["bufferView"] = view(jv.data(), jv.size() * 8, kArrayBuffer);
                a["componentType"] = kUShort;
            }
            a["count"] = nv;
            a["type"] = "VEC4";
            attrs["JOINTS_0"] = accessor(std::move(a));
        }
        attrs["WEIGHTS_0"] = floats(wv, kArrayBuffer, false);

        // Inverse bind matrices: mesh node bind space -> joint space, column-major.
        std::vector<std::array<float, 16>> ibm(joints.size());
        const Affine mesh_world = world_[mesh.node];
        for (std::size_t k = 0; k < joints.size(); ++k) {
            const Affine a = world_[joints[k]].inverse() * mesh_world;
            auto& o = ibm[k];
            for (int c = 0; c < 3; ++c)
                for (int r = 0; r < 3; ++r) o[std::size_t(c * 4 + r)] = float(a.m[r][c]);
            o[3] = o[7] = o[11] = 0;
            for (int r = 0; r < 3; ++r) o[std::size_t(12 + r)] = float(a.t[r]);
            o[15] = 1;
        }
        Json s;
        s["name"] = mesh.name;
        s["inverseBindMatrices"] = floats(ibm, 0, false);
        s["skeleton"] = 0;
        Json jl = Json::array();
        for (std::uint32_t j : joints) jl.push_back(j);
        s["joints"] = std::move(jl);
        skins_.push_back(std::move(s));
        skin = static_cast<int>(skins_.size() - 1);
        rep_.joints = std::max(rep_.joints, joints.size());
    }

    // Morph targets.
    Json targets = Json::array();
    std::vector<std::string> names;
    const bool target_normals =
        mesh.normals.present() && std::any_of(mesh.shapes.begin(), mesh.shapes.end(),
                                              [](const Shape& s) { return !s.normals.empty(); });
    for (const Shape& sh : mesh.shapes) {
        std::vector<Vec3f> dp(mesh.positions.values.size());
        for (std::size_t k = 0; k < sh.positions.indices.size(); ++k) {
            if (sh.positions.indices[k] < dp.size())
                dp[sh.positions.indices[k]] = sh.positions.values[k];
        }
        std::vector<std::array<float, 3>> d(nv);
        for (std::size_t v = 0; v < nv; ++v) {
            const Vec3f g = ax_.vector(dp[mesh.positions.indices[fl.corner[v]]]);
            d[v] = {g.x + 0.0f, g.y + 0.0f, g.z + 0.0f};
        }
        Json t;
        t["POSITION"] = deltas(d, true);
        if (target_normals) {
            std::vector<Vec3f> dn(mesh.normals.values.size());
            for (std::size_t k = 0; k < sh.normals.indices.size(); ++k) {
                if (sh.normals.indices[k] < dn.size())
                    dn[sh.normals.indices[k]] = sh.normals.values[k];
            }
            for (std::size_t v = 0; v < nv; ++v) {
                const Vec3f g = ax_.direction(dn[mesh.normals.indices[fl.corner[v]]]);
                d[v] = {g.x + 0.0f, g.y + 0.0f, g.z + 0.0f};
            }
            t["NORMAL"] = deltas(d, false);
        }
        targets.push_back(std::move(t));
        names.push_back(sh.name);
        ++rep_.morph_targets;
    }

    Json prims = Json::array();
    for (const Flattened::Part& part : fl.parts) {
        if (part.triangles.empty()) continue;
        Json p;
        p["attributes"] = attrs;
        const bool small = nv <= 65535;
        Json ia;
        if (small) {
            std::vector<std::uint16_t> i16(part.triangles.begin(), part.triangles.end());
            ia["bufferView"] = view(i16.data(), i16.size() * 2, kElementArrayBuffer);
            ia["componentType"] = kUShort;
        } else {
            ia["bufferView"] =
                view(part.triangles.data(), part.triangles.size() * 4, kElementArrayBuffer);
            ia["componentType"] = kUInt;
        }
        ia["count"] = part.triangles.size();
        ia["type"] = "SCALAR";
        p["indices"] = accessor(std::move(ia));
        p["material"] = part.material;
        p["mode"] = 4;
        if (!targets.empty()) p["targets"] = targets;
        prims.push_back(std::move(p));
        ++rep_.primitives;
        rep_.triangles += part.triangles.size() / 3;
    }
    rep_.vertices += nv;
    const bool drawn = !prims.empty();
    Json node;
    node["name"] = mesh.name;
    if (drawn) {
        gm["primitives"] = std::move(prims);
        if (!names.empty()) {
            gm["weights"] = std::vector<float>(names.size(), 0.0f);
            gm["extras"]["targetNames"] = names;
        }
        if (!extra_fields.empty()) gm["extras"]["extraFields"] = std::move(extra_fields);
        meshes_.push_back(std::move(gm));
        node["mesh"] = meshes_.size() - 1;
        if (skin >= 0) node["skin"] = skin;
    }
    // A mesh with nothing to draw keeps its name and node in extras only.
    node["extras"] = {{"kind", "mesh"}, {"node", mesh.node}};
    nodes_.push_back(std::move(node));
    const int id = static_cast<int>(nodes_.size() - 1);
    // Skinned meshes sit at the scene root (glTF ignores their node transform); others under
    // their node.
    if (skinned) {
        scene_roots_.push_back(id);
    } else {
        nodes_[mesh.node]["children"].push_back(id);
    }
    mesh_node_.push_back(drawn ? id : -1);
    target_names_.push_back(drawn ? std::move(names) : std::vector<std::string>{});
    ++rep_.meshes;
}

// Unipolar raw control = value; bipolar: value 0..1 spans -1..1, negative side first.
std::map<std::string, float> raw_values(const Flex& flex, const std::vector<float>& values) {
    std::map<std::string, float> out;
    for (std::size_t c = 0; c < flex.controllers.size(); ++c) {
        const FlexController& fc = flex.controllers[c];
        const float v = values[c];
        if (fc.raw_controls.size() == 1) {
            out[fc.raw_controls[0]] = v;
        } else if (fc.raw_controls.size() >= 2) {
            const float x = v * 2 - 1;
            out[fc.raw_controls[0]] = std::max(0.0f, -x);
            out[fc.raw_controls[1]] = std::max(0.0f, x);
        }
    }
    return out;
}

float sample_keys(const Keys<float>& k, double t) {
    if (k.times.empty()) return 0;
    if (t <= k.times.front()) return k.values.front();
    if (t >= k.times.back()) return k.values.back();
    const auto it = std::upper_bound(k.times.begin(), k.times.end(), t);
    const std::size_t i = std::size_t(it - k.times.begin());
    const double a = k.times[i - 1], b = k.times[i];
    const double f = b > a ? (t - a) / (b - a) : 0;
    return float(k.values[i - 1] + (k.values[i] - k.values[i - 1]) * f);
}

void Writer::write_clip(const Clip& clip) {
    const std::uint32_t frames = std::max<std::uint32_t>(clip.frame_count(), 1);
    std::vector<std::array<float, 1>> times(frames);
    for (std::uint32_t k = 0; k < frames; ++k) times[k] = {float(k / clip.frame_rate)};
    const int input = floats(times, 0, true);
    Json samplers = Json::array(), channels = Json::array();
    auto channel = [&](int output, int node, const char* path) {
        samplers.push_back({{"input", input}, {"interpolation", "LINEAR"}, {"output", output}});
        channels.push_back(
            {{"sampler", samplers.size() - 1}, {"target", {{"node", node}, {"path", path}}}});
    };
    for (const NodeTrack& tr : clip.tracks) {
        if (tr.node >= m_.nodes.size()) continue;
        const Transform& rest = m_.nodes[tr.node].bind;
        std::vector<std::array<float, 3>> t, s;
        std::vector<std::array<float, 4>> r;
        Quat prev;
        for (std::uint32_t k = 0; k < frames; ++k) {
            const Transform x = ax_.transform(sample(&tr, rest, k / clip.frame_rate));
            t.push_back({x.translation.x, x.translation.y, x.translation.z});
            s.push_back({x.scale.x, x.scale.y, x.scale.z});
            Quat q = normalize(x.rotation);
            if (k > 0 && q.x * prev.x + q.y * prev.y + q.z * prev.z + q.w * prev.w < 0)
                q = {-q.x, -q.y, -q.z, -q.w};
            prev = q;
            r.push_back({q.x, q.y, q.z, q.w});
        }
        const int node = static_cast<int>(tr.node);
        if (!tr.translation.empty()) channel(floats(t, 0, false), node, "translation");
        if (!tr.rotation.empty()) channel(floats(r, 0, false), node, "rotation");
        if (!tr.scale.empty()) channel(floats(s, 0, false), node, "scale");
    }
    Json extras;
    if (!clip.flex_tracks.empty() && !m_.flex.controllers.empty()) {
        // Controller values per frame (defaults where the clip does not animate one).
        std::vector<std::vector<float>> values(frames);
        for (std::uint32_t k = 0; k < frames; ++k) {
            values[k].resize(m_.flex.controllers.size());
            for (std::size_t c = 0; c < m_.flex.controllers.size(); ++c)
                values[k][c] = m_.flex.controllers[c].default_value.x;
        }
        Json flex = Json::object();
        for (const FlexTrack& ft : clip.flex_tracks) {
            if (ft.controller >= m_.flex.controllers.size()) continue;
            Json keys = {{"times", ft.value.times}, {"values", ft.value.values}};
            flex[m_.flex.controllers[ft.controller].name] = std::move(keys);
            for (std::uint32_t k = 0; k < frames; ++k)
                values[k][ft.controller] = sample_keys(ft.value, k / clip.frame_rate);
        }
        extras["flex"] = std::move(flex);
        for (std::size_t mi = 0; mi < m_.meshes.size(); ++mi) {
            const auto& names = target_names_[mi];
            if (names.empty() || mesh_node_[mi] < 0) continue;
            std::vector<std::array<float, 1>> w;
            bool any = false;
            for (std::uint32_t k = 0; k < frames; ++k) {
                const auto raw = raw_values(m_.flex, values[k]);
                for (const std::string& n : names) {
                    float v = 0;
                    if (auto it = raw.find(n); it != raw.end()) {
                        v = it->second;
                        any = true;
                    } else if (auto drivers = corrective_drivers(m_.flex, n); !drivers.empty()) {
                        v = 1;
                        for (const std::string& d : drivers) {
                            auto di = raw.find(d);
                            v *= di != raw.end() ? di->second : 0;
                        }
                        any = true;
                    }
                    w.push_back({std::clamp(v, 0.0f, 1.0f)});
                }
            }
            if (any) channel(floats(w, 0, false), mesh_node_[mi], "weights");
        }
    }
    extras["frame_rate"] = clip.frame_rate;
    extras["start"] = clip.start;
    extras["duration"] = clip.duration;
    if (channels.empty()) {
        // glTF needs a channel; a clip of nothing animates the root in place.
        std::vector<std::array<float, 3>> t(frames);
        const Vec3f p = ax_.transform(m_.nodes[0].bind).translation;
        for (auto& e : t) e = {p.x, p.y, p.z};
        channel(floats(t, 0, false), 0, "translation");
        extras["empty"] = true;
    }
    Json a;
    a["name"] = clip.name;
    a["channels"] = std::move(channels);
    a["samplers"] = std::move(samplers);
    a["extras"] = std::move(extras);
    animations_.push_back(std::move(a));
    ++rep_.animations;
}

Result<ModelGltfFiles> Writer::run() {
    if (m_.nodes.empty()) return Diagnostic::error("gltf.empty-model", "the model has no nodes");
    if (auto problems = check(m_, 1); !problems.empty())
        return Diagnostic::error("gltf.bad-model", "inconsistent model: " + problems.front());
    if (const std::string p = detail::non_finite(m_); !p.empty())
        return Diagnostic::error("gltf.non-finite",
                                 p + ": not a finite number, which glTF cannot hold");
    for (const Clip& c : m_.clips) {
        // Each track is sampled at every frame, and with flex tracks every controller.
        const std::size_t sampled =
            c.tracks.size() + (c.flex_tracks.empty() ? 0 : m_.flex.controllers.size());
        if (auto too_long = dense_sampling_limit(c, sampled, opt_.max_node_frames))
            return std::move(*too_long);
    }
    // glTF-space world bind transforms.
    world_.resize(m_.nodes.size());
    for (std::size_t i = 0; i < m_.nodes.size(); ++i) {
        const Affine local = Affine::from(ax_.transform(m_.nodes[i].bind));
        const std::int32_t p = m_.nodes[i].parent;
        world_[i] = p >= 0 ? world_[std::size_t(p)] * local : local;
    }
    for (std::uint32_t i = 0; i < m_.nodes.size(); ++i) node_json(i);
    for (std::uint32_t i = 1; i < m_.nodes.size(); ++i)
        nodes_[std::size_t(m_.nodes[i].parent)]["children"].push_back(i);
    scene_roots_.push_back(0);
    for (const Material& mat : m_.materials) {
        materials_.push_back(
            {{"name", mat.name}, {"pbrMetallicRoughness", {{"metallicFactor", 0.0}}}});
    }
    rep_.materials = m_.materials.size();
    for (std::size_t i = 0; i < m_.meshes.size(); ++i) write_mesh(i);
    for (const Clip& c : m_.clips) write_clip(c);
    if (bin_.size() > 0xFFFFFFF0ull)
        return Diagnostic::error("gltf.too-large",
                                 "the model needs more than 4 GiB of buffer data");

    Json doc;
    doc["asset"] = {{"generator", "levelkit"}, {"version", "2.0"}};
    doc["scene"] = 0;
    doc["scenes"] = Json::array({{{"name", m_.nodes[0].name}, {"nodes", scene_roots_}}});
    doc["nodes"] = std::move(nodes_);
    if (!meshes_.empty()) doc["meshes"] = std::move(meshes_);
    if (!materials_.empty()) doc["materials"] = std::move(materials_);
    if (!skins_.empty()) doc["skins"] = std::move(skins_);
    if (!animations_.empty()) doc["animations"] = std::move(animations_);
    if (!accessors_.empty()) doc["accessors"] = std::move(accessors_);
    if (!views_.empty()) doc["bufferViews"] = std::move(views_);
    if (!bin_.empty()) {
        Json buf;
        buf["byteLength"] = bin_.size();
        if (!opt_.binary) buf["uri"] = opt_.bin_name;
        doc["buffers"] = Json::array({std::move(buf)});
    }
    ModelGltfFiles out;
    out.binary = opt_.binary;
    out.report = rep_;
    std::string json = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (!opt_.binary) {
        out.json = std::move(json);
        out.bin = std::move(bin_);
        out.bin_name = opt_.bin_name;
        return out;
    }
    out.glb = detail::pack_glb(std::move(json), std::move(bin_));
    return out;
}

}  // namespace

Result<ModelGltfFiles> model_to_gltf(const model::Model& m, const ModelGltfOptions& opt,
                                     Diagnostics& warnings) {
    // The writer counts what it changed (ModelGltfReport); the warnings are made from the counts.
    auto r = Writer(m, opt).run();
    if (r) {
        const ModelGltfReport& rep = r->report;
        if (rep.influences_reduced) {
            warnings.add(Diagnostic::warning(
                "gltf.influences-reduced",
                std::to_string(rep.influences_reduced) +
                    " vertices have more than 4 weights: the heaviest 4 are kept, renormalised"));
        }
        if (rep.normals_fixed || rep.tangents_fixed) {
            warnings.add(Diagnostic::warning(
                "gltf.zero-normal", std::to_string(rep.normals_fixed) + " normals and " +
                                        std::to_string(rep.tangents_fixed) +
                                        " tangents of zero length replaced by unit vectors"));
        }
    }
    return r;
}

}  // namespace lk::convert
