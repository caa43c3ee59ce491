// Number-list parsing for VMF values ("(x y z) (x y z) (x y z)", "[x y z shift] scale", rows).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
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

// Numbers as Hammer spells them, read without NumberCursor's generality: the light reader's fast
// path for a side's values (TypedReader::take_side), which falls back to the functions above
// whenever these decline. A plain number is an optional '-', one to seven digits, and optionally
// a '.' and up to seven digits; its value is the one NumberCursor::number gives for the same
// text. Each reader below takes one exact layout (one space between numbers) at p and gives
// where it ends, or null; the caller checks what follows (the value's closing quote). They
// read 8 bytes after a number's sign and after its '.', and never more than kReach bytes from
// p, which the caller makes sure are there. Little-endian machines only (kLittle).
namespace plain {
inline constexpr std::size_t kReach = 192;
inline constexpr bool kLittle = std::endian::native == std::endian::little;
inline std::uint64_t load8(const char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;  // p[0] is the lowest byte
}
// How many of w's bytes are ASCII digits before the first that is not (8: all), as
// NumberCursor::digit_run counts them.
[[gnu::always_inline]] inline unsigned digit_count(std::uint64_t w) {
    const std::uint64_t flags =
        ((w - 0x3030303030303030u) | (w + 0x4646464646464646u)) & 0x8080808080808080u;
    return flags ? static_cast<unsigned>(std::countr_zero(flags)) / 8 : 8;
}
// The value of w's first n (1..7) digits, as NumberCursor::digits_value makes it.
[[gnu::always_inline]] inline std::uint64_t digits_of(std::uint64_t w, unsigned n) {
    std::uint64_t v = (w - 0x3030303030303030u) << (8 * (8 - n));
    v = v * 10 + (v >> 8);
    v = (((v & 0x000000FF000000FFu) * (100 + (1000000ull << 32))) +
         (((v >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32)))) >>
        32;
    return static_cast<std::uint32_t>(v);
}
// A plain number (at most 16 bytes; reads at most 17).
[[gnu::always_inline]] inline const char* number(const char* p, double& out) {
    static constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7};
    static constexpr std::uint64_t kPow10Int[] = {1,     10,     100,     1000,
                                                  10000, 100000, 1000000, 10000000};
    const bool neg = *p == '-';
    p += neg;
    const std::uint64_t w = load8(p);
    const unsigned n = digit_count(w);
    if (n - 1 >= 7) return nullptr;  // no digit, or eight or more
    std::uint64_t m = digits_of(w, n);
    p += n;
    unsigned frac = 0;
    if (*p == '.') {
        const std::uint64_t f = load8(p + 1);
        frac = digit_count(f);
        if (frac >= 8) return nullptr;
        if (frac) m = m * kPow10Int[frac] + digits_of(f, frac);
        p += 1 + frac;
    }
    const double v = frac ? static_cast<double>(m) / kPow10[frac] : static_cast<double>(m);
    out = neg ? -v : v;
    return p;
}
// "(x y z) (x y z) (x y z)": parse_plane_points' value (at most 159 bytes).
inline const char* plane_points(const char* p, std::array<Vec3, 3>& out) {
    for (std::size_t i = 0; i < 3; ++i) {
        if (*p != '(') return nullptr;
        double* xyz[3] = {&out[i].x, &out[i].y, &out[i].z};
        ++p;
        for (std::size_t k = 0; k < 3; ++k) {
            p = number(p, *xyz[k]);
            if (p == nullptr || *p != (k < 2 ? ' ' : ')')) return nullptr;
            ++p;
        }
        if (i < 2 && *p++ != ' ') return nullptr;
    }
    return p;
}
// "x y z": parse_vec3's value (at most 50 bytes).
inline const char* vec3(const char* p, Vec3& out) {
    double* xyz[3] = {&out.x, &out.y, &out.z};
    for (std::size_t k = 0; k < 3; ++k) {
        p = number(p, *xyz[k]);
        if (p == nullptr || (k < 2 && *p++ != ' ')) return nullptr;
    }
    return p;
}
// "[x y z shift] scale": a texture axis as TypedReader::parse_axis reads it (at most 86 bytes).
inline const char* axis(const char* p, Vec3& dir, double& shift, double& scale) {
    if (*p++ != '[') return nullptr;
    double* xyzs[4] = {&dir.x, &dir.y, &dir.z, &shift};
    for (std::size_t k = 0; k < 4; ++k) {
        p = number(p, *xyzs[k]);
        if (p == nullptr || *p++ != (k < 3 ? ' ' : ']')) return nullptr;
    }
    if (*p++ != ' ') return nullptr;
    return number(p, scale);
}
// An optional '-' and one to seven digits: parse_int's value (reads at most 9 bytes).
[[gnu::always_inline]] inline const char* integer(const char* p, std::int64_t& out) {
    const bool neg = *p == '-';
    p += neg;
    const std::uint64_t w = load8(p);
    const unsigned n = digit_count(w);
    if (n - 1 >= 7) return nullptr;
    const auto v = static_cast<std::int64_t>(digits_of(w, n));
    out = neg ? -v : v;
    return p + n;
}
}  // namespace plain

}  // namespace lk::vmf::detail
