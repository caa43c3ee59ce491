// Parsing numbers out of map values: "x y z", "[x y z]", "(x y z) (x y z) (x y z)",
// "[x y z shift] scale" and rows of numbers, as map editors write them.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "levelkit/core/geometry.hpp"
#include "levelkit/core/text.hpp"

namespace lk {

// A cursor over a value: numbers separated by spaces, optionally inside ( ) or [ ].
class NumberCursor {
public:
    explicit NumberCursor(std::string_view s)
        : p_(s.data()), end_(s.data() + s.size()), limit_(end_) {}
    // `readable_end` (at or past the end of `s`): bytes up to it may be read, though only those
    // of `s` are parsed. Values inside a larger text (a map file) pass its end, so that numbers
    // are read eight digits at a time without a branch per digit.
    NumberCursor(std::string_view s, const char* readable_end)
        : p_(s.data()),
          end_(s.data() + s.size()),
          limit_(readable_end ? std::max(readable_end, end_) : end_) {}

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
    // Plain decimals as Hammer writes them ("-0.676192", "128") take the word path here: at
    // most seven digits on each side of the point, which convert exactly with one division
    // (both operands exact). Anything else goes to number_rest. Always inlined: this is most
    // of the work of reading a map's planes, axes and rows.
    [[gnu::always_inline]] bool number(double& out) {
        skip_spaces();
        const char* p = p_;
        const bool neg = p < end_ && *p == '-';
        p += neg;
        if (std::endian::native == std::endian::little && limit_ - p >= 17) {
            // Up to seven digits, a '.', up to seven digits, read as words: the same number
            // the digit loop makes, without a branch per digit. Longer runs take the loop.
            const std::size_t left = static_cast<std::size_t>(end_ - p);
            const std::size_t n = std::min(digit_run(p), left);
            if (n < 8) {
                std::uint64_t m = digits_value(p, n);
                const char* q = p + n;
                std::size_t frac = 0;
                if (q < end_ && *q == '.') {
                    frac = std::min(digit_run(q + 1), static_cast<std::size_t>(end_ - q - 1));
                    if (frac < 8) {
                        m = m * kPow10Int[frac] + digits_value(q + 1, frac);
                        q += 1 + frac;
                    }
                }
                if (frac < 8 && n + frac > 0 && ends_number(q)) {
                    // Integers (most plane points) skip the slow division.
                    const double v =
                        frac ? static_cast<double>(m) / kPow10[frac] : static_cast<double>(m);
                    out = neg ? -v : v;
                    p_ = q;
                    return true;
                }
            }
        }
        return number_rest(out, p, neg);
    }
    [[gnu::always_inline]] bool vec3(Vec3& v) { return number(v.x) && number(v.y) && number(v.z); }
    bool at_end() {
        skip_spaces();
        return p_ >= end_;
    }

private:
    static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    static constexpr std::uint64_t kPow10Int[] = {1,     10,     100,     1000,
                                                  10000, 100000, 1000000, 10000000};
    // number() past its word path (`p` is after the sign): up to fifteen digits by the digit
    // loop, else parse_double_prefix, refusing non-finite values ("nan", "inf", "1e999").
    // Out of line (text.cpp), so that number() stays small.
    bool number_rest(double& out, const char* p, bool neg);
    // A number must end at a separator, not run into letters.
    bool ends_number(const char* p) const {
        return p >= end_ || *p == ' ' || *p == '\t' || *p == ')' || *p == ']' || *p == '(' ||
               *p == '[';
    }
    static std::uint64_t load8(const char* p) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        return w;  // p[0] is the lowest byte (the word path runs on little-endian machines)
    }
    // How many of the 8 bytes at p are ASCII digits before the first one that is not (8: all).
    [[gnu::always_inline]] static std::size_t digit_run(const char* p) {
        const std::uint64_t w = load8(p);
        // A byte below '0' sets its high bit in w - '0'..., one above '9' in w + 0x46...; bytes
        // before the first non-digit neither borrow nor carry, so its flag is exact.
        const std::uint64_t flags =
            ((w - 0x3030303030303030u) | (w + 0x4646464646464646u)) & 0x8080808080808080u;
        return flags ? static_cast<std::size_t>(std::countr_zero(flags)) / 8 : 8;
    }
    // The value of the n (< 8) digits at p. Both helpers are always inlined: GCC otherwise
    // kept the body of this one out of line, a call for every number of a map.
    [[gnu::always_inline]] static std::uint64_t digits_value(const char* p, std::size_t n) {
        if (n == 0) return 0;
        // The digits moved to the top bytes, zeros (leading zeros) below them; then pairs, fours
        // and eights combined by multiplication (eight digits fit in the low 32 bits).
        std::uint64_t v = (load8(p) - 0x3030303030303030u) << (8 * (8 - n));
        v = v * 10 + (v >> 8);
        v = (((v & 0x000000FF000000FFu) * (100 + (1000000ull << 32))) +
             (((v >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32)))) >>
            32;
        return static_cast<std::uint32_t>(v);  // the bits above are partial products
    }

    const char* p_;
    const char* end_;
    const char* limit_;
};

// "[x y z]", "(x y z)" or "x y z"; `readable_end` as for NumberCursor.
inline bool parse_vec3(std::string_view s, Vec3& out, const char* readable_end = nullptr) {
    NumberCursor c(s, readable_end);
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
