// Neutral model (levelkit/model/model.hpp) <-> glTF 2.0 (.glb, or .gltf with a .bin).
//
// model -> glTF:
//  * Nodes. The model's nodes in their order are glTF nodes 0..N-1 (node 0, the model, is the
//    scene's root) with their bind pose as TRS; `extras.kind` is "model", "joint" or "dag", and a
//    pose other than the bind pose is kept in `extras.pose` ([t, r, s]). The root's `extras`
//    keep what glTF has no place for: the source axes and units, whether the model is a root
//    bone, attachments, eyeballs, flex controllers and domination rules.
//  * Meshes. One glTF mesh per model mesh, its corners welded into vertices (model::flatten,
//    quads split 0-2) shared by one primitive (triangles) per face set; POSITION, NORMAL,
//    TANGENT, every TEXCOORD_n (v flipped: glTF's v points down), COLOR_n, and the stereo
//    balance / speed / wrinkle fields as _BALANCE / _SPEED / _WRINKLE, other vertex fields
//    (Source 2 paint layers, cloth maps) as _EXTRA_<k> named in the mesh's `extras.extraFields`.
//    Normals and tangents are unit length (glTF requires it; zero ones become glTF +Y / +X,
//    counted). Materials are named by their path. A mesh without weights is a child node of its
//    model node; a skinned mesh sits on a root node of the scene (glTF ignores a skinned mesh
//    node's transform) with a skin whose inverse bind matrices map the mesh node's bind space to
//    each joint's: up to 4 influences per vertex (more are reduced to the heaviest 4 and
//    renormalised, counted); vertices without weights follow the nearest joint above the mesh's
//    node at weight 1.
//  * Shapes. Morph targets (POSITION and, where any shape of the mesh has them, NORMAL deltas),
//    sparse where under a third of the vertices move, names in the mesh's `extras.targetNames`.
//  * Clips. One animation each, sampled at the clip's frame rate (LINEAR, quaternions unit and
//    sign-continuous): translation / rotation / scale per node the clip animates; morph weights
//    where it animates flex controllers that drive a mesh's shapes (raw controls from the
//    controller value, correctives as the product of their drivers), and the controller values
//    themselves in the animation's `extras.flex`.
//  * Axes and units: the model's up axis becomes glTF's +Y by a rotation (Z up: (x, y, z) ->
//    (x, z, -y)), lengths are multiplied by `scale` metres per unit of a Source model
//    (`units_per_meter` 39.37; other units are converted first).
//
// glTF -> model: the reverse. A file written by levelkit (root `extras.levelkit`) comes back with
// its nodes, kinds, poses, flex, attachments, axes and units; any other glTF becomes a model
// node with every scene node under it (nodes in some skin's joints are joints, others dags), a
// mesh per glTF primitive group, skins as weights, morph targets as shapes named by
// `extras.targetNames`, animations as clips (sampled per frame at `frame_rate` when their keys
// are not on frames). Every index, count, offset and stride is checked before use; a bad file is
// an error naming its JSON path ("meshes[0]/primitives[1]/attributes/JOINTS_0").
#pragma once

#include <cstddef>
#include <string>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/model/model.hpp"

namespace lk::convert {

struct ModelGltfOptions {
    double scale = 0.0254;  // metres per inch (a Source unit)
    bool binary = true;     // .glb, else .gltf JSON + `bin_name`
    std::string bin_name = "model.bin";
    // Animations are sampled at every frame: a clip past this many sampled node-frames fails
    // with "model.clip-too-long" (at most model::kMaxDenseNodeFrames).
    std::uint64_t max_node_frames = model::kMaxDenseNodeFrames;
};

struct ModelGltfReport {
    std::size_t meshes = 0, primitives = 0, vertices = 0, triangles = 0, joints = 0,
                morph_targets = 0, sparse_targets = 0, animations = 0, materials = 0;
    std::size_t influences_reduced = 0;   // vertices that had more than 4 influences
    std::size_t unweighted_vertices = 0;  // skinned vertices bound to the mesh's joint
    std::size_t normals_fixed = 0, tangents_fixed = 0;  // zero-length, replaced
};

struct ModelGltfFiles {
    bool binary = true;
    Bytes glb;
    std::string json;
    Bytes bin;
    std::string bin_name;
    ModelGltfReport report;
};

Result<ModelGltfFiles> model_to_gltf(const model::Model& m, const ModelGltfOptions& opt,
                                     Diagnostics& warnings);

struct GltfModelOptions {
    double scale = 0.0254;  // metres per Source unit; used unless the file says its own units
    // Frames per second of clips without one in levelkit's extras; 0: 30 when every key sits on
    // its frames, else the lowest common rate (24, 25, 48, 50, 60 ...) they sit on, else 30.
    double frame_rate = 0;
    std::string name = "model";  // the model node's name for files that do not name one
    // Reads external buffers (`uri` not a data: URI) relative to this folder; empty refuses them.
    std::string base_dir;
};

// `data` is a .glb or a .gltf JSON text.
Result<model::Model> gltf_to_model(ByteSpan data, const GltfModelOptions& opt,
                                   Diagnostics& warnings);

}  // namespace lk::convert
