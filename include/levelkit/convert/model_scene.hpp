// Neutral model -> neutral scene, for the consumers that draw scenes (OBJ, pictures): the
// model's meshes in their bind pose as meshes of the world entity, in Source axes and units
// (Z up, inches; a model with other axes or units is turned and scaled to them). Each polygon
// keeps its material (the model's material path), texture coordinates (V down, as scenes hold
// them) and normals. Skinning, shapes and clips are not drawn.
#pragma once

#include "levelkit/model/model.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk::convert {

scene::Scene model_to_scene(const model::Model& m);

}  // namespace lk::convert
