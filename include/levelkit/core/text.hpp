// Text helpers shared by every text format: byte offset -> line:column, number parsing and
// formatting, and small string utilities.
//
// Text parsers record byte offsets only (cheap); a LineMap turns an offset into line:column when
// a diagnostic is made, so the hot path never counts lines.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/diagnostic.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lk {

struct TextPos {
    std::uint32_t line = 0;    // 1-based
    std::uint32_t column = 0;  // 1-based, in bytes
};

class LineMap {
public:
    explicit LineMap(std::string_view text) : text_(text) {}
    // Line/column of a byte offset (offsets past the end map to the end). A CR LF pair and a
    // lone CR or LF each end one line, as Hammer counts them.
    TextPos locate(std::size_t offset) const;
    std::string_view text() const { return text_; }
    // Makes an error Diagnostic positioned at `offset`.
    Diagnostic error_at(std::size_t offset, std::string code, std::string message) const;
    Diagnostic warning_at(std::size_t offset, std::string code, std::string message) const;

private:
    void build() const;
    std::string_view text_;
    mutable std::vector<std::uint32_t> starts_;  // built on first use
};

// --- numbers ---------------------------------------------------------------------------

// Parses a whole string as a double (decimal, optional sign, fraction, exponent, "inf"/"nan" as
// std::from_chars accepts them). Fast exact path for short decimals, std::from_chars otherwise.
// Leading/trailing spaces are not accepted; returns nullopt on anything else.
// The whole-string parsers are written out of line as `bool f(s, out)` and wrapped inline: an
// optional returned from an out-of-line call is built on the stack by GCC and read back whole
// (a store-forwarding stall a call), where the inline wrapper's optional stays in registers.
bool parse_double(std::string_view s, double& out);
inline std::optional<double> parse_double(std::string_view s) {
    double v;
    if (!parse_double(s, v)) return std::nullopt;
    return v;
}
// Parses the longest numeric prefix; returns chars consumed (0 = no number).
std::size_t parse_double_prefix(std::string_view s, double& out);
bool parse_int(std::string_view s, std::int64_t& out);
inline std::optional<std::int64_t> parse_int(std::string_view s) {
    std::int64_t v;
    if (!parse_int(s, v)) return std::nullopt;
    return v;
}
bool parse_uint(std::string_view s, std::uint64_t& out);
inline std::optional<std::uint64_t> parse_uint(std::string_view s) {
    std::uint64_t v;
    if (!parse_uint(s, v)) return std::nullopt;
    return v;
}

// Shortest text that reads back to the same double ("1", "0.5", "1e-07" style from to_chars).
std::string format_double(double v);
// Appends format_double(v) to out without a temporary.
void append_double(std::string& out, double v);
// Fixed-point text with up to `max_decimals` digits, trailing zeros (and a trailing '.')
// removed, "-0" written as "0". Used where tools write "%g"-free plain decimals.
std::string format_fixed(double v, int max_decimals);
void append_int(std::string& out, std::int64_t v);

// --- strings ---------------------------------------------------------------------------

// ASCII case-insensitive equality (Valve's key lookup rule). Inline: it sits on hot paths.
inline bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const char x = a[i], y = b[i];
        if (x == y) continue;
        // Equal ignoring case only if they differ by 0x20 and are letters.
        if ((x ^ y) != 0x20) return false;
        const char lx = static_cast<char>(x | 0x20);
        if (lx < 'a' || lx > 'z') return false;
    }
    return true;
}
// A key name known when compiling, for iequals_lower: in lowercase (an uppercase letter does
// not compile), with its bytes and the case bits of its letters as 64-bit words.
template <std::size_t N>
struct LowerKey {
    static constexpr std::size_t kSize = N - 1;
    static constexpr std::size_t kWords = (N - 1 + 7) / 8;
    char text[N] = {};
    std::uint64_t want[kWords] = {};
    std::uint64_t fold[kWords] = {};
    consteval LowerKey(const char (&s)[N]) {
        for (std::size_t i = 0; i < kSize; ++i) {
            if (s[i] >= 'A' && s[i] <= 'Z') throw "LowerKey: write the name in lowercase";
            text[i] = s[i];
            const std::uint64_t shift = 8 * (i % 8);
            want[i / 8] |= std::uint64_t{static_cast<unsigned char>(s[i])} << shift;
            if (s[i] >= 'a' && s[i] <= 'z') fold[i / 8] |= std::uint64_t{0x20} << shift;
        }
    }
};
namespace detail {
// The L bytes at p (1 <= L <= 8) as the low bytes of a little-endian word, from at most two
// loads of a power-of-two size (overlapping ones OR the same bytes twice). A memcpy of 3, 5, 6
// or 7 bytes into a word is built on the stack by GCC and read back whole, which stalls.
template <std::size_t L>
[[gnu::always_inline]] inline std::uint64_t load_low(const char* p) {
    static_assert(L >= 1 && L <= 8);
    if constexpr (L == 8) {
        std::uint64_t x;
        std::memcpy(&x, p, 8);
        return x;
    } else if constexpr (L >= 4) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, p, 4);
        std::memcpy(&hi, p + L - 4, 4);
        return lo | std::uint64_t{hi} << 8 * (L - 4);
    } else if constexpr (L >= 2) {
        std::uint16_t lo, hi;
        std::memcpy(&lo, p, 2);
        std::memcpy(&hi, p + L - 2, 2);
        return lo | std::uint64_t{hi} << 8 * (L - 2);
    } else {
        return static_cast<unsigned char>(*p);
    }
}
}  // namespace detail
// iequals(a, K) a word at a time: a byte of `a` under a letter of K is compared with its case
// bit set, any other byte exactly. For hot dispatch on known key names.
template <LowerKey K>
[[gnu::always_inline]] inline bool iequals_lower(std::string_view a) {
    if (a.size() != K.kSize) return false;
    if constexpr (std::endian::native != std::endian::little) {
        return iequals(a, std::string_view(K.text, K.kSize));
    } else {
        for (std::size_t w = 0; w < K.kWords; ++w) {
            constexpr std::size_t last = K.kSize % 8 == 0 ? 8 : K.kSize % 8;
            const std::uint64_t x = w + 1 < K.kWords ? detail::load_low<8>(a.data() + 8 * w)
                                                     : detail::load_low<last>(a.data() + 8 * w);
            if ((x | K.fold[w]) != K.want[w]) return false;
        }
        return true;
    }
}
// First '"' or CR in [p, end), or end: sixteen bytes a step where SSE2 is there (every x86-64),
// else eight (quoted strings are short, so either beats a memchr call for each of the two;
// big-endian machines take the byte loop). Used by the KeyValues tokenizers. Never reads outside
// [p, end).
inline const char* find_quote_or_cr(const char* p, const char* end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), cr = _mm_set1_epi8('\r');
    for (; end - p >= 16; p += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int m =
            _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, cr)));
        if (m) return p + std::countr_zero(static_cast<unsigned>(m));
    }
#endif
    if constexpr (std::endian::native == std::endian::little) {  // the lowest byte comes first
        constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        for (; end - p >= 8; p += 8) {
            std::uint64_t w;
            std::memcpy(&w, p, 8);
            const std::uint64_t q = w ^ (ones * '"'), r = w ^ (ones * '\r');
            // A zero byte of q or r is a match; the lowest flagged byte is always a true one.
            const std::uint64_t hit = (((q - ones) & ~q) | ((r - ones) & ~r)) & highs;
            if (hit) return p + std::countr_zero(hit) / 8;
        }
    }
    while (p < end && *p != '"' && *p != '\r') ++p;
    return p;
}
bool istarts_with(std::string_view s, std::string_view prefix);
bool iends_with(std::string_view s, std::string_view suffix);
std::string to_lower(std::string_view s);
std::string_view trim(std::string_view s);
// Splits on runs of ASCII whitespace.
std::vector<std::string_view> split_ws(std::string_view s);
// Renders bytes for a message: printable ASCII kept, others as \xNN, truncated to max_len.
std::string printable(std::string_view s, std::size_t max_len = 60);

}  // namespace lk
