#include <fmt/format.h>

#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include "binary_common.hpp"
#include "flat_map.hpp"
#include "internal.hpp"
#include "levelkit/core/text.hpp"

namespace lk::dmx::detail {

namespace {

class BinaryWriter {
public:
    BinaryWriter(const Document& doc, ByteWriter& w)
        : doc_(doc), w_(w), ver_{binary_layout_version(doc.header)} {}

    Result<void> run();

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
        if (ver_.index_i32()) {
            w_.i32(i);
        } else {
            w_.i16(static_cast<std::int16_t>(i));
        }
    }
    void put_symbol(Symbol s) {
        std::int32_t& cached = symbol_index_[s.id()];
        if (cached == -2) cached = index_of(s.str());
        put_index(cached);
    }
    void put_table_string(std::string_view s, bool null) { put_index(null ? -1 : index_of(s)); }
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

    Result<void> put_attribute(ElementRef owner, const Attribute& a, bool prefix);
    bool put_ref(ElementRef r);

    const Document& doc_;
    ByteWriter& w_;
    BinVersion ver_;
    std::vector<std::int32_t> file_index_;
    FlatStringMap<std::int32_t> string_index_;
    std::vector<std::int32_t> symbol_index_;
    std::optional<Diagnostic> nul_error_;
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
    w_.i32(i);
    return true;
}

template <class T>
void put_pod_array(ByteWriter& w, const std::vector<T>& v) {
    w.i32(static_cast<std::int32_t>(v.size()));
    if constexpr (std::endian::native == std::endian::little) {
        w.bytes(ByteSpan(reinterpret_cast<const std::byte*>(v.data()), v.size() * sizeof(T)));
    } else {
        std::vector<T> copy = v;
        fix_endian(std::span<T>(copy));
        w.bytes(ByteSpan(reinterpret_cast<const std::byte*>(copy.data()), copy.size() * sizeof(T)));
    }
}

Result<void> BinaryWriter::put_attribute(ElementRef owner, const Attribute& a, bool prefix) {
    const Type t = a.value.type();
    const auto id = id_from_type(ver_, t);
    if (!id) {
        return fail(
            "dmx.type-not-representable",
            fmt::format("type {} cannot be stored in binary version {}", type_name(t), ver_.v),
            attr_path(owner, a));
    }
    auto where = [&] { return attr_path(owner, a); };
    if (prefix || !ver_.has_table()) {
        cstring(a.name.str(), where);
    } else {
        put_symbol(a.name);
    }
    w_.u8(*id);
    if (a.value.array_size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        return fail("dmx.too-large", "array has more than 2^31 items", attr_path(owner, a));
    }
    bool ok = true;
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
            w_.i32(static_cast<std::int32_t>(x.size()));
            for (ElementRef r : x) ok = ok && put_ref(r);
        } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
            w_.i32(static_cast<std::int32_t>(x.size()));
            for (bool b : x) w_.u8(b ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            w_.i32(static_cast<std::int32_t>(x.size()));
            for (const std::string& s : x) cstring(s, where);
        } else if constexpr (std::is_same_v<T, std::vector<Binary>>) {
            w_.i32(static_cast<std::int32_t>(x.size()));
            for (const Binary& b : x) {
                w_.i32(static_cast<std::int32_t>(b.size()));
                w_.bytes(b);
            }
        } else if constexpr (requires { typename T::value_type; }) {
            put_pod_array(w_, x);
        } else {
            // Fixed-size scalars made of floats (vectors, angles, quaternions, matrices) and GUIDs.
            static_assert(std::is_trivially_copyable_v<T>);
            T copy = x;
            fix_endian(std::span<T>(&copy, 1));
            w_.bytes(ByteSpan(reinterpret_cast<const std::byte*>(&copy), sizeof(T)));
        }
    });
    if (!ok) {
        return fail("dmx.unwritable-reference",
                    "references an element that is neither in the element index nor external",
                    attr_path(owner, a));
    }
    return success();
}

Result<void> BinaryWriter::run() {
    if (!binary_version_supported(ver_.v)) {
        return fail("dmx.unsupported",
                    fmt::format("binary encoding version {} is not supported (1-9)", ver_.v),
                    "header");
    }
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
    if (!w_.draining()) w_.reserve(estimate);
    std::string scratch;
    w_.text(header_text(doc_.header, scratch));
    w_.text(doc_.header.binary_eol);
    w_.u8(0);

    const std::vector<ElementRef> order = binary_element_order(doc_);
    if (order.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        return fail("dmx.too-large", "more than 2^31 elements", "element index");
    }
    file_index_.assign(doc_.size(), -1);
    for (std::size_t i = 0; i < order.size(); ++i) {
        file_index_[static_cast<std::size_t>(order[i].index)] = static_cast<std::int32_t>(i);
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
                LK_TRY(put_attribute(ElementRef::null(), p->attributes[k], true));
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
        table = binary_string_table(doc_, order, ver_.v);
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
    }

    w_.i32(static_cast<std::int32_t>(order.size()));
    for (ElementRef r : order) {
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
        w_.drain();
    }
    for (std::size_t i = 0; i < order.size(); ++i) {
        const ElementRef r = order[i];
        const Element& e = doc_[r];
        if (i + 1 < order.size()) prefetch_attributes(doc_[order[i + 1]]);
        w_.i32(static_cast<std::int32_t>(e.attributes.size()));
        for (const Attribute& a : e.attributes) LK_TRY(put_attribute(r, a, false));
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
