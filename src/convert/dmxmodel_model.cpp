#include "levelkit/convert/dmxmodel_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace lk::convert {

namespace {

using dmx::ElementRef;
using dmxmodel::Field;
using dmxmodel::Semantic;
using model::Vec2f;
using model::Vec3f;
using model::Vec4f;

Vec3f v3(const dmx::Vector3& v) {
    return {v.x, v.y, v.z};
}
model::Quat quat(const dmx::Quaternion& q) {
    return {q.x, q.y, q.z, q.w};
}
dmx::Vector3 dv3(const Vec3f& v) {
    return {v.x, v.y, v.z};
}
dmx::Quaternion dquat(const model::Quat& q) {
    return {q.x, q.y, q.z, q.w};
}

model::Transform read_transform(const dmx::Document& doc, ElementRef t) {
    model::Transform out;
    const dmx::Element* e = doc.get(t);
    if (!e || e->external()) return out;
    if (auto p = e->get_as<dmx::Vector3>("position")) out.translation = v3(*p);
    if (auto q = e->get_as<dmx::Quaternion>("orientation")) out.rotation = quat(*q);
    if (auto s = e->get_as<float>("scale")) out.scale = {*s, *s, *s};
    return out;
}

bool is_identity(const model::Transform& t) {
    return t.translation == Vec3f{} && t.rotation == model::Quat{} && t.scale == Vec3f{1, 1, 1};
}

class Reader {
public:
    Reader(const dmxmodel::Model& d, Diagnostics& w) : d_(d), doc_(d.doc()), w_(w) {}

    Result<model::Model> run();

private:
    void warn(std::string code, std::string message, std::string path) {
        w_.add(Diagnostic::warning(std::move(code), std::move(message)).with_path(std::move(path)));
    }
    void nodes();
    void mesh(const dmxmodel::Mesh& mesh, std::size_t index);
    void flex();
    void clips();

    // Corner indices of a field (clipped to the mesh's corner count); false when one is out of
    // range of `values` (the field is then left out).
    bool corner_indices(const Field& f, std::size_t corners, std::size_t values,
                        std::vector<std::uint32_t>& out, const std::string& path) {
        const auto idx = f.index_span();
        out.resize(corners);
        for (std::size_t c = 0; c < corners; ++c) {
            const std::int32_t x = c < idx.size() ? idx[c] : -1;
            if (x < 0 || static_cast<std::size_t>(x) >= values) {
                warn("convert.dmx-index",
                     fmt::format("index {} of '{}' is outside its {} values; the field is left "
                                 "out",
                                 x, f.name, values),
                     fmt::format("{}/{}Indices[{}]", path, f.name, c));
                out.clear();
                return false;
            }
            out[c] = static_cast<std::uint32_t>(x);
        }
        return true;
    }

    template <class T, class From, class Conv>
    bool indexed(const Field* f, std::size_t corners, model::Indexed<T>& out, Conv conv,
                 const std::string& path) {
        if (!f) return false;
        const auto values = f->as<From>();
        if (values.empty() && f->size() != 0) return false;
        if (!corner_indices(*f, corners, values.size(), out.indices, path)) return false;
        out.values.resize(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) out.values[i] = conv(values[i]);
        return true;
    }

    const dmxmodel::Model& d_;
    const dmx::Document& doc_;
    Diagnostics& w_;
    model::Model m_;
    std::vector<std::int32_t> map_;  // dmx node -> model node
};

void Reader::nodes() {
    const auto& dn = d_.nodes;
    map_.assign(dn.size(), 0);
    std::string root_name =
        dn.empty() ? (doc_.get(doc_.root) ? doc_[doc_.root].name : "") : std::string(dn[0].name);
    m_ = model::Model::with_root(std::move(root_name));
    if (dn.empty()) return;
    m_.nodes[0].pose = m_.nodes[0].bind = read_transform(doc_, dn[0].transform);

    // Blender Source Tools' Source 1 stand-in for the model's own bone.
    std::int32_t implicit = -1;
    if (!d_.model_is_joint0 && !d_.joints.empty()) {
        const std::int32_t j = d_.joints[0];
        if (j > 0) {
            const dmxmodel::Node& n = dn[static_cast<std::size_t>(j)];
            bool childless = true;
            for (const dmxmodel::Node& o : dn) childless = childless && o.parent != j;
            if (n.kind == dmxmodel::NodeKind::joint && n.parent == 0 && childless &&
                (n.name == "blender_implicit" || n.name == "root") &&
                is_identity(read_transform(doc_, n.transform))) {
                implicit = j;
            }
        }
    }
    m_.root_bone = d_.model_is_joint0 || implicit >= 0;

    std::vector<std::int32_t> bind_entry(dn.size(), -1);
    for (std::size_t i = 0; i < d_.bind_pose_nodes.size(); ++i) {
        const std::int32_t n = d_.bind_pose_nodes[i];
        if (n >= 0 && bind_entry[static_cast<std::size_t>(n)] < 0) {
            bind_entry[static_cast<std::size_t>(n)] = static_cast<std::int32_t>(i);
        }
    }
    const auto* bind_xf = d_.bind_pose.is_null()
                              ? nullptr
                              : doc_[d_.bind_pose].get<std::vector<ElementRef>>("transforms");

    // Node order: the joint index space first (so a written file's jointList comes back in the
    // same order), then the other dags depth-first; a node waits for its parent.
    std::vector<std::uint8_t> placed(dn.size(), 0);
    std::vector<std::size_t> order;
    order.reserve(dn.size());
    placed[0] = 1;
    auto place = [&](std::size_t i) {
        if (placed[i] || !placed[static_cast<std::size_t>(dn[i].parent)]) return false;
        placed[i] = 1;
        order.push_back(i);
        return true;
    };
    std::vector<std::size_t> waiting;
    for (std::int32_t j : d_.joints) {
        if (j > 0 && !place(static_cast<std::size_t>(j)))
            waiting.push_back(static_cast<std::size_t>(j));
    }
    for (bool progress = true; progress && !waiting.empty();) {
        progress = false;
        for (std::size_t& x : waiting) {
            if (x != SIZE_MAX && place(x)) {
                x = SIZE_MAX;
                progress = true;
            }
        }
    }
    for (std::size_t i = 1; i < dn.size(); ++i) {
        if (!placed[i]) {
            // Depth-first order places parents first, so this always succeeds.
            placed[i] = 1;
            order.push_back(i);
        }
    }

    for (std::size_t i : order) {
        if (static_cast<std::int32_t>(i) == implicit) {
            map_[i] = 0;
            continue;
        }
        model::Node n;
        n.name = std::string(dn[i].name);
        n.parent = map_[static_cast<std::size_t>(dn[i].parent)];
        n.kind =
            dn[i].kind == dmxmodel::NodeKind::joint ? model::NodeKind::joint : model::NodeKind::dag;
        n.pose = read_transform(doc_, dn[i].transform);
        n.bind = n.pose;
        if (bind_xf && bind_entry[i] >= 0 &&
            static_cast<std::size_t>(bind_entry[i]) < bind_xf->size()) {
            n.bind = read_transform(doc_, (*bind_xf)[static_cast<std::size_t>(bind_entry[i])]);
        }
        map_[i] = static_cast<std::int32_t>(m_.nodes.size());
        m_.nodes.push_back(std::move(n));
    }
    for (const dmxmodel::Attachment& a : d_.attachments) {
        auto node = static_cast<std::uint32_t>(map_[a.node]);
        if (node == 0) {
            // An attachment that is the shape of the DmeModel itself gets a dag of its own at
            // identity under the model, as model_to_dmx writes it (found by fuzz_dmxmodel).
            model::Node dag;
            dag.name = std::string(a.name);
            dag.parent = 0;
            dag.kind = model::NodeKind::dag;
            node = static_cast<std::uint32_t>(m_.nodes.size());
            m_.nodes.push_back(std::move(dag));
        }
        m_.attachments.push_back({std::string(a.name), node, a.rigid, a.world_aligned});
    }
}

void Reader::mesh(const dmxmodel::Mesh& dm, std::size_t index) {
    const std::string path = fmt::format("meshes[{}] '{}'", index, doc_[dm.element].name);
    const dmxmodel::VertexData& vd = dm.bind;
    const Field* pos = vd.find(Semantic::position);
    if (!pos || !pos->values || !pos->values->holds<std::vector<dmx::Vector3>>()) {
        warn("convert.dmx-mesh", "the mesh has no vector3 positions and is left out", path);
        return;
    }
    model::Mesh mesh;
    mesh.name = doc_[dm.element].name;
    mesh.node = static_cast<std::uint32_t>(map_[dm.node]);
    if (mesh.node == 0 || m_.nodes[mesh.node].kind == model::NodeKind::joint) {
        // A mesh that is the shape of the DmeModel itself or of a DmeJoint is given a dag of its
        // own at identity under it, as model_to_dmx writes every such mesh: the model read from
        // a file is the one its written file reads back as (found by fuzz_dmxmodel).
        model::Node dag;
        dag.name = mesh.name;
        dag.parent = static_cast<std::int32_t>(mesh.node);
        dag.kind = model::NodeKind::dag;
        mesh.node = static_cast<std::uint32_t>(m_.nodes.size());
        m_.nodes.push_back(std::move(dag));
    }
    const std::size_t corners = vd.corner_count;
    for (const Field& f : vd.fields) {
        if (f.indices && f.indices->size() > corners) {
            warn("convert.dmx-corners",
                 fmt::format("'{}Indices' is longer than the shortest index array ({}); the rest "
                             "is ignored",
                             f.name, corners),
                 path);
        }
    }
    auto same3 = [](const dmx::Vector3& v) { return v3(v); };
    if (!indexed<Vec3f, dmx::Vector3>(pos, corners, mesh.positions, same3, path)) {
        warn("convert.dmx-mesh", "the positions are unusable; the mesh is left out", path);
        return;
    }
    indexed<Vec3f, dmx::Vector3>(vd.find(Semantic::normal), corners, mesh.normals, same3, path);
    if (const Field* t = vd.find(Semantic::tangent)) {
        if (!indexed<Vec4f, dmx::Vector4>(
                t, corners, mesh.tangents,
                [](const dmx::Vector4& v) {
                    return Vec4f{v.x, v.y, v.z, v.w};
                },
                path)) {
            indexed<Vec4f, dmx::Vector3>(
                t, corners, mesh.tangents,
                [](const dmx::Vector3& v) {
                    return Vec4f{v.x, v.y, v.z, 1};
                },
                path);
        }
    }
    const bool flip = !vd.flip_v;  // stored top-down: make v point up
    auto uv = [flip](const dmx::Vector2& v) { return Vec2f{v.x, flip ? 1 - v.y : v.y}; };
    auto scalar = [](float x) { return x; };
    for (const Field& f : vd.fields) {
        switch (f.id.semantic) {
            case Semantic::texcoord: {
                const auto set = static_cast<std::size_t>(f.id.set);
                if (mesh.texcoords.size() <= set) mesh.texcoords.resize(set + 1);
                indexed<Vec2f, dmx::Vector2>(&f, corners, mesh.texcoords[set], uv, path);
                break;
            }
            case Semantic::color: {
                const auto set = static_cast<std::size_t>(f.id.set);
                if (mesh.colors.size() <= set) mesh.colors.resize(set + 1);
                auto& c = mesh.colors[set];
                if (!indexed<Vec4f, dmx::Color>(
                        &f, corners, c,
                        [](const dmx::Color& x) {
                            return Vec4f{x.r / 255.0f, x.g / 255.0f, x.b / 255.0f, x.a / 255.0f};
                        },
                        path)) {
                    indexed<Vec4f, dmx::Vector4>(
                        &f, corners, c,
                        [](const dmx::Vector4& x) {
                            return Vec4f{x.x, x.y, x.z, x.w};
                        },
                        path);
                }
                break;
            }
            case Semantic::balance:
                indexed<float, float>(&f, corners, mesh.balance, scalar, path);
                break;
            case Semantic::speed:
                indexed<float, float>(&f, corners, mesh.speed, scalar, path);
                break;
            case Semantic::wrinkle:
                indexed<float, float>(&f, corners, mesh.wrinkle, scalar, path);
                break;
            case Semantic::other:
            case Semantic::weight: {
                model::ExtraField e;
                e.name = std::string(f.name);
                const dmx::Value& v = *f.values;
                std::size_t count = 0;
                if (const auto* a = v.get_if<std::vector<float>>()) {
                    e.values = *a;
                    count = a->size();
                } else if (const auto* a2 = v.get_if<std::vector<dmx::Vector2>>()) {
                    e.components = 2;
                    for (const auto& x : *a2) e.values.insert(e.values.end(), {x.x, x.y});
                    count = a2->size();
                } else if (const auto* a3 = v.get_if<std::vector<dmx::Vector3>>()) {
                    e.components = 3;
                    for (const auto& x : *a3) e.values.insert(e.values.end(), {x.x, x.y, x.z});
                    count = a3->size();
                } else if (const auto* a4 = v.get_if<std::vector<dmx::Vector4>>()) {
                    e.components = 4;
                    for (const auto& x : *a4) {
                        e.values.insert(e.values.end(), {x.x, x.y, x.z, x.w});
                    }
                    count = a4->size();
                } else if (const auto* ai = v.get_if<std::vector<std::int32_t>>()) {
                    e.kind = model::ExtraField::Kind::integer;
                    for (std::int32_t x : *ai) e.values.push_back(static_cast<float>(x));
                    count = ai->size();
                } else if (const auto* ac = v.get_if<std::vector<dmx::Color>>()) {
                    e.kind = model::ExtraField::Kind::color8;
                    e.components = 4;
                    for (const dmx::Color& x : *ac) {
                        e.values.insert(e.values.end(),
                                        {x.r / 255.0f, x.g / 255.0f, x.b / 255.0f, x.a / 255.0f});
                    }
                    count = ac->size();
                } else {
                    warn("convert.dmx-field",
                         fmt::format("field '{}' ({}) has no place in the model and is left out",
                                     f.name, dmx::type_name(v.type())),
                         path);
                    break;
                }
                if (corner_indices(f, corners, count, e.indices, path)) {
                    mesh.extra.push_back(std::move(e));
                }
                break;
            }
            default:
                break;
        }
    }

    // Sets that failed to read leave empty slots; trailing ones are dropped.
    while (!mesh.texcoords.empty() && !mesh.texcoords.back().present()) mesh.texcoords.pop_back();
    while (!mesh.colors.empty() && !mesh.colors.back().present()) mesh.colors.pop_back();

    // Skin: jointCount slots per position value.
    const std::size_t points = mesh.positions.values.size();
    const std::int32_t jc = vd.joint_count;
    const Field* wf = vd.find(Semantic::joint_weights);
    const Field* jf = vd.find(Semantic::joint_indices);
    if (jc > 0 && wf && jf) {
        const auto w = wf->as<float>();
        const auto j = jf->as<std::int32_t>();
        const std::size_t slots = points * static_cast<std::size_t>(jc);
        if (w.size() < slots || j.size() < slots) {
            warn("convert.dmx-skin",
                 fmt::format("{} weights / {} joint indices are too few for {} positions x {}; "
                             "the skin is left out",
                             w.size(), j.size(), points, jc),
                 path);
        } else {
            mesh.skin.influences = static_cast<std::uint32_t>(jc);
            mesh.skin.weights.assign(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(slots));
            mesh.skin.joints.resize(slots);
            bool warned = false;
            for (std::size_t k = 0; k < slots; ++k) {
                const std::int32_t x = j[k];
                std::int32_t node = -1;
                if (x >= 0 && static_cast<std::size_t>(x) < d_.joints.size()) {
                    node = d_.joints[static_cast<std::size_t>(x)];
                }
                if (node < 0) {
                    if (!warned && w[k] != 0) {
                        warned = true;
                        warn("convert.dmx-joint",
                             fmt::format("joint index {} names no dag; its weight goes to the "
                                         "model",
                                         x),
                             fmt::format("{}/{}[{}]", path, jf->name, k));
                    }
                    mesh.skin.joints[k] = 0;
                } else {
                    mesh.skin.joints[k] =
                        static_cast<std::uint32_t>(map_[static_cast<std::size_t>(node)]);
                }
            }
        }
    } else if (jc > 0) {
        warn("convert.dmx-skin", "jointCount is set but the weights or indices are missing", path);
    }

    // Face sets: -1 ends a polygon.
    for (std::size_t fi = 0; fi < dm.face_sets.size(); ++fi) {
        const dmxmodel::FaceSet& fs = dm.face_sets[fi];
        model::FaceSet out;
        out.material = m_.material(fs.material_name);
        std::uint32_t open = 0;
        bool bad = false;
        std::size_t dropped = 0;
        auto close = [&] {
            if (bad) {
                out.corners.resize(out.corners.size() - open);
                ++dropped;
            } else if (open > 0) {
                out.sizes.push_back(open);
            }
            open = 0;
            bad = false;
        };
        for (std::int32_t x : fs.face_span()) {
            if (x == -1) {
                close();
                continue;
            }
            if (x < 0 || static_cast<std::size_t>(x) >= corners) bad = true;
            out.corners.push_back(static_cast<std::uint32_t>(x));
            ++open;
        }
        close();
        if (dropped) {
            warn("convert.dmx-faces",
                 fmt::format("{} polygons with face-vertices out of range are left out", dropped),
                 fmt::format("{}/faceSets[{}]", path, fi));
        }
        mesh.face_sets.push_back(std::move(out));
    }

    // Delta states: sparse deltas against the base fields' values.
    for (const dmxmodel::Delta& dd : dm.deltas) {
        model::Shape s;
        s.name = std::string(dd.name);
        s.corrected = dd.corrected;
        const std::string dp = fmt::format("{}/deltaStates '{}'", path, dd.name);
        auto sparse = [&](const Field* f, std::size_t limit, auto& out, auto conv, auto tag) {
            using From = decltype(tag);
            if (!f) return;
            const auto values = f->as<From>();
            const auto idx = f->index_span();
            const std::size_t n = std::min(values.size(), idx.size());
            std::size_t bad = 0;
            for (std::size_t i = 0; i < n; ++i) {
                if (idx[i] < 0 || static_cast<std::size_t>(idx[i]) >= limit) {
                    ++bad;
                    continue;
                }
                out.indices.push_back(static_cast<std::uint32_t>(idx[i]));
                out.values.push_back(conv(values[i]));
            }
            if (bad || values.size() != idx.size()) {
                warn("convert.dmx-delta",
                     fmt::format("'{}': {} values, {} indices, {} out of range (left out)", f->name,
                                 values.size(), idx.size(), bad),
                     dp);
            }
        };
        for (const Field& f : dd.fields) {
            switch (f.id.semantic) {
                case Semantic::position:
                    sparse(&f, mesh.positions.values.size(), s.positions, same3, dmx::Vector3{});
                    break;
                case Semantic::normal:
                    sparse(&f, mesh.normals.values.size(), s.normals, same3, dmx::Vector3{});
                    break;
                case Semantic::wrinkle:
                    sparse(&f, mesh.wrinkle.values.size(), s.wrinkle, scalar, float{});
                    break;
                default:
                    if (f.size() != 0) {
                        warn("convert.dmx-delta",
                             fmt::format("delta field '{}' has no place in the model", f.name), dp);
                    }
                    break;
            }
        }
        mesh.shapes.push_back(std::move(s));
    }
    m_.meshes.push_back(std::move(mesh));
}

void Reader::flex() {
    const dmx::Element* op = doc_.get(d_.combination_operator);
    const auto* values = op ? op->get<std::vector<dmx::Vector3>>("controlValues") : nullptr;
    for (std::size_t i = 0; i < d_.controls.size(); ++i) {
        const dmxmodel::Control& c = d_.controls[i];
        model::FlexController f;
        f.name = std::string(c.name);
        f.raw_controls.assign(c.raw_controls.begin(), c.raw_controls.end());
        f.stereo = c.stereo;
        f.eyelid = c.eyelid;
        f.min = c.min;
        f.max = c.max;
        if (values && i < values->size()) f.default_value = v3((*values)[i]);
        f.wrinkle_scales.assign(c.wrinkle_scales.begin(), c.wrinkle_scales.end());
        f.eyes_up_down = std::string(c.eyes_up_down);
        m_.flex.controllers.push_back(std::move(f));
    }
    for (const dmxmodel::DominationRule& r : d_.domination_rules) {
        m_.flex.domination_rules.push_back({{r.dominators.begin(), r.dominators.end()},
                                            {r.suppressed.begin(), r.suppressed.end()}});
    }
    if (!d_.flex_rules.empty()) {
        warn("convert.dmx-flex-rules",
             fmt::format("{} DmeFlexRules targets are not carried into the model",
                         d_.flex_rules.size()),
             "combinationOperator/targets");
    }
}

void Reader::clips() {
    for (std::size_t ci = 0; ci < d_.clips.size(); ++ci) {
        const dmxmodel::Clip& dc = d_.clips[ci];
        const std::string path = fmt::format("animationList/animations[{}] '{}'", ci, dc.name);
        model::Clip clip;
        clip.name = std::string(dc.name);
        clip.frame_rate = dc.frame_rate;
        clip.start = dc.start / static_cast<double>(dmx::Time::kTicksPerSecond);
        clip.duration = dc.duration / static_cast<double>(dmx::Time::kTicksPerSecond);
        std::vector<std::int32_t> track_of(m_.nodes.size(), -1);
        std::vector<std::int32_t> flex_of(m_.flex.controllers.size(), -1);
        std::size_t skipped = 0;
        for (const dmxmodel::Channel& ch : dc.channels) {
            const std::size_t n = ch.key_count();
            auto times = [&](auto& keys) {
                keys.times.resize(n);
                for (std::size_t i = 0; i < n; ++i) {
                    keys.times[i] =
                        (static_cast<double>(ch.tick(i)) - dc.start) / dmx::Time::kTicksPerSecond;
                }
            };
            if (ch.layer_count > 1) {
                warn("convert.dmx-log-layers", "only the first log layer is read",
                     fmt::format("{}/{}", path, doc_[ch.element].name));
            }
            if (ch.kind == dmxmodel::ChannelKind::flex && ch.control >= 0 &&
                static_cast<std::size_t>(ch.control) < flex_of.size()) {
                const auto* v = ch.values ? ch.values->get_if<std::vector<float>>() : nullptr;
                if (!v) {
                    ++skipped;
                    continue;
                }
                auto& slot = flex_of[static_cast<std::size_t>(ch.control)];
                if (slot < 0) {
                    slot = static_cast<std::int32_t>(clip.flex_tracks.size());
                    clip.flex_tracks.push_back({static_cast<std::uint32_t>(ch.control), {}});
                }
                auto& keys = clip.flex_tracks[static_cast<std::size_t>(slot)].value;
                times(keys);
                keys.values.assign(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(n));
                continue;
            }
            if (ch.node < 0 || ch.kind == dmxmodel::ChannelKind::other ||
                ch.kind == dmxmodel::ChannelKind::flex || !ch.values) {
                ++skipped;
                continue;
            }
            const std::int32_t node = map_[static_cast<std::size_t>(ch.node)];
            auto& slot = track_of[static_cast<std::size_t>(node)];
            if (slot < 0) {
                slot = static_cast<std::int32_t>(clip.tracks.size());
                model::NodeTrack t;
                t.node = static_cast<std::uint32_t>(node);
                clip.tracks.push_back(std::move(t));
            }
            model::NodeTrack& t = clip.tracks[static_cast<std::size_t>(slot)];
            if (ch.kind == dmxmodel::ChannelKind::orientation) {
                const auto* v = ch.values->get_if<std::vector<dmx::Quaternion>>();
                if (!v) {
                    ++skipped;
                    continue;
                }
                times(t.rotation);
                t.rotation.values.resize(n);
                for (std::size_t i = 0; i < n; ++i) t.rotation.values[i] = quat((*v)[i]);
            } else {
                auto& keys = ch.kind == dmxmodel::ChannelKind::scale ? t.scale : t.translation;
                if (const auto* v = ch.values->get_if<std::vector<dmx::Vector3>>()) {
                    times(keys);
                    keys.values.resize(n);
                    for (std::size_t i = 0; i < n; ++i) keys.values[i] = v3((*v)[i]);
                } else if (const auto* f = ch.values->get_if<std::vector<float>>();
                           f && ch.kind == dmxmodel::ChannelKind::scale) {
                    times(keys);
                    keys.values.resize(n);
                    for (std::size_t i = 0; i < n; ++i)
                        keys.values[i] = {(*f)[i], (*f)[i], (*f)[i]};
                } else {
                    ++skipped;
                }
            }
        }
        // A transform whose only channels were left out has a track with no keys: nothing to
        // carry (and nothing a writer can write back).
        std::erase_if(clip.tracks, [](const model::NodeTrack& t) {
            return t.translation.empty() && t.rotation.empty() && t.scale.empty();
        });
        if (skipped) {
            warn("convert.dmx-channels",
                 fmt::format("{} channels drive no transform position/orientation/scale or flex "
                             "control and are left out",
                             skipped),
                 path);
        }
        m_.clips.push_back(std::move(clip));
    }
}

Result<model::Model> Reader::run() {
    nodes();
    for (std::size_t i = 0; i < d_.meshes.size(); ++i) mesh(d_.meshes[i], i);
    // A dag that carries no mesh and no attachment is a bone, whatever its element type: Maya
    // and Valve exporters write such transforms as DmeDag, and Blender Source Tools imports
    // every shape-less DmeDag/DmeJoint as a bone. Decided on what the model carries (a shape
    // that could not be read leaves a bare dag, which is what a written file then holds).
    {
        std::vector<bool> carries(m_.nodes.size(), false);
        for (const model::Mesh& me : m_.meshes) {
            if (me.node < carries.size()) carries[me.node] = true;
        }
        for (const model::Attachment& a : m_.attachments) {
            if (a.node < carries.size()) carries[a.node] = true;
        }
        for (std::size_t i = 1; i < m_.nodes.size(); ++i) {
            if (!carries[i]) m_.nodes[i].kind = model::NodeKind::joint;
        }
    }
    flex();
    clips();
    const int up = d_.axes.up;
    if (up >= -3 && up <= 3 && up != 0) m_.up_axis = static_cast<model::Axis>(up);
    return std::move(m_);
}

// --- writing -------------------------------------------------------------------------------

std::vector<std::int32_t> to_i32(const std::vector<std::uint32_t>& v) {
    return {v.begin(), v.end()};
}

std::vector<dmx::Vector3> vec3s_of(const std::vector<Vec3f>& in) {
    std::vector<dmx::Vector3> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = dv3(in[i]);
    return out;
}

}  // namespace

Result<model::Model> dmxmodel_to_model(const dmxmodel::Model& m, Diagnostics& warnings) {
    Reader r(m, warnings);
    return r.run();
}

Result<model::Model> dmx_to_model(const dmx::Document& doc, Diagnostics& warnings) {
    LK_TRY_ASSIGN(auto view, dmxmodel::Model::open(doc, warnings));
    return dmxmodel_to_model(view, warnings);
}

Result<dmx::Document> model_to_dmx(const model::Model& m, const dmxmodel::Target& target,
                                   Diagnostics& w, const ModelToDmxOptions& opt) {
    if (auto problems = model::check(m, 1); !problems.empty()) {
        return Diagnostic::error("convert.bad-model", problems[0]);
    }
    const int v = target.format_version;
    dmxmodel::Builder b(target, opt.scene_name, m.name(), opt.seed);

    bool root_bone = m.root_bone;
    for (const model::Mesh& mesh : m.meshes) {
        for (std::size_t k = 0; k < mesh.skin.joints.size() && !root_bone; ++k) {
            root_bone = mesh.skin.joints[k] == 0 && mesh.skin.weights[k] != 0;
        }
    }
    if (root_bone) b.set_root_bone(model::root_bone_name(m));
    b.set_model_transform(dv3(m.nodes[0].pose.translation), dquat(m.nodes[0].pose.rotation));
    b.set_axes(static_cast<int>(m.up_axis));
    if (!dmxmodel::uses_axis_system(v) && static_cast<int>(m.up_axis) < 0) {
        w.add(Diagnostic::warning("dmxmodel.up-axis-sign",
                                  fmt::format("model {} has no axis system: the up axis {} is "
                                              "written without its sign",
                                              v, static_cast<int>(m.up_axis))));
    }

    std::vector<std::uint32_t> node_of(m.nodes.size(), 0);
    for (std::size_t i = 1; i < m.nodes.size(); ++i) {
        const model::Node& n = m.nodes[i];
        node_of[i] = b.add_node(n.name, node_of[static_cast<std::size_t>(n.parent)],
                                n.kind == model::NodeKind::joint, dv3(n.pose.translation),
                                dquat(n.pose.rotation));
        if (!(n.bind == n.pose)) {
            b.set_bind(node_of[i], dv3(n.bind.translation), dquat(n.bind.rotation));
        }
        if (!(n.pose.scale == Vec3f{1, 1, 1}) || !(n.bind.scale == Vec3f{1, 1, 1})) {
            w.add(Diagnostic::warning("convert.dmx-scale",
                                      "DmeTransform has no scale; the node's scale is dropped")
                      .with_path(fmt::format("nodes[{}] '{}'", i, n.name)));
        }
    }
    // A DmeAttachment is the shape of a dag: one of its own at identity where the node is the
    // model (the builder dropped such an attachment) or already carries a shape.
    std::vector<bool> has_shape(m.nodes.size(), false);
    for (const model::Attachment& a : m.attachments) {
        std::uint32_t node = node_of[a.node];
        if (a.node == 0 || has_shape[a.node]) {
            node = b.add_node(a.name, node_of[a.node], false, {}, {0, 0, 0, 1});
        } else {
            has_shape[a.node] = true;
        }
        b.add_attachment(node, a.name, a.rigid, a.world_aligned);
    }
    for (std::size_t mi = 0; mi < m.meshes.size(); ++mi) {
        const model::Mesh& mesh = m.meshes[mi];
        std::uint32_t node = node_of[mesh.node];
        if (mesh.node == 0 || m.nodes[mesh.node].kind != model::NodeKind::dag ||
            has_shape[mesh.node]) {
            // A DmeMesh is the shape of a dag of its own.
            node = b.add_node(mesh.name, node_of[mesh.node], false, {}, {0, 0, 0, 1});
        } else {
            has_shape[mesh.node] = true;
        }
        const std::uint32_t id = b.add_mesh(node, mesh.name);
        auto vec3s = [](const std::vector<Vec3f>& in) {
            std::vector<dmx::Vector3> out(in.size());
            for (std::size_t i = 0; i < in.size(); ++i) out[i] = dv3(in[i]);
            return out;
        };
        auto vec4s = [](const std::vector<Vec4f>& in) {
            std::vector<dmx::Vector4> out(in.size());
            for (std::size_t i = 0; i < in.size(); ++i) {
                out[i] = {in[i].x, in[i].y, in[i].z, in[i].w};
            }
            return out;
        };
        b.add_field(id, Semantic::position, 0, vec3s(mesh.positions.values),
                    to_i32(mesh.positions.indices));
        if (mesh.normals.present()) {
            b.add_field(id, Semantic::normal, 0, vec3s(mesh.normals.values),
                        to_i32(mesh.normals.indices));
        }
        if (mesh.tangents.present()) {
            b.add_field(id, Semantic::tangent, 0, vec4s(mesh.tangents.values),
                        to_i32(mesh.tangents.indices));
        }
        for (std::size_t s = 0; s < mesh.texcoords.size(); ++s) {
            const auto& t = mesh.texcoords[s];
            if (!t.present()) continue;
            std::vector<dmx::Vector2> uv(t.values.size());
            for (std::size_t i = 0; i < uv.size(); ++i) uv[i] = {t.values[i].x, t.values[i].y};
            b.add_field(id, Semantic::texcoord, static_cast<int>(s), std::move(uv),
                        to_i32(t.indices));
        }
        for (std::size_t s = 0; s < mesh.colors.size(); ++s) {
            const auto& c = mesh.colors[s];
            if (!c.present()) continue;
            if (target.is_source2()) {
                b.add_field(id, Semantic::color, static_cast<int>(s), vec4s(c.values),
                            to_i32(c.indices));
            } else {
                std::vector<dmx::Color> col(c.values.size());
                auto byte = [](float x) {
                    return static_cast<std::uint8_t>(std::lround(std::clamp(x, 0.0f, 1.0f) * 255));
                };
                for (std::size_t i = 0; i < col.size(); ++i) {
                    const Vec4f& x = c.values[i];
                    col[i] = {byte(x.x), byte(x.y), byte(x.z), byte(x.w)};
                }
                b.add_field(id, Semantic::color, static_cast<int>(s), std::move(col),
                            to_i32(c.indices));
            }
        }
        auto scalar = [&](Semantic sem, const model::Indexed<float>& f) {
            if (f.present()) b.add_field(id, sem, 0, f.values, to_i32(f.indices));
        };
        scalar(Semantic::balance, mesh.balance);
        scalar(Semantic::speed, mesh.speed);
        scalar(Semantic::wrinkle, mesh.wrinkle);
        for (const model::ExtraField& e : mesh.extra) {
            dmx::Value val;
            const std::size_t n = e.components ? e.values.size() / e.components : 0;
            using K = model::ExtraField::Kind;
            // An integer field whose values no int32 holds once rounded (NaN, 3e9) keeps its
            // values as floats: rounding them into int32 wrapped.
            const bool ints =
                e.kind == K::integer && std::all_of(e.values.begin(), e.values.end(), [](float f) {
                    const double r = std::round(f);
                    return r >= INT32_MIN && r <= INT32_MAX;
                });
            if (e.kind == K::integer && !ints) {
                w.add(Diagnostic::warning("convert.out-of-range",
                                          fmt::format("integer field '{}' holds values out of "
                                                      "the int32 range: written as floats",
                                                      e.name))
                          .with_path(fmt::format("meshes[{}] '{}'", mi, mesh.name)));
            }
            if (ints) {
                std::vector<std::int32_t> x(e.values.size());
                for (std::size_t i = 0; i < x.size(); ++i) {
                    x[i] = static_cast<std::int32_t>(std::lround(e.values[i]));
                }
                val = std::move(x);
            } else if (e.kind == K::color8 && e.components == 4) {
                std::vector<dmx::Color> x(n);
                auto byte = [](float f) {
                    return static_cast<std::uint8_t>(std::lround(std::clamp(f, 0.0f, 1.0f) * 255));
                };
                for (std::size_t i = 0; i < n; ++i) {
                    x[i] = {byte(e.values[4 * i]), byte(e.values[4 * i + 1]),
                            byte(e.values[4 * i + 2]), byte(e.values[4 * i + 3])};
                }
                val = std::move(x);
            } else if (e.components == 1) {
                val = e.values;
            } else if (e.components == 2) {
                std::vector<dmx::Vector2> x(n);
                for (std::size_t i = 0; i < n; ++i) x[i] = {e.values[2 * i], e.values[2 * i + 1]};
                val = std::move(x);
            } else if (e.components == 3) {
                std::vector<dmx::Vector3> x(n);
                for (std::size_t i = 0; i < n; ++i) {
                    x[i] = {e.values[3 * i], e.values[3 * i + 1], e.values[3 * i + 2]};
                }
                val = std::move(x);
            } else {
                std::vector<dmx::Vector4> x(n);
                for (std::size_t i = 0; i < n; ++i) {
                    x[i] = {e.values[4 * i], e.values[4 * i + 1], e.values[4 * i + 2],
                            e.values[4 * i + 3]};
                }
                val = std::move(x);
            }
            if (!b.add_field(id, e.name, std::move(val), to_i32(e.indices))) {
                w.add(Diagnostic::warning("convert.dmx-field",
                                          fmt::format("field '{}' clashes with an attribute of "
                                                      "the vertex data and is left out",
                                                      e.name))
                          .with_path(fmt::format("meshes[{}] '{}'", mi, mesh.name)));
            }
        }
        if (mesh.skin.influences > 0) {
            std::vector<std::int32_t> joints(mesh.skin.joints.size());
            for (std::size_t k = 0; k < joints.size(); ++k) {
                joints[k] = b.joint_index(node_of[mesh.skin.joints[k]]);
                if (joints[k] < 0) joints[k] = 0;
            }
            b.set_skin(id, static_cast<std::int32_t>(mesh.skin.influences), mesh.skin.weights,
                       std::move(joints));
        }
        for (const model::FaceSet& fs : mesh.face_sets) {
            std::vector<std::int32_t> faces;
            faces.reserve(fs.corners.size() + fs.sizes.size());
            std::size_t at = 0;
            for (std::uint32_t n : fs.sizes) {
                for (std::uint32_t k = 0; k < n; ++k) {
                    faces.push_back(static_cast<std::int32_t>(fs.corners[at + k]));
                }
                faces.push_back(-1);
                at += n;
            }
            b.add_face_set(id, m.materials[fs.material].name, std::move(faces));
        }
        for (const model::Shape& s : mesh.shapes) {
            std::string name = s.name;
            const auto drivers = model::corrective_drivers(m.flex, s.name);
            if (!drivers.empty()) {
                name.clear();
                for (const std::string& d : drivers) {
                    if (!name.empty()) name += dmxmodel::corrective_separator(v);
                    name += d;
                }
            }
            std::vector<dmxmodel::DeltaField> fields;
            fields.push_back(
                {Semantic::position, vec3s(s.positions.values), to_i32(s.positions.indices)});
            fields.push_back(
                {Semantic::normal, vec3s(s.normals.values), to_i32(s.normals.indices)});
            if (!s.wrinkle.empty()) {
                fields.push_back({Semantic::wrinkle, s.wrinkle.values, to_i32(s.wrinkle.indices)});
            }
            b.add_delta(id, name, std::move(fields), s.corrected);
        }
    }

    for (const model::FlexController& c : m.flex.controllers) {
        dmxmodel::ControlData d;
        d.name = c.name;
        d.raw_controls = c.raw_controls;
        d.stereo = c.stereo;
        d.eyelid = c.eyelid;
        d.min = c.min;
        d.max = c.max;
        d.value = dv3(c.default_value);
        d.wrinkle_scales = c.wrinkle_scales;
        d.eyes_up_down = c.eyes_up_down;
        b.add_control(d);
    }
    for (const model::DominationRule& r : m.flex.domination_rules) {
        b.add_domination_rule(r.dominators, r.suppressed);
    }

    for (const model::Clip& c : m.clips) {
        const std::uint32_t clip = b.add_clip(c.name, c.frame_rate, c.start, c.duration);
        for (const model::NodeTrack& t : c.tracks) {
            const std::uint32_t node = node_of[t.node];
            if (!t.translation.empty()) {
                b.add_channel(clip, node, dmxmodel::ChannelKind::position, t.translation.times,
                              vec3s_of(t.translation.values));
            }
            if (!t.rotation.empty()) {
                std::vector<dmx::Quaternion> q(t.rotation.values.size());
                for (std::size_t i = 0; i < q.size(); ++i) q[i] = dquat(t.rotation.values[i]);
                b.add_channel(clip, node, dmxmodel::ChannelKind::orientation, t.rotation.times,
                              std::move(q));
            }
            if (!t.scale.empty()) {
                b.add_channel(clip, node, dmxmodel::ChannelKind::scale, t.scale.times,
                              vec3s_of(t.scale.values));
            }
        }
        for (const model::FlexTrack& t : c.flex_tracks) {
            b.add_flex_channel(clip, t.controller, t.value.times, t.value.values);
        }
    }
    return b.finish();
}

}  // namespace lk::convert
