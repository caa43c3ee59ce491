#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "levelkit/core/text.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"

namespace lk::dmxmodel {

namespace {

// Dag nesting deeper than this is treated as a broken (or hostile) file.
constexpr std::uint32_t kMaxDepth = 1024;

const dmx::Element* ref(const dmx::Document& doc, const dmx::Element& e, std::string_view attr) {
    const auto* r = e.get<ElementRef>(attr);
    if (!r || !doc.valid(*r)) return nullptr;
    const dmx::Element* x = doc.get(*r);
    return x && !x->external() ? x : nullptr;
}

ElementRef ref_of(const dmx::Document& doc, const dmx::Element& e, std::string_view attr) {
    const auto* r = e.get<ElementRef>(attr);
    if (!r || !doc.valid(*r) || doc[*r].external()) return ElementRef::null();
    return *r;
}

std::span<const ElementRef> refs(const dmx::Element& e, std::string_view attr) {
    const auto* v = e.get<std::vector<ElementRef>>(attr);
    return v ? std::span<const ElementRef>(*v) : std::span<const ElementRef>();
}

template <class T>
std::span<const T> array(const dmx::Element& e, std::string_view attr) {
    const auto* v = e.get<std::vector<T>>(attr);
    return v ? std::span<const T>(*v) : std::span<const T>();
}

std::string_view str(const dmx::Element& e, std::string_view attr) {
    const auto* s = e.get<std::string>(attr);
    return s ? std::string_view(*s) : std::string_view();
}

Diagnostic warn(std::string code, std::string message, std::string path) {
    return Diagnostic::warning(std::move(code), std::move(message)).with_path(std::move(path));
}

// The listed vertex fields of a DmeVertexData / DmeVertexDeltaData with their arrays.
std::vector<Field> read_fields(const dmx::Element& e, const std::string& path, Diagnostics& w) {
    std::vector<Field> out;
    const auto format = array<std::string>(e, "vertexFormat");
    out.reserve(format.size());
    std::string key;
    for (const std::string& name : format) {
        bool again = false;
        for (const Field& seen : out) again = again || seen.name == name;
        if (again) {
            w.add(warn("dmxmodel.repeated-field",
                       fmt::format("vertexFormat lists '{}' twice; the first is read", name),
                       path));
            continue;
        }
        Field f;
        f.name = name;
        f.id = parse_field_name(name);
        const dmx::Attribute* values = e.find(name);
        if (!values || !values->value.is_array()) {
            w.add(warn("dmxmodel.missing-field",
                       fmt::format("vertexFormat lists '{}' but there is no such array", name),
                       path));
            continue;
        }
        f.values = &values->value;
        const bool skin =
            f.id.semantic == Semantic::joint_weights || f.id.semantic == Semantic::joint_indices;
        if (!skin) {
            key.assign(name);
            key += "Indices";
            f.indices = e.get<std::vector<std::int32_t>>(key);
            if (!f.indices) {
                w.add(warn("dmxmodel.missing-indices",
                           fmt::format("field '{}' has no int array '{}'", name, key), path));
                continue;
            }
        }
        out.push_back(f);
    }
    return out;
}

const Field* find_field(const std::vector<Field>& fields, Semantic s, int set) {
    for (const Field& f : fields) {
        if (f.id.semantic == s && f.id.set == set) return &f;
    }
    return nullptr;
}

}  // namespace

const Field* VertexData::find(Semantic s, int set) const {
    return find_field(fields, s, set);
}

const Field* Delta::find(Semantic s, int set) const {
    return find_field(fields, s, set);
}

std::size_t Channel::key_count() const {
    const std::size_t t = times ? times->array_size() : 0;
    const std::size_t v = values ? values->array_size() : 0;
    return std::min(t, v);
}

std::int32_t Channel::tick(std::size_t i) const {
    if (!times) return 0;
    if (const auto* t = times->get_if<std::vector<dmx::Time>>()) return (*t)[i].ticks;
    if (const auto* t = times->get_if<std::vector<std::int32_t>>()) return (*t)[i];
    if (const auto* t = times->get_if<std::vector<float>>()) {
        const double ticks = static_cast<double>((*t)[i]) * dmx::Time::kTicksPerSecond;
        return ticks >= INT32_MIN && ticks <= INT32_MAX
                   ? static_cast<std::int32_t>(std::lround(ticks))
                   : 0;
    }
    return 0;
}

std::uint32_t Clip::frame_count() const {
    const double f =
        std::round(static_cast<double>(duration) / dmx::Time::kTicksPerSecond * frame_rate);
    if (!(f >= 0) || f > 1e7) return 1;
    return static_cast<std::uint32_t>(f) + 1;
}

std::int32_t Model::node_of_transform(ElementRef t) const {
    if (t.index < 0 || static_cast<std::size_t>(t.index) >= transform_node_.size()) return -1;
    return transform_node_[static_cast<std::size_t>(t.index)];
}

std::string Model::node_path(std::uint32_t node) const {
    std::vector<std::uint32_t> chain;
    for (std::int32_t n = static_cast<std::int32_t>(node);
         n >= 0 && static_cast<std::size_t>(n) < nodes.size() && chain.size() <= nodes.size();
         n = nodes[static_cast<std::size_t>(n)].parent) {
        chain.push_back(static_cast<std::uint32_t>(n));
    }
    std::string out = "skeleton";
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (*it == 0 && nodes[0].kind == NodeKind::model) continue;
        out += '/';
        out += nodes[*it].name;
    }
    return out;
}

Result<Model> Model::open(const dmx::Document& doc, Diagnostics& w) {
    Model m;
    m.doc_ = &doc;
    const dmx::Element* root = doc.get(doc.root);
    if (!root || root->external()) {
        return Diagnostic::error("dmxmodel.no-root", "the document has no root element");
    }
    m.root = doc.root;
    m.skeleton = ref_of(doc, *root, "skeleton");
    m.model = ref_of(doc, *root, "model");
    m.combination_operator = ref_of(doc, *root, "combinationOperator");
    m.animation_list = ref_of(doc, *root, "animationList");
    for (const char* a : {"skeleton", "model", "combinationOperator", "animationList"}) {
        const dmx::Attribute* at = root->find(a);
        if (at && !at->value.holds<ElementRef>()) {
            return Diagnostic::error("dmxmodel.bad-root-attribute",
                                     fmt::format("root attribute '{}' is not an element", a))
                .with_path(fmt::format("root/{}", a));
        }
    }
    if (m.skeleton.is_null() && m.model.is_null() && m.combination_operator.is_null() &&
        m.animation_list.is_null()) {
        return Diagnostic::error("dmxmodel.not-a-model",
                                 "the root has no skeleton, model, combinationOperator or "
                                 "animationList")
            .with_path("root");
    }

    const std::size_t n_elements = doc.size();
    std::vector<std::int32_t> node_of_element(n_elements, -1);
    m.transform_node_.assign(n_elements, -1);

    // --- the dag tree, depth-first in child order, each element once ---
    const ElementRef tree = !m.skeleton.is_null() ? m.skeleton : m.model;
    if (!tree.is_null()) {
        struct Item {
            ElementRef e;
            std::int32_t parent;
            std::uint32_t depth;
        };
        std::vector<Item> stack{{tree, -1, 0}};
        if (!m.model.is_null() && m.model != tree) {
            w.add(warn("dmxmodel.model-not-skeleton",
                       "root 'model' and 'skeleton' are different elements; the model's dag "
                       "is read under the skeleton",
                       "root/model"));
        }
        bool deep = false;
        while (!stack.empty()) {
            const Item it = stack.back();
            stack.pop_back();
            const auto ei = static_cast<std::size_t>(it.e.index);
            if (node_of_element[ei] >= 0) {
                w.add(warn("dmxmodel.shared-dag",
                           fmt::format("'{}' is a child of more than one dag; its first place "
                                       "is kept",
                                       doc[it.e].name),
                           m.nodes.empty()
                               ? "skeleton"
                               : m.node_path(static_cast<std::uint32_t>(std::max(it.parent, 0)))));
                continue;
            }
            const dmx::Element& e = doc[it.e];
            Node n;
            n.element = it.e;
            n.parent = it.parent;
            n.depth = it.depth;
            n.name = e.name;
            n.kind = it.parent < 0 ? NodeKind::model
                                   : (e.type == "DmeJoint" ? NodeKind::joint : NodeKind::dag);
            n.transform = ref_of(doc, e, "transform");
            n.shape = ref_of(doc, e, "shape");
            const auto index = static_cast<std::int32_t>(m.nodes.size());
            node_of_element[ei] = index;
            if (!n.transform.is_null()) {
                auto& slot = m.transform_node_[static_cast<std::size_t>(n.transform.index)];
                if (slot < 0) slot = index;
            }
            m.nodes.push_back(n);
            if (it.parent < 0 && !m.model.is_null() && m.model != tree &&
                node_of_element[static_cast<std::size_t>(m.model.index)] < 0) {
                stack.push_back({m.model, index, 1});
            }
            const auto kids = refs(e, "children");
            if (it.depth + 1 > kMaxDepth) {
                if (!kids.empty()) deep = true;
                continue;
            }
            for (auto c = kids.rbegin(); c != kids.rend(); ++c) {
                if (doc.valid(*c) && !doc[*c].external())
                    stack.push_back({*c, index, it.depth + 1});
            }
        }
        if (deep) {
            w.add(warn("dmxmodel.too-deep",
                       fmt::format("dags nest deeper than {}; deeper ones are skipped", kMaxDepth),
                       "skeleton"));
        }
    }

    const dmx::Element* model_el = m.nodes.empty() ? nullptr : &doc[m.nodes[0].element];

    // --- joint index space ---
    if (model_el) {
        const dmx::Attribute* list = model_el->find("jointList");
        const dmx::Attribute* xforms = model_el->find("jointTransforms");
        const auto* list_v = list ? list->value.get_if<std::vector<ElementRef>>() : nullptr;
        const auto* xf_v = xforms ? xforms->value.get_if<std::vector<ElementRef>>() : nullptr;
        if (list_v && (uses_joint_list(m.version()) || !xf_v)) {
            m.joint_space = JointSpace::joint_list;
            m.joints.reserve(list_v->size());
            for (ElementRef r : *list_v) {
                m.joints.push_back(doc.valid(r) ? node_of_element[static_cast<std::size_t>(r.index)]
                                                : -1);
            }
            m.model_is_joint0 = !list_v->empty() && (*list_v)[0] == m.nodes[0].element;
        } else if (xf_v) {
            m.joint_space = JointSpace::joint_transforms;
            m.joints.reserve(xf_v->size());
            for (ElementRef r : *xf_v) m.joints.push_back(m.node_of_transform(r));
        }
        for (std::size_t i = 0; i < m.joints.size(); ++i) {
            if (m.joints[i] < 0) {
                w.add(warn("dmxmodel.joint-not-in-tree",
                           fmt::format("joint {} is not a dag of the skeleton", i),
                           fmt::format("skeleton/{}[{}]",
                                       m.joint_space == JointSpace::joint_list ? "jointList"
                                                                               : "jointTransforms",
                                       i)));
            }
        }

        // --- bind pose: the base state named "bind" (studiomdl), else the first ---
        const auto states = refs(*model_el, "baseStates");
        for (ElementRef s : states) {
            if (!doc.valid(s) || doc[s].external()) continue;
            if (m.bind_pose.is_null() || doc[s].name == "bind") m.bind_pose = s;
            if (doc[s].name == "bind") break;
        }
        if (!m.bind_pose.is_null()) {
            const auto xf = refs(doc[m.bind_pose], "transforms");
            m.bind_pose_nodes.assign(xf.size(), -1);
            // Entries follow the joint space, without the model when it is joint 0; files that
            // do not line up are matched by name (transforms are named after their joints).
            std::size_t offset = SIZE_MAX;
            if (xf.size() == m.joints.size()) offset = 0;
            if (m.model_is_joint0 && xf.size() + 1 == m.joints.size()) offset = 1;
            for (std::size_t i = 0; i < xf.size(); ++i) {
                std::int32_t node = -1;
                if (offset != SIZE_MAX) node = m.joints[i + offset];
                if ((node < 0 || m.nodes[static_cast<std::size_t>(node)].name !=
                                     (doc.valid(xf[i]) ? std::string_view(doc[xf[i]].name) : "")) &&
                    doc.valid(xf[i])) {
                    const std::string_view want = doc[xf[i]].name;
                    std::int32_t found = -1;
                    for (std::size_t k = 1; k < m.nodes.size(); ++k) {
                        if (m.nodes[k].name == want) {
                            found = found == -1 ? static_cast<std::int32_t>(k) : -2;
                        }
                    }
                    if (found >= 0) node = found;
                }
                m.bind_pose_nodes[i] = node;
            }
        }

        // --- axes ---
        if (const dmx::Element* ax = ref(doc, *model_el, "axisSystem")) {
            m.axes.axis_system = true;
            m.axes.up = ax->get_or<std::int32_t>("upAxis", 3);
            m.axes.forward_parity = ax->get_or<std::int32_t>("forwardParity", 1);
            m.axes.coord_sys = ax->get_or<std::int32_t>("coordSys", 0);
        }
        m.axes.up_string = str(*model_el, "upAxis");
        if (!m.axes.axis_system && !m.axes.up_string.empty()) {
            const char c = static_cast<char>(m.axes.up_string[0] | 0x20);
            m.axes.up = c == 'x' ? 1 : (c == 'y' ? 2 : 3);
        }
    }

    // --- meshes and attachments ---
    for (std::size_t ni = 0; ni < m.nodes.size(); ++ni) {
        const Node& node = m.nodes[ni];
        const dmx::Element* shape = doc.get(node.shape);
        if (!shape) continue;
        if (shape->type == "DmeAttachment") {
            Attachment a;
            a.node = static_cast<std::uint32_t>(ni);
            a.element = node.shape;
            a.name = shape->name;
            a.rigid = shape->get_or<bool>("isRigid", true);
            a.world_aligned = shape->get_or<bool>("isWorldAligned", false);
            m.attachments.push_back(a);
            continue;
        }
        if (shape->type != "DmeMesh") continue;
        Mesh mesh;
        mesh.node = static_cast<std::uint32_t>(ni);
        mesh.element = node.shape;
        const std::string mpath = fmt::format("meshes[{}] '{}'", m.meshes.size(), shape->name);
        ElementRef vd;
        for (ElementRef s : refs(*shape, "baseStates")) {
            if (doc.valid(s) && !doc[s].external() && doc[s].name == "bind") {
                vd = s;
                break;
            }
        }
        if (vd.is_null()) vd = ref_of(doc, *shape, "bindState");
        if (vd.is_null()) vd = ref_of(doc, *shape, "currentState");
        if (vd.is_null()) {
            const auto states = refs(*shape, "baseStates");
            if (!states.empty() && doc.valid(states[0]) && !doc[states[0]].external()) {
                vd = states[0];
            }
        }
        if (vd.is_null()) {
            w.add(warn("dmxmodel.no-vertex-data", "the mesh has no DmeVertexData", mpath));
        } else {
            const dmx::Element& v = doc[vd];
            mesh.bind.element = vd;
            mesh.bind.fields = read_fields(v, mpath + "/" + v.name, w);
            mesh.bind.joint_count = v.get_or<std::int32_t>("jointCount", 0);
            mesh.bind.flip_v = v.get_or<bool>("flipVCoordinates", false);
            std::size_t corners = SIZE_MAX;
            for (const Field& f : mesh.bind.fields) {
                if (f.indices) corners = std::min(corners, f.indices->size());
            }
            mesh.bind.corner_count = corners == SIZE_MAX ? 0 : corners;
        }
        for (ElementRef fs : refs(*shape, "faceSets")) {
            if (!doc.valid(fs) || doc[fs].external()) continue;
            const dmx::Element& f = doc[fs];
            FaceSet set;
            set.element = fs;
            set.faces = f.get<std::vector<std::int32_t>>("faces");
            set.material = ref_of(doc, f, "material");
            if (const dmx::Element* mat = doc.get(set.material)) {
                const auto* name = mat->get<std::string>("mtlName");
                set.material_name = name ? std::string_view(*name) : std::string_view(mat->name);
            }
            mesh.face_sets.push_back(set);
        }
        for (ElementRef ds : refs(*shape, "deltaStates")) {
            if (!doc.valid(ds) || doc[ds].external()) continue;
            const dmx::Element& d = doc[ds];
            Delta delta;
            delta.element = ds;
            delta.name = d.name;
            delta.fields = read_fields(d, fmt::format("{}/deltaStates '{}'", mpath, d.name), w);
            delta.corrected = d.get_or<bool>("corrected", false);
            mesh.deltas.push_back(std::move(delta));
        }
        m.meshes.push_back(std::move(mesh));
    }

    // --- flex ---
    std::vector<std::int32_t> control_of_element;
    if (const dmx::Element* op = doc.get(m.combination_operator)) {
        control_of_element.assign(n_elements, -1);
        for (ElementRef c : refs(*op, "controls")) {
            if (!doc.valid(c) || doc[c].external()) continue;
            const dmx::Element& e = doc[c];
            Control k;
            k.element = c;
            k.name = e.name;
            k.raw_controls = array<std::string>(e, "rawControlNames");
            k.stereo = e.get_or<bool>("stereo", false);
            k.eyelid = e.get_or<bool>("eyelid", false);
            k.min = e.get_or<float>("flexMin", 0.0f);
            k.max = e.get_or<float>("flexMax", 1.0f);
            k.wrinkle_scales = array<float>(e, "wrinkleScales");
            k.eyes_up_down = str(e, "eyesUpDownFlex");
            control_of_element[static_cast<std::size_t>(c.index)] =
                static_cast<std::int32_t>(m.controls.size());
            m.controls.push_back(k);
        }
        for (ElementRef d : refs(*op, "dominators")) {
            if (!doc.valid(d) || doc[d].external()) continue;
            DominationRule r;
            r.element = d;
            r.dominators = array<std::string>(doc[d], "dominators");
            r.suppressed = array<std::string>(doc[d], "suppressed");
            m.domination_rules.push_back(r);
        }
        for (ElementRef t : refs(*op, "targets")) {
            if (doc.valid(t) && doc[t].type == "DmeFlexRules") m.flex_rules.push_back(t);
        }
    }

    // --- animation ---
    if (const dmx::Element* list = doc.get(m.animation_list)) {
        for (ElementRef c : refs(*list, "animations")) {
            if (!doc.valid(c) || doc[c].external()) continue;
            const dmx::Element& e = doc[c];
            const std::string cpath =
                fmt::format("animationList/animations[{}] '{}'", m.clips.size(), e.name);
            Clip clip;
            clip.element = c;
            clip.name = e.name;
            clip.frame_rate = e.get_or<float>("frameRate", 30.0f);
            if (!(clip.frame_rate > 0) || !std::isfinite(clip.frame_rate)) {
                w.add(warn("dmxmodel.bad-frame-rate",
                           fmt::format("frameRate {} is not positive; 30 is used", clip.frame_rate),
                           cpath));
                clip.frame_rate = 30;
            }
            clip.time_frame = ref_of(doc, e, "timeFrame");
            if (const dmx::Element* tf = doc.get(clip.time_frame)) {
                auto ticks = [&](std::string_view time_attr, std::string_view int_attr) {
                    if (const auto* t = tf->get<dmx::Time>(time_attr)) return t->ticks;
                    if (auto i = tf->get_as<std::int32_t>(int_attr)) return *i;
                    if (auto f = tf->get_as<float>(time_attr)) {
                        const double v = static_cast<double>(*f) * dmx::Time::kTicksPerSecond;
                        if (v >= INT32_MIN && v <= INT32_MAX) {
                            return static_cast<std::int32_t>(std::lround(v));
                        }
                    }
                    return std::int32_t{0};
                };
                clip.start = ticks("start", "startTime");
                clip.duration = ticks("duration", "durationTime");
            }
            for (ElementRef ch : refs(e, "channels")) {
                if (!doc.valid(ch) || doc[ch].external()) continue;
                const dmx::Element& ce = doc[ch];
                Channel k;
                k.element = ch;
                k.target = ref_of(doc, ce, "toElement");
                k.attribute = str(ce, "toAttribute");
                k.log = ref_of(doc, ce, "log");
                if (const dmx::Element* log = doc.get(k.log)) {
                    const auto layers = refs(*log, "layers");
                    k.layer_count = layers.size();
                    if (!layers.empty() && doc.valid(layers[0]) && !doc[layers[0]].external()) {
                        k.layer = layers[0];
                        const dmx::Element& layer = doc[k.layer];
                        const dmx::Attribute* t = layer.find("times");
                        const dmx::Attribute* v = layer.find("values");
                        if (t && t->value.is_array()) k.times = &t->value;
                        if (v && v->value.is_array()) k.values = &v->value;
                    }
                }
                if (!k.target.is_null()) {
                    k.node = m.node_of_transform(k.target);
                    if (k.node >= 0) {
                        if (k.attribute == "position") k.kind = ChannelKind::position;
                        if (k.attribute == "orientation") k.kind = ChannelKind::orientation;
                        if (k.attribute == "scale") k.kind = ChannelKind::scale;
                    } else if (!control_of_element.empty()) {
                        k.control = control_of_element[static_cast<std::size_t>(k.target.index)];
                        if (k.control >= 0) k.kind = ChannelKind::flex;
                    }
                }
                clip.channels.push_back(k);
            }
            m.clips.push_back(std::move(clip));
        }
    }
    return m;
}

Stats stats(const Model& m) {
    Stats s;
    s.version = m.version();
    s.encoding = fmt::format("{} {}", m.doc().header.encoding, m.doc().header.encoding_version);
    s.meshes = m.meshes.size();
    std::vector<std::string_view> materials;
    for (const Mesh& mesh : m.meshes) {
        if (const Field* p = mesh.bind.find(Semantic::position)) s.vertices += p->size();
        s.corners += mesh.bind.corner_count;
        for (const FaceSet& f : mesh.face_sets) {
            bool open = false;
            for (std::int32_t x : f.face_span()) {
                if (x < 0) {
                    if (open) ++s.faces;
                    open = false;
                } else {
                    open = true;
                }
            }
            if (open) ++s.faces;
            if (std::find(materials.begin(), materials.end(), f.material_name) == materials.end()) {
                materials.push_back(f.material_name);
            }
        }
        s.shapes += mesh.deltas.size();
    }
    s.materials = materials.size();
    for (const Node& n : m.nodes) {
        if (n.kind == NodeKind::joint) ++s.joints;
    }
    if (m.model_is_joint0) ++s.joints;
    s.controllers = m.controls.size();
    s.clips = m.clips.size();
    for (const Clip& c : m.clips) s.frames += c.frame_count();
    return s;
}

}  // namespace lk::dmxmodel
