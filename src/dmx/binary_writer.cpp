#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#define LK_MMAP_SLABS 1
#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif
#else
#define LK_MMAP_SLABS 0
#endif
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include "binary_common.hpp"
#include "flat_map.hpp"
#include "gather.hpp"
#include "internal.hpp"
#include "levelkit/core/memory.hpp"
#include "levelkit/core/text.hpp"

namespace lk::dmx::detail {

// Pool ids of the strings a subtree's gather interned, by the address of their text: the
// document is const while it is packed, so an address names one string, and the attribute
// pass finds each again without hashing its text a second time.
class TextIds {
public:
    void clear() {
        if (size_ != 0 || slots_.empty()) {
            slots_.assign(slots_.empty() ? 64 : slots_.size(), {});
            size_ = 0;
        }
    }
    void put(const char* p, std::uint32_t id) {
        if (2 * (size_ + 1) > slots_.size()) grow();
        for (std::size_t i = slot(p);; i = (i + 1) & (slots_.size() - 1)) {
            if (slots_[i].first == p) return;
            if (!slots_[i].first) {
                slots_[i] = {p, id};
                ++size_;
                return;
            }
        }
    }
    const std::uint32_t* find(const char* p) const {
        for (std::size_t i = slot(p);; i = (i + 1) & (slots_.size() - 1)) {
            if (slots_[i].first == p) return &slots_[i].second;
            if (!slots_[i].first) return nullptr;
        }
    }

private:
    std::size_t slot(const char* p) const {
        const auto h = reinterpret_cast<std::uintptr_t>(p) * 0x9E3779B97F4A7C15ull;
        return static_cast<std::size_t>(h >> 32) & (slots_.size() - 1);
    }
    void grow() {
        std::vector<std::pair<const char*, std::uint32_t>> old(2 * slots_.size());
        old.swap(slots_);
        size_ = 0;
        for (const auto& [p, id] : old) {
            if (p) put(p, id);
        }
    }
    std::vector<std::pair<const char*, std::uint32_t>> slots_;
    std::size_t size_ = 0;
};

namespace {

class BinaryWriter {
public:
    // `packed`: the document's packed subtrees, spliced in at their placeholders.
    BinaryWriter(const Document& doc, ByteWriter& w, const PackedSubtrees* packed = nullptr)
        : doc_(doc), w_(w), ver_{binary_layout_version(doc.header)}, packed_(packed) {}

    Result<void> run();
    // Encodes the whole document (a subtree for PackedSubtrees) into `out`: index entries, then
    // attribute blocks, string indices as ids of `pool`, each index and reference recorded.
    Result<void> pack(PackedSubtrees& pool, detail::Pack& out, std::vector<std::uint32_t>& relocs,
                      std::vector<std::uint32_t>& strings);

private:
    Diagnostic fail(std::string code, std::string message, std::string path) {
        return Diagnostic::error(std::move(code), std::move(message)).with_path(std::move(path));
    }
    std::string attr_path(ElementRef e, const Attribute& a) const {
        std::string p = e.is_null() ? std::string("prefix")
                                    : fmt::format("element[{}] {}", e.index, doc_[e].type.str());
        return p + "/attribute '" + printable(a.name.str()) + "'";
    }

    std::int32_t index_of(std::string_view s) const {
        const std::int32_t* i = string_index_.find(s);
        return i ? *i : -1;
    }
    void put_index(std::int32_t i) {
        if (relocs_ && i >= 0) relocs_->push_back(static_cast<std::uint32_t>(w_.size()));
        if (ver_.index_i32()) {
            w_.i32(i);
        } else {
            w_.i16(static_cast<std::int16_t>(i));
        }
    }
    void put_symbol(Symbol s) {
        if (pool_) {
            std::uint32_t& id = pool_symbols_[s.id()];
            if (id == PackedSubtrees::kNoPoolId) id = pool_->intern(s.str());
            return put_index(static_cast<std::int32_t>(id));
        }
        std::int32_t& cached = symbol_index_[s.id()];
        if (cached == -2) cached = index_of(s.str());
        put_index(cached);
    }
    void put_table_string(std::string_view s, bool null) {
        if (null) return put_index(-1);
        if (pool_) {
            const std::uint32_t* id = text_ids_.find(s.data());
            return put_index(static_cast<std::int32_t>(id ? *id : pool_->intern(s)));
        }
        put_index(index_of(s));
    }
    // Strings are NUL-terminated in binary files: one holding a NUL cannot be stored.
    void cstring(std::string_view s, const std::function<std::string()>& where) {
        if (s.find('\0') != std::string_view::npos && !nul_error_) {
            nul_error_ =
                Diagnostic::error("dmx.string-not-representable",
                                  "string '" + printable(s) +
                                      "' contains a NUL byte, which binary DMX cannot store")
                    .with_path(where());
        }
        w_.cstring(s);
    }

    // False with error_ set when the attribute cannot be written (most documents write hundreds
    // of thousands: a Result per attribute costs more than the attribute).
    bool put_attribute(ElementRef owner, const Attribute& a, bool prefix);
    bool put_ref(ElementRef r);
    void put_index_entry(ElementRef r);
    Result<void> put_attributes(ElementRef r);
    // A packed subtree's index entries or attribute blocks, its strings and references made
    // the file's (`base`: the file index of its root).
    void splice(const detail::Pack& p, bool attributes, std::int32_t base);

    const Document& doc_;
    ByteWriter& w_;
    BinVersion ver_;
    std::vector<std::int32_t> file_index_;
    FlatStringMap<std::int32_t> string_index_;
    std::vector<std::int32_t> symbol_index_;
    std::optional<Diagnostic> nul_error_;
    std::optional<Diagnostic> error_;  // put_attribute's
    // Writing with packed subtrees: the pack each element stands for (-1: none) and the table
    // index of each pooled string.
    const PackedSubtrees* packed_ = nullptr;
    std::vector<std::int32_t> pack_of_, pool_index_;
    // Packing: string indices are pool ids; where they and references are written.
    PackedSubtrees* pool_ = nullptr;
    std::uint32_t* pool_symbols_ = nullptr;  // pool ids by symbol id (PackedSubtrees::symbol_cache)
    TextIds text_ids_;                       // pool ids of the strings gathered, by address
    std::vector<std::uint32_t>* relocs_ = nullptr;
};

bool BinaryWriter::put_ref(ElementRef r) {
    if (r.is_null()) {
        w_.i32(kNullRef);
        return true;
    }
    const Element* e = doc_.get(r);
    if (!e) return false;
    if (e->external()) {
        w_.i32(kExternalRef);
        if (e->id_text.empty()) {
            std::string s;
            e->id.append_to(s);
            w_.cstring(s);
        } else {
            w_.cstring(e->id_text);
        }
        return true;
    }
    const std::int32_t i = file_index_[static_cast<std::size_t>(r.index)];
    if (i < 0) return false;
    if (relocs_)
        relocs_->push_back(static_cast<std::uint32_t>(w_.size()) | detail::Pack::kElementReloc);
    w_.i32(i);
    return true;
}

// An array's items (its count is written before).
template <class T>
void put_pod_items(ByteWriter& w, const std::vector<T>& v) {
    if constexpr (std::endian::native == std::endian::little) {
        w.bytes(ByteSpan(reinterpret_cast<const std::byte*>(v.data()), v.size() * sizeof(T)));
    } else {
        std::vector<T> copy = v;
        fix_endian(std::span<T>(copy));
        w.bytes(ByteSpan(reinterpret_cast<const std::byte*>(copy.data()), copy.size() * sizeof(T)));
    }
}

bool BinaryWriter::put_attribute(ElementRef owner, const Attribute& a, bool prefix) {
    const Type t = a.value.type();
    const auto id = id_from_type(ver_, t);
    if (!id) {
        error_ =
            fail("dmx.type-not-representable",
                 fmt::format("type {} cannot be stored in binary version {}", type_name(t), ver_.v),
                 attr_path(owner, a));
        return false;
    }
    auto where = [&] { return attr_path(owner, a); };
    if (prefix || !ver_.has_table()) {
        cstring(a.name.str(), where);
    } else {
        put_symbol(a.name);
    }
    w_.u8(*id);
    bool ok = true, too_large = false;
    // An array's item count, or false when it does not fit the file's int32.
    auto count = [&](std::size_t n) {
        if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
            too_large = true;
            return false;
        }
        w_.i32(static_cast<std::int32_t>(n));
        return true;
    };
    a.value.visit([&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, ElementRef>) {
            ok = put_ref(x);
        } else if constexpr (std::is_same_v<T, std::int32_t>) {
            w_.i32(x);
        } else if constexpr (std::is_same_v<T, float>) {
            w_.f32(x);
        } else if constexpr (std::is_same_v<T, bool>) {
            w_.u8(x ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (prefix || !ver_.values_in_table()) {
                cstring(x, where);
            } else {
                put_table_string(x, a.null_string && x.empty());
            }
        } else if constexpr (std::is_same_v<T, Binary>) {
            w_.i32(static_cast<std::int32_t>(x.size()));
            w_.bytes(x);
        } else if constexpr (std::is_same_v<T, Time>) {
            w_.i32(x.ticks);
        } else if constexpr (std::is_same_v<T, Color>) {
            w_.u8(x.r);
            w_.u8(x.g);
            w_.u8(x.b);
            w_.u8(x.a);
        } else if constexpr (std::is_same_v<T, std::uint64_t>) {
            w_.u64(x);
        } else if constexpr (std::is_same_v<T, std::uint8_t>) {
            w_.u8(x);
        } else if constexpr (std::is_same_v<T, std::vector<ElementRef>>) {
            if (!count(x.size())) return;
            for (ElementRef r : x) ok = ok && put_ref(r);
        } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
            if (!count(x.size())) return;
            for (bool b : x) w_.u8(b ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            if (!count(x.size())) return;
            for (const std::string& s : x) cstring(s, where);
        } else if constexpr (std::is_same_v<T, std::vector<Binary>>) {
            if (!count(x.size())) return;
            for (const Binary& b : x) {
                w_.i32(static_cast<std::int32_t>(b.size()));
                w_.bytes(b);
            }
        } else if constexpr (requires { typename T::value_type; }) {
            if (!count(x.size())) return;
            put_pod_items(w_, x);
        } else {
            // Fixed-size scalars made of floats (vectors, angles, quaternions, matrices) and GUIDs.
            static_assert(std::is_trivially_copyable_v<T>);
            T copy = x;
            fix_endian(std::span<T>(&copy, 1));
            w_.bytes(ByteSpan(reinterpret_cast<const std::byte*>(&copy), sizeof(T)));
        }
    });
    if (too_large) {
        error_ = fail("dmx.too-large", "array has more than 2^31 items", attr_path(owner, a));
        return false;
    }
    if (!ok) {
        error_ = fail("dmx.unwritable-reference",
                      "references an element that is neither in the element index nor external",
                      attr_path(owner, a));
        return false;
    }
    return true;
}

void BinaryWriter::put_index_entry(ElementRef r) {
    const Element& e = doc_[r];
    auto where = [&] { return fmt::format("element[{}] {}", r.index, e.type.str()); };
    if (ver_.has_table()) {
        put_symbol(e.type);
    } else {
        cstring(e.type.str(), where);
    }
    if (ver_.has_link()) w_.i32(e.link);
    if (ver_.names_in_table()) {
        put_table_string(e.name, e.null_name && e.name.empty());
    } else {
        cstring(e.name, where);
    }
    const Guid g = e.has_id() || e.id_invented() ? e.id : generated_id(doc_, r);
    w_.bytes(ByteSpan(reinterpret_cast<const std::byte*>(g.bytes.data()), 16));
}

Result<void> BinaryWriter::put_attributes(ElementRef r) {
    const Element& e = doc_[r];
    w_.i32(static_cast<std::int32_t>(e.attributes.size()));
    for (const Attribute& a : e.attributes) {
        if (!put_attribute(r, a, false)) return std::move(*error_);
    }
    return success();
}

void BinaryWriter::splice(const Pack& p, bool attributes, std::int32_t base) {
    const std::size_t lo = attributes ? p.attributes_at : 0;
    const std::size_t hi = attributes ? p.bytes.size() : p.attributes_at;
    const std::size_t start = w_.size();
    w_.bytes(ByteSpan(p.bytes.data() + lo, hi - lo));
    const std::size_t r1 = attributes ? p.relocs.size() : p.attribute_relocs;
    std::size_t at = lo;
    for (std::size_t k = attributes ? p.attribute_relocs : 0; k < r1;) {
        std::uint64_t step = 0;
        for (unsigned shift = 0;; shift += 7) {
            const std::uint8_t b = p.relocs[k++];
            step |= std::uint64_t{b & 0x7Fu} << shift;
            if (!(b & 0x80)) break;
        }
        const bool element = (step & 1) != 0;
        at += static_cast<std::size_t>(step >> 1);
        const std::int32_t local = load<std::int32_t>(p.bytes.data() + at, Endian::little);
        const std::int32_t v =
            element ? base + local : pool_index_[static_cast<std::size_t>(local)];
        w_.patch<std::int32_t>(start + (at - lo), v);
    }
}

Result<void> BinaryWriter::pack(PackedSubtrees& pool, Pack& out, std::vector<std::uint32_t>& relocs,
                                std::vector<std::uint32_t>& strings) {
    // Versions 5 and later: 4-byte string indices in index entries and attributes alike.
    if (!ver_.index_i32() || !ver_.names_in_table() || !binary_version_supported(ver_.v)) {
        return fail("dmx.unsupported", fmt::format("binary version {} cannot be packed", ver_.v),
                    "header");
    }
    const std::vector<ElementRef> order = policy_order(doc_, BinaryLayout::ElementOrder::valve);
    if (order.size() != doc_.size()) {
        return fail(
            "dmx.pack-not-a-tree",
            fmt::format("{} of {} elements are reachable from the root", order.size(), doc_.size()),
            "packed subtree");
    }
    file_index_.assign(doc_.size(), -1);
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Element& e = doc_[order[i]];
        if (!e.has_id() && !e.id_invented()) {
            return fail("dmx.pack-without-id",
                        fmt::format("element[{}] {} has no GUID", order[i].index, e.type.str()),
                        "packed subtree");
        }
        file_index_[static_cast<std::size_t>(order[i].index)] = static_cast<std::int32_t>(i);
    }
    out.version = ver_.v;
    out.elements = static_cast<std::uint32_t>(order.size());
    // The subtree's strings in Valve's gather order, by pool id (symbols by their cached id;
    // "name", gathered for every element, without hashing it each time).
    pool.use_symbols(doc_.symbols());
    const std::uint32_t stamp = pool.next_stamp();
    strings.clear();
    const std::uint32_t name_id = pool.intern("name");
    text_ids_.clear();
    gather(doc_, order, ver_.v, Phantoms::subtree, [&](std::string_view s, std::uint32_t sym) {
        std::uint32_t id;
        if (sym != kNotASymbol) {
            id = pool.symbol(sym, s);
        } else {
            id = s == "name" ? name_id : pool.intern(s);
            text_ids_.put(s.data(), id);
        }
        if (pool.first_in(id, stamp)) strings.push_back(id);
    });
    pool_ = &pool;
    pool_symbols_ = pool.symbol_cache(doc_.symbols().size());
    relocs_ = &relocs;
    for (ElementRef r : order) put_index_entry(r);
    out.attributes_at = static_cast<std::uint32_t>(w_.size());
    out.attribute_relocs = static_cast<std::uint32_t>(relocs.size());
    for (ElementRef r : order) LK_TRY(put_attributes(r));
    relocs_ = nullptr;
    pool_ = nullptr;
    pool_symbols_ = nullptr;
    if (w_.size() > Pack::kElementReloc - 1) {
        return fail("dmx.too-large", "a packed subtree of 2 GiB or more", "packed subtree");
    }
    if (nul_error_) return std::move(*nul_error_);
    return success();
}

Result<void> BinaryWriter::run() {
    if (!binary_version_supported(ver_.v)) {
        return fail("dmx.unsupported",
                    fmt::format("binary encoding version {} is not supported (1-9)", ver_.v),
                    "header");
    }
    if (packed_) {
        if (packed_->error()) return *packed_->error();
        if (doc_.binary.element_order != BinaryLayout::ElementOrder::valve ||
            doc_.binary.string_order != BinaryLayout::StringOrder::valve) {
            return fail("dmx.unsupported",
                        "packed subtrees are written in Valve's element and string orders only",
                        "header");
        }
        pack_of_ = packed_->pack_of(doc_);
        for (std::size_t i = 0; i < packed_->size(); ++i) {
            if (packed_->pack(i).version != ver_.v) {
                return fail("dmx.unsupported",
                            fmt::format("subtrees packed for binary {} written as binary {}",
                                        packed_->pack(i).version, ver_.v),
                            "header");
            }
        }
    }
    auto pack_at = [&](ElementRef r) -> const Pack* {
        if (!packed_) return nullptr;
        const std::int32_t p = pack_of_[static_cast<std::size_t>(r.index)];
        return p < 0 ? nullptr : &packed_->pack(static_cast<std::size_t>(p));
    };
    // One allocation for the whole file: an estimate from the payload sizes (a writer that
    // drains to a file keeps a piece at a time and needs none).
    std::size_t estimate = 4096;
    for (const Element& e : w_.draining() ? std::span<const Element>{} : doc_.elements()) {
        estimate += 32 + e.name.size();
        for (const Attribute& a : e.attributes) {
            estimate += 8;
            a.value.visit([&](const auto& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Binary>) {
                    estimate += x.size() + 1;
                } else if constexpr (std::is_same_v<T, std::vector<std::string>> ||
                                     std::is_same_v<T, std::vector<Binary>>) {
                    for (const auto& item : x) estimate += item.size() + 4;
                } else if constexpr (requires {
                                         typename T::value_type;
                                         x.size();
                                     }) {
                    estimate += x.size() * sizeof(typename T::value_type);
                } else {
                    estimate += sizeof(T);
                }
            });
        }
    }
    if (packed_ && !w_.draining()) {
        for (std::size_t i = 0; i < packed_->size(); ++i) estimate += packed_->pack(i).bytes.size();
    }
    if (!w_.draining()) w_.reserve(estimate);
    std::string scratch;
    w_.text(header_text(doc_.header, scratch));
    w_.text(doc_.header.binary_eol);
    w_.u8(0);

    const std::vector<ElementRef> order = binary_element_order(doc_);
    file_index_.assign(doc_.size(), -1);
    std::size_t count = 0;
    for (ElementRef r : order) {
        file_index_[static_cast<std::size_t>(r.index)] = static_cast<std::int32_t>(
            std::min<std::size_t>(count, std::numeric_limits<std::int32_t>::max()));
        const Pack* p = pack_at(r);
        count += p ? p->elements : 1;
    }
    if (count > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        return fail("dmx.too-large", "more than 2^31 elements", "element index");
    }

    if (ver_.has_prefix()) {
        const Element* p = doc_.get(doc_.prefix);
        std::int32_t containers = doc_.binary.prefix_containers;
        if (containers < 0) containers = p ? 1 : 0;
        if (p && !p->attributes.empty() && containers == 0) containers = 1;
        w_.i32(containers);
        for (std::int32_t c = 0; c < containers; ++c) {
            const auto n = c == 0 && p ? p->attributes.size() : 0;
            w_.i32(static_cast<std::int32_t>(n));
            for (std::size_t k = 0; k < n; ++k) {
                if (!put_attribute(ElementRef::null(), p->attributes[k], true))
                    return std::move(*error_);
            }
        }
    } else if (const Element* p = doc_.get(doc_.prefix); p && !p->attributes.empty()) {
        return fail("dmx.prefix-not-representable",
                    fmt::format("binary version {} has no prefix attributes (first: '{}')", ver_.v,
                                printable(p->attributes.front().name.str())),
                    "prefix");
    }

    std::vector<std::string> table;
    if (ver_.has_table()) {
        table = packed_ ? merge_inserts(valve_gather(doc_, order, ver_.v, *packed_, pack_of_),
                                        doc_.binary.string_inserts)
                        : binary_string_table(doc_, order, ver_.v);
        const std::size_t limit = ver_.table_count_i32() && ver_.index_i32()
                                      ? std::numeric_limits<std::int32_t>::max()
                                      : std::numeric_limits<std::int16_t>::max();
        if (table.size() > limit) {
            return fail("dmx.too-large",
                        fmt::format("{} strings do not fit the string table of binary version {}",
                                    table.size(), ver_.v),
                        "string table");
        }
        if (ver_.table_count_i32()) {
            w_.i32(static_cast<std::int32_t>(table.size()));
        } else {
            w_.i16(static_cast<std::int16_t>(table.size()));
        }
        string_index_.reserve(table.size());
        for (std::size_t i = 0; i < table.size(); ++i) {
            cstring(table[i], [&] { return fmt::format("string table[{}]", i); });
            string_index_.try_emplace(table[i], static_cast<std::int32_t>(i));
            w_.drain();
        }
        symbol_index_.assign(doc_.symbols().size(), -2);
        if (packed_) {
            pool_index_.resize(packed_->strings());
            for (std::size_t i = 0; i < pool_index_.size(); ++i) {
                pool_index_[i] = index_of(packed_->string(static_cast<std::uint32_t>(i)));
            }
        }
    }

    w_.i32(static_cast<std::int32_t>(count));
    for (ElementRef r : order) {
        if (const Pack* p = pack_at(r)) {
            splice(*p, false, file_index_[static_cast<std::size_t>(r.index)]);
        } else {
            put_index_entry(r);
        }
        w_.drain();
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
        const ElementRef r = order[i];
        if (i + 1 < order.size()) prefetch_attributes(doc_[order[i + 1]]);
        if (const Pack* p = pack_at(r)) {
            splice(*p, true, file_index_[static_cast<std::size_t>(r.index)]);
        } else {
            LK_TRY(put_attributes(r));
        }
        w_.drain();
    }
    if (nul_error_) return std::move(*nul_error_);
    return success();
}

}  // namespace

Result<void> write_binary(const Document& doc, ByteWriter& out) {
    BinaryWriter w(doc, out);
    return w.run();
}

}  // namespace lk::dmx::detail

namespace lk::dmx {

namespace {
// Heap freed while packing is handed back once 64 KiB more is free than after the last time
// (give_back_free_heap), at most once a slab: largest VMF -> VMAP (2026-12-02, 60 pairs)
// against half a megabyte, peak 22.4 MiB against 23.2 (max 22.9 against 24.0) for 1.00x the
// wall and CPU time.
constexpr std::size_t kTrimStep = std::size_t{1} << 16;
}  // namespace

// The packing thread: trees queued by add() are encoded in order; each then waits in `spare`
// for take_tree(). At most kTrees trees exist: the one being built, and those queued or being
// encoded. A mesh takes some microseconds to build and less to encode, about what it takes to
// wake a sleeping thread (more on a virtual machine): the thread, which mostly waits for the
// next tree, looks for it for a while (kSpin) before it sleeps, and is woken only if it sleeps.
// The caller never spins: it sleeps when every tree is taken, and is woken only then.
class PackedSubtrees::Worker {
public:
    static constexpr std::size_t kTrees = 6;
    static constexpr std::chrono::microseconds kSpin{100};

    explicit Worker(PackedSubtrees& owner) : owner_(owner), thread_([this] { loop(); }) {}
    ~Worker() { finish(); }

    std::unique_ptr<Document> take_tree() {
        std::unique_lock lock(m_);
        // A new tree while there are fewer than kTrees, or when none is queued or being encoded
        // (a caller holding them all would otherwise wait for ever).
        if (spare_.empty() && (trees_ < kTrees || (queue_.empty() && !busy_))) {
            ++trees_;
            return std::make_unique<Document>();
        }
        caller_waits(lock, [&] { return !spare_.empty(); });
        std::unique_ptr<Document> t = std::move(spare_.back());
        spare_.pop_back();
        return t;
    }
    void push(std::unique_ptr<Document> tree) { push(Job{std::move(tree), nullptr, 0}); }
    // A described subtree. At most kTrees wait: the caller waits for room (they hold what
    // they describe). Sources done with are freed here, on the caller's thread, which made
    // what they hold (freed by the thread, its memory would go back to the caller's arena
    // under that arena's lock).
    void push(std::unique_ptr<PackSource> source, int version) {
        std::vector<std::unique_ptr<PackSource>> done;
        {
            std::unique_lock lock(m_);
            caller_waits(lock, [&] { return queue_.size() < kTrees; });
            done.swap(done_sources_);
        }
        done.clear();
        push(Job{nullptr, std::move(source), version});
    }
    // Sources the thread is done with (the caller frees them).
    std::vector<std::unique_ptr<PackSource>> take_done_sources() {
        const std::lock_guard lock(m_);
        return std::move(done_sources_);
    }
    // Until the queue is encoded (the thread stays).
    void drain() {
        std::unique_lock lock(m_);
        caller_waits(lock, [&] { return queue_.empty() && !busy_; });
    }
    // Encodes the queue and ends the thread.
    void finish() noexcept {
        {
            const std::lock_guard lock(m_);
            if (stop_) return;
            stop_ = true;
            stopping_.store(true, std::memory_order_release);
        }
        wake_.notify_one();
        if (thread_.joinable()) thread_.join();
    }
    // Only the caller ends the thread, so it reads its own write here: no lock.
    bool finished() const { return stopping_.load(std::memory_order_relaxed); }
    void rethrow() const {
        if (failure_) std::rethrow_exception(failure_);
    }

private:
    struct Job {
        std::unique_ptr<Document> tree;
        std::unique_ptr<PackSource> source;
        int version = 0;
    };
    void push(Job job) {
        bool wake = false;
        {
            const std::lock_guard lock(m_);
            queue_.push_back(std::move(job));
            queued_.store(queue_.size(), std::memory_order_release);
            wake = worker_sleeps_;
        }
        if (wake) wake_.notify_one();
    }
    // The caller sleeps until `ready` (under the lock), woken by the thread only if it sleeps.
    template <class Ready>
    void caller_waits(std::unique_lock<std::mutex>& lock, Ready ready) {
        while (!ready()) {
            caller_sleeps_ = true;
            done_.wait(lock);
            caller_sleeps_ = false;
        }
    }
    // Until there is a tree to encode or the thread is to end, or kSpin has passed.
    void spin() const {
        const auto until = std::chrono::steady_clock::now() + kSpin;
        auto ready = [&] {
            return queued_.load(std::memory_order_acquire) > 0 ||
                   stopping_.load(std::memory_order_acquire);
        };
        while (!ready()) {
            for (int i = 0; i < 32 && !ready(); ++i) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            }
            // Where the builder waits for this processor (another process busy on the other
            // core, a virtual machine's processor taken by its host), it gets it.
            std::this_thread::yield();
            if (std::chrono::steady_clock::now() > until) return;
        }
    }

    void loop() {
        for (;;) {
            spin();
            Job t;
            {
                std::unique_lock lock(m_);
                while (queue_.empty() && !stop_) {
                    worker_sleeps_ = true;
                    wake_.wait(lock);
                    worker_sleeps_ = false;
                }
                if (queue_.empty()) return;
                t = std::move(queue_.front());
                queue_.pop_front();
                queued_.store(queue_.size(), std::memory_order_release);
                busy_ = true;
            }
            // After a failure the rest is dropped: wait() throws it, and nothing is written.
            if (!failure_) {
                try {
                    if (t.tree) {
                        owner_.encode(*t.tree);
                    } else {
                        owner_.encode(*t.source, t.version);
                    }
                } catch (...) {
                    failure_ = std::current_exception();
                }
            }
            bool wake = false;
            {
                const std::lock_guard lock(m_);
                if (t.tree) {
                    spare_.push_back(std::move(t.tree));
                } else {
                    done_sources_.push_back(std::move(t.source));
                }
                busy_ = false;
                wake = caller_sleeps_;
            }
            if (wake) done_.notify_all();
        }
    }

    PackedSubtrees& owner_;
    mutable std::mutex m_;
    std::condition_variable wake_, done_;
    std::deque<Job> queue_;
    std::vector<std::unique_ptr<Document>> spare_;
    std::vector<std::unique_ptr<PackSource>> done_sources_;
    std::size_t trees_ = 0;  // made so far
    bool busy_ = false, stop_ = false, worker_sleeps_ = false, caller_sleeps_ = false;
    // What the thread looks at while it spins, and finished(), without the lock.
    std::atomic<std::size_t> queued_{0};
    std::atomic<bool> stopping_{false};
    std::exception_ptr failure_;  // written by the thread only, read after it ends
    std::thread thread_;          // last: starts once the rest is made
};

PackedSubtrees::WorkerHandle::WorkerHandle(WorkerHandle&& o) noexcept {
    o.stop();
    w = std::move(o.w);
}
PackedSubtrees::WorkerHandle& PackedSubtrees::WorkerHandle::operator=(WorkerHandle&& o) noexcept {
    stop();
    o.stop();
    w = std::move(o.w);
    return *this;
}
PackedSubtrees::WorkerHandle::~WorkerHandle() {
    stop();
}
void PackedSubtrees::WorkerHandle::stop() const noexcept {
    if (w) w->finish();
}

PackedSubtrees::PackedSubtrees()
    : literal_ids_(std::make_unique<detail::TextIds>()),
      pool_index_(std::make_unique<detail::FlatStringMap<std::uint32_t>>()),
      sequences_(std::make_unique<detail::FlatStringMap<std::span<const std::uint32_t>>>()) {
    literal_ids_->clear();
}
PackedSubtrees::PackedSubtrees(PackedSubtrees&&) noexcept = default;
PackedSubtrees& PackedSubtrees::operator=(PackedSubtrees&&) noexcept = default;
// The thread ends before the members it uses go.
PackedSubtrees::~PackedSubtrees() {
    worker_.stop();
}

void PackedSubtrees::wait() const {
    if (!worker_.w) return;
    worker_.stop();
    worker_.w->rethrow();
    worker_.w->take_done_sources();  // freed here (the thread has ended)
}

void PackedSubtrees::reserve(std::size_t n) {
    if (worker_.w) worker_.w->drain();
    packs_.reserve(n);
    placeholders_.reserve(n);
}

void PackedSubtrees::use_symbols(const SymbolTable& table) {
    for (std::size_t i = 0; i < symbol_pools_.size(); ++i) {
        if (symbol_pools_[i].first == table.uid()) {
            current_pool_ = i;
            return;
        }
    }
    // A few tables (those the trees of take_tree() rotate through); past that, the oldest goes.
    constexpr std::size_t kTables = 8;
    if (symbol_pools_.size() < kTables) {
        symbol_pools_.emplace_back();
        current_pool_ = symbol_pools_.size() - 1;
    } else {
        current_pool_ = (current_pool_ + 1) % kTables;
    }
    symbol_pools_[current_pool_].first = table.uid();
    symbol_pools_[current_pool_].second.clear();
}

std::unique_ptr<Document> PackedSubtrees::take_tree() {
    if (on_thread_ && (!worker_.w || !worker_.w->finished())) {
        if (!worker_.w) worker_.w = std::make_unique<Worker>(*this);
        return worker_.w->take_tree();
    }
    if (spare_trees_.empty()) return std::make_unique<Document>();
    std::unique_ptr<Document> t = std::move(spare_trees_.back());
    spare_trees_.pop_back();
    return t;
}

ElementRef PackedSubtrees::add(Document& doc, std::unique_ptr<Document> tree) {
    const ElementRef p = placeholder(doc, *tree);
    if (worker_.w && !worker_.w->finished()) {
        worker_.w->push(std::move(tree));
    } else {
        encode(*tree);
        spare_trees_.push_back(std::move(tree));
    }
    return p;
}

std::uint32_t PackedSubtrees::intern(std::string_view s) {
    if (const std::uint32_t* id = pool_index_->find(s)) return *id;
    const auto id = static_cast<std::uint32_t>(pool_.size());
    pool_.emplace_back(s);
    pool_index_->try_emplace(pool_.back(), id);
    return id;
}

std::size_t PackedSubtrees::memory() const {
    wait();
    return slab_bytes_ + packs_.capacity() * sizeof(detail::Pack);
}

#if LK_MMAP_SLABS
namespace {
// Slabs of the standard size that packed documents gave back, for the next ones (a batch
// converts file after file on each thread): mapping fresh pages for every output costs a
// batch more system time than the conversions. A few are kept (kKeep, 4 MiB); more (kKeepMore,
// 16 MiB: about two large maps' worth) when they come from documents that keep their memory
// for the next job (give_back_memory(false), a batch), where mapping, filling and unmapping
// the slabs of each large output again cost two jobs 10% of their CPU time (2026-11-28, 228
// maps: -j 2 0.91x the wall time and CPU time, peak 0.7 MiB more; -j 1 0.92x, 2 MiB more;
// keeping 32 MiB gave no more). The rest are unmapped.
struct SlabCache {
    static constexpr std::size_t kKeep = 16, kKeepMore = 64;
    std::mutex m;
    std::vector<std::byte*> free;
    ~SlabCache() {
        for (std::byte* p : free) munmap(p, PackedSubtrees::kSlabSize);
    }
};
SlabCache& slab_cache() {
    static SlabCache c;
    return c;
}
}  // namespace

PackedSubtrees::Slab::Slab(std::size_t n, bool keep) : size(n), keep_more(keep) {
    if (n == kSlabSize) {
        SlabCache& c = slab_cache();
        const std::lock_guard lock(c.m);
        if (!c.free.empty()) {
            data = c.free.back();
            c.free.pop_back();
            return;
        }
    }
    // Populated at once: each slab is filled right away, and one call is cheaper than its faults.
    void* p =
        mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data = static_cast<std::byte*>(p);
}
PackedSubtrees::Slab::~Slab() {
    if (!data) return;
    if (size == kSlabSize) {
        SlabCache& c = slab_cache();
        const std::lock_guard lock(c.m);
        if (c.free.size() < (keep_more ? SlabCache::kKeepMore : SlabCache::kKeep)) {
            c.free.push_back(data);
            return;
        }
    }
    munmap(data, size);
}
#else
PackedSubtrees::Slab::Slab(std::size_t n, bool keep)
    : data(new std::byte[n]), size(n), keep_more(keep) {}
PackedSubtrees::Slab::~Slab() {
    delete[] data;
}
#endif

template <class T>
std::span<const T> PackedSubtrees::store(std::span<const T> v) {
    const std::size_t n = v.size() * sizeof(T);
    slab_used_ = (slab_used_ + alignof(T) - 1) & ~(alignof(T) - 1);
    if (slabs_.empty() || slab_used_ + n > slab_size_) {
        slab_size_ = std::max(n, kSlabSize);
        slabs_.emplace_back(slab_size_, !give_back_);
        slab_bytes_ += slab_size_;
        // What the caller freed while these were filled (the converted input) goes back to
        // the system; the slabs do not take it.
        if (give_back_) give_back_free_heap(kTrimStep);
        slab_used_ = 0;
    }
    std::byte* at = slabs_.back().data + slab_used_;
    if (n) std::memcpy(at, v.data(), n);
    slab_used_ += n;
    return {reinterpret_cast<const T*>(at), v.size()};
}

ElementRef PackedSubtrees::add(Document& doc, const Document& tree) {
    if (worker_.w) worker_.w->drain();  // the thread is done with the members encode() uses
    const ElementRef p = placeholder(doc, tree);
    encode(tree);
    return p;
}

ElementRef PackedSubtrees::placeholder(Document& doc, const Document& tree) {
    const Element* root = tree.get(tree.root);
    const ElementRef placeholder =
        doc.add_element(root ? root->type.str() : std::string_view("DmElement"),
                        root ? std::string_view(root->name) : std::string_view());
    placeholders_.emplace_back(placeholder.index, static_cast<std::uint32_t>(placeholders_.size()));
    return placeholder;
}

void PackedSubtrees::encode(const Document& tree) {
    detail::Pack p;
    ByteWriter w;
    w.reuse(std::move(scratch_));
    scratch_relocs_.clear();
    {
        detail::BinaryWriter bw(tree, w);
        auto r = bw.pack(*this, p, scratch_relocs_, scratch_strings_);
        if (!r && !error_) error_ = std::move(r).error();
    }
    scratch_ = w.take();
    store_pack(p);
}

void PackedSubtrees::store_pack(detail::Pack& p) {
    // Exactly sized copies: the scratch buffers keep their room for the next subtree.
    p.bytes = store(std::span<const std::byte>(scratch_));
    // Relocations as steps (see Pack), one byte each for nearly all: a step is under 2^33, at
    // most five bytes, so the buffer is sized once and written without checks.
    std::vector<std::uint8_t>& steps = scratch_steps_;
    if (steps.size() < 5 * scratch_relocs_.size()) steps.resize(5 * scratch_relocs_.size());
    std::uint8_t* out = steps.data();
    const std::size_t split = p.attribute_relocs;
    std::size_t prev = 0;
    for (std::size_t k = 0; k < scratch_relocs_.size(); ++k) {
        if (k == split) {
            p.attribute_relocs = static_cast<std::uint32_t>(out - steps.data());
            prev = p.attributes_at;
        }
        const std::uint32_t r = scratch_relocs_[k];
        const std::uint64_t element = r & detail::Pack::kElementReloc ? 1 : 0;
        const std::size_t at = r & ~detail::Pack::kElementReloc;
        std::uint64_t step = std::uint64_t{at - prev} << 1 | element;
        while (step >= 0x80) {
            *out++ = static_cast<std::uint8_t>(step | 0x80);
            step >>= 7;
        }
        *out++ = static_cast<std::uint8_t>(step);
        prev = at;
    }
    const auto used = static_cast<std::size_t>(out - steps.data());
    if (split >= scratch_relocs_.size()) p.attribute_relocs = static_cast<std::uint32_t>(used);
    p.relocs = store(std::span<const std::uint8_t>(steps.data(), used));
    // Subtrees of one kind mostly gather the same strings (a mesh's names): stored once.
    const std::string_view key(reinterpret_cast<const char*>(scratch_strings_.data()),
                               scratch_strings_.size() * sizeof(std::uint32_t));
    if (const auto* same = sequences_->find(key)) {
        p.strings = *same;
    } else {
        p.strings = store(std::span<const std::uint32_t>(scratch_strings_));
        sequences_->try_emplace(
            std::string_view(reinterpret_cast<const char*>(p.strings.data()), key.size()),
            p.strings);
    }
    packs_.push_back(std::move(p));
}

// --- described subtrees ---------------------------------------------------------------------

PackAttr::PackAttr(PackName name, const Value& v) : name_(name.str()), type_(v.type()) {
    v.visit([&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            data_ = x.data();
            count_ = x.size();
        } else if constexpr (requires { typename T::value_type; } &&
                             !std::is_same_v<T, std::string> && !std::is_same_v<T, Binary> &&
                             !std::is_same_v<T, std::vector<bool>> &&
                             !std::is_same_v<T, std::vector<Binary>> &&
                             !std::is_same_v<T, std::vector<ElementRef>> &&
                             !std::is_same_v<T, std::vector<Guid>>) {
            using I = typename T::value_type;
            data_ = x.data();
            count_ = x.size();
            size_ = sizeof(I);
            word_ = word_of<I>();
        } else {
            throw std::invalid_argument(fmt::format(
                "PackAttr: a {} value is not held in a Value here", type_name(v.type())));
        }
    });
}

namespace {

// The value a described attribute stands for, references made through `refs` (positions to
// elements of the document).
Value value_of(const PackAttr& a, std::span<const ElementRef> refs) {
    auto ref = [&](std::int32_t pos) {
        if (pos < 0) return ElementRef::null();
        if (static_cast<std::size_t>(pos) >= refs.size()) {
            throw std::out_of_range("PackAttr: a reference past the described elements");
        }
        return refs[static_cast<std::size_t>(pos)];
    };
    auto scalar = [&](auto x) {
        std::memcpy(&x, a.scalar(), sizeof(x));
        return Value(x);
    };
    // The common ones without making a default value first.
    switch (a.type()) {
        case Type::int32:
            return scalar(std::int32_t{});
        case Type::float32:
            return scalar(float{});
        case Type::boolean:
            return Value(a.scalar()[0] != std::byte{0});
        case Type::uint64:
            return scalar(std::uint64_t{});
        case Type::vector3:
            return scalar(Vector3{});
        case Type::qangle:
            return scalar(QAngle{});
        case Type::string:
            return Value(std::string(a.text()));
        case Type::element:
            return Value(ref(a.ref()));
        default:
            break;
    }
    Value v = Value::of_type(a.type());
    v.visit([&](auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, ElementRef>) {
            x = ref(a.ref());
        } else if constexpr (std::is_same_v<T, std::string>) {
            x.assign(a.text());
        } else if constexpr (std::is_same_v<T, std::vector<ElementRef>>) {
            const auto* p = static_cast<const std::int32_t*>(a.data());
            x.reserve(a.count());
            for (std::size_t i = 0; i < a.count(); ++i) x.push_back(ref(p[i]));
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            const auto* p = static_cast<const std::string*>(a.data());
            x.assign(p, p + a.count());
        } else if constexpr (std::is_same_v<T, bool>) {
            x = a.scalar()[0] != std::byte{0};
        } else if constexpr (requires { typename T::value_type; }) {
            using I = typename T::value_type;
            if constexpr (std::is_trivially_copyable_v<I> && !std::is_same_v<I, bool>) {
                const auto* p = static_cast<const I*>(a.data());
                x.assign(p, p + a.count());
            }
        } else if constexpr (std::is_trivially_copyable_v<T>) {
            std::memcpy(&x, a.scalar(), sizeof(T));
        }
    });
    return v;
}

}  // namespace

ElementRef make_elements(Document& doc, std::span<const PackElement> elements) {
    std::vector<ElementRef> refs;
    make_elements(doc, elements, refs);
    return refs.empty() ? ElementRef::null() : refs.front();
}

void make_elements(Document& doc, std::span<const PackElement> elements,
                   std::vector<ElementRef>& made) {
    const std::size_t first = made.size();
    made.reserve(first + elements.size());
    for (const PackElement& e : elements)
        made.push_back(doc.add_element(e.type.str(), e.name, e.id));
    const std::span<const ElementRef> refs(made.data() + first, elements.size());
    for (std::size_t i = 0; i < elements.size(); ++i) {
        add_attributes(doc[refs[i]], elements[i].attributes, refs);
    }
}

void add_attributes(Element& e, std::span<const PackAttr> attributes,
                    std::span<const ElementRef> refs) {
    e.attributes.reserve(e.attributes.size() + attributes.size());
    for (const PackAttr& a : attributes) e.add(a.name(), value_of(a, refs));
}

std::uint32_t PackedSubtrees::literal(PackName n) {
    if (const std::uint32_t* id = literal_ids_->find(n.key())) return *id;
    const std::uint32_t id = intern(n.str());
    literal_ids_->put(n.key(), id);
    return id;
}

ElementRef PackedSubtrees::add(Document& doc, std::unique_ptr<PackSource> source) {
    const int version = detail::binary_layout_version(doc.header);
    const std::span<const PackElement> els = source->elements();
    const ElementRef p = els.empty() ? doc.add_element("DmElement")
                                     : doc.add_element(els.front().type.str(), els.front().name);
    placeholders_.emplace_back(p.index, static_cast<std::uint32_t>(placeholders_.size()));
    if (on_thread_ && (!worker_.w || !worker_.w->finished())) {
        if (!worker_.w) worker_.w = std::make_unique<Worker>(*this);
        worker_.w->push(std::move(source), version);
    } else {
        if (worker_.w) worker_.w->drain();
        encode(*source, version);
    }
    return p;
}

// The bytes BinaryWriter::pack makes of the same elements in a tree: Valve's element order
// (depth-first, attributes from the last to the first, array items in order), the gather of
// their strings, index entries, then attribute blocks.
void PackedSubtrees::encode(const PackSource& source, int version) {
    const std::span<const PackElement> els = source.elements();
    const detail::BinVersion ver{version};
    detail::Pack p;
    auto fail = [&](std::string code, std::string message) {
        if (!error_) {
            error_ =
                Diagnostic::error(std::move(code), std::move(message)).with_path("packed subtree");
        }
        packs_.push_back(std::move(p));  // an empty pack keeps the placeholders' numbering
    };
    if (!ver.index_i32() || !ver.names_in_table() || !detail::binary_version_supported(version)) {
        return fail("dmx.unsupported", fmt::format("binary version {} cannot be packed", version));
    }
    // Valve's order, as policy_order makes it.
    const std::size_t n = els.size();
    std::vector<std::int32_t>& at = scratch_positions_;  // file index by position
    std::vector<std::uint32_t>& order = scratch_order_;
    at.assign(n, -1);
    order.clear();
    struct Frame {
        std::uint32_t el;
        std::size_t attr, item;
    };
    std::vector<Frame> stack;
    auto enter = [&](std::int32_t pos) {
        if (pos < 0 || static_cast<std::size_t>(pos) >= n || at[static_cast<std::size_t>(pos)] >= 0)
            return;
        at[static_cast<std::size_t>(pos)] = static_cast<std::int32_t>(order.size());
        order.push_back(static_cast<std::uint32_t>(pos));
        stack.push_back({static_cast<std::uint32_t>(pos),
                         els[static_cast<std::size_t>(pos)].attributes.size(), 0});
    };
    if (n) enter(0);
    while (!stack.empty()) {
        Frame& f = stack.back();
        const std::span<const PackAttr> attrs = els[f.el].attributes;
        std::int32_t next = -1;
        while (f.attr != 0) {
            const PackAttr& a = attrs[f.attr - 1];
            bool advance = true;
            if (a.type() == Type::element) {
                next = a.ref();
            } else if (a.type() == Type::element_array && f.item < a.count()) {
                next = static_cast<const std::int32_t*>(a.data())[f.item++];
                advance = false;
            }
            if (advance) {
                --f.attr;
                f.item = 0;
            }
            if (next >= 0) break;
        }
        if (next < 0) {
            stack.pop_back();
        } else {
            enter(next);
        }
    }
    if (order.size() != n) {
        return fail("dmx.pack-not-a-tree",
                    fmt::format("{} of {} elements are reachable from the root", order.size(), n));
    }
    p.version = version;
    p.elements = static_cast<std::uint32_t>(n);
    // String ids, once each: per element (in file order) its class and name, then per attribute
    // its name and string value (0 when it has none); and the size of the bytes.
    auto id_of = [&](std::string_view text, bool is_literal) {
        if (!is_literal) return intern(text);
        if (const std::uint32_t* id = literal_ids_->find(text.data())) return *id;
        const std::uint32_t id = intern(text);
        literal_ids_->put(text.data(), id);
        return id;
    };
    std::vector<std::uint32_t>& ids = scratch_ids_;
    ids.clear();
    std::size_t size = n * (4 + 4 + 16 + 4) + (ver.has_link() ? 4 * n : 0);
    std::optional<std::string_view> bad_string;
    auto cstring_size = [&](std::string_view t) {
        if (t.find('\0') != std::string_view::npos && !bad_string) bad_string = t;
        return t.size() + 1;
    };
    for (std::uint32_t pos : order) {
        const PackElement& e = els[pos];
        ids.push_back(id_of(e.type.str(), true));
        ids.push_back(id_of(e.name, e.name_literal));
        for (const PackAttr& a : e.attributes) {
            if (!detail::id_from_type(ver, a.type())) {
                return fail("dmx.type-not-representable",
                            fmt::format("type {} cannot be stored in binary version {}",
                                        type_name(a.type()), version));
            }
            if (is_array(a.type()) &&
                a.count() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
                return fail("dmx.too-large", "array has more than 2^31 items");
            }
            ids.push_back(id_of(a.name(), a.name_literal()));
            const bool table = a.type() == Type::string && ver.values_in_table();
            ids.push_back(table ? id_of(a.text(), a.literal()) : 0);
            size += 5;
            switch (a.type()) {
                case Type::element:
                    size += 4;
                    break;
                case Type::element_array:
                    size += 4 + 4 * a.count();
                    break;
                case Type::string:
                    size += table ? 4 : cstring_size(a.text());
                    break;
                case Type::string_array: {
                    size += 4;
                    const auto* t = static_cast<const std::string*>(a.data());
                    for (std::size_t k = 0; k < a.count(); ++k) size += cstring_size(t[k]);
                    break;
                }
                default:
                    size += is_array(a.type()) ? 4 + a.count() * a.item_size() : a.item_size();
            }
        }
    }
    if (bad_string) {
        return fail("dmx.string-not-representable",
                    "string '" + printable(*bad_string) +
                        "' contains a NUL byte, which binary DMX cannot store");
    }
    if (size > detail::Pack::kElementReloc - 1) {
        return fail("dmx.too-large", "a packed subtree of 2 GiB or more");
    }
    // The gather (gather.hpp with Phantoms::subtree): class, name, attributes from the last to
    // the first (name, string value), then "name".
    const std::uint32_t stamp = next_stamp();
    const std::uint32_t name = literal("name");
    scratch_strings_.clear();
    auto gathered = [&](std::uint32_t id) {
        if (first_in(id, stamp)) scratch_strings_.push_back(id);
    };
    std::size_t k = 0;
    for (std::uint32_t pos : order) {
        const std::span<const PackAttr> attrs = els[pos].attributes;
        gathered(ids[k]);
        gathered(ids[k + 1]);
        const std::size_t base = k + 2;
        for (std::size_t i = attrs.size(); i-- > 0;) {
            gathered(ids[base + 2 * i]);
            if (attrs[i].type() == Type::string && ver.values_in_table()) {
                gathered(ids[base + 2 * i + 1]);
            }
        }
        gathered(name);
        k = base + 2 * attrs.size();
    }
    // The bytes, into a buffer of their size.
    scratch_.resize(size);
    std::byte* const begin = scratch_.data();
    std::byte* o = begin;
    scratch_relocs_.clear();
    auto i32 = [&](std::int32_t v) {
        lk::store<std::int32_t>(o, v, Endian::little);
        o += 4;
    };
    auto index = [&](std::uint32_t id) {
        scratch_relocs_.push_back(static_cast<std::uint32_t>(o - begin));
        i32(static_cast<std::int32_t>(id));
    };
    auto ref = [&](std::int32_t pos) {
        if (pos < 0) return i32(detail::kNullRef);
        scratch_relocs_.push_back(static_cast<std::uint32_t>(o - begin) |
                                  detail::Pack::kElementReloc);
        i32(at[static_cast<std::size_t>(pos)]);
    };
    auto raw = [&](const void* data, std::size_t bytes) {
        if (bytes) std::memcpy(o, data, bytes);
        o += bytes;
    };
    // Native words in the file's little-endian order.
    auto words = [&](const void* data, std::size_t bytes, std::size_t word) {
        if (std::endian::native == std::endian::little || word == 1) return raw(data, bytes);
        const auto* b = static_cast<const std::byte*>(data);  // a big-endian host
        for (std::size_t i = 0; i + word <= bytes; i += word, o += word) {
            if (word == 8) {
                lk::store<std::uint64_t>(o, load<std::uint64_t>(b + i, Endian::big),
                                         Endian::little);
            } else {
                lk::store<std::uint32_t>(o, load<std::uint32_t>(b + i, Endian::big),
                                         Endian::little);
            }
        }
    };
    auto cstring = [&](std::string_view t) {
        raw(t.data(), t.size());
        *o++ = std::byte{0};
    };
    k = 0;
    for (std::uint32_t pos : order) {
        const PackElement& e = els[pos];
        index(ids[k]);
        if (ver.has_link()) i32(-1);
        index(ids[k + 1]);
        raw(e.id.bytes.data(), 16);
        k += 2 + 2 * e.attributes.size();
    }
    p.attributes_at = static_cast<std::uint32_t>(o - begin);
    p.attribute_relocs = static_cast<std::uint32_t>(scratch_relocs_.size());
    k = 0;
    for (std::uint32_t pos : order) {
        const PackElement& e = els[pos];
        i32(static_cast<std::int32_t>(e.attributes.size()));
        k += 2;
        for (const PackAttr& a : e.attributes) {
            index(ids[k]);
            *o++ = std::byte{*detail::id_from_type(ver, a.type())};
            switch (a.type()) {
                case Type::element:
                    ref(a.ref());
                    break;
                case Type::element_array: {
                    i32(static_cast<std::int32_t>(a.count()));
                    const auto* r = static_cast<const std::int32_t*>(a.data());
                    for (std::size_t i = 0; i < a.count(); ++i) ref(r[i]);
                    break;
                }
                case Type::string:
                    if (ver.values_in_table()) {
                        index(ids[k + 1]);
                    } else {
                        cstring(a.text());
                    }
                    break;
                case Type::string_array: {
                    i32(static_cast<std::int32_t>(a.count()));
                    const auto* t = static_cast<const std::string*>(a.data());
                    for (std::size_t i = 0; i < a.count(); ++i) cstring(t[i]);
                    break;
                }
                default:
                    if (is_array(a.type())) {
                        i32(static_cast<std::int32_t>(a.count()));
                        words(a.data(), a.count() * a.item_size(), a.word());
                    } else {
                        words(a.scalar(), a.item_size(), a.word());
                    }
            }
            k += 2;
        }
    }
    if (o != begin + size) throw std::logic_error("PackedSubtrees: a described subtree's size");
    store_pack(p);
}

std::vector<std::int32_t> PackedSubtrees::pack_of(const Document& doc) const {
    wait();
    std::vector<std::int32_t> out(doc.size(), -1);
    for (const auto& [e, p] : placeholders_) {
        if (static_cast<std::size_t>(e) < out.size())
            out[static_cast<std::size_t>(e)] = static_cast<std::int32_t>(p);
    }
    return out;
}

Result<Bytes> write(const Document& doc, const PackedSubtrees& packed) {
    packed.wait();
    if (!doc.header.is_binary() || doc.container.gzip) {
        return Diagnostic::error("dmx.unsupported",
                                 "a document with packed subtrees is written as plain binary")
            .with_path("header");
    }
    ByteWriter w;
    detail::BinaryWriter bw(doc, w, &packed);
    LK_TRY(bw.run());
    return w.take();
}

Result<void> write_to(const Document& doc, const PackedSubtrees& packed, ByteSink& out) {
    packed.wait();
    if (!doc.header.is_binary() || doc.container.gzip) {
        return Diagnostic::error("dmx.unsupported",
                                 "a document with packed subtrees is written as plain binary")
            .with_path("header");
    }
    // Smaller pieces than unpacked: what is left of the datamodel is small beside them.
    // What the packing freed, before the table and index are made.
    if (packed.gives_back_memory()) give_back_free_heap(kTrimStep);
    ByteWriter w;
    w.drain_to(out, std::size_t{1} << 16);
    detail::BinaryWriter bw(doc, w, &packed);
    LK_TRY(bw.run());
    return w.finish();
}

Result<Document> unpack(const Document& doc, const PackedSubtrees& packed) {
    auto bytes = write(doc, packed);
    if (!bytes) return std::move(bytes).error();
    return read(*bytes);
}

}  // namespace lk::dmx
