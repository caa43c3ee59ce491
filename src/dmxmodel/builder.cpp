#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "levelkit/dmxmodel/dmxmodel.hpp"

namespace lk::dmxmodel {

namespace {

std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Seconds -> ticks, plus an offset in ticks, kept inside int32 (times past it are clamped).
std::int32_t to_ticks(double seconds, std::int32_t offset = 0) {
    const double t = std::round(seconds * dmx::Time::kTicksPerSecond) + offset;
    if (std::isnan(t)) return offset;
    return static_cast<std::int32_t>(std::clamp(t, double(INT32_MIN), double(INT32_MAX)));
}

std::vector<ElementRef>& refs_of(dmx::Document& doc, ElementRef owner, std::string_view attr) {
    dmx::Attribute* a = doc[owner].find(attr);
    if (!a || !a->value.holds<std::vector<ElementRef>>()) {
        a = &doc[owner].set(attr, std::vector<ElementRef>{});
    }
    return a->value.get<std::vector<ElementRef>>();
}

}  // namespace

Builder::Builder(const Target& target, std::string_view scene_name, std::string_view model_name,
                 std::uint64_t seed)
    : target_(target), state_(seed), model_name_(model_name) {
    doc_.header.encoding = target.encoding;
    doc_.header.encoding_version = target.encoding_version;
    doc_.header.format = "model";
    doc_.header.format_version = target.format_version;

    doc_.root = element("DmElement", scene_name);
    model_ = element("DmeModel", model_name);
    doc_[doc_.root].set("skeleton", model_);
    dmx::Element& m = doc_[model_];
    m.set("children", std::vector<ElementRef>{});
    bind_list_ = element("DmeTransformList", "bind");
    doc_[bind_list_].set("transforms", std::vector<ElementRef>{});
    doc_[model_].set("baseStates", std::vector<ElementRef>{bind_list_});
    if (uses_axis_system(target.format_version)) {
        const ElementRef ax = element("DmeAxisSystem", "axisSystem");
        doc_[ax].set("upAxis", std::int32_t{3});
        doc_[ax].set("forwardParity", std::int32_t{1});
        doc_[ax].set("coordSys", std::int32_t{0});
        doc_[model_].set("axisSystem", ax);
    }
    // Element references die when the element vector grows: make elements before taking one.
    const ElementRef model_transform = transform("", {}, {0, 0, 0, 1});
    doc_[model_].set("transform", model_transform);
    nodes_.push_back({model_, model_transform, ElementRef::null(), false});
}

ElementRef Builder::element(std::string_view type, std::string_view name) {
    dmx::Guid g;
    const std::uint64_t a = splitmix(state_), b = splitmix(state_);
    for (int i = 0; i < 8; ++i) {
        g.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(a >> (8 * i));
        g.bytes[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(b >> (8 * i));
    }
    g.bytes[7] = static_cast<std::uint8_t>((g.bytes[7] & 0x0f) | 0x40);  // version 4 (Data3)
    g.bytes[8] = static_cast<std::uint8_t>((g.bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
    return doc_.add_element(type, name, g);
}

ElementRef Builder::transform(std::string_view name, const dmx::Vector3& p,
                              const dmx::Quaternion& q) {
    const ElementRef t = element("DmeTransform", name);
    doc_[t].set("position", p);
    doc_[t].set("orientation", q);
    return t;
}

void Builder::append(ElementRef owner, std::string_view attr, ElementRef item) {
    refs_of(doc_, owner, attr).push_back(item);
}

void Builder::set_root_bone(std::string_view implicit_name) {
    if (root_bone_) return;
    root_bone_ = true;
    if (target_.is_source2()) return;
    // Source 1 cannot weight to the DmeModel: a root joint at identity stands in for it.
    implicit_ = element("DmeJoint", implicit_name);
    const ElementRef t = transform(implicit_name, {}, {0, 0, 0, 1});
    doc_[implicit_].set("transform", t);
    doc_[implicit_].set("children", std::vector<ElementRef>{});
    auto& kids = refs_of(doc_, model_, "children");
    kids.insert(kids.begin(), implicit_);
}

void Builder::set_model_transform(const dmx::Vector3& position,
                                  const dmx::Quaternion& orientation) {
    dmx::Element& t = doc_[nodes_[0].transform];
    t.set("position", position);
    t.set("orientation", orientation);
}

void Builder::set_axes(int up, int forward_parity, int coord_sys) {
    if (uses_axis_system(target_.format_version)) {
        const ElementRef ax = *doc_[model_].get<ElementRef>("axisSystem");
        doc_[ax].set("upAxis", std::int32_t{up});
        doc_[ax].set("forwardParity", std::int32_t{forward_parity});
        doc_[ax].set("coordSys", std::int32_t{coord_sys});
        return;
    }
    const int a = up < 0 ? -up : up;
    if (a == 3 && up > 0) {
        doc_[model_].remove("upAxis");
        return;
    }
    // Old Valve exporters name the up axis as a letter on the model.
    doc_[model_].set("upAxis", std::string(a == 1 ? "X" : (a == 2 ? "Y" : "Z")));
}

std::uint32_t Builder::add_node(std::string_view name, std::uint32_t parent, bool joint,
                                const dmx::Vector3& position, const dmx::Quaternion& orientation) {
    const ElementRef dag = element(joint ? "DmeJoint" : "DmeDag", name);
    const ElementRef t = transform(name, position, orientation);
    doc_[dag].set("transform", t);
    if (!joint) doc_[dag].set("shape", ElementRef::null());
    doc_[dag].set("children", std::vector<ElementRef>{});
    const ElementRef bind = transform(name, position, orientation);
    const ElementRef owner = parent < nodes_.size() ? nodes_[parent].dag : model_;
    append(owner, "children", dag);
    nodes_.push_back({dag, t, bind, joint});
    return static_cast<std::uint32_t>(nodes_.size() - 1);
}

void Builder::set_bind(std::uint32_t node, const dmx::Vector3& position,
                       const dmx::Quaternion& orientation) {
    if (node == 0 || node >= nodes_.size()) return;
    dmx::Element& t = doc_[nodes_[node].bind];
    t.set("position", position);
    t.set("orientation", orientation);
}

void Builder::add_attachment(std::uint32_t node, std::string_view name, bool rigid,
                             bool world_aligned) {
    if (node == 0 || node >= nodes_.size()) return;
    const ElementRef a = element("DmeAttachment", name);
    doc_[a].set("visible", true);
    doc_[a].set("isRigid", rigid);
    doc_[a].set("isWorldAligned", world_aligned);
    doc_[nodes_[node].dag].set("shape", a);
}

std::int32_t Builder::joint_index(std::uint32_t node) const {
    // jointList: [model or implicit root when root_bone_] + every node in the order added.
    if (node == 0) return root_bone_ ? 0 : -1;
    return static_cast<std::int32_t>(node) - (root_bone_ ? 0 : 1);
}

std::uint32_t Builder::add_mesh(std::uint32_t node, std::string_view name) {
    const ElementRef mesh = element("DmeMesh", name);
    const ElementRef vd = element("DmeVertexData", "bind");
    doc_[vd].set("vertexFormat", std::vector<std::string>{});
    doc_[vd].set("flipVCoordinates", true);
    doc_[vd].set("jointCount", std::int32_t{0});
    dmx::Element& m = doc_[mesh];
    m.set("visible", true);
    m.set("bindState", vd);
    m.set("currentState", vd);
    m.set("baseStates", std::vector<ElementRef>{vd});
    m.set("faceSets", std::vector<ElementRef>{});
    if (node > 0 && node < nodes_.size()) doc_[nodes_[node].dag].set("shape", mesh);
    meshes_.push_back({mesh, vd, {}, {}});
    return static_cast<std::uint32_t>(meshes_.size() - 1);
}

bool Builder::add_field(std::uint32_t mesh, Semantic s, int set, dmx::Value values,
                        std::vector<std::int32_t> indices) {
    return add_field(mesh, field_name(s, set, target_.format_version), std::move(values),
                     std::move(indices));
}

bool Builder::add_field(std::uint32_t mesh, std::string_view name, dmx::Value values,
                        std::vector<std::int32_t> indices) {
    if (mesh >= meshes_.size() || name.empty()) return false;
    dmx::Element& vd = doc_[meshes_[mesh].vertex_data];
    // A field's two attributes must not land on one that is already there.
    const std::string index_name = std::string(name) + "Indices";
    if (vd.has(name) || vd.has(index_name) || name == "name" || index_name == "name") return false;
    vd.find("vertexFormat")->value.get<std::vector<std::string>>().emplace_back(name);
    vd.set(name, std::move(values));
    vd.set(index_name, std::move(indices));
    return true;
}

void Builder::set_skin(std::uint32_t mesh, std::int32_t joint_count, std::vector<float> weights,
                       std::vector<std::int32_t> joint_indices) {
    if (mesh >= meshes_.size()) return;
    dmx::Element& vd = doc_[meshes_[mesh].vertex_data];
    vd.set("jointCount", joint_count);
    if (joint_count <= 0) return;
    const int v = target_.format_version;
    const std::string wn = field_name(Semantic::joint_weights, 0, v);
    const std::string jn = field_name(Semantic::joint_indices, 0, v);
    auto& format = vd.find("vertexFormat")->value.get<std::vector<std::string>>();
    format.push_back(wn);
    format.push_back(jn);
    vd.set(wn, std::move(weights));
    vd.set(jn, std::move(joint_indices));
}

void Builder::add_face_set(std::uint32_t mesh, std::string_view material,
                           std::vector<std::int32_t> faces) {
    if (mesh >= meshes_.size()) return;
    // One DmeMaterial per name, shared by the face sets that use it.
    ElementRef mat;
    for (const MeshRec& m : meshes_) {
        for (ElementRef fs : m.face_sets) {
            const ElementRef x = *doc_[fs].get<ElementRef>("material");
            if (const auto* n = doc_[x].get<std::string>("mtlName"); n && *n == material) mat = x;
        }
    }
    if (mat.is_null()) {
        mat = element("DmeMaterial", material);
        doc_[mat].set("mtlName", material);
    }
    const ElementRef fs = element("DmeFaceSet", material);
    doc_[fs].set("material", mat);
    doc_[fs].set("faces", std::move(faces));
    append(meshes_[mesh].mesh, "faceSets", fs);
    meshes_[mesh].face_sets.push_back(fs);
}

void Builder::add_delta(std::uint32_t mesh, std::string_view name, std::vector<DeltaField> fields,
                        bool corrected) {
    if (mesh >= meshes_.size()) return;
    const ElementRef d = element("DmeVertexDeltaData", name);
    std::vector<std::string> format;
    for (const DeltaField& f : fields) {
        format.push_back(field_name(f.semantic, 0, target_.format_version));
    }
    doc_[d].set("vertexFormat", format);
    for (std::size_t i = 0; i < fields.size(); ++i) {
        doc_[d].set(format[i], std::move(fields[i].values));
        doc_[d].set(format[i] + "Indices", std::move(fields[i].indices));
    }
    if (corrected) doc_[d].set("corrected", true);
    meshes_[mesh].deltas.push_back(d);
}

void Builder::ensure_combination() {
    if (combination_.is_null()) {
        combination_ = element("DmeCombinationOperator", "combinationOperator");
        dmx::Element& op = doc_[combination_];
        op.set("controls", std::vector<ElementRef>{});
        op.set("controlValues", std::vector<dmx::Vector3>{});
        op.set("controlValuesLagged", std::vector<dmx::Vector3>{});
        op.set("usesLaggedValues", false);
        op.set("dominators", std::vector<ElementRef>{});
        op.set("targets", std::vector<ElementRef>{});
    }
}

void Builder::add_control(const ControlData& c) {
    ensure_combination();
    const ElementRef e = element("DmeCombinationInputControl", c.name);
    dmx::Element& x = doc_[e];
    x.set("rawControlNames", c.raw_controls);
    x.set("stereo", c.stereo);
    x.set("eyelid", c.eyelid);
    x.set("flexMax", c.max);
    x.set("flexMin", c.min);
    x.set("wrinkleScales", c.wrinkle_scales);
    if (!c.eyes_up_down.empty()) x.set("eyesUpDownFlex", c.eyes_up_down);
    append(combination_, "controls", e);
    dmx::Element& op = doc_[combination_];
    op.find("controlValues")->value.get<std::vector<dmx::Vector3>>().push_back(c.value);
    op.find("controlValuesLagged")->value.get<std::vector<dmx::Vector3>>().push_back(c.value);
    controls_.push_back(e);
}

void Builder::add_domination_rule(std::vector<std::string> dominators,
                                  std::vector<std::string> suppressed) {
    ensure_combination();
    const ElementRef r = element("DmeCombinationDominationRule", "rule");
    doc_[r].set("dominators", std::move(dominators));
    doc_[r].set("suppressed", std::move(suppressed));
    append(combination_, "dominators", r);
}

std::uint32_t Builder::add_clip(std::string_view name, double frame_rate, double start,
                                double duration) {
    const int v = target_.format_version;
    if (animation_list_.is_null()) {
        animation_list_ = element("DmeAnimationList", model_name_);
        doc_[animation_list_].set("animations", std::vector<ElementRef>{});
    }
    const ElementRef clip = element("DmeChannelsClip", name);
    const ElementRef tf = element("DmeTimeFrame", "timeframe");
    const std::int32_t start_ticks = to_ticks(start);
    if (uses_duration_time(v)) {
        if (start_ticks != 0) doc_[tf].set("startTime", start_ticks);
        doc_[tf].set("durationTime", to_ticks(duration));
    } else {
        if (start_ticks != 0) doc_[tf].set("start", dmx::Time{start_ticks});
        doc_[tf].set("duration", dmx::Time{to_ticks(duration)});
    }
    doc_[tf].set("scale", 1.0f);
    doc_[clip].set("timeFrame", tf);
    // Source 1 stores an int; a rate that is not a whole number stays a float rather than
    // change the animation's timing (the datamodel converts it on load).
    const bool whole =
        frame_rate >= 1 && frame_rate <= 100000 && std::floor(frame_rate) == frame_rate;
    if (uses_float_frame_rate(v) || !whole) {
        doc_[clip].set("frameRate", static_cast<float>(frame_rate));
    } else {
        doc_[clip].set("frameRate", static_cast<std::int32_t>(frame_rate));
    }
    doc_[clip].set("channels", std::vector<ElementRef>{});
    append(animation_list_, "animations", clip);
    clips_.push_back({clip, start_ticks});
    return static_cast<std::uint32_t>(clips_.size() - 1);
}

ElementRef Builder::log_layer(std::string_view log_type, std::string_view name,
                              std::span<const double> times, std::int32_t start,
                              dmx::Value values) {
    const std::string label = fmt::format("{} log", name);
    const ElementRef log = element(fmt::format("Dme{}Log", log_type), label);
    const ElementRef layer = element(fmt::format("Dme{}LogLayer", log_type), label);
    if (uses_time_arrays(target_.format_version)) {
        std::vector<dmx::Time> t;
        t.reserve(times.size());
        for (double x : times) t.push_back({to_ticks(x, start)});
        doc_[layer].set("times", std::move(t));
    } else {
        std::vector<std::int32_t> t;
        t.reserve(times.size());
        for (double x : times) t.push_back(to_ticks(x, start));
        doc_[layer].set("times", std::move(t));
    }
    doc_[layer].set("values", std::move(values));
    doc_[log].set("layers", std::vector<ElementRef>{layer});
    return log;
}

void Builder::add_channel(std::uint32_t clip, std::uint32_t node, ChannelKind kind,
                          std::span<const double> times, dmx::Value values) {
    if (clip >= clips_.size()) return;
    const ElementRef target =
        node == 0 && !implicit_.is_null()
            ? *doc_[implicit_].get<ElementRef>("transform")
            : (node < nodes_.size() ? nodes_[node].transform : ElementRef::null());
    const std::string_view node_name =
        node == 0 && !implicit_.is_null()
            ? doc_[implicit_].name
            : (node < nodes_.size() ? doc_[nodes_[node].dag].name : std::string_view());
    const char* suffix =
        kind == ChannelKind::orientation ? "_o" : (kind == ChannelKind::scale ? "_s" : "_p");
    const char* attr = kind == ChannelKind::orientation
                           ? "orientation"
                           : (kind == ChannelKind::scale ? "scale" : "position");
    const char* type = values.holds<std::vector<dmx::Quaternion>>()
                           ? "Quaternion"
                           : (values.holds<std::vector<float>>() ? "Float" : "Vector3");
    const ElementRef ch = element("DmeChannel", fmt::format("{}{}", node_name, suffix));
    doc_[ch].set("toAttribute", attr);
    doc_[ch].set("toElement", target);
    doc_[ch].set("mode", std::int32_t{1});
    const ElementRef log = log_layer(type, type, times, clips_[clip].start, std::move(values));
    doc_[ch].set("log", log);
    append(clips_[clip].clip, "channels", ch);
}

void Builder::add_flex_channel(std::uint32_t clip, std::uint32_t control,
                               std::span<const double> times, std::vector<float> values) {
    if (clip >= clips_.size() || control >= controls_.size()) return;
    const ElementRef target = controls_[control];
    const ElementRef ch = element("DmeChannel", fmt::format("{}_flex", doc_[target].name));
    doc_[ch].set("toAttribute", "value");
    doc_[ch].set("toElement", target);
    doc_[ch].set("mode", std::int32_t{1});
    const ElementRef log =
        log_layer("Float", "Float", times, clips_[clip].start, std::move(values));
    doc_[ch].set("log", log);
    append(clips_[clip].clip, "channels", ch);
}

Result<dmx::Document> Builder::finish() {
    const int v = target_.format_version;
    // Joint index space and the bind pose: every node in the order added, after the model (model
    // 22) or the implicit root joint (Source 1) when the model is a root bone.
    std::vector<ElementRef> list, xforms, bind;
    if (root_bone_) {
        if (target_.is_source2()) {
            list.push_back(model_);
            xforms.push_back(nodes_[0].transform);
        } else {
            list.push_back(implicit_);
            const ElementRef t = *doc_[implicit_].get<ElementRef>("transform");
            xforms.push_back(t);
            const std::string name = doc_[implicit_].name;  // copied: transform() may move it
            bind.push_back(transform(name, {}, {0, 0, 0, 1}));
        }
    }
    for (std::size_t i = 1; i < nodes_.size(); ++i) {
        list.push_back(nodes_[i].dag);
        xforms.push_back(nodes_[i].transform);
        bind.push_back(nodes_[i].bind);
    }
    doc_[bind_list_].set("transforms", std::move(bind));
    if (uses_joint_list(v)) doc_[model_].set("jointList", std::move(list));
    if (uses_joint_transforms(v)) doc_[model_].set("jointTransforms", std::move(xforms));

    for (const MeshRec& m : meshes_) {
        if (m.deltas.empty()) continue;
        doc_[m.mesh].set("deltaStates", m.deltas);
        const std::vector<dmx::Vector2> zero(m.deltas.size());
        doc_[m.mesh].set("deltaStateWeights", zero);
        doc_[m.mesh].set("deltaStateWeightsLagged", zero);
        ensure_combination();
        append(combination_, "targets", m.mesh);
    }
    if (!combination_.is_null()) doc_[doc_.root].set("combinationOperator", combination_);
    // "model" marks a reference (Blender Source Tools and studiomdl read a root without it as an
    // animation): set it with meshes, and for a bare skeleton that has no animation list either.
    if (!meshes_.empty() || animation_list_.is_null()) doc_[doc_.root].set("model", model_);
    if (!animation_list_.is_null()) doc_[doc_.root].set("animationList", animation_list_);
    return std::move(doc_);
}

}  // namespace lk::dmxmodel
