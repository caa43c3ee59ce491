#include <fmt/format.h>

#include <cmath>
#include <map>

#include "levelkit/dmxmodel/dmxmodel.hpp"

namespace lk::dmxmodel {

namespace {

class Reporter {
public:
    Reporter(Diagnostics& out, std::size_t limit) : out_(out), limit_(limit) {}

    void error(const std::string& code, std::string message, std::string path) {
        add(Severity::error, code, std::move(message), std::move(path));
    }
    void warning(const std::string& code, std::string message, std::string path) {
        add(Severity::warning, code, std::move(message), std::move(path));
    }
    std::size_t errors() const { return errors_; }

private:
    void add(Severity s, const std::string& code, std::string message, std::string path) {
        if (s == Severity::error) ++errors_;
        std::size_t& n = per_code_[code];
        if (++n > limit_) return;
        Diagnostic d;
        d.severity = s;
        d.code = code;
        d.message = std::move(message);
        d.path = std::move(path);
        out_.add(std::move(d));
    }
    Diagnostics& out_;
    std::size_t limit_;
    std::size_t errors_ = 0;
    std::map<std::string, std::size_t, std::less<>> per_code_;
};

bool is_raw(const Model& m, std::string_view name) {
    for (const Control& c : m.controls) {
        for (const std::string& r : c.raw_controls) {
            if (r == name) return true;
        }
    }
    return false;
}

// A delta name studiomdl can drive: a raw control, or raw controls joined by a separator.
bool drivable(const Model& m, std::string_view name) {
    if (is_raw(m, name)) return true;
    for (std::string_view sep : {"__", "_", "-"}) {
        std::size_t start = 0, parts = 0;
        bool ok = true;
        while (ok) {
            const std::size_t at = name.find(sep, start);
            ok = is_raw(m, name.substr(start, at == std::string_view::npos ? at : at - start));
            ++parts;
            if (at == std::string_view::npos) break;
            start = at + sep.size();
        }
        if (ok && parts >= 2) return true;
    }
    return false;
}

void check_indices(Reporter& r, const Field& f, std::size_t limit, const std::string& path) {
    const auto idx = f.index_span();
    for (std::size_t i = 0; i < idx.size(); ++i) {
        if (idx[i] < 0 || static_cast<std::size_t>(idx[i]) >= limit) {
            r.error("dmxmodel.index-range",
                    fmt::format("index {} is outside the {} values of '{}'", idx[i], limit, f.name),
                    fmt::format("{}/{}Indices[{}]", path, f.name, i));
            return;
        }
    }
}

}  // namespace

std::size_t validate(const Model& m, Diagnostics& out, std::size_t max_per_kind) {
    Reporter r(out, max_per_kind);
    const dmx::Document& doc = m.doc();
    const bool source2 = m.version() >= 22;

    if (!m.model.is_null() && m.skeleton.is_null()) {
        r.error("dmxmodel.no-skeleton", "the root has a model but no skeleton (studiomdl needs it)",
                "root");
    }
    const char* space = m.joint_space == JointSpace::joint_list ? "jointList" : "jointTransforms";
    for (std::size_t i = 0; i < m.joints.size(); ++i) {
        if (m.joints[i] < 0) {
            r.error("dmxmodel.joint-not-in-tree",
                    fmt::format("joint {} is not a dag of the skeleton", i),
                    fmt::format("skeleton/{}[{}]", space, i));
        }
    }
    for (std::size_t i = 1; i < m.nodes.size(); ++i) {
        if (m.nodes[i].transform.is_null()) {
            r.error("dmxmodel.no-transform", "the dag has no DmeTransform", m.node_path(i));
        }
    }

    for (std::size_t mi = 0; mi < m.meshes.size(); ++mi) {
        const Mesh& mesh = m.meshes[mi];
        const std::string mp = fmt::format("meshes[{}] '{}'", mi, doc[mesh.element].name);
        if (mesh.bind.element.is_null()) {
            r.error("dmxmodel.no-vertex-data", "the mesh has no DmeVertexData", mp);
            continue;
        }
        const std::string vp = fmt::format("{}/{}", mp, doc[mesh.bind.element].name);
        if (doc[mesh.bind.element].name != "bind") {
            r.warning("dmxmodel.bind-state-name",
                      "the vertex data is not named 'bind' (studiomdl looks the base state up "
                      "by that name)",
                      vp);
        }
        const Field* pos = mesh.bind.find(Semantic::position);
        if (!pos) {
            r.error("dmxmodel.no-positions", "the vertex data has no positions", vp);
            continue;
        }
        const std::size_t corners = pos->index_span().size();
        const std::size_t points = pos->size();
        for (const Field& f : mesh.bind.fields) {
            if (!f.indices) continue;
            if (f.indices->size() != corners) {
                const bool hard = f.id.semantic == Semantic::normal ||
                                  f.id.semantic == Semantic::texcoord ||
                                  f.id.semantic == Semantic::balance;
                const std::string msg = fmt::format("'{}Indices' has {} entries, the positions' {}",
                                                    f.name, f.indices->size(), corners);
                if (hard) {
                    r.error("dmxmodel.index-count", msg, vp);
                } else {
                    r.warning("dmxmodel.index-count", msg, vp);
                }
            }
            check_indices(r, f, f.size(), vp);
        }

        // Skin: jointCount slots per position value, no index arrays.
        const std::int32_t jc = mesh.bind.joint_count;
        const Field* weights = mesh.bind.find(Semantic::joint_weights);
        const Field* indices = mesh.bind.find(Semantic::joint_indices);
        if (jc < 0) {
            r.error("dmxmodel.joint-count", fmt::format("jointCount {} is negative", jc), vp);
        } else if (jc > 0) {
            if (!weights || !indices) {
                r.error("dmxmodel.no-skin",
                        fmt::format("jointCount is {} but the joint weights or indices are "
                                    "missing",
                                    jc),
                        vp);
            } else {
                const auto w = weights->as<float>();
                const auto j = indices->as<std::int32_t>();
                const std::size_t want = points * static_cast<std::size_t>(jc);
                if (w.size() != want || j.size() != want) {
                    r.error("dmxmodel.skin-size",
                            fmt::format("{} weights and {} joint indices for {} positions x "
                                        "jointCount {}",
                                        w.size(), j.size(), points, jc),
                            vp);
                } else {
                    const std::size_t joints = m.joints.size();
                    for (std::size_t k = 0; k < j.size(); ++k) {
                        if (j[k] < 0 || static_cast<std::size_t>(j[k]) >= joints) {
                            if (w[k] == 0 && j[k] == 0) continue;  // unused slot
                            r.error("dmxmodel.joint-index",
                                    fmt::format("joint index {} is outside the {} joints", j[k],
                                                joints),
                                    fmt::format("{}/{}[{}]", vp, indices->name, k));
                            break;
                        }
                    }
                    for (std::size_t p = 0; p < points; ++p) {
                        double sum = 0;
                        for (std::int32_t k = 0; k < jc; ++k) sum += w[p * jc + k];
                        if (!(std::abs(sum - 1.0) <= 1e-3)) {
                            r.warning(
                                "dmxmodel.weight-sum",
                                fmt::format("the weights of position {} add up to {}", p, sum),
                                fmt::format("{}/{}[{}]", vp, weights->name,
                                            p * static_cast<std::size_t>(jc)));
                        }
                    }
                }
                const std::int32_t limit = source2 ? 4 : 3;
                if (jc > limit) {
                    r.warning("dmxmodel.joint-count",
                              fmt::format("jointCount {} is above {} ({} keeps the {} heaviest)",
                                          jc, limit, source2 ? "ModelDoc" : "studiomdl", limit),
                              vp);
                }
            }
        }

        for (std::size_t fi = 0; fi < mesh.face_sets.size(); ++fi) {
            const FaceSet& fs = mesh.face_sets[fi];
            const std::string fp =
                fmt::format("{}/faceSets[{}] '{}'", mp, fi, doc[fs.element].name);
            if (!fs.faces) {
                r.error("dmxmodel.no-faces", "the face set has no 'faces' int array", fp);
                continue;
            }
            if (fs.material.is_null()) {
                r.warning("dmxmodel.no-material", "the face set has no material", fp);
            } else if (fs.material_name.empty()) {
                r.warning("dmxmodel.no-material", "the material has no mtlName", fp);
            }
            std::size_t open = 0;
            const auto faces = fs.face_span();
            for (std::size_t k = 0; k < faces.size(); ++k) {
                if (faces[k] == -1) {
                    if (open > 0 && open < 3) {
                        r.warning("dmxmodel.small-polygon",
                                  fmt::format("a polygon has {} corners", open),
                                  fmt::format("{}/faces[{}]", fp, k));
                    }
                    open = 0;
                    continue;
                }
                if (faces[k] < 0 || static_cast<std::size_t>(faces[k]) >= corners) {
                    r.error("dmxmodel.face-index",
                            fmt::format("face-vertex {} is outside the {} face-vertices", faces[k],
                                        corners),
                            fmt::format("{}/faces[{}]", fp, k));
                    break;
                }
                ++open;
            }
            if (open > 0 && open < 3) {
                r.warning("dmxmodel.small-polygon", fmt::format("a polygon has {} corners", open),
                          fp);
            }
        }

        for (std::size_t di = 0; di < mesh.deltas.size(); ++di) {
            const Delta& d = mesh.deltas[di];
            const std::string dp = fmt::format("{}/deltaStates[{}] '{}'", mp, di, d.name);
            for (const Field& f : d.fields) {
                if (!f.indices) continue;
                if (f.indices->size() != f.size()) {
                    r.error("dmxmodel.delta-size",
                            fmt::format("'{}' has {} values and {} indices", f.name, f.size(),
                                        f.indices->size()),
                            dp);
                }
                const Field* base = mesh.bind.find(f.id.semantic, f.id.set);
                if (!base &&
                    (f.id.semantic == Semantic::wrinkle || f.id.semantic == Semantic::speed)) {
                    base = pos;
                }
                if (!base) {
                    if (f.size() != 0) {
                        r.warning("dmxmodel.delta-field",
                                  fmt::format("the base state has no field for '{}'", f.name), dp);
                    }
                    continue;
                }
                check_indices(r, f, base->size(), dp);
            }
            if (!m.combination_operator.is_null() && !drivable(m, d.name)) {
                r.warning("dmxmodel.undriven-delta",
                          "no control of the combination operator drives this delta state", dp);
            }
        }
    }

    for (std::size_t ci = 0; ci < m.controls.size(); ++ci) {
        const Control& c = m.controls[ci];
        const std::string cp = fmt::format("combinationOperator/controls[{}] '{}'", ci, c.name);
        if (c.raw_controls.empty() || c.raw_controls.size() > 2) {
            r.error("dmxmodel.raw-controls",
                    fmt::format("{} raw control names (1 or 2 expected)", c.raw_controls.size()),
                    cp);
        }
        for (const std::string& raw : c.raw_controls) {
            if (raw.find('_') != std::string::npos) {
                r.warning("dmxmodel.raw-control-name",
                          fmt::format("raw control '{}' contains '_', which joins corrective "
                                      "names",
                                      raw),
                          cp);
            }
        }
    }
    if (const dmx::Element* op = doc.get(m.combination_operator)) {
        if (const auto* targets = op->get<std::vector<ElementRef>>("targets")) {
            for (std::size_t i = 0; i < targets->size(); ++i) {
                const dmx::Element* t = doc.get((*targets)[i]);
                if (!t || (t->type != "DmeMesh" && t->type != "DmeFlexRules")) {
                    r.warning("dmxmodel.flex-target",
                              "a combination operator target is not a DmeMesh or DmeFlexRules",
                              fmt::format("combinationOperator/targets[{}]", i));
                }
            }
        }
    }

    for (std::size_t ci = 0; ci < m.clips.size(); ++ci) {
        const Clip& clip = m.clips[ci];
        const std::string cp = fmt::format("animationList/animations[{}] '{}'", ci, clip.name);
        if (clip.time_frame.is_null()) {
            r.warning("dmxmodel.no-time-frame", "the clip has no DmeTimeFrame", cp);
        }
        if (clip.duration < 0) r.error("dmxmodel.duration", "the clip's duration is negative", cp);
        for (std::size_t k = 0; k < clip.channels.size(); ++k) {
            const Channel& ch = clip.channels[k];
            const std::string chp =
                fmt::format("{}/channels[{}] '{}'", cp, k, doc[ch.element].name);
            if (ch.target.is_null()) {
                // Drives nothing (SFM leaves such channels behind); studiomdl evaluates nothing.
                r.warning("dmxmodel.channel-target", "the channel has no toElement", chp);
                continue;
            }
            if (ch.node < 0 && ch.control < 0) {
                r.error("dmxmodel.channel-target",
                        fmt::format("toElement '{}' ({}) is not the transform of a dag or a flex "
                                    "control",
                                    doc[ch.target].name, doc[ch.target].type.str()),
                        chp);
                continue;
            }
            if (ch.kind == ChannelKind::other) {
                r.warning("dmxmodel.channel-attribute",
                          fmt::format("toAttribute '{}' is not position, orientation or scale",
                                      ch.attribute),
                          chp);
            }
            if (ch.log.is_null() || ch.layer.is_null() || !ch.times || !ch.values) {
                r.error("dmxmodel.channel-log",
                        "the channel has no log layer with times and values", chp);
                continue;
            }
            if (ch.times->array_size() != ch.values->array_size()) {
                r.error("dmxmodel.channel-keys",
                        fmt::format("{} times and {} values", ch.times->array_size(),
                                    ch.values->array_size()),
                        chp);
            }
            bool ok_type = true;
            switch (ch.kind) {
                case ChannelKind::position:
                case ChannelKind::scale:
                    ok_type =
                        ch.values->holds<std::vector<dmx::Vector3>>() ||
                        (ch.kind == ChannelKind::scale && ch.values->holds<std::vector<float>>());
                    break;
                case ChannelKind::orientation:
                    ok_type = ch.values->holds<std::vector<dmx::Quaternion>>();
                    break;
                case ChannelKind::flex:
                    ok_type = ch.values->holds<std::vector<float>>();
                    break;
                case ChannelKind::other:
                    break;
            }
            if (!ok_type) {
                r.error("dmxmodel.channel-type",
                        fmt::format("the values ({}) do not fit toAttribute '{}'",
                                    dmx::type_name(ch.values->type()), ch.attribute),
                        chp);
            }
            for (std::size_t i = 1; i < ch.key_count(); ++i) {
                if (ch.tick(i) < ch.tick(i - 1)) {
                    r.error("dmxmodel.channel-times", "key times go backwards",
                            fmt::format("{}/times[{}]", chp, i));
                    break;
                }
            }
        }
    }
    return r.errors();
}

// --- edits ---------------------------------------------------------------------------------

Result<void> rename_material(dmx::Document& doc, ElementRef material, std::string_view name) {
    dmx::Element* e = doc.get(material);
    if (!e || e->external()) {
        return Diagnostic::error("dmxmodel.bad-edit", "not a material element");
    }
    dmx::Attribute* a = e->find("mtlName");
    if (a && !a->value.holds<std::string>()) {
        return Diagnostic::error("dmxmodel.bad-edit", "mtlName is not a string")
            .with_path(fmt::format("material '{}'/mtlName", e->name));
    }
    if (a) {
        if (e->name == a->value.get<std::string>()) e->name = std::string(name);
        a->value.get<std::string>() = std::string(name);
    } else {
        e->name = std::string(name);
    }
    return success();
}

namespace {

Result<void> write_transform(dmx::Document& doc, ElementRef t, const dmx::Vector3& p,
                             const dmx::Quaternion& q) {
    dmx::Element* e = doc.get(t);
    if (!e || e->external()) return Diagnostic::error("dmxmodel.bad-edit", "no DmeTransform");
    if (dmx::Attribute* a = e->find("position"); a && a->value.holds<dmx::Vector3>()) {
        a->value.get<dmx::Vector3>() = p;
    } else if (a) {
        return Diagnostic::error("dmxmodel.bad-edit", "position is not a vector3")
            .with_path(fmt::format("transform '{}'/position", e->name));
    } else {
        e->set("position", p);
    }
    if (dmx::Attribute* a = e->find("orientation"); a && a->value.holds<dmx::Quaternion>()) {
        a->value.get<dmx::Quaternion>() = q;
    } else if (a) {
        return Diagnostic::error("dmxmodel.bad-edit", "orientation is not a quaternion")
            .with_path(fmt::format("transform '{}'/orientation", e->name));
    } else {
        e->set("orientation", q);
    }
    return success();
}

}  // namespace

Result<void> set_transform(dmx::Document& doc, const Model& m, std::uint32_t node,
                           const dmx::Vector3& position, const dmx::Quaternion& orientation,
                           bool bind_too) {
    if (node >= m.nodes.size()) return Diagnostic::error("dmxmodel.bad-edit", "no such node");
    LK_TRY(write_transform(doc, m.nodes[node].transform, position, orientation));
    if (!bind_too || m.bind_pose.is_null()) return success();
    const auto* xf = doc[m.bind_pose].get<std::vector<ElementRef>>("transforms");
    if (!xf) return success();
    for (std::size_t i = 0; i < m.bind_pose_nodes.size() && i < xf->size(); ++i) {
        if (m.bind_pose_nodes[i] == static_cast<std::int32_t>(node)) {
            const ElementRef t = (*xf)[i];
            if (t != m.nodes[node].transform)
                LK_TRY(write_transform(doc, t, position, orientation));
        }
    }
    return success();
}

Result<void> rename_node(dmx::Document& doc, const Model& m, std::uint32_t node,
                         std::string_view name) {
    if (node >= m.nodes.size()) return Diagnostic::error("dmxmodel.bad-edit", "no such node");
    doc[m.nodes[node].element].name = std::string(name);
    if (dmx::Element* t = doc.get(m.nodes[node].transform)) t->name = std::string(name);
    if (!m.bind_pose.is_null()) {
        if (const auto* xf = doc[m.bind_pose].get<std::vector<ElementRef>>("transforms")) {
            for (std::size_t i = 0; i < m.bind_pose_nodes.size() && i < xf->size(); ++i) {
                if (m.bind_pose_nodes[i] == static_cast<std::int32_t>(node)) {
                    if (dmx::Element* t = doc.get((*xf)[i])) t->name = std::string(name);
                }
            }
        }
    }
    return success();
}

}  // namespace lk::dmxmodel
