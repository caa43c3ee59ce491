// In-place conversion of a model document to another target version: only the parts whose form
// depends on the version change; every other element and attribute stays as it was.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "levelkit/dmx/io.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"

namespace lk::dmxmodel {

namespace {

std::vector<ElementRef>* refs(dmx::Element& e, std::string_view attr) {
    dmx::Attribute* a = e.find(attr);
    return a ? a->value.get_if<std::vector<ElementRef>>() : nullptr;
}

// Whether renaming attribute `from` to `to` would collide with another attribute.
bool rename_blocked(const dmx::Element& e, std::string_view from, std::string_view to) {
    return from != to && e.has(from) && e.has(to);
}

// Renames an attribute in place (its position and value stay); the caller checked
// rename_blocked.
void rename_attribute(dmx::Document& doc, dmx::Element& e, std::string_view from,
                      std::string_view to) {
    if (dmx::Attribute* a = e.find(from); a && from != to) a->name = doc.intern(to);
}

// Vertex field names of one DmeVertexData / DmeVertexDeltaData for the target version.
void rename_fields(dmx::Document& doc, ElementRef ref, int version, const std::string& path,
                   Diagnostics& w) {
    dmx::Element& e = doc[ref];
    dmx::Attribute* format = e.find("vertexFormat");
    auto* names = format ? format->value.get_if<std::vector<std::string>>() : nullptr;
    if (!names) return;
    for (std::string& name : *names) {
        const FieldId id = parse_field_name(name);
        if (id.semantic == Semantic::other) continue;
        const std::string to = field_name(id.semantic, id.set, version);
        if (to == name) continue;
        const std::string from = name;
        // A listed field without values stays as it is (renaming the entry could make it name
        // an unrelated array: fuzz_dmxmodel).
        if (!doc[ref].has(from)) continue;
        // The values and their index array are renamed together or not at all: a field whose
        // values and indices disagree in name no longer reads.
        // A field without an index array (it does not read) must not take a name whose index
        // array exists: the pair would read as a field made of unrelated arrays
        // (fuzz_dmxmodel). Skin fields have no index array.
        const bool skin =
            id.semantic == Semantic::joint_weights || id.semantic == Semantic::joint_indices;
        const bool values_blocked = rename_blocked(doc[ref], from, to);
        const bool indices_blocked =
            rename_blocked(doc[ref], from + "Indices", to + "Indices") ||
            (!skin && !doc[ref].has(from + "Indices") && doc[ref].has(to + "Indices"));
        if (values_blocked || indices_blocked) {
            w.add(Diagnostic::warning("dmxmodel.retarget-field",
                                      fmt::format("field '{}' keeps its name: '{}' exists", from,
                                                  values_blocked ? to : to + "Indices"))
                      .with_path(path));
            continue;
        }
        rename_attribute(doc, doc[ref], from, to);
        rename_attribute(doc, doc[ref], from + "Indices", to + "Indices");
        name = to;
    }
}

// Time values <-> int ticks.
void times_to_int(dmx::Attribute& a) {
    if (const auto* t = a.value.get_if<std::vector<dmx::Time>>()) {
        std::vector<std::int32_t> v(t->size());
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = (*t)[i].ticks;
        a.value = std::move(v);
    } else if (const auto* s = a.value.get_if<dmx::Time>()) {
        a.value = s->ticks;
    }
}
void times_to_time(dmx::Attribute& a) {
    if (const auto* t = a.value.get_if<std::vector<std::int32_t>>()) {
        std::vector<dmx::Time> v(t->size());
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = {(*t)[i]};
        a.value = std::move(v);
    } else if (const auto* s = a.value.get_if<std::int32_t>()) {
        a.value = dmx::Time{*s};
    }
}

// A time frame's scalar fields change name with their unit ("duration" in seconds or as a
// time, "durationTime" in ticks). Each is converted as Model::open reads it, so that the
// renamed field reads back as the same time; false leaves a value that reads as no time
// under either name (it then keeps its name).
bool seconds_field_to_ticks(dmx::Attribute& a) {
    if (const auto* t = a.value.get_if<dmx::Time>()) {
        a.value = t->ticks;
        return true;
    }
    const auto s = a.value.as<float>();  // as Model::open reads a time in seconds
    if (!s) return false;
    const double v = static_cast<double>(*s) * dmx::Time::kTicksPerSecond;
    if (!(v >= INT32_MIN && v <= INT32_MAX)) return false;
    a.value = static_cast<std::int32_t>(std::lround(v));
    return true;
}
bool ticks_field_to_time(dmx::Attribute& a) {
    const auto ticks = a.value.as<std::int32_t>();
    if (!ticks) return false;
    a.value = dmx::Time{*ticks};
    return true;
}

}  // namespace

Result<void> retarget(dmx::Document& doc, const Target& target, Diagnostics& w) {
    const int to = target.format_version;
    Diagnostics open_warnings;
    LK_TRY_ASSIGN(Model m, Model::open(doc, open_warnings));

    // --- the joint index space and the model as joint 0 ---
    if (!m.nodes.empty()) {
        const ElementRef model = m.nodes[0].element;
        std::vector<ElementRef> list;  // dags in joint-space order
        if (m.joint_space == JointSpace::joint_list) {
            list = *refs(doc[model], "jointList");
        } else {
            for (std::int32_t n : m.joints) {
                list.push_back(n >= 0 ? m.nodes[static_cast<std::size_t>(n)].element
                                      : ElementRef::null());
            }
        }
        if (m.model_is_joint0 && to < 22) {
            // Source 1 cannot weight to the DmeModel: a root joint at identity takes its slot, so
            // skin indices stay as they are (Blender Source Tools' layout).
            bool joints = false;
            for (const Node& n : m.nodes) joints = joints || n.kind == NodeKind::joint;
            std::string name = "blender_implicit";
            if (!joints) {
                for (const Mesh& mesh : m.meshes) {
                    if (m.nodes[mesh.node].name == m.nodes[0].name) name = "root";
                }
            }
            const ElementRef joint = doc.add_element("DmeJoint", name);
            const ElementRef t = doc.add_element("DmeTransform", name);
            doc[t].set("position", dmx::Vector3{});
            doc[t].set("orientation", dmx::Quaternion{0, 0, 0, 1});
            doc[joint].set("transform", t);
            doc[joint].set("children", std::vector<ElementRef>{});
            if (auto* kids = refs(doc[model], "children")) {
                kids->insert(kids->begin(), joint);
            } else {
                doc[model].set("children", std::vector<ElementRef>{joint});
            }
            list[0] = joint;
            // The bind pose lists the joint space without the model: add the new joint first.
            if (!m.bind_pose.is_null()) {
                if (auto* xf = refs(doc[m.bind_pose], "transforms");
                    xf && xf->size() + 1 == list.size()) {
                    const ElementRef b = doc.add_element("DmeTransform", name);
                    doc[b].set("position", dmx::Vector3{});
                    doc[b].set("orientation", dmx::Quaternion{0, 0, 0, 1});
                    refs(doc[m.bind_pose], "transforms")
                        ->insert(refs(doc[m.bind_pose], "transforms")->begin(), b);
                }
            }
        }
        auto transform_of = [&](ElementRef dag) {
            const dmx::Element* e = doc.get(dag);
            const auto* t = e ? e->get<ElementRef>("transform") : nullptr;
            return t ? *t : ElementRef::null();
        };
        if (uses_joint_list(to)) {
            doc[model].set("jointList", list);
        } else {
            doc[model].remove("jointList");
        }
        if (uses_joint_transforms(to)) {
            std::vector<ElementRef> xf(list.size());
            for (std::size_t i = 0; i < list.size(); ++i) xf[i] = transform_of(list[i]);
            doc[model].set("jointTransforms", std::move(xf));
        } else {
            doc[model].remove("jointTransforms");
        }

        // --- up axis ---
        const Axes axes = m.axes;
        if (uses_axis_system(to)) {
            if (!axes.axis_system) {
                const ElementRef ax = doc.add_element("DmeAxisSystem", "axisSystem");
                doc[ax].set("upAxis", std::int32_t{axes.up});
                doc[ax].set("forwardParity", std::int32_t{axes.forward_parity});
                doc[ax].set("coordSys", std::int32_t{axes.coord_sys});
                doc[model].set("axisSystem", ax);
            }
        } else if (axes.axis_system) {
            // The axis system is what model 22 readers use; the old string must agree with it
            // once it is the only record (Hammer exports carry both, and they disagree).
            doc[model].remove("axisSystem");
            const int a = axes.up < 0 ? -axes.up : axes.up;
            if (axes.up < 0) {
                w.add(Diagnostic::warning(
                    "dmxmodel.up-axis-sign",
                    fmt::format("model {} has no axis system: the up axis {} is written without "
                                "its sign",
                                to, axes.up)));
            }
            const char* letter = a == 1 ? "X" : (a == 2 ? "Y" : "Z");
            if (!axes.up_string.empty() || axes.up != 3) {
                if (dmx::Attribute* u = doc[model].find("upAxis");
                    u && u->value.holds<std::string>()) {
                    u->value.get<std::string>() = letter;
                } else {
                    doc[model].set("upAxis", std::string(letter));
                }
            }
        }
    }

    // --- vertex field names, correctives ---
    for (std::size_t mi = 0; mi < m.meshes.size(); ++mi) {
        const Mesh& mesh = m.meshes[mi];
        const std::string path = fmt::format("meshes[{}]", mi);
        if (!mesh.bind.element.is_null()) rename_fields(doc, mesh.bind.element, to, path, w);
        for (const Delta& d : mesh.deltas) rename_fields(doc, d.element, to, path, w);
    }
    if (!m.controls.empty()) {
        auto raw = [&](std::string_view s) {
            for (const Control& c : m.controls) {
                if (std::find(c.raw_controls.begin(), c.raw_controls.end(), s) !=
                    c.raw_controls.end()) {
                    return true;
                }
            }
            return false;
        };
        const std::string_view sep = corrective_separator(to);
        // The name is the delta's own only when nothing but deltaStates lists refer to it:
        // an element that is also a dag, a control or a material keeps its name.
        std::vector<std::uint8_t> shared(doc.size(), 0);
        auto mark = [&](ElementRef r) {
            if (doc.valid(r)) shared[static_cast<std::size_t>(r.index)] = 1;
        };
        mark(doc.root);
        for (const dmx::Element& e : doc.elements()) {
            doc.for_each_ref(e, [&](const dmx::Attribute& a, ElementRef r) {
                if (a.name != "deltaStates" || a.value.holds<ElementRef>()) mark(r);
            });
        }
        for (const Mesh& mesh : m.meshes) {
            for (const Delta& d : mesh.deltas) {
                std::string name(doc[d.element].name);
                if (raw(name)) continue;
                for (std::string_view old : {"__", "_", "-"}) {
                    std::vector<std::string> parts;
                    std::size_t start = 0;
                    bool ok = true;
                    while (ok) {
                        const std::size_t at = name.find(old, start);
                        const std::string part = name.substr(start, at - start);
                        ok = raw(part);
                        parts.push_back(part);
                        if (at == std::string::npos) break;
                        start = at + old.size();
                    }
                    if (!ok || parts.size() < 2) continue;
                    std::string joined;
                    for (const std::string& p : parts) {
                        if (!joined.empty()) joined += sep;
                        joined += p;
                    }
                    if (joined == name) break;
                    if (shared[static_cast<std::size_t>(d.element.index)]) {
                        w.add(Diagnostic::warning(
                            "dmxmodel.shared-delta",
                            fmt::format("corrective '{}' is also used elsewhere in the document; "
                                        "its name is kept (not '{}')",
                                        name, joined)));
                        break;
                    }
                    doc[d.element].name = joined;
                    break;
                }
            }
        }
    }

    // --- animation: time units, frame rate ---
    for (const Clip& c : m.clips) {
        dmx::Element& clip = doc[c.element];
        if (dmx::Attribute* fr = clip.find("frameRate")) {
            const double rate = c.frame_rate;
            const bool whole = rate >= 1 && rate <= 100000 && std::floor(rate) == rate;
            if (uses_float_frame_rate(to) || !whole) {
                fr->value = static_cast<float>(rate);
            } else {
                fr->value = static_cast<std::int32_t>(rate);
            }
        }
        if (dmx::Element* tf = doc.get(c.time_frame)) {
            for (const auto& [time_name, int_name] :
                 {std::pair{"start", "startTime"}, std::pair{"duration", "durationTime"},
                  std::pair{"offset", "offsetTime"}}) {
                if (uses_duration_time(to)) {
                    if (dmx::Attribute* a = tf->find(time_name);
                        a && !tf->has(int_name) && seconds_field_to_ticks(*a)) {
                        a->name = doc.intern(int_name);
                    }
                } else if (dmx::Attribute* a = tf->find(int_name);
                           a && !tf->has(time_name) && ticks_field_to_time(*a)) {
                    a->name = doc.intern(time_name);
                }
            }
        }
        for (const Channel& ch : c.channels) {
            if (ch.layer.is_null()) continue;
            if (dmx::Attribute* t = doc[ch.layer].find("times")) {
                uses_time_arrays(to) ? times_to_time(*t) : times_to_int(*t);
            }
        }
    }

    // Binary 1-2 has no time type: what is left (log bookmarks, SFM extras) becomes ticks.
    const bool binary = target.encoding.rfind("binary", 0) == 0;
    if (binary && target.encoding_version < 3) {
        for (dmx::Element& e : doc.elements()) {
            for (dmx::Attribute& a : e.attributes) {
                if (dmx::scalar_of(a.value.type()) == dmx::Type::time) times_to_int(a);
            }
        }
    }

    doc.header.format = "model";
    doc.header.format_version = to;
    doc.header.text.clear();
    dmx::ConvertOptions co;
    co.coerce_integers = true;
    co.demote_prefix = true;
    return dmx::convert(doc, {target.encoding, target.encoding_version}, co);
}

}  // namespace lk::dmxmodel
