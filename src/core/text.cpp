#include "levelkit/core/text.hpp"
#include "levelkit/core/numbers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace lk {

void LineMap::build() const {
    starts_.clear();
    starts_.push_back(0);
    const char* p = text_.data();
    const std::size_t n = text_.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (p[i] == '\n') {
            starts_.push_back(static_cast<std::uint32_t>(i + 1));
        } else if (p[i] == '\r') {
            if (i + 1 < n && p[i + 1] == '\n') ++i;
            starts_.push_back(static_cast<std::uint32_t>(i + 1));
        }
    }
}

TextPos LineMap::locate(std::size_t offset) const {
    if (starts_.empty()) build();
    offset = std::min(offset, text_.size());
    auto it = std::upper_bound(starts_.begin(), starts_.end(), static_cast<std::uint32_t>(offset));
    const auto line_index = static_cast<std::size_t>(it - starts_.begin()) - 1;
    return {static_cast<std::uint32_t>(line_index + 1),
            static_cast<std::uint32_t>(offset - starts_[line_index] + 1)};
}

Diagnostic LineMap::error_at(std::size_t offset, std::string code, std::string message) const {
    const TextPos p = locate(offset);
    return Diagnostic::error(std::move(code), std::move(message))
        .at_line(p.line, p.column)
        .at_offset(static_cast<std::int64_t>(std::min(offset, text_.size())));
}

Diagnostic LineMap::warning_at(std::size_t offset, std::string code, std::string message) const {
    Diagnostic d = error_at(offset, std::move(code), std::move(message));
    d.severity = Severity::warning;
    return d;
}

namespace {

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

inline bool is_digit(char c) {
    return static_cast<unsigned char>(c - '0') < 10;
}

// Clinger's fast path: when the decimal mantissa fits in 53 bits and the power of ten is exact
// (|e| <= 22), one IEEE multiply/divide is correctly rounded. Everything else falls back to
// std::from_chars, which is exact but slower.
std::size_t parse_double_impl(const char* s, std::size_t n, double& out) {
    std::size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) {
        neg = s[i] == '-';
        ++i;
    }
    const std::size_t digits_begin = i;
    std::uint64_t mant = 0;
    int digits = 0;
    int frac_digits = 0;
    while (i < n && is_digit(s[i])) {
        mant = mant * 10 + static_cast<unsigned>(s[i] - '0');
        ++digits;
        ++i;
    }
    const bool had_int = i > digits_begin;
    bool had_frac = false;
    if (i < n && s[i] == '.') {
        ++i;
        const std::size_t fb = i;
        while (i < n && is_digit(s[i])) {
            mant = mant * 10 + static_cast<unsigned>(s[i] - '0');
            ++digits;
            ++i;
        }
        frac_digits = static_cast<int>(i - fb);
        had_frac = frac_digits > 0;
    }
    if (!had_int && !had_frac) {
        // Not a plain decimal: let from_chars handle inf/nan (it takes '-' but not '+').
        if (s[0] == '+') return 0;
        auto r = std::from_chars(s, s + n, out);
        if (r.ec != std::errc()) return 0;
        return static_cast<std::size_t>(r.ptr - s);
    }
    int exp10 = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        bool eneg = false;
        if (j < n && (s[j] == '-' || s[j] == '+')) {
            eneg = s[j] == '-';
            ++j;
        }
        if (j < n && is_digit(s[j])) {
            int e = 0;
            while (j < n && is_digit(s[j])) {
                if (e < 100000) e = e * 10 + (s[j] - '0');
                ++j;
            }
            exp10 = eneg ? -e : e;
            i = j;
        }
    }
    const int e = exp10 - frac_digits;
    if (digits <= 19 && mant <= (std::uint64_t{1} << 53) && e >= -22 && e <= 22) {
        double v = static_cast<double>(mant);
        v = e < 0 ? v / kPow10[-e] : v * kPow10[e];
        out = neg ? -v : v;
        return i;
    }
    // Slow exact path. from_chars does not take a leading '+'.
    const std::size_t start = (n && s[0] == '+') ? 1 : 0;
    double v = 0;
    auto r = std::from_chars(s + start, s + i, v);
    if (r.ec == std::errc::result_out_of_range) {
        // Over/underflow: keep IEEE semantics like strtod.
        v = (e > 0) ? std::numeric_limits<double>::infinity() : 0.0;
        if (s[start] == '-') v = -v;
    } else if (r.ec != std::errc()) {
        return 0;
    }
    out = v;
    return i;
}

}  // namespace

std::size_t parse_double_prefix(std::string_view s, double& out) {
    if (s.empty()) return 0;
    return parse_double_impl(s.data(), s.size(), out);
}

bool parse_double(std::string_view s, double& out) {
    double v = 0;
    const std::size_t used = parse_double_prefix(s, v);
    if (used == 0 || used != s.size()) return false;
    out = v;
    return true;
}

bool parse_int(std::string_view s, std::int64_t& out) {
    if (s.empty()) return false;
    // Short plain numbers (ids, flags) without from_chars' generality.
    if (s.size() <= 18) {
        std::size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
        std::int64_t v = 0;
        bool ok = i < s.size();
        for (; i < s.size() && ok; ++i) {
            const auto d = static_cast<unsigned char>(s[i] - '0');
            ok = d < 10;
            v = v * 10 + d;
        }
        if (ok) {
            out = s[0] == '-' ? -v : v;
            return true;
        }
    }
    std::size_t start = s[0] == '+' ? 1 : 0;
    std::int64_t v = 0;
    auto r = std::from_chars(s.data() + start, s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
    out = v;
    return true;
}

bool parse_uint(std::string_view s, std::uint64_t& out) {
    if (s.empty()) return false;
    std::size_t start = s[0] == '+' ? 1 : 0;
    std::uint64_t v = 0;
    auto r = std::from_chars(s.data() + start, s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
    out = v;
    return true;
}

void append_double(std::string& out, double v) {
    char buf[32];
    if (v == 0) v = 0;  // no "-0"
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

std::string format_double(double v) {
    std::string s;
    append_double(s, v);
    return s;
}

std::string format_fixed(double v, int max_decimals) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, max_decimals);
    if (r.ec != std::errc()) return format_double(v);
    std::string s(buf, r.ptr);
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    return s;
}

void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

static inline char lower_ascii(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool iends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = lower_ascii(c);
    return out;
}

static inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_ws(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_space(s[i])) ++i;
        const std::size_t b = i;
        while (i < s.size() && !is_space(s[i])) ++i;
        if (i > b) out.push_back(s.substr(b, i - b));
    }
    return out;
}

std::string printable(std::string_view s, std::size_t max_len) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (out.size() >= max_len) {
            out += "...";
            break;
        }
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out += static_cast<char>(c);
        } else {
            out += fmt::format("\\x{:02x}", c);
        }
    }
    return out;
}

bool NumberCursor::number_rest(double& out, const char* p, bool neg) {
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
        // Integers (most plane points) skip the slow division.
        const double v = frac ? static_cast<double>(m) / kPow10[frac] : static_cast<double>(m);
        out = neg ? -v : v;
        p_ = p;
        return true;
    }
    // A map's numbers are finite: "nan" and "inf", which std::from_chars reads, are refused (no
    // editor writes them, a model holding a NaN is not even equal to itself, and geometry made
    // from them is invalid in every output). The value is then kept as text by its reader.
    double v = 0;
    const std::size_t used =
        parse_double_prefix(std::string_view(p_, static_cast<std::size_t>(end_ - p_)), v);
    if (used == 0 || !ends_number(p_ + used) || !std::isfinite(v)) return false;
    out = v;
    p_ += used;
    return true;
}

}  // namespace lk
