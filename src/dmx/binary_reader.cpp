#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "binary_common.hpp"
#include "internal.hpp"
#include "levelkit/core/text.hpp"

namespace lk::dmx::detail {

int binary_layout_version(const Header& h) {
    return h.legacy ? 1 : h.encoding_version;
}

bool binary_version_supported(int version) {
    return version >= 1 && version <= 9;
}

bool binary_can_hold(int version, Type t) {
    return id_from_type(BinVersion{version}, t).has_value();
}

namespace {

class BinaryReader {
public:
    BinaryReader(ByteSpan data, std::size_t body, Document& doc)
        : r_(data), doc_(doc), ver_{binary_layout_version(doc.header)} {
        (void)r_.seek(body, "body");
    }

    Result<void> run();

private:
    Diagnostic error(std::string path) {
        Diagnostic d = r_.take_error();
        if (!path.empty()) d.path = std::move(path);
        return d;
    }
    std::string element_path(std::size_t i) const {
        std::string p = fmt::format("element[{}]", i);
        if (i < doc_.size() && doc_.elements()[i].type.valid()) {
            p += ' ';
            p += doc_.elements()[i].type.str();
        }
        return p;
    }

    std::int32_t string_index() {
        return ver_.index_i32() ? r_.i32("string index") : r_.i16("string index");
    }
    // A table string; -1 gives "" and sets `null` when `allow_null`.
    std::string_view table_string(bool allow_null, bool* null) {
        const std::size_t at = r_.pos();
        const std::int32_t i = string_index();
        if (!r_.ok()) return {};
        if (i >= 0 && static_cast<std::size_t>(i) < table_.size()) return table_[i];
        if (i == -1 && allow_null) {
            if (null) *null = true;
            return {};
        }
        r_.fail_at(at, "dmx.bad-string-index",
                   fmt::format("string index {} is outside the string table ({} strings)", i,
                               table_.size()));
        return {};
    }
    Symbol table_symbol() {
        const std::size_t at = r_.pos();
        const std::int32_t i = string_index();
        if (!r_.ok()) return {};
        if (i < 0 || static_cast<std::size_t>(i) >= table_.size()) {
            r_.fail_at(at, "dmx.bad-string-index",
                       fmt::format("string index {} is outside the string table ({} strings)", i,
                                   table_.size()));
            return {};
        }
        Symbol& s = table_symbols_[static_cast<std::size_t>(i)];
        if (!s.valid()) s = doc_.intern(table_[static_cast<std::size_t>(i)]);
        return s;
    }
    Symbol name_symbol() {
        return ver_.has_table() ? table_symbol() : doc_.intern(r_.cstring("name"));
    }

    bool read_attribute(Attribute& a, bool prefix);
    bool read_element_ref(ElementRef& out);
    template <class T>
    bool read_pod_array(std::vector<T>& out);

    void read_prefix();
    void resolve_prefix();

    ByteReader r_;
    Document& doc_;
    BinVersion ver_;
    std::vector<std::string_view> table_;
    std::vector<Symbol> table_symbols_;
    std::int64_t element_count_ = -1;  // -1 while reading the prefix block
    std::vector<Attribute> prefix_attrs_;
    // External ("-2") references: GUID text -> index in externals_.
    std::unordered_map<std::string, std::int32_t> external_index_;
    std::vector<std::pair<Guid, std::string>> externals_;
};

// External references are encoded as -(3 + k) until every element is known.
constexpr std::int32_t external_marker(std::size_t k) {
    return -3 - static_cast<std::int32_t>(k);
}

bool BinaryReader::read_element_ref(ElementRef& out) {
    const std::size_t at = r_.pos();
    const std::int32_t i = r_.i32("element reference");
    if (!r_.ok()) return false;
    if (i == kNullRef) {
        out = ElementRef::null();
    } else if (i == kExternalRef) {
        const std::string_view text = r_.cstring("external element GUID");
        if (!r_.ok()) return false;
        auto g = Guid::parse(text);
        if (!g) {
            r_.fail_at(at, "dmx.bad-guid",
                       "external element reference has a malformed GUID '" + printable(text) + "'");
            return false;
        }
        auto [it, fresh] = external_index_.try_emplace(
            std::string(text), static_cast<std::int32_t>(externals_.size()));
        if (fresh) externals_.emplace_back(*g, std::string(text));
        out = ElementRef{external_marker(static_cast<std::size_t>(it->second))};
    } else if (i >= 0 && (element_count_ < 0 || i < element_count_)) {
        out = ElementRef{i};
    } else {
        r_.fail_at(at, "dmx.bad-element-index",
                   fmt::format("element reference {} is outside the element index ({} elements)", i,
                               element_count_));
        return false;
    }
    return true;
}

template <class T>
bool BinaryReader::read_pod_array(std::vector<T>& out) {
    const std::int32_t n = r_.i32("array count");
    if (!r_.ok()) return false;
    if (n < 0) {
        r_.fail_at(r_.pos() - 4, "dmx.bad-count", fmt::format("negative array count {}", n));
        return false;
    }
    if (!r_.check_count(static_cast<std::uint64_t>(n), sizeof(T), "array items")) return false;
    out.resize(static_cast<std::size_t>(n));
    const ByteSpan b = r_.bytes(out.size() * sizeof(T), "array items");
    if (!out.empty()) std::memcpy(out.data(), b.data(), b.size());
    fix_endian(std::span<T>(out));
    return true;
}

bool BinaryReader::read_attribute(Attribute& a, bool prefix) {
    const std::size_t type_at = r_.pos();
    const std::uint8_t id = r_.u8("attribute type");
    if (!r_.ok()) return false;
    const auto type = type_from_id(ver_, id);
    if (!type) {
        r_.fail_at(
            type_at, "dmx.bad-type",
            fmt::format("attribute type id {} is not defined in binary version {}", id, ver_.v));
        return false;
    }
    auto bool_byte = [&](bool& out) {
        const std::size_t at = r_.pos();
        const std::uint8_t b = r_.u8("bool value");
        if (b > 1) {
            r_.fail_at(at, "dmx.bad-bool", fmt::format("bool value {} is neither 0 nor 1", b));
            return false;
        }
        out = b != 0;
        return r_.ok();
    };
    auto binary = [&](Binary& out) {
        const std::size_t at = r_.pos();
        const std::int32_t n = r_.i32("binary length");
        if (!r_.ok()) return false;
        if (n < 0) {
            r_.fail_at(at, "dmx.bad-count", fmt::format("negative binary length {}", n));
            return false;
        }
        const ByteSpan b = r_.bytes(static_cast<std::size_t>(n), "binary data");
        out.assign(b.begin(), b.end());
        return r_.ok();
    };
    auto count = [&](std::size_t min_item) -> std::int32_t {
        const std::size_t at = r_.pos();
        const std::int32_t n = r_.i32("array count");
        if (!r_.ok()) return -1;
        if (n < 0) {
            r_.fail_at(at, "dmx.bad-count", fmt::format("negative array count {}", n));
            return -1;
        }
        if (!r_.check_count(static_cast<std::uint64_t>(n), min_item, "array items")) return -1;
        return n;
    };

    Value& v = a.value;
    switch (*type) {
        case Type::element: {
            ElementRef e;
            if (!read_element_ref(e)) return false;
            v = e;
            return true;
        }
        case Type::int32:
            v = r_.i32("int value");
            break;
        case Type::float32:
            v = r_.f32("float value");
            break;
        case Type::boolean: {
            bool b = false;
            if (!bool_byte(b)) return false;
            v = b;
            break;
        }
        case Type::string: {
            if (prefix || !ver_.values_in_table()) {
                v = std::string(r_.cstring("string value"));
            } else {
                v = std::string(table_string(true, &a.null_string));
            }
            break;
        }
        case Type::binary: {
            Binary b;
            if (!binary(b)) return false;
            v = std::move(b);
            break;
        }
        case Type::time:
            v = Time{r_.i32("time value")};
            break;
        case Type::color: {
            const ByteSpan b = r_.bytes(4, "color value");
            if (!r_.ok()) return false;
            v = Color{std::to_integer<std::uint8_t>(b[0]), std::to_integer<std::uint8_t>(b[1]),
                      std::to_integer<std::uint8_t>(b[2]), std::to_integer<std::uint8_t>(b[3])};
            break;
        }
        case Type::vector2:
            v = Vector2{r_.f32("vector2"), r_.f32("vector2")};
            break;
        case Type::vector3:
            v = Vector3{r_.f32("vector3"), r_.f32("vector3"), r_.f32("vector3")};
            break;
        case Type::vector4:
            v = Vector4{r_.f32("vector4"), r_.f32("vector4"), r_.f32("vector4"), r_.f32("vector4")};
            break;
        case Type::qangle:
            v = QAngle{r_.f32("qangle"), r_.f32("qangle"), r_.f32("qangle")};
            break;
        case Type::quaternion:
            v = Quaternion{r_.f32("quaternion"), r_.f32("quaternion"), r_.f32("quaternion"),
                           r_.f32("quaternion")};
            break;
        case Type::matrix: {
            Matrix m;
            for (float& f : m.m) f = r_.f32("matrix value");
            v = m;
            break;
        }
        case Type::uint64:
            v = r_.u64("uint64 value");
            break;
        case Type::uint8:
            v = r_.u8("uint8 value");
            break;
        case Type::elementid: {
            Guid g;
            const ByteSpan b = r_.bytes(16, "elementid value");
            if (!r_.ok()) return false;
            std::memcpy(g.bytes.data(), b.data(), 16);
            v = g;
            break;
        }
        case Type::element_array: {
            const std::int32_t n = count(4);
            if (n < 0) return false;
            std::vector<ElementRef> items(static_cast<std::size_t>(n));
            for (ElementRef& e : items) {
                if (!read_element_ref(e)) return false;
            }
            v = std::move(items);
            return true;
        }
        case Type::boolean_array: {
            const std::int32_t n = count(1);
            if (n < 0) return false;
            std::vector<bool> items(static_cast<std::size_t>(n));
            for (std::size_t i = 0; i < items.size(); ++i) {
                bool b = false;
                if (!bool_byte(b)) return false;
                items[i] = b;
            }
            v = std::move(items);
            break;
        }
        case Type::string_array: {
            const std::int32_t n = count(1);
            if (n < 0) return false;
            std::vector<std::string> items(static_cast<std::size_t>(n));
            for (std::string& s : items) {
                s = r_.cstring("string array item");
                if (!r_.ok()) return false;
            }
            v = std::move(items);
            break;
        }
        case Type::binary_array: {
            const std::int32_t n = count(4);
            if (n < 0) return false;
            std::vector<Binary> items(static_cast<std::size_t>(n));
            for (Binary& b : items) {
                if (!binary(b)) return false;
            }
            v = std::move(items);
            break;
        }
        default: {
            // Fixed-size arrays: one copy of the payload.
            v = Value::of_type(*type);
            bool ok = true;
            v.visit([&](auto& x) {
                using T = std::decay_t<decltype(x)>;
                if constexpr (requires {
                                  typename T::value_type;
                                  x.data();
                              } &&
                              !std::is_same_v<T, std::string> && !std::is_same_v<T, Binary> &&
                              !std::is_same_v<T, std::vector<bool>>) {
                    if constexpr (std::is_trivially_copyable_v<typename T::value_type>) {
                        ok = read_pod_array(x);
                    }
                }
            });
            if (!ok) return false;
            break;
        }
    }
    return r_.ok();
}

void BinaryReader::read_prefix() {
    const std::size_t at = r_.pos();
    const std::int32_t containers = r_.i32("prefix container count");
    if (!r_.ok()) return;
    if (containers < 0 || containers > 1) {
        r_.fail_at(at, containers < 0 ? "dmx.bad-count" : "dmx.unsupported",
                   fmt::format("prefix container count {} (only 0 or 1 is known)", containers));
        return;
    }
    doc_.binary.prefix_containers = containers;
    if (containers == 0) return;
    const std::int32_t n = r_.i32("prefix attribute count");
    if (!r_.ok()) return;
    if (n < 0) {
        r_.fail_at(r_.pos() - 4, "dmx.bad-count",
                   fmt::format("negative prefix attribute count {}", n));
        return;
    }
    if (!r_.check_count(static_cast<std::uint64_t>(n), 2, "prefix attributes")) return;
    prefix_attrs_.resize(static_cast<std::size_t>(n));
    for (Attribute& a : prefix_attrs_) {
        a.name = doc_.intern(r_.cstring("prefix attribute name"));
        if (!r_.ok() || !read_attribute(a, true)) return;
    }
}

Result<void> BinaryReader::run() {
    // "-->" is followed by a line break and one NUL (notes §1).
    {
        const std::size_t at = r_.pos();
        std::size_t p = at;
        const ByteSpan d = r_.data();
        while (p < d.size() && p - at < 4 && d[p] != std::byte{0}) ++p;
        if (p >= d.size() || d[p] != std::byte{0}) {
            r_.fail_at(at, "dmx.bad-header",
                       "binary header is not followed by a line break and NUL");
            return error("header");
        }
        const std::string_view eol = as_text(d.subspan(at, p - at));
        doc_.header.binary_eol = std::string(eol);
        (void)r_.seek(p + 1, "body");
    }
    if (ver_.has_prefix()) {
        read_prefix();
        if (!r_.ok()) return error("prefix");
    }
    if (ver_.has_table()) {
        const std::size_t at = r_.pos();
        const std::int32_t n =
            ver_.table_count_i32() ? r_.i32("string table count") : r_.i16("string table count");
        if (!r_.ok()) return error("string table");
        if (n < 0) {
            r_.fail_at(at, "dmx.bad-count", fmt::format("negative string table count {}", n));
            return error("string table");
        }
        if (!r_.check_count(static_cast<std::uint64_t>(n), 1, "string table")) {
            return error("string table");
        }
        table_.reserve(static_cast<std::size_t>(n));
        // A string twice would make two indices mean one string; writers never do that, and
        // the index a reference used could not be reproduced.
        std::unordered_set<std::string_view> seen;
        seen.reserve(static_cast<std::size_t>(n));
        for (std::int32_t i = 0; i < n; ++i) {
            const std::size_t entry_at = r_.pos();
            table_.push_back(r_.cstring("string table entry"));
            if (!r_.ok()) return error(fmt::format("string table[{}]", i));
            if (!seen.insert(table_.back()).second) {
                r_.fail_at(entry_at, "dmx.duplicate-string",
                           "string '" + printable(table_.back()) + "' is in the table twice");
                return error(fmt::format("string table[{}]", i));
            }
        }
        table_symbols_.resize(table_.size());
        doc_.binary.string_table.assign(table_.begin(), table_.end());
    }
    doc_.binary.version = ver_.v;
    doc_.binary.string_order = BinaryLayout::StringOrder::stored;
    doc_.binary.element_order = BinaryLayout::ElementOrder::stored;

    const std::size_t count_at = r_.pos();
    const std::int32_t n = r_.i32("element count");
    if (!r_.ok()) return error("element index");
    if (n < 0) {
        r_.fail_at(count_at, "dmx.bad-count", fmt::format("negative element count {}", n));
        return error("element index");
    }
    // An index entry is at least a type, a name and a 16-byte GUID.
    if (!r_.check_count(static_cast<std::uint64_t>(n), 18, "elements"))
        return error("element index");
    element_count_ = n;
    doc_.reserve(static_cast<std::size_t>(n) + 1);
    for (std::int32_t i = 0; i < n; ++i) {
        const Symbol type =
            ver_.has_table() ? table_symbol() : doc_.intern(r_.cstring("element type"));
        std::int32_t link = -1;
        if (ver_.has_link()) link = r_.i32("element link type");
        bool null_name = false;
        std::string_view name =
            ver_.names_in_table() ? table_string(true, &null_name) : r_.cstring("element name");
        const ByteSpan g = r_.bytes(16, "element GUID");
        if (!r_.ok()) return error(fmt::format("element index[{}]", i));
        Guid id;
        std::memcpy(id.bytes.data(), g.data(), 16);
        const ElementRef e = doc_.add_element({}, name, id);
        Element& el = doc_[e];
        el.type = type;
        el.link = link;
        el.null_name = null_name;
    }
    if (n > 0) doc_.root = ElementRef{0};

    for (std::int32_t i = 0; i < n; ++i) {
        Element& el = doc_[ElementRef{i}];
        const std::size_t at = r_.pos();
        const std::int32_t na = r_.i32("attribute count");
        if (!r_.ok()) return error(element_path(static_cast<std::size_t>(i)));
        if (na < 0) {
            r_.fail_at(at, "dmx.bad-count", fmt::format("negative attribute count {}", na));
            return error(element_path(static_cast<std::size_t>(i)));
        }
        if (!r_.check_count(static_cast<std::uint64_t>(na), 2, "attributes")) {
            return error(element_path(static_cast<std::size_t>(i)));
        }
        el.attributes.resize(static_cast<std::size_t>(na));
        for (Attribute& a : el.attributes) {
            a.name = name_symbol();
            if (!r_.ok() || !read_attribute(a, false)) {
                return error(element_path(static_cast<std::size_t>(i)) + "/attribute '" +
                             printable(a.name.str()) + "'");
            }
        }
    }
    if (!r_.at_end()) {
        r_.fail("dmx.trailing-data",
                fmt::format("{} bytes follow the last element body", r_.remaining()));
        return error("end");
    }
    resolve_prefix();
    if (!r_.ok()) return error("prefix");
    return success();
}

void BinaryReader::resolve_prefix() {
    const std::size_t n = static_cast<std::size_t>(element_count_);
    // Prefix element references were read before the element count was known.
    for (const Attribute& a : prefix_attrs_) {
        bool bad = false;
        auto check = [&](ElementRef r) { bad |= r.index >= static_cast<std::int32_t>(n); };
        if (auto* r = a.value.get_if<ElementRef>()) check(*r);
        if (auto* v = a.value.get_if<std::vector<ElementRef>>()) {
            for (ElementRef r : *v) check(r);
        }
        if (bad) {
            r_.fail_at(r_.pos(), "dmx.bad-element-index",
                       "prefix attribute '" + printable(a.name.str()) +
                           "' references an element outside the element index");
            return;
        }
    }
    // Externals get their final indices after the file's own elements.
    if (!externals_.empty()) {
        const auto base = static_cast<std::int32_t>(doc_.size());
        for (auto& [g, text] : externals_) {
            const ElementRef e = doc_.add_external(g);
            if (text != g.to_string()) doc_[e].id_text = text;
        }
        auto fix = [&](ElementRef& r) {
            if (r.index <= -3) r.index = base + (-3 - r.index);
        };
        auto fix_attrs = [&](std::vector<Attribute>& attrs) {
            for (Attribute& a : attrs) {
                if (auto* r = a.value.get_if<ElementRef>()) fix(*r);
                if (auto* v = a.value.get_if<std::vector<ElementRef>>()) {
                    for (ElementRef& r : *v) fix(r);
                }
            }
        };
        for (std::size_t i = 0; i < n; ++i) fix_attrs(doc_.elements()[i].attributes);
        fix_attrs(prefix_attrs_);
    }
    if (doc_.binary.prefix_containers <= 0 || prefix_attrs_.empty()) return;
    // Hammer writes the prefix attributes a second time as an unnamed, unreferenced element
    // (notes §3.7). Such an element *is* the prefix element; otherwise the prefix gets an
    // element of its own that is not part of the element index.
    auto same_attrs = [&](const Element& e) {
        if (e.attributes.size() != prefix_attrs_.size()) return false;
        for (std::size_t k = 0; k < prefix_attrs_.size(); ++k) {
            if (e.attributes[k].name != prefix_attrs_[k].name ||
                !(e.attributes[k].value == prefix_attrs_[k].value)) {
                return false;
            }
        }
        return true;
    };
    std::vector<char> referenced;
    for (std::size_t i = 1; i < n; ++i) {
        const Element& e = doc_.elements()[i];
        if (!e.name.empty() || !same_attrs(e)) continue;
        if (referenced.empty()) {
            referenced.assign(doc_.size(), 0);
            for (std::size_t k = 0; k < n; ++k) {
                doc_.for_each_ref(doc_.elements()[k], [&](const Attribute&, ElementRef r) {
                    if (doc_.valid(r)) referenced[static_cast<std::size_t>(r.index)] = 1;
                });
            }
        }
        if (referenced[i]) continue;
        doc_.prefix = ElementRef{static_cast<std::int32_t>(i)};
        return;
    }
    doc_.prefix = doc_.add_element("DmElement");
    doc_[doc_.prefix].attributes = std::move(prefix_attrs_);
}

}  // namespace

Result<void> read_binary(ByteSpan data, std::size_t body_offset, Document& doc) {
    const int v = binary_layout_version(doc.header);
    if (!binary_version_supported(v)) {
        return Diagnostic::error(
                   "dmx.unsupported",
                   fmt::format("binary encoding version {} is not supported (1-9)", v))
            .at_offset(0)
            .with_path("header");
    }
    BinaryReader reader(data, body_offset, doc);
    return reader.run();
}

}  // namespace lk::dmx::detail
