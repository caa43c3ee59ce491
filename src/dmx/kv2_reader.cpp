// keyvalues2 reader (notes/dmx.md §4): Valve's grammar (quoted tokens, braces, brackets,
// commas, // comments), tolerant of missing/trailing commas, ids anywhere, flat and noids
// layouts. Records what the writer needs to reproduce the file (kv2_style.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cstring>
#include <unordered_map>

#include "internal.hpp"
#include "kv2_number.hpp"
#include "kv2_style.hpp"
#include "levelkit/core/text.hpp"

namespace lk::dmx::detail {

bool kv2_can_hold(int version, Type t) {
    const Type s = scalar_of(t);
    return version >= 4 || (s != Type::uint64 && s != Type::uint8);
}

namespace {

constexpr std::array<bool, 256> kWhitespace = [] {
    std::array<bool, 256> t{};
    for (unsigned char c : {' ', '\t', '\r', '\n', '\v', '\f'}) t[c] = true;
    return t;
}();

bool is_ws(char c) {
    return kWhitespace[static_cast<unsigned char>(c)];
}

// The number of leading bytes of `v` (in text order) that are whitespace: ' ' or \t..\r.
int whitespace_bytes(std::uint64_t v) {
    constexpr std::uint64_t k7f = 0x7F7F7F7F7F7F7F7Full, k80 = 0x8080808080808080ull;
    constexpr std::uint64_t k01 = 0x0101010101010101ull;
    const std::uint64_t low = v & k7f;
    const std::uint64_t s = v ^ (k01 * ' ');
    const std::uint64_t not_space = (((s & k7f) + k7f) | s) & k80;
    // 9 <= byte <= 13: the low 7 bits reach 9 but not 14 (no carry leaves a byte) and the high
    // bit is clear.
    const std::uint64_t control = (low + k01 * (0x80 - 9)) & ~(low + k01 * (0x80 - 14)) & ~v & k80;
    const std::uint64_t other = not_space & ~control;
    return other ? std::countr_zero(other) >> 3 : 8;
}

// The end of the whitespace in d[i, n) from i on.
[[gnu::always_inline]] inline std::size_t skip_whitespace(const char* d, std::size_t i,
                                                          std::size_t n) {
    if constexpr (kSwar) {
        // Gaps are mostly a line break and a few tabs: a word or two (a word of tabs, deep
        // indentation, by one comparison).
        while (n - i >= 8) {
            const std::uint64_t w = load8(d + i);
            if (w == 0x0909090909090909ull) {
                i += 8;
                continue;
            }
            const int k = whitespace_bytes(w);
            i += static_cast<std::size_t>(k);
            if (k < 8) return i;
        }
    }
    while (i < n && is_ws(d[i])) ++i;
    return i;
}

// Whether `s` has a byte that some writer escapes and another does not (or that no writer
// leaves as it is): a control character, '?' or '\''. Words of eight bytes, then bytes.
bool needs_escape_check(std::string_view s) {
    constexpr std::uint64_t k01 = 0x0101010101010101ull, k80 = 0x8080808080808080ull;
    const char* p = s.data();
    const char* const end = p + s.size();
    if constexpr (kSwar) {
        for (; end - p >= 8; p += 8) {
            const std::uint64_t w = load8(p);
            const std::uint64_t q = w ^ (k01 * '?'), a = w ^ (k01 * '\'');
            // Some byte below 32, or equal to '?' or '\'' (exact as a whole: a borrow only
            // follows a byte that matched).
            if (((w - k01 * 32) & ~w & k80) | ((q - k01) & ~q & k80) | ((a - k01) & ~a & k80)) {
                return true;
            }
        }
    }
    for (; p < end; ++p) {
        if (static_cast<unsigned char>(*p) < 32 || *p == '?' || *p == '\'') return true;
    }
    return false;
}

// Bytes of `v` equal to `c` have their high bit set in the result; bytes after the first such
// byte may be marked wrongly (borrows), so only the lowest mark is exact.
std::uint64_t bytes_equal(std::uint64_t v, char c) {
    const std::uint64_t x = v ^ (0x0101010101010101ull * static_cast<unsigned char>(c));
    return (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
}

char unescape_char(char c) {
    switch (c) {
        case 'n':
            return '\n';
        case 't':
            return '\t';
        case 'v':
            return '\v';
        case 'b':
            return '\b';
        case 'r':
            return '\r';
        case 'f':
            return '\f';
        case 'a':
            return '\a';
        default:
            return c;
    }
}

// The first '"' or '\\' in d[i, n), or n.
std::size_t quote_or_backslash(const char* d, std::size_t i, std::size_t n) {
    if constexpr (kSwar) {
        for (; n - i >= 8; i += 8) {
            const std::uint64_t w = load8(d + i);
            if (const std::uint64_t m = bytes_equal(w, '"') | bytes_equal(w, '\\')) {
                return i + static_cast<std::size_t>(std::countr_zero(m) >> 3);
            }
        }
    }
    while (i < n && d[i] != '"' && d[i] != '\\') ++i;
    return i;
}

struct Token {
    enum Kind : std::uint8_t { str, lbrace, rbrace, lbracket, rbracket, comma, eof } kind = eof;
    std::size_t begin = 0;  // first byte of the token (the opening quote of a string)
    std::string_view raw;   // string content between the quotes, escapes not processed
    std::string_view gap;   // whitespace and comments before the token
    bool escaped = false;   // raw contains a backslash
};

constexpr std::array<Token::Kind, 256> kPunctuation = [] {
    std::array<Token::Kind, 256> t{};
    t.fill(Token::eof);
    t['{'] = Token::lbrace;
    t['}'] = Token::rbrace;
    t['['] = Token::lbracket;
    t[']'] = Token::rbracket;
    t[','] = Token::comma;
    return t;
}();

// The last values looked up for a few texts of the input (attribute names, type names): a
// file repeats a handful of them thousands of times, and a hash map hashes every byte.
template <class V>
class TextCache {
public:
    // Empty texts are never cached: an empty key is an unused slot.
    const V* find(std::string_view s) const {
        const Entry& e = entries_[slot(s)];
        return !s.empty() && e.key == s ? &e.value : nullptr;
    }
    // `s` must outlive the cache (a view of the input).
    void put(std::string_view s, const V& v) {
        if (!s.empty()) entries_[slot(s)] = Entry{s, v};
    }

private:
    struct Entry {
        std::string_view key;
        V value{};
    };
    static std::size_t slot(std::string_view s) {
        const std::size_t n = s.size();
        const std::size_t h = n == 0 ? 0
                                     : n * 7 + static_cast<unsigned char>(s[0]) * 3 +
                                           static_cast<unsigned char>(s[n - 1]) +
                                           static_cast<unsigned char>(s[n / 2]);
        return h % kSlots;
    }
    static constexpr std::size_t kSlots = 64;
    std::array<Entry, kSlots> entries_{};
};

// Owner of trivia: an element, or an attribute of an element.
struct Owner {
    std::int32_t element = -1;
    std::int32_t attribute = -1;  // -1 = the element itself
};

class Kv2Reader {
public:
    Kv2Reader(std::string_view text, std::size_t pos, Document& doc, const ReadOptions& opt)
        : text_(text),
          limit_(text.data() + text.size()),
          pos_(pos),
          doc_(doc),
          opt_(opt),
          lines_(text) {
        style_ = std::make_shared<Kv2Style>();
        style_->floats = kFloatAll;
        style_->strings = kStringAll;
        style_->binaries = kBinaryAll;
    }

    Result<void> run();

private:
    // --- tokens ---
    // The common tokens (a quoted string without escapes, punctuation, after plain whitespace)
    // inline; everything else (comments, escapes, errors, the end) in next_general.
    bool next(Token& t) {
        const char* const d = text_.data();
        const std::size_t n = text_.size();
        std::size_t p = pos_;
        p = skip_whitespace(d, p, n);
        if (p < n) {
            const char c = d[p];
            if (c == '"') {
                const std::size_t q = quote_or_backslash(d, p + 1, n);
                if (q < n && d[q] == '"') {
                    t.kind = Token::str;
                    t.raw = std::string_view(d + p + 1, q - p - 1);
                    t.escaped = false;
                    set_gap(t, p);
                    pos_ = q + 1;
                    return true;
                }
            } else if (const Token::Kind k = kPunctuation[static_cast<unsigned char>(c)];
                       k != Token::eof) {
                t.kind = k;
                set_gap(t, p);
                pos_ = p + 1;
                return true;
            }
        }
        return next_general(t);
    }
    void set_gap(Token& t, std::size_t p) const {
        t.gap = std::string_view(text_.data() + pos_, p - pos_);
        t.begin = p;
    }
    bool next_general(Token& t);
    Diagnostic error_at(std::size_t offset, std::string code, std::string msg) {
        Diagnostic d = lines_.error_at(offset, std::move(code), std::move(msg));
        d.path = path();
        return d;
    }
    // The logical path of what is being read, built only for errors.
    std::string path() const {
        if (cur_element_ < 0) return "top level";
        const Element& e = doc_.elements()[static_cast<std::size_t>(cur_element_)];
        std::string p = fmt::format("element[{}] {}", cur_element_, e.type.str());
        if (cur_attr_ >= 0 && static_cast<std::size_t>(cur_attr_) < e.attributes.size()) {
            p += "/attribute '" +
                 printable(e.attributes[static_cast<std::size_t>(cur_attr_)].name.str()) + "'";
        }
        return p;
    }
    bool fail(std::size_t offset, std::string code, std::string msg) {
        if (!error_) error_ = error_at(offset, std::move(code), std::move(msg));
        return false;
    }
    bool expect(Token& t, Token::Kind kind, const char* what) {
        if (!next(t)) return false;
        if (t.kind != kind) return fail(t.begin, "dmx.kv2-syntax", std::string("expected ") + what);
        return true;
    }
    std::string_view unescape(const Token& t) {
        if (!t.escaped) return t.raw;
        scratch_.clear();
        for (std::size_t i = 0; i < t.raw.size(); ++i) {
            if (t.raw[i] == '\\' && i + 1 < t.raw.size()) {
                scratch_ += unescape_char(t.raw[++i]);
            } else {
                scratch_ += t.raw[i];
            }
        }
        return scratch_;
    }

    // --- trivia ---
    Kv2Trivia& trivia(Owner o);
    void record(Owner o, std::uint32_t slot, std::string_view text) {
        trivia(o).entries.emplace_back(slot, std::string(text));
    }
    // Checks the gap before a token of kind `next` against the style; records it if it differs.
    [[gnu::always_inline]] void gap(const Token& t, Tk next, Owner o, std::uint32_t slot) {
        // Most gaps of a kind repeat at the same depth: compare with the last expansion (only
        // learned keys have one).
        const GapCache& c = gap_cache_[gap_key(prev_, next)];
        if (c.depth == depth_ && c.matches(t.gap, limit_)) {
            prev_ = next;
            return;
        }
        gap_general(t, next, o, slot);
    }
    void gap_general(const Token& t, Tk next, Owner o, std::uint32_t slot);
    // Records the raw spelling of a string token if the writer would escape it differently.
    void check_string(const Token& t, std::string_view value, Owner o, std::uint32_t slot);

    // --- grammar ---
    bool parse_element(const Token& class_tok, Tk class_kind, ElementRef& out);
    bool parse_attribute(ElementRef owner, const Token& name_tok);
    bool parse_value(Type t, const Token& tok, Value& out, std::size_t item, Owner o);
    // Floats: every component must be spelled as one candidate style spells it, separated by
    // single spaces; the candidate set narrows as values are read.
    bool read_floats(const Token& tok, std::string_view s, float* dst, int n, Owner o,
                     std::uint32_t slot);
    // The common case: `n` plain decimals separated by single spaces from `p` on, narrowing
    // `styles` (canonical stays true while a style spells each); the end of the last, or nullptr
    // for anything else.
    const char* scan_plain_floats(const char* p, const char* end, float* dst, int n,
                                  std::uint8_t& styles, bool& canonical);
    // An item of a numeric array read straight from the text when it is a quoted plain number
    // (or tuple) after whitespace; false, with nothing changed, for anything else.
    template <class T>
    bool plain_item(std::vector<T>& items, std::size_t n, Owner o, std::uint32_t base);
    // `n` floats spelled as Valve spells them, separated by single spaces: the end of the last,
    // or nullptr for anything else (then scan_plain decides).
    [[gnu::always_inline]] const char* valve_floats(const char* p, float* dst, int n) const {
        for (int k = 0; k < n; ++k) {
            bool valve;
            p = scan_valve_float(p, limit_, limit_, dst[k], valve);
            if (!p || !valve) return nullptr;
            if (k + 1 < n) {
                if (p == limit_ || *p != ' ') return nullptr;
                ++p;
            }
        }
        return p;
    }
    template <class T>
    static constexpr int kFields = static_cast<int>(sizeof(T) / sizeof(float));
    // plain_item for T: int32 or a tuple of floats.
    template <class T>
    const char* scan_plain(const char* p, T& v, std::uint8_t& styles, bool& canonical);
    // After a comma: reads items and commas for as long as they are plain and spaced as the
    // layout spaces them (the bulk of a large file), with a local cursor.
    template <class T>
    void layout_run(std::vector<T>& items, std::size_t& n, Owner o);
    template <class T>
    bool parse_numeric_array(std::vector<T>& items, Owner o);
    bool read_int(const Token& tok, std::string_view s, std::int32_t& v, Owner o,
                  std::uint32_t slot);
    // Arrays of ints and float tuples, read straight into their storage.
    template <class T>
    bool parse_items(std::vector<T>& items, const Token& tok, std::size_t item, Owner o);
    bool parse_array(Type t, Owner o, Value& out);
    enum class ArrayStep : std::uint8_t { end, comma, item };
    bool array_token(const Token& tok, bool elems, Owner o, std::uint32_t base, std::size_t n,
                     bool& comma_after_last, std::vector<std::size_t>& missing_commas,
                     ArrayStep& step);
    bool reference(const Token& tok, ElementRef& out);

    std::string_view text_;
    const char* limit_;  // end of text_: words are read up to it
    std::size_t pos_;
    Document& doc_;
    const ReadOptions& opt_;
    LineMap lines_;
    std::shared_ptr<Kv2Style> style_;
    std::optional<Diagnostic> error_;
    std::int32_t cur_element_ = -1, cur_attr_ = -1;
    std::string scratch_, fmt_;
    Tk prev_ = Tk::header;
    int depth_ = 0;
    unsigned nesting_ = 0;
    // GUID references: marker -(3 + k) until resolved; `order_` lists references and inline
    // definitions in text order (>= 0: inline definition of that element).
    std::vector<Guid> ref_guids_;
    std::unordered_map<Guid, std::int32_t, GuidHash> ref_index_;
    std::vector<std::int32_t> order_;
    std::unordered_map<Guid, ElementRef, GuidHash> defined_;
    bool noids_ = false;
    TextCache<std::optional<Type>> type_cache_;
    TextCache<Symbol> name_cache_;
    std::string_view hint_;
    bool hint_line_ = false;  // a layout hint line was taken out of the text
    struct GapCache {
        int depth = INT_MIN;  // no expansion yet
        std::string text;
        // Short expansions (at most 8 bytes), as a word and the mask of its bytes.
        std::uint64_t word = 0, mask = 0;
        bool short_ws = false;  // short and whitespace only

        void set(int d) {
            depth = d;
            word = mask = 0;
            short_ws = false;
            if (text.size() <= 8) {
                std::memcpy(&word, text.data(), text.size());
                mask = text.size() == 8 ? ~0ull : (std::uint64_t{1} << (8 * text.size())) - 1;
                short_ws = std::all_of(text.begin(), text.end(), is_ws);
            }
        }
        // gap == text, a word at a time for the short gaps most are.
        bool matches(std::string_view gap, const char* limit) const {
            const std::size_t len = gap.size();
            if (len != text.size()) return false;
            if (kSwar && len <= 8 && limit - gap.data() >= 8) {
                return (load8(gap.data()) & mask) == word;
            }
            return std::memcmp(gap.data(), text.data(), len) == 0;
        }
        // Whether the text at `p` (with 16 bytes readable) is this whitespace gap followed by
        // `c`: then it is the gap the tokenizer would find before a token starting with `c`.
        bool precedes(const char* p, char c) const {
            return kSwar && short_ws && (load8(p) & mask) == word && p[text.size()] == c;
        }
    };
    std::array<GapCache, kTkCount * kTkCount> gap_cache_;
    std::size_t header_end_ = 0, first_token_ = 0;

    Result<void> finish();
    void use_hint();
};

bool Kv2Reader::next_general(Token& t) {
    const std::size_t gap_begin = pos_;
    const std::size_t n = text_.size();
    for (;;) {
        while (pos_ < n && is_ws(text_[pos_])) ++pos_;
        if (pos_ + 1 < n && text_[pos_] == '/' && text_[pos_ + 1] == '/') {
            while (pos_ < n && text_[pos_] != '\n') ++pos_;
            continue;
        }
        break;
    }
    t.gap = text_.substr(gap_begin, pos_ - gap_begin);
    t.begin = pos_;
    t.escaped = false;
    if (pos_ >= n) {
        t.kind = Token::eof;
        return true;
    }
    const char c = text_[pos_];
    switch (c) {
        case '{':
            t.kind = Token::lbrace;
            ++pos_;
            return true;
        case '}':
            t.kind = Token::rbrace;
            ++pos_;
            return true;
        case '[':
            t.kind = Token::lbracket;
            ++pos_;
            return true;
        case ']':
            t.kind = Token::rbracket;
            ++pos_;
            return true;
        case ',':
            t.kind = Token::comma;
            ++pos_;
            return true;
        case '"':
            break;
        default:
            return fail(
                pos_, "dmx.kv2-syntax",
                "unexpected '" + printable(text_.substr(pos_, 1)) +
                    "' (keyvalues2 tokens are quoted strings, braces, brackets and commas)");
    }
    // The closing quote is the first '"' unless a backslash comes before it (rare): then escapes
    // are followed one by one. Both are looked for together, a word at a time.
    const std::size_t start = ++pos_;
    const char* d = text_.data();
    std::size_t q = quote_or_backslash(d, start, n);
    if (q >= n) return fail(t.begin, "dmx.kv2-unterminated", "string has no closing quote");
    const bool escaped = d[q] == '\\';
    if (escaped) {
        for (;;) {
            q = quote_or_backslash(d, q, n);
            if (q >= n) return fail(t.begin, "dmx.kv2-unterminated", "string has no closing quote");
            if (d[q] == '"') break;
            q += 2;
            if (q > n) return fail(t.begin, "dmx.kv2-unterminated", "string has no closing quote");
        }
    }
    t.raw = text_.substr(start, q - start);
    pos_ = q + 1;
    t.escaped = escaped;
    t.kind = Token::str;
    return true;
}

Kv2Trivia& Kv2Reader::trivia(Owner o) {
    Element& e = doc_.elements()[static_cast<std::size_t>(o.element)];
    std::uint32_t& index = o.attribute < 0
                               ? e.kv2_trivia
                               : e.attributes[static_cast<std::size_t>(o.attribute)].kv2_trivia;
    if (index == kNoTrivia) {
        index = static_cast<std::uint32_t>(doc_.kv2().trivia.size());
        doc_.kv2().trivia.emplace_back();
    }
    return doc_.kv2().trivia[index];
}

void Kv2Reader::gap_general(const Token& t, Tk next_kind, Owner o, std::uint32_t slot) {
    const std::size_t key = gap_key(prev_, next_kind);
    prev_ = next_kind;
    if (!style_->learned[key]) {
        // The first gap between two kinds of tokens sets the template for that pair.
        if (std::string& tpl = style_->gaps[key]; make_template(t.gap, depth_, tpl)) {
            style_->learned[key] = true;
            return;
        }
    } else {
        // Most gaps of a kind repeat at the same depth: compare with the last expansion.
        GapCache& c = gap_cache_[key];
        if (c.depth != depth_) {
            c.text.clear();
            expand_gap(*style_, key, depth_, c.text);
            c.set(depth_);
        }
        if (c.matches(t.gap, limit_)) return;
    }
    if (o.element < 0) {
        doc_.kv2().document.entries.emplace_back(slot, std::string(t.gap));
    } else {
        record(o, slot, t.gap);
    }
}

void Kv2Reader::check_string(const Token& t, std::string_view value, Owner o, std::uint32_t slot) {
    if (!t.escaped && !needs_escape_check(t.raw)) return;
    std::uint8_t matching = 0;
    for (std::uint8_t bit : {kStringValve, kStringPlain}) {
        if (!(style_->strings & bit)) continue;
        fmt_.clear();
        append_escaped(value, bit, fmt_);
        if (fmt_ == t.raw) matching |= bit;
    }
    if (matching) {
        style_->strings = matching;
    } else {
        record(o, slot, t.raw);
    }
}

bool Kv2Reader::reference(const Token& tok, ElementRef& out) {
    if (tok.raw.empty()) {
        out = ElementRef::null();
        return true;
    }
    auto g = Guid::parse(tok.raw);
    if (!g) {
        return fail(tok.begin, "dmx.bad-guid",
                    "element reference '" + printable(tok.raw) + "' is not a GUID");
    }
    auto [it, fresh] = ref_index_.try_emplace(*g, static_cast<std::int32_t>(ref_guids_.size()));
    if (fresh) ref_guids_.push_back(*g);
    out = ElementRef{-3 - it->second};
    order_.push_back(out.index);
    return true;
}

namespace {

// Whitespace-separated fields of a value.
template <class F>
bool for_each_field(std::string_view s, F&& f) {
    std::size_t i = 0;
    for (;;) {
        while (i < s.size() && is_ws(s[i])) ++i;
        if (i >= s.size()) return true;
        const std::size_t b = i;
        while (i < s.size() && !is_ws(s[i])) ++i;
        if (!f(s.substr(b, i - b))) return false;
    }
}

template <class I>
bool parse_integer(std::string_view s, I& out, int base = 10) {
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    auto r = std::from_chars(s.data(), s.data() + s.size(), out, base);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

// A parsed GUID is spelled canonically when no hex digit is upper case.
bool lower_case(std::string_view s) {
    for (char c : s) {
        if (c >= 'A' && c <= 'F') return false;
    }
    return true;
}

// "-0", "+1" and "007" are not how any writer spells an int.
bool canonical_int(std::string_view t) {
    std::size_t i = t.size() > 1 && t[0] == '-' ? 1 : 0;
    if (i == t.size() || (t[i] == '0' && (t.size() - i > 1 || i == 1))) return false;
    for (; i < t.size(); ++i) {
        if (static_cast<unsigned char>(t[i] - '0') >= 10) return false;
    }
    return true;
}

// Canonical int text ("-12", "0"; no '+', leading zeros or "-0") of at most 9 digits, which
// cannot overflow, read in one pass; the end of it, or nullptr. (Byte at a time: the digits of
// short ints in words measured slower.)
[[gnu::always_inline]] inline const char* scan_plain_int(const char* p, const char* end,
                                                         std::int32_t& v) {
    const bool neg = p < end && *p == '-';
    p += neg;
    const char* const b = p;
    std::uint32_t u = 0;  // wraps past 9 digits, which are refused
    while (p < end && static_cast<unsigned char>(*p - '0') < 10) {
        u = u * 10 + static_cast<unsigned>(*p - '0');
        ++p;
    }
    const auto digits = p - b;
    if (digits == 0 || digits > 9 || (*b == '0' && (digits > 1 || neg))) return nullptr;
    v = neg ? -static_cast<std::int32_t>(u) : static_cast<std::int32_t>(u);
    return p;
}

bool Kv2Reader::read_int(const Token& tok, std::string_view s, std::int32_t& v, Owner o,
                         std::uint32_t slot) {
    const char* const end = s.data() + s.size();
    if (!tok.escaped && scan_plain_int(s.data(), end, v) == end) return true;
    if (!parse_integer(s, v)) return false;
    if (tok.escaped || !canonical_int(s)) record(o, slot, tok.raw);
    return true;
}

const char* Kv2Reader::scan_plain_floats(const char* p, const char* end, float* dst, int n,
                                         std::uint8_t& styles, bool& canonical) {
    for (int k = 0; k < n; ++k) {
        const char* const b = p;
        std::uint8_t m = 0;
        if (canonical && styles == kFloatValve) {
            // The style of most files once their first floats are read: parsed and checked in
            // one pass.
            bool valve;
            p = scan_valve_float(p, end, limit_, dst[k], valve);
            // Anything but a single space between numbers goes the general way.
            if (!p || (k + 1 < n && (p == end || *p != ' '))) return nullptr;
            m = valve ? std::uint8_t{kFloatValve}
                      : match_by_writing(
                            dst[k], std::string_view(b, static_cast<std::size_t>(p - b)), styles);
        } else {
            Decimal d;
            p = scan_decimal(p, end, limit_, d);
            if (!p || (k + 1 < n && (p == end || *p != ' '))) return nullptr;
            const std::string_view f(b, static_cast<std::size_t>(p - b));
            if (!parse_decimal(f, &d, dst[k])) return nullptr;
            if (canonical) {
                const std::uint8_t rest = match_fixed(d, dst[k], styles, m);
                if (rest) m |= match_by_writing(dst[k], f, rest);
            }
        }
        if (m) {
            styles = m;
        } else {
            canonical = false;
        }
        if (k + 1 < n) ++p;
    }
    return p;
}

bool Kv2Reader::read_floats(const Token& tok, std::string_view s, float* dst, int n, Owner o,
                            std::uint32_t slot) {
    if (!tok.escaped) {
        std::uint8_t styles = style_->floats;
        bool canonical = true;
        const char* const end = s.data() + s.size();
        if (scan_plain_floats(s.data(), end, dst, n, styles, canonical) == end) {
            style_->floats = styles;
            if (!canonical) record(o, slot, s);
            return true;
        }
    }
    int k = 0;
    bool canonical = !tok.escaped;
    std::size_t expect_at = 0;
    const bool ok = for_each_field(s, [&](std::string_view f) {
        if (k == n) return false;
        const std::size_t at = static_cast<std::size_t>(f.data() - s.data());
        // Canonical text separates fields by exactly one space (not a tab, newline, ...).
        if (at != expect_at || (at > 0 && s[at - 1] != ' ')) canonical = false;
        expect_at = at + f.size() + 1;
        std::uint8_t m = 0;
        if (!read_float(f, canonical ? style_->floats : 0, dst[k], m)) return false;
        if (m) {
            style_->floats = m;
        } else {
            canonical = false;
        }
        ++k;
        return true;
    });
    if (!ok || k != n) return false;
    if (expect_at != s.size() + 1) canonical = false;
    if (!canonical) record(o, slot, tok.raw);
    return true;
}

template <class T>
bool Kv2Reader::parse_items(std::vector<T>& items, const Token& tok, std::size_t item, Owner o) {
    const std::uint32_t slot = kRawValue | static_cast<std::uint32_t>(item);
    const std::string_view s = unescape(tok);
    T& v = items.emplace_back();
    bool ok;
    if constexpr (std::is_same_v<T, std::int32_t>) {
        ok = read_int(tok, s, v, o, slot);
    } else {
        ok = read_floats(tok, s, reinterpret_cast<float*>(&v), sizeof(T) / sizeof(float), o, slot);
    }
    if (!ok) {
        return fail(tok.begin, "dmx.bad-value",
                    fmt::format("'{}' is not a valid {}", printable(s),
                                type_name(scalar_of(type_of<std::vector<T>>))));
    }
    return true;
}

bool Kv2Reader::parse_value(Type t, const Token& tok, Value& out, std::size_t item, Owner o) {
    const std::uint32_t slot = kRawValue | static_cast<std::uint32_t>(item);
    const std::string_view s = unescape(tok);
    auto bad = [&](const char* what) {
        return fail(tok.begin, "dmx.bad-value",
                    fmt::format("'{}' is not a valid {}", printable(s), what));
    };
    auto floats = [&](float* dst, int n) { return read_floats(tok, s, dst, n, o, slot); };
    // Other types: the writer's spelling is fixed; compare with it.
    auto canonical_check = [&](auto&& spell) {
        fmt_.clear();
        spell(fmt_);
        if (fmt_ != tok.raw) record(o, slot, tok.raw);
    };
    switch (t) {
        case Type::element: {
            ElementRef r;
            if (!reference(tok, r)) return false;
            out = r;
            // Canonical GUID text is lower case; any other spelling is kept.
            if (!lower_case(tok.raw)) record(o, slot, tok.raw);

            return true;
        }
        case Type::int32: {
            std::int32_t v = 0;
            if (!read_int(tok, s, v, o, slot)) return bad("int");
            out = v;
            return true;
        }
        case Type::float32: {
            float v = 0;
            if (!floats(&v, 1)) return bad("float");
            out = v;
            return true;
        }
        case Type::boolean: {
            bool v;
            if (s == "0" || iequals(s, "false")) {
                v = false;
            } else if (s == "1" || iequals(s, "true")) {
                v = true;
            } else {
                return bad("bool");
            }
            out = v;
            canonical_check([&](std::string& b) { b += v ? '1' : '0'; });
            return true;
        }
        case Type::string: {
            out = std::string(s);
            check_string(tok, s, o, slot);
            return true;
        }
        case Type::binary: {
            Binary b;
            b.reserve(s.size() / 2);
            int hi = -1;
            for (char c : s) {
                if (is_ws(c)) continue;
                const int d = hex_digit(c);
                if (d < 0) return bad("hex binary");
                if (hi < 0) {
                    hi = d;
                } else {
                    b.push_back(static_cast<std::byte>(hi * 16 + d));
                    hi = -1;
                }
            }
            if (hi >= 0) return bad("hex binary (odd number of digits)");
            std::uint8_t matching = 0;
            for (std::uint8_t bit = 1; bit <= kBinaryPlainLower;
                 bit = static_cast<std::uint8_t>(bit << 1)) {
                if (!(style_->binaries & bit)) continue;
                fmt_.clear();
                append_binary(b, bit, depth_, fmt_);
                if (fmt_ == tok.raw) matching |= bit;
            }
            if (matching) {
                style_->binaries = matching;
            } else {
                record(o, slot, tok.raw);
            }
            out = std::move(b);
            return true;
        }
        case Type::time: {
            // Seconds with up to 4 decimals: a double holds every int32 tick count exactly.
            double sec = 0;
            std::string_view ts = s;
            if (!ts.empty() && ts[0] == '+') ts.remove_prefix(1);
            auto pr = std::from_chars(ts.data(), ts.data() + ts.size(), sec);
            if (pr.ec != std::errc() || pr.ptr != ts.data() + ts.size()) return bad("time");
            const double ticks = sec * Time::kTicksPerSecond;
            if (!(ticks >= INT32_MIN && ticks <= INT32_MAX)) return bad("time");
            const Time v{static_cast<std::int32_t>(ticks < 0 ? ticks - 0.5 : ticks + 0.5)};
            out = v;
            canonical_check([&](std::string& b) { append_time(v, b); });
            return true;
        }
        case Type::color: {
            std::uint8_t c[4];
            int k = 0;
            const bool ok = for_each_field(s, [&](std::string_view f) {
                int v = 0;
                if (k == 4 || !parse_integer(f, v) || v < 0 || v > 255) return false;
                c[k++] = static_cast<std::uint8_t>(v);
                return true;
            });
            if (!ok || k != 4) return bad("color");
            out = Color{c[0], c[1], c[2], c[3]};
            canonical_check([&](std::string& b) {
                for (int i = 0; i < 4; ++i) {
                    if (i) b += ' ';
                    append_int(b, c[i]);
                }
            });
            return true;
        }
        case Type::vector2: {
            Vector2 v;
            if (!floats(&v.x, 2)) return bad("vector2");
            out = v;
            return true;
        }
        case Type::vector3: {
            Vector3 v;
            if (!floats(&v.x, 3)) return bad("vector3");
            out = v;
            return true;
        }
        case Type::vector4: {
            Vector4 v;
            if (!floats(&v.x, 4)) return bad("vector4");
            out = v;
            return true;
        }
        case Type::qangle: {
            QAngle v;
            if (!floats(&v.x, 3)) return bad("qangle");
            out = v;
            return true;
        }
        case Type::quaternion: {
            Quaternion v;
            if (!floats(&v.x, 4)) return bad("quaternion");
            out = v;
            return true;
        }
        case Type::matrix: {
            Matrix v;
            if (!floats(v.m.data(), 16)) return bad("matrix");
            out = v;
            return true;
        }
        case Type::uint64: {
            std::uint64_t v = 0;
            const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
            if (!(hex ? parse_integer(s.substr(2), v, 16) : parse_integer(s, v)))
                return bad("uint64");
            out = v;
            canonical_check([&](std::string& b) { append_uint64(v, b); });
            return true;
        }
        case Type::uint8: {
            int v = 0;
            if (!parse_integer(s, v) || v < 0 || v > 255) return bad("uint8");
            out = static_cast<std::uint8_t>(v);
            canonical_check([&](std::string& b) { append_int(b, v); });
            return true;
        }
        case Type::elementid: {
            auto g = Guid::parse(s);
            if (!g) return bad("GUID");
            out = *g;
            canonical_check([&](std::string& b) { g->append_to(b); });
            return true;
        }
        default:
            return bad("value");
    }
}

template <class T>
const char* Kv2Reader::scan_plain(const char* p, T& v, std::uint8_t& styles, bool& canonical) {
    if constexpr (std::is_same_v<T, std::int32_t>) {
        return scan_plain_int(p, limit_, v);
    } else {
        return scan_plain_floats(p, limit_, reinterpret_cast<float*>(&v), kFields<T>, styles,
                                 canonical);
    }
}

template <class T>
void Kv2Reader::layout_run(std::vector<T>& items, std::size_t& n, Owner o) {
    const GapCache& gi = gap_cache_[gap_key(Tk::comma_s, Tk::item_s)];
    const GapCache& gc = gap_cache_[gap_key(Tk::item_s, Tk::comma_s)];
    if (!kSwar || gi.depth != depth_ || !gi.short_ws || gc.depth != depth_ || !gc.short_ws) {
        return;
    }
    const std::size_t il = gi.text.size(), cl = gc.text.size();
    const char* p = text_.data() + pos_;
    std::uint8_t styles = style_->floats;
    // Words are read from p: 16 bytes must remain.
    while (limit_ - p >= 16 && n < kMaxArrayItems && (load8(p) & gi.mask) == gi.word &&
           p[il] == '"') {
        const char* const q = p + il + 1;
        T v;
        std::uint8_t item_styles = styles;
        bool canonical = true;
        const char* e = nullptr;
        if constexpr (!std::is_same_v<T, std::int32_t>) {
            if (styles == kFloatValve)
                e = valve_floats(q, reinterpret_cast<float*>(&v), kFields<T>);
        }
        if (!e) e = scan_plain(q, v, item_styles, canonical);
        if (!e || e == limit_ || *e != '"') break;
        items.push_back(v);
        styles = item_styles;
        if (!canonical) {
            record(o, kRawValue | static_cast<std::uint32_t>(n),
                   std::string_view(q, static_cast<std::size_t>(e - q)));
        }
        ++n;
        p = e + 1;
        prev_ = Tk::item_s;
        if (limit_ - p < 16 || (load8(p) & gc.mask) != gc.word || p[cl] != ',') break;
        p += cl + 1;
        prev_ = Tk::comma_s;
    }
    style_->floats = styles;
    pos_ = static_cast<std::size_t>(p - text_.data());
}

template <class T>
bool Kv2Reader::plain_item(std::vector<T>& items, std::size_t n, Owner o, std::uint32_t base) {
    const char* const d = text_.data();
    const std::size_t size = text_.size();
    std::size_t p = pos_;
    // The gap the layout puts before the item, checked in place, needs no scan and no check.
    const GapCache& c = gap_cache_[gap_key(prev_, Tk::item_s)];
    const bool layout_gap = c.depth == depth_ && size - p >= 16 && c.precedes(d + p, '"');
    if (layout_gap) {
        p += c.text.size();
    } else {
        p = skip_whitespace(d, p, size);
        if (p >= size || d[p] != '"') return false;
    }
    T v;
    std::uint8_t styles = style_->floats;
    bool canonical = true;
    const char* e = scan_plain(d + p + 1, v, styles, canonical);
    // The closing quote right after the number: no escapes, nothing else in the string.
    if (!e || e == limit_ || *e != '"') return false;
    Token tok;
    tok.kind = Token::str;
    tok.raw = std::string_view(d + p + 1, static_cast<std::size_t>(e - (d + p + 1)));
    set_gap(tok, p);
    pos_ = static_cast<std::size_t>(e - d) + 1;
    if (layout_gap) {
        prev_ = Tk::item_s;
    } else {
        gap(tok, Tk::item_s, o, base);
    }
    items.push_back(v);
    if constexpr (!std::is_same_v<T, std::int32_t>) {
        style_->floats = styles;
        if (!canonical) record(o, kRawValue | static_cast<std::uint32_t>(n), tok.raw);
    }
    return true;
}

// An array's token that is not an item's value: ']' ends the array, ',' is taken, anything but
// a string is an error; an item is checked against the count limit and its missing comma noted,
// and left to the caller (step = item).
bool Kv2Reader::array_token(const Token& tok, bool elems, Owner o, std::uint32_t base,
                            std::size_t n, bool& comma_after_last,
                            std::vector<std::size_t>& missing_commas, ArrayStep& step) {
    if (tok.kind == Token::rbracket) {
        gap(tok, elems ? Tk::rbracket_e : Tk::rbracket_s, o, base);
        --depth_;
        step = ArrayStep::end;
        return true;
    }
    if (tok.kind == Token::comma) {
        if (n == 0 || comma_after_last) return fail(tok.begin, "dmx.kv2-syntax", "unexpected ','");
        gap(tok, elems ? Tk::comma_e : Tk::comma_s, o, base - 1);
        comma_after_last = true;
        step = ArrayStep::comma;
        return true;
    }
    if (tok.kind != Token::str)
        return fail(tok.begin, "dmx.kv2-syntax", "expected an array item or ']'");
    // Layout slots number an item in 29 bits (3 per element item, beside flag bits).
    if (n >= kMaxArrayItems) {
        return fail(tok.begin, "dmx.too-large",
                    fmt::format("an array of more than {} items", kMaxArrayItems));
    }
    if (n > 0 && !comma_after_last) missing_commas.push_back(n - 1);
    comma_after_last = false;
    step = ArrayStep::item;
    return true;
}

// parse_array's loop for arrays of ints and float tuples, with their items read straight from
// the text where they are plain (the bulk of large files).
template <class T>
bool Kv2Reader::parse_numeric_array(std::vector<T>& items, Owner o) {
    constexpr std::uint32_t per = item_slots(false);
    std::size_t n = 0;
    bool comma_after_last = false;
    std::vector<std::size_t> missing_commas;
    Token tok;
    for (;;) {
        if (comma_after_last) {
            layout_run(items, n, o);
            comma_after_last = prev_ == Tk::comma_s;
        }
        const std::uint32_t base = kSlotItems + per * static_cast<std::uint32_t>(n);
        if (n < kMaxArrayItems && plain_item(items, n, o, base)) {
            if (n > 0 && !comma_after_last) missing_commas.push_back(n - 1);
            comma_after_last = false;
            ++n;
            // The comma after it where the layout puts one.
            const GapCache& c = gap_cache_[gap_key(Tk::item_s, Tk::comma_s)];
            if (c.depth == depth_ && text_.size() - pos_ >= 16 &&
                c.precedes(text_.data() + pos_, ',')) {
                pos_ += c.text.size() + 1;
                prev_ = Tk::comma_s;
                comma_after_last = true;
            }
            continue;
        }
        if (!next(tok)) return false;
        ArrayStep step;
        if (!array_token(tok, false, o, base, n, comma_after_last, missing_commas, step))
            return false;
        if (step == ArrayStep::end) break;
        if (step == ArrayStep::comma) continue;
        gap(tok, Tk::item_s, o, base);
        if (!parse_items(items, tok, n, o)) return false;
        ++n;
    }
    if (comma_after_last) record(o, kComma | static_cast<std::uint32_t>(n - 1), ",");
    for (std::size_t k : missing_commas) record(o, kComma | static_cast<std::uint32_t>(k), "");
    return true;
}

bool Kv2Reader::parse_array(Type t, Owner o, Value& out) {
    const Type s = scalar_of(t);
    const bool elems = s == Type::element;
    Token tok;
    if (!next(tok)) return false;
    if (tok.kind != Token::lbracket)
        return fail(tok.begin, "dmx.kv2-syntax", "expected '[' after an array type");
    gap(tok, elems ? Tk::lbracket_e : Tk::lbracket_s, o, 2);
    ++depth_;
    out = Value::of_type(t);
    switch (s) {
        case Type::int32:
            return parse_numeric_array(out.get<std::vector<std::int32_t>>(), o);
        case Type::float32:
            return parse_numeric_array(out.get<std::vector<float>>(), o);
        case Type::vector2:
            return parse_numeric_array(out.get<std::vector<Vector2>>(), o);
        case Type::vector3:
            return parse_numeric_array(out.get<std::vector<Vector3>>(), o);
        case Type::vector4:
            return parse_numeric_array(out.get<std::vector<Vector4>>(), o);
        case Type::quaternion:
            return parse_numeric_array(out.get<std::vector<Quaternion>>(), o);
        default:
            break;
    }
    const std::uint32_t per = item_slots(elems);
    std::size_t n = 0;
    bool comma_after_last = false;
    std::vector<std::size_t> missing_commas;
    for (;;) {
        if (!next(tok)) return false;
        const std::uint32_t base = kSlotItems + per * static_cast<std::uint32_t>(n);
        ArrayStep step;
        if (!array_token(tok, elems, o, base, n, comma_after_last, missing_commas, step))
            return false;
        if (step == ArrayStep::end) break;
        if (step == ArrayStep::comma) continue;
        if (elems) {
            auto& items = out.get<std::vector<ElementRef>>();
            if (tok.raw == "element") {
                gap(tok, Tk::item_kw, o, base);
                Token ref;
                if (!next(ref)) return false;
                if (ref.kind != Token::str)
                    return fail(ref.begin, "dmx.kv2-syntax", "expected an element id");
                gap(ref, Tk::item_ref, o, base + 1);
                Value v;
                if (!parse_value(Type::element, ref, v, n, o)) return false;
                items.push_back(v.get<ElementRef>());
            } else {
                gap(tok, Tk::item_class, o, base);
                ElementRef r;
                if (!parse_element(tok, Tk::item_class, r)) return false;
                items.push_back(r);
            }
        } else {
            gap(tok, Tk::item_s, o, base);
            Value v;
            if (!parse_value(s, tok, v, n, o)) return false;
            out.visit([&](auto& arr) {
                using A = std::decay_t<decltype(arr)>;
                if constexpr (requires {
                                  typename A::value_type;
                                  arr.push_back(typename A::value_type{});
                              } &&
                              !std::is_same_v<A, std::string> && !std::is_same_v<A, Binary>) {
                    using T = typename A::value_type;
                    if (auto* p = v.get_if<T>()) arr.push_back(std::move(*p));
                }
            });
        }
        ++n;
    }
    if (comma_after_last) record(o, kComma | static_cast<std::uint32_t>(n - 1), ",");
    for (std::size_t k : missing_commas) record(o, kComma | static_cast<std::uint32_t>(k), "");
    return true;
}

bool Kv2Reader::parse_attribute(ElementRef owner, const Token& name_tok) {
    Token type_tok;
    if (!next(type_tok)) return false;
    if (type_tok.kind != Token::str)
        return fail(type_tok.begin, "dmx.kv2-syntax", "expected an attribute type");
    Element& e = doc_[owner];
    const std::string_view type_text = type_tok.raw;
    std::optional<Type> parsed;
    if (!type_tok.escaped) {
        if (const auto* hit = type_cache_.find(type_text)) {
            parsed = *hit;
        } else {
            parsed = type_from_name(type_text);
            type_cache_.put(type_text, parsed);
        }
    }
    const bool known = parsed.has_value();
    const Type type = parsed.value_or(Type::element);

    const auto ai = static_cast<std::int32_t>(e.attributes.size());
    Attribute& a = e.attributes.emplace_back();
    if (name_tok.escaped) {
        a.name = doc_.intern(unescape(name_tok));
    } else if (const Symbol* hit = name_cache_.find(name_tok.raw)) {
        a.name = *hit;
    } else {
        a.name = doc_.intern(name_tok.raw);
        name_cache_.put(name_tok.raw, a.name);
    }
    const Owner o{owner.index, ai};
    gap(name_tok, Tk::name, o, 0);
    check_string(name_tok, a.name.str(), o, kRaw | 0);
    auto attr = [&]() -> Attribute& {
        return doc_[owner].attributes[static_cast<std::size_t>(ai)];
    };
    cur_element_ = owner.index;
    cur_attr_ = ai;
    if (!known) {
        // Any other type name is the class of an element written inline.
        gap(type_tok, Tk::attr_class, o, 1);
        ElementRef r;
        if (!parse_element(type_tok, Tk::attr_class, r)) return false;
        attr().value = r;
        return true;
    }
    gap(type_tok, Tk::type, o, 1);
    if (type_text != type_name(type)) record(o, kRaw | 1, type_text);
    if (is_array(type)) {
        Value v;
        if (!parse_array(type, o, v)) return false;
        attr().value = std::move(v);
        return true;
    }
    Token value_tok;
    if (!next(value_tok)) return false;
    if (value_tok.kind != Token::str)
        return fail(value_tok.begin, "dmx.kv2-syntax", "expected a quoted value");
    gap(value_tok, type == Type::binary ? Tk::value_bin : Tk::value, o, 2);
    Value v;
    if (!parse_value(type, value_tok, v, 0, o)) return false;
    attr().value = std::move(v);
    return true;
}

bool Kv2Reader::parse_element(const Token& class_tok, Tk class_kind, ElementRef& out) {
    if (++nesting_ > opt_.max_depth) {
        return fail(class_tok.begin, "dmx.too-deep",
                    fmt::format("elements nested deeper than {}", opt_.max_depth));
    }
    const std::int32_t parent_element = cur_element_, parent_attr = cur_attr_;
    const std::string_view cls = unescape(class_tok);
    // The first top-level "$prefix_element$" block holds the prefix attributes (a DmElement
    // written under that name); a later one is an element of that class, kept as written.
    const bool prefix =
        cls == "$prefix_element$" && class_kind == Tk::top_class && doc_.prefix.is_null();
    out = doc_.add_element(prefix ? std::string_view("DmElement") : cls);
    doc_[out].kv2_id_line = Element::kNoLine;
    doc_[out].kv2_name_line = Element::kNoLine;
    const Owner eo{out.index, -1};
    if (class_kind == Tk::top_class) {
        gap(class_tok, Tk::top_class, eo, kSlotTopGap);
        doc_.kv2().toplevel.push_back(out);
        if (prefix) {
            doc_.prefix = out;
        } else if (doc_.root.is_null() && cls != "$prefix_element$") {
            doc_.root = out;
        }
    } else {
        order_.push_back(out.index);
    }
    check_string(class_tok, cls, eo, kRaw | 0);
    Token tok;
    if (!next(tok)) return false;
    if (tok.kind != Token::lbrace) {
        return fail(tok.begin, "dmx.kv2-syntax",
                    "expected '{' after element type '" + printable(cls) + "'");
    }
    gap(tok, Tk::lbrace, eo, kSlotOpenGap);
    ++depth_;
    std::uint16_t line = 0;
    bool named = false;
    for (;;) {
        cur_element_ = out.index;
        cur_attr_ = -1;
        if (!next(tok)) return false;
        if (tok.kind == Token::rbrace) {
            --depth_;
            const Tk closer = class_kind == Tk::top_class    ? Tk::rbrace_top
                              : class_kind == Tk::attr_class ? Tk::rbrace_attr
                                                             : Tk::rbrace_item;
            gap(tok, closer, eo, kSlotCloseGap);
            break;
        }
        if (tok.kind != Token::str)
            return fail(tok.begin, "dmx.kv2-syntax", "expected an attribute name or '}'");
        Element& e = doc_[out];
        // "id" "elementid" and the first "name" "string" are the element's own fields.
        if (tok.raw == "id" && !e.has_id() && !noids_) {
            const std::size_t save = pos_;
            Token t2;
            if (!next(t2)) return false;
            if (t2.kind == Token::str && t2.raw == "elementid") {
                gap(tok, Tk::name, eo, kSlotIdGap);
                gap(t2, Tk::type, eo, kSlotIdGap + 1);
                Token v;
                if (!next(v)) return false;
                if (v.kind != Token::str)
                    return fail(v.begin, "dmx.kv2-syntax", "expected the element id");
                gap(v, Tk::value, eo, kSlotIdGap + 2);
                auto g = Guid::parse(v.raw);
                if (!g)
                    return fail(v.begin, "dmx.bad-guid",
                                "element id '" + printable(v.raw) + "' is not a GUID");
                if (!defined_.emplace(*g, out).second) {
                    return fail(v.begin, "dmx.duplicate-id",
                                "element id " + g->to_string() + " is defined twice");
                }
                doc_[out].set_id(*g);
                if (!lower_case(v.raw)) record(eo, kRaw | 2, v.raw);
                doc_[out].kv2_id_line = line++;
                continue;
            }
            pos_ = save;
        }
        if (tok.raw == "name" && !named) {
            const std::size_t save = pos_;
            Token t2;
            if (!next(t2)) return false;
            if (t2.kind == Token::str && t2.raw == "string") {
                gap(tok, Tk::name, eo, kSlotNameGap);
                gap(t2, Tk::type, eo, kSlotNameGap + 1);
                Token v;
                if (!next(v)) return false;
                if (v.kind != Token::str)
                    return fail(v.begin, "dmx.kv2-syntax", "expected the element name");
                gap(v, Tk::value, eo, kSlotNameGap + 2);
                const std::string_view nm = unescape(v);
                doc_[out].name.assign(nm);
                check_string(v, nm, eo, kRaw | 3);
                doc_[out].kv2_name_line = line++;
                named = true;
                continue;
            }
            pos_ = save;
        }
        if (!parse_attribute(out, tok)) return false;
        ++line;
    }
    --nesting_;
    cur_element_ = parent_element;
    cur_attr_ = parent_attr;
    return true;
}

Result<void> Kv2Reader::run() {
    const Header& h = doc_.header;
    noids_ = h.encoding == "keyvalues2_noids";
    header_end_ = pos_;
    // A layout hint line directly after the header (io.hpp).
    {
        std::size_t p = pos_;
        std::string_view nl;
        if (text_.substr(p, 2) == "\r\n") {
            nl = "\r\n";
        } else if (text_.substr(p, 1) == "\n") {
            nl = "\n";
        }
        if (!nl.empty() && text_.substr(p + nl.size(), kHintPrefix.size()) == kHintPrefix) {
            const std::size_t b = p + nl.size() + kHintPrefix.size();
            std::size_t e = text_.find('\n', b);
            if (e == std::string_view::npos) e = text_.size();
            std::size_t payload_end = e;
            if (payload_end > b && text_[payload_end - 1] == '\r') --payload_end;
            // Only a hint whose line break matches the next one is ours (the writer uses one).
            const std::string_view after = text_.substr(payload_end);
            if (after.substr(0, nl.size()) == nl || after.empty()) {
                hint_ = text_.substr(b, payload_end - b);
                hint_line_ = true;
                pos_ = payload_end;
            }
        }
    }
    Token tok;
    for (bool first = true;; first = false) {
        cur_element_ = cur_attr_ = -1;
        if (!next(tok)) return std::move(*error_);
        if (first) first_token_ = tok.begin;
        if (tok.kind == Token::eof) {
            gap(tok, Tk::end, Owner{}, kSlotEnd);
            break;
        }
        if (tok.kind != Token::str) {
            return error_at(tok.begin, "dmx.kv2-syntax", "expected an element type at top level");
        }
        ElementRef r;
        if (!parse_element(tok, Tk::top_class, r)) return std::move(*error_);
    }
    return finish();
}

// A layout line is applied only if writing it again gives the same text; anything else that
// looks like one stays a comment, so every file still writes back unchanged.
void Kv2Reader::use_hint() {
    Document trial = doc_.clone();
    // The writer never writes an empty hint: an empty one stays a comment.
    bool ok = !hint_.empty() && apply_binary_layout_hint(hint_, trial).ok();
    if (ok) {
        std::vector<std::int32_t> ordinal(trial.size());
        for (std::size_t i = 0; i < trial.size(); ++i) {
            ordinal[i] = trial.elements()[i].external() ? -1 : static_cast<std::int32_t>(i);
        }
        ok = binary_layout_hint(trial, ordinal) == hint_;
    }
    if (ok) {
        doc_ = std::move(trial);
        return;
    }
    const std::string gap(text_.substr(header_end_, first_token_ - header_end_));
    Kv2Trivia* t = &doc_.kv2().document;
    std::uint32_t slot = kSlotEnd;
    if (!doc_.kv2().toplevel.empty()) {
        t = &trivia(Owner{doc_.kv2().toplevel.front().index, -1});
        slot = kSlotTopGap;
    }
    auto it = std::lower_bound(t->entries.begin(), t->entries.end(), slot,
                               [](const auto& e, std::uint32_t s) { return e.first < s; });
    if (it != t->entries.end() && it->first == slot) {
        it->second = gap;
    } else {
        t->entries.insert(it, {slot, gap});
    }
}

Result<void> Kv2Reader::finish() {
    // Resolve references by id; unknown ids are elements of another file (externals).
    std::vector<std::int32_t> target(ref_guids_.size());
    for (std::size_t k = 0; k < ref_guids_.size(); ++k) {
        auto it = defined_.find(ref_guids_[k]);
        target[k] =
            it != defined_.end() ? it->second.index : doc_.add_external(ref_guids_[k]).index;
    }
    auto fix = [&](ElementRef& r) {
        if (r.index <= -3) r.index = target[static_cast<std::size_t>(-3 - r.index)];
    };
    for (Element& e : doc_.elements()) {
        for (Attribute& a : e.attributes) {
            if (auto* r = a.value.get_if<ElementRef>()) fix(*r);
            if (auto* v = a.value.get_if<std::vector<ElementRef>>()) {
                for (ElementRef& r : *v) fix(r);
            }
        }
    }
    // Which reference each inline definition was written at.
    std::vector<std::int32_t> seen(doc_.size(), 0);
    for (std::int32_t x : order_) {
        if (x >= 0) {
            doc_.elements()[static_cast<std::size_t>(x)].kv2_inline_ref =
                seen[static_cast<std::size_t>(x)]++;
        } else {
            ++seen[static_cast<std::size_t>(target[static_cast<std::size_t>(-3 - x)])];
        }
    }
    for (Kv2Trivia& t : doc_.kv2().trivia) {
        std::stable_sort(t.entries.begin(), t.entries.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    // Gaps never seen keep Valve's layout with this file's line break.
    const std::size_t nl = text_.find('\n');
    const Kv2Style valve = Kv2Style::valve_with(
        nl != std::string_view::npos && nl > 0 && text_[nl - 1] == '\r' ? "\r\n" : "\n");
    style_->newline = valve.newline;
    for (std::size_t k = 0; k < style_->gaps.size(); ++k) {
        if (!style_->learned[k]) style_->gaps[k] = valve.gaps[k];
    }
    doc_.kv2().style = style_;
    doc_.kv2().placement_known = true;
    if (hint_line_) use_hint();
    return success();
}

}  // namespace

Result<void> read_kv2(std::string_view text, std::size_t body_offset, Document& doc,
                      const ReadOptions& opt) {
    Kv2Reader r(text, body_offset, doc, opt);
    return r.run();
}

}  // namespace lk::dmx::detail
