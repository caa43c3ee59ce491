// Binary encoding facts shared by the binary reader and writer (notes/dmx.md §3.1-§3.2).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

#include "levelkit/core/bytes.hpp"
#include "levelkit/dmx/types.hpp"

namespace lk::dmx::detail {

// What changes between binary versions, as a table-driven description.
struct BinVersion {
    int v = 0;
    bool has_table() const { return v >= 2; }
    bool table_count_i32() const { return v >= 4; }
    bool index_i32() const { return v >= 5; }
    bool names_in_table() const { return v >= 4; }
    bool values_in_table() const { return v >= 4; }
    bool has_link() const { return v == 6 || v == 7; }
    bool has_prefix() const { return v >= 7; }
    bool v9_ids() const { return v >= 9; }
    // Id 7 means elementid (AT_OBJECTID) in versions 1-2 and time from version 3 on.
    bool objectid() const { return v <= 2; }
};

inline std::optional<Type> type_from_id(const BinVersion& ver, std::uint8_t id) {
    const int array_base = ver.v9_ids() ? kArrayOffset : 14;
    const int last_scalar = ver.v9_ids() ? 16 : 14;
    const bool array = id > array_base;
    const int s = array ? id - array_base : id;
    if (s < 1 || s > last_scalar) return std::nullopt;
    Type t = static_cast<Type>(s);
    if (s == 7 && ver.objectid()) t = Type::elementid;
    return array ? array_of(t) : t;
}

inline std::optional<std::uint8_t> id_from_type(const BinVersion& ver, Type t) {
    const Type s = scalar_of(t);
    int id;
    if (s == Type::elementid) {
        if (!ver.objectid()) return std::nullopt;
        id = 7;
    } else if (s == Type::time) {
        if (ver.objectid()) return std::nullopt;
        id = 7;
    } else if (s == Type::uint64 || s == Type::uint8) {
        if (!ver.v9_ids()) return std::nullopt;
        id = static_cast<int>(s);
    } else {
        id = static_cast<int>(s);
    }
    if (is_array(t)) id += ver.v9_ids() ? kArrayOffset : 14;
    return static_cast<std::uint8_t>(id);
}

// Element reference markers (notes §3.5).
inline constexpr std::int32_t kNullRef = -1;
inline constexpr std::int32_t kExternalRef = -2;

// DMX is little-endian; on a big-endian host the copied words are swapped in place.
template <class T>
void fix_endian(std::span<T> items) {
    if constexpr (std::endian::native == std::endian::little) {
        (void)items;
    } else {
        constexpr std::size_t word = sizeof(T) % 8 == 0 && sizeof(T) == 8 ? 8 : 4;
        if constexpr (sizeof(T) >= 4 && !std::is_same_v<T, Guid>) {
            auto* p = reinterpret_cast<std::byte*>(items.data());
            for (std::size_t i = 0; i < items.size_bytes(); i += word) {
                if constexpr (word == 8) {
                    store<std::uint64_t>(p + i, load<std::uint64_t>(p + i, Endian::big),
                                         Endian::little);
                } else {
                    store<std::uint32_t>(p + i, load<std::uint32_t>(p + i, Endian::big),
                                         Endian::little);
                }
            }
        }
    }
}

}  // namespace lk::dmx::detail
