// Parsing numbers out of map values: "x y z", "[x y z]", "(x y z) (x y z) (x y z)",
// "[x y z shift] scale" and rows of numbers, as map editors write them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "levelkit/core/geometry.hpp"
#include "levelkit/core/text.hpp"

namespace lk {

// A cursor over a value: numbers separated by spaces, optionally inside ( ) or [ ].
class NumberCursor {
public:
    explicit NumberCursor(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}

    void skip_spaces() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\t')) ++p_;
    }
    bool expect(char c) {
        skip_spaces();
        if (p_ < end_ && *p_ == c) {
            ++p_;
            return true;
        }
        return false;
    }
    bool number(double& out) {
        skip_spaces();
        // Fast path for the plain decimals Hammer writes ("-0.676192", "128"): at most 15
        // digits and no exponent convert exactly with one division (both operands exact).
        // Anything else goes to parse_double_prefix.
        const char* p = p_;
        const bool neg = p < end_ && *p == '-';
        p += neg;
        std::uint64_t m = 0;
        const char* digits_begin = p;
        while (p < end_ && static_cast<unsigned char>(*p - '0') < 10)
            m = m * 10 + static_cast<unsigned>(*p++ - '0');
        const char* int_end = p;
        if (p < end_ && *p == '.') {
            ++p;
            while (p < end_ && static_cast<unsigned char>(*p - '0') < 10)
                m = m * 10 + static_cast<unsigned>(*p++ - '0');
        }
        const auto frac = static_cast<std::size_t>(p - int_end) - (int_end < p ? 1 : 0);
        const auto digits = static_cast<std::size_t>(int_end - digits_begin) + frac;
        if (digits > 0 && digits < 16 && ends_number(p)) {
            static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
            // Integers (most plane points) skip the slow division.
            const double v = frac ? static_cast<double>(m) / kPow10[frac] : static_cast<double>(m);
            out = neg ? -v : v;
            p_ = p;
            return true;
        }
        const std::size_t used =
            parse_double_prefix(std::string_view(p_, static_cast<std::size_t>(end_ - p_)), out);
        if (used == 0 || !ends_number(p_ + used)) return false;
        p_ += used;
        return true;
    }
    bool vec3(Vec3& v) { return number(v.x) && number(v.y) && number(v.z); }
    bool at_end() {
        skip_spaces();
        return p_ >= end_;
    }

private:
    // A number must end at a separator, not run into letters.
    bool ends_number(const char* p) const {
        return p >= end_ || *p == ' ' || *p == '\t' || *p == ')' || *p == ']' || *p == '(' ||
               *p == '[';
    }

    const char* p_;
    const char* end_;
};

// "[x y z]", "(x y z)" or "x y z"
inline bool parse_vec3(std::string_view s, Vec3& out) {
    NumberCursor c(s);
    const bool bracket = c.expect('[');
    const bool paren = !bracket && c.expect('(');
    if (!c.vec3(out)) return false;
    if (bracket && !c.expect(']')) return false;
    if (paren && !c.expect(')')) return false;
    return c.at_end();
}

inline std::optional<Vec3> parse_vec3(std::string_view s) {
    Vec3 v;
    if (!parse_vec3(s, v)) return std::nullopt;
    return v;
}

}  // namespace lk
