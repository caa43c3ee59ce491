// The neutral model: what every model format (DMX models, SMD/VTA, glTF, OBJ) converts into and
// out of. Plain structs that depend only on core; no format knows another's representation.
//
// Contract
// - Nodes: `nodes[0]` is the model itself (kind `model`, parent -1); every other node has a parent
//   with a smaller index (parents come first). Joints are the skinning bones; `dag` nodes are plain
//   transforms that place meshes or attachments (DMX DmeDag). `root_bone` says that the model node
//   is itself a bone vertices can be weighted to (DMX model 22's joint 0, an SMD's implicit
//   "blender_implicit"/"root" bone).
// - Transforms: `Node::bind` is the rest (bind) pose relative to the parent node and is what
//   skinning, reference SMDs and glTF inverse bind matrices use. `Node::pose` is the node's current
//   transform (a DMX DmeDag's own `transform`, often equal to `bind`). Rotations are unit
//   quaternions (x, y, z, w); a transform applies scale, then rotation, then translation.
// - Meshes keep DMX's face-vertex ("corner") layout, which is also OBJ's and lossless for both: a
//   mesh has `corner_count()` corners; each vertex field maps every corner to one of its values
//   through its own index array (`Indexed`). Positions are the mesh's points: skin weights and
//   shape-key position deltas are per point (per `positions.values` entry), so shared points stay
//   shared. `flatten()` welds corners into one index space for formats with single-index
//   vertices (glTF, SMD).
// - Polygons: a face set is a material and polygons of any size, as corner lists; winding is
//   counter-clockwise seen from the front (the side the normals point to).
// - Texture coordinates: (u, v) with v pointing up (origin at the bottom-left of the image, as SMD,
//   Blender and DMX with flipVCoordinates store them). glTF writers use 1 - v.
// - Space and units: positions are in the node's local space, in `units_per_meter` units per metre
//   (Source: inches, 39.37). `up_axis` names the data's up axis; converters keep the data as it is
//   unless an option says to rotate.
// - Animation: clips hold keyed channels per node (translation, rotation, scale; times in seconds
//   from the clip start, linear/slerp between keys, values relative to the parent like `bind`) and
//   per flex controller. Sampled formats (SMD) simply key every frame.
// - Shape keys are sparse deltas relative to the base mesh; correctives are shapes whose names
//   join controller raw names (`corrective_drivers`).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/diagnostic.hpp"

namespace lk::model {

// --- math ----------------------------------------------------------------------------------

struct Vec2f {
    float x = 0, y = 0;
    constexpr bool operator==(const Vec2f&) const = default;
};
struct Vec3f {
    float x = 0, y = 0, z = 0;
    constexpr bool operator==(const Vec3f&) const = default;
};
struct Vec4f {
    float x = 0, y = 0, z = 0, w = 0;
    constexpr bool operator==(const Vec4f&) const = default;
};
struct Quat {
    float x = 0, y = 0, z = 0, w = 1;
    constexpr bool operator==(const Quat&) const = default;
};

struct Transform {
    Vec3f translation;
    Quat rotation;
    Vec3f scale{1, 1, 1};
    constexpr bool operator==(const Transform&) const = default;
};

// Double-precision affine transform (rotation-scale rows + translation) for composing hierarchies.
struct Affine {
    double m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double t[3] = {0, 0, 0};

    static Affine from(const Transform& t);
    Affine operator*(const Affine& o) const;  // this after o
    Vec3f point(const Vec3f& p) const;
    Vec3f vector(const Vec3f& v) const;  // no translation
    // Normals: inverse transpose of the linear part, renormalised.
    Vec3f normal(const Vec3f& n) const;
    Affine inverse() const;
};

Quat normalize(const Quat& q);
Quat multiply(const Quat& a, const Quat& b);  // a then applied after b: rotate(a*b, v) = a(b(v))
Vec3f rotate(const Quat& q, const Vec3f& v);
Quat slerp(const Quat& a, const Quat& b, float t);  // shortest path
// Rotation angle between two rotations in radians (q and -q are the same rotation).
double angle_between(const Quat& a, const Quat& b);
// SMD / Blender "XYZ" Euler angles in radians: R = Rz * Ry * Rx.
Quat from_euler_xyz(const Vec3f& radians);
Vec3f to_euler_xyz(const Quat& q);

// --- skeleton ------------------------------------------------------------------------------

enum class NodeKind : std::uint8_t {
    model,  // nodes[0]
    joint,  // a bone: DmeJoint, an SMD node
    dag,    // a plain transform: the DmeDag of a mesh or an attachment, a helper
};

struct Node {
    std::string name;
    std::int32_t parent = -1;  // -1 only for nodes[0]
    NodeKind kind = NodeKind::joint;
    Transform bind;  // rest pose relative to the parent
    Transform pose;  // current transform relative to the parent (== bind unless a file says else)
};

struct Attachment {
    std::string name;
    std::uint32_t node = 0;  // the node carrying it; its transform places the attachment
    bool rigid = true;
    bool world_aligned = false;
};

// An eye (studiomdl $eyeball / DmeEyeball in CS:GO model pre-process files).
struct Eyeball {
    std::string name;
    std::uint32_t node = 0;  // the bone the eye moves with
    Vec3f position;          // centre, in the node's space
    float radius = 0;
    float iris_scale = 1;
    float yaw_degrees = 0;  // angular offset of the iris
    std::string material;
};

// --- meshes --------------------------------------------------------------------------------

// A per-corner attribute: `indices[c]` is the value of corner c. Empty indices = absent.
template <class T>
struct Indexed {
    std::vector<T> values;
    std::vector<std::uint32_t> indices;

    bool present() const { return !indices.empty(); }
    const T& at(std::size_t corner) const { return values[indices[corner]]; }
    bool operator==(const Indexed&) const = default;
};

// A vertex field no named slot holds (Source 2 paint layers, cloth maps, ...), kept by name.
struct ExtraField {
    enum class Kind : std::uint8_t { real, integer, color8 };  // color8: 0..255 bytes as 0..1
    std::string name;                                          // as the source spells it
    Kind kind = Kind::real;
    std::uint8_t components = 1;  // floats per value, 1-4
    std::vector<float> values;    // components per value
    std::vector<std::uint32_t> indices;
    bool operator==(const ExtraField&) const = default;
};

// Skin weights per point: `influences` slots each; unused slots have weight 0.
struct Skin {
    std::uint32_t influences = 0;
    std::vector<std::uint32_t> joints;  // node indices, points * influences
    std::vector<float> weights;         // points * influences
    bool operator==(const Skin&) const = default;
};

struct FaceSet {
    std::uint32_t material = 0;          // index into Model::materials
    std::vector<std::uint32_t> corners;  // the polygons' corners one after another
    std::vector<std::uint32_t> sizes;    // corners per polygon
    bool operator==(const FaceSet&) const = default;
};

// Sparse deltas: `values[i]` applies to entry `indices[i]` of the base field's values.
template <class T>
struct Sparse {
    std::vector<std::uint32_t> indices;
    std::vector<T> values;
    bool empty() const { return indices.empty(); }
    bool operator==(const Sparse&) const = default;
};

struct Shape {
    std::string name;
    Sparse<Vec3f> positions;  // into Mesh::positions.values (points)
    Sparse<Vec3f> normals;    // into Mesh::normals.values
    Sparse<float> wrinkle;    // into Mesh::wrinkle.values
    bool corrected = false;   // DMX `corrected`: deltas already relative to their drivers
    bool operator==(const Shape&) const = default;
};

struct Mesh {
    std::string name;
    std::uint32_t node = 0;  // the node whose space the positions are in
    Indexed<Vec3f> positions;
    Indexed<Vec3f> normals;
    Indexed<Vec4f> tangents;                // w = bitangent sign
    std::vector<Indexed<Vec2f>> texcoords;  // set 0, 1, ...
    std::vector<Indexed<Vec4f>> colors;     // RGBA 0..1, set 0, 1, ...
    Indexed<float> balance;                 // stereo split: 0 = right, 1 = left
    Indexed<float> speed;
    Indexed<float> wrinkle;
    Skin skin;
    std::vector<ExtraField> extra;
    std::vector<FaceSet> face_sets;
    std::vector<Shape> shapes;

    std::size_t corner_count() const { return positions.indices.size(); }
    std::size_t point_count() const { return positions.values.size(); }
    std::size_t polygon_count() const;
};

struct Material {
    std::string name;  // what studiomdl/ModelDoc look up (a DmeMaterial's mtlName, an SMD line)
    bool operator==(const Material&) const = default;
};

// --- flex ----------------------------------------------------------------------------------

struct FlexController {
    std::string name;
    // One raw control (unipolar, 0..1) or two (bipolar: the negative side, then the positive).
    std::vector<std::string> raw_controls;
    bool stereo = false;  // split left/right by the mesh's balance field
    bool eyelid = false;
    float min = 0, max = 1;
    Vec3f default_value{0, 0, 0.5f};  // value, balance, multilevel
    std::vector<float> wrinkle_scales;
    std::string eyes_up_down;  // optional eyes-up/down flex name
    bool operator==(const FlexController&) const = default;
};

// When all `dominators` are active, the `suppressed` controls are turned off.
struct DominationRule {
    std::vector<std::string> dominators, suppressed;
    bool operator==(const DominationRule&) const = default;
};

struct Flex {
    std::vector<FlexController> controllers;
    std::vector<DominationRule> domination_rules;
    bool empty() const { return controllers.empty() && domination_rules.empty(); }
    bool operator==(const Flex&) const = default;
};

// The controller raw names a corrective shape's name joins ("A_B", "A__B", "A-B"), or empty when
// the name is a raw control itself or does not split into known raw controls.
std::vector<std::string> corrective_drivers(const Flex& flex, std::string_view shape_name);

// --- animation -----------------------------------------------------------------------------

template <class T>
struct Keys {
    std::vector<double> times;  // seconds from the clip start, ascending
    std::vector<T> values;
    bool empty() const { return times.empty(); }
    bool operator==(const Keys&) const = default;
};

struct NodeTrack {
    std::uint32_t node = 0;
    Keys<Vec3f> translation;
    Keys<Quat> rotation;
    Keys<Vec3f> scale;
    bool operator==(const NodeTrack&) const = default;
};

struct FlexTrack {
    std::uint32_t controller = 0;  // index into Flex::controllers
    Keys<float> value;
    bool operator==(const FlexTrack&) const = default;
};

struct Clip {
    std::string name;
    double frame_rate = 30;
    double start = 0;     // seconds
    double duration = 0;  // seconds; frames are start + k / frame_rate, k = 0 .. frame_count()-1
    std::vector<NodeTrack> tracks;
    std::vector<FlexTrack> flex_tracks;

    // round(duration * frame_rate) + 1.
    std::uint32_t frame_count() const;
    bool operator==(const Clip&) const = default;
};

// A node's transform at `time` (seconds from the clip start). Keys within `snap` seconds of the
// time are taken as exact (files store frame times truncated to 1/10000 s); channels the clip
// lacks keep `rest`.
Transform sample(const NodeTrack* track, const Transform& rest, double time, double snap = 1.5e-4);

// --- the model -----------------------------------------------------------------------------

enum class Axis : std::int8_t { x = 1, y = 2, z = 3, neg_x = -1, neg_y = -2, neg_z = -3 };

struct Model {
    std::vector<Node> nodes;  // nodes[0] is the model
    bool root_bone = false;
    std::vector<Attachment> attachments;
    std::vector<Eyeball> eyeballs;
    std::vector<Material> materials;
    std::vector<Mesh> meshes;
    Flex flex;
    std::vector<Clip> clips;
    Axis up_axis = Axis::z;
    double units_per_meter = 39.37007874015748;  // Source: 1 unit = 1 inch

    const std::string& name() const;
    // A model with just its root node.
    static Model with_root(std::string name);
    std::int32_t find_node(std::string_view name) const;
    std::uint32_t material(std::string_view name);  // index of the material, added if new
    bool is_joint(std::uint32_t node) const;        // a bone (or the root when root_bone)
};

// The name of the model's own bone where a format needs one (an SMD's bone 0, a Source 1 DMX's
// root joint), as Blender Source Tools names it: the model's name when that is already
// "blender_implicit" or "root"; "root" for a model without joints named after one of its meshes
// (what BST exports for a mesh with no armature); "blender_implicit" otherwise.
std::string root_bone_name(const Model& m);

// Formats that store every frame of every animated node (SMD, glTF's sampled animation) write
// at most this many node-frames for one clip: a clip of 30 minutes at 30 fps with 77 nodes.
// Past it a conversion fails with a located error instead of building gigabytes.
inline constexpr std::uint64_t kMaxDenseNodeFrames = std::uint64_t{1} << 22;

// nullopt when sampling `clip` densely over `nodes` nodes stays within `limit` node-frames
// (kMaxDenseNodeFrames, or less where a caller asks for less); else the error (code
// "model.clip-too-long") naming the clip and the figures.
std::optional<Diagnostic> dense_sampling_limit(const Clip& clip, std::size_t nodes,
                                               std::uint64_t limit = kMaxDenseNodeFrames);

// The rigid part of an affine transform (scale removed) as translation + rotation.
Transform decompose(const Affine& a);

// Model-space bind transforms of every node (node 0 = identity * its bind).
std::vector<Affine> world_bind(const Model& m);

// --- single-index vertices -----------------------------------------------------------------

// How polygons become triangles: fans from the first corner (quads split 0-2, Blender's FIXED
// method, what Blender Source Tools has used since 2015), from the second (quads split 1-3, what
// its 2014 versions produced for square quads), or quads along their shorter diagonal (studiomdl;
// ties split 0-2) with n-gons fanned from the first corner.
enum class QuadSplit : std::uint8_t { first, second, shortest };

// The mesh with corners welded into single-index vertices: a vertex per distinct combination of
// corner attributes (point, normal, tangent, texcoords, colours, balance, speed, wrinkle, extra),
// and every polygon triangulated as `split` says. Degenerate polygons (< 3 corners) are skipped.
struct Flattened {
    std::vector<std::uint32_t> corner;  // per vertex: a corner it came from
    std::vector<std::uint32_t> vertex_of_corner;
    struct Part {
        std::uint32_t material = 0;
        std::vector<std::uint32_t> triangles;  // vertex indices, 3 per triangle
    };
    std::vector<Part> parts;  // one per face set, in order
};
Flattened flatten(const Mesh& mesh, QuadSplit split = QuadSplit::first);

// --- checks --------------------------------------------------------------------------------

struct Tolerance {
    double position = 0;  // absolute, per component
    double normal = 0;
    double texcoord = 0;
    double weight = 0;
    double rotation = 0;  // radians
    double time = 0;      // seconds
};

// First difference between two models ("meshes[0] 'Cube'/normals.values[3]: ..."), nullopt if
// equal within the tolerances. Correctives compare by their drivers, not their separator.
std::optional<std::string> compare(const Model& a, const Model& b, const Tolerance& tol = {});

// Structural problems (indices out of range, parents after children, array size mismatches),
// each as "path: message"; empty = consistent.
std::vector<std::string> check(const Model& m, std::size_t max_problems = 16);

}  // namespace lk::model
