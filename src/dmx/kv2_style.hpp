// keyvalues2 layout style: how a writer spaces tokens and spells values (notes/dmx.md §4).
//
// The reader learns a style from the file (the first gap between two kinds of tokens sets the
// template for that pair, relative to the nesting depth; number and string spellings are narrowed
// to the candidate writers consistent with every value) and records only the gaps and spellings
// that differ from it. The writer replays the style, so output of a document read from kv2 is
// byte-identical and output of a document built from binary looks like Valve's.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "levelkit/dmx/document.hpp"

namespace lk::dmx {

namespace detail {

// Token kinds; a gap is keyed by the kinds of the tokens around it.
enum class Tk : std::uint8_t {
    header,
    top_class,   // class name of a top-level element
    attr_class,  // class name of an element written inline as an attribute value
    item_class,  // class name of an element written inline as an array item
    lbrace,
    rbrace_top,
    rbrace_attr,
    rbrace_item,
    name,        // attribute name
    type,        // attribute type
    value,       // scalar value
    value_bin,   // binary value (Valve writes it on its own lines)
    lbracket_s,  // array of non-elements
    lbracket_e,  // element array
    rbracket_s,
    rbracket_e,
    item_s,    // array item
    item_kw,   // "element" before a referenced array item
    item_ref,  // GUID of a referenced array item
    comma_s,
    comma_e,
    end,
    count_
};
inline constexpr std::size_t kTkCount = static_cast<std::size_t>(Tk::count_);
constexpr std::size_t gap_key(Tk prev, Tk next) {
    return static_cast<std::size_t>(prev) * kTkCount + static_cast<std::size_t>(next);
}

// Float spellings, as bits of a candidate mask (lowest set bit = preferred).
enum FloatStyle : std::uint8_t {
    kFloatValve = 1,     // "%.10f", ties away from zero, zeros trimmed; shortest if lossy
    kFloatFixed6 = 2,    // "%.6f" correctly rounded, zeros trimmed (srctools)
    kFloatShortest = 4,  // shortest text that reads back (std::to_chars(float))
    kFloatPython = 8,    // Python repr() of the value as a double (Blender Source Tools)
    kFloatAll = 15,
};
// String escapes: Valve escapes ' and ? too; srctools does not.
enum StringStyle : std::uint8_t { kStringValve = 1, kStringPlain = 2, kStringAll = 3 };
// Binary spellings.
enum BinaryStyle : std::uint8_t {
    kBinaryValve = 1,        // upper-case hex, 40 bytes a line on its own indented lines
    kBinarySpacedUpper = 2,  // "5C 81 48"
    kBinarySpacedLower = 4,
    kBinaryPlainUpper = 8,  // "5C8148"
    kBinaryPlainLower = 16,
    kBinaryAll = 31,
};

// The layout line after the header (io.hpp).
inline constexpr std::string_view kHintPrefix = "// levelkit-binary ";

// Trivia slots (Kv2Trivia). Element-owned gaps:
inline constexpr std::uint32_t kSlotTopGap = 0;    // before a top-level class name
inline constexpr std::uint32_t kSlotOpenGap = 1;   // class name -> "{"
inline constexpr std::uint32_t kSlotCloseGap = 2;  // before "}"
inline constexpr std::uint32_t kSlotIdGap = 3;     // 3, 4, 5: before "id", "elementid", the id
inline constexpr std::uint32_t kSlotNameGap = 6;   // 6, 7, 8: the same for the "name" line
// Attribute-owned gaps: 0 before the name, 1 name -> type, 2 type -> value / "[", then per array
// item (first, "element" -> GUID for references, before ",") and finally before "]".
inline constexpr std::uint32_t kSlotItems = 3;
// Raw spellings: kRaw | 0 attribute name / class name, | 1 type, | 2 id, | 3 element name.
inline constexpr std::uint32_t kRaw = 0x40000000;
inline constexpr std::uint32_t kRawValue = 0x80000000;  // | item index (0 for scalars)
// A "," present where the layout has none, or missing where it has one: | item index.
inline constexpr std::uint32_t kComma = 0x20000000;
// The most items a keyvalues2 array may have: every slot above stays below kComma.
inline constexpr std::size_t kMaxArrayItems = (kComma - kSlotItems) / 3 - 1;
// Document-level: the gap before the end of the file.
inline constexpr std::uint32_t kSlotEnd = 0;

constexpr std::uint32_t item_slots(bool element_array) {
    return element_array ? 3 : 2;
}

constexpr std::uint8_t lowest_bit(std::uint8_t mask) {
    return static_cast<std::uint8_t>(mask & (~mask + 1));
}

}  // namespace detail

struct Kv2Style {
    // Gap templates: text with "\x01<depth offset + 128>" where a run of tabs after a line break
    // stands for the nesting depth; empty-and-unlearned keys use Valve's layout.
    std::array<std::string, detail::kTkCount * detail::kTkCount> gaps;
    std::array<bool, detail::kTkCount * detail::kTkCount> learned{};
    std::string newline = "\n";
    std::uint8_t floats = detail::kFloatValve;
    std::uint8_t strings = detail::kStringValve;
    std::uint8_t binaries = detail::kBinaryValve;

    // Valve's layout with the given line break.
    static const Kv2Style& valve();
    static Kv2Style valve_with(std::string_view newline);
};

namespace detail {

// The gap text for `key` at `depth`.
void expand_gap(const Kv2Style& s, std::size_t key, int depth, std::string& out);
// A template for `gap` at `depth`; false if the gap cannot be templated (contains \x01).
bool make_template(std::string_view gap, int depth, std::string& out);

// --- value spellings ---
// The write_* functions write at `p`, which has room for what they write (kMaxFloatChars for a
// float, 2 * size for an escaped string), and return the end; append_* append to a string.
inline constexpr std::size_t kMaxFloatChars = 64;
char* write_float(float v, std::uint8_t style, char* p);
char* write_escaped(std::string_view s, std::uint8_t style, char* p);
void append_float(float v, std::uint8_t style, std::string& out);
// Reads a float as std::from_chars does (correctly rounded); plain decimals take a fast path.
bool parse_float(std::string_view text, float& out);
// Bits of `candidates` whose spelling of `v` is `text`.
std::uint8_t float_styles_matching(float v, std::string_view text, std::uint8_t candidates);
void append_escaped(std::string_view s, std::uint8_t style, std::string& out);
void append_binary(const Binary& b, std::uint8_t style, int depth, std::string& out);
void append_time(Time t, std::string& out);
void append_uint64(std::uint64_t v, std::string& out);

}  // namespace detail
}  // namespace lk::dmx
