// glTF 2.0 -> neutral model, read with tinygltf (Debian's header, built in: tinygltf.hpp). tinygltf
// parses the JSON and loads the buffers; every index, count, offset and stride is checked here
// before any byte is read.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "gltf_axes.hpp"
#include "levelkit/convert/model_gltf.hpp"
#include "tinygltf.hpp"

namespace lk::convert {

namespace {

using Json = nlohmann::json;
using namespace model;

constexpr std::size_t kMaxElements = std::size_t(1) << 26;

Diagnostic bad(const std::string& path, const std::string& what) {
    Diagnostic d = Diagnostic::error("gltf.bad-file", path + ": " + what);
    d.path = path;
    return d;
}

Json extras_of(const std::string& text) {
    if (text.empty()) return Json::object();
    Json j = Json::parse(text, nullptr, false);
    return j.is_object() ? j : Json::object();
}

template <class T>
T get_or(const Json& j, const char* key, T fallback) {
    auto it = j.find(key);
    if (it == j.end()) return fallback;
    try {
        return it->get<T>();
    } catch (const Json::exception&) {
        return fallback;
    }
}

// A JSON number as T when T holds it exactly: an integer in T's range, or a float with an
// integral value in range. json::get<T>() would wrap integers and cast floats out of range
// (undefined behaviour).
template <class T>
std::optional<T> json_integer(const Json& v) {
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        return std::in_range<T>(u) ? std::optional<T>(static_cast<T>(u)) : std::nullopt;
    }
    if (v.is_number_integer()) {
        const auto i = v.get<std::int64_t>();
        return std::in_range<T>(i) ? std::optional<T>(static_cast<T>(i)) : std::nullopt;
    }
    if (v.is_number_float()) {
        const double d = v.get<double>();
        const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
        const double lo = std::is_signed_v<T> ? -hi : 0.0;
        if (d >= lo && d < hi && d == std::trunc(d)) return static_cast<T>(d);
    }
    return std::nullopt;
}

// An accessor's elements as floats (normalised integers mapped to 0..1 / -1..1; other integers
// as their value), `comps` per element, sparse substitution applied.
struct Floats {
    std::vector<float> v;
    int comps = 0;
    std::size_t count = 0;
    const float* at(std::size_t i) const { return v.data() + i * std::size_t(comps); }
};

int component_size(int type) {
    switch (type) {
        case TINYGLTF_COMPONENT_TYPE_BYTE:
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
            return 1;
        case TINYGLTF_COMPONENT_TYPE_SHORT:
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
            return 2;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
        case TINYGLTF_COMPONENT_TYPE_FLOAT:
            return 4;
        default:
            return 0;
    }
}

float component(const unsigned char* p, int type, bool normalized) {
    switch (type) {
        case TINYGLTF_COMPONENT_TYPE_BYTE: {
            const auto x = static_cast<std::int8_t>(*p);
            return normalized ? std::max(x / 127.0f, -1.0f) : x;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
            return normalized ? *p / 255.0f : *p;
        case TINYGLTF_COMPONENT_TYPE_SHORT: {
            std::int16_t x;
            std::memcpy(&x, p, 2);
            return normalized ? std::max(x / 32767.0f, -1.0f) : x;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
            std::uint16_t x;
            std::memcpy(&x, p, 2);
            return normalized ? x / 65535.0f : x;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
            std::uint32_t x;
            std::memcpy(&x, p, 4);
            return static_cast<float>(x);
        }
        default: {
            float x;
            std::memcpy(&x, p, 4);
            return x;
        }
    }
}

// Renormalised only when off unit length by more than float rounding, so a rotation written by
// levelkit reads back with the same bits (and the next write gives the same bytes).
Quat unit_quat(const Quat& q) {
    const double n = double(q.x) * q.x + double(q.y) * q.y + double(q.z) * q.z + double(q.w) * q.w;
    return std::abs(n - 1) <= 4e-7 ? q : normalize(q);
}

// The fewest influence slots that hold every point's non-zero weights (at least one), nonzero
// weights first, so a DMX writer does not declare more than the file uses.
void compact_skin(Skin& skin) {
    if (skin.influences == 0) return;
    const std::uint32_t per = skin.influences;
    const std::size_t points = skin.weights.size() / per;
    std::uint32_t used = 1;
    for (std::size_t p = 0; p < points; ++p) {
        std::uint32_t n = 0;
        for (std::uint32_t k = 0; k < per; ++k) n += skin.weights[p * per + k] > 0;
        used = std::max(used, n);
    }
    Skin out;
    out.influences = used;
    out.joints.assign(points * used, 0);
    out.weights.assign(points * used, 0);
    for (std::size_t p = 0; p < points; ++p) {
        std::uint32_t n = 0;
        for (std::uint32_t k = 0; k < per; ++k) {
            if (!(skin.weights[p * per + k] > 0)) continue;
            out.joints[p * used + n] = skin.joints[p * per + k];
            out.weights[p * used + n] = skin.weights[p * per + k];
            ++n;
        }
    }
    skin = std::move(out);
}

class Reader {
public:
    Reader(const tinygltf::Model& g, const GltfModelOptions& opt, Diagnostics& warnings)
        : g_(g), opt_(opt), warnings_(warnings) {}
    Result<Model> run();

private:
    // Reads one typed view (bufferView + offset, count elements of comps components).
    Result<void> read_view(int view, std::size_t offset, std::size_t count, int comps, int ctype,
                           bool normalized, const std::string& path, float* out,
                           std::size_t out_stride) const;
    Result<Floats> accessor(int index, const std::string& path,
                            std::initializer_list<int> comps) const;
    Result<std::vector<std::uint32_t>> indices(int index, const std::string& path) const;
    Result<void> read_mesh(std::size_t gnode, std::uint32_t model_node, std::string name);
    Result<void> read_clip(std::size_t index);
    Result<void> read_weights(const tinygltf::Animation& a, std::size_t channel, Clip& clip);
    // Per glTF node holding a mesh: its shapes' names (for weight channels).
    std::map<int, std::vector<std::string>> mesh_targets_;
    Result<std::uint32_t> model_node_of(int gnode, const std::string& path) const {
        if (gnode < 0 || std::size_t(gnode) >= node_map_.size() ||
            node_map_[std::size_t(gnode)] < 0)
            return bad(path, "node " + std::to_string(gnode) + " is not part of the model");
        return std::uint32_t(node_map_[std::size_t(gnode)]);
    }
    Transform local_of(const tinygltf::Node& n, const std::string& path) const;
    // An integer from levelkit's extras: `fallback` when absent or not a number, `if_bad` (and a
    // warning naming the field) when a number T cannot hold.
    template <class T>
    T integer_or(const Json& j, const char* key, T fallback, T if_bad, const std::string& path) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_number()) return fallback;
        if (auto v = json_integer<T>(*it)) return *v;
        const std::string at = path + "/" + key;
        warnings_.add(Diagnostic::warning("gltf.out-of-range",
                                          at + ": " + it->dump() + " is not an integer in range")
                          .with_path(at));
        return if_bad;
    }

    const tinygltf::Model& g_;
    const GltfModelOptions& opt_;
    Diagnostics& warnings_;
    Model m_;
    detail::GltfAxes ax_;
    std::vector<std::int32_t> node_map_;  // glTF node -> model node (-1: none)
    bool ours_ = false;
    Json root_x_;
};

Result<void> Reader::read_view(int view, std::size_t offset, std::size_t count, int comps,
                               int ctype, bool normalized, const std::string& path, float* out,
                               std::size_t out_stride) const {
    if (view < 0 || std::size_t(view) >= g_.bufferViews.size())
        return bad(path, "bufferView " + std::to_string(view) + " does not exist");
    const tinygltf::BufferView& v = g_.bufferViews[std::size_t(view)];
    if (v.buffer < 0 || std::size_t(v.buffer) >= g_.buffers.size())
        return bad(path, "buffer " + std::to_string(v.buffer) + " does not exist");
    const auto& data = g_.buffers[std::size_t(v.buffer)].data;
    const std::size_t csize = std::size_t(component_size(ctype));
    if (!csize) return bad(path, "componentType " + std::to_string(ctype) + " is not valid");
    const std::size_t elem = csize * std::size_t(comps);
    const std::size_t stride = v.byteStride ? v.byteStride : elem;
    if (stride < elem || stride > 252) return bad(path, "byteStride does not fit the elements");
    if (v.byteOffset > data.size() || v.byteLength > data.size() - v.byteOffset)
        return bad(path, "bufferView lies outside its buffer");
    if (count == 0) return {};
    if (offset > v.byteLength || (count - 1) > (v.byteLength - offset) / stride ||
        offset + (count - 1) * stride + elem > v.byteLength) {
        return bad(path, "elements run past the end of the bufferView");
    }
    const unsigned char* base = data.data() + v.byteOffset + offset;
    for (std::size_t i = 0; i < count; ++i)
        for (int c = 0; c < comps; ++c)
            out[i * out_stride + std::size_t(c)] =
                component(base + i * stride + std::size_t(c) * csize, ctype, normalized);
    return {};
}

Result<Floats> Reader::accessor(int index, const std::string& path,
                                std::initializer_list<int> comps) const {
    if (index < 0 || std::size_t(index) >= g_.accessors.size())
        return bad(path, "accessor " + std::to_string(index) + " does not exist");
    const tinygltf::Accessor& a = g_.accessors[std::size_t(index)];
    const int n = tinygltf::GetNumComponentsInType(std::uint32_t(a.type));
    if (n <= 0 || std::find(comps.begin(), comps.end(), n) == comps.end())
        return bad(path, "accessor type does not fit");
    if (a.count > kMaxElements) return bad(path, "accessor count is too large");
    Floats f;
    f.comps = n;
    f.count = a.count;
    f.v.assign(a.count * std::size_t(n), 0.0f);
    if (a.bufferView >= 0) {
        LK_TRY(read_view(a.bufferView, a.byteOffset, a.count, n, a.componentType, a.normalized,
                         path, f.v.data(), std::size_t(n)));
    }
    if (a.sparse.isSparse) {
        const std::size_t sc = std::size_t(std::max(a.sparse.count, 0));
        if (sc > a.count) return bad(path + "/sparse", "more sparse entries than elements");
        std::vector<float> idx(sc), val(sc * std::size_t(n));
        LK_TRY(read_view(a.sparse.indices.bufferView, std::size_t(a.sparse.indices.byteOffset), sc,
                         1, a.sparse.indices.componentType, false, path + "/sparse/indices",
                         idx.data(), 1));
        LK_TRY(read_view(a.sparse.values.bufferView, std::size_t(a.sparse.values.byteOffset), sc, n,
                         a.componentType, a.normalized, path + "/sparse/values", val.data(),
                         std::size_t(n)));
        for (std::size_t i = 0; i < sc; ++i) {
            if (!(idx[i] >= 0) || idx[i] >= float(a.count))
                return bad(path + "/sparse/indices", "index out of range");
            const std::size_t at = std::size_t(idx[i]);
            std::copy_n(val.data() + i * std::size_t(n), n, f.v.data() + at * std::size_t(n));
        }
    }
    return f;
}

Result<std::vector<std::uint32_t>> Reader::indices(int index, const std::string& path) const {
    LK_TRY_ASSIGN(Floats f, accessor(index, path, {1}));
    const tinygltf::Accessor& a = g_.accessors[std::size_t(index)];
    // The glTF spec: UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT, not normalised.
    if ((a.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
         a.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
         a.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT) ||
        a.normalized)
        return bad(path, "indices must be unsigned integers");
    std::vector<std::uint32_t> out(f.count);
    for (std::size_t i = 0; i < f.count; ++i) {
        // 4294967295.0f is 2^32 (the nearest float): the bound must be exclusive.
        if (!(f.v[i] >= 0 && f.v[i] < 4294967296.0f)) return bad(path, "index out of range");
        out[i] = std::uint32_t(f.v[i]);
    }
    // Exact for bytes and shorts; 32-bit indices above 2^24 lose precision in float, so re-read.
    if (a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT && a.bufferView >= 0 &&
        !a.sparse.isSparse) {
        const tinygltf::BufferView& v = g_.bufferViews[std::size_t(a.bufferView)];
        const std::size_t stride = v.byteStride ? v.byteStride : 4;
        const unsigned char* base =
            g_.buffers[std::size_t(v.buffer)].data.data() + v.byteOffset + a.byteOffset;
        for (std::size_t i = 0; i < f.count; ++i) std::memcpy(&out[i], base + i * stride, 4);
    }
    return out;
}

Transform Reader::local_of(const tinygltf::Node& n, const std::string&) const {
    Transform t;
    if (n.matrix.size() == 16) {
        Affine a;
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r) a.m[r][c] = n.matrix[std::size_t(c * 4 + r)];
        for (int r = 0; r < 3; ++r) a.t[r] = n.matrix[std::size_t(12 + r)];
        t = decompose(a);
    } else {
        if (n.translation.size() == 3)
            t.translation = {float(n.translation[0]), float(n.translation[1]),
                             float(n.translation[2])};
        if (n.rotation.size() == 4)
            t.rotation = unit_quat(Quat{float(n.rotation[0]), float(n.rotation[1]),
                                        float(n.rotation[2]), float(n.rotation[3])});
        if (n.scale.size() == 3)
            t.scale = {float(n.scale[0]), float(n.scale[1]), float(n.scale[2])};
    }
    return ax_.transform_back(t);
}

Result<void> Reader::read_mesh(std::size_t gnode, std::uint32_t model_node, std::string name) {
    const tinygltf::Node& n = g_.nodes[gnode];
    const std::string mpath = "meshes[" + std::to_string(n.mesh) + "]";
    if (n.mesh < 0 || std::size_t(n.mesh) >= g_.meshes.size())
        return bad("nodes[" + std::to_string(gnode) + "]/mesh", "mesh does not exist");
    const tinygltf::Mesh& gm = g_.meshes[std::size_t(n.mesh)];
    const tinygltf::Skin* skin = nullptr;
    if (n.skin >= 0) {
        if (std::size_t(n.skin) >= g_.skins.size())
            return bad("nodes[" + std::to_string(gnode) + "]/skin", "skin does not exist");
        skin = &g_.skins[std::size_t(n.skin)];
    }
    std::vector<std::uint32_t> skin_nodes;
    if (skin) {
        for (std::size_t k = 0; k < skin->joints.size(); ++k) {
            LK_TRY_ASSIGN(
                std::uint32_t mn,
                model_node_of(skin->joints[k], "skins[" + std::to_string(n.skin) + "]/joints[" +
                                                   std::to_string(k) + "]"));
            skin_nodes.push_back(mn);
        }
    }
    const Json mx = extras_of(gm.extras_json_string);
    std::vector<std::string> target_names;
    if (auto it = mx.find("targetNames"); it != mx.end() && it->is_array()) {
        for (const Json& t : *it) target_names.push_back(t.is_string() ? t.get<std::string>() : "");
    }

    Mesh mesh;
    mesh.name = std::move(name);
    mesh.node = model_node;
    // levelkit's _EXTRA_<k> attributes: vertex fields glTF has no semantic for.
    std::vector<std::string> extra_keys;
    if (auto it = mx.find("extraFields"); it != mx.end() && it->is_array()) {
        for (std::size_t k = 0; k < it->size(); ++k) {
            const Json& e = (*it)[k];
            const std::string epath = mpath + "/extras/extraFields[" + std::to_string(k) + "]";
            ExtraField f;
            f.name = get_or<std::string>(e, "name", "");
            const int kind = integer_or<int>(e, "kind", 0, 0, epath);
            f.kind = kind == 1   ? ExtraField::Kind::integer
                     : kind == 2 ? ExtraField::Kind::color8
                                 : ExtraField::Kind::real;
            const int comps = integer_or<int>(e, "components", 1, 0, epath);
            if (comps < 1 || comps > 4) continue;
            f.components = static_cast<std::uint8_t>(comps);
            extra_keys.push_back(get_or<std::string>(e, "attribute", ""));
            mesh.extra.push_back(std::move(f));
        }
    }
    std::map<int, std::uint32_t> base_of;  // POSITION accessor -> first vertex
    std::size_t targets = 0;
    bool first = true;
    for (std::size_t pi = 0; pi < gm.primitives.size(); ++pi) {
        const tinygltf::Primitive& p = gm.primitives[pi];
        const std::string ppath = mpath + "/primitives[" + std::to_string(pi) + "]";
        if (p.mode != -1 && p.mode != TINYGLTF_MODE_TRIANGLES) {
            warnings_.add(
                Diagnostic::warning("gltf.not-triangles", ppath + ": not triangles, left out"));
            continue;
        }
        auto attr = [&](const std::string& key) {
            auto it = p.attributes.find(key);
            return it == p.attributes.end() ? -1 : it->second;
        };
        const int pos = attr("POSITION");
        if (pos < 0) return bad(ppath + "/attributes", "no POSITION");
        if (first) {
            targets = p.targets.size();
        } else if (p.targets.size() != targets) {
            return bad(ppath + "/targets", "primitives of a mesh differ in their targets");
        }
        std::uint32_t base;
        if (auto it = base_of.find(pos); it != base_of.end()) {
            base = it->second;
        } else {
            // New vertices: read every attribute.
            const std::string apath = ppath + "/attributes/";
            LK_TRY_ASSIGN(Floats P, accessor(pos, apath + "POSITION", {3}));
            const std::size_t nv = P.count;
            base = static_cast<std::uint32_t>(mesh.positions.values.size());
            if (base + nv > kMaxElements) return bad(apath + "POSITION", "too many vertices");
            base_of[pos] = base;
            auto need = [&](const Floats& f, const std::string& what) -> Result<void> {
                if (f.count != nv) return bad(apath + what, "count differs from POSITION's");
                return {};
            };
            for (std::size_t v = 0; v < nv; ++v)
                mesh.positions.values.push_back(
                    ax_.vector_back({P.at(v)[0], P.at(v)[1], P.at(v)[2]}));
            // Fields present on an earlier primitive but not this one (or the other way round)
            // are padded so each field keeps one value per vertex.
            auto pad3 = [&](std::vector<Vec3f>& vals, const Vec3f& d) { vals.resize(base, d); };
            if (int a = attr("NORMAL"); a >= 0 || !mesh.normals.values.empty()) {
                pad3(mesh.normals.values, {0, 0, 1});
                if (a >= 0) {
                    LK_TRY_ASSIGN(Floats N, accessor(a, apath + "NORMAL", {3}));
                    LK_TRY(need(N, "NORMAL"));
                    for (std::size_t v = 0; v < nv; ++v)
                        mesh.normals.values.push_back(
                            ax_.direction_back({N.at(v)[0], N.at(v)[1], N.at(v)[2]}));
                } else {
                    mesh.normals.values.resize(base + nv, {0, 0, 1});
                }
            }
            if (int a = attr("TANGENT"); a >= 0 || !mesh.tangents.values.empty()) {
                mesh.tangents.values.resize(base, {1, 0, 0, 1});
                if (a >= 0) {
                    LK_TRY_ASSIGN(Floats T, accessor(a, apath + "TANGENT", {4}));
                    LK_TRY(need(T, "TANGENT"));
                    for (std::size_t v = 0; v < nv; ++v) {
                        const Vec3f d = ax_.direction_back({T.at(v)[0], T.at(v)[1], T.at(v)[2]});
                        mesh.tangents.values.push_back({d.x, d.y, d.z, T.at(v)[3]});
                    }
                } else {
                    mesh.tangents.values.resize(base + nv, {1, 0, 0, 1});
                }
            }
            for (int set = 0; set < 8; ++set) {
                const int a = attr("TEXCOORD_" + std::to_string(set));
                if (a < 0 && std::size_t(set) >= mesh.texcoords.size()) break;
                if (std::size_t(set) >= mesh.texcoords.size())
                    mesh.texcoords.resize(std::size_t(set) + 1);
                auto& vals = mesh.texcoords[std::size_t(set)].values;
                vals.resize(base, {0, 0});
                if (a >= 0) {
                    LK_TRY_ASSIGN(Floats T,
                                  accessor(a, apath + "TEXCOORD_" + std::to_string(set), {2}));
                    LK_TRY(need(T, "TEXCOORD_" + std::to_string(set)));
                    for (std::size_t v = 0; v < nv; ++v)
                        vals.push_back({T.at(v)[0], 1.0f - T.at(v)[1]});
                } else {
                    vals.resize(base + nv, {0, 0});
                }
            }
            for (int set = 0; set < 8; ++set) {
                const int a = attr("COLOR_" + std::to_string(set));
                if (a < 0 && std::size_t(set) >= mesh.colors.size()) break;
                if (std::size_t(set) >= mesh.colors.size())
                    mesh.colors.resize(std::size_t(set) + 1);
                auto& vals = mesh.colors[std::size_t(set)].values;
                vals.resize(base, {1, 1, 1, 1});
                if (a >= 0) {
                    LK_TRY_ASSIGN(Floats C,
                                  accessor(a, apath + "COLOR_" + std::to_string(set), {3, 4}));
                    LK_TRY(need(C, "COLOR_" + std::to_string(set)));
                    for (std::size_t v = 0; v < nv; ++v)
                        vals.push_back(
                            {C.at(v)[0], C.at(v)[1], C.at(v)[2], C.comps == 4 ? C.at(v)[3] : 1.0f});
                } else {
                    vals.resize(base + nv, {1, 1, 1, 1});
                }
            }
            auto scalar = [&](Indexed<float>& f, const char* key, float d) -> Result<void> {
                const int a = attr(key);
                if (a < 0 && f.values.empty()) return {};
                f.values.resize(base, d);
                if (a < 0) {
                    f.values.resize(base + nv, d);
                    return {};
                }
                LK_TRY_ASSIGN(Floats S, accessor(a, apath + key, {1}));
                LK_TRY(need(S, key));
                f.values.insert(f.values.end(), S.v.begin(), S.v.end());
                return {};
            };
            LK_TRY(scalar(mesh.balance, "_BALANCE", 0.5f));
            LK_TRY(scalar(mesh.speed, "_SPEED", 1));
            LK_TRY(scalar(mesh.wrinkle, "_WRINKLE", 0));
            for (std::size_t k = 0; k < mesh.extra.size(); ++k) {
                ExtraField& f = mesh.extra[k];
                const std::size_t comps = f.components;
                f.values.resize(std::size_t(base) * comps, 0.0f);
                const int a = attr(extra_keys[k]);
                if (a < 0) {
                    f.values.resize(std::size_t(base + nv) * comps, 0.0f);
                    continue;
                }
                LK_TRY_ASSIGN(Floats E, accessor(a, apath + extra_keys[k], {int(comps)}));
                LK_TRY(need(E, extra_keys[k]));
                f.values.insert(f.values.end(), E.v.begin(), E.v.end());
            }
            // Weights: JOINTS_n / WEIGHTS_n sets of 4.
            if (skin) {
                int sets = 0;
                while (attr("JOINTS_" + std::to_string(sets)) >= 0 &&
                       attr("WEIGHTS_" + std::to_string(sets)) >= 0 && sets < 8)
                    ++sets;
                const std::uint32_t per =
                    std::max<std::uint32_t>(mesh.skin.influences, std::uint32_t(sets) * 4);
                if (per > mesh.skin.influences && mesh.skin.influences > 0) {
                    // Widen earlier vertices' slots.
                    Skin wide;
                    wide.influences = per;
                    const std::size_t pts = mesh.skin.weights.size() / mesh.skin.influences;
                    wide.joints.assign(pts * per, 0);
                    wide.weights.assign(pts * per, 0);
                    for (std::size_t v = 0; v < pts; ++v)
                        for (std::uint32_t k = 0; k < mesh.skin.influences; ++k) {
                            wide.joints[v * per + k] =
                                mesh.skin.joints[v * mesh.skin.influences + k];
                            wide.weights[v * per + k] =
                                mesh.skin.weights[v * mesh.skin.influences + k];
                        }
                    mesh.skin = std::move(wide);
                }
                mesh.skin.influences = per;
                if (per > 0) {
                    mesh.skin.joints.resize(std::size_t(base) * per, 0);
                    mesh.skin.weights.resize(std::size_t(base) * per, 0);
                    mesh.skin.joints.resize(std::size_t(base + nv) * per, 0);
                    mesh.skin.weights.resize(std::size_t(base + nv) * per, 0);
                }
                for (int s = 0; s < sets; ++s) {
                    const std::string jk = "JOINTS_" + std::to_string(s),
                                      wk = "WEIGHTS_" + std::to_string(s);
                    LK_TRY_ASSIGN(Floats J, accessor(attr(jk), apath + jk, {4}));
                    LK_TRY_ASSIGN(Floats W, accessor(attr(wk), apath + wk, {4}));
                    LK_TRY(need(J, jk));
                    LK_TRY(need(W, wk));
                    for (std::size_t v = 0; v < nv; ++v)
                        for (int k = 0; k < 4; ++k) {
                            const float j = J.at(v)[k], w = W.at(v)[k];
                            if (!(j >= 0) || j >= float(skin_nodes.size()))
                                return bad(apath + jk, "joint index out of range");
                            const std::size_t at = (base + v) * per + std::size_t(s * 4 + k);
                            mesh.skin.joints[at] = skin_nodes[std::size_t(j)];
                            mesh.skin.weights[at] = std::isfinite(w) ? w : 0;
                        }
                }
            }
            // Morph targets: deltas per vertex (each vertex is a point of its own).
            if (mesh.shapes.size() < p.targets.size()) mesh.shapes.resize(p.targets.size());
            for (std::size_t t = 0; t < p.targets.size(); ++t) {
                Shape& sh = mesh.shapes[t];
                const std::string tpath = ppath + "/targets[" + std::to_string(t) + "]/";
                for (const auto& [key, acc] : p.targets[t]) {
                    if (key != "POSITION" && key != "NORMAL") continue;
                    LK_TRY_ASSIGN(Floats D, accessor(acc, tpath + key, {3}));
                    if (D.count != nv) return bad(tpath + key, "count differs from POSITION's");
                    auto& sp = key == "POSITION" ? sh.positions : sh.normals;
                    for (std::size_t v = 0; v < nv; ++v) {
                        const Vec3f d{D.at(v)[0], D.at(v)[1], D.at(v)[2]};
                        if (d.x == 0 && d.y == 0 && d.z == 0) continue;
                        sp.indices.push_back(static_cast<std::uint32_t>(base + v));
                        sp.values.push_back(key == "POSITION" ? ax_.vector_back(d)
                                                              : ax_.direction_back(d));
                    }
                }
            }
        }
        first = false;
        // Triangles.
        const std::uint32_t nv = static_cast<std::uint32_t>(g_.accessors[std::size_t(pos)].count);
        std::vector<std::uint32_t> tri;
        if (p.indices >= 0) {
            LK_TRY_ASSIGN(tri, indices(p.indices, ppath + "/indices"));
        } else {
            tri.resize(nv);
            for (std::uint32_t i = 0; i < nv; ++i) tri[i] = i;
        }
        FaceSet fs;
        std::string mat = "default";
        if (p.material >= 0) {
            if (std::size_t(p.material) >= g_.materials.size())
                return bad(ppath + "/material", "material does not exist");
            mat = g_.materials[std::size_t(p.material)].name;
            if (mat.empty()) mat = "material" + std::to_string(p.material);
        }
        fs.material = m_.material(mat);
        for (std::size_t k = 0; k + 2 < tri.size(); k += 3) {
            for (int c = 0; c < 3; ++c) {
                const std::uint32_t v = tri[k + std::size_t(c)];
                if (v >= nv) return bad(ppath + "/indices", "vertex index out of range");
                fs.corners.push_back(static_cast<std::uint32_t>(mesh.positions.indices.size()));
                mesh.positions.indices.push_back(base + v);
            }
            fs.sizes.push_back(3);
        }
        mesh.face_sets.push_back(std::move(fs));
    }
    // Every present field maps corner -> vertex, as positions do; shapes get their names.
    const auto& idx = mesh.positions.indices;
    const std::size_t points = mesh.positions.values.size();
    if (!mesh.normals.values.empty())
        mesh.normals.values.resize(points, {0, 0, 1}), mesh.normals.indices = idx;
    if (!mesh.tangents.values.empty())
        mesh.tangents.values.resize(points, {1, 0, 0, 1}), mesh.tangents.indices = idx;
    for (auto& t : mesh.texcoords) t.values.resize(points, {0, 0}), t.indices = idx;
    for (auto& c : mesh.colors) c.values.resize(points, {1, 1, 1, 1}), c.indices = idx;
    for (ExtraField& f : mesh.extra) {
        f.values.resize(points * f.components, 0.0f);
        f.indices = idx;
    }
    for (auto* f : {&mesh.balance, &mesh.speed, &mesh.wrinkle})
        if (!f->values.empty()) f->values.resize(points, 0), f->indices = idx;
    if (mesh.skin.influences) {
        mesh.skin.joints.resize(points * mesh.skin.influences, 0);
        mesh.skin.weights.resize(points * mesh.skin.influences, 0);
    }
    if (mesh.normals.values.empty()) {
        for (Shape& s : mesh.shapes) s.normals = {};
    }
    for (std::size_t t = 0; t < mesh.shapes.size(); ++t)
        mesh.shapes[t].name = t < target_names.size() && !target_names[t].empty()
                                  ? target_names[t]
                                  : "shape" + std::to_string(t);
    compact_skin(mesh.skin);
    for (const Shape& sh : mesh.shapes) mesh_targets_[int(gnode)].push_back(sh.name);
    m_.meshes.push_back(std::move(mesh));
    return {};
}

Result<void> Reader::read_weights(const tinygltf::Animation& a, std::size_t ci, Clip& clip) {
    const tinygltf::AnimationChannel& ch = a.channels[ci];
    const std::string cpath = "animations/channels[" + std::to_string(ci) + "]";
    auto names = mesh_targets_.find(ch.target_node);
    if (names == mesh_targets_.end() || names->second.empty()) return {};
    if (ch.sampler < 0 || std::size_t(ch.sampler) >= a.samplers.size())
        return bad(cpath + "/sampler", "sampler does not exist");
    const tinygltf::AnimationSampler& s = a.samplers[std::size_t(ch.sampler)];
    LK_TRY_ASSIGN(Floats in, accessor(s.input, cpath + "/input", {1}));
    LK_TRY_ASSIGN(Floats out, accessor(s.output, cpath + "/output", {1}));
    const std::size_t n = names->second.size();
    const std::size_t per_key = n * (s.interpolation == "CUBICSPLINE" ? 3 : 1);
    if (out.count != in.count * per_key) return bad(cpath + "/output", "count does not fit");
    for (std::size_t t = 0; t < n; ++t) {
        std::uint32_t c = 0;
        while (c < m_.flex.controllers.size() && m_.flex.controllers[c].name != names->second[t])
            ++c;
        if (c == m_.flex.controllers.size()) continue;
        FlexTrack ft;
        ft.controller = c;
        for (std::size_t k = 0; k < in.count; ++k) {
            if (k > 0 && !(in.v[k] > in.v[k - 1]))
                return bad(cpath + "/input", "times are not increasing");
            ft.value.times.push_back(in.v[k]);
            ft.value.values.push_back(out.v[k * per_key + (per_key == n ? t : n + t)]);
        }
        bool merged = false;
        for (FlexTrack& e : clip.flex_tracks)
            if (e.controller == c) merged = true;
        if (!merged) clip.flex_tracks.push_back(std::move(ft));
    }
    return {};
}

// The frame rate whose frames every key of a clip sits on (within 1e-4 s: DCC tools sample per
// frame and store float32 seconds): 30 (studiomdl's default) when the keys fit it, else the
// lowest other rate animation tools use that they fit (Blender's default 24, 25, 60 ...), else 30.
double frame_rate_of_keys(const Clip& clip) {
    std::vector<double> times;
    auto add = [&](const std::vector<double>& t) { times.insert(times.end(), t.begin(), t.end()); };
    for (const NodeTrack& t : clip.tracks) {
        add(t.translation.times);
        add(t.rotation.times);
        add(t.scale.times);
    }
    for (const FlexTrack& t : clip.flex_tracks) add(t.value.times);
    for (double rate :
         {30.0, 24.0, 25.0, 48.0, 50.0, 60.0, 72.0, 90.0, 96.0, 100.0, 120.0, 144.0, 240.0}) {
        bool fits = !times.empty();
        for (double t : times) {
            const double frames = (t - clip.start) * rate;
            if (!(std::abs(frames - std::round(frames)) <= 1e-4 * rate)) {
                fits = false;
                break;
            }
        }
        if (fits) return rate;
    }
    return 30;
}

Result<void> Reader::read_clip(std::size_t ai) {
    const tinygltf::Animation& a = g_.animations[ai];
    const std::string path = "animations[" + std::to_string(ai) + "]";
    const Json x = extras_of(a.extras_json_string);
    Clip clip;
    clip.name = a.name.empty() ? "anim" + std::to_string(ai) : a.name;
    clip.frame_rate = get_or<double>(x, "frame_rate", opt_.frame_rate);
    if (!(clip.frame_rate > 0) || !std::isfinite(clip.frame_rate)) clip.frame_rate = 0;
    clip.start = get_or<double>(x, "start", 0.0);
    const bool empty = get_or<bool>(x, "empty", false);
    double end = 0;
    std::map<std::uint32_t, NodeTrack> tracks;
    for (std::size_t ci = 0; ci < a.channels.size() && !empty; ++ci) {
        const tinygltf::AnimationChannel& ch = a.channels[ci];
        const std::string cpath = path + "/channels[" + std::to_string(ci) + "]";
        if (ch.target_path == "weights") {
            // Ours: flex values come from extras. Others: one controller per target name.
            if (!ours_) LK_TRY(read_weights(a, ci, clip));
            continue;
        }
        if (ch.sampler < 0 || std::size_t(ch.sampler) >= a.samplers.size())
            return bad(cpath + "/sampler", "sampler does not exist");
        LK_TRY_ASSIGN(std::uint32_t node, model_node_of(ch.target_node, cpath + "/target/node"));
        const tinygltf::AnimationSampler& s = a.samplers[std::size_t(ch.sampler)];
        const std::string spath = path + "/samplers[" + std::to_string(ch.sampler) + "]";
        LK_TRY_ASSIGN(Floats in, accessor(s.input, spath + "/input", {1}));
        const bool cubic = s.interpolation == "CUBICSPLINE";
        const int comps = ch.target_path == "rotation" ? 4 : 3;
        if (ch.target_path != "translation" && ch.target_path != "rotation" &&
            ch.target_path != "scale") {
            return bad(cpath + "/target/path", "unknown path '" + ch.target_path + "'");
        }
        LK_TRY_ASSIGN(Floats out, accessor(s.output, spath + "/output", {comps}));
        if (out.count != in.count * (cubic ? 3 : 1))
            return bad(spath + "/output", "count does not match the input's");
        NodeTrack& tr = tracks[node];
        tr.node = node;
        for (std::size_t k = 0; k < in.count; ++k) {
            const double t = in.v[k];
            if (!std::isfinite(t) || (k > 0 && !(t > in.v[k - 1])))
                return bad(spath + "/input", "times are not strictly increasing");
            end = std::max(end, t);
            const float* v = out.at(cubic ? k * 3 + 1 : k);
            if (ch.target_path == "translation") {
                tr.translation.times.push_back(t);
                tr.translation.values.push_back(ax_.vector_back({v[0], v[1], v[2]}));
            } else if (ch.target_path == "scale") {
                tr.scale.times.push_back(t);
                tr.scale.values.push_back(ax_.scales_back({v[0], v[1], v[2]}));
            } else {
                tr.rotation.times.push_back(t);
                tr.rotation.values.push_back(
                    ax_.rotation_back(unit_quat(Quat{v[0], v[1], v[2], v[3]})));
            }
        }
    }
    for (auto& [node, tr] : tracks) clip.tracks.push_back(std::move(tr));
    if (auto it = x.find("flex"); it != x.end() && it->is_object()) {
        for (const auto& [name, keys] : it->items()) {
            std::uint32_t c = 0;
            while (c < m_.flex.controllers.size() && m_.flex.controllers[c].name != name) ++c;
            if (c == m_.flex.controllers.size()) continue;
            FlexTrack ft;
            ft.controller = c;
            ft.value.times = get_or<std::vector<double>>(keys, "times", {});
            ft.value.values = get_or<std::vector<float>>(keys, "values", {});
            if (ft.value.times.size() != ft.value.values.size()) continue;
            clip.flex_tracks.push_back(std::move(ft));
        }
    }
    clip.duration = get_or<double>(x, "duration", end);
    if (clip.frame_rate == 0) clip.frame_rate = frame_rate_of_keys(clip);
    m_.clips.push_back(std::move(clip));
    return {};
}

Result<Model> Reader::run() {
    // Compression and other data extensions a file cannot be read without.
    for (const std::string& e : g_.extensionsRequired) {
        if (e != "KHR_mesh_quantization" && e.rfind("KHR_materials_", 0) != 0 &&
            e != "KHR_texture_transform" && e != "KHR_lights_punctual") {
            Diagnostic d = Diagnostic::error("gltf.unsupported-extension",
                                             "extensionsRequired: " + e + " is not supported");
            d.path = "extensionsRequired";
            return d;
        }
    }
    if (g_.scenes.empty()) return bad("scenes", "no scene");
    const int sc = g_.defaultScene >= 0 ? g_.defaultScene : 0;
    if (std::size_t(sc) >= g_.scenes.size()) return bad("scene", "scene does not exist");
    const tinygltf::Scene& scene = g_.scenes[std::size_t(sc)];
    for (std::size_t i = 0; i < scene.nodes.size(); ++i)
        if (scene.nodes[i] < 0 || std::size_t(scene.nodes[i]) >= g_.nodes.size())
            return bad("scenes[" + std::to_string(sc) + "]/nodes[" + std::to_string(i) + "]",
                       "node does not exist");
    // Parents, checking the hierarchy is a forest.
    std::vector<std::int32_t> parent(g_.nodes.size(), -1);
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
        for (std::size_t k = 0; k < g_.nodes[i].children.size(); ++k) {
            const int c = g_.nodes[i].children[k];
            const std::string p =
                "nodes[" + std::to_string(i) + "]/children[" + std::to_string(k) + "]";
            if (c < 0 || std::size_t(c) >= g_.nodes.size()) return bad(p, "node does not exist");
            if (parent[std::size_t(c)] >= 0 || std::size_t(c) == i)
                return bad(p, "node has more than one parent");
            parent[std::size_t(c)] = std::int32_t(i);
        }
    }
    node_map_.assign(g_.nodes.size(), -1);
    if (!g_.nodes.empty()) root_x_ = extras_of(g_.nodes[0].extras_json_string);
    const auto lk = root_x_.find("levelkit");
    ours_ = lk != root_x_.end() && lk->is_object();
    std::vector<std::pair<std::size_t, std::uint32_t>> mesh_nodes;  // glTF node, model node
    if (ours_) {
        const Json& x = *lk;
        const std::string xpath = "nodes[0]/extras/levelkit";
        const std::size_t n = integer_or<std::size_t>(x, "nodes", 0, 0, xpath);
        if (n == 0 || n > g_.nodes.size())
            return bad("nodes[0]/extras/levelkit/nodes", "bad count");
        const int up = integer_or<int>(x, "up_axis", 3, 3, xpath);
        m_.up_axis = up >= -3 && up <= 3 && up != 0 ? static_cast<Axis>(up) : Axis::z;
        m_.units_per_meter = get_or<double>(x, "units_per_meter", 39.37007874015748);
        m_.root_bone = get_or<bool>(x, "root_bone", false);
        ax_ = detail::GltfAxes::of(m_.up_axis, m_.units_per_meter, opt_.scale);
        const double s = get_or<double>(x, "metres_per_unit", ax_.scale);
        if (s > 0 && std::isfinite(s)) ax_.scale = s;
        for (std::size_t i = 0; i < n; ++i) {
            const tinygltf::Node& gn = g_.nodes[i];
            const Json nx = extras_of(gn.extras_json_string);
            Node node;
            node.name = gn.name;
            if (i > 0) {
                if (parent[i] < 0 || std::size_t(parent[i]) >= i)
                    return bad("nodes[" + std::to_string(i) + "]",
                               "a model node's parent must come before it");
                node.parent = parent[i];
            }
            const std::string kind = get_or<std::string>(nx, "kind", "dag");
            node.kind = i == 0            ? NodeKind::model
                        : kind == "joint" ? NodeKind::joint
                                          : NodeKind::dag;
            node.bind = local_of(gn, "");
            node.pose = node.bind;
            if (auto it = nx.find("pose"); it != nx.end() && it->is_array() && it->size() == 3) {
                const auto t = get_or<std::vector<float>>(Json{{"v", (*it)[0]}}, "v", {});
                const auto r = get_or<std::vector<float>>(Json{{"v", (*it)[1]}}, "v", {});
                const auto sc3 = get_or<std::vector<float>>(Json{{"v", (*it)[2]}}, "v", {});
                if (t.size() == 3 && r.size() == 4 && sc3.size() == 3)
                    node.pose = ax_.transform_back(
                        {{t[0], t[1], t[2]}, {r[0], r[1], r[2], r[3]}, {sc3[0], sc3[1], sc3[2]}});
            }
            m_.nodes.push_back(std::move(node));
            node_map_[i] = std::int32_t(i);
        }
        for (std::size_t i = n; i < g_.nodes.size(); ++i) {
            const Json nx = extras_of(g_.nodes[i].extras_json_string);
            if (get_or<std::string>(nx, "kind", "") != "mesh") continue;
            const auto mn = integer_or<std::uint32_t>(nx, "node", 0, UINT32_MAX,
                                                      "nodes[" + std::to_string(i) + "]/extras");
            if (mn >= n)
                return bad("nodes[" + std::to_string(i) + "]/extras/node", "not a model node");
            mesh_nodes.emplace_back(i, mn);
        }
        // Attachments, eyeballs, flex.
        if (auto it = x.find("attachments"); it != x.end() && it->is_array()) {
            for (std::size_t k = 0; k < it->size(); ++k) {
                const Json& a = (*it)[k];
                Attachment at;
                at.name = get_or<std::string>(a, "name", "");
                at.node = integer_or<std::uint32_t>(
                    a, "node", 0, UINT32_MAX, xpath + "/attachments[" + std::to_string(k) + "]");
                at.rigid = get_or<bool>(a, "rigid", true);
                at.world_aligned = get_or<bool>(a, "world_aligned", false);
                if (at.node < n) m_.attachments.push_back(std::move(at));
            }
        }
        if (auto it = x.find("eyeballs"); it != x.end() && it->is_array()) {
            for (std::size_t k = 0; k < it->size(); ++k) {
                const Json& a = (*it)[k];
                Eyeball e;
                e.name = get_or<std::string>(a, "name", "");
                e.node = integer_or<std::uint32_t>(a, "node", 0, UINT32_MAX,
                                                   xpath + "/eyeballs[" + std::to_string(k) + "]");
                const auto p = get_or<std::vector<float>>(a, "position", {});
                if (p.size() == 3) e.position = {p[0], p[1], p[2]};
                e.radius = get_or<float>(a, "radius", 0);
                e.iris_scale = get_or<float>(a, "iris_scale", 1);
                e.yaw_degrees = get_or<float>(a, "yaw_degrees", 0);
                e.material = get_or<std::string>(a, "material", "");
                if (e.node < n) m_.eyeballs.push_back(std::move(e));
            }
        }
        if (auto it = x.find("flex"); it != x.end() && it->is_object()) {
            for (const Json& c : it->value("controllers", Json::array())) {
                FlexController f;
                f.name = get_or<std::string>(c, "name", "");
                f.raw_controls = get_or<std::vector<std::string>>(c, "raw_controls", {});
                f.stereo = get_or<bool>(c, "stereo", false);
                f.eyelid = get_or<bool>(c, "eyelid", false);
                f.min = get_or<float>(c, "min", 0);
                f.max = get_or<float>(c, "max", 1);
                const auto d = get_or<std::vector<float>>(c, "default", {});
                if (d.size() == 3) f.default_value = {d[0], d[1], d[2]};
                f.wrinkle_scales = get_or<std::vector<float>>(c, "wrinkle_scales", {});
                f.eyes_up_down = get_or<std::string>(c, "eyes_up_down", "");
                m_.flex.controllers.push_back(std::move(f));
            }
            for (const Json& r : it->value("domination_rules", Json::array())) {
                m_.flex.domination_rules.push_back(
                    {get_or<std::vector<std::string>>(r, "dominators", {}),
                     get_or<std::vector<std::string>>(r, "suppressed", {})});
            }
        }
    } else {
        ax_ = detail::GltfAxes::of(Axis::z, 39.37007874015748, opt_.scale);
        std::vector<bool> is_joint(g_.nodes.size(), false);
        for (const tinygltf::Skin& s : g_.skins)
            for (int j : s.joints)
                if (j >= 0 && std::size_t(j) < g_.nodes.size()) is_joint[std::size_t(j)] = true;
        Node root;
        root.name = scene.name.empty() ? opt_.name : scene.name;
        root.kind = NodeKind::model;
        m_.nodes.push_back(root);
        // Depth first from the scene's roots; a node is visited once (the forest was checked).
        std::vector<std::pair<int, std::int32_t>> stack;
        for (auto it = scene.nodes.rbegin(); it != scene.nodes.rend(); ++it)
            stack.emplace_back(*it, 0);
        while (!stack.empty()) {
            const auto [gi, par] = stack.back();
            stack.pop_back();
            if (node_map_[std::size_t(gi)] >= 0) continue;
            const tinygltf::Node& gn = g_.nodes[std::size_t(gi)];
            Node node;
            node.name = gn.name.empty() ? "node" + std::to_string(gi) : gn.name;
            node.parent = par;
            node.kind = is_joint[std::size_t(gi)] ? NodeKind::joint : NodeKind::dag;
            node.bind = node.pose = local_of(gn, "");
            m_.nodes.push_back(std::move(node));
            const auto me = std::int32_t(m_.nodes.size() - 1);
            node_map_[std::size_t(gi)] = me;
            if (gn.mesh >= 0) mesh_nodes.emplace_back(std::size_t(gi), std::uint32_t(me));
            for (auto it = gn.children.rbegin(); it != gn.children.rend(); ++it)
                stack.emplace_back(*it, me);
        }
    }
    if (!ours_) {
        // glTF ignores a skinned mesh node's transform: its vertices are in the space the
        // inverse bind matrices start from, the scene's. The mesh stays on its node when that
        // node sits at the scene's origin (Blender's layout), else it goes on the model node.
        const std::vector<Affine> world = world_bind(m_);
        for (auto& [gi, mn] : mesh_nodes) {
            if (g_.nodes[gi].skin < 0) continue;
            const Affine& a = world[mn];
            double off = 0;
            for (int r = 0; r < 3; ++r) {
                off = std::max(off, std::abs(a.t[r]));
                for (int c = 0; c < 3; ++c) off = std::max(off, std::abs(a.m[r][c] - (r == c)));
            }
            if (off > 1e-6) mn = 0;
        }
    }
    for (const auto& [gi, mn] : mesh_nodes) {
        const tinygltf::Node& gn = g_.nodes[gi];
        std::string name = gn.name;
        if (name.empty() && gn.mesh >= 0 && std::size_t(gn.mesh) < g_.meshes.size())
            name = g_.meshes[std::size_t(gn.mesh)].name;
        if (gn.mesh < 0) {
            Mesh empty;
            empty.name = name;
            empty.node = mn;
            m_.meshes.push_back(std::move(empty));
            continue;
        }
        LK_TRY(read_mesh(gi, mn, name));
    }
    if (!ours_) {
        // Shapes of other tools' files: a controller per target name (a raw control of its own).
        for (const Mesh& mesh : m_.meshes)
            for (const Shape& sh : mesh.shapes) {
                bool known = false;
                for (const FlexController& f : m_.flex.controllers) known |= f.name == sh.name;
                if (known) continue;
                FlexController f;
                f.name = sh.name;
                f.raw_controls = {sh.name};
                f.default_value = {0, 0, 0.5f};
                m_.flex.controllers.push_back(std::move(f));
            }
    }
    for (std::size_t i = 0; i < g_.animations.size(); ++i) LK_TRY(read_clip(i));
    if (const std::string p = detail::non_finite(m_); !p.empty())
        return bad("model/" + p, "a value is beyond what a float holds in model units");
    if (auto problems = check(m_, 1); !problems.empty())
        return bad("", "the model read is inconsistent: " + problems.front());
    return std::move(m_);
}

bool no_image(tinygltf::Image*, const int, std::string*, std::string*, int, int,
              const unsigned char*, int, void*) {
    return true;  // textures are not part of the model
}

bool refuse_exists(const std::string&, void*) {
    return false;
}
std::string same_path(const std::string& p, void*) {
    return p;
}
bool refuse_read(std::vector<unsigned char>*, std::string* err, const std::string& p, void*) {
    if (err) *err += "external file '" + p + "' not read";
    return false;
}
bool refuse_write(std::string*, const std::string&, const std::vector<unsigned char>&, void*) {
    return false;
}

// External buffers only from inside `base` (no absolute paths, no "..").
struct Sandbox {
    std::filesystem::path base;
};
bool sandbox_exists(const std::string& p, void* u) {
    const auto* s = static_cast<const Sandbox*>(u);
    const std::filesystem::path rel = std::filesystem::path(p).lexically_relative(s->base);
    if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") return false;
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec);
}
bool sandbox_read(std::vector<unsigned char>* out, std::string* err, const std::string& p,
                  void* u) {
    if (!sandbox_exists(p, u)) return refuse_read(out, err, p, u);
    std::ifstream f(p, std::ios::binary);
    out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    return bool(f) || f.eof();
}

}  // namespace

Result<model::Model> gltf_to_model(ByteSpan data, const GltfModelOptions& opt,
                                   Diagnostics& warnings) {
    tinygltf::TinyGLTF loader;
    loader.SetStoreOriginalJSONForExtrasAndExtensions(true);
    loader.SetImageLoader(no_image, nullptr);
    Sandbox sandbox{std::filesystem::path(opt.base_dir).lexically_normal()};
    if (opt.base_dir.empty()) {
        loader.SetFsCallbacks({refuse_exists, same_path, refuse_read, refuse_write, nullptr});
    } else {
        loader.SetFsCallbacks({sandbox_exists, same_path, sandbox_read, refuse_write, &sandbox});
    }
    tinygltf::Model g;
    std::string err, warn;
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
    if (data.size() > 0xFFFFFFFFull) return Diagnostic::error("gltf.too-large", "file over 4 GiB");
    bool ok;
    try {
        if (data.size() >= 4 && std::memcmp(bytes, "glTF", 4) == 0) {
            ok = loader.LoadBinaryFromMemory(&g, &err, &warn, bytes,
                                             static_cast<unsigned int>(data.size()), opt.base_dir);
        } else {
            const std::string text(reinterpret_cast<const char*>(bytes), data.size());
            ok = loader.LoadASCIIFromString(&g, &err, &warn, text.data(),
                                            static_cast<unsigned int>(text.size()), opt.base_dir);
        }
    } catch (const std::exception& e) {
        ok = false;
        err = e.what();
    }
    if (!ok) {
        while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
        return Diagnostic::error("gltf.unreadable", "glTF: " + (err.empty() ? "not glTF" : err));
    }
    Reader r(g, opt, warnings);
    return r.run();
}

}  // namespace lk::convert
