#include "kv2_style.hpp"

#include "kv2_number.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

namespace lk::dmx {

namespace detail {
namespace {

constexpr char kIndentMark = '\x01';

// Default templates: 'n' = line break + indent at the depth, 'm' = one less. The depth counts
// open braces and brackets; a closing brace has already left its level, a bracket has not.
struct Default {
    Tk prev, next;
    const char* spec;
};

constexpr Default kValveGaps[] = {
    {Tk::header, Tk::top_class, "n"},
    {Tk::header, Tk::end, "n"},
    {Tk::rbrace_top, Tk::top_class, "n"},
    {Tk::rbrace_top, Tk::end, "n"},
    {Tk::top_class, Tk::lbrace, "n"},
    {Tk::attr_class, Tk::lbrace, "n"},
    {Tk::item_class, Tk::lbrace, "n"},
    {Tk::lbrace, Tk::name, "n"},
    {Tk::lbrace, Tk::rbrace_top, "m"},
    {Tk::lbrace, Tk::rbrace_attr, "m"},
    {Tk::lbrace, Tk::rbrace_item, "m"},
    {Tk::value, Tk::name, "n"},
    {Tk::value_bin, Tk::name, "n"},
    {Tk::rbracket_s, Tk::name, "n"},
    {Tk::rbracket_e, Tk::name, "n"},
    {Tk::rbrace_attr, Tk::name, "nn"},
    {Tk::name, Tk::type, " "},
    {Tk::name, Tk::attr_class, " "},
    {Tk::type, Tk::value, " "},
    {Tk::type, Tk::value_bin, " n"},
    {Tk::type, Tk::lbracket_s, " n"},
    {Tk::type, Tk::lbracket_e, " n"},
    {Tk::lbracket_s, Tk::item_s, "n"},
    {Tk::item_s, Tk::comma_s, ""},
    {Tk::comma_s, Tk::item_s, "n"},
    {Tk::item_s, Tk::rbracket_s, "m"},
    {Tk::lbracket_s, Tk::rbracket_s, "m"},
    {Tk::lbracket_e, Tk::item_class, "n"},
    {Tk::lbracket_e, Tk::item_kw, "n"},
    {Tk::item_kw, Tk::item_ref, " "},
    {Tk::item_ref, Tk::comma_e, ""},
    {Tk::rbrace_item, Tk::comma_e, ""},
    {Tk::comma_e, Tk::item_class, "n"},
    {Tk::comma_e, Tk::item_kw, "n"},
    {Tk::item_ref, Tk::rbracket_e, "m"},
    {Tk::rbrace_item, Tk::rbracket_e, "m"},
    {Tk::lbracket_e, Tk::rbracket_e, "m"},
};

constexpr Tk kClosers[] = {Tk::rbrace_top, Tk::rbrace_attr, Tk::rbrace_item};
constexpr Tk kLineEnds[] = {Tk::value, Tk::value_bin, Tk::rbracket_s, Tk::rbracket_e,
                            Tk::rbrace_attr};

std::string expand_spec(const char* spec, std::string_view newline) {
    std::string t;
    for (const char* p = spec; *p; ++p) {
        if (*p == 'n' || *p == 'm') {
            t += newline;
            t += kIndentMark;
            t += static_cast<char>(*p == 'n' ? 128 : 127);
        } else {
            t += *p;
        }
    }
    return t;
}

int rel_of(char c) {
    return static_cast<unsigned char>(c) - 128;
}

}  // namespace
}  // namespace detail

Kv2Style Kv2Style::valve_with(std::string_view newline) {
    using namespace detail;
    Kv2Style s;
    s.newline = std::string(newline);
    for (const Default& d : kValveGaps)
        s.gaps[gap_key(d.prev, d.next)] = expand_spec(d.spec, newline);
    for (Tk end : kLineEnds) {
        // The depth already counts the closing brace's own level.
        for (Tk closer : kClosers) s.gaps[gap_key(end, closer)] = expand_spec("n", newline);
    }
    return s;
}

const Kv2Style& Kv2Style::valve() {
    static const Kv2Style s = valve_with("\n");
    return s;
}

namespace detail {

void expand_gap(const Kv2Style& s, std::size_t key, int depth, std::string& out) {
    const std::string& t = s.gaps[key];
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == kIndentMark && i + 1 < t.size()) {
            const int n = depth + rel_of(t[++i]);
            if (n > 0) out.append(static_cast<std::size_t>(n), '\t');
        } else {
            out += t[i];
        }
    }
}

bool make_template(std::string_view gap, int depth, std::string& out) {
    out.clear();
    if (gap.find(kIndentMark) != std::string_view::npos) return false;
    std::size_t i = 0;
    while (i < gap.size()) {
        const char c = gap[i++];
        out += c;
        if (c != '\n') continue;
        int tabs = 0;
        while (i < gap.size() && gap[i] == '\t') {
            ++tabs;
            ++i;
        }
        // A line without indent stays without indent at any depth.
        if (tabs == 0) continue;
        const int rel = tabs - depth;
        if (rel < -100 || rel > 100) return false;
        out += kIndentMark;
        out += static_cast<char>(rel + 128);
    }
    return true;
}

namespace {

char* write_scaled(std::uint64_t scaled, int decimals, char* p) {
    switch (decimals) {
        case 4:
            return write_scaled_fixed<4>(scaled, p);
        case 6:
            return write_scaled_fixed<6>(scaled, p);
        case 10:
            return write_scaled_fixed<10>(scaled, p);
        default:
            break;
    }
    p = write_u64(scaled / kPow10[decimals], p);
    std::uint64_t frac = scaled % kPow10[decimals];
    if (frac == 0) return p;
    int digits = decimals;
    while (frac % 10 == 0) {
        frac /= 10;
        --digits;
    }
    *p++ = '.';
    for (int i = digits - 1; i >= 0; --i) {
        p[i] = static_cast<char>('0' + frac % 10);
        frac /= 10;
    }
    return p + digits;
}

char* write_shortest(float v, char* p) {
    return std::to_chars(p, p + kMaxFloatChars, v).ptr;
}

// |v| rounded to `decimals` places exactly (the binary value, not a decimal approximation),
// trailing zeros and a bare '.' trimmed; the sign of negative values (and -0) is kept.
char* write_fixed(float v, int decimals, bool ties_away, char* p) {
    if (!std::isfinite(v)) return write_shortest(v, p);
    if (std::signbit(v)) *p++ = '-';
    std::uint64_t q;
    if (fixed_scaled(v, decimals, ties_away, q)) return write_scaled(q, decimals, p);
    // Too large for the 64-bit path: an integer, printed exactly.
    return std::to_chars(p, p + kMaxFloatChars - 1, std::fabs(static_cast<double>(v)),
                         std::chars_format::fixed, 0)
        .ptr;
}

// Python's repr() of a double: shortest round-trip digits, fixed notation for exponents in
// [-4, 16) with at least one fractional digit, otherwise d.ddde+XX.
char* write_python(double d, char* p) {
    auto put = [&p](std::string_view s) {
        std::memcpy(p, s.data(), s.size());
        p += s.size();
    };
    if (std::isnan(d)) {
        put("nan");
        return p;
    }
    if (std::isinf(d)) {
        put(d < 0 ? "-inf" : "inf");
        return p;
    }
    if (std::signbit(d)) {
        *p++ = '-';
        d = -d;
    }
    if (d == 0) {
        put("0.0");
        return p;
    }
    char buf[40];
    auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    const std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
    const std::size_t epos = s.find('e');
    char digit_buf[24];
    std::size_t n = 0;
    for (char c : s.substr(0, epos)) {
        if (c != '.') digit_buf[n++] = c;
    }
    const std::string_view digits(digit_buf, n);
    int exp = 0;
    std::from_chars(s.data() + epos + 1 + (s[epos + 1] == '+'), s.data() + s.size(), exp);
    const auto len = static_cast<int>(n);
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            put("0.");
            std::memset(p, '0', static_cast<std::size_t>(-exp - 1));
            p += -exp - 1;
            put(digits);
        } else if (len <= exp + 1) {
            put(digits);
            std::memset(p, '0', static_cast<std::size_t>(exp + 1 - len));
            p += exp + 1 - len;
            put(".0");
        } else {
            put(digits.substr(0, static_cast<std::size_t>(exp + 1)));
            *p++ = '.';
            put(digits.substr(static_cast<std::size_t>(exp + 1)));
        }
        return p;
    }
    *p++ = digits[0];
    if (n > 1) {
        *p++ = '.';
        put(digits.substr(1));
    }
    *p++ = 'e';
    *p++ = exp < 0 ? '-' : '+';
    const int a = exp < 0 ? -exp : exp;
    if (a < 10) *p++ = '0';
    return write_u64(static_cast<std::uint64_t>(a), p);
}

// Whether `text` (fixed-point, ten decimals) reads back as `v` (positive, small).
bool reads_back(std::string_view text, float v) {
    float w = 0;
    Decimal d;
    return parse_decimal(text, split_decimal(text, d) ? &d : nullptr, w) &&
           std::bit_cast<std::uint32_t>(w) == std::bit_cast<std::uint32_t>(v);
}

}  // namespace

char* write_float(float v, std::uint8_t style, char* p) {
    switch (lowest_bit(style)) {
        case kFloatFixed6:
            return write_fixed(v, 6, false, p);
        case kFloatShortest:
            return write_shortest(v, p);
        case kFloatPython:
            return write_python(static_cast<double>(v), p);
        default: {
            char* const b = p;
            p = write_fixed(v, 10, true, p);
            // Ten decimals are within 0.5e-10 of v, less than a quarter of the float spacing
            // from 2^-9 up: only smaller values can read back as a neighbour.
            if (std::fabs(v) < 0x1p-9f && v != 0 &&
                !reads_back(std::string_view(b, static_cast<std::size_t>(p - b)), v)) {
                p = write_shortest(v, b);
            }
            return p;
        }
    }
}

void append_float(float v, std::uint8_t style, std::string& out) {
    char buf[kMaxFloatChars];
    out.append(buf, write_float(v, style, buf));
}

std::uint8_t match_by_writing(float v, std::string_view text, std::uint8_t candidates) {
    std::uint8_t out = 0;
    char buf[kMaxFloatChars];
    for (std::uint8_t bit = 1; bit <= kFloatPython; bit = static_cast<std::uint8_t>(bit << 1)) {
        if (!(candidates & bit)) continue;
        const char* const end = write_float(v, bit, buf);
        if (std::string_view(buf, static_cast<std::size_t>(end - buf)) == text) out |= bit;
    }
    return out;
}

bool parse_float(std::string_view s, float& out) {
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    Decimal d;
    return parse_decimal(s, split_decimal(s, d) ? &d : nullptr, out);
}

std::uint8_t float_styles_matching(float v, std::string_view text, std::uint8_t candidates) {
    std::uint8_t out = 0;
    Decimal d;
    if (split_decimal(text, d)) candidates = match_fixed(d, v, candidates, out);
    return out | match_by_writing(v, text, candidates);
}

namespace {

// The character after the backslash for each byte Valve escapes (0: written as it is).
constexpr std::array<char, 256> kEscapes = [] {
    std::array<char, 256> t{};
    t['\n'] = 'n';
    t['\t'] = 't';
    t['\v'] = 'v';
    t['\b'] = 'b';
    t['\r'] = 'r';
    t['\f'] = 'f';
    t['\a'] = 'a';
    t['\\'] = '\\';
    t['"'] = '"';
    t['?'] = '?';
    t['\''] = '\'';
    return t;
}();

}  // namespace

char* write_escaped(std::string_view s, std::uint8_t style, char* p) {
    // srctools does not escape ? and '.
    const bool valve = lowest_bit(style) == kStringValve;
    for (const char c : s) {
        const char e = kEscapes[static_cast<unsigned char>(c)];
        if (e && (valve || (c != '?' && c != '\''))) {
            p[0] = '\\';
            p[1] = e;
            p += 2;
        } else {
            *p++ = c;
        }
    }
    return p;
}

void append_escaped(std::string_view s, std::uint8_t style, std::string& out) {
    const std::size_t at = out.size();
    out.resize(at + 2 * s.size());
    char* const end = write_escaped(s, style, out.data() + at);
    out.resize(static_cast<std::size_t>(end - out.data()));
}

void append_binary(const Binary& b, std::uint8_t style, int depth, std::string& out) {
    const std::uint8_t st = lowest_bit(style);
    const char* hex = (st == kBinarySpacedLower || st == kBinaryPlainLower) ? "0123456789abcdef"
                                                                            : "0123456789ABCDEF";
    auto byte = [&](std::byte x) {
        const auto v = std::to_integer<unsigned>(x);
        out += hex[v >> 4];
        out += hex[v & 15];
    };
    if (st == kBinaryValve) {
        if (b.empty()) return;
        out += '\n';
        for (std::size_t i = 0; i < b.size(); i += 40) {
            out.append(static_cast<std::size_t>(depth + 1), '\t');
            for (std::size_t k = i; k < std::min(b.size(), i + 40); ++k) byte(b[k]);
            out += '\n';
        }
        out.append(static_cast<std::size_t>(std::max(depth, 0)), '\t');
        return;
    }
    const bool spaced = st == kBinarySpacedUpper || st == kBinarySpacedLower;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (spaced && i) out += ' ';
        byte(b[i]);
    }
}

void append_time(Time t, std::string& out) {
    std::int64_t ticks = t.ticks;
    if (ticks < 0) {
        out += '-';
        ticks = -ticks;
    }
    static_assert(Time::kTicksPerSecond == 10000);
    char buf[32];
    out.append(buf, write_scaled(static_cast<std::uint64_t>(ticks), 4, buf));
}

void append_uint64(std::uint64_t v, std::string& out) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
    out += "0x";
    out.append(buf, r.ptr);
}

}  // namespace detail
}  // namespace lk::dmx
