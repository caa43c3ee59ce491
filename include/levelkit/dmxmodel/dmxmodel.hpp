// DMX models (studiomdl / ModelDoc sources): a typed, editable layer over the DMX datamodel
// (notes/model-wmp.md part A).
//
// `Model` reads a model document without copying it: nodes, meshes, vertex fields, face sets,
// delta states, flex controls and animation channels are element references and spans into the
// dmx::Document, which stays the single owner of the data. Edits go through the document (the
// helpers below keep attribute types and order), so writing the document back after no edit is
// the DMX round trip (byte-identical; unknown elements and attributes stay), and after an edit
// differs by exactly that edit.
//
// Version facts the view resolves (model format versions; see the helpers below):
// - joint index space: `jointList` from 11, `jointTransforms` (DmeTransforms) below; when the
//   list's first entry is the DmeModel itself (Source 2 exporters) skin indices count it as 0.
// - vertex field names: Source 1 names ("positions", "textureCoordinates", "jointWeights") and the
//   Source 2 "semantic$index" names ("position$0", "texcoord$1", "blendweights$0") are both
//   read, whatever the version says. Skin weights/indices have no index array: they are indexed by
//   position value, `jointCount` slots each.
// - log times: Time arrays (from 12) or int arrays of 1/10000 s ticks; DmeTimeFrame `duration`
//   (Time) or `durationTime` (int, below 11); `frameRate` int (Source 1) or float (22).
// - up axis: DmeAxisSystem `axisSystem` (22) or the old `upAxis` string on the DmeModel.
//
// `Builder` writes a new model document at a chosen target (Source 1 binary 2 / model 1 or
// binary 5 / model 18, Source 2 binary 9 / model 22) and writes the version-dependent parts the
// way that target's tools expect them; `retarget` converts an existing document in place.
//
// Lifetimes: the view's string_views into element names die when the document's element vector
// grows (adding elements) or a name changes; views into attribute values survive adding
// elements. Open the model again after structural edits.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/dmx/document.hpp"

namespace lk::dmxmodel {

using dmx::ElementRef;

// --- vertex fields -------------------------------------------------------------------------

enum class Semantic : std::uint8_t {
    position,
    normal,
    tangent,
    texcoord,
    color,
    joint_weights,
    joint_indices,
    balance,
    speed,
    wrinkle,
    weight,
    other,
};
std::string_view to_string(Semantic s);

struct FieldId {
    Semantic semantic = Semantic::other;
    int set = 0;
    bool operator==(const FieldId&) const = default;
};

// "positions" / "position$0" -> {position, 0}; "texcoord$1" -> {texcoord, 1}; unknown names (and
// known semantics with a bad index) -> {other, 0}.
FieldId parse_field_name(std::string_view name);
// The name a model of `format_version` gives the field: Source 1 names below 22 (extra texture
// coordinate sets as "texcoord$N", as CS:GO's studiomdl reads them), "semantic$index" from 22.
std::string field_name(Semantic s, int set, int format_version);

// Version facts (model format versions).
constexpr bool uses_joint_list(int v) {
    return v >= 11;
}
constexpr bool uses_joint_transforms(int v) {
    return v <= 20;
}
constexpr bool uses_time_arrays(int v) {
    return v > 11;
}
constexpr bool uses_duration_time(int v) {
    return v < 11;
}
constexpr bool uses_float_frame_rate(int v) {
    return v >= 22;
}
constexpr bool uses_axis_system(int v) {
    return v >= 22;
}
// What joins corrective shape names: "__" for ModelDoc (22), "_" for studiomdl.
std::string_view corrective_separator(int format_version);

// --- the typed view ------------------------------------------------------------------------

enum class NodeKind : std::uint8_t { model, joint, dag };

struct Node {
    ElementRef element;    // DmeModel (node 0), DmeJoint, DmeDag
    ElementRef transform;  // its DmeTransform, or null
    ElementRef shape;      // DmeMesh, DmeAttachment or null
    std::int32_t parent = -1;
    std::uint32_t depth = 0;
    NodeKind kind = NodeKind::dag;
    std::string_view name;
};

// One vertex field of a DmeVertexData / DmeVertexDeltaData.
struct Field {
    std::string_view name;
    FieldId id;
    const dmx::Value* values = nullptr;                  // an array value
    const std::vector<std::int32_t>* indices = nullptr;  // null for skin fields

    std::size_t size() const { return values ? values->array_size() : 0; }
    template <class T>
    std::span<const T> as() const {
        const auto* v = values ? values->get_if<std::vector<T>>() : nullptr;
        return v ? std::span<const T>(*v) : std::span<const T>();
    }
    std::span<const std::int32_t> index_span() const {
        return indices ? std::span<const std::int32_t>(*indices) : std::span<const std::int32_t>();
    }
};

struct VertexData {
    ElementRef element;
    std::vector<Field> fields;  // vertexFormat order; only fields with their arrays present
    std::int32_t joint_count = 0;
    bool flip_v = false;           // flipVCoordinates: v is stored bottom-up (1 - D3D's v)
    std::size_t corner_count = 0;  // shortest index array (studiomdl's vertex count)
    const Field* find(Semantic s, int set = 0) const;
};

struct FaceSet {
    ElementRef element, material;
    std::string_view material_name;  // mtlName (the DmeMaterial's name when it has none)
    const std::vector<std::int32_t>* faces = nullptr;
    std::span<const std::int32_t> face_span() const {
        return faces ? std::span<const std::int32_t>(*faces) : std::span<const std::int32_t>();
    }
};

struct Delta {
    ElementRef element;
    std::string_view name;
    std::vector<Field> fields;
    bool corrected = false;
    const Field* find(Semantic s, int set = 0) const;
};

struct Mesh {
    std::uint32_t node = 0;  // the DmeDag holding it
    ElementRef element;      // DmeMesh
    VertexData bind;         // the base state studiomdl uses ("bind")
    std::vector<FaceSet> face_sets;
    std::vector<Delta> deltas;
};

struct Attachment {
    std::uint32_t node = 0;  // the DmeDag whose shape it is
    ElementRef element;      // DmeAttachment
    std::string_view name;
    bool rigid = true, world_aligned = false;
};

struct Control {
    ElementRef element;
    std::string_view name;
    std::span<const std::string> raw_controls;
    bool stereo = false, eyelid = false;
    float min = 0, max = 1;
    std::span<const float> wrinkle_scales;
    std::string_view eyes_up_down;
};

struct DominationRule {
    ElementRef element;
    std::span<const std::string> dominators, suppressed;
};

enum class ChannelKind : std::uint8_t { position, orientation, scale, flex, other };

struct Channel {
    ElementRef element, target, log, layer;
    std::string_view attribute;  // toAttribute
    ChannelKind kind = ChannelKind::other;
    std::int32_t node = -1;              // node whose transform it drives
    std::int32_t control = -1;           // control it drives (flex)
    const dmx::Value* times = nullptr;   // time_array or int32_array (ticks)
    const dmx::Value* values = nullptr;  // vector3 / quaternion / float array
    std::size_t key_count() const;
    std::int32_t tick(std::size_t i) const;  // key time in 1/10000 s
    std::size_t layer_count = 0;             // studiomdl and BST use layer 0
};

struct Clip {
    ElementRef element, time_frame;
    std::string_view name;
    double frame_rate = 30;
    std::int32_t start = 0, duration = 0;  // ticks
    std::vector<Channel> channels;
    std::uint32_t frame_count() const;  // round(duration * frame_rate) + 1
};

enum class JointSpace : std::uint8_t { none, joint_list, joint_transforms };

struct Axes {
    int up = 3;                  // DmeAxisSystem upAxis: 1 = X, 2 = Y, 3 = Z, negative = -axis
    int forward_parity = 1;      // 1 even, 2 odd (negative = -)
    int coord_sys = 0;           // 0 right-handed, 1 left-handed
    bool axis_system = false;    // read from a DmeAxisSystem
    std::string_view up_string;  // the old DmeModel `upAxis` string ("Y", "Z")
};

class Model {
public:
    // Reads the model schema of `doc` (which must outlive the Model and not change structure while
    // it is used). Fails when the root holds none of skeleton / model / combinationOperator /
    // animationList, or when `skeleton` / `model` is not an element. Oddities a reader can work
    // around (a shared child, a missing array, an unknown vertex field) are warnings.
    static Result<Model> open(const dmx::Document& doc, Diagnostics& warnings);

    const dmx::Document& doc() const { return *doc_; }
    int version() const { return doc_->header.format_version; }

    ElementRef root, skeleton, model, combination_operator, animation_list;
    std::vector<Node> nodes;  // nodes[0] = the DmeModel (when there is one), then depth-first
    JointSpace joint_space = JointSpace::none;
    std::vector<std::int32_t> joints;  // skin index -> node, -1 when the entry is no tree node
    bool model_is_joint0 = false;      // jointList[0] is the DmeModel
    ElementRef bind_pose;              // DmeTransformList "bind" (or the model's first base state)
    std::vector<std::int32_t> bind_pose_nodes;  // per transform of bind_pose: its node or -1
    std::vector<Mesh> meshes;
    std::vector<Attachment> attachments;
    std::vector<Control> controls;
    std::vector<DominationRule> domination_rules;
    std::vector<ElementRef> flex_rules;  // Source 2 DmeFlexRules targets (kept, not interpreted)
    std::vector<Clip> clips;
    Axes axes;

    // The node a DmeTransform belongs to, or -1.
    std::int32_t node_of_transform(ElementRef transform) const;
    // "skeleton/Bone/Cube" style path of a node.
    std::string node_path(std::uint32_t node) const;

private:
    const dmx::Document* doc_ = nullptr;
    std::vector<std::int32_t> transform_node_;  // per element index
};

// Model::open as a free function (the reader shape used across the project).
inline Result<Model> open(const dmx::Document& doc, Diagnostics& warnings) {
    return Model::open(doc, warnings);
}

// Figures for `levelkit info`.
struct Stats {
    std::size_t meshes = 0;
    std::size_t vertices = 0;   // points (position values)
    std::size_t corners = 0;    // face-vertices
    std::size_t faces = 0;      // polygons
    std::size_t materials = 0;  // distinct material names
    std::size_t joints = 0;     // DmeJoint nodes (+ the model when it is joint 0)
    std::size_t shapes = 0;     // delta states
    std::size_t controllers = 0;
    std::size_t clips = 0;
    std::size_t frames = 0;  // over every clip
    int version = 0;         // model format version
    std::string encoding;    // "binary 9"
};
Stats stats(const Model& m);

// Checks the model against what studiomdl (Source 1) and ModelDoc (Source 2) expect: every index
// in range, index arrays as long as the positions', skin weights summing to 1 within 1e-3 and
// joint indices inside the joint space, face sets with materials and polygons of >= 3 corners,
// delta-state indices valid and named after controls, animation channels driving existing
// transforms with ascending times. Each problem is a Diagnostic (error when a compiler would
// fail or read garbage, warning for what it fixes up) whose path names the element
// ("meshes[0] 'Cube'/bind/position$0Indices[12]"). Returns the number of errors.
std::size_t validate(const Model& m, Diagnostics& out, std::size_t max_per_kind = 16);

// --- edits ---------------------------------------------------------------------------------
// Each changes attribute values in place (type and position kept) so everything else in the
// document stays as it was; the Model view remains valid.

// Sets a DmeMaterial's mtlName (and its element name when that equalled the old mtlName).
Result<void> rename_material(dmx::Document& doc, ElementRef material, std::string_view name);
// Sets a node's DmeTransform, and the matching entry of the bind pose when `bind_too`.
Result<void> set_transform(dmx::Document& doc, const Model& m, std::uint32_t node,
                           const dmx::Vector3& position, const dmx::Quaternion& orientation,
                           bool bind_too = true);
// Renames a node's dag and its transform (studiomdl names bones after the transform). The
// names the Model view holds point at the old strings: open the model again after renaming.
Result<void> rename_node(dmx::Document& doc, const Model& m, std::uint32_t node,
                         std::string_view name);

// --- writing new models ---------------------------------------------------------------------

struct Target {
    std::string encoding = "binary";
    int encoding_version = 9;
    int format_version = 22;

    static Target source1_legacy() { return {"binary", 2, 1}; }  // SDK 2013 / GMod default
    static Target source1() { return {"binary", 5, 18}; }        // OrangeBox .. CS:GO
    static Target source2() { return {"binary", 9, 22}; }        // ModelDoc
    // "source1", "source1-legacy", "source2", or "binary:5/model:18", "keyvalues2:1/model:22".
    static std::optional<Target> parse(std::string_view text);
    bool is_source2() const { return format_version >= 22; }
};

// Converts a model document in place to `target`: vertex field names, jointList /
// jointTransforms, the model as joint 0 (Source 1 gets a root DmeJoint "blender_implicit" in its
// slot, so skin indices stay), DmeTimeFrame and log times (Time or int ticks), frameRate (float
// from 22, int below when whole), axisSystem / upAxis, corrective names' separator, then the
// header and encoding (dmx::convert, integers coerced, a prefix demoted). Every other element and
// attribute stays as it was. The document reads back to the same neutral model.
Result<void> retarget(dmx::Document& doc, const Target& target, Diagnostics& warnings);

struct DeltaField {
    Semantic semantic = Semantic::position;
    dmx::Value values;  // vector3 array (position, normal) or float array (wrinkle, speed)
    std::vector<std::int32_t> indices;
};

struct ControlData {
    std::string name;
    std::vector<std::string> raw_controls;
    bool stereo = false, eyelid = false;
    float min = 0, max = 1;
    dmx::Vector3 value{0, 0, 0.5f};
    std::vector<float> wrinkle_scales;
    std::string eyes_up_down;
};

// Builds a model document element by element. Node 0 is the DmeModel; nodes are added parents
// first and every node is in the joint index space in the order added (after the model when it
// is a root bone), as Blender Source Tools lays it out.
class Builder {
public:
    Builder(const Target& target, std::string_view scene_name, std::string_view model_name,
            std::uint64_t seed = 0x6c6576656c6b6974ull);

    const Target& target() const { return target_; }
    dmx::Document& doc() { return doc_; }

    // Makes the model itself skinnable: model 22 lists the DmeModel as joint 0; Source 1 has no
    // such thing, so a root DmeJoint named `implicit_name` takes its place.
    void set_root_bone(std::string_view implicit_name);
    void set_model_transform(const dmx::Vector3& position, const dmx::Quaternion& orientation);
    // up: 1..3 (negative = -axis); written as axisSystem (22) or as the old upAxis string when
    // it is not Z.
    void set_axes(int up, int forward_parity = 1, int coord_sys = 0);

    // Adds a DmeJoint (joint) or DmeDag under `parent` (0 = the model); returns the node index.
    std::uint32_t add_node(std::string_view name, std::uint32_t parent, bool joint,
                           const dmx::Vector3& position, const dmx::Quaternion& orientation);
    // The bind pose of a node when it differs from its transform.
    void set_bind(std::uint32_t node, const dmx::Vector3& position,
                  const dmx::Quaternion& orientation);
    void add_attachment(std::uint32_t node, std::string_view name, bool rigid, bool world_aligned);
    // Skin index of a node in the file's joint space (0 = the model when it is a root bone).
    std::int32_t joint_index(std::uint32_t node) const;
    std::size_t node_count() const { return nodes_.size(); }

    // A DmeMesh as the shape of dag node `node`; returns the mesh index.
    std::uint32_t add_mesh(std::uint32_t node, std::string_view name);
    // A vertex field named for the target; `values` is an array value. False (nothing added)
    // when the vertex data already has an attribute of that name or of its index array.
    bool add_field(std::uint32_t mesh, Semantic s, int set, dmx::Value values,
                   std::vector<std::int32_t> indices);
    // A vertex field kept by its own name (Source 2 paint layers, cloth maps).
    bool add_field(std::uint32_t mesh, std::string_view name, dmx::Value values,
                   std::vector<std::int32_t> indices);
    // Weights and joint indices (file joint space), joint_count per position value.
    void set_skin(std::uint32_t mesh, std::int32_t joint_count, std::vector<float> weights,
                  std::vector<std::int32_t> joint_indices);
    void add_face_set(std::uint32_t mesh, std::string_view material,
                      std::vector<std::int32_t> faces);
    void add_delta(std::uint32_t mesh, std::string_view name, std::vector<DeltaField> fields,
                   bool corrected = false);

    void add_control(const ControlData& c);
    void add_domination_rule(std::vector<std::string> dominators,
                             std::vector<std::string> suppressed);

    // A DmeChannelsClip; `start`/`duration` in seconds.
    std::uint32_t add_clip(std::string_view name, double frame_rate, double start, double duration);
    // Keys of a node's transform; times in seconds from the clip start. `values`: vector3 array
    // (position, scale) or quaternion array (orientation).
    void add_channel(std::uint32_t clip, std::uint32_t node, ChannelKind kind,
                     std::span<const double> times, dmx::Value values);
    void add_flex_channel(std::uint32_t clip, std::uint32_t control, std::span<const double> times,
                          std::vector<float> values);

    // The finished document (header per the target).
    Result<dmx::Document> finish();

private:
    struct NodeRec {
        ElementRef dag, transform, bind;
        bool joint = false;
    };
    struct MeshRec {
        ElementRef mesh, vertex_data;
        std::vector<ElementRef> face_sets, deltas;
    };
    struct ClipRec {
        ElementRef clip;
        std::int32_t start = 0;
    };
    ElementRef element(std::string_view type, std::string_view name);
    void ensure_combination();
    ElementRef transform(std::string_view name, const dmx::Vector3& p, const dmx::Quaternion& q);
    void append(ElementRef owner, std::string_view attr, ElementRef item);
    ElementRef log_layer(std::string_view log_type, std::string_view name,
                         std::span<const double> times, std::int32_t start, dmx::Value values);

    Target target_;
    dmx::Document doc_;
    std::uint64_t state_;
    ElementRef model_, bind_list_, combination_, animation_list_;
    ElementRef implicit_;  // Source 1 root bone
    bool root_bone_ = false;
    std::vector<NodeRec> nodes_;
    std::vector<MeshRec> meshes_;
    std::vector<ElementRef> controls_;
    std::vector<ClipRec> clips_;
    std::string model_name_;
};

}  // namespace lk::dmxmodel
