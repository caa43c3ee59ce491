// Keyvalue spellings shared by the Gamestudio level converters (wmp_scene.cpp, wmb_scene.cpp):
// the Source entities they make hold numbers, vectors, colours and angles as text.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/wmp/resolve.hpp"

namespace lk::convert::gamestudio {

// Numbers in keyvalues: short, exact enough (six decimals), no "-0".
inline std::string num(double v) {
    return format_fixed(v, 6);
}
inline std::string vec(const Vec3& v) {
    return num(v.x) + " " + num(v.y) + " " + num(v.z);
}
inline std::string hex(std::uint32_t v) {
    return fmt::format("0x{:x}", v);
}

// Percent (0..100) to the 0..255 Source colour scale.
inline int byte_of(double percent) {
    return static_cast<int>(std::clamp(std::lround(percent * 255.0 / 100.0), 0L, 255L));
}

// Source angles ("pitch yaw roll") of Gamestudio (pan, tilt, roll) degrees, as `$$M` angles
// describe them.
inline std::string source_angles(const Vec3& pan_tilt_roll) {
    return vec(matrix_angles(wmp::mm_rotation(pan_tilt_roll)));
}

}  // namespace lk::convert::gamestudio
