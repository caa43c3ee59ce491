// keyvalues2 writer: replays the document's placement and learned style (kv2_style.hpp), or
// Valve's layout for documents that come from binary or for `dump`.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cstring>
#include <memory>

#include "internal.hpp"
#include "kv2_number.hpp"
#include "kv2_style.hpp"
#include "levelkit/core/text.hpp"

namespace lk::dmx::detail {

namespace {

constexpr std::int32_t kInlineEverywhere = -2;
// The reader's default nesting limit (ReadOptions::max_depth): everything it reads is written
// back as it was, and everything written reads back; it also bounds the writer's recursion.
constexpr int kMaxNesting = static_cast<int>(kDefaultMaxDepth);

const std::string* find_slot(const Kv2Trivia* t, std::uint32_t slot) {
    if (!t) return nullptr;
    auto it = std::lower_bound(t->entries.begin(), t->entries.end(), slot,
                               [](const auto& e, std::uint32_t s) { return e.first < s; });
    return it != t->entries.end() && it->first == slot ? &it->second : nullptr;
}

// The text being written: a cursor into a buffer grown ahead of it. The writer appends many
// pieces of a few bytes; std::string::append checks and updates the length for each, and
// growing a string fills the new part with zeros first.
class Out {
public:
    // The cursor, with at least n bytes free after it; advance() moves it past what was written.
    char* room(std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n) grow(n);
        return p_;
    }
    void advance(char* p) { p_ = p; }
    Out& operator+=(char c) {
        *room(1) = c;
        ++p_;
        return *this;
    }
    Out& operator+=(std::string_view v) {
        char* p = room(v.size());
        std::memcpy(p, v.data(), v.size());
        p_ = p + v.size();
        return *this;
    }
    // Room for about n bytes in all.
    void reserve(std::size_t n) {
        if (n > size()) room(n - size());
    }
    std::size_t size() const { return static_cast<std::size_t>(p_ - buf_.get()); }
    std::string_view text() const { return std::string_view(buf_.get(), size()); }

private:
    [[gnu::noinline]] void grow(std::size_t n) {
        const std::size_t used = size();
        const std::size_t cap = static_cast<std::size_t>(end_ - buf_.get());
        const std::size_t want = std::max(used + n, std::max<std::size_t>(2 * cap, 4096));
        auto next = std::make_unique_for_overwrite<char[]>(want);
        if (used) std::memcpy(next.get(), buf_.get(), used);
        buf_ = std::move(next);
        p_ = buf_.get() + used;
        end_ = buf_.get() + want;
    }

    std::unique_ptr<char[]> buf_;
    char* p_ = nullptr;
    char* end_ = nullptr;
};

class Kv2Writer {
public:
    Kv2Writer(const Document& doc, const Kv2WriteOptions& opt) : doc_(doc), opt_(opt) {}

    Result<void> run();
    // The text written, in pieces (the layout line goes after the header).
    template <class F>
    void each_piece(F&& f) const {
        const std::string_view t = out_.text();
        f(t.substr(0, hint_at_));
        f(std::string_view(hint_line_));
        f(t.substr(hint_at_));
    }

private:
    const Kv2Trivia* trivia(std::uint32_t index) const {
        return use_trivia_ && index != kNoTrivia && index < doc_.kv2().trivia.size()
                   ? &doc_.kv2().trivia[index]
                   : nullptr;
    }
    void gap(Tk next, const Kv2Trivia* t, std::uint32_t slot) {
        const std::size_t key = gap_key(prev_, next);
        prev_ = next;
        if (const std::string* s = find_slot(t, slot)) {
            out_ += *s;
        } else {
            put_gap(key);
        }
    }
    // The style's gap for `key` at the current depth, expanded once per key and depth.
    void put_gap(std::size_t key) {
        GapText& g = gaps_[key];
        if (g.depth != depth_) expand(g, key);
        if (g.len <= sizeof g.text) {
            // A fixed-size copy of the padded text, then the cursor past its length.
            char* p = out_.room(sizeof g.text);
            std::memcpy(p, g.text, sizeof g.text);
            out_.advance(p + g.len);
        } else {
            out_ += g.long_text;
        }
    }
    void quoted(const Kv2Trivia* t, std::uint32_t slot, std::string_view text) {
        out_ += '"';
        if (const std::string* s = find_slot(t, slot)) {
            out_ += *s;
        } else {
            out_.advance(write_escaped(text, style_->strings, out_.room(2 * text.size())));
        }
        out_ += '"';
    }
    template <class F>
    void quoted_value(const Kv2Trivia* t, std::uint32_t slot, F&& spell) {
        out_ += '"';
        if (const std::string* s = find_slot(t, slot)) {
            out_ += *s;
        } else {
            spell();
        }
        out_ += '"';
    }

    struct GapText {
        int depth = INT_MIN;  // not expanded yet
        std::size_t len = 0;
        char text[32] = {};  // the expansion when it fits, zero padded
        std::string long_text;
    };
    void expand(GapText& g, std::size_t key);

    void plan();
    bool writes_id(ElementRef e) const;
    void append_id(ElementRef e);
    Result<void> write_element(ElementRef e, Tk kind);
    Result<void> write_attribute(const Attribute& a);
    // Counts a reference to `r`; true if this reference is where `r` is written inline.
    bool goes_inline(ElementRef r);
    // Spellings of values, written at the cursor.
    template <class T>
    void put(const T& x);
    void put_float(float v) { out_.advance(float_at(v, out_.room(kMaxFloatChars))); }
    char* float_at(float v, char* p) const {
        return floats_ == kFloatValve ? write_valve_float(v, p) : write_float(v, floats_, p);
    }
    void put_int(std::int64_t v) {
        char* p = out_.room(24);
        out_.advance(std::to_chars(p, p + 24, v).ptr);
    }
    // put_items of ints and float tuples without recorded spellings, where every gap is the
    // style's (false if one is too long for the fast copy): one bounds check per item.
    template <class T>
    bool put_plain_items(const std::vector<T>& items);
    // The items of an array other than an element array.
    template <class T>
    void put_items(const std::vector<T>& items, const Kv2Trivia* t);
    // An estimate of the text's size, to grow the output once.
    std::size_t estimate() const;

    const Document& doc_;
    Out out_;
    std::size_t hint_at_ = 0;
    std::string hint_line_;
    const Kv2WriteOptions& opt_;
    const Kv2Style* style_ = nullptr;
    std::uint8_t floats_ = kFloatValve;  // style_->floats
    std::array<GapText, kTkCount * kTkCount> gaps_;
    std::string scratch_;
    bool use_trivia_ = false;
    bool noids_ = false;
    bool all_ids_ = false;  // fresh layout: every element gets an id line (Valve)
    int version_ = 1;
    Tk prev_ = Tk::header;
    int depth_ = 0;
    int nesting_ = 0;

    std::vector<ElementRef> toplevel_;
    std::vector<std::int32_t> inline_ref_;  // -1 = top-level
    std::vector<std::int32_t> seen_;
    std::vector<std::int32_t> refcount_;
    std::vector<char> written_, on_stack_;
    std::vector<std::int32_t> text_ordinal_;
    std::int32_t next_ordinal_ = 0;
};

void Kv2Writer::plan() {
    const std::size_t n = doc_.size();
    refcount_.assign(n, 0);
    for (const Element& e : doc_.elements()) {
        doc_.for_each_ref(e, [&](const Attribute&, ElementRef r) {
            if (doc_.valid(r)) ++refcount_[static_cast<std::size_t>(r.index)];
        });
    }
    inline_ref_.assign(n, -1);
    if (use_trivia_ && doc_.kv2().placement_known && !noids_) {
        for (ElementRef r : doc_.kv2().toplevel) {
            if (doc_.valid(r)) toplevel_.push_back(r);
        }
        for (std::size_t i = 0; i < n; ++i) inline_ref_[i] = doc_.elements()[i].kv2_inline_ref;
        for (ElementRef r : toplevel_) inline_ref_[static_cast<std::size_t>(r.index)] = -1;
        return;
    }
    const bool flat = doc_.header.encoding == "keyvalues2_flat";
    std::vector<char> top(n, 0);
    auto add_top = [&](ElementRef r) {
        if (!doc_.valid(r) || top[static_cast<std::size_t>(r.index)] || doc_[r].external()) {
            return;
        }
        top[static_cast<std::size_t>(r.index)] = 1;
        toplevel_.push_back(r);
    };
    add_top(doc_.prefix);
    add_top(doc_.root);
    for (std::size_t i = 0; i < n; ++i) {
        const ElementRef r{static_cast<std::int32_t>(i)};
        const std::int32_t c = refcount_[i];
        if (flat || (noids_ ? c == 0 : c != 1)) add_top(r);
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!top[i]) inline_ref_[i] = noids_ ? kInlineEverywhere : 0;
    }
}

std::size_t Kv2Writer::estimate() const {
    // Valve's layout: a line per attribute and per array item, at most a few tabs deep, floats
    // of up to ~14 characters. Too little only means growing once more.
    std::size_t n = 256;
    for (const Element& e : doc_.elements()) {
        n += 96 + e.name.size();
        for (const Attribute& a : e.attributes) {
            n += 48 + a.name.str().size();
            a.value.visit([&](const auto& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Binary>) {
                    n += x.size() * 2;
                } else if constexpr (requires { typename T::value_type; }) {
                    using V = typename T::value_type;
                    constexpr std::size_t floats =
                        std::is_class_v<V> ? sizeof(V) / sizeof(float) : 1;
                    n += x.size() * (16 + 14 * floats);
                }
            });
        }
    }
    return n;
}

bool Kv2Writer::writes_id(ElementRef e) const {
    if (noids_) return false;
    const Element& el = doc_[e];
    if (el.has_id()) return true;
    // An element without id can stay without one only where nothing refers to it by id.
    const auto i = static_cast<std::size_t>(e.index);
    if (refcount_[i] > (inline_ref_[i] < 0 ? 0 : 1)) return true;
    // A fresh layout writes an id line for every element as Valve's tools do, except where the
    // source had none: the prefix element (Valve writes it without one) and elements whose id
    // levelkit invented for a binary encoding.
    return all_ids_ && !el.id_invented() && e != doc_.prefix;
}

void Kv2Writer::append_id(ElementRef e) {
    const Element& el = doc_[e];
    if (!el.id_text.empty()) {
        out_ += el.id_text;
    } else {
        scratch_.clear();
        (el.has_id() || el.id_invented() ? el.id : generated_id(doc_, e)).append_to(scratch_);
        out_ += scratch_;
    }
}

void Kv2Writer::expand(GapText& g, std::size_t key) {
    g.depth = depth_;
    g.long_text.clear();
    expand_gap(*style_, key, depth_, g.long_text);
    g.len = g.long_text.size();
    std::memset(g.text, 0, sizeof g.text);
    if (g.len <= sizeof g.text) std::memcpy(g.text, g.long_text.data(), g.len);
}

bool Kv2Writer::goes_inline(ElementRef r) {
    if (!doc_.valid(r) || doc_[r].external()) return false;
    const auto i = static_cast<std::size_t>(r.index);
    const std::int32_t c = seen_[i]++;
    if (inline_ref_[i] == kInlineEverywhere) return true;
    // Past the nesting limit an element is written at top level instead (recursion bound).
    return !written_[i] && inline_ref_[i] >= 0 && inline_ref_[i] == c && nesting_ < kMaxNesting;
}

template <class T>
void Kv2Writer::put(const T& x) {
    if constexpr (std::is_same_v<T, ElementRef>) {
        if (doc_.valid(x)) append_id(x);
    } else if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint8_t>) {
        put_int(x);
    } else if constexpr (std::is_same_v<T, float>) {
        put_float(x);
    } else if constexpr (std::is_same_v<T, bool>) {
        out_ += x ? '1' : '0';
    } else if constexpr (std::is_same_v<T, std::string>) {
        out_.advance(write_escaped(x, style_->strings, out_.room(2 * x.size())));
    } else if constexpr (std::is_same_v<T, Binary>) {
        scratch_.clear();
        append_binary(x, style_->binaries, depth_, scratch_);
        out_ += scratch_;
    } else if constexpr (std::is_same_v<T, Time>) {
        scratch_.clear();
        append_time(x, scratch_);
        out_ += scratch_;
    } else if constexpr (std::is_same_v<T, Color>) {
        put_int(x.r);
        out_ += ' ';
        put_int(x.g);
        out_ += ' ';
        put_int(x.b);
        out_ += ' ';
        put_int(x.a);
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
        scratch_.clear();
        append_uint64(x, scratch_);
        out_ += scratch_;
    } else if constexpr (std::is_same_v<T, Guid>) {
        scratch_.clear();
        x.append_to(scratch_);
        out_ += scratch_;
    } else {
        // Vectors, angles, quaternions and matrices: their floats separated by spaces.
        static_assert(sizeof(T) % sizeof(float) == 0);
        constexpr std::size_t n = sizeof(T) / sizeof(float);
        const float* f = reinterpret_cast<const float*>(&x);
        char* p = out_.room(n * (kMaxFloatChars + 1));
        for (std::size_t k = 0; k < n; ++k) {
            if (k) *p++ = ' ';
            p = float_at(f[k], p);
        }
        out_.advance(p);
    }
}

template <class T>
bool Kv2Writer::put_plain_items(const std::vector<T>& items) {
    const std::size_t first = gap_key(prev_, Tk::item_s);
    const std::size_t next = gap_key(Tk::comma_s, Tk::item_s);
    const std::size_t comma = gap_key(Tk::item_s, Tk::comma_s);
    for (std::size_t key : {first, next, comma}) {
        if (gaps_[key].depth != depth_) expand(gaps_[key], key);
    }
    const GapText* gi = &gaps_[first];
    const GapText& gn = gaps_[next];
    const GapText& gc = gaps_[comma];
    constexpr std::size_t kText = sizeof(GapText::text);
    if (gi->len > kText || gn.len > kText || gc.len > kText) return false;
    constexpr std::size_t kFields = std::is_same_v<T, std::int32_t> ? 1 : sizeof(T) / sizeof(float);
    constexpr std::size_t kRoom = 2 * kText + kFields * (kMaxFloatChars + 1) + 3;
    const std::size_t n = items.size();
    for (std::size_t i = 0; i < n; ++i) {
        char* p = out_.room(kRoom);
        std::memcpy(p, gi->text, kText);
        p += gi->len;
        *p++ = '"';
        if constexpr (std::is_same_v<T, std::int32_t>) {
            p = std::to_chars(p, p + 24, items[i]).ptr;
        } else {
            const float* f = reinterpret_cast<const float*>(&items[i]);
            for (std::size_t k = 0; k < kFields; ++k) {
                if (k) *p++ = ' ';
                p = float_at(f[k], p);
            }
        }
        *p++ = '"';
        if (i + 1 < n) {
            std::memcpy(p, gc.text, kText);
            p += gc.len;
            *p++ = ',';
        }
        out_.advance(p);
        gi = &gn;
    }
    prev_ = Tk::item_s;
    return true;
}

template <class T>
void Kv2Writer::put_items(const std::vector<T>& items, const Kv2Trivia* t) {
    constexpr std::uint32_t per = item_slots(false);
    const std::size_t n = items.size();
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, float> ||
                  std::is_same_v<T, Vector2> || std::is_same_v<T, Vector3> ||
                  std::is_same_v<T, Vector4> || std::is_same_v<T, QAngle> ||
                  std::is_same_v<T, Quaternion>) {
        if (!t && n > 0 && put_plain_items(items)) {
            gap(Tk::rbracket_s, t, kSlotItems + per * static_cast<std::uint32_t>(n));
            return;
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t base = kSlotItems + per * static_cast<std::uint32_t>(i);
        const auto item = static_cast<std::uint32_t>(i);
        gap(Tk::item_s, t, base);
        quoted_value(t, kRawValue | item, [&] {
            if constexpr (std::is_same_v<T, bool>) {
                put(static_cast<bool>(items[i]));
            } else {
                put(items[i]);
            }
        });
        if ((i + 1 < n) != (find_slot(t, kComma | item) != nullptr)) {
            gap(Tk::comma_s, t, base + per - 1);
            out_ += ',';
        }
    }
    gap(Tk::rbracket_s, t, kSlotItems + per * static_cast<std::uint32_t>(n));
}

Result<void> Kv2Writer::write_attribute(const Attribute& a) {
    const Kv2Trivia* t = trivia(a.kv2_trivia);
    gap(Tk::name, t, 0);
    quoted(t, kRaw | 0, a.name.str());
    const Type type = a.value.type();
    if (auto* r = a.value.get_if<ElementRef>(); r && goes_inline(*r)) {
        gap(Tk::attr_class, t, 1);
        return write_element(*r, Tk::attr_class);
    }
    gap(Tk::type, t, 1);
    quoted(t, kRaw | 1, type_name(type));
    if (!is_array(type)) {
        gap(type == Type::binary ? Tk::value_bin : Tk::value, t, 2);
        quoted_value(t, kRawValue, [&] {
            a.value.visit([&](const auto& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (!requires { typename T::value_type; } ||
                              std::is_same_v<T, std::string> || std::is_same_v<T, Binary>) {
                    put(x);
                }
            });
        });
        return success();
    }
    const bool elems = type == Type::element_array;
    gap(elems ? Tk::lbracket_e : Tk::lbracket_s, t, 2);
    out_ += '[';
    ++depth_;
    if (!elems) {
        a.value.visit([&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (requires { typename T::value_type; } && !std::is_same_v<T, std::string> &&
                          !std::is_same_v<T, Binary>) {
                put_items(x, t);
            }
        });
        out_ += ']';
        --depth_;
        return success();
    }
    const auto& items = a.value.get<std::vector<ElementRef>>();
    const std::size_t n = items.size();
    const std::uint32_t per = item_slots(elems);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t base = kSlotItems + per * static_cast<std::uint32_t>(i);
        const std::uint32_t item = static_cast<std::uint32_t>(i);
        const ElementRef r = items[i];
        if (goes_inline(r)) {
            gap(Tk::item_class, t, base);
            LK_TRY(write_element(r, Tk::item_class));
        } else {
            gap(Tk::item_kw, t, base);
            out_ += "\"element\"";
            gap(Tk::item_ref, t, base + 1);
            quoted_value(t, kRawValue | item, [&] {
                if (doc_.valid(r)) append_id(r);
            });
        }
        const bool comma = (i + 1 < n) != (find_slot(t, kComma | item) != nullptr);
        if (comma) {
            gap(Tk::comma_e, t, base + per - 1);
            out_ += ',';
        }
    }
    gap(Tk::rbracket_e, t, kSlotItems + per * static_cast<std::uint32_t>(n));
    out_ += ']';
    --depth_;
    return success();
}

Result<void> Kv2Writer::write_element(ElementRef e, Tk kind) {
    const auto ei = static_cast<std::size_t>(e.index);
    if (on_stack_[ei] && noids_) {
        return Diagnostic::error("dmx.cyclic",
                                 "keyvalues2_noids cannot hold a reference cycle (element " +
                                     std::to_string(e.index) + " contains itself)")
            .with_path(fmt::format("element[{}] {}", e.index, doc_[e].type.str()));
    }
    if (nesting_ >= kMaxNesting) {
        return Diagnostic::error(
                   "dmx.too-deep",
                   fmt::format("keyvalues2_noids cannot nest elements deeper than {}", kMaxNesting))
            .with_path(fmt::format("element[{}] {}", e.index, doc_[e].type.str()));
    }
    ++nesting_;
    written_[ei] = 1;
    on_stack_[ei] = 1;
    text_ordinal_[ei] = next_ordinal_++;
    const Element& el = doc_[e];
    const Kv2Trivia* t = trivia(el.kv2_trivia);
    if (kind == Tk::top_class) gap(Tk::top_class, t, kSlotTopGap);
    quoted(t, kRaw | 0,
           e == doc_.prefix && kind == Tk::top_class ? std::string_view("$prefix_element$")
                                                     : el.type.str());
    gap(Tk::lbrace, t, kSlotOpenGap);
    out_ += '{';
    ++depth_;

    // Line order: attributes, with the id and name lines at their recorded slots.
    const bool id_line = writes_id(e);
    bool name_line;
    if (use_trivia_ && el.kv2_name_line != Element::kAutoLine) {
        name_line = el.kv2_name_line != Element::kNoLine || !el.name.empty();
    } else {
        // Source 2 writers drop empty names (notes §4.3).
        name_line = !el.name.empty() || version_ < 4;
    }
    std::size_t id_at = 0, name_at = id_line ? 1 : 0;
    if (use_trivia_ && el.kv2_id_line < Element::kNoLine) id_at = el.kv2_id_line;
    if (use_trivia_ && el.kv2_name_line < Element::kNoLine) name_at = el.kv2_name_line;
    enum Line : std::uint8_t { attribute, id, name };
    std::vector<Line> lines(el.attributes.size(), attribute);
    std::pair<std::size_t, Line> extra[2];
    int extras = 0;
    if (id_line) extra[extras++] = {id_at, id};
    if (name_line) extra[extras++] = {name_at, name};
    if (extras == 2 && extra[1].first < extra[0].first) std::swap(extra[0], extra[1]);
    for (int x = 0; x < extras; ++x) {
        const std::size_t at = std::min(extra[x].first, lines.size());
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), extra[x].second);
    }
    std::size_t k = 0;
    for (Line line : lines) {
        if (line == id) {
            gap(Tk::name, t, kSlotIdGap);
            out_ += "\"id\"";
            gap(Tk::type, t, kSlotIdGap + 1);
            out_ += "\"elementid\"";
            gap(Tk::value, t, kSlotIdGap + 2);
            quoted_value(t, kRaw | 2, [&] { append_id(e); });
        } else if (line == name) {
            gap(Tk::name, t, kSlotNameGap);
            out_ += "\"name\"";
            gap(Tk::type, t, kSlotNameGap + 1);
            out_ += "\"string\"";
            gap(Tk::value, t, kSlotNameGap + 2);
            quoted(t, kRaw | 3, el.name);
        } else {
            LK_TRY(write_attribute(el.attributes[k++]));
        }
    }

    --depth_;
    const Tk closer = kind == Tk::top_class    ? Tk::rbrace_top
                      : kind == Tk::attr_class ? Tk::rbrace_attr
                                               : Tk::rbrace_item;
    gap(closer, t, kSlotCloseGap);
    out_ += '}';
    on_stack_[ei] = 0;
    --nesting_;
    return success();
}

Result<void> Kv2Writer::run() {
    const bool keep = !opt_.dump && doc_.kv2().style != nullptr;
    use_trivia_ = keep;
    style_ = keep ? doc_.kv2().style.get() : &Kv2Style::valve();
    floats_ = style_->floats;
    noids_ = !opt_.dump && doc_.header.encoding == "keyvalues2_noids";
    version_ = doc_.header.encoding_version;
    if (opt_.dump) {
        bool v4 = doc_.valid(doc_.prefix);
        for (const Element& e : doc_.elements()) {
            for (const Attribute& a : e.attributes) {
                v4 = v4 || !kv2_can_hold(1, a.value.type());
            }
        }
        version_ = v4 ? 4 : 1;
    }
    plan();
    all_ids_ = !noids_ && !(use_trivia_ && doc_.kv2().placement_known);

    const std::size_t n = doc_.size();
    seen_.assign(n, 0);
    written_.assign(n, 0);
    on_stack_.assign(n, 0);
    text_ordinal_.assign(n, -1);
    out_.reserve(estimate());

    if (opt_.dump) {
        Header h = doc_.header;
        h.encoding = "keyvalues2";
        h.encoding_version = version_;
        h.legacy = false;
        h.text.clear();
        out_ += header_line(h);
    } else if (doc_.header.is_kv2()) {
        std::string scratch;
        out_ += header_text(doc_.header, scratch);
    } else {
        out_ += header_line(doc_.header);
    }
    hint_at_ = out_.size();

    for (ElementRef r : toplevel_) {
        if (written_[static_cast<std::size_t>(r.index)]) continue;
        LK_TRY(write_element(r, Tk::top_class));
    }
    // Elements the placement did not reach (new, or unreferenced) become top-level blocks.
    for (std::size_t i = 0; i < n; ++i) {
        const ElementRef r{static_cast<std::int32_t>(i)};
        if (!written_[i] && !doc_[r].external()) LK_TRY(write_element(r, Tk::top_class));
    }
    gap(Tk::end, use_trivia_ ? &doc_.kv2().document : nullptr, kSlotEnd);

    if (opt_.layout_hints && !opt_.dump && !noids_) {
        const std::string hint = binary_layout_hint(doc_, text_ordinal_);
        if (!hint.empty()) {
            hint_line_ = style_->newline;
            hint_line_ += kHintPrefix;
            hint_line_ += hint;
        }
    }
    return success();
}

}  // namespace

Result<void> write_kv2(const Document& doc, std::string& out, const Kv2WriteOptions& opt) {
    Kv2Writer w(doc, opt);
    LK_TRY(w.run());
    w.each_piece([&](std::string_view piece) { out += piece; });
    return success();
}

Result<void> write_kv2(const Document& doc, Bytes& out, const Kv2WriteOptions& opt) {
    Kv2Writer w(doc, opt);
    LK_TRY(w.run());
    std::size_t size = out.size();
    w.each_piece([&](std::string_view piece) { size += piece.size(); });
    out.reserve(size);
    w.each_piece([&](std::string_view piece) {
        const auto* b = reinterpret_cast<const std::byte*>(piece.data());
        out.insert(out.end(), b, b + piece.size());
    });
    return success();
}

}  // namespace lk::dmx::detail
