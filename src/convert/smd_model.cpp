#include "levelkit/convert/smd_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace lk::convert {

namespace {

using model::Vec2f;
using model::Vec3f;

Vec3f f3(const smd::Vec3& v) {
    return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}
smd::Vec3 d3(const Vec3f& v) {
    return {v.x, v.y, v.z};
}

bool zero(const smd::BonePose& b) {
    const double eps = 1e-6;
    return std::abs(b.position.x) <= eps && std::abs(b.position.y) <= eps &&
           std::abs(b.position.z) <= eps && std::abs(b.rotation.x) <= eps &&
           std::abs(b.rotation.y) <= eps && std::abs(b.rotation.z) <= eps;
}

model::Transform pose_of(const smd::BonePose& b) {
    model::Transform t;
    t.translation = f3(b.position);
    t.rotation = model::from_euler_xyz(f3(b.rotation));
    return t;
}

std::string sanitize(std::string_view name) {
    std::string out(name);
    for (char& c : out) {
        if (std::strchr("/?<>\\:*|\"", c) && c != '\0') c = '_';
    }
    return out;
}

struct Hash {
    std::size_t operator()(const std::vector<double>& k) const noexcept {
        std::uint64_t h = 1469598103934665603ull;
        for (double d : k) {
            std::uint64_t u;
            std::memcpy(&u, &d, sizeof u);
            h = (h ^ u) * 1099511628211ull;
        }
        return h;
    }
};

}  // namespace

// --- SMD -> model --------------------------------------------------------------------------

Result<void> add_smd_animation(model::Model& m, const smd::File& anim, std::string_view clip_name,
                               double frame_rate, Diagnostics& w) {
    if (anim.skeleton.empty()) {
        return Diagnostic::error("convert.smd-no-frames", "the SMD has no skeleton frames");
    }
    if (!(frame_rate > 0)) frame_rate = 30;
    model::Clip clip;
    clip.name = std::string(clip_name);
    clip.frame_rate = frame_rate;
    // SMD bone id -> node.
    std::vector<std::int32_t> node_of(anim.nodes.size(), -1);
    for (std::size_t i = 0; i < anim.nodes.size(); ++i) {
        const std::string& name = anim.nodes[i].name;
        std::int32_t n = m.find_node(name);
        if (n < 0 && m.root_bone && name == m.name()) n = 0;
        if (n < 0 && i == 0 && (name == "blender_implicit" || name == "root")) n = 0;
        node_of[i] = n;
        if (n < 0) {
            w.add(Diagnostic::warning("convert.smd-bone",
                                      fmt::format("bone '{}' is not in the model; its frames are "
                                                  "left out",
                                                  name))
                      .with_path(fmt::format("nodes[{}]", i)));
        }
    }
    std::vector<std::int32_t> track_of(m.nodes.size(), -1);
    const std::int32_t t0 = anim.skeleton.front().time;
    std::int32_t last = t0;
    for (const smd::Frame& f : anim.skeleton) {
        const double t = (static_cast<double>(f.time) - t0) / frame_rate;
        last = std::max(last, f.time);
        for (const smd::BonePose& b : f.bones) {
            const std::int32_t bi = anim.node_index(b.bone);
            if (bi < 0 || node_of[static_cast<std::size_t>(bi)] < 0) continue;
            const auto node = static_cast<std::size_t>(node_of[static_cast<std::size_t>(bi)]);
            if (track_of[node] < 0) {
                track_of[node] = static_cast<std::int32_t>(clip.tracks.size());
                model::NodeTrack tr;
                tr.node = static_cast<std::uint32_t>(node);
                clip.tracks.push_back(std::move(tr));
            }
            model::NodeTrack& tr = clip.tracks[static_cast<std::size_t>(track_of[node])];
            const model::Transform p = pose_of(b);
            if (!tr.translation.times.empty() && tr.translation.times.back() >= t) continue;
            tr.translation.times.push_back(t);
            tr.translation.values.push_back(p.translation);
            tr.rotation.times.push_back(t);
            tr.rotation.values.push_back(p.rotation);
        }
    }
    // The model's own bone (an implicit root) stays out when it never leaves the model's pose.
    for (std::size_t i = 0; i < clip.tracks.size(); ++i) {
        const model::NodeTrack& tr = clip.tracks[i];
        if (tr.node != 0) continue;
        bool still = true;
        for (std::size_t k = 0; k < tr.translation.values.size() && still; ++k) {
            still = tr.translation.values[k] == m.nodes[0].pose.translation &&
                    model::angle_between(tr.rotation.values[k], m.nodes[0].pose.rotation) == 0;
        }
        if (still) clip.tracks.erase(clip.tracks.begin() + static_cast<std::ptrdiff_t>(i));
        break;
    }
    clip.duration = (static_cast<double>(last) - t0) / frame_rate;
    m.clips.push_back(std::move(clip));
    return success();
}

Result<model::Model> smd_to_model(const smd::File& ref, const smd::File* vta, Diagnostics& w,
                                  const SmdToModelOptions& opt) {
    const auto& nodes = ref.nodes;
    // Bone 0 as the model's own bone: BST's implicit root (or its "root" for no armature).
    bool implicit = false;
    if (!nodes.empty() && nodes[0].parent == -1 &&
        (nodes[0].name == "blender_implicit" || nodes[0].name == "root")) {
        implicit = true;
        for (const smd::Node& n : nodes) implicit = implicit && n.parent != nodes[0].id;
        if (implicit && !ref.skeleton.empty()) {
            for (const smd::BonePose& b : ref.skeleton[0].bones) {
                if (b.bone == nodes[0].id && !zero(b)) implicit = false;
            }
        }
    }
    model::Model m = model::Model::with_root(implicit ? nodes[0].name : opt.name);
    m.root_bone = implicit;

    const smd::Frame* rest = ref.skeleton.empty() ? nullptr : &ref.skeleton[0];
    if (!rest && !nodes.empty()) {
        w.add(Diagnostic::warning("convert.smd-no-frames",
                                  "the SMD has no skeleton frame; bones are at identity"));
    }
    std::vector<const smd::BonePose*> pose_of_bone(nodes.size(), nullptr);
    if (rest) {
        for (const smd::BonePose& b : rest->bones) {
            const std::int32_t i = ref.node_index(b.bone);
            if (i >= 0) pose_of_bone[static_cast<std::size_t>(i)] = &b;
        }
    }

    // Bones in file order, a bone after its parent.
    std::vector<std::int32_t> node_of(nodes.size(), -1);
    if (implicit) node_of[0] = 0;
    std::vector<std::size_t> pending;
    for (std::size_t i = implicit ? 1 : 0; i < nodes.size(); ++i) pending.push_back(i);
    auto place = [&](std::size_t i, bool force) {
        const std::int32_t pid = nodes[i].parent;
        std::int32_t parent = 0;
        if (pid != -1) {
            const std::int32_t pi = ref.node_index(pid);
            if (pi >= 0 && node_of[static_cast<std::size_t>(pi)] < 0 && !force) return false;
            if (pi >= 0 && node_of[static_cast<std::size_t>(pi)] >= 0) {
                parent = node_of[static_cast<std::size_t>(pi)];
            } else {
                w.add(Diagnostic::warning("convert.smd-parent",
                                          fmt::format("parent {} of '{}' is not a bone before it; "
                                                      "the bone hangs off the model",
                                                      pid, nodes[i].name))
                          .with_path(fmt::format("nodes[{}]", i)));
            }
        }
        model::Node n;
        n.name = nodes[i].name;
        n.parent = parent;
        n.kind = model::NodeKind::joint;
        if (pose_of_bone[i]) {
            n.bind = n.pose = pose_of(*pose_of_bone[i]);
        } else if (rest) {
            w.add(Diagnostic::warning(
                      "convert.smd-rest",
                      fmt::format("bone '{}' has no pose at the first frame", nodes[i].name))
                      .with_path(fmt::format("nodes[{}]", i)));
        }
        node_of[i] = static_cast<std::int32_t>(m.nodes.size());
        m.nodes.push_back(std::move(n));
        return true;
    };
    for (bool progress = true; progress && !pending.empty();) {
        progress = false;
        std::vector<std::size_t> left;
        for (std::size_t i : pending) {
            if (place(i, false)) {
                progress = true;
            } else {
                left.push_back(i);
            }
        }
        pending.swap(left);
    }
    for (std::size_t i : pending) place(i, true);  // parent cycles
    auto bone_node = [&](std::int32_t id, bool& bad) -> std::uint32_t {
        const std::int32_t i = ref.node_index(id);
        if (i < 0) {
            bad = true;
            return 0;
        }
        return static_cast<std::uint32_t>(node_of[static_cast<std::size_t>(i)]);
    };

    if (!ref.triangles.empty()) {
        model::Node dag;
        dag.name = opt.name;
        dag.parent = 0;
        dag.kind = model::NodeKind::dag;
        const auto dag_index = static_cast<std::uint32_t>(m.nodes.size());
        m.nodes.push_back(std::move(dag));

        model::Mesh mesh;
        mesh.name = opt.name;
        mesh.node = dag_index;
        std::vector<std::uint32_t> material_of(ref.materials.size());
        for (std::size_t i = 0; i < ref.materials.size(); ++i) {
            material_of[i] = m.material(ref.materials[i]);
        }
        std::vector<std::int32_t> set_of(m.materials.size(), -1);
        std::unordered_map<std::vector<double>, std::uint32_t, Hash> points, normals, uvs;
        std::vector<std::vector<std::pair<std::uint32_t, float>>> links;  // per point
        std::vector<double> key;
        bool bad_bone = false;
        std::size_t max_links = 0;
        bool any_skin = false;
        for (const smd::Triangle& t : ref.triangles) {
            const std::uint32_t mat =
                t.material < material_of.size() ? material_of[t.material] : m.material("");
            if (set_of.size() < m.materials.size()) set_of.resize(m.materials.size(), -1);
            if (set_of[mat] < 0) {
                set_of[mat] = static_cast<std::int32_t>(mesh.face_sets.size());
                mesh.face_sets.push_back({mat, {}, {}});
            }
            model::FaceSet& fs = mesh.face_sets[static_cast<std::size_t>(set_of[mat])];
            for (const smd::Vertex& v : t.v) {
                std::vector<std::pair<std::uint32_t, float>> lk;
                if (v.link_count > 0) {
                    for (const smd::Link& l : ref.links_of(v)) {
                        lk.emplace_back(bone_node(l.bone, bad_bone), static_cast<float>(l.weight));
                    }
                } else {
                    lk.emplace_back(bone_node(v.parent, bad_bone), 1.0f);
                }
                if (!(lk.size() == 1 && lk[0].first == 0 && lk[0].second == 1.0f)) any_skin = true;
                max_links = std::max(max_links, lk.size());
                key.assign({v.position.x, v.position.y, v.position.z});
                for (const auto& [j, wgt] : lk) key.insert(key.end(), {double(j), double(wgt)});
                auto [pit, pnew] =
                    points.try_emplace(key, static_cast<std::uint32_t>(points.size()));
                if (pnew) {
                    mesh.positions.values.push_back(f3(v.position));
                    links.push_back(std::move(lk));
                }
                mesh.positions.indices.push_back(pit->second);
                key.assign({v.normal.x, v.normal.y, v.normal.z});
                auto [nit, nnew] =
                    normals.try_emplace(key, static_cast<std::uint32_t>(normals.size()));
                if (nnew) mesh.normals.values.push_back(f3(v.normal));
                mesh.normals.indices.push_back(nit->second);
                key.assign({v.u, v.v});
                auto [uit, unew] = uvs.try_emplace(key, static_cast<std::uint32_t>(uvs.size()));
                if (unew) {
                    if (mesh.texcoords.empty()) mesh.texcoords.resize(1);
                    mesh.texcoords[0].values.push_back(
                        {static_cast<float>(v.u), static_cast<float>(v.v)});
                }
                mesh.texcoords[0].indices.push_back(uit->second);
                fs.corners.push_back(static_cast<std::uint32_t>(mesh.positions.indices.size() - 1));
            }
            fs.sizes.push_back(3);
        }
        if (bad_bone) {
            w.add(Diagnostic::warning("convert.smd-bone",
                                      "vertices name bones that are not nodes; they are weighted "
                                      "to the model")
                      .with_path("triangles"));
        }
        if (any_skin) {
            mesh.skin.influences = static_cast<std::uint32_t>(max_links);
            for (const auto& lk : links) {
                for (std::size_t k = 0; k < max_links; ++k) {
                    mesh.skin.joints.push_back(k < lk.size() ? lk[k].first : 0);
                    mesh.skin.weights.push_back(k < lk.size() ? lk[k].second : 0.0f);
                }
            }
        }

        if (vta && !vta->vertex_animation.empty()) {
            const std::size_t corners = mesh.corner_count();
            const smd::FlexFrame* base = nullptr;
            for (const smd::FlexFrame& f : vta->vertex_animation) {
                if (f.time == 0) base = &f;
            }
            std::vector<const smd::FlexVertex*> base_of(corners, nullptr);
            if (base) {
                for (const smd::FlexVertex& v : base->vertices) {
                    if (static_cast<std::size_t>(v.index) < corners) base_of[v.index] = &v;
                }
            }
            std::size_t outside = 0;
            for (const smd::FlexFrame& f : vta->vertex_animation) {
                if (&f == base) continue;
                model::Shape s;
                for (const smd::Frame& sk : vta->skeleton) {
                    if (sk.time == f.time && !sk.comment.empty()) s.name = sk.comment;
                }
                if (s.name.empty()) s.name = fmt::format("flex_{}", f.time);
                std::vector<std::int32_t> pos_slot(mesh.positions.values.size(), -1);
                std::vector<std::int32_t> nrm_slot(mesh.normals.values.size(), -1);
                for (const smd::FlexVertex& v : f.vertices) {
                    if (static_cast<std::size_t>(v.index) >= corners) {
                        ++outside;
                        continue;
                    }
                    const auto c = static_cast<std::size_t>(v.index);
                    const std::uint32_t p = mesh.positions.indices[c];
                    const std::uint32_t n = mesh.normals.indices[c];
                    const Vec3f bp =
                        base_of[c] ? f3(base_of[c]->position) : mesh.positions.values[p];
                    const Vec3f bn = base_of[c] ? f3(base_of[c]->normal) : mesh.normals.values[n];
                    const Vec3f vp = f3(v.position), vn = f3(v.normal);
                    const Vec3f dp{vp.x - bp.x, vp.y - bp.y, vp.z - bp.z};
                    const Vec3f dn{vn.x - bn.x, vn.y - bn.y, vn.z - bn.z};
                    if (!(dp == Vec3f{}) && pos_slot[p] < 0) {
                        pos_slot[p] = static_cast<std::int32_t>(s.positions.indices.size());
                        s.positions.indices.push_back(p);
                        s.positions.values.push_back(dp);
                    }
                    if (!(dn == Vec3f{}) && nrm_slot[n] < 0) {
                        nrm_slot[n] = static_cast<std::int32_t>(s.normals.indices.size());
                        s.normals.indices.push_back(n);
                        s.normals.values.push_back(dn);
                    }
                }
                // Deltas in point order, as DMX writers store them.
                auto sort_sparse = [](auto& sp) {
                    std::vector<std::size_t> order(sp.indices.size());
                    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
                    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                        return sp.indices[a] < sp.indices[b];
                    });
                    auto idx = sp.indices;
                    auto val = sp.values;
                    for (std::size_t i = 0; i < order.size(); ++i) {
                        sp.indices[i] = idx[order[i]];
                        sp.values[i] = val[order[i]];
                    }
                };
                sort_sparse(s.positions);
                sort_sparse(s.normals);
                mesh.shapes.push_back(std::move(s));
            }
            if (outside) {
                w.add(Diagnostic::warning("convert.vta-vertex",
                                          fmt::format("{} VTA vertices are beyond the reference's "
                                                      "{} triangle vertices",
                                                      outside, corners))
                          .with_path("vertexanimation"));
            }
            // One controller per shape (BST's simple mode).
            for (const model::Shape& s : mesh.shapes) {
                model::FlexController c;
                c.name = s.name;
                c.raw_controls = {s.name};
                c.wrinkle_scales = {0.0f};
                m.flex.controllers.push_back(std::move(c));
            }
        }
        m.meshes.push_back(std::move(mesh));
    } else if (vta) {
        w.add(Diagnostic::warning("convert.vta-no-mesh",
                                  "the reference SMD has no triangles for the VTA's shapes"));
    }

    if (ref.skeleton.size() > 1) {
        LK_TRY(add_smd_animation(m, ref, opt.name, opt.frame_rate, w));
    }
    return m;
}

// --- model -> SMD --------------------------------------------------------------------------

namespace {

struct Bones {
    std::vector<std::int32_t> bone_of_node;  // -1: not a bone
    std::vector<std::uint32_t> node_of_bone;
    std::vector<std::int32_t> parent_bone;  // per bone
    bool root = false;
    std::vector<smd::Node> nodes;
    // Nearest bone at or above a node (the root bone, or -1 without one).
    std::int32_t bone_at_or_above(const model::Model& m, std::uint32_t node) const {
        for (std::int32_t n = static_cast<std::int32_t>(node); n >= 0;
             n = m.nodes[static_cast<std::size_t>(n)].parent) {
            if (bone_of_node[static_cast<std::size_t>(n)] >= 0) {
                return bone_of_node[static_cast<std::size_t>(n)];
            }
        }
        return -1;
    }
};

Bones make_bones(const model::Model& m) {
    Bones b;
    b.bone_of_node.assign(m.nodes.size(), -1);
    bool joints = false;
    for (const model::Node& n : m.nodes) joints = joints || n.kind == model::NodeKind::joint;
    bool need_root = m.root_bone || !joints;
    for (const model::Mesh& mesh : m.meshes) {
        for (std::size_t k = 0; k < mesh.skin.joints.size() && !need_root; ++k) {
            need_root = mesh.skin.weights[k] != 0 && !m.is_joint(mesh.skin.joints[k]) &&
                        mesh.skin.joints[k] == 0;
        }
        if (mesh.skin.influences == 0 && !need_root) {
            bool above = false;
            for (std::int32_t n = static_cast<std::int32_t>(mesh.node); n > 0;
                 n = m.nodes[static_cast<std::size_t>(n)].parent) {
                above =
                    above || m.nodes[static_cast<std::size_t>(n)].kind == model::NodeKind::joint;
            }
            need_root = !above;
        }
    }
    b.root = need_root;
    if (b.root) {
        b.bone_of_node[0] = 0;
        b.node_of_bone.push_back(0);
        b.parent_bone.push_back(-1);
        b.nodes.push_back({0, model::root_bone_name(m), -1});
    }
    for (std::size_t i = 1; i < m.nodes.size(); ++i) {
        if (m.nodes[i].kind != model::NodeKind::joint) continue;
        const auto id = static_cast<std::int32_t>(b.node_of_bone.size());
        b.bone_of_node[i] = id;
        std::int32_t parent = -1;
        for (std::int32_t n = m.nodes[i].parent; n > 0;
             n = m.nodes[static_cast<std::size_t>(n)].parent) {
            if (b.bone_of_node[static_cast<std::size_t>(n)] >= 0) {
                parent = b.bone_of_node[static_cast<std::size_t>(n)];
                break;
            }
        }
        b.node_of_bone.push_back(static_cast<std::uint32_t>(i));
        b.parent_bone.push_back(parent);
        b.nodes.push_back({id, m.nodes[i].name, parent});
    }
    return b;
}

// Bone-local transforms from node-local ones. A bone whose parent node is its parent bone (or a
// top-level bone under an untransformed model) keeps its transform exactly; others go through
// model space.
std::vector<model::Transform> bone_locals(const model::Model& m, const Bones& b,
                                          const std::vector<model::Transform>& local) {
    std::vector<model::Affine> world(m.nodes.size());
    std::vector<bool> have(m.nodes.size(), false);
    auto world_of = [&](std::uint32_t n, auto& self) -> const model::Affine& {
        if (!have[n]) {
            const model::Affine l = model::Affine::from(local[n]);
            const std::int32_t p = m.nodes[n].parent;
            world[n] = p >= 0 ? self(static_cast<std::uint32_t>(p), self) * l : l;
            have[n] = true;
        }
        return world[n];
    };
    const bool model_identity = local[0] == model::Transform{};
    std::vector<model::Transform> out(b.node_of_bone.size());
    for (std::size_t bi = 0; bi < b.node_of_bone.size(); ++bi) {
        const std::uint32_t node = b.node_of_bone[bi];
        const std::int32_t pb = b.parent_bone[bi];
        if (node == 0) {
            out[bi] = local[0];
            continue;
        }
        const std::int32_t parent = m.nodes[node].parent;
        const bool direct = pb >= 0 ? b.node_of_bone[static_cast<std::size_t>(pb)] ==
                                          static_cast<std::uint32_t>(parent)
                                    : (parent == 0 && model_identity);
        if (direct) {
            out[bi] = local[node];
            continue;
        }
        const model::Affine& wn = world_of(node, world_of);
        if (pb < 0) {
            out[bi] = model::decompose(wn);
        } else {
            const model::Affine& wp =
                world_of(b.node_of_bone[static_cast<std::size_t>(pb)], world_of);
            out[bi] = model::decompose(wp.inverse() * wn);
        }
    }
    return out;
}

smd::Frame frame_of(const std::vector<model::Transform>& bone_local, std::int32_t time) {
    smd::Frame f;
    f.time = time;
    f.bones.reserve(bone_local.size());
    for (std::size_t i = 0; i < bone_local.size(); ++i) {
        smd::BonePose p;
        p.bone = static_cast<std::int32_t>(i);
        p.position = d3(bone_local[i].translation);
        p.rotation = d3(model::to_euler_xyz(bone_local[i].rotation));
        f.bones.push_back(p);
    }
    return f;
}

// The inverse transpose of a transform's linear part, for normals.
model::Affine normal_matrix(const model::Affine& a) {
    const model::Affine inv = a.inverse();
    model::Affine n;
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) n.m[r][c] = inv.m[c][r];
    }
    return n;
}

// A normal through `n` (normal_matrix), keeping its length.
Vec3f transform_normal(const model::Affine& n, const Vec3f& v) {
    const Vec3f t = n.vector(v);
    const double in = std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z);
    const double out = std::sqrt(double(t.x) * t.x + double(t.y) * t.y + double(t.z) * t.z);
    if (out == 0) return v;
    const double s = in / out;
    return {static_cast<float>(t.x * s), static_cast<float>(t.y * s), static_cast<float>(t.z * s)};
}

// One triangle vertex line per flattened triangle corner, in writing order.
struct Written {
    std::uint32_t mesh = 0;
    std::uint32_t corner = 0;
};

void write_triangles(const model::Model& m, const Bones& b, smd::File& f,
                     std::vector<Written>* order, model::QuadSplit split) {
    const std::vector<model::Affine> world = model::world_bind(m);
    f.has_triangles = true;
    for (std::size_t mi = 0; mi < m.meshes.size(); ++mi) {
        const model::Mesh& mesh = m.meshes[mi];
        const model::Affine& xf = world[mesh.node];
        const model::Affine nx = normal_matrix(xf);
        const model::Flattened flat = model::flatten(mesh, split);
        const std::int32_t rigid = b.bone_at_or_above(m, mesh.node);
        for (const model::Flattened::Part& part : flat.parts) {
            const std::uint32_t mat = f.material(m.materials[part.material].name);
            for (std::size_t t = 0; t + 2 < part.triangles.size(); t += 3) {
                smd::Triangle tri;
                tri.material = mat;
                for (int k = 0; k < 3; ++k) {
                    const std::uint32_t c = flat.corner[part.triangles[t + k]];
                    smd::Vertex& v = tri.v[k];
                    const std::uint32_t p = mesh.positions.indices[c];
                    v.position = d3(xf.point(mesh.positions.values[p]));
                    if (mesh.normals.present())
                        v.normal = d3(transform_normal(nx, mesh.normals.at(c)));
                    if (!mesh.texcoords.empty() && mesh.texcoords[0].present()) {
                        const Vec2f uv = mesh.texcoords[0].at(c);
                        v.u = uv.x;
                        v.v = uv.y;
                    }
                    v.parent = 0;
                    v.has_links = true;
                    v.first_link = static_cast<std::uint32_t>(f.links.size());
                    if (mesh.skin.influences > 0) {
                        for (std::uint32_t s = 0; s < mesh.skin.influences; ++s) {
                            const std::size_t slot = std::size_t{p} * mesh.skin.influences + s;
                            const float wgt = mesh.skin.weights[slot];
                            if (!(wgt > 0)) continue;
                            std::int32_t bone = b.bone_at_or_above(m, mesh.skin.joints[slot]);
                            if (bone < 0) bone = 0;
                            f.links.push_back({bone, wgt});
                        }
                    } else if (rigid >= 0 && !(b.root && rigid == 0)) {
                        f.links.push_back({rigid, 1.0});
                    }
                    v.link_count = static_cast<std::uint32_t>(f.links.size()) - v.first_link;
                    // Wholly on bone 0, the parent column says it all (what BST writes).
                    if (v.link_count == 1 && f.links.back().bone == 0 &&
                        f.links.back().weight == 1.0) {
                        f.links.pop_back();
                        v.link_count = 0;
                    }
                    if (order) order->push_back({static_cast<std::uint32_t>(mi), c});
                }
                f.triangles.push_back(tri);
            }
        }
    }
}

}  // namespace

smd::File reference_smd(const model::Model& m, model::QuadSplit split) {
    smd::File f;
    const Bones b = make_bones(m);
    f.nodes = b.nodes;
    std::vector<model::Transform> local(m.nodes.size());
    for (std::size_t i = 0; i < m.nodes.size(); ++i) local[i] = m.nodes[i].bind;
    f.skeleton.push_back(frame_of(bone_locals(m, b, local), 0));
    if (!m.meshes.empty()) write_triangles(m, b, f, nullptr, split);
    return f;
}

smd::File vta_smd(const model::Model& m, model::QuadSplit split) {
    smd::File ref;
    const Bones b = make_bones(m);
    std::vector<Written> order;
    write_triangles(m, b, ref, &order, split);
    const std::vector<model::Affine> world = model::world_bind(m);

    smd::File f;
    f.nodes = b.nodes;
    f.has_vertex_animation = true;
    // Shape names across meshes, first use first; each is one time.
    std::vector<std::string> names;
    for (const model::Mesh& mesh : m.meshes) {
        for (const model::Shape& s : mesh.shapes) {
            if (std::find(names.begin(), names.end(), s.name) == names.end()) {
                names.push_back(s.name);
            }
        }
    }
    f.skeleton.push_back({0, {}, {}});
    for (std::size_t i = 0; i < names.size(); ++i) {
        f.skeleton.push_back({static_cast<std::int32_t>(i + 1), {}, names[i]});
    }
    smd::FlexFrame base;
    base.time = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const smd::Vertex& v = ref.triangles[i / 3].v[i % 3];
        base.vertices.push_back({static_cast<std::int32_t>(i), v.position, v.normal});
    }
    f.vertex_animation.push_back(std::move(base));
    for (std::size_t si = 0; si < names.size(); ++si) {
        smd::FlexFrame frame;
        frame.time = static_cast<std::int32_t>(si + 1);
        // Dense deltas of this shape per mesh.
        std::vector<std::vector<Vec3f>> dp(m.meshes.size()), dn(m.meshes.size());
        std::vector<bool> has(m.meshes.size(), false);
        for (std::size_t mi = 0; mi < m.meshes.size(); ++mi) {
            const model::Mesh& mesh = m.meshes[mi];
            for (const model::Shape& s : mesh.shapes) {
                if (s.name != names[si]) continue;
                has[mi] = true;
                dp[mi].assign(mesh.positions.values.size(), Vec3f{});
                dn[mi].assign(mesh.normals.values.size(), Vec3f{});
                for (std::size_t k = 0; k < s.positions.indices.size(); ++k) {
                    dp[mi][s.positions.indices[k]] = s.positions.values[k];
                }
                for (std::size_t k = 0; k < s.normals.indices.size(); ++k) {
                    dn[mi][s.normals.indices[k]] = s.normals.values[k];
                }
                break;
            }
        }
        for (std::size_t i = 0; i < order.size(); ++i) {
            const Written& o = order[i];
            if (!has[o.mesh]) continue;
            const model::Mesh& mesh = m.meshes[o.mesh];
            const std::uint32_t p = mesh.positions.indices[o.corner];
            const Vec3f d = dp[o.mesh][p];
            Vec3f nd{};
            if (mesh.normals.present()) nd = dn[o.mesh][mesh.normals.indices[o.corner]];
            if (d == Vec3f{} && nd == Vec3f{}) continue;
            const model::Affine& xf = world[mesh.node];
            const model::Affine nx = normal_matrix(xf);
            const Vec3f bp = mesh.positions.values[p];
            smd::FlexVertex v;
            v.index = static_cast<std::int32_t>(i);
            v.position = d3(xf.point({bp.x + d.x, bp.y + d.y, bp.z + d.z}));
            if (mesh.normals.present()) {
                const Vec3f bn = mesh.normals.at(o.corner);
                v.normal = d3(transform_normal(nx, {bn.x + nd.x, bn.y + nd.y, bn.z + nd.z}));
            }
            frame.vertices.push_back(v);
        }
        f.vertex_animation.push_back(std::move(frame));
    }
    return f;
}

smd::File animation_smd(const model::Model& m, const model::Clip& clip) {
    smd::File f;
    const Bones b = make_bones(m);
    f.nodes = b.nodes;
    std::vector<const model::NodeTrack*> track(m.nodes.size(), nullptr);
    for (const model::NodeTrack& t : clip.tracks) {
        if (t.node < track.size()) track[t.node] = &t;
    }
    const std::uint32_t frames = clip.frame_count();
    f.skeleton.reserve(frames);
    std::vector<model::Transform> local(m.nodes.size());
    for (std::uint32_t k = 0; k < frames; ++k) {
        const double t = k / clip.frame_rate;
        for (std::size_t i = 0; i < m.nodes.size(); ++i) {
            local[i] = model::sample(track[i], m.nodes[i].pose, t);
        }
        f.skeleton.push_back(frame_of(bone_locals(m, b, local), static_cast<std::int32_t>(k)));
    }
    return f;
}

Result<std::vector<SmdOutput>> model_to_smd(const model::Model& m, Diagnostics& w,
                                            const ModelToSmdOptions& opt) {
    if (auto problems = model::check(m, 1); !problems.empty()) {
        return Diagnostic::error("convert.bad-model", problems[0]);
    }
    std::vector<SmdOutput> out;
    const std::string base = sanitize(opt.base_name.empty() ? m.name() : opt.base_name);
    std::size_t bones = 0;
    for (const model::Node& n : m.nodes) bones += n.kind == model::NodeKind::joint;
    if (bones > 128) {
        w.add(Diagnostic::warning(
            "convert.smd-bones",
            fmt::format("{} bones; studiomdl takes at most 128 from an SMD", bones)));
    }
    if (!m.meshes.empty() || m.clips.empty()) {
        out.push_back({base + ".smd", reference_smd(m, opt.quad_split)});
    }
    bool shapes = false;
    for (const model::Mesh& mesh : m.meshes) shapes = shapes || !mesh.shapes.empty();
    if (shapes && opt.vta) out.push_back({base + ".vta", vta_smd(m, opt.quad_split)});
    for (const model::Clip& c : m.clips) {
        // Every frame holds every bone (sampled from every node).
        if (auto too_long = model::dense_sampling_limit(c, m.nodes.size(), opt.max_node_frames)) {
            return std::move(*too_long);
        }
        std::string dir = opt.anim_dir;
        if (!dir.empty() && dir.back() != '/') dir += '/';
        out.push_back({dir + sanitize(c.name) + ".smd", animation_smd(m, c)});
    }
    return out;
}

}  // namespace lk::convert
