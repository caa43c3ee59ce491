// The DMX datamodel: a Document owns elements (class, name, GUID, ordered typed attributes) that
// reference each other by index, so shared and cyclic graphs need no pointers.
//
// Besides the data, a Document keeps what byte-exact writing needs as explicit state, never as a
// copy of the input: the binary string-table order, per-string "-1" (null) markers, the binary 6-7
// link field, the prefix element and whether Hammer duplicated it into the element index, and for
// keyvalues2 the element placement (top-level / inline), layout style and the few whitespace or
// number spellings that differ from that style (see kv2 notes in io.hpp).
//
// Element 0 is not special: `root` names the root. External elements (binary "-2 + GUID"
// references to elements stored elsewhere) are elements with `external() == true`; they have a
// GUID and nothing else and are never written as element definitions.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "levelkit/dmx/types.hpp"
#include "levelkit/dmx/value.hpp"

namespace lk::dmx {

// --- interned names ------------------------------------------------------------------------

namespace detail {
struct SymbolEntry {
    std::string text;
    std::uint32_t id = 0;
};
}  // namespace detail

// An interned string (attribute and class names). Cheap to copy and compare; valid as long as
// the Document whose SymbolTable made it.
class Symbol {
public:
    Symbol() = default;
    std::string_view str() const { return e_ ? std::string_view(e_->text) : std::string_view(); }
    std::uint32_t id() const { return e_ ? e_->id : UINT32_MAX; }
    bool valid() const { return e_ != nullptr; }
    bool operator==(const Symbol& o) const { return e_ == o.e_; }
    bool operator==(std::string_view s) const { return str() == s; }

private:
    friend class SymbolTable;
    explicit Symbol(const detail::SymbolEntry* e) : e_(e) {}
    const detail::SymbolEntry* e_ = nullptr;
};

class SymbolTable {
public:
    SymbolTable() = default;
    SymbolTable(const SymbolTable&) = delete;
    SymbolTable& operator=(const SymbolTable&) = delete;

    Symbol intern(std::string_view s);
    std::optional<Symbol> find(std::string_view s) const;
    std::size_t size() const { return entries_.size(); }
    Symbol at(std::uint32_t id) const { return Symbol(&entries_[id]); }
    // A number no other table of this process has. Symbol ids are never reused within a table
    // (it only grows), so a cache keyed by symbol id stays valid while the uid is the same.
    std::uint64_t uid() const { return uid_; }

private:
    static std::uint64_t next_uid();
    const std::uint64_t uid_ = next_uid();
    std::deque<detail::SymbolEntry> entries_;
    std::unordered_map<std::string_view, const detail::SymbolEntry*> index_;
    // Builders intern the same literals over and over ("semanticName", "data"): a small cache
    // keyed by the text's address answers those without hashing. A hit is checked against the
    // entry's text, so a buffer reused for other text never gives a stale symbol.
    struct CacheSlot {
        const char* data = nullptr;
        const detail::SymbolEntry* entry = nullptr;
    };
    static constexpr std::size_t kCacheSlots = 1024;
    std::array<CacheSlot, kCacheSlots> cache_{};
};

// --- attributes and elements ---------------------------------------------------------------

inline constexpr std::uint32_t kNoTrivia = UINT32_MAX;

struct Attribute {
    Symbol name;
    Value value;
    // Binary 4+: this empty scalar string was stored as string index -1 (binary 7 does this).
    bool null_string = false;
    // keyvalues2 only: index into Document::kv2().trivia of spellings that differ from the style.
    std::uint32_t kv2_trivia = kNoTrivia;
};

class Element {
public:
    Symbol type;       // class name ("DmeModel", "CMapRootElement")
    std::string name;  // element name; binary stores it in the element index, kv2 as "name"
    Guid id;
    std::vector<Attribute> attributes;

    bool has_id() const { return has_id_; }
    void set_id(const Guid& g) {
        id = g;
        has_id_ = true;
        id_invented_ = false;
    }
    void clear_id() {
        id = {};
        has_id_ = false;
        id_invented_ = false;
    }
    // An id that levelkit derived because an encoding needed one where the source had none
    // (binary stores an id for every element; keyvalues2 and keyvalues2_noids need not). Such
    // ids carry a mark that readers recognise (dmx::is_generated_id): the element keeps the
    // bytes, so it writes back identically, but has_id() is false, so it compares, converts and
    // writes to keyvalues2 as the element without an id that it was.
    bool id_invented() const { return id_invented_; }
    void set_invented_id(const Guid& g) {
        id = g;
        has_id_ = false;
        id_invented_ = true;
    }
    bool external() const { return external_; }

    // --- lookup and typed access (first attribute of that name wins) ---
    const Attribute* find(std::string_view attr) const;
    Attribute* find(std::string_view attr);
    bool has(std::string_view attr) const { return find(attr) != nullptr; }
    // The value if the attribute exists with exactly type T.
    template <class T>
    const T* get(std::string_view attr) const {
        const Attribute* a = find(attr);
        return a ? a->value.get_if<T>() : nullptr;
    }
    // The value converted to T as Valve's loaders do (Value::as), nullopt if absent/unconvertible.
    template <class T>
    std::optional<T> get_as(std::string_view attr) const {
        const Attribute* a = find(attr);
        return a ? a->value.as<T>() : std::nullopt;
    }
    template <class T>
    T get_or(std::string_view attr, T fallback) const {
        return get_as<T>(attr).value_or(std::move(fallback));
    }
    // Sets (replacing value and type) or appends the attribute.
    Attribute& set(std::string_view attr, Value v);
    // Appends an attribute the element does not have yet, without looking for it (builders of
    // new elements). A name the element already has would be shadowed by the first one, so
    // anything else uses set().
    Attribute& add(std::string_view attr, Value v);
    // Removes the attribute, and any later one of the same name a file repeated (which lookups
    // did not see); false if there was none.
    bool remove(std::string_view attr);

    // --- layout state (see the header comment) ---
    bool null_name = false;            // binary 4+: name stored as string index -1
    std::int32_t link = -1;            // binary 6-7 per-element "link type" field
    std::int32_t kv2_inline_ref = -1;  // kv2: written inline at its n-th reference; -1 = top-level
    std::uint16_t kv2_id_line = kAutoLine;    // kv2: line slot of "id" among attributes
    std::uint16_t kv2_name_line = kAutoLine;  // kv2: line slot of "name" among attributes
    std::uint32_t kv2_trivia = kNoTrivia;
    std::string id_text;  // non-canonical spelling of the id (stub GUID text, upper-case ids)

    static constexpr std::uint16_t kAutoLine = 0xFFFF;  // writer decides
    static constexpr std::uint16_t kNoLine = 0xFFFE;    // not written

private:
    friend class Document;
    SymbolTable* symbols_ = nullptr;
    bool has_id_ = false;
    bool id_invented_ = false;
    bool external_ = false;
};

// --- document ------------------------------------------------------------------------------

struct Header {
    std::string encoding = "binary";  // binary, keyvalues2, keyvalues2_flat, keyvalues2_noids ...
    int encoding_version = 9;
    std::string format = "dmx";  // schema name: dmx, model, pcf, vmap, vtex, sfm_session ...
    int format_version = 1;
    // `<!-- DMXVersion binary_v2 -->` style header (no format name; binary body as version 1).
    bool legacy = false;
    // srctools' "unicode_" encoding prefix (strings are UTF-8).
    bool unicode = false;
    // The exact header line when it is not what the writer would produce (spacing, long names).
    std::string text;
    // Binary: the bytes between "-->" and the NUL ("\n"; "\r\n" or nothing in odd files).
    std::string binary_eol = "\n";

    bool is_binary() const;
    bool is_kv2() const;
    std::string to_string() const;  // "binary 9 / vmap 29"
};

// How a binary writer lays out what the datamodel does not fix (notes/dmx.md §3.3, §3.8).
struct BinaryLayout {
    enum class ElementOrder : std::uint8_t {
        stored,         // Document element order (what a binary reader produced)
        valve,          // depth-first from the root, attributes last to first (Valve)
        depth_first,    // depth-first, attributes first to last (Blender Source Tools)
        breadth_first,  // breadth-first (srctools binary 1)
        listed,         // `order`
    };
    enum class StringOrder : std::uint8_t {
        stored,  // `string_table` (as read), strings it lacks appended
        valve,   // Valve's GatherSymbols order + `string_inserts`
        sorted,  // byte-wise sorted (srctools, Blender Source Tools)
    };
    // The binary version this layout was read from or describes; 0 = none.
    int version = 0;
    ElementOrder element_order = ElementOrder::valve;
    StringOrder string_order = StringOrder::valve;
    std::vector<ElementRef> order;  // listed order
    std::vector<std::string> string_table;
    // valve order: strings placed at these table positions (names of unsaved attributes Valve's
    // writer gathers, e.g. "$prefix_attribute$", "disableOverride").
    std::vector<std::pair<std::uint32_t, std::string>> string_inserts;
    // Computed orders: elements not reachable from the root, at these positions in the index.
    std::vector<std::pair<std::uint32_t, ElementRef>> unreachable;
    // binary 7+: number of prefix containers; -1 = 1 if there is a prefix element, else 0.
    std::int32_t prefix_containers = -1;
};

struct Kv2Style;  // learned layout (src/dmx/kv2_style.hpp)

struct Kv2Trivia {
    // slot -> exact text; slots are defined by the kv2 writer (gaps, raw value spellings).
    std::vector<std::pair<std::uint32_t, std::string>> entries;
    const std::string* find(std::uint32_t slot) const;
};

struct Kv2Layout {
    std::shared_ptr<const Kv2Style> style;  // null = Valve's layout
    std::vector<ElementRef> toplevel;       // top-level blocks in file order (incl. prefix)
    std::vector<Kv2Trivia> trivia;
    Kv2Trivia document;            // end of file
    bool placement_known = false;  // toplevel/kv2_inline_ref describe the file
};

// gzip container around a DMX (Blender Source Tools ships .dmx.gz).
struct Container {
    bool gzip = false;
    std::vector<std::byte> gzip_header;  // bytes before the deflate stream (name, mtime, flags)
    // The original compressed member and the size/CRC of what it holds: reused verbatim when the
    // writer produces the same inner bytes (the deflate encoder that made it is unknown).
    std::vector<std::byte> original;
    std::uint32_t inner_crc = 0;
    std::uint64_t inner_size = 0;
};

class Document {
public:
    Document();
    Document(Document&&) noexcept;
    Document& operator=(Document&&) noexcept;
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;
    ~Document();

    // A deep copy (Documents are move-only because elements point into their symbol table).
    Document clone() const;

    Header header;
    ElementRef root;    // the root element (binary: element 0; kv2: first non-prefix block)
    ElementRef prefix;  // element holding the prefix attributes (binary 7+ / kv2 4), or null
    BinaryLayout binary;
    Container container;
    Kv2Layout& kv2() { return kv2_; }
    const Kv2Layout& kv2() const { return kv2_; }

    SymbolTable& symbols() { return *symbols_; }
    const SymbolTable& symbols() const { return *symbols_; }
    Symbol intern(std::string_view s) { return symbols_->intern(s); }

    std::span<Element> elements() { return elements_; }
    std::span<const Element> elements() const { return elements_; }
    std::size_t size() const { return elements_.size(); }
    Element& operator[](ElementRef r) { return elements_[static_cast<std::size_t>(r.index)]; }
    const Element& operator[](ElementRef r) const {
        return elements_[static_cast<std::size_t>(r.index)];
    }
    Element* get(ElementRef r) {
        return valid(r) ? &elements_[static_cast<std::size_t>(r.index)] : nullptr;
    }
    const Element* get(ElementRef r) const {
        return valid(r) ? &elements_[static_cast<std::size_t>(r.index)] : nullptr;
    }
    bool valid(ElementRef r) const {
        return r.index >= 0 && static_cast<std::size_t>(r.index) < elements_.size();
    }
    void reserve(std::size_t n) { elements_.reserve(n); }
    // Removes every element (root and prefix become null) and the layout state; the header and
    // the symbol table stay (a builder that makes many small documents in turn reuses one).
    void clear_elements();

    ElementRef add_element(std::string_view type, std::string_view name = {},
                           std::optional<Guid> id = std::nullopt);
    // A reference target that lives in another file (binary "-2 + GUID").
    ElementRef add_external(const Guid& id);
    // The element with this id (linear on first use, then indexed until the next add).
    ElementRef find_by_id(const Guid& id) const;

    // The attributes of the prefix element (empty span if there is none).
    std::span<const Attribute> prefix_attributes() const;

    // Calls f(attribute, ref) for every non-null element reference held by `e` (scalars and array
    // items, in attribute order).
    template <class F>
    void for_each_ref(const Element& e, F&& f) const {
        for (const Attribute& a : e.attributes) {
            if (auto* r = a.value.get_if<ElementRef>()) {
                if (!r->is_null()) f(a, *r);
            } else if (auto* v = a.value.get_if<std::vector<ElementRef>>()) {
                for (ElementRef x : *v) {
                    if (!x.is_null()) f(a, x);
                }
            }
        }
    }
    // Depth-first pre-order from `start`, each element once (cycles are fine). `visit` returns
    // false to skip an element's children.
    void walk(ElementRef start, const std::function<bool(ElementRef)>& visit) const;
    // Elements reachable from `start` (incl. it), in walk order.
    std::vector<ElementRef> reachable(ElementRef start) const;

    std::size_t attribute_count() const;

private:
    std::unique_ptr<SymbolTable> symbols_;
    std::vector<Element> elements_;
    Kv2Layout kv2_;
    mutable std::unordered_map<Guid, ElementRef, GuidHash> id_index_;
    mutable std::size_t id_index_size_ = 0;
};

// Structural equality: header format, root/prefix, every element (class, name, GUID, external)
// and attribute (name, order, type, value) compared index by index. Layout state is ignored.
// By default an element without an id (keyvalues2_noids) matches any id; with exact_ids an id
// must be present on both sides or on neither (value-exact re-encoding).
// On difference returns a path like "element[12] CMapMesh/attribute 'origin': values differ".
std::optional<std::string> compare(const Document& a, const Document& b, bool exact_ids = false);
// Like compare() but matches elements by walking both graphs from their roots (and prefixes),
// so documents whose element order differs (binary vs keyvalues2) compare equal.
std::optional<std::string> compare_graphs(const Document& a, const Document& b,
                                          bool exact_ids = false);

// The deterministic id levelkit gives an element that has none when an encoding needs one
// (derived from the document's format, the element's index and class; never random), and
// whether an id is one of those: a version-8 (RFC 9562 custom) UUID whose last four bytes are a
// checksum of the first twelve. Valve's tools write version-4 ids, so no real id is mistaken.
Guid generated_id(const Document& doc, ElementRef e);
bool is_generated_id(const Guid& g);

}  // namespace lk::dmx
