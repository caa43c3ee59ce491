// Shared by the glTF writers (scene_gltf.cpp, model_gltf.cpp): the GLB container around a JSON
// chunk and a binary chunk.
#pragma once

#include <string>

#include "levelkit/core/bytes.hpp"

namespace lk::convert::detail {

// "glTF" header, the JSON chunk padded with spaces and, when `bin` is not empty, the BIN chunk
// padded with zeros (glTF 2.0 §4.4). The caller keeps the total under 4 GiB.
Bytes pack_glb(std::string json, Bytes bin);

}  // namespace lk::convert::detail
