// tinygltf's implementation (see tinygltf.hpp).
#define TINYGLTF_IMPLEMENTATION
#include "tinygltf.hpp"
