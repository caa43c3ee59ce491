#include "levelkit/convert/scene_gltf.hpp"

#include <meshoptimizer.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <vector>

#include "gltf_glb.hpp"
#include "levelkit/convert/texture_sizes.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/scene/geometry.hpp"

namespace lk::convert {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kFloat = 5126, kUShort = 5123, kUInt = 5125, kByte = 5120, kUByte = 5121;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;

// Source/Gamestudio (Z up) -> glTF (Y up): (x, y, z) -> (x, z, -y). A rotation (det +1).
Vec3 to_gltf(const Vec3& v) {
    return {v.x, v.z, -v.y};
}

// -0 and +0 must dedup as one vertex.
float f32(double v) {
    return static_cast<float>(v) + 0.0f;
}

// Quaternion (x, y, z, w) of a rotation matrix (row-major).
std::array<double, 4> quaternion(const Mat3& r) {
    const auto& m = r.m;
    const double tr = m[0] + m[4] + m[8];
    std::array<double, 4> q;
    if (tr > 0) {
        const double s = std::sqrt(tr + 1.0) * 2;
        q = {(m[7] - m[5]) / s, (m[2] - m[6]) / s, (m[3] - m[1]) / s, 0.25 * s};
    } else if (m[0] > m[4] && m[0] > m[8]) {
        const double s = std::sqrt(1.0 + m[0] - m[4] - m[8]) * 2;
        q = {0.25 * s, (m[1] + m[3]) / s, (m[2] + m[6]) / s, (m[7] - m[5]) / s};
    } else if (m[4] > m[8]) {
        const double s = std::sqrt(1.0 + m[4] - m[0] - m[8]) * 2;
        q = {(m[1] + m[3]) / s, 0.25 * s, (m[5] + m[7]) / s, (m[2] - m[6]) / s};
    } else {
        const double s = std::sqrt(1.0 + m[8] - m[0] - m[4]) * 2;
        q = {(m[2] + m[6]) / s, (m[5] + m[7]) / s, 0.25 * s, (m[3] - m[1]) / s};
    }
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (double& c : q) c /= n;
    if (q[3] < 0) {
        for (double& c : q) c = -c;  // one sign for the same rotation: stable output
    }
    return q;
}

// A Source rotation expressed in glTF axes: C * R * C^T with C the axis change above.
Mat3 to_gltf(const Mat3& r) {
    Mat3 c;
    c.m = {1, 0, 0, 0, 0, 1, 0, -1, 0};
    return c * r * c.transposed();
}

bool is_identity_quat(const std::array<double, 4>& q) {
    return std::abs(q[0]) < 1e-12 && std::abs(q[1]) < 1e-12 && std::abs(q[2]) < 1e-12;
}

std::optional<std::vector<double>> numbers(std::string_view text) {
    std::vector<double> out;
    for (std::string_view tok : split_ws(text)) {
        auto v = parse_double(tok);
        if (!v) return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

double srgb_to_linear(double c) {
    c = std::clamp(c, 0.0, 1.0);
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

bool is_prop(const scene::Entity& e) {
    const std::string_view cls = e.classname();
    if (cls.size() >= 5 && iequals(cls.substr(0, 5), "prop_")) return true;
    const std::string_view model = e.get("model");
    return iends_with(model, ".mdl") || iends_with(model, ".vmdl");
}

// A growing byte stream that becomes one buffer view.
struct Stream {
    Bytes data;
    int target = kArrayBuffer;
    int stride = 0;  // 0: none (index data)
    int view = -1;

    std::size_t put(const void* p, std::size_t n) {
        const std::size_t at = data.size();
        data.resize(at + n);
        std::memcpy(data.data() + at, p, n);
        return at;
    }
};

struct Corner {
    float p[3], n[3], uv[2], c[4];
};

class Writer {
public:
    Writer(const scene::Scene& s, const GltfOptions& opt, Diagnostics& diags)
        : s_(s), opt_(opt), diags_(diags) {}

    Result<GltfFiles> run();

private:
    struct Group {
        std::size_t entity = 0;  // 0 = world
        bool skybox = false;
        std::vector<std::uint32_t> pieces;
    };
    struct Prim {
        std::uint32_t material = 0;
        std::vector<Corner> verts;
        std::vector<std::uint32_t> indices;
        bool colors = false;
    };

    void build_surfaces();
    struct Poly {
        std::uint32_t index;
        bool convex;
    };
    struct BuiltMesh {
        int mesh = -1;
        bool quantized = false;
        std::array<double, 3> qmin{0, 0, 0};
        double qstep = 1;
    };
    // Within this many units of its node every float32 vertex keeps 1/1000-unit precision
    // (half an ulp at 8192 units is 0.0003 units).
    static constexpr double kChunkReach = 8192;
    static constexpr double kChunkSize = 8192;
    void attach_geometry(const Group& g, const Vec3& origin, Json& node);
    BuiltMesh build_mesh(const std::vector<Poly>& polys, const Vec3& origin,
                         const std::string& name);
    void place_mesh(const BuiltMesh& m, const std::string& name, Json& node);
    int material_index(std::uint32_t surface_material);
    int accessor(Json a) {
        accessors_.push_back(std::move(a));
        return static_cast<int>(accessors_.size() - 1);
    }
    int add_node(Json n) {
        nodes_.push_back(std::move(n));
        return static_cast<int>(nodes_.size() - 1);
    }
    Json entity_extras(const scene::Entity& e) const;
    std::string entity_name(const scene::Entity& e) const;
    int entity_node(std::size_t index, const Group* group);
    std::optional<int> light_for(const scene::Entity& e, Mat3& rotation);
    int prop_box_mesh();
    void write_primitive(Prim& p, Json& prims, const std::array<double, 3>* qmin, double qstep);

    const scene::Scene& s_;
    const GltfOptions& opt_;
    Diagnostics& diags_;
    GltfReport rep_;

    scene::Surfaces surf_;
    std::vector<bool> drawn_material_;  // per surface material: not a skipped tool material
    std::optional<scene::Skybox> sky_;
    std::vector<int> material_map_;  // surface material -> glTF material (-1 unused)

    Json nodes_ = Json::array(), meshes_ = Json::array(), accessors_ = Json::array(),
         materials_ = Json::array(), lights_ = Json::array();
    // Vertex and index data by kind and storage (float or quantized), one buffer view each.
    enum StreamId { pos_f, pos_q, nrm_f, nrm_q, uv_f, col_f, col_q, idx16, idx32, kStreams };
    std::array<Stream, kStreams> streams_;
    int prop_box_mesh_ = -1;
    std::vector<std::array<std::uint32_t, 3>> tris_;
};

void Writer::build_surfaces() {
    scene::SurfaceOptions so;
    // Tool faces stay in the soup for the skybox search (its walls are toolsskybox); they are
    // left out below.
    so.skip_tool_materials = false;
    so.smoothing_group_normals = opt_.smoothing_groups;
    so.default_texture_size = opt_.texture_size > 0 ? opt_.texture_size : 512;
    std::optional<TextureSizes> sizes;
    if (opt_.texture_size_of) {
        so.texture_size = opt_.texture_size_of;
    } else if (!opt_.materials_dir.empty()) {
        sizes.emplace(opt_.materials_dir);
        so.texture_size = sizes->function();
    }
    surf_ = scene::build_surfaces(s_, so);
    if (sizes) {
        rep_.textures_sized = sizes->found();
        rep_.textures_unsized = sizes->missing();
    }
    drawn_material_.resize(surf_.materials.size());
    for (std::size_t i = 0; i < surf_.materials.size(); ++i)
        drawn_material_[i] = opt_.tools || !scene::is_tool_material(surf_.materials[i]);
    for (std::size_t i = 0; i < surf_.polygon_count(); ++i)
        rep_.tool_faces_skipped += !drawn_material_[surf_.polygon_material[i]];
    material_map_.assign(surf_.materials.size(), -1);
    for (const auto& sk : surf_.skipped) {
        ++rep_.skipped_brushes;
        const std::string where =
            sk.entity == 0 ? std::string("world") : "entity[" + std::to_string(sk.entity - 1) + "]";
        diags_.add(Diagnostic::warning("gltf.skipped-brush", "brush " + std::to_string(sk.id) +
                                                                 " is left out: " + sk.reason)
                       .with_path(where + "/brush[id=" + std::to_string(sk.id) + "]"));
    }
    if (opt_.skybox) sky_ = scene::find_skybox(s_, surf_);
    rep_.skybox = sky_.has_value();
}

int Writer::material_index(std::uint32_t m) {
    if (material_map_[m] >= 0) return material_map_[m];
    const std::string& name = surf_.materials[m];
    const auto c = scene::material_color(name);
    const bool tool = scene::is_tool_material(name);
    Json mat;
    mat["name"] = name.empty() ? std::string("(none)") : name;
    Json pbr;
    pbr["baseColorFactor"] = {c[0], c[1], c[2], tool ? 0.5 : 1.0};
    pbr["metallicFactor"] = 0.0;
    pbr["roughnessFactor"] = 1.0;
    mat["pbrMetallicRoughness"] = std::move(pbr);
    if (tool) mat["alphaMode"] = "BLEND";
    materials_.push_back(std::move(mat));
    material_map_[m] = static_cast<int>(materials_.size() - 1);
    return material_map_[m];
}

void Writer::write_primitive(Prim& p, Json& prims, const std::array<double, 3>* qmin,
                             double qstep) {
    const std::size_t nv = p.verts.size();
    Json attrs;
    // Positions.
    {
        Json a;
        a["bufferView"] = 0;  // patched to the stream's view
        a["count"] = nv;
        a["type"] = "VEC3";
        if (qmin) {
            std::array<std::uint16_t, 3> lo{65535, 65535, 65535}, hi{0, 0, 0};
            std::size_t at = 0, non_finite = 0;
            for (std::size_t i = 0; i < nv; ++i) {
                std::array<std::uint16_t, 4> q{};
                for (int k = 0; k < 3; ++k) {
                    // A NaN or infinite coordinate (damaged input, or a double beyond float
                    // range) has no place on the grid: clamped (NaN to 0), and reported.
                    non_finite += !std::isfinite(p.verts[i].p[k]);
                    const double v = std::round((p.verts[i].p[k] - (*qmin)[k]) / qstep);
                    q[k] = static_cast<std::uint16_t>(v >= 0 ? std::min(v, 65535.0) : 0.0);
                    lo[k] = std::min(lo[k], q[k]);
                    hi[k] = std::max(hi[k], q[k]);
                }
                const std::size_t o = streams_[pos_q].put(q.data(), sizeof q);
                if (i == 0) at = o;
            }
            if (non_finite) {
                const std::string path = "meshes[" + std::to_string(meshes_.size()) +
                                         "]/primitives[" + std::to_string(prims.size()) +
                                         "]/attributes/POSITION";
                diags_.add(Diagnostic::warning(
                               "gltf.non-finite-position",
                               path + ": " + std::to_string(non_finite) +
                                   " vertex coordinate(s) not finite in float: clamped onto the "
                                   "quantisation grid")
                               .with_path(path));
            }
            a["byteOffset"] = at;
            a["componentType"] = kUShort;
            a["min"] = {lo[0], lo[1], lo[2]};
            a["max"] = {hi[0], hi[1], hi[2]};
        } else {
            std::array<float, 3> lo{INFINITY, INFINITY, INFINITY},
                hi{-INFINITY, -INFINITY, -INFINITY};
            std::size_t at = 0;
            for (std::size_t i = 0; i < nv; ++i) {
                const std::size_t o = streams_[pos_f].put(p.verts[i].p, 12);
                if (i == 0) at = o;
                for (int k = 0; k < 3; ++k) {
                    lo[k] = std::min(lo[k], p.verts[i].p[k]);
                    hi[k] = std::max(hi[k], p.verts[i].p[k]);
                }
            }
            a["byteOffset"] = at;
            a["componentType"] = kFloat;
            a["min"] = {double(lo[0]), double(lo[1]), double(lo[2])};
            a["max"] = {double(hi[0]), double(hi[1]), double(hi[2])};
        }
        a["_stream"] = qmin ? pos_q : pos_f;
        attrs["POSITION"] = accessor(std::move(a));
    }
    // Normals.
    {
        Json a;
        std::size_t at = 0;
        for (std::size_t i = 0; i < nv; ++i) {
            std::size_t o;
            if (qmin) {
                std::array<std::int8_t, 4> q{};
                for (int k = 0; k < 3; ++k)
                    q[k] = static_cast<std::int8_t>(std::lround(p.verts[i].n[k] * 127.0f));
                o = streams_[nrm_q].put(q.data(), 4);
            } else {
                o = streams_[nrm_f].put(p.verts[i].n, 12);
            }
            if (i == 0) at = o;
        }
        a["bufferView"] = 0;
        a["byteOffset"] = at;
        a["componentType"] = qmin ? kByte : kFloat;
        if (qmin) a["normalized"] = true;
        a["count"] = nv;
        a["type"] = "VEC3";
        a["_stream"] = qmin ? nrm_q : nrm_f;
        attrs["NORMAL"] = accessor(std::move(a));
    }
    // Texture coordinates.
    {
        Json a;
        std::size_t at = 0;
        for (std::size_t i = 0; i < nv; ++i) {
            const std::size_t o = streams_[uv_f].put(p.verts[i].uv, 8);
            if (i == 0) at = o;
        }
        a["bufferView"] = 0;
        a["byteOffset"] = at;
        a["componentType"] = kFloat;
        a["count"] = nv;
        a["type"] = "VEC2";
        a["_stream"] = uv_f;
        attrs["TEXCOORD_0"] = accessor(std::move(a));
    }
    if (p.colors) {
        Json a;
        std::size_t at = 0;
        for (std::size_t i = 0; i < nv; ++i) {
            std::size_t o;
            if (qmin) {
                std::array<std::uint8_t, 4> q{};
                for (int k = 0; k < 4; ++k)
                    q[k] = static_cast<std::uint8_t>(
                        std::lround(std::clamp(p.verts[i].c[k], 0.0f, 1.0f) * 255.0f));
                o = streams_[col_q].put(q.data(), 4);
            } else {
                o = streams_[col_f].put(p.verts[i].c, 16);
            }
            if (i == 0) at = o;
        }
        a["bufferView"] = 0;
        a["byteOffset"] = at;
        a["componentType"] = qmin ? kUByte : kFloat;
        if (qmin) a["normalized"] = true;
        a["count"] = nv;
        a["type"] = "VEC4";
        a["_stream"] = qmin ? col_q : col_f;
        attrs["COLOR_0"] = accessor(std::move(a));
    }
    // Indices: 16-bit while the largest index (nv - 1) stays below 65535, the restart value.
    Json ia;
    const bool small = nv <= 65535;
    std::size_t at;
    if (small) {
        std::vector<std::uint16_t> i16(p.indices.begin(), p.indices.end());
        at = streams_[idx16].put(i16.data(), i16.size() * 2);
    } else {
        at = streams_[idx32].put(p.indices.data(), p.indices.size() * 4);
    }
    ia["bufferView"] = 0;
    ia["byteOffset"] = at;
    ia["componentType"] = small ? kUShort : kUInt;
    ia["count"] = p.indices.size();
    ia["type"] = "SCALAR";
    ia["_stream"] = small ? idx16 : idx32;
    Json prim;
    prim["attributes"] = std::move(attrs);
    prim["indices"] = accessor(std::move(ia));
    prim["material"] = p.material;
    prim["mode"] = 4;
    prims.push_back(std::move(prim));
    ++rep_.primitives;
    rep_.vertices += nv;
}

void Writer::attach_geometry(const Group& g, const Vec3& origin, Json& node) {
    // Drawn polygons; brush faces and displacement triangles are convex (a fan triangulates
    // them), mesh faces may not be.
    std::vector<Poly> polys;
    double reach = 0;
    for (std::uint32_t pi : g.pieces) {
        const auto& piece = surf_.pieces[pi];
        const bool convex = piece.kind != scene::Surfaces::PieceKind::mesh;
        for (std::uint32_t i = piece.first_polygon; i < piece.first_polygon + piece.polygon_count;
             ++i) {
            if (!drawn_material_[surf_.polygon_material[i]]) continue;
            polys.push_back({i, convex});
            for (const Vec3& p : surf_.polygon(i)) {
                const Vec3 d = p - origin;
                reach = std::max({reach, std::abs(d.x), std::abs(d.y), std::abs(d.z)});
            }
        }
    }
    if (polys.empty()) return;
    const std::string name = node.value("name", std::string("mesh"));
    if (reach <= kChunkReach) {
        place_mesh(build_mesh(polys, origin, name), name, node);
        return;
    }
    // Far from the node's origin, float32 positions lose the 1/1000-unit precision: cut the
    // geometry into cubes of kChunkSize units, each a child node at its cube's centre.
    // (Cube indices are clamped: damaged input can put a polygon at 1e30 units or NaN.)
    auto cube = [](double v) -> std::int64_t {
        const double f = std::floor(v / kChunkSize);
        return std::isfinite(f) ? std::int64_t(std::clamp(f, -1e15, 1e15)) : 0;
    };
    std::map<std::array<std::int64_t, 3>, std::vector<Poly>> chunks;
    for (const Poly& p : polys) {
        const Vec3 c = winding_center(surf_.polygon(p.index));
        chunks[{cube(c.x), cube(c.y), cube(c.z)}].push_back(p);
    }
    std::size_t part = 0;
    for (const auto& [key, list] : chunks) {
        const Vec3 centre =
            Vec3{double(key[0]) + 0.5, double(key[1]) + 0.5, double(key[2]) + 0.5} * kChunkSize;
        Json child;
        child["name"] = name + " (part " + std::to_string(++part) + ")";
        const Vec3 t = to_gltf(centre - origin) * opt_.scale;
        child["translation"] = {t.x, t.y, t.z};
        const std::string cname = child["name"];
        place_mesh(build_mesh(list, centre, cname), cname, child);
        node["children"].push_back(add_node(std::move(child)));
    }
}

void Writer::place_mesh(const BuiltMesh& m, const std::string& name, Json& node) {
    if (!m.quantized) {
        node["mesh"] = m.mesh;
        return;
    }
    Json child;
    child["name"] = name + " (quantized)";
    child["translation"] = {m.qmin[0], m.qmin[1], m.qmin[2]};
    child["scale"] = {m.qstep, m.qstep, m.qstep};
    child["mesh"] = m.mesh;
    node["children"].push_back(add_node(std::move(child)));
}

Writer::BuiltMesh Writer::build_mesh(const std::vector<Poly>& polys, const Vec3& origin,
                                     const std::string& name) {
    // Polygons by material, in first-use order: one primitive each.
    std::vector<std::vector<Poly>> by_mat;
    std::vector<int> slot(surf_.materials.size(), -1);
    std::vector<std::uint32_t> order;
    for (const Poly& pp : polys) {
        const std::uint32_t m = surf_.polygon_material[pp.index];
        if (slot[m] < 0) {
            slot[m] = static_cast<int>(by_mat.size());
            by_mat.emplace_back();
            order.push_back(m);
        }
        by_mat[static_cast<std::size_t>(slot[m])].push_back(pp);
    }

    const bool has_colors = !surf_.colors.empty();
    std::vector<Prim> prims(by_mat.size());
    for (std::size_t b = 0; b < by_mat.size(); ++b) {
        Prim& p = prims[b];
        p.material = static_cast<std::uint32_t>(material_index(order[b]));
        std::vector<Corner> corners;
        std::vector<std::uint32_t> idx;
        for (const Poly& pp : by_mat[b]) {
            const std::uint32_t poly = pp.index;
            const std::uint32_t first = surf_.polygon_begin[poly],
                                last = surf_.polygon_begin[poly + 1];
            const std::uint32_t base = static_cast<std::uint32_t>(corners.size());
            for (std::uint32_t c = first; c < last; ++c) {
                Corner k;
                const Vec3 pg = to_gltf(surf_.positions[c] - origin) * opt_.scale;
                const Vec3 ng = normalize(to_gltf(surf_.normals[c]));
                k.p[0] = f32(pg.x), k.p[1] = f32(pg.y), k.p[2] = f32(pg.z);
                k.n[0] = f32(ng.x), k.n[1] = f32(ng.y), k.n[2] = f32(ng.z);
                k.uv[0] = f32(surf_.uvs[c][0]), k.uv[1] = f32(surf_.uvs[c][1]);
                if (has_colors) {
                    for (int j = 0; j < 4; ++j) k.c[j] = f32(surf_.colors[c][j]);
                    p.colors |= k.c[0] != 1 || k.c[1] != 1 || k.c[2] != 1 || k.c[3] != 1;
                } else {
                    k.c[0] = k.c[1] = k.c[2] = k.c[3] = 1;
                }
                corners.push_back(k);
            }
            const std::uint32_t n = last - first;
            if (pp.convex) {
                for (std::uint32_t k = 1; k + 1 < n; ++k)
                    idx.insert(idx.end(), {base, base + k, base + k + 1});
            } else {
                tris_.clear();
                triangulate_polygon(surf_.polygon(poly), tris_);
                for (const auto& t : tris_)
                    idx.insert(idx.end(), {base + t[0], base + t[1], base + t[2]});
            }
            ++rep_.polygons;
            rep_.triangles += n - 2;
        }
        // Deduplicate identical corners, then order for the vertex cache and for fetch locality
        // (what gltfpack does).
        std::vector<unsigned int> remap(corners.size());
        const std::size_t stride = p.colors ? sizeof(Corner) : offsetof(Corner, c);
        std::vector<std::byte> packed(corners.size() * stride);
        for (std::size_t i = 0; i < corners.size(); ++i)
            std::memcpy(packed.data() + i * stride, &corners[i], stride);
        const std::size_t unique = meshopt_generateVertexRemap(
            remap.data(), nullptr, corners.size(), packed.data(), corners.size(), stride);
        p.indices.resize(idx.size());
        meshopt_remapIndexBuffer(p.indices.data(), idx.data(), idx.size(), remap.data());
        p.verts.resize(unique);
        meshopt_remapVertexBuffer(p.verts.data(), corners.data(), corners.size(), sizeof(Corner),
                                  remap.data());
        meshopt_optimizeVertexCache(p.indices.data(), p.indices.data(), p.indices.size(), unique);
        meshopt_optimizeVertexFetch(p.verts.data(), p.indices.data(), p.indices.size(),
                                    p.verts.data(), unique, sizeof(Corner));
    }

    // Quantisation: one grid for the whole mesh, undone by the node that holds it.
    std::array<double, 3> qmin{0, 0, 0};
    double qstep = 1;
    if (opt_.quantize) {
        std::array<double, 3> lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
        for (const Prim& p : prims) {
            for (const Corner& c : p.verts) {
                for (int k = 0; k < 3; ++k) {
                    if (!std::isfinite(c.p[k])) continue;  // clamped and warned when written
                    lo[k] = std::min(lo[k], double(c.p[k]));
                    hi[k] = std::max(hi[k], double(c.p[k]));
                }
            }
        }
        for (int k = 0; k < 3; ++k) {
            if (!(lo[k] <= hi[k])) lo[k] = hi[k] = 0;  // no finite coordinate on this axis
        }
        qmin = lo;
        const double extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
        qstep = extent > 0 ? extent / 65535.0 : 1;
    }
    Json jprims = Json::array();
    for (Prim& p : prims) write_primitive(p, jprims, opt_.quantize ? &qmin : nullptr, qstep);
    Json mesh;
    mesh["name"] = name;
    mesh["primitives"] = std::move(jprims);
    meshes_.push_back(std::move(mesh));
    ++rep_.meshes;
    BuiltMesh out;
    out.mesh = static_cast<int>(meshes_.size() - 1);
    out.quantized = opt_.quantize;
    out.qmin = qmin;
    out.qstep = qstep;
    return out;
}

Json Writer::entity_extras(const scene::Entity& e) const {
    Json x = Json::object();
    for (const KeyValue& kv : e.keys) {
        auto it = x.find(kv.key);
        if (it == x.end()) {
            x[kv.key] = kv.value;
        } else if (it->is_array()) {
            it->push_back(kv.value);
        } else {
            *it = Json::array({*it, kv.value});
        }
    }
    if (!e.outputs.empty()) {
        Json outs = Json::array();
        for (const scene::Output& o : e.outputs) {
            if (o.unparsed) {
                outs.push_back(o.output + " " + *o.unparsed);
                continue;
            }
            char delay[32];
            auto r = std::to_chars(delay, delay + sizeof delay, o.delay);
            outs.push_back(o.output + " " + o.target + "," + o.input + "," + o.param + "," +
                           std::string(delay, r.ptr) + "," + std::to_string(o.times));
        }
        x["outputs"] = std::move(outs);
    }
    return x;
}

std::string Writer::entity_name(const scene::Entity& e) const {
    std::string_view n = e.get("targetname");
    if (n.empty()) n = e.classname();
    if (n.empty()) n = "entity";
    return std::string(n);
}

std::optional<int> Writer::light_for(const scene::Entity& e, Mat3& rotation) {
    const std::string cls = to_lower(e.classname());
    enum class Kind { point, spot, directional } kind;
    if (cls == "light" || cls == "light_omni" || cls == "light_dynamic") {
        kind = Kind::point;
    } else if (cls == "light_spot") {
        kind = Kind::spot;
    } else if (cls == "light_environment" || cls == "light_sun" || cls == "light_directional") {
        kind = Kind::directional;
    } else {
        return std::nullopt;
    }
    if (cls == "light_dynamic") {
        const auto cone = numbers(e.get("_cone"));
        if (cone && !cone->empty() && (*cone)[0] > 0 && (*cone)[0] < 90) kind = Kind::spot;
    }
    // Colour and brightness: Source 1 "_light" "R G B brightness", Source 2 "color" + "brightness".
    std::array<double, 3> rgb{1, 1, 1};
    double brightness = 1;
    const bool source2 = !e.get("color").empty() && e.get("_light").empty();
    if (!source2) {
        auto v = numbers(e.get("_light"));
        if (v && v->size() >= 3) {
            for (int k = 0; k < 3; ++k) rgb[k] = (*v)[k] / 255.0;
            brightness = (v->size() >= 4 ? (*v)[3] : 255.0) / 255.0;
        } else if (v && v->size() == 1) {
            brightness = (*v)[0] / 255.0;
        }
    } else {
        auto v = numbers(e.get("color"));
        if (v && v->size() >= 3) {
            for (int k = 0; k < 3; ++k) rgb[k] = (*v)[k] / 255.0;
        }
        if (auto b = numbers(e.get("brightness")); b && b->size() == 1) brightness = (*b)[0];
    }
    Json light;
    light["name"] = entity_name(e);
    light["type"] = kind == Kind::point ? "point" : kind == Kind::spot ? "spot" : "directional";
    light["color"] = {srgb_to_linear(rgb[0]), srgb_to_linear(rgb[1]), srgb_to_linear(rgb[2])};
    // VRAD scales a light so that it gives its colour at 100 units: with inverse-square falloff
    // that is a luminous intensity of colour * (100 units in metres)^2. Suns give it everywhere.
    const double d100 = 100 * opt_.scale;
    light["intensity"] =
        std::max(0.0, kind == Kind::directional ? brightness : brightness * d100 * d100);
    if (kind != Kind::directional) {
        double range = 0;
        if (auto r = numbers(e.get(source2 ? "range" : "_distance")); r && r->size() == 1)
            range = (*r)[0];
        if (range > 0) light["range"] = range * opt_.scale;
    }
    if (kind == Kind::spot) {
        auto deg = [&](std::string_view key, double fallback) {
            auto v = numbers(e.get(key));
            return v && v->size() == 1 ? (*v)[0] : fallback;
        };
        const double pi = 3.14159265358979323846;
        double outer = deg(source2 ? "outerconeangle" : "_cone", 45);
        double inner = deg(source2 ? "innerconeangle" : "_inner_cone", 30);
        outer = std::clamp(outer, 0.1, 89.9) * pi / 180;
        inner = std::clamp(inner, 0.0, 89.9) * pi / 180;
        if (inner >= outer) inner = outer * 0.999;
        light["spot"] = {{"innerConeAngle", inner}, {"outerConeAngle", outer}};
    }
    if (kind != Kind::point) {
        // The light shines along the entity's forward axis (+X in Source, "pitch" overriding the
        // angles' pitch as VRAD reads it); glTF lights shine along the node's -Z.
        Vec3 ang = e.angles().value_or(Vec3{});
        if (auto p = numbers(e.get("pitch")); p && p->size() == 1) ang.x = (*p)[0];
        Mat3 corr;
        corr.m = {0, 0, -1, 0, 1, 0, 1, 0, 0};  // -Z -> +X
        rotation = to_gltf(angle_matrix(ang)) * corr;
    }
    lights_.push_back(std::move(light));
    ++rep_.lights;
    return static_cast<int>(lights_.size() - 1);
}

int Writer::prop_box_mesh() {
    if (prop_box_mesh_ >= 0) return prop_box_mesh_;
    // A 16-unit cube around the prop's origin, wound outward.
    scene::Scene box;
    scene::Mesh m;
    const double h = 8;
    for (int i = 0; i < 8; ++i)
        m.positions.push_back({i & 1 ? h : -h, i & 2 ? h : -h, i & 4 ? h : -h});
    const std::uint32_t faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                       {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& f : faces) {
        scene::Mesh::Face face;
        face.first = static_cast<std::uint32_t>(m.face_vertices.size());
        face.count = 4;
        m.face_vertices.insert(m.face_vertices.end(), f, f + 4);
        m.faces.push_back(face);
    }
    m.materials = {"levelkit/prop_placeholder"};
    box.world.meshes.push_back(std::move(m));
    const scene::Surfaces surf = scene::build_surfaces(box);
    Prim p;
    Json mat;
    const auto c = scene::material_color(surf.materials[0]);
    mat["name"] = surf.materials[0];
    mat["pbrMetallicRoughness"] = {{"baseColorFactor", {c[0], c[1], c[2], 1.0}},
                                   {"metallicFactor", 0.0},
                                   {"roughnessFactor", 1.0}};
    materials_.push_back(std::move(mat));
    p.material = static_cast<std::uint32_t>(materials_.size() - 1);
    for (std::size_t i = 0; i < surf.polygon_count(); ++i) {
        const std::uint32_t base = static_cast<std::uint32_t>(p.verts.size());
        for (std::uint32_t c2 = surf.polygon_begin[i]; c2 < surf.polygon_begin[i + 1]; ++c2) {
            Corner k{};
            const Vec3 pg = to_gltf(surf.positions[c2]) * opt_.scale;
            const Vec3 ng = to_gltf(surf.normals[c2]);
            k.p[0] = f32(pg.x), k.p[1] = f32(pg.y), k.p[2] = f32(pg.z);
            k.n[0] = f32(ng.x), k.n[1] = f32(ng.y), k.n[2] = f32(ng.z);
            k.c[0] = k.c[1] = k.c[2] = k.c[3] = 1;
            p.verts.push_back(k);
        }
        p.indices.insert(p.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
    }
    // The box stays in floats (KHR_mesh_quantization allows mixing).
    Json prims = Json::array();
    write_primitive(p, prims, nullptr, 1);
    Json mesh;
    mesh["name"] = "prop placeholder";
    mesh["primitives"] = std::move(prims);
    meshes_.push_back(std::move(mesh));
    ++rep_.meshes;
    prop_box_mesh_ = static_cast<int>(meshes_.size() - 1);
    return prop_box_mesh_;
}

int Writer::entity_node(std::size_t index, const Group* group) {
    const scene::Entity& e = index == 0 ? s_.world : s_.entities[index - 1];
    Json node;
    node["name"] = index == 0 ? std::string("worldspawn") : entity_name(e);
    const std::optional<Vec3> origin = index == 0 ? std::nullopt : e.origin();
    const Vec3 o = origin.value_or(Vec3{});
    if (origin && *origin != Vec3{}) {
        const Vec3 t = to_gltf(o) * opt_.scale;
        node["translation"] = {t.x, t.y, t.z};
    }
    Mat3 rotation;
    bool rotated = false;
    const bool has_geometry = group && !group->pieces.empty();
    if (!has_geometry && index != 0) {
        // Point entities face their angles; brush geometry is already in world space.
        if (auto a = e.angles(); a && *a != Vec3{}) {
            rotation = to_gltf(angle_matrix(*a));
            rotated = true;
        }
        if (opt_.lights) {
            Mat3 lr = rotation;
            if (auto li = light_for(e, lr)) {
                node["extensions"]["KHR_lights_punctual"]["light"] = *li;
                rotation = lr;
                rotated = true;
            }
        }
    }
    if (rotated) {
        const auto q = quaternion(rotation);
        if (!is_identity_quat(q)) node["rotation"] = {q[0], q[1], q[2], q[3]};
    }
    Json extras = entity_extras(e);
    if (has_geometry) {
        attach_geometry(*group, o, node);
    } else if (index != 0 && is_prop(e)) {
        ++rep_.props;
        if (opt_.prop_boxes) node["mesh"] = prop_box_mesh();
    }
    if (!extras.empty()) node["extras"] = std::move(extras);
    // Key order in the JSON: name first, children last (for readers of the text).
    if (node.contains("children")) {
        Json ch = std::move(node["children"]);
        node.erase("children");
        node["children"] = std::move(ch);
    }
    return add_node(std::move(node));
}

Result<GltfFiles> Writer::run() {
    build_surfaces();

    // Geometry groups: one per entity with pieces; the world splits off its skybox share.
    std::vector<Group> groups(s_.entities.size() + 1);
    Group sky_world;
    sky_world.skybox = true;
    for (std::size_t i = 0; i < groups.size(); ++i) groups[i].entity = i;
    for (std::uint32_t i = 0; i < surf_.pieces.size(); ++i) {
        const auto& piece = surf_.pieces[i];
        if (sky_ && piece.entity == 0 && sky_->pieces[i]) {
            sky_world.pieces.push_back(i);
            rep_.skybox_polygons += piece.polygon_count;
        } else {
            groups[piece.entity].pieces.push_back(i);
        }
    }
    // Entities inside the skybox: the camera, brush entities within its bounds, point entities
    // whose origin is within them.
    std::vector<bool> in_sky(s_.entities.size(), false);
    if (sky_) {
        for (std::size_t i = 0; i < s_.entities.size(); ++i) {
            const Group& g = groups[i + 1];
            bool inside;
            if (!g.pieces.empty()) {
                inside = true;
                for (std::uint32_t pi : g.pieces) {
                    const Aabb b = scene::piece_bounds(surf_, surf_.pieces[pi]);
                    inside &= sky_->bounds.contains(b.mins, 1) && sky_->bounds.contains(b.maxs, 1);
                }
            } else {
                const auto o = s_.entities[i].origin();
                inside = o && sky_->bounds.contains(*o, 1);
            }
            in_sky[i] = inside || i + 1 == sky_->camera;
        }
    }

    Json root;
    root["name"] = opt_.name.empty() ? std::string("map") : opt_.name;
    Json root_children = Json::array();
    root_children.push_back(entity_node(0, &groups[0]));
    if (sky_) {
        Json sky;
        sky["name"] = "3D skybox";
        Json children = Json::array();
        if (!sky_world.pieces.empty()) {
            Json w;
            w["name"] = "worldspawn (3D skybox)";
            attach_geometry(sky_world, {}, w);
            // Nothing drawn when the skybox is only its tool-textured walls.
            if (w.contains("mesh") || w.contains("children"))
                children.push_back(add_node(std::move(w)));
        }
        for (std::size_t i = 0; i < s_.entities.size(); ++i) {
            if (in_sky[i]) children.push_back(entity_node(i + 1, &groups[i + 1]));
        }
        sky["extras"] = {{"sky_camera_origin", {sky_->origin.x, sky_->origin.y, sky_->origin.z}},
                         {"scale", sky_->scale}};
        sky["children"] = std::move(children);
        root_children.push_back(add_node(std::move(sky)));
    }
    for (std::size_t i = 0; i < s_.entities.size(); ++i) {
        if (!in_sky[i]) root_children.push_back(entity_node(i + 1, &groups[i + 1]));
    }
    Json rx;
    if (!s_.source_format.empty()) rx["source_format"] = s_.source_format;
    rx["metres_per_unit"] = opt_.scale;
    root["extras"] = std::move(rx);
    root["children"] = std::move(root_children);
    const int root_index = add_node(std::move(root));

    // Buffer: streams in a fixed order, each its own view, 4-byte aligned.
    Bytes bin;
    Json views = Json::array();
    const bool q = opt_.quantize;
    constexpr int strides[kStreams] = {12, 8, 12, 4, 8, 16, 4, 0, 0};
    for (int i = 0; i < kStreams; ++i) {
        streams_[i].stride = strides[i];
        if (i == idx16 || i == idx32) streams_[i].target = kElementArrayBuffer;
    }
    for (Stream& stream : streams_) {
        Stream* st = &stream;
        if (st->data.empty()) continue;
        while (bin.size() % 4) bin.push_back(std::byte{0});
        Json v;
        v["buffer"] = 0;
        v["byteOffset"] = bin.size();
        v["byteLength"] = st->data.size();
        if (st->stride) v["byteStride"] = st->stride;
        v["target"] = st->target;
        bin.insert(bin.end(), st->data.begin(), st->data.end());
        st->view = static_cast<int>(views.size());
        views.push_back(std::move(v));
    }
    for (Json& a : accessors_) {
        const int s = a["_stream"].get<int>();
        a["bufferView"] = streams_[static_cast<std::size_t>(s)].view;
        a.erase("_stream");
    }
    if (bin.size() > 0xFFFFFFF0ull) {
        return Diagnostic::error("gltf.too-large",
                                 "the map's geometry needs more than 4 GiB of buffer data");
    }

    Json doc;
    doc["asset"] = {{"generator", "levelkit"}, {"version", "2.0"}};
    Json used = Json::array();
    if (!lights_.empty()) used.push_back("KHR_lights_punctual");
    if (q) used.push_back("KHR_mesh_quantization");
    if (!used.empty()) doc["extensionsUsed"] = used;
    if (q) doc["extensionsRequired"] = Json::array({"KHR_mesh_quantization"});
    if (!lights_.empty()) doc["extensions"]["KHR_lights_punctual"]["lights"] = std::move(lights_);
    doc["scene"] = 0;
    doc["scenes"] = Json::array({{{"name", root_index < 0 ? "" : "map"}, {"nodes", {root_index}}}});
    doc["nodes"] = std::move(nodes_);
    if (!meshes_.empty()) doc["meshes"] = std::move(meshes_);
    if (!materials_.empty()) doc["materials"] = std::move(materials_);
    if (!accessors_.empty()) doc["accessors"] = std::move(accessors_);
    if (!views.empty()) doc["bufferViews"] = std::move(views);
    if (!bin.empty()) {
        Json buf;
        buf["byteLength"] = bin.size();
        if (!opt_.binary) buf["uri"] = opt_.bin_name;
        doc["buffers"] = Json::array({std::move(buf)});
    }
    rep_.nodes = doc["nodes"].size();
    rep_.materials = doc.contains("materials") ? doc["materials"].size() : 0;

    GltfFiles out;
    out.binary = opt_.binary;
    out.report = rep_;
    // Keyvalues are bytes in whatever code page the map was saved in; JSON must be UTF-8, so
    // bytes that are not UTF-8 become U+FFFD.
    std::string json = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (!opt_.binary) {
        out.json = std::move(json);
        out.bin = std::move(bin);
        out.bin_name = opt_.bin_name;
        return out;
    }
    out.glb = detail::pack_glb(std::move(json), std::move(bin));
    return out;
}

}  // namespace

Result<GltfFiles> scene_to_gltf(const scene::Scene& s, const GltfOptions& opt, Diagnostics& diags) {
    return Writer(s, opt, diags).run();
}

Result<void> save_gltf(const GltfFiles& files, const std::filesystem::path& path) {
    if (files.binary) return write_file_atomic(path, files.glb);
    const std::filesystem::path bin = path.parent_path() / files.bin_name;
    LK_TRY(write_file_atomic(bin, files.bin));
    return write_file_atomic(path, files.json);
}

}  // namespace lk::convert
