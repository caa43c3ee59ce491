// Number-list parsing for VMF values ("(x y z) (x y z) (x y z)", "[x y z shift] scale", rows).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "levelkit/core/geometry.hpp"
#include "levelkit/core/numbers.hpp"
#include "levelkit/core/text.hpp"

namespace lk::vmf::detail {

using lk::NumberCursor;
using lk::parse_vec3;

// Each helper takes the `readable_end` of NumberCursor: the end of the text a value lies in, or
// null when only its own bytes may be read.

// "(x y z) (x y z) (x y z)"
inline bool parse_plane_points(std::string_view s, std::array<Vec3, 3>& out,
                               const char* readable_end = nullptr) {
    NumberCursor c(s, readable_end);
    for (auto& p : out) {
        if (!c.expect('(') || !c.vec3(p) || !c.expect(')')) return false;
    }
    return c.at_end();
}

// "[x y]"
inline bool parse_vec2_bracket(std::string_view s, double& x, double& y,
                               const char* readable_end = nullptr) {
    NumberCursor c(s, readable_end);
    return c.expect('[') && c.number(x) && c.number(y) && c.expect(']') && c.at_end();
}

inline std::optional<double> parse_number(std::string_view s, const char* readable_end = nullptr) {
    NumberCursor c(s, readable_end);
    double v = 0;
    if (!c.number(v) || !c.at_end()) return std::nullopt;
    return v;
}

}  // namespace lk::vmf::detail
