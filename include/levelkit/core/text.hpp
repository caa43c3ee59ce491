// Text helpers shared by every text format: byte offset -> line:column, number parsing and
// formatting, and small string utilities.
//
// Text parsers record byte offsets only (cheap); a LineMap turns an offset into line:column when
// a diagnostic is made, so the hot path never counts lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/diagnostic.hpp"

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
std::optional<double> parse_double(std::string_view s);
// Parses the longest numeric prefix; returns chars consumed (0 = no number).
std::size_t parse_double_prefix(std::string_view s, double& out);
std::optional<std::int64_t> parse_int(std::string_view s);
std::optional<std::uint64_t> parse_uint(std::string_view s);

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
bool istarts_with(std::string_view s, std::string_view prefix);
bool iends_with(std::string_view s, std::string_view suffix);
std::string to_lower(std::string_view s);
std::string_view trim(std::string_view s);
// Splits on runs of ASCII whitespace.
std::vector<std::string_view> split_ws(std::string_view s);
// Renders bytes for a message: printable ASCII kept, others as \xNN, truncated to max_len.
std::string printable(std::string_view s, std::size_t max_len = 60);

}  // namespace lk
