// tinygltf, from Debian's header, compiled into levelkit (tinygltf.cpp) instead of linked from
// libtinygltf.so: that library and the stb image libraries it needs were loaded by every start
// of the CLI, though only the glTF reader uses them. levelkit reads glTF geometry and never
// decodes or writes images, so tinygltf is built without stb (gltf_to_model sets an image
// loader that skips them).
//
// The code lives in namespace lk_tinygltf rather than tinygltf: a program that also links
// Debian's libtinygltf (levelkit's tests read glTF back with it, as an independent reader) then
// has two distinct sets of symbols, not two definitions of the same ones built with different
// settings.
#pragma once

#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define tinygltf lk_tinygltf
#include <tiny_gltf.h>
#undef tinygltf

namespace lk {
namespace tinygltf = ::lk_tinygltf;
}
