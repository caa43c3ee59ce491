// Subtrees of a binary DMX encoded as they are made, so that a large document is written
// without its whole datamodel in memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/dmx/document.hpp"

namespace lk::dmx {

namespace detail {
template <class V>
class FlatStringMap;
class TextIds;

// One packed subtree: its element index entries and attribute blocks, as a binary writer of
// `version` makes them, with string indices that are ids in the pool and references that are
// local element numbers; `relocs` says where those are: per index, (bytes since the previous
// one or the section's start) * 2, + 1 for a reference, as a LEB128 varint (one byte for
// nearly all: an attribute's name is a few bytes after the last one's).
struct Pack {
    static constexpr std::uint32_t kElementReloc = 0x80000000u;  // while packing
    int version = 0;
    std::uint32_t elements = 0;
    std::uint32_t attributes_at = 0;     // bytes before: the index entries; after: the attributes
    std::uint32_t attribute_relocs = 0;  // `relocs` bytes before: the index entries'
    // In the PackedSubtrees' slabs:
    std::span<const std::byte> bytes;
    std::span<const std::uint8_t> relocs;
    std::span<const std::uint32_t> strings;  // the subtree's strings, in gather order, each once
};
}  // namespace detail

// --- subtrees described without a datamodel -----------------------------------------------
//
// A converter that makes thousands of subtrees of one shape (a VMAP mesh: 19 elements, a few
// hundred attributes) can describe each as a list of elements whose attributes point at values
// it keeps, and have it encoded straight from them: the bytes are those of the same elements
// made in a tree and packed, without making the tree (its allocations and symbol lookups).

// A class or attribute name that is a string literal: its address names it for the life of the
// program, so a packer finds its string id without hashing the text. (consteval: a literal or
// another array of static storage, never a buffer that could change.)
class PackName {
public:
    template <std::size_t N>
    consteval PackName(const char (&s)[N]) : s_(s, N - 1) {}  // NOLINT(implicit)
    std::string_view str() const { return s_; }
    const char* key() const { return s_.data(); }

private:
    std::string_view s_;
};

// An attribute of a described element. Scalars are held; arrays and strings are read where they
// lie, so what they point at must outlive the packing (or the making) of the subtree.
class PackAttr {
public:
    // A scalar of a fixed size: int32, float, bool, Color, the vectors, QAngle, Quaternion, Time,
    // uint64, uint8.
    template <class T>
    requires(is_value_type<T> && !is_array(type_of<T>) && std::is_trivially_copyable_v<T> &&
             sizeof(T) <= 16 && !std::is_same_v<T, ElementRef> && !std::is_same_v<T, Guid>)
        PackAttr(PackName name, T v)
        : name_(name.str()), type_(type_of<T>), size_(sizeof(T)) {
        static_assert(std::is_same_v<T, bool> || sizeof(T) % word_of<T>() == 0);
        std::memcpy(inline_, &v, sizeof(T));
        word_ = word_of<T>();
        if constexpr (std::is_same_v<T, bool>) inline_[0] = v ? std::byte{1} : std::byte{0};
    }
    // An array of plain items (int32, float, the vectors, Color, Time, uint64, uint8).
    template <class T>
    requires(is_value_type<std::vector<T>>&& std::is_trivially_copyable_v<T> &&
             !std::is_same_v<T, ElementRef> && !std::is_same_v<T, Guid> &&
             !std::is_same_v<T, bool> && !std::is_same_v<T, std::byte>)
        PackAttr(PackName name, const std::vector<T>& v)
        : name_(name.str()),
          type_(type_of<std::vector<T>>),
          data_(v.data()),
          count_(v.size()),
          size_(sizeof(T)),
          word_(word_of<T>()) {}
    // An array of strings (written inline, NUL-terminated).
    PackAttr(PackName name, std::span<const std::string> v)
        : name_(name.str()), type_(Type::string_array), data_(v.data()), count_(v.size()) {}
    // An array value held in a Value (plain items or strings).
    PackAttr(PackName name, const Value& v);
    // A string value: `text` kept by the caller, or a literal.
    static PackAttr text(PackName name, std::string_view text) {
        PackAttr a(name, Type::string);
        a.text_ = text;
        return a;
    }
    // A string attribute whose name is not a literal (both kept by the caller).
    static PackAttr named_text(std::string_view name, std::string_view text) {
        PackAttr a(PackName(""), Type::string);
        a.name_ = name;
        a.name_literal_ = false;
        a.text_ = text;
        return a;
    }
    static PackAttr literal_text(PackName name, PackName literal) {
        PackAttr a = text(name, literal.str());
        a.literal_ = true;
        return a;
    }
    // A reference to the element at `position` in the described list; -1: null.
    static PackAttr element(PackName name, std::int32_t position) {
        PackAttr a(name, Type::element);
        a.ref_ = position;
        return a;
    }
    // References by position in the list.
    static PackAttr elements(PackName name, std::span<const std::int32_t> positions) {
        PackAttr a(name, Type::element_array);
        a.data_ = positions.data();
        a.count_ = positions.size();
        return a;
    }

    std::string_view name() const { return name_; }
    bool name_literal() const { return name_literal_; }
    Type type() const { return type_; }
    // Scalars: their bytes (native order); arrays: items and their count; bytes per item.
    const std::byte* scalar() const { return inline_; }
    const void* data() const { return data_; }
    std::size_t count() const { return count_; }
    std::size_t item_size() const { return size_; }
    // Bytes of each number within an item (1, 4 or 8), for byte order.
    std::size_t word() const { return word_; }
    std::string_view text() const { return text_; }
    bool literal() const { return literal_; }
    std::int32_t ref() const { return ref_; }

private:
    PackAttr(PackName name, Type t) : name_(name.str()), type_(t) {}
    template <class T>
    static constexpr std::size_t word_of() {
        if constexpr (std::is_same_v<T, std::uint64_t>) {
            return 8;
        } else if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, bool> ||
                             std::is_same_v<T, Color>) {
            return 1;
        } else {
            return 4;
        }
    }
    std::string_view name_;
    bool name_literal_ = true;
    Type type_;
    alignas(8) std::byte inline_[16]{};
    const void* data_ = nullptr;
    std::size_t count_ = 0, size_ = 0, word_ = 1;
    std::string_view text_;
    bool literal_ = false;
    std::int32_t ref_ = -1;
};

// A described element: its class, name (kept by the caller; `name_literal` when a literal, which
// is found without hashing), GUID and attributes in order.
struct PackElement {
    PackName type;
    std::string_view name;
    bool name_literal = false;
    Guid id;
    std::span<const PackAttr> attributes;
};

// A subtree to pack: its elements, the root first, every one reachable from it, references by
// position in the list. It lives (and what its attributes point at with it) until packed.
class PackSource {
public:
    virtual ~PackSource() = default;
    virtual std::span<const PackElement> elements() const = 0;
};

// The described elements made in `doc` (for a document written without packing), in the
// list's order: the same elements the packed bytes hold. Returns the root.
ElementRef make_elements(Document& doc, std::span<const PackElement> elements);
// The same, the elements made appended to `made` (by position in the list).
void make_elements(Document& doc, std::span<const PackElement> elements,
                   std::vector<ElementRef>& made);
// Appends described attributes to `e` (Element::add), references by position in `refs`.
void add_attributes(Element& e, std::span<const PackAttr> attributes,
                    std::span<const ElementRef> refs = {});

// A converter that builds a large binary DMX (VMF -> VMAP: a mesh and the 18 elements under it
// for every brush) can encode each self-contained subtree as soon as it is made and keep only
// its bytes. The document then holds one placeholder per subtree (an element of the subtree
// root's class, no attributes, no GUID), and writing puts the bytes where Valve's element order
// and string table place them: the same file as writing the whole datamodel, in about a third
// of its memory.
//
// A packed subtree is every element of `tree` (all reachable from tree.root, all with GUIDs);
// the document refers to it only through its placeholder. The document is written as binary of
// the version the subtrees were packed with, in Valve's element order.
class PackedSubtrees {
public:
    PackedSubtrees();
    PackedSubtrees(PackedSubtrees&&) noexcept;
    PackedSubtrees& operator=(PackedSubtrees&&) noexcept;
    ~PackedSubtrees();

    // Encodes `tree` (binary version from tree.header) and adds its placeholder to `doc`. A
    // subtree binary cannot store (a string holding NUL, ...) is kept as the error that
    // writing returns.
    ElementRef add(Document& doc, const Document& tree);

    // Packing on a thread of its own (off by default): add(doc, take_tree()...) then hands the
    // tree over and returns once the placeholder is made, so that the caller builds the next
    // subtree while this one is encoded. Subtrees are encoded one at a time in the order they
    // were added, so the bytes are the same as without the thread. The caller's documents are
    // never touched by that thread; the trees it is given are, until they come back from
    // take_tree().
    void pack_on_thread(bool on) { on_thread_ = on; }
    // An empty document to build the next subtree in (one the thread is done with, when there
    // is one: trees keep their symbols from one subtree to the next). Waits when every tree is
    // still being encoded.
    std::unique_ptr<Document> take_tree();
    // As add(doc, tree), taking the tree (from take_tree()); it comes back through take_tree().
    ElementRef add(Document& doc, std::unique_ptr<Document> tree);
    // A subtree described by `source`, encoded as add(doc, tree) encodes the same elements made
    // in a tree with doc's header (on the packing thread when there is one; the source is freed
    // by the caller's thread, at a later add or at wait()).
    ElementRef add(Document& doc, std::unique_ptr<PackSource> source);
    // Waits until every subtree added is encoded (done by the writers below; needed before
    // pack(), error(), memory() or pack_of()). A failure of the packing thread (out of memory)
    // is thrown here.
    void wait() const;

    std::size_t size() const { return placeholders_.size(); }
    // Whether heap memory freed while packing and writing (by the caller: a converted input)
    // is handed back to the system (the default: lower peak), or kept for what the thread
    // does next (a batch of conversions).
    void give_back_memory(bool on) { give_back_ = on; }
    bool gives_back_memory() const { return give_back_; }
    // Room for `n` subtrees.
    void reserve(std::size_t n);
    // Bytes held by the encoded subtrees.
    std::size_t memory() const;

    const std::optional<Diagnostic>& error() const { return error_; }
    // The pack a placeholder of `doc` stands for (by element index), or -1 (for the writer).
    std::vector<std::int32_t> pack_of(const Document& doc) const;
    const detail::Pack& pack(std::size_t i) const { return packs_[i]; }
    const std::string& string(std::uint32_t id) const { return pool_[id]; }
    std::uint32_t intern(std::string_view s);
    std::size_t strings() const { return pool_.size(); }
    // For packing: the symbols of the document being packed (trees made in turn in one
    // document share them), the pool id of one of its symbols (by id, cached; `text` is its
    // text), and whether a pool id is seen for the first time in the tree `stamp` (from
    // next_stamp()).
    void use_symbols(const SymbolTable& table);
    std::uint32_t symbol(std::uint32_t symbol_id, std::string_view text) {
        std::vector<std::uint32_t>& cache = symbol_pools_[current_pool_].second;
        if (symbol_id >= cache.size()) cache.resize(symbol_id + 1, kNoPoolId);
        std::uint32_t& id = cache[symbol_id];
        if (id == kNoPoolId) id = intern(text);
        return id;
    }
    // The cache symbol() reads, sized for a table of `symbols` symbols (kNoPoolId until
    // interned), for a writer that looks up every symbol of a subtree: valid until the next
    // use_symbols().
    static constexpr std::uint32_t kNoPoolId = UINT32_MAX;
    std::uint32_t* symbol_cache(std::size_t symbols) {
        std::vector<std::uint32_t>& cache = symbol_pools_[current_pool_].second;
        if (symbols > cache.size()) cache.resize(symbols, kNoPoolId);
        return cache.data();
    }
    std::uint32_t next_stamp() { return ++stamp_now_; }
    bool first_in(std::uint32_t id, std::uint32_t stamp) {
        if (id >= stamps_.size()) stamps_.resize(id + 1, 0);
        if (stamps_[id] == stamp) return false;
        stamps_[id] = stamp;
        return true;
    }

private:
    // The packing thread (pack_on_thread). First of the members: moving a PackedSubtrees first
    // waits for the thread of the one moved from, before its other members move.
    class Worker;
    struct WorkerHandle {
        std::unique_ptr<Worker> w;
        WorkerHandle() = default;
        WorkerHandle(WorkerHandle&& o) noexcept;
        WorkerHandle& operator=(WorkerHandle&& o) noexcept;
        ~WorkerHandle();
        // Encodes what is queued and ends the thread; its failure, if any, stays for wait().
        void stop() const noexcept;
    };
    WorkerHandle worker_;
    // Encodes `tree` as the next pack (on the packing thread when there is one).
    void encode(const Document& tree);
    // Encodes a described subtree as the next pack.
    void encode(const PackSource& source, int version);
    // Stores the pack encoded in scratch_ (relocations in scratch_relocs_, strings in
    // scratch_strings_).
    void store_pack(detail::Pack& p);
    std::uint32_t literal(PackName n);
    std::unique_ptr<detail::TextIds> literal_ids_;
    // The placeholder of `tree` added to `doc`, for the next pack.
    ElementRef placeholder(Document& doc, const Document& tree);
    bool on_thread_ = false;
    std::vector<std::unique_ptr<Document>> spare_trees_;  // without a thread

    std::vector<detail::Pack> packs_;
    std::vector<std::pair<std::int32_t, std::uint32_t>> placeholders_;  // element, pack
    std::deque<std::string> pool_;
    std::unique_ptr<detail::FlatStringMap<std::uint32_t>> pool_index_;
    // Stored string sequences by their bytes.
    std::unique_ptr<detail::FlatStringMap<std::span<const std::uint32_t>>> sequences_;
    std::optional<Diagnostic> error_;
    static constexpr std::uint32_t kNone = UINT32_MAX;
    std::vector<std::uint32_t> stamps_;
    // Pool ids of symbols, cached for the last few symbol tables (trees made in turn), by the
    // table's uid; current_pool_ indexes the one in use.
    std::vector<std::pair<std::uint64_t, std::vector<std::uint32_t>>> symbol_pools_{
        {0, std::vector<std::uint32_t>{}}};
    std::size_t current_pool_ = 0;
    std::uint32_t stamp_now_ = 0;
    bool give_back_ = true;
    // Packed bytes are stored in slabs of kSlabSize bytes (or one of their own when larger), mapped
    // apart from the heap, so that they do not interleave with the datamodels made and freed
    // while packing (and the heap's free room can go back to the system).
public:
    static constexpr std::size_t kSlabSize = std::size_t{1} << 18;

private:
    template <class T>
    std::span<const T> store(std::span<const T> v);
    struct Slab {
        std::byte* data = nullptr;
        std::size_t size = 0;
        bool keep_more = false;  // when freed: kept for a batch's next document (see ~Slab)
        Slab(std::size_t n, bool keep_more);
        Slab(Slab&& o) noexcept
            : data(std::exchange(o.data, nullptr)), size(o.size), keep_more(o.keep_more) {}
        Slab& operator=(Slab&&) = delete;
        ~Slab();
    };
    std::vector<Slab> slabs_;
    std::size_t slab_used_ = 0, slab_size_ = 0, slab_bytes_ = 0;
    Bytes scratch_;
    std::vector<std::uint32_t> scratch_relocs_, scratch_strings_, scratch_order_, scratch_ids_;
    std::vector<std::int32_t> scratch_positions_;
    std::vector<std::uint8_t> scratch_steps_;
};

// The document's binary bytes with its packed subtrees in place (same as dmx::write of the
// unpacked document).
Result<Bytes> write(const Document& doc, const PackedSubtrees& packed);
Result<void> write_to(const Document& doc, const PackedSubtrees& packed, ByteSink& out);
// The whole datamodel: the document written with its subtrees and read back.
Result<Document> unpack(const Document& doc, const PackedSubtrees& packed);

}  // namespace lk::dmx
