// Format-erased tools for compiled Source maps (the `levelkit bsp` commands and the Python
// package): the pakfile (the ZIP archive inside a BSP) listed, read and edited on a Document the
// bsp handler read.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/any/document.hpp"

namespace lk {

struct PakListing {
    std::string name;
    std::uint32_t size = 0;         // uncompressed
    std::uint32_t stored_size = 0;  // as stored (compressed)
    std::string method;             // "stored", "deflate", "lzma", "other"
    std::uint32_t crc32 = 0;
};

// Errors: "usage.not-bsp" if `map` is not a BSP document; the pakfile's own parse errors.
Result<std::vector<PakListing>> pak_list(const Document& map);
// An entry's contents, decompressed and CRC-checked ("pak.no-entry" if absent).
Result<Bytes> pak_read(const Document& map, std::string_view name);

struct PakChange {
    enum class Kind : std::uint8_t { put, remove } kind = Kind::put;
    std::string name;               // entry path inside the archive ('\' becomes '/')
    Bytes data;                     // for put
    std::string method = "stored";  // for put: stored, deflate or lzma
};
// The map with its pakfile changed (entries added, replaced or removed). Names must pass
// safe_pak_name; removing a missing entry is "pak.no-entry".
Result<std::unique_ptr<Document>> pak_edit(const Document& map, std::span<const PakChange> changes);

// True if a pakfile entry name stays inside a directory when extracted there.
bool safe_pak_name(std::string_view name);

}  // namespace lk
