// Plain decimal numbers as keyvalues2 writers spell them: parsing and the exact fixed-point
// spelling checks, inline because the reader runs them for every float it reads.
#pragma once

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kv2_style.hpp"

namespace lk::dmx::detail {

inline constexpr std::uint64_t kPow10[] = {1ull,         10ull,         100ull,        1000ull,
                                           10000ull,     100000ull,     1000000ull,    10000000ull,
                                           100000000ull, 1000000000ull, 10000000000ull};

// A plain decimal "[-]digits[.digits]" split into its integer and fraction digits.
struct Decimal {
    bool neg = false;
    std::uint64_t int_part = 0;
    std::uint64_t frac = 0;  // the fraction digits as an integer
    int frac_digits = 0;
    bool leading_zero = false;   // "01"
    bool trailing_zero = false;  // "1.50" or "1."
    std::uint64_t mantissa = 0;  // int_part * 10^frac_digits + frac, if no overflow
    bool small = true;           // mantissa < 2^53 and at most 22 fraction digits
};

inline bool split_decimal(std::string_view t, Decimal& d) {
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') {
        d.neg = true;
        ++i;
    }
    const std::size_t b = i;
    std::uint64_t m = 0;
    while (i < t.size() && static_cast<unsigned char>(t[i] - '0') < 10) {
        m = m * 10 + static_cast<unsigned>(t[i] - '0');
        ++i;
    }
    const std::size_t int_digits = i - b;
    if (int_digits == 0 || int_digits > 18) return false;
    d.int_part = m;
    d.leading_zero = t[b] == '0' && int_digits > 1;
    if (i < t.size() && t[i] == '.') {
        const std::size_t fb = ++i;
        std::uint64_t f = 0;
        while (i < t.size() && static_cast<unsigned char>(t[i] - '0') < 10) {
            f = f * 10 + static_cast<unsigned>(t[i] - '0');
            ++i;
        }
        d.frac_digits = static_cast<int>(i - fb);
        if (int_digits + static_cast<std::size_t>(d.frac_digits) > 19) return false;
        d.frac = f;
        d.trailing_zero = d.frac_digits == 0 || t[i - 1] == '0';
        m = m * kPow10[std::min(d.frac_digits, 10)];
        for (int k = 10; k < d.frac_digits; ++k) m *= 10;
        m += f;
    }
    if (i != t.size()) return false;
    d.mantissa = m;
    d.small = m < (std::uint64_t{1} << 53) && d.frac_digits <= 22;
    return true;
}

inline constexpr double kPow10d[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// |v| * 10^decimals rounded to an integer exactly (as append_fixed does), or false if the
// result does not fit the fast path.
inline bool fixed_scaled(float v, int decimals, bool ties_away, std::uint64_t& q) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
    const int biased = static_cast<int>((bits >> 23) & 0xFF);
    if (biased == 0xFF) return false;
    std::uint64_t m = bits & 0x7FFFFF;
    int e;
    if (biased == 0) {
        e = -149;
    } else {
        m |= 0x800000;
        e = biased - 150;
    }
    if (e >= 0) {
        if (e + 24 + 34 >= 64) return false;
        q = (m << e) * kPow10[decimals];
        return true;
    }
    const int k = -e;
    const std::uint64_t x = m * kPow10[decimals];
    q = 0;
    if (k < 64) {
        q = x >> k;
        const std::uint64_t r = x & ((std::uint64_t{1} << k) - 1);
        const std::uint64_t half = std::uint64_t{1} << (k - 1);
        if (r > half || (r == half && (ties_away || (q & 1)))) ++q;
    }
    return true;
}

// Whether `t` is what append_fixed(v, decimals) writes, without writing it.
inline std::optional<bool> fixed_spelled(const Decimal& d, float v, int decimals, bool ties_away) {
    if (d.neg != std::signbit(v)) return false;
    if (d.leading_zero || d.frac_digits > decimals || (d.frac_digits > 0 && d.trailing_zero) ||
        (d.frac_digits == 0 && d.trailing_zero)) {
        return false;
    }
    if (d.int_part >= 1000000000ull) return std::nullopt;
    std::uint64_t q;
    if (!fixed_scaled(v, decimals, ties_away, q)) return std::nullopt;
    return q == d.int_part * kPow10[decimals] + d.frac * kPow10[decimals - d.frac_digits];
}

inline bool parse_decimal(std::string_view s, const Decimal* d, float& out) {
    if (d && d->small) {
        // One correctly rounded double division, then to float: exact unless the double lands
        // exactly on a midpoint between two floats (then the slow path decides).
        const double x = static_cast<double>(d->mantissa) / kPow10d[d->frac_digits];
        const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
        const bool midpoint = (bits & 0x1FFFFFFF) == 0x10000000;
        if (!midpoint && x < 3.4e38) {
            const float f = static_cast<float>(x);
            out = d->neg ? -f : f;
            return true;
        }
    }
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// The fixed-point candidates decided from the split text; returns the candidates left.
inline std::uint8_t match_fixed(const Decimal& d, float v, std::uint8_t candidates,
                                std::uint8_t& out) {
    if (candidates & kFloatValve) {
        if (auto m = fixed_spelled(d, v, 10, true); m && *m) {
            out |= kFloatValve;
            candidates = static_cast<std::uint8_t>(candidates & ~kFloatValve);
        }
    }
    if (candidates & kFloatFixed6) {
        if (auto m = fixed_spelled(d, v, 6, false)) {
            if (*m) out |= kFloatFixed6;
            candidates = static_cast<std::uint8_t>(candidates & ~kFloatFixed6);
        }
    }
    return candidates;
}

// Spells `v` in each candidate style and compares (kv2_style.cpp).
std::uint8_t match_by_writing(float v, std::string_view text, std::uint8_t candidates,
                              std::string& buf);

// parse_float plus the bits of `candidates` whose spelling of the value is `text`.
inline bool read_float(std::string_view text, std::uint8_t candidates, float& out,
                       std::uint8_t& matching, std::string& scratch) {
    matching = 0;
    Decimal d;
    const bool plain = split_decimal(text, d);
    if (!plain && !text.empty() && text[0] == '+') {
        // Nobody writes a '+': parse it, match nothing.
        return parse_float(text, out);
    }
    if (!parse_decimal(text, plain ? &d : nullptr, out)) return false;
    if (plain) candidates = match_fixed(d, out, candidates, matching);
    if (candidates) matching |= match_by_writing(out, text, candidates, scratch);
    return true;
}

}  // namespace lk::dmx::detail
