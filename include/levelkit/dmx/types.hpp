// DMX attribute types and their value structs.
//
// `Type` numbers follow binary encoding 9 (notes/dmx.md §2): scalars 1..16, arrays = scalar + 32.
// `elementid` (Valve's AT_OBJECTID, only in binary 1-2 and keyvalues2) has no v9 id and gets 17
// here. Every value struct has exactly the in-memory layout of its binary payload (little-endian
// floats/ints, no padding), so arrays are read and written with one copy.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lk::dmx {

enum class Type : std::uint8_t {
    element = 1,
    int32 = 2,
    float32 = 3,
    boolean = 4,
    string = 5,
    binary = 6,
    time = 7,
    color = 8,
    vector2 = 9,
    vector3 = 10,
    vector4 = 11,
    qangle = 12,
    quaternion = 13,
    matrix = 14,
    uint64 = 15,
    uint8 = 16,
    elementid = 17,

    element_array = 33,
    int32_array = 34,
    float32_array = 35,
    boolean_array = 36,
    string_array = 37,
    binary_array = 38,
    time_array = 39,
    color_array = 40,
    vector2_array = 41,
    vector3_array = 42,
    vector4_array = 43,
    qangle_array = 44,
    quaternion_array = 45,
    matrix_array = 46,
    uint64_array = 47,
    uint8_array = 48,
    elementid_array = 49,
};

inline constexpr int kArrayOffset = 32;
inline constexpr int kScalarTypeCount = 17;

constexpr bool is_valid(Type t) {
    const int v = static_cast<int>(t);
    return (v >= 1 && v <= kScalarTypeCount) ||
           (v > kArrayOffset && v <= kArrayOffset + kScalarTypeCount);
}
constexpr bool is_array(Type t) {
    return static_cast<int>(t) > kArrayOffset;
}
constexpr Type scalar_of(Type t) {
    return is_array(t) ? static_cast<Type>(static_cast<int>(t) - kArrayOffset) : t;
}
constexpr Type array_of(Type t) {
    return is_array(t) ? t : static_cast<Type>(static_cast<int>(t) + kArrayOffset);
}

// The keyvalues2 type name ("int", "vector3_array", ...).
std::string_view type_name(Type t);
// Inverse of type_name. Also accepts the historic spellings "void" (binary) and "angle" (qangle,
// written by Blender Source Tools) when `legacy_names` is true.
std::optional<Type> type_from_name(std::string_view name, bool legacy_names = true);

// A reference to an element of the same Document: its index, or null.
struct ElementRef {
    std::int32_t index = -1;
    constexpr bool is_null() const { return index < 0; }
    constexpr bool operator==(const ElementRef&) const = default;
    static constexpr ElementRef null() { return {}; }
};

// DmeTime_t: ticks of 1/10000 s.
struct Time {
    std::int32_t ticks = 0;
    static constexpr int kTicksPerSecond = 10000;
    constexpr double seconds() const { return static_cast<double>(ticks) / kTicksPerSecond; }
    constexpr bool operator==(const Time&) const = default;
};

struct Color {
    std::uint8_t r = 0, g = 0, b = 0, a = 0;
    constexpr bool operator==(const Color&) const = default;
};

struct Vector2 {
    float x = 0, y = 0;
    constexpr bool operator==(const Vector2&) const = default;
};
struct Vector3 {
    float x = 0, y = 0, z = 0;
    constexpr bool operator==(const Vector3&) const = default;
};
struct Vector4 {
    float x = 0, y = 0, z = 0, w = 0;
    constexpr bool operator==(const Vector4&) const = default;
};
// Pitch, yaw, roll in degrees.
struct QAngle {
    float x = 0, y = 0, z = 0;
    constexpr bool operator==(const QAngle&) const = default;
};
struct Quaternion {
    float x = 0, y = 0, z = 0, w = 0;
    constexpr bool operator==(const Quaternion&) const = default;
};
// VMatrix, row by row.
struct Matrix {
    std::array<float, 16> m{};
    constexpr bool operator==(const Matrix&) const = default;
};

// A 16-byte element id in UniqueId_t memory layout (a Windows GUID: Data1 u32 LE, Data2 u16 LE,
// Data3 u16 LE, Data4[8]); its text form is lower-case 8-4-4-4-12.
struct Guid {
    std::array<std::uint8_t, 16> bytes{};

    bool is_nil() const;
    std::string to_string() const;
    void append_to(std::string& out) const;
    // Accepts 8-4-4-4-12 hex in either case; nullopt for anything else.
    static std::optional<Guid> parse(std::string_view text);
    constexpr bool operator==(const Guid&) const = default;
    constexpr auto operator<=>(const Guid&) const = default;
};

struct GuidHash {
    std::size_t operator()(const Guid& g) const noexcept;
};

using Binary = std::vector<std::byte>;

static_assert(sizeof(ElementRef) == 4 && sizeof(Time) == 4 && sizeof(Color) == 4);
static_assert(sizeof(Vector2) == 8 && sizeof(Vector3) == 12 && sizeof(Vector4) == 16);
static_assert(sizeof(QAngle) == 12 && sizeof(Quaternion) == 16 && sizeof(Matrix) == 64);
static_assert(sizeof(Guid) == 16);

}  // namespace lk::dmx
