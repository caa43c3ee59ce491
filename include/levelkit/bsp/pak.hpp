// The pakfile lump: a ZIP archive embedded in a BSP (lump 40).
//
// levelkit reads and writes this small ZIP subset itself (on zlib and liblzma) because Source
// pakfiles may hold LZMA entries (method 14) that common ZIP libraries reject, and because an
// unchanged pak must write back byte-identical. Supported: stored (0), deflate (8) and LZMA (14)
// entries, data descriptors, archive comments, unknown extra fields, gaps, padding after the
// central directory and after the end record, directories whose offsets are relative to the BSP
// file instead of the lump, and the Xbox 360 "XZP2" layout (directory records without their
// extra fields, directory padded to the alignment named in the comment).
// Not supported: ZIP64, multi-disk and encrypted archives (parse errors).
//
// Every header field is kept as read (local and central copies separately, since tools may
// write them differently), so `write(parse(x)) == x`. `put()` and `remove()` edit entries;
// only the entries they touch get fresh headers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/result.hpp"

namespace lk::bsp {

enum class ZipMethod : std::uint16_t { stored = 0, deflate = 8, lzma = 14 };

// "stored", "deflate", "lzma", or "other" for a ZIP method number.
std::string_view method_name(std::uint16_t method);
// The method a name stands for ("stored", "deflate", "lzma"), or nullopt.
std::optional<ZipMethod> parse_method(std::string_view name);
// True if an entry name stays inside a directory when extracted there: relative, no "..",
// no drive letter.
bool safe_entry_name(std::string_view name);

// Fields that appear in both the local file header and the central directory record.
struct ZipHeader {
    std::uint16_t version_needed = 10;
    std::uint16_t flags = 0;
    std::uint16_t method = 0;
    std::uint16_t mod_time = 0;
    std::uint16_t mod_date = 0;
    std::uint32_t crc32 = 0;
    std::uint32_t compressed_size = 0;
    std::uint32_t uncompressed_size = 0;
    std::string name;
    Bytes extra;

    bool operator==(const ZipHeader&) const = default;
};

struct PakEntry {
    ZipHeader local;
    ZipHeader central;
    std::uint16_t version_made_by = 20;
    std::uint16_t disk_start = 0;
    std::uint16_t internal_attributes = 0;
    std::uint32_t external_attributes = 0;
    Bytes comment;
    Blob data;              // the stored bytes (compressed for deflate/LZMA)
    Bytes data_descriptor;  // raw descriptor after the data (general-purpose flag bit 3)
    Bytes gap_before;       // bytes between the previous record (or lump start) and this one
    // Xbox 360 "XZP2" archives write the extra/comment lengths into directory records but not
    // the bytes themselves; these keep the length fields for such archives.
    std::uint16_t directory_extra_length = 0;
    std::uint16_t directory_comment_length = 0;

    const std::string& name() const { return central.name; }
    std::uint16_t method() const { return central.method; }
    std::uint32_t size() const { return central.uncompressed_size; }
};

class Pak {
public:
    // Parses a pakfile lump. `lump_file_offset` is where the lump sits in its BSP, used to
    // recognise archives whose offsets count from the start of the BSP file.
    static Result<Pak> parse(Blob lump, std::uint64_t lump_file_offset = 0);

    // Serialises the archive; `lump_file_offset` is where it will sit in the output BSP (only
    // used for archives with file-relative offsets). Errors if offsets overflow 32 bits.
    Result<Bytes> write(std::uint64_t lump_file_offset = 0) const;

    // Entries in central directory order.
    const std::vector<PakEntry>& entries() const { return entries_; }
    // Lookup by path, ignoring ASCII case and treating '\' as '/'.
    const PakEntry* find(std::string_view name) const;

    // Decompresses an entry and checks its size and CRC-32.
    static Result<Bytes> contents(const PakEntry& e);

    // Adds an entry or replaces the contents of an existing one (same lookup as find()).
    Result<void> put(std::string_view name, ByteSpan contents, ZipMethod method);
    // Removes an entry; false if there was none.
    bool remove(std::string_view name);

    const Bytes& comment() const { return comment_; }
    bool offsets_relative_to_file() const { return file_relative_; }
    bool compact_directory() const { return compact_directory_; }

private:
    std::vector<PakEntry> entries_;
    // Local records in file order (indices into entries_), which need not match the central
    // directory order.
    std::vector<std::size_t> file_order_;
    Bytes gap_before_directory_;
    Bytes directory_padding_;  // bytes inside the directory size after the last record
    Bytes gap_before_end_;     // bytes between the directory and the end record
    bool compact_directory_ = false;
    std::uint16_t disk_number_ = 0;
    std::uint16_t directory_disk_ = 0;
    Bytes comment_;
    Bytes trailing_;  // bytes after the end record and its comment
    bool file_relative_ = false;
};

}  // namespace lk::bsp
