// SMD (+ VTA) <-> neutral model (levelkit/model/model.hpp), laid out as Blender Source Tools
// lays out the same scene.
//
// SMD -> model: bone 0 named "blender_implicit" or "root" at identity without children is the
// model's own bone (nodes[0], root_bone); other nodes become joints with their time-0 pose as
// the bind pose. Triangles become one mesh on a dag named after the model, one face set per
// material; corners with the same position and weights share a point. A skeleton with more than
// one frame (an animation SMD) also becomes a clip. A VTA adds a shape per frame after time 0:
// its vertex numbers count the reference SMD's triangle vertex lines, and positions/normals
// become sparse deltas against time 0.
//
// model -> SMD: `<base>.smd` (the reference: bones, bind pose, triangles; written when the model
// has meshes or no clips), `<base>.vta` when meshes have shapes, and `anims/<clip>.smd` per clip
// (characters / ? < > \ : * | " in clip names become '_'), as BST names its exports. Bones are the
// joints, after the model's own bone (model::root_bone_name) when the model is a root bone, has no
// joints, or has vertices weighted to it. Positions and normals are in model space; polygons are
// triangulated as `quad_split` says (BST's current split by default); vertices list the links
// with weight > 0.
#pragma once

#include <string>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/model/model.hpp"
#include "levelkit/smd/smd.hpp"

namespace lk::convert {

struct SmdToModelOptions {
    std::string name = "model";  // the model / mesh / clip name (BST: the object or action name)
    double frame_rate = 30;      // for animation frames (SMD has no frame rate; studiomdl: 30)
};

Result<model::Model> smd_to_model(const smd::File& reference, const smd::File* vta,
                                  Diagnostics& warnings, const SmdToModelOptions& opt = {});

// Adds an animation SMD to `m` as a clip named `clip_name`; bones are matched to nodes by name.
Result<void> add_smd_animation(model::Model& m, const smd::File& anim, std::string_view clip_name,
                               double frame_rate, Diagnostics& warnings);

struct SmdOutput {
    std::string file_name;  // relative: "Cube.smd", "Cube.vta", "anims/X_Axis.smd"
    smd::File file;
};

struct ModelToSmdOptions {
    std::string base_name;  // reference / VTA file stem; empty = the model's name
    std::string anim_dir = "anims";
    bool vta = true;
    model::QuadSplit quad_split = model::QuadSplit::first;
    // An animation SMD holds every bone at every frame: a clip past this many node-frames
    // fails with "model.clip-too-long" (at most model::kMaxDenseNodeFrames).
    std::uint64_t max_node_frames = model::kMaxDenseNodeFrames;
};

Result<std::vector<SmdOutput>> model_to_smd(const model::Model& m, Diagnostics& warnings,
                                            const ModelToSmdOptions& opt = {});

// The pieces model_to_smd writes.
smd::File reference_smd(const model::Model& m, model::QuadSplit split = model::QuadSplit::first);
smd::File vta_smd(const model::Model& m, model::QuadSplit split = model::QuadSplit::first);
smd::File animation_smd(const model::Model& m, const model::Clip& clip);

}  // namespace lk::convert
