// Plain decimal numbers as keyvalues2 writers spell them: parsing and the exact fixed-point
// spelling checks, inline because the reader runs them for every float it reads.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "kv2_style.hpp"

namespace lk::dmx::detail {

inline constexpr std::uint64_t kPow10[] = {1ull,
                                           10ull,
                                           100ull,
                                           1000ull,
                                           10000ull,
                                           100000ull,
                                           1000000ull,
                                           10000000ull,
                                           100000000ull,
                                           1000000000ull,
                                           10000000000ull,
                                           100000000000ull,
                                           1000000000000ull,
                                           10000000000000ull,
                                           100000000000000ull,
                                           1000000000000000ull,
                                           10000000000000000ull,
                                           100000000000000000ull,
                                           1000000000000000000ull,
                                           10000000000000000000ull};

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

// --- digit runs, eight bytes at a time ---
//
// A keyvalues2 float is mostly digits ("-0.0011480004"): reading them a word at a time instead of
// a byte at a time, with no branch per digit, is what makes float arrays cheap to read. Words are
// read only where eight bytes of the buffer remain (`limit`); the scalar loop does the rest.

inline constexpr bool kSwar = std::endian::native == std::endian::little;

// Eight bytes as a word, the first in the lowest byte (callers test kSwar first).
inline std::uint64_t load8(const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// The bytes of `v` from the lowest, on any platform.
inline void store8(char* p, std::uint64_t v) {
    if constexpr (kSwar) {
        std::memcpy(p, &v, 8);
    } else {
        for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
    }
}

// The number of leading bytes of `v` (in text order, little-endian) that are ASCII digits.
inline int digit_bytes(std::uint64_t v) {
    const std::uint64_t t = v ^ 0x3030303030303030ull;  // digits become 0..9
    // A byte is not a digit if it is >= 10: its low 7 bits plus 0x76 reach 0x80 (no carry out
    // of the byte), or its high bit is set.
    const std::uint64_t non =
        (((t & 0x7F7F7F7F7F7F7F7Full) + 0x7676767676767676ull) | t) & 0x8080808080808080ull;
    return non ? std::countr_zero(non) >> 3 : 8;
}

// The value of the eight digits of `t` (bytes 0..9, the first in the lowest byte).
inline std::uint64_t eight_digits(std::uint64_t t) {
    t = t * 10 + (t >> 8);
    t = (((t & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
         (((t >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
        32;
    return t & 0xFFFFFFFFull;
}

// The value of the first `k` (0..8) digits of `v`.
inline std::uint64_t digits_value(std::uint64_t v, int k) {
    // Shifting left drops the bytes after the run and puts zero digits before it; k = 0 masks
    // everything (a shift by 64 would be undefined).
    const std::uint64_t t = ((v ^ 0x3030303030303030ull) << ((64 - 8 * k) & 63)) &
                            (std::uint64_t{0} - static_cast<std::uint64_t>(k != 0));
    return eight_digits(t);
}

// Reads the digits in [p, end) from `p` on into `value` (wrapping past 19 digits: callers
// reject such runs by `count`); returns the end of the run. Words are read while eight bytes up
// to `limit` (>= `end`, the end of the readable buffer) remain.
inline const char* scan_digits(const char* p, const char* end, const char* limit,
                               std::uint64_t& value, std::size_t& count) {
    const char* const b = p;
    std::uint64_t v = 0;
    if constexpr (kSwar) {
        while (limit - p >= 8) {
            const std::uint64_t w = load8(p);
            int k = digit_bytes(w);
            if (k > end - p) k = static_cast<int>(end - p);
            if (k == 0) break;
            v = v * kPow10[k] + digits_value(w, k);
            p += k;
            if (k < 8 || p - b > 19) {
                value = v;
                count = static_cast<std::size_t>(p - b);
                return p;
            }
        }
    }
    while (p < end && static_cast<unsigned char>(*p - '0') < 10) {
        v = v * 10 + static_cast<unsigned>(*p - '0');
        ++p;
    }
    value = v;
    count = static_cast<std::size_t>(p - b);
    return p;
}

// split_decimal over the text from `p`, stopping at the first byte that cannot continue a plain
// decimal or at `end`: returns that position, or nullptr if the text up to it is not one.
// The digits of a fraction from `p` on, as scan_digits reads them.
[[gnu::always_inline]] inline const char* scan_fraction(const char* p, const char* end,
                                                        const char* limit, std::uint64_t& value,
                                                        std::size_t& count) {
    if (!kSwar || limit - p < 16) return scan_digits(p, end, limit, value, count);
    // Fractions of up to 15 digits (Valve writes 10) in two words, without a loop.
    const auto room = static_cast<std::size_t>(end - p);
    const std::uint64_t w1 = load8(p);
    const std::size_t k1 = std::min(static_cast<std::size_t>(digit_bytes(w1)), room);
    if (k1 < 8) {
        value = digits_value(w1, static_cast<int>(k1));
        count = k1;
        return p + k1;
    }
    const std::uint64_t w2 = load8(p + 8);
    const std::size_t k2 = std::min(static_cast<std::size_t>(digit_bytes(w2)), room - 8);
    if (k2 == 8) return scan_digits(p, end, limit, value, count);
    value = eight_digits(w1 ^ 0x3030303030303030ull) * kPow10[k2] +
            digits_value(w2, static_cast<int>(k2));
    count = 8 + k2;
    return p + count;
}

// split_decimal over the text from `p`, stopping at the first byte that cannot continue a plain
// decimal or at `end`: returns that position, or nullptr if the text up to it is not one.
inline const char* scan_decimal(const char* p, const char* end, const char* limit, Decimal& d) {
    if (p < end && *p == '-') {
        d.neg = true;
        ++p;
    }
    const char* const b = p;
    // Integer parts are short ("0", "-12"): byte at a time.
    std::uint64_t m = 0;
    while (p < end && static_cast<unsigned char>(*p - '0') < 10) {
        m = m * 10 + static_cast<unsigned>(*p - '0');
        ++p;
    }
    const auto int_digits = static_cast<std::size_t>(p - b);
    if (int_digits == 0 || int_digits > 18) return nullptr;
    d.int_part = m;
    d.leading_zero = *b == '0' && int_digits > 1;
    if (p < end && *p == '.') {
        std::uint64_t f;
        std::size_t frac_digits;
        p = scan_fraction(p + 1, end, limit, f, frac_digits);
        if (int_digits + frac_digits > 19) return nullptr;
        d.frac_digits = static_cast<int>(frac_digits);
        d.frac = f;
        d.trailing_zero = frac_digits == 0 || p[-1] == '0';
        m = m * kPow10[frac_digits] + f;
    }
    d.mantissa = m;
    d.small = m < (std::uint64_t{1} << 53) && d.frac_digits <= 22;
    return p;
}

inline bool split_decimal(std::string_view t, Decimal& d) {
    const char* const end = t.data() + t.size();
    return scan_decimal(t.data(), end, end, d) == end;
}

inline constexpr double kPow10d[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// |v| * 10^decimals rounded to an integer exactly (as append_fixed does), or false if the
// result does not fit the fast path.
[[gnu::always_inline]] inline bool fixed_scaled(float v, int decimals, bool ties_away,
                                                std::uint64_t& q) {
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
    if (d.leading_zero || d.trailing_zero || d.frac_digits > decimals) return false;
    if (d.int_part >= 1000000000ull) return std::nullopt;
    std::uint64_t q;
    if (!fixed_scaled(v, decimals, ties_away, q)) return std::nullopt;
    return q == d.int_part * kPow10[decimals] + d.frac * kPow10[decimals - d.frac_digits];
}

// Whether `d` is Valve's spelling of `v` (the kFloatValve test of match_fixed).
inline bool valve_fixed_spelled(const Decimal& d, float v) {
    const std::optional<bool> m = fixed_spelled(d, v, 10, true);
    return m && *m;
}

// `s` (split into `d` if plain) as the nearest float.
inline bool parse_decimal_exact(std::string_view s, const Decimal* d, float& out) {
    if (d && d->small) {
        // One correctly rounded double division, then to float: exact unless the double lands
        // exactly on a midpoint between two floats (then from_chars decides).
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

inline constexpr double kPow10Inv[] = {1e-0,  1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                       1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                       1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};

inline bool parse_decimal(std::string_view s, const Decimal* d, float& out) {
    if (d && d->small) {
        // The mantissa (< 2^53, exact) times the double nearest 10^-k is within two double ulps
        // of the quotient (two roundings of relative error 2^-53), so it rounds to the same
        // float as the quotient unless it lies within a few ulps of a midpoint between two
        // floats, where the 29 bits a float drops are 0x10000000: those take the exact path.
        // (Such quotients, below 2^53 and at least 10^-22, are neither subnormal nor too large
        // as floats.) A multiplication instead of a division: the division's latency was the
        // largest single cost of reading float arrays.
        const double x = static_cast<double>(d->mantissa) * kPow10Inv[d->frac_digits];
        const std::uint64_t low = std::bit_cast<std::uint64_t>(x) & 0x1FFFFFFF;
        if (low - (0x10000000 - 4) > 8) {
            const float f = static_cast<float>(x);
            out = d->neg ? -f : f;
            return true;
        }
    }
    return parse_decimal_exact(s, d, out);
}

// --- fixed-point spellings ---

inline char* write_u64(std::uint64_t v, char* p) {
    if (v < 10) {
        *p = static_cast<char>('0' + v);
        return p + 1;
    }
    return std::to_chars(p, p + 20, v).ptr;
}

// The eight decimal digits of x < 10^8 (leading zeros included) as byte values 0..9, the first
// in the lowest byte: x split into halves of four digits, then two, then one, in lanes of one
// word (multiplications by 2^20/100 and 2^10/10, exact in these ranges, instead of divisions).
inline std::uint64_t eight_digit_values(std::uint32_t x) {
    const std::uint64_t v = (x / 10000) | (std::uint64_t{x % 10000} << 32);
    const std::uint64_t h = ((v * 10486) >> 20) & 0x0000007F0000007Full;
    const std::uint64_t w = h | ((v - h * 100) << 16);
    const std::uint64_t t = ((w * 103) >> 10) & 0x000F000F000F000Full;
    return t | ((w - t * 10) << 8);
}

// `scaled` / 10^Decimals as "int[.frac]" with the fraction's trailing zeros dropped and its
// leading zeros kept ("0.05"). The fraction's digits are made in words and stored whole, then
// the zeros at their end (zero bytes at the top of the word) taken back: this writes up to 16
// bytes past the '.', beyond what it keeps.
template <int Decimals>
inline char* write_scaled_fixed(std::uint64_t scaled, char* p) {
    static_assert(Decimals >= 1 && Decimals <= 16);
    constexpr std::uint64_t kScale = kPow10[Decimals];
    constexpr std::uint64_t kAscii = 0x3030303030303030ull;
    const std::uint64_t frac = scaled % kScale;
    p = write_u64(scaled / kScale, p);
    if (frac == 0) return p;
    *p++ = '.';
    if constexpr (Decimals <= 8) {
        // The digits and 8 - Decimals zeros after them.
        const std::uint64_t d =
            eight_digit_values(static_cast<std::uint32_t>(frac * kPow10[8 - Decimals]));
        const std::uint64_t text = d | kAscii;
        store8(p, text);
        return p + 8 - (std::countl_zero(d) >> 3);
    } else if constexpr (Decimals == 10) {
        // Two digits, then eight.
        const auto high = static_cast<std::uint32_t>(frac / 100000000);
        const std::uint32_t tens = (high * 103) >> 10;  // high / 10 below 179
        const std::uint32_t ones = high - tens * 10;
        const std::uint64_t low = eight_digit_values(static_cast<std::uint32_t>(frac % 100000000));
        const std::uint64_t low_text = low | kAscii;
        p[0] = static_cast<char>('0' + tens);
        p[1] = static_cast<char>('0' + ones);
        store8(p + 2, low_text);
        if (low != 0) return p + Decimals - (std::countl_zero(low) >> 3);
        return p + (ones != 0 ? 2 : 1);
    } else {
        constexpr int kHigh = Decimals - 8;
        const std::uint64_t high =
            eight_digit_values(static_cast<std::uint32_t>(frac / 100000000 * kPow10[8 - kHigh]));
        const std::uint64_t low = eight_digit_values(static_cast<std::uint32_t>(frac % 100000000));
        const std::uint64_t high_text = high | kAscii, low_text = low | kAscii;
        store8(p, high_text);
        store8(p + kHigh, low_text);
        if (low != 0) return p + Decimals - (std::countl_zero(low) >> 3);
        return p + 8 - (std::countl_zero(high) >> 3);
    }
}

// write_float(v, kFloatValve, p) for the common values, inline: finite, below 2^30, and (below
// 2^-9) reading back from ten decimals.
inline char* write_valve_float(float v, char* p) {
    std::uint64_t q;
    if (!fixed_scaled(v, 10, true, q)) return write_float(v, kFloatValve, p);
    char* const b = p;
    if (std::signbit(v)) *p++ = '-';
    p = write_scaled_fixed<10>(q, p);
    // Ten decimals are within 0.5e-10 of v, less than a quarter of the float spacing from 2^-9
    // up: only smaller values can read back as a neighbour, and are then spelled shortest.
    if (std::fabs(v) < 0x1p-9f && v != 0) {
        Decimal d;  // the text just written, without splitting it again
        d.neg = std::signbit(v);
        d.mantissa = q;
        d.frac_digits = 10;
        float w;
        if (!parse_decimal(std::string_view(b, static_cast<std::size_t>(p - b)), &d, w) ||
            std::bit_cast<std::uint32_t>(w) != std::bit_cast<std::uint32_t>(v)) {
            return write_float(v, kFloatShortest, b);
        }
    }
    return p;
}

// scan_decimal, parse_decimal and valve_fixed_spelled of a plain decimal in one pass without a
// Decimal, for files whose floats are Valve's: returns the end of the decimal, or nullptr where
// scan_decimal would (or the text does not read as a float); `valve` tells whether the text is
// Valve's spelling of `out`.
[[gnu::always_inline]] inline const char* scan_valve_float(const char* p, const char* end,
                                                           const char* limit, float& out,
                                                           bool& valve) {
    const char* const s = p;
    const bool neg = p < end && *p == '-';
    p += neg;
    const char* const b = p;
    std::uint64_t ip = 0;
    while (p < end && static_cast<unsigned char>(*p - '0') < 10) {
        ip = ip * 10 + static_cast<unsigned>(*p - '0');
        ++p;
    }
    const auto int_digits = static_cast<std::size_t>(p - b);
    if (int_digits == 0 || int_digits > 18) return nullptr;
    std::uint64_t m = ip;
    std::size_t frac_digits = 0;
    bool trailing_zero = false;
    if (p < end && *p == '.') {
        std::uint64_t f;
        p = scan_fraction(p + 1, end, limit, f, frac_digits);
        if (int_digits + frac_digits > 19) return nullptr;
        trailing_zero = frac_digits == 0 || p[-1] == '0';
        m = m * kPow10[frac_digits] + f;
    }
    // parse_decimal's fast path, else the Decimal it would have had.
    const std::string_view text(s, static_cast<std::size_t>(p - s));
    const bool small = m < (std::uint64_t{1} << 53);
    const double x = static_cast<double>(m) * kPow10Inv[frac_digits];
    if (small && (std::bit_cast<std::uint64_t>(x) & 0x1FFFFFFF) - (0x10000000 - 4) > 8) {
        const float f = static_cast<float>(x);
        out = neg ? -f : f;
    } else {
        Decimal d;
        d.neg = neg;
        d.mantissa = m;
        d.frac_digits = static_cast<int>(frac_digits);
        d.small = small;
        if (!parse_decimal_exact(text, &d, out)) return nullptr;
    }
    // fixed_spelled(d, out, 10, true), evaluated without branches where it can be. (Its sign
    // check holds by construction: `out` has the text's sign.)
    const bool spelled = (int_digits == 1 || *b != '0') & !trailing_zero & (frac_digits <= 10) &
                         (ip < 1000000000ull);
    const std::uint64_t want = m * kPow10[frac_digits <= 10 ? 10 - frac_digits : 0];
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(out) & 0x7FFFFFFF;
    const std::uint32_t biased = bits >> 23;
    std::uint64_t q;
    if (biased - 87 < 63) {
        // 2^-40 <= |out| < 2^23: fixed_scaled's rounding of m * 10^10 / 2^k (1 <= k < 64),
        // ties away from zero, is adding half and shifting.
        const std::uint32_t k = 150 - biased;
        const std::uint64_t mant = (bits & 0x7FFFFF) | 0x800000;
        q = (mant * kPow10[10] + (std::uint64_t{1} << (k - 1))) >> k;
        valve = spelled & (q == want);
    } else {
        valve = spelled && fixed_scaled(out, 10, true, q) && q == want;
    }
    return p;
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
std::uint8_t match_by_writing(float v, std::string_view text, std::uint8_t candidates);

// parse_float plus the bits of `candidates` whose spelling of the value is `text`.
inline bool read_float(std::string_view text, std::uint8_t candidates, float& out,
                       std::uint8_t& matching) {
    matching = 0;
    Decimal d;
    const bool plain = split_decimal(text, d);
    if (!plain && !text.empty() && text[0] == '+') {
        // Nobody writes a '+': parse it, match nothing.
        return parse_float(text, out);
    }
    if (!parse_decimal(text, plain ? &d : nullptr, out)) return false;
    if (plain) candidates = match_fixed(d, out, candidates, matching);
    if (candidates) matching |= match_by_writing(out, text, candidates);
    return true;
}

}  // namespace lk::dmx::detail
