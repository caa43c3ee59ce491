#include "levelkit/dmx/types.hpp"

#include <array>
#include <cstring>
#include <unordered_map>

namespace lk::dmx {

namespace {

constexpr std::array<std::string_view, kScalarTypeCount + 1> kScalarNames = {
    "",       "element",    "int",    "float",   "bool",    "string",
    "binary", "time",       "color",  "vector2", "vector3", "vector4",
    "qangle", "quaternion", "matrix", "uint64",  "uint8",   "elementid",
};

constexpr std::array<std::string_view, kScalarTypeCount + 1> kArrayNames = {
    "",
    "element_array",
    "int_array",
    "float_array",
    "bool_array",
    "string_array",
    "binary_array",
    "time_array",
    "color_array",
    "vector2_array",
    "vector3_array",
    "vector4_array",
    "qangle_array",
    "quaternion_array",
    "matrix_array",
    "uint64_array",
    "uint8_array",
    "elementid_array",
};

// Hex digit values, -1 for anything else.
constexpr std::array<std::int8_t, 256> kHex = [] {
    std::array<std::int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int i = 0; i < 10; ++i) t['0' + i] = static_cast<std::int8_t>(i);
    for (int i = 0; i < 6; ++i) {
        t['a' + i] = static_cast<std::int8_t>(10 + i);
        t['A' + i] = static_cast<std::int8_t>(10 + i);
    }
    return t;
}();

}  // namespace

std::string_view type_name(Type t) {
    if (!is_valid(t)) return "";
    const int s = static_cast<int>(scalar_of(t));
    return is_array(t) ? kArrayNames[s] : kScalarNames[s];
}

std::optional<Type> type_from_name(std::string_view name, bool legacy_names) {
    static const std::unordered_map<std::string_view, Type> names = [] {
        std::unordered_map<std::string_view, Type> m;
        for (int i = 1; i <= kScalarTypeCount; ++i) {
            m.emplace(kScalarNames[i], static_cast<Type>(i));
            m.emplace(kArrayNames[i], static_cast<Type>(i + kArrayOffset));
        }
        return m;
    }();
    if (auto it = names.find(name); it != names.end()) return it->second;
    if (legacy_names) {
        if (name == "void") return Type::binary;
        if (name == "void_array") return Type::binary_array;
        if (name == "angle") return Type::qangle;
        if (name == "angle_array") return Type::qangle_array;
    }
    return std::nullopt;
}

bool Guid::is_nil() const {
    for (auto b : bytes) {
        if (b) return false;
    }
    return true;
}

void Guid::append_to(std::string& out) const {
    static constexpr char kHex[] = "0123456789abcdef";
    // Data1..Data3 are little-endian integers printed most significant byte first.
    static constexpr int kOrder[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    char buf[36];
    int o = 0;
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) buf[o++] = '-';
        const std::uint8_t b = bytes[kOrder[i]];
        buf[o++] = kHex[b >> 4];
        buf[o++] = kHex[b & 15];
    }
    out.append(buf, sizeof buf);
}

std::string Guid::to_string() const {
    std::string s;
    append_to(s);
    return s;
}

std::optional<Guid> Guid::parse(std::string_view text) {
    if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
        text[23] != '-') {
        return std::nullopt;
    }
    // Text position of each byte's high digit, in UniqueId_t byte order.
    static constexpr std::uint8_t kAt[16] = {6,  4,  2,  0,  11, 9,  16, 14,
                                             19, 21, 24, 26, 28, 30, 32, 34};
    Guid g;
    int bad = 0;
    for (int i = 0; i < 16; ++i) {
        const int hi = kHex[static_cast<unsigned char>(text[kAt[i]])];
        const int lo = kHex[static_cast<unsigned char>(text[kAt[i] + 1])];
        bad |= hi | lo;
        g.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    if (bad < 0) return std::nullopt;
    return g;
}

std::size_t GuidHash::operator()(const Guid& g) const noexcept {
    std::uint64_t a, b;
    std::memcpy(&a, g.bytes.data(), 8);
    std::memcpy(&b, g.bytes.data() + 8, 8);
    return static_cast<std::size_t>((a * 0x9E3779B97F4A7C15ull) ^
                                    (b + 0x632BE59BD9B4E019ull + (a >> 29)));
}

}  // namespace lk::dmx
