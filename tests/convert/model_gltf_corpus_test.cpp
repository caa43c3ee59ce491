// Every corpus model (DMX models under model/ and dmx/, SMDs with their VTAs) -> .glb, checked:
//  * the Khronos glTF-Validator: no errors (warnings and infos printed by code);
//  * read back with tinygltf (an independent reader), in glTF space (metres, Y up): per vertex of
//    every mesh the position, normal, texture coordinates and weights equal the typed model's
//    after the axis/unit transform (1e-5; weights as the 4 heaviest influences renormalised);
//    nodes, parents and world bind transforms equal; every skin's inverse bind matrices take the
//    mesh's bind space to its joints'; each shape's deltas equal its morph target (sparse or
//    not); each clip's sampled transforms equal the animation's keys (1e-4);
//  * round trips: glTF -> model has the typed model's content, model -> DMX (the input's model
//    version: 22 as Source 2 binary 9, else Source 1 binary 5 / model 18) passes the model
//    validator and reads back with the same content, and that DMX -> glTF -> model again too.
// "Content" compares nodes (bind and pose), materials, and per mesh its triangles vertex by
// vertex (position, normal, texture coordinates, colours, effective weights by joint), shape
// deltas per triangle corner, clips sampled per frame, flex controllers and attachments.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "convert/gltf_readback.hpp"
#include "convert/gltf_validator.hpp"
#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/convert/model_gltf.hpp"
#include "levelkit/convert/model_scene.hpp"
#include "levelkit/convert/scene_obj.hpp"
#include "levelkit/convert/smd_model.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"
#include "model/model_support.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;
using namespace lk;
using namespace lk::model;

namespace {

constexpr double kMetres = 0.0254;
constexpr double kGltfTol = 1e-5;            // glTF space (metres; unit vectors; UVs)
constexpr double kUnitTol = 1e-5 / kMetres;  // the same in model units (inches)
constexpr double kAnimTol = 1e-4;

using Influences = std::vector<std::pair<std::uint32_t, double>>;  // node, weight

// What the glTF holds for a point's weights: merged per joint, heaviest 4, renormalised; a point
// without weights follows `fallback`.
Influences effective(const Mesh& m, std::uint32_t point, std::uint32_t fallback) {
    Influences inf;
    const std::uint32_t per = m.skin.influences;
    for (std::uint32_t k = 0; k < per; ++k) {
        const std::size_t at = std::size_t(point) * per + k;
        if (at >= m.skin.weights.size() || !(m.skin.weights[at] > 0)) continue;
        auto it = std::find_if(inf.begin(), inf.end(),
                               [&](const auto& e) { return e.first == m.skin.joints[at]; });
        if (it != inf.end()) {
            it->second += m.skin.weights[at];
        } else {
            inf.emplace_back(m.skin.joints[at], m.skin.weights[at]);
        }
    }
    if (inf.empty()) inf.emplace_back(fallback, 1.0);
    std::sort(inf.begin(), inf.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (inf.size() > 4) inf.resize(4);
    double sum = 0;
    for (auto& e : inf) sum += e.second;
    for (auto& e : inf) e.second /= sum;
    std::sort(inf.begin(), inf.end());
    return inf;
}

std::uint32_t joint_above(const Model& m, std::uint32_t node) {
    for (std::int32_t n = std::int32_t(node); n >= 0; n = m.nodes[std::size_t(n)].parent)
        if (m.is_joint(std::uint32_t(n))) return std::uint32_t(n);
    return 0;
}

Vec3f unit(const Vec3f& v) {
    const double l = std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z);
    return l > 1e-12 ? Vec3f{float(v.x / l), float(v.y / l), float(v.z / l)} : Vec3f{0, 0, 1};
}

// Model axes -> glTF: Z up (x, y, z) -> (x, z, -y); Y up unchanged. Set per model.
double g_cm[3][3] = {{1, 0, 0}, {0, 0, 1}, {0, -1, 0}};

bool set_axes(Axis up) {
    const double z[3][3] = {{1, 0, 0}, {0, 0, 1}, {0, -1, 0}};
    const double y[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    if (up != Axis::z && up != Axis::y) return false;
    std::memcpy(g_cm, up == Axis::z ? z : y, sizeof g_cm);
    return true;
}

std::array<double, 3> to_gltf(const Vec3f& v, double s) {
    std::array<double, 3> o{};
    for (int r = 0; r < 3; ++r)
        o[std::size_t(r)] = (g_cm[r][0] * v.x + g_cm[r][1] * v.y + g_cm[r][2] * v.z) * s;
    return o;
}

bool near(double a, double b, double eps) {
    return std::abs(a - b) <= eps;
}

// --- content comparison between two neutral models ------------------------------------------

struct Content {
    std::optional<std::string> diff;
    void fail(std::string s) {
        if (!diff) diff = std::move(s);
    }
    void vec(const std::string& p, const Vec3f& a, const Vec3f& b, double eps) {
        if (!near(a.x, b.x, eps) || !near(a.y, b.y, eps) || !near(a.z, b.z, eps))
            fail(fmt::format("{}: ({} {} {}) vs ({} {} {})", p, a.x, a.y, a.z, b.x, b.y, b.z));
    }
    void transform(const std::string& p, const Transform& a, const Transform& b) {
        vec(p + ".translation", a.translation, b.translation, kUnitTol);
        if (angle_between(a.rotation, b.rotation) > kAnimTol)
            fail(
                fmt::format("{}.rotation off by {} rad", p, angle_between(a.rotation, b.rotation)));
        vec(p + ".scale", a.scale, b.scale, 1e-5);
    }
};

// What a DMX can say of a model: a dag that carries no mesh and no attachment is a bone there
// (Blender Source Tools and levelkit read every shape-less DmeDag as one), so such a node of a
// glTF comes back from DMX as a joint.
Model as_dmx_reads_it(Model m) {
    std::vector<bool> carries(m.nodes.size(), false);
    for (const auto& mesh : m.meshes) carries[mesh.node] = true;
    for (const auto& a : m.attachments) carries[a.node] = true;
    for (std::size_t i = 1; i < m.nodes.size(); ++i) {
        if (!carries[i]) m.nodes[i].kind = model::NodeKind::joint;
    }
    return m;
}

std::optional<std::string> same_content(const Model& a, const Model& b) {
    Content c;
    if (a.nodes.size() != b.nodes.size())
        return fmt::format("{} nodes vs {}", a.nodes.size(), b.nodes.size());
    for (std::size_t i = 0; i < a.nodes.size() && !c.diff; ++i) {
        const Node &x = a.nodes[i], &y = b.nodes[i];
        const std::string p = fmt::format("nodes[{}] '{}'", i, x.name);
        if (i > 0 && x.name != y.name) c.fail(p + ": name '" + y.name + "'");
        if (x.parent != y.parent) c.fail(p + ": parent differs");
        if (i > 0 && x.kind != y.kind) c.fail(p + ": kind differs");
        c.transform(p + ".bind", x.bind, y.bind);
        c.transform(p + ".pose", x.pose, y.pose);
    }
    if (a.root_bone != b.root_bone) c.fail("root_bone differs");
    if (a.flex != b.flex) c.fail("flex differs");
    if (a.attachments.size() != b.attachments.size()) c.fail("attachments differ");
    if (a.meshes.size() != b.meshes.size())
        c.fail(fmt::format("{} meshes vs {}", a.meshes.size(), b.meshes.size()));
    for (std::size_t mi = 0; mi < a.meshes.size() && !c.diff; ++mi) {
        const Mesh &x = a.meshes[mi], &y = b.meshes[mi];
        const std::string p = fmt::format("meshes[{}] '{}'", mi, x.name);
        if (x.name != y.name) c.fail(p + ": name '" + y.name + "'");
        if (x.node != y.node) c.fail(p + ": node differs");
        const Flattened fx = flatten(x), fy = flatten(y);
        // Parts with triangles, in order, by material name.
        std::vector<const Flattened::Part*> px, py;
        for (const auto& part : fx.parts)
            if (!part.triangles.empty()) px.push_back(&part);
        for (const auto& part : fy.parts)
            if (!part.triangles.empty()) py.push_back(&part);
        if (px.size() != py.size()) {
            c.fail(fmt::format("{}: {} face sets vs {}", p, px.size(), py.size()));
            break;
        }
        const std::uint32_t fbx = joint_above(a, x.node), fby = joint_above(b, y.node);
        const bool tx = x.texcoords.size(), nx = x.normals.present();
        for (std::size_t k = 0; k < px.size() && !c.diff; ++k) {
            const auto &tx_ = px[k]->triangles, &ty = py[k]->triangles;
            if (a.materials[px[k]->material] != b.materials[py[k]->material])
                c.fail(fmt::format("{}: part {} material differs", p, k));
            if (tx_.size() != ty.size()) {
                c.fail(
                    fmt::format("{}: part {} has {} corners vs {}", p, k, tx_.size(), ty.size()));
                break;
            }
            for (std::size_t t = 0; t < tx_.size() && !c.diff; ++t) {
                const std::uint32_t cx = fx.corner[tx_[t]], cy = fy.corner[ty[t]];
                const std::string q = fmt::format("{} part {} corner {}", p, k, t);
                c.vec(q + " position", x.positions.at(cx), y.positions.at(cy), kUnitTol);
                if (nx != y.normals.present()) c.fail(q + ": normals present differ");
                if (nx)
                    c.vec(q + " normal", unit(x.normals.at(cx)), unit(y.normals.at(cy)), kGltfTol);
                std::size_t sx = 0, sy = 0;
                for (const auto& s : x.texcoords) sx += s.present();
                for (const auto& s : y.texcoords) sy += s.present();
                if (sx != sy) c.fail(q + ": texcoord sets differ");
                for (std::size_t s = 0, s2 = 0; tx && s < x.texcoords.size(); ++s) {
                    if (!x.texcoords[s].present()) continue;
                    while (s2 < y.texcoords.size() && !y.texcoords[s2].present()) ++s2;
                    if (s2 >= y.texcoords.size()) break;
                    const Vec2f u = x.texcoords[s].at(cx), v = y.texcoords[s2++].at(cy);
                    if (!near(u.x, v.x, kGltfTol) || !near(u.y, v.y, kGltfTol))
                        c.fail(
                            fmt::format("{} uv{}: ({} {}) vs ({} {})", q, s, u.x, u.y, v.x, v.y));
                }
                // Tangents (direction and bitangent sign), colours (as glTF clamps them), the
                // stereo balance, speed and wrinkle fields.
                if (x.tangents.present() && nx) {
                    if (!y.tangents.present()) {
                        c.fail(q + ": tangents lost");
                    } else {
                        const Vec4f &ta = x.tangents.at(cx), &tb = y.tangents.at(cy);
                        c.vec(q + " tangent", unit({ta.x, ta.y, ta.z}), unit({tb.x, tb.y, tb.z}),
                              kGltfTol);
                        if ((ta.w < 0) != (tb.w < 0)) c.fail(q + ": bitangent sign");
                    }
                }
                std::size_t cs = 0;
                for (const auto& set : x.colors) {
                    if (!set.present()) continue;
                    if (cs >= y.colors.size() || !y.colors[cs].present()) {
                        c.fail(q + ": colour set lost");
                        break;
                    }
                    const Vec4f ca = set.at(cx), cb = y.colors[cs++].at(cy);
                    auto cl = [](float v) { return std::clamp(v, 0.0f, 1.0f); };
                    if (!near(cl(ca.x), cb.x, kGltfTol) || !near(cl(ca.y), cb.y, kGltfTol) ||
                        !near(cl(ca.z), cb.z, kGltfTol) || !near(cl(ca.w), cb.w, kGltfTol))
                        c.fail(q + ": colour");
                }
                for (const auto& [fa, fb, what] : {std::tuple{&x.balance, &y.balance, "balance"},
                                                   std::tuple{&x.speed, &y.speed, "speed"},
                                                   std::tuple{&x.wrinkle, &y.wrinkle, "wrinkle"}}) {
                    if (!fa->present()) continue;
                    if (!fb->present()) {
                        c.fail(q + ": " + what + " lost");
                    } else if (!near(fa->at(cx), fb->at(cy), kGltfTol)) {
                        c.fail(q + ": " + what);
                    }
                }
                if (x.extra.size() != y.extra.size()) {
                    c.fail(q + ": extra fields differ");
                } else {
                    for (std::size_t e = 0; e < x.extra.size(); ++e) {
                        const ExtraField &ea = x.extra[e], &eb = y.extra[e];
                        if (ea.name != eb.name || ea.kind != eb.kind ||
                            ea.components != eb.components) {
                            c.fail(q + ": extra field " + ea.name);
                            break;
                        }
                        for (std::size_t comp = 0; comp < ea.components; ++comp) {
                            const float va = ea.values[ea.indices[cx] * ea.components + comp],
                                        vb = eb.values[eb.indices[cy] * eb.components + comp];
                            if (!near(va, vb, kGltfTol)) c.fail(q + ": extra field " + ea.name);
                        }
                    }
                }
                if ((x.skin.influences > 0) != (y.skin.influences > 0))
                    c.fail(q + ": skinned differs");
                if (x.skin.influences > 0) {
                    const Influences wa = effective(x, x.positions.indices[cx], fbx),
                                     wb = effective(y, y.positions.indices[cy], fby);
                    bool same = wa.size() == wb.size();
                    for (std::size_t i = 0; same && i < wa.size(); ++i)
                        same = wa[i].first == wb[i].first &&
                               near(wa[i].second, wb[i].second, kGltfTol);
                    if (!same) c.fail(q + ": weights differ");
                }
                // Shapes: per corner deltas.
                if (x.shapes.size() != y.shapes.size()) {
                    c.fail(fmt::format("{}: {} shapes vs {}", p, x.shapes.size(), y.shapes.size()));
                    break;
                }
            }
        }
        for (std::size_t s = 0; s < x.shapes.size() && !c.diff; ++s) {
            if (x.shapes[s].name != y.shapes[s].name)
                c.fail(p + ": shape name " + y.shapes[s].name);
            auto dense = [](const Mesh& m, const Sparse<Vec3f>& sp, std::size_t n) {
                std::vector<Vec3f> d(n);
                for (std::size_t i = 0; i < sp.indices.size(); ++i)
                    if (sp.indices[i] < n) d[sp.indices[i]] = sp.values[i];
                (void)m;
                return d;
            };
            const auto dpx = dense(x, x.shapes[s].positions, x.positions.values.size());
            const auto dpy = dense(y, y.shapes[s].positions, y.positions.values.size());
            const bool normals = nx && !x.shapes[s].normals.empty();
            const auto dnx = dense(x, x.shapes[s].normals, x.normals.values.size());
            const auto dny = dense(y, y.shapes[s].normals, y.normals.values.size());
            for (std::size_t k = 0; k < px.size() && !c.diff; ++k) {
                for (std::size_t t = 0; t < px[k]->triangles.size() && !c.diff; ++t) {
                    const std::uint32_t cx = fx.corner[px[k]->triangles[t]],
                                        cy = fy.corner[py[k]->triangles[t]];
                    const std::string q =
                        fmt::format("{} shape '{}' corner {}", p, x.shapes[s].name, t);
                    c.vec(q, dpx[x.positions.indices[cx]], dpy[y.positions.indices[cy]], kUnitTol);
                    if (normals)
                        c.vec(q + " normal", dnx[x.normals.indices[cx]], dny[y.normals.indices[cy]],
                              kGltfTol);
                }
            }
        }
    }
    if (a.clips.size() != b.clips.size())
        c.fail(fmt::format("{} clips vs {}", a.clips.size(), b.clips.size()));
    for (std::size_t ci = 0; ci < a.clips.size() && !c.diff; ++ci) {
        const Clip &x = a.clips[ci], &y = b.clips[ci];
        const std::string p = fmt::format("clips[{}] '{}'", ci, x.name);
        if (x.name != y.name) c.fail(p + ": name");
        if (!near(x.frame_rate, y.frame_rate, 1e-6) || x.frame_count() != y.frame_count()) {
            c.fail(fmt::format("{}: {} frames at {} vs {} at {}", p, x.frame_count(), x.frame_rate,
                               y.frame_count(), y.frame_rate));
            continue;
        }
        for (const NodeTrack& tr : x.tracks) {
            if (tr.node >= a.nodes.size()) continue;
            const NodeTrack* other = nullptr;
            for (const NodeTrack& t2 : y.tracks)
                if (t2.node == tr.node) other = &t2;
            for (std::uint32_t f = 0; f < x.frame_count() && !c.diff; ++f) {
                const double t = f / x.frame_rate;
                c.transform(fmt::format("{} node '{}' frame {}", p, a.nodes[tr.node].name, f),
                            sample(&tr, a.nodes[tr.node].bind, t),
                            sample(other, b.nodes[tr.node].bind, t));
            }
        }
        if (x.flex_tracks.size() != y.flex_tracks.size()) c.fail(p + ": flex tracks differ");
    }
    return c.diff;
}

// --- loading the typed models ---------------------------------------------------------------

struct Input {
    fs::path path;
    Model model;
    int format_version = 0;  // DMX model version (0 for SMD)
};

std::optional<Input> load(const fs::path& p, std::string& why) {
    Diagnostics w;
    Input in;
    in.path = p;
    auto bytes = read_file(p);
    if (!bytes) return why = "unreadable", std::nullopt;
    if (iends_with(p.string(), ".smd")) {
        auto f = smd::read(as_text(*bytes), w);
        if (!f) return why = f.error().message, std::nullopt;
        std::optional<smd::File> vta;
        fs::path vp = p;
        vp.replace_extension(".vta");
        if (f->has_triangles && fs::exists(vp)) {
            auto vb = read_file(vp);
            if (vb) {
                auto v = smd::read(as_text(*vb), w);
                if (v) vta = std::move(v).value();
            }
        }
        convert::SmdToModelOptions o;
        o.name = p.stem().string();
        auto m = convert::smd_to_model(*f, vta ? &*vta : nullptr, w, o);
        if (!m) return why = m.error().message, std::nullopt;
        in.model = std::move(m).value();
        return in;
    }
    auto doc = dmx::read(*bytes);
    if (!doc) return why = doc.error().message, std::nullopt;
    if (doc->header.format != "model") return why = "not a model", std::nullopt;
    in.format_version = doc->header.format_version;
    auto m = convert::dmx_to_model(*doc, w);
    if (!m) return why = m.error().message, std::nullopt;
    in.model = std::move(m).value();
    return in;
}

// --- the glTF read back with tinygltf -------------------------------------------------------

// Every element of an accessor (sparse and bufferView-less accessors included).
std::vector<std::vector<double>> elements(const tinygltf::Model& g, int index) {
    const tinygltf::Accessor& a = g.accessors.at(std::size_t(index));
    const int comps = tinygltf::GetNumComponentsInType(std::uint32_t(a.type));
    std::vector<std::vector<double>> out(a.count, std::vector<double>(std::size_t(comps), 0.0));
    if (a.bufferView >= 0)
        for (std::size_t i = 0; i < a.count; ++i) out[i] = test::detail::element(g, a, i);
    if (a.sparse.isSparse) {
        tinygltf::Accessor ia;
        ia.bufferView = a.sparse.indices.bufferView;
        ia.byteOffset = std::size_t(a.sparse.indices.byteOffset);
        ia.componentType = a.sparse.indices.componentType;
        ia.type = TINYGLTF_TYPE_SCALAR;
        tinygltf::Accessor va = a;
        va.bufferView = a.sparse.values.bufferView;
        va.byteOffset = std::size_t(a.sparse.values.byteOffset);
        for (int i = 0; i < a.sparse.count; ++i) {
            const auto at = std::size_t(test::detail::element(g, ia, std::size_t(i))[0]);
            out.at(at) = test::detail::element(g, va, std::size_t(i));
        }
    }
    return out;
}

using Mat4 = test::detail::Mat4;

struct Figures {
    std::size_t models = 0, failed = 0, vertices = 0, joints = 0, targets = 0, sparse = 0,
                clips = 0, keys = 0, reduced = 0, dmx_written = 0, dmx_validator_errors = 0,
                stable_bytes = 0, obj_polygons = 0, y_up = 0, extra_fields = 0;
    double max_pos = 0, max_normal = 0, max_uv = 0, max_weight = 0, max_delta = 0, max_bind = 0,
           max_anim = 0;
};

// glTF-space checks of one written file against the typed model. Returns the first problem.
std::optional<std::string> check_readback(const Model& m, const Bytes& glb, Figures& fig) {
    tinygltf::Model g;
    {
        tinygltf::TinyGLTF loader;
        std::string err, warn;
        if (!loader.LoadBinaryFromMemory(&g, &err, &warn,
                                         reinterpret_cast<const unsigned char*>(glb.data()),
                                         static_cast<unsigned int>(glb.size())))
            return "tinygltf: " + err;
    }
    const double s = kMetres * 39.37007874015748 / m.units_per_meter;
    if (!set_axes(m.up_axis)) return "the test knows Z-up and Y-up models only";
    if (m.up_axis == Axis::y) ++fig.y_up;
    // Nodes: names, parents, world transforms.
    if (g.nodes.size() < m.nodes.size()) return "fewer glTF nodes than model nodes";
    std::vector<int> gparent(g.nodes.size(), -1);
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        for (int ch : g.nodes[i].children) gparent.at(std::size_t(ch)) = int(i);
    std::vector<Mat4> world(g.nodes.size());
    std::vector<bool> done(g.nodes.size(), false);
    std::function<Mat4(std::size_t)> world_of = [&](std::size_t i) -> Mat4 {
        if (done[i]) return world[i];
        const Mat4 local = test::detail::node_matrix(g.nodes[i]);
        world[i] =
            gparent[i] >= 0 ? test::detail::mul(world_of(std::size_t(gparent[i])), local) : local;
        done[i] = true;
        return world[i];
    };
    const std::vector<Affine> wb = world_bind(m);
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        if (g.nodes[i].name != m.nodes[i].name) return fmt::format("node {} name", i);
        if (gparent[i] != m.nodes[i].parent) return fmt::format("node {} parent", i);
        const Mat4 w = world_of(i);
        // Model world bind in glTF axes: C * A * C^T, translation C * t * s.
        const Affine& a = wb[i];
        const auto& cm = g_cm;
        for (int r = 0; r < 3; ++r) {
            for (int col = 0; col < 3; ++col) {
                double v = 0;
                for (int k = 0; k < 3; ++k)
                    for (int l = 0; l < 3; ++l) v += cm[r][k] * a.m[k][l] * cm[col][l];
                const double d = std::abs(v - w[std::size_t(col * 4 + r)]);
                fig.max_bind = std::max(fig.max_bind, d);
                if (d > kGltfTol)
                    return fmt::format("node {} '{}' world rotation/scale", i, m.nodes[i].name);
            }
            double t = 0;
            for (int k = 0; k < 3; ++k) t += cm[r][k] * a.t[k] * s;
            const double d = std::abs(t - w[std::size_t(12 + r)]);
            fig.max_bind = std::max(fig.max_bind, d);
            if (d > kGltfTol)
                return fmt::format("node {} '{}' world translation", i, m.nodes[i].name);
        }
    }
    // Meshes: glTF nodes after the model's, in mesh order.
    std::size_t gi = m.nodes.size();
    for (std::size_t mi = 0; mi < m.meshes.size(); ++mi, ++gi) {
        const Mesh& mesh = m.meshes[mi];
        if (gi >= g.nodes.size()) return "missing mesh node";
        const tinygltf::Node& gn = g.nodes[gi];
        const Flattened fl = flatten(mesh);
        std::size_t tris = 0;
        for (const auto& p : fl.parts) tris += p.triangles.size();
        if (tris == 0) {
            if (gn.mesh >= 0) return "a mesh without triangles has a glTF mesh";
            continue;
        }
        if (gn.mesh < 0) return fmt::format("mesh {} has no glTF mesh", mi);
        const tinygltf::Mesh& gm = g.meshes.at(std::size_t(gn.mesh));
        const tinygltf::Primitive& p0 = gm.primitives.at(0);
        const std::size_t nv = fl.corner.size();
        const auto P = elements(g, p0.attributes.at("POSITION"));
        if (P.size() != nv) return fmt::format("mesh {}: {} vertices, want {}", mi, P.size(), nv);
        fig.vertices += nv;
        auto attr = [&](const std::string& k) {
            auto it = p0.attributes.find(k);
            return it == p0.attributes.end() ? -1 : it->second;
        };
        std::vector<std::vector<double>> N, J, W;
        if (mesh.normals.present()) N = elements(g, attr("NORMAL"));
        std::vector<std::vector<std::vector<double>>> T;
        for (std::size_t k = 0; k < mesh.texcoords.size(); ++k)
            if (mesh.texcoords[k].present())
                T.push_back(elements(g, attr("TEXCOORD_" + std::to_string(T.size()))));
        const bool skinned = mesh.skin.influences > 0;
        std::vector<int> joints;
        if (skinned) {
            if (gn.skin < 0) return fmt::format("mesh {} has no skin", mi);
            const tinygltf::Skin& sk = g.skins.at(std::size_t(gn.skin));
            joints = sk.joints;
            J = elements(g, attr("JOINTS_0"));
            W = elements(g, attr("WEIGHTS_0"));
            // IBM * joint world = mesh node world (in bind space).
            const auto ibm = elements(g, sk.inverseBindMatrices);
            const Mat4 mw = world_of(mesh.node);
            for (std::size_t k = 0; k < joints.size(); ++k) {
                Mat4 im;
                std::copy(ibm[k].begin(), ibm[k].end(), im.begin());
                const Mat4 r = test::detail::mul(world_of(std::size_t(joints[k])), im);
                for (int e = 0; e < 16; ++e)
                    if (std::abs(r[std::size_t(e)] - mw[std::size_t(e)]) > 1e-4)
                        return fmt::format("mesh {} joint {}: inverse bind matrix", mi, k);
            }
            fig.joints += joints.size();
        }
        const std::uint32_t fallback = joint_above(m, mesh.node);
        for (std::size_t v = 0; v < nv; ++v) {
            const std::uint32_t c = fl.corner[v];
            const auto want = to_gltf(mesh.positions.at(c), s);
            for (int k = 0; k < 3; ++k) {
                const double d = std::abs(want[std::size_t(k)] - P[v][std::size_t(k)]);
                fig.max_pos = std::max(fig.max_pos, d);
                if (d > kGltfTol) return fmt::format("mesh {} vertex {} position", mi, v);
            }
            if (!N.empty()) {
                const auto wn = to_gltf(unit(mesh.normals.at(c)), 1);
                for (int k = 0; k < 3; ++k) {
                    const double d = std::abs(wn[std::size_t(k)] - N[v][std::size_t(k)]);
                    fig.max_normal = std::max(fig.max_normal, d);
                    if (d > kGltfTol) return fmt::format("mesh {} vertex {} normal", mi, v);
                }
            }
            for (std::size_t k = 0, set = 0; k < mesh.texcoords.size(); ++k) {
                if (!mesh.texcoords[k].present()) continue;
                const Vec2f uv = mesh.texcoords[k].at(c);
                const double d =
                    std::max(std::abs(uv.x - T[set][v][0]), std::abs(1.0 - uv.y - T[set][v][1]));
                ++set;
                fig.max_uv = std::max(fig.max_uv, d);
                if (d > kGltfTol) return fmt::format("mesh {} vertex {} uv{}", mi, v, k);
            }
            if (skinned) {
                Influences got;
                double sum = 0;
                for (int k = 0; k < 4; ++k) {
                    sum += W[v][std::size_t(k)];
                    if (W[v][std::size_t(k)] > 0)
                        got.emplace_back(
                            std::uint32_t(joints.at(std::size_t(J[v][std::size_t(k)]))),
                            W[v][std::size_t(k)]);
                }
                std::sort(got.begin(), got.end());
                const Influences want_w = effective(mesh, mesh.positions.indices[c], fallback);
                if (std::abs(sum - 1) > 2e-6)
                    return fmt::format("mesh {} vertex {} weights sum {}", mi, v, sum);
                if (got.size() != want_w.size())
                    return fmt::format("mesh {} vertex {} influences", mi, v);
                for (std::size_t k = 0; k < got.size(); ++k) {
                    const double d = std::abs(got[k].second - want_w[k].second);
                    fig.max_weight = std::max(fig.max_weight, d);
                    if (got[k].first != want_w[k].first || d > kGltfTol)
                        return fmt::format("mesh {} vertex {} weight {}", mi, v, k);
                }
            }
        }
        // Shapes.
        if (p0.targets.size() != mesh.shapes.size()) return fmt::format("mesh {}: targets", mi);
        for (std::size_t t = 0; t < mesh.shapes.size(); ++t) {
            const Shape& sh = mesh.shapes[t];
            std::vector<Vec3f> dp(mesh.positions.values.size());
            for (std::size_t k = 0; k < sh.positions.indices.size(); ++k)
                dp.at(sh.positions.indices[k]) = sh.positions.values[k];
            const int acc = p0.targets[t].at("POSITION");
            if (g.accessors.at(std::size_t(acc)).sparse.isSparse) ++fig.sparse;
            const auto D = elements(g, acc);
            for (std::size_t v = 0; v < nv; ++v) {
                const auto want = to_gltf(dp[mesh.positions.indices[fl.corner[v]]], s);
                for (int k = 0; k < 3; ++k) {
                    const double d = std::abs(want[std::size_t(k)] - D[v][std::size_t(k)]);
                    fig.max_delta = std::max(fig.max_delta, d);
                    if (d > kGltfTol)
                        return fmt::format("mesh {} shape '{}' vertex {}", mi, sh.name, v);
                }
            }
            ++fig.targets;
        }
    }
    // Clips: each channel's keys are the sampled transforms.
    for (std::size_t ci = 0; ci < m.clips.size(); ++ci) {
        const Clip& clip = m.clips[ci];
        if (ci >= g.animations.size()) return "missing animation";
        const tinygltf::Animation& an = g.animations[ci];
        if (an.name != clip.name) return "animation name";
        for (const tinygltf::AnimationChannel& ch : an.channels) {
            if (ch.target_path == "weights") continue;
            const auto node = std::size_t(ch.target_node);
            if (node >= m.nodes.size()) return "channel node";
            const NodeTrack* tr = nullptr;
            for (const NodeTrack& t : clip.tracks)
                if (t.node == node) tr = &t;
            if (!tr) {
                if (clip.tracks.empty()) continue;  // the placeholder channel of an empty clip
                return "channel for an unanimated node";
            }
            const auto& smp = an.samplers.at(std::size_t(ch.sampler));
            const auto in = elements(g, smp.input), out = elements(g, smp.output);
            if (in.size() != clip.frame_count()) return "animation key count";
            for (std::size_t k = 0; k < in.size(); ++k) {
                // Times are float32: within half an ulp of the frame time.
                const double t = k / clip.frame_rate;
                if (std::abs(in[k][0] - t) > 1e-7 * std::max(1.0, t))
                    return fmt::format("key time {} vs {}", in[k][0], t);
                const Transform x = sample(tr, m.nodes[node].bind, k / clip.frame_rate);
                double d = 0;
                if (ch.target_path == "translation") {
                    const auto w = to_gltf(x.translation, s);
                    for (int j = 0; j < 3; ++j)
                        d = std::max(d, std::abs(w[std::size_t(j)] - out[k][std::size_t(j)]));
                } else if (ch.target_path == "rotation") {
                    const auto r = to_gltf({x.rotation.x, x.rotation.y, x.rotation.z}, 1);
                    d = angle_between(
                        {float(r[0]), float(r[1]), float(r[2]), x.rotation.w},
                        {float(out[k][0]), float(out[k][1]), float(out[k][2]), float(out[k][3])});
                } else {
                    const Vec3f sc = x.scale;
                    const double scale[3] = {sc.x, sc.y, sc.z};
                    for (int r = 0; r < 3; ++r) {
                        double want = 0;
                        for (int j = 0; j < 3; ++j) want += std::abs(g_cm[r][j]) * scale[j];
                        d = std::max(d, std::abs(want - out[k][std::size_t(r)]));
                    }
                }
                fig.max_anim = std::max(fig.max_anim, d);
                if (d > kAnimTol)
                    return fmt::format("clip '{}' node {} frame {} {}", clip.name, node, k,
                                       ch.target_path);
                ++fig.keys;
            }
        }
        ++fig.clips;
    }
    return std::nullopt;
}

TEST(ModelGltfCorpus, EveryModelToGlbAndBack) {
    LK_REQUIRE_CORPUS();
    std::vector<fs::path> paths;
    for (auto& f : test::model_corpus()) paths.push_back(f.path);
    for (auto& p : test::corpus_files("model", {".smd"})) paths.push_back(p);
    const fs::path dir = fs::path("model_gltf_corpus");
    fs::create_directories(dir);
    std::vector<fs::path> written;
    Figures fig;
    double seconds = 0;
    for (const fs::path& p : paths) {
        std::string why;
        auto in = load(p, why);
        if (!in) {
            std::printf("[model-gltf] %s not read: %s\n", p.filename().c_str(), why.c_str());
            continue;
        }
        SCOPED_TRACE(p.filename().string());
        ++fig.models;
        const Model& m = in->model;
        Diagnostics w;
        const auto t0 = std::chrono::steady_clock::now();
        auto files = convert::model_to_gltf(m, {}, w);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ASSERT_TRUE(files) << files.error().message;
        fig.reduced += files->report.influences_reduced;
        for (const Mesh& mesh : m.meshes) fig.extra_fields += mesh.extra.size();
        const fs::path out =
            dir / (p.stem().string() + (p.extension() == ".smd" ? "_smd" : "") + ".glb");
        ASSERT_TRUE(write_file_atomic(out, files->glb));
        written.push_back(out);
        // 0. The OBJ of its meshes (through the scene, as pictures draw it): every polygon.
        {
            convert::SceneToObjOptions oo;
            oo.surfaces.skip_tool_materials = false;
            const convert::ObjFiles obj = convert::scene_to_obj(convert::model_to_scene(m), oo);
            std::size_t polygons = 0;
            for (const Mesh& mesh : m.meshes)
                for (const FaceSet& fs : mesh.face_sets)
                    for (std::uint32_t n : fs.sizes) polygons += n >= 3;
            EXPECT_EQ(obj.polygons, polygons) << "OBJ polygons";
            fig.obj_polygons += obj.polygons;
        }
        // 1. Read back with tinygltf.
        if (auto d = check_readback(m, files->glb, fig)) {
            ADD_FAILURE() << "read back: " << *d;
            ++fig.failed;
            continue;
        }
        // 2. glTF -> model.
        auto back = convert::gltf_to_model(files->glb, {}, w);
        ASSERT_TRUE(back) << back.error().message;
        if (auto d = same_content(m, *back)) {
            ADD_FAILURE() << "glTF -> model: " << *d;
            ++fig.failed;
            continue;
        }
        // 3. -> DMX at the input's generation, validated, read again.
        const dmxmodel::Target target =
            in->format_version >= 22 ? dmxmodel::Target::source2() : dmxmodel::Target::source1();
        auto doc = convert::model_to_dmx(*back, target, w);
        ASSERT_TRUE(doc) << doc.error().message;
        auto bytes = dmx::write(*doc);
        ASSERT_TRUE(bytes);
        auto doc2 = dmx::read(*bytes);
        ASSERT_TRUE(doc2) << doc2.error().message;
        Diagnostics vw;
        auto view = dmxmodel::open(*doc2, vw);
        ASSERT_TRUE(view) << view.error().message;
        Diagnostics vd;
        dmxmodel::validate(*view, vd);
        for (const Diagnostic& d : vd.items()) {
            if (d.severity == Severity::error) {
                ++fig.dmx_validator_errors;
                ADD_FAILURE() << "model validator: " << d.message << " [" << d.path << "]";
            }
        }
        ++fig.dmx_written;
        auto again = convert::dmx_to_model(*doc2, w);
        ASSERT_TRUE(again) << again.error().message;
        if (auto d = same_content(m, *again)) {
            ADD_FAILURE() << "glTF -> DMX -> model: " << *d;
            ++fig.failed;
            continue;
        }
        // 4. That DMX -> glTF -> model keeps it too; the bytes are compared for the figures.
        auto files2 = convert::model_to_gltf(*again, {}, w);
        ASSERT_TRUE(files2);
        if (files2->glb == files->glb) {
            ++fig.stable_bytes;
        } else {
            // The validator sees the file written after the DMX round trip too.
            written.push_back(dir / (out.stem().string() + ".via_dmx.glb"));
            ASSERT_TRUE(write_file_atomic(written.back(), files2->glb));
        }
        auto back2 = convert::gltf_to_model(files2->glb, {}, w);
        ASSERT_TRUE(back2);
        if (auto d = same_content(m, *back2)) {
            ADD_FAILURE() << "glTF -> DMX -> glTF -> model: " << *d;
            ++fig.failed;
        }
    }
    EXPECT_EQ(fig.failed, 0u);
    EXPECT_GT(fig.models, 0u);
    std::printf(
        "[model-gltf] %zu models -> .glb in %.3f s (%zu failed); %zu vertices, %zu skin joints, "
        "%zu morph targets (%zu sparse), %zu clips, %zu animation keys; %zu vertices had more "
        "than 4 influences; %zu models Y up\n",
        fig.models, seconds, fig.failed, fig.vertices, fig.joints, fig.targets, fig.sparse,
        fig.clips, fig.keys, fig.reduced, fig.y_up);
    std::printf(
        "[model-gltf] max errors in glTF space: position %.2g m, normal %.2g, uv %.2g, weight "
        "%.2g, shape delta %.2g m, world bind %.2g, animation %.2g\n",
        fig.max_pos, fig.max_normal, fig.max_uv, fig.max_weight, fig.max_delta, fig.max_bind,
        fig.max_anim);
    std::printf(
        "[model-gltf] round trips: %zu DMX written (%zu model validator errors); glTF -> DMX -> "
        "glTF byte-identical for %zu of %zu; OBJ: %zu polygons; %zu extra vertex fields\n",
        fig.dmx_written, fig.dmx_validator_errors, fig.stable_bytes, fig.models, fig.obj_polygons,
        fig.extra_fields);
    test::validate_gltf_files(written, "model-gltf");
}

}  // namespace

namespace {

// The checks above can fail: a changed position, normal, UV, weight, shape delta, bind pose or
// animation key in the model the file is compared with is reported, by the read-back check and by
// the content comparison.
TEST(ModelGltfCorpus, ChecksSeeEveryKindOfChange) {
    LK_REQUIRE_CORPUS();
    std::string why;
    auto shapes = load(test::corpus_model_path("themicyshadow-models__rio_Futaba.dmx"), why);
    ASSERT_TRUE(shapes) << why;
    std::optional<Input> anim;
    for (auto& f : test::model_corpus()) {
        auto in = load(f.path, why);
        if (in && !in->model.clips.empty() && !in->model.clips[0].tracks.empty() &&
            !in->model.clips[0].tracks[0].rotation.empty()) {
            anim = std::move(in);
            break;
        }
    }
    ASSERT_TRUE(anim);
    using Change = std::function<void(Model&)>;
    const std::vector<std::pair<std::string, Change>> model_changes = {
        {"position", [](Model& m) { m.meshes[0].positions.values[0].x += 0.01f; }},
        {"normal", [](Model& m) { m.meshes[0].normals.values[0].x += 0.05f; }},
        {"uv", [](Model& m) { m.meshes[0].texcoords[0].values[0].y += 0.001f; }},
        {"weight",
         [](Model& m) {
             Skin& s = m.meshes[0].skin;
             s.joints[0] = s.joints[0] == 1 ? 2 : 1;
             s.weights[0] = 1;
         }},
        {"shape", [](Model& m) { m.meshes[0].shapes[0].positions.values[0].z += 0.01f; }},
        {"bind", [](Model& m) { m.nodes[2].bind.translation.y += 0.01f; }},
    };
    Figures fig;
    Diagnostics w;
    const auto glb = convert::model_to_gltf(shapes->model, {}, w);
    ASSERT_TRUE(glb);
    ASSERT_FALSE(check_readback(shapes->model, glb->glb, fig));
    auto back = convert::gltf_to_model(glb->glb, {}, w);
    ASSERT_TRUE(back);
    ASSERT_FALSE(same_content(shapes->model, *back));
    for (const auto& [what, change] : model_changes) {
        Model changed = shapes->model;
        change(changed);
        EXPECT_TRUE(check_readback(changed, glb->glb, fig)) << what;
        EXPECT_TRUE(same_content(changed, *back)) << what;
    }
    const auto aglb = convert::model_to_gltf(anim->model, {}, w);
    ASSERT_TRUE(aglb);
    ASSERT_FALSE(check_readback(anim->model, aglb->glb, fig));
    auto aback = convert::gltf_to_model(aglb->glb, {}, w);
    ASSERT_TRUE(aback);
    Model changed = anim->model;
    Quat& q = changed.clips[0].tracks[0].rotation.values.back();
    q = multiply(q, from_euler_xyz({0.01f, 0, 0}));
    EXPECT_TRUE(check_readback(changed, aglb->glb, fig)) << "animation";
    EXPECT_TRUE(same_content(changed, *aback)) << "animation";
}

}  // namespace

namespace {

// What the corpus lacks: a clip animating a flex controller (morph weight channels) and vertices
// with more than 4 influences or none. Made from the hand-written skinned triangle; the written
// file must pass the validator, read back equal, and carry the controller's values as weights.
TEST(ModelGltfCorpus, FlexAnimationAndInfluenceReduction) {
    auto text = read_file(test::source_dir() / "fuzz" / "seeds" / "fuzz_gltf_model" /
                          "generic_skinned.gltf");
    ASSERT_TRUE(text);
    Diagnostics w;
    auto base = convert::gltf_to_model(*text, {}, w);
    ASSERT_TRUE(base) << base.error().message;
    Model m = *base;
    ASSERT_EQ(m.flex.controllers.size(), 1u);
    FlexTrack ft;
    ft.controller = 0;
    ft.value.times = {0, 1};
    ft.value.values = {0, 1};
    m.clips.at(0).flex_tracks.push_back(ft);
    // Point 0: six influences over every node but the model; point 2: none.
    Mesh& mesh = m.meshes.at(0);
    Skin s;
    s.influences = 6;
    s.joints.assign(3 * 6, 0);
    s.weights.assign(3 * 6, 0);
    const float w0[6] = {0.3f, 0.25f, 0.2f, 0.1f, 0.1f, 0.05f};
    for (int k = 0; k < 6; ++k) {
        s.joints[std::size_t(k)] = std::uint32_t(1 + k % 4);
        s.weights[std::size_t(k)] = w0[k];
    }
    s.joints[6] = 2;
    s.weights[6] = 1;
    mesh.skin = s;
    ASSERT_TRUE(check(m).empty());

    auto files = convert::model_to_gltf(m, {}, w);
    ASSERT_TRUE(files);
    EXPECT_EQ(files->report.influences_reduced, 0u);  // joints repeat: 4 distinct after merging
    EXPECT_EQ(files->report.unweighted_vertices, 1u);
    Figures fig;
    EXPECT_FALSE(check_readback(m, files->glb, fig));
    auto back = convert::gltf_to_model(files->glb, {}, w);
    ASSERT_TRUE(back);
    EXPECT_FALSE(same_content(m, *back));
    ASSERT_EQ(back->clips.at(0).flex_tracks.size(), 1u);
    EXPECT_EQ(back->clips[0].flex_tracks[0].value.values, ft.value.values);

    // Morph weights: the raw control "Raise" follows the controller, frame k at k / 30.
    tinygltf::Model g;
    tinygltf::TinyGLTF loader;
    std::string err, warn;
    ASSERT_TRUE(loader.LoadBinaryFromMemory(
        &g, &err, &warn, reinterpret_cast<const unsigned char*>(files->glb.data()),
        static_cast<unsigned int>(files->glb.size())));
    const tinygltf::AnimationChannel* weights = nullptr;
    for (const auto& ch : g.animations.at(0).channels)
        if (ch.target_path == "weights") weights = &ch;
    ASSERT_NE(weights, nullptr);
    EXPECT_GE(g.nodes.at(std::size_t(weights->target_node)).mesh, 0);
    const auto out = elements(g, g.animations[0].samplers.at(std::size_t(weights->sampler)).output);
    ASSERT_EQ(out.size(), m.clips[0].frame_count());
    for (std::size_t k = 0; k < out.size(); ++k) EXPECT_NEAR(out[k][0], k / 30.0, 1e-6);

    // More than 4 distinct joints: the heaviest 4, renormalised, reported.
    for (int k = 0; k < 6; ++k) s.joints[std::size_t(k)] = std::uint32_t(k % 2 ? 2 : 3);
    s.joints[0] = 1;
    s.joints[1] = 4;
    s.joints[2] = 2;
    s.joints[3] = 3;
    s.joints[4] = 0;
    s.joints[5] = 1;
    mesh.skin = s;
    auto reduced = convert::model_to_gltf(m, {}, w);
    ASSERT_TRUE(reduced);
    EXPECT_EQ(reduced->report.influences_reduced, 1u);
    EXPECT_FALSE(check_readback(m, reduced->glb, fig));

    const fs::path dir = fs::path("model_gltf_corpus");
    fs::create_directories(dir);
    ASSERT_TRUE(write_file_atomic(dir / "synthetic_flex.glb", files->glb));
    ASSERT_TRUE(write_file_atomic(dir / "synthetic_reduced.glb", reduced->glb));
    test::validate_gltf_files({dir / "synthetic_flex.glb", dir / "synthetic_reduced.glb"},
                              "model-gltf synthetic");
}

}  // namespace

namespace {

// Files other tools wrote: the hand-written triangle, plus every .gltf/.glb in the folder
// $LEVELKIT_GLTF_SAMPLES when set (e.g. Khronos sample models, Blender exports; not in the repo).
// glTF -> model A; A -> .glb -> model equals A; A -> DMX (binary 5 / model 18) passes the model
// validator and reads back equal to A; the .glb passes the validator.
TEST(ModelGltfCorpus, OtherToolsFilesToDmxAndBack) {
    std::vector<fs::path> files = {test::source_dir() / "fuzz" / "seeds" / "fuzz_gltf_model" /
                                   "generic_skinned.gltf"};
    if (const char* env = std::getenv("LEVELKIT_GLTF_SAMPLES"); env && *env) {
        for (const auto& e : fs::recursive_directory_iterator(env)) {
            const std::string ext = e.path().extension().string();
            if (e.is_regular_file() && (ext == ".gltf" || ext == ".glb")) files.push_back(e.path());
        }
    }
    const fs::path dir = fs::path("model_gltf_corpus") / "other_tools";
    fs::create_directories(dir);
    std::vector<fs::path> written;
    std::size_t same = 0;
    for (const fs::path& p : files) {
        SCOPED_TRACE(p.string());
        auto bytes = read_file(p);
        ASSERT_TRUE(bytes);
        convert::GltfModelOptions o;
        o.base_dir = p.parent_path().string();
        o.name = p.stem().string();
        Diagnostics w;
        auto a = convert::gltf_to_model(*bytes, o, w);
        if (!a) {
            ADD_FAILURE() << a.error().message;
            continue;
        }
        auto glb = convert::model_to_gltf(*a, {}, w);
        ASSERT_TRUE(glb);
        written.push_back(dir / (p.stem().string() + ".glb"));
        ASSERT_TRUE(write_file_atomic(written.back(), glb->glb));
        auto b = convert::gltf_to_model(glb->glb, {}, w);
        ASSERT_TRUE(b);
        const auto d1 = same_content(*a, *b);
        EXPECT_FALSE(d1) << "glTF -> model -> glTF -> model: " << *d1;
        auto doc = convert::model_to_dmx(*a, dmxmodel::Target::source1(), w);
        ASSERT_TRUE(doc) << doc.error().message;
        auto data = dmx::write(*doc);
        ASSERT_TRUE(data);
        auto doc2 = dmx::read(*data);
        ASSERT_TRUE(doc2);
        Diagnostics vw, vd;
        auto view = dmxmodel::open(*doc2, vw);
        ASSERT_TRUE(view);
        dmxmodel::validate(*view, vd);
        for (const Diagnostic& d : vd.items())
            EXPECT_NE(d.severity, Severity::error) << d.message << " [" << d.path << "]";
        auto c = convert::dmx_to_model(*doc2, w);
        ASSERT_TRUE(c);
        const auto d2 = same_content(as_dmx_reads_it(*a), *c);
        EXPECT_FALSE(d2) << "glTF -> model -> DMX -> model: " << *d2;
        same += !d1 && !d2;
    }
    std::printf("[model-gltf other tools] %zu files, %zu keep their content through glTF and DMX\n",
                files.size(), same);
    test::validate_gltf_files(written, "model-gltf other tools");
}

}  // namespace
