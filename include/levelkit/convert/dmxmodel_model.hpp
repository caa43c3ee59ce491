// DMX model <-> neutral model (levelkit/model/model.hpp).
//
// Reading: the DmeModel becomes nodes[0]; DmeJoints become joints and DmeDags dag nodes, in the
// dag tree's depth-first order. The model is a root bone when it is the first entry of
// `jointList` (Source 2 exporters), or when the first joint is Blender Source Tools' stand-in
// for it (a childless root DmeJoint at identity named "blender_implicit" or "root"), which is then
// folded into nodes[0]. Skin indices are mapped from the file's joint space to nodes; texture
// coordinates without flipVCoordinates are turned to v-up; log times become seconds from the
// clip start. Unreadable parts (a field of an unknown type, an index out of range, a channel that
// drives nothing) are left out with a warning, so the result always passes model::check().
//
// Writing: a new document at the target (dmxmodel::Builder): joint space, vertex field names,
// time units, frame rate type, axis system and the corrective separator follow the target's
// version. Meshes need a dag of their own; a mesh placed on the model or a joint gets one.
#pragma once

#include <cstdint>
#include <string>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/dmx/document.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"
#include "levelkit/model/model.hpp"

namespace lk::convert {

Result<model::Model> dmxmodel_to_model(const dmxmodel::Model& m, Diagnostics& warnings);
// Opens the model view and converts it.
Result<model::Model> dmx_to_model(const dmx::Document& doc, Diagnostics& warnings);

struct ModelToDmxOptions {
    std::string scene_name = "Scene";   // the root element's name
    std::uint64_t seed = 0x6c6b6d646c;  // element GUIDs (deterministic)
};

Result<dmx::Document> model_to_dmx(const model::Model& m, const dmxmodel::Target& target,
                                   Diagnostics& warnings, const ModelToDmxOptions& opt = {});

}  // namespace lk::convert
