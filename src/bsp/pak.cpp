#include "levelkit/bsp/pak.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "levelkit/bsp/lzma.hpp"
#include "levelkit/core/text.hpp"

namespace lk::bsp {

namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50;
constexpr std::uint32_t kDescriptorSig = 0x08074b50;
constexpr std::size_t kCentralFixed = 46;
constexpr std::size_t kEndFixed = 22;
constexpr std::uint16_t kFlagDescriptor = 1 << 3;
constexpr std::uint16_t kFlagLzmaEndMarker = 1 << 1;
constexpr std::uint16_t kFlagEncrypted = 1 << 0;
// Version bytes at the start of an LZMA entry's data; readers ignore them.
constexpr std::uint8_t kLzmaSdkMajor = 9;
constexpr std::uint8_t kLzmaSdkMinor = 20;

Diagnostic pak_error(std::string code, std::string msg, std::int64_t offset, std::string path) {
    return Diagnostic::error(std::move(code), std::move(msg))
        .at_offset(offset)
        .with_path(std::move(path));
}

std::uint32_t crc_of(ByteSpan b) {
    uLong crc = crc32(0L, Z_NULL, 0);
    const auto* p = reinterpret_cast<const Bytef*>(b.data());
    std::size_t left = b.size();
    while (left > 0) {
        const uInt n = static_cast<uInt>(std::min<std::size_t>(left, 1u << 30));
        crc = crc32(crc, p, n);
        p += n;
        left -= n;
    }
    return static_cast<std::uint32_t>(crc);
}

bool names_match(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i] == '\\' ? '/' : a[i];
        char y = b[i] == '\\' ? '/' : b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

// Reads the fields shared by local and central headers, from `version_needed` on. For a local
// header the name/extra lengths follow directly; for a central one the caller reads them.
void read_common(ByteReader& r, ZipHeader& h) {
    h.version_needed = r.u16("version_needed");
    h.flags = r.u16("flags");
    h.method = r.u16("method");
    h.mod_time = r.u16("mod_time");
    h.mod_date = r.u16("mod_date");
    h.crc32 = r.u32("crc32");
    h.compressed_size = r.u32("compressed_size");
    h.uncompressed_size = r.u32("uncompressed_size");
}

void write_common(ByteWriter& w, const ZipHeader& h) {
    w.u16(h.version_needed);
    w.u16(h.flags);
    w.u16(h.method);
    w.u16(h.mod_time);
    w.u16(h.mod_date);
    w.u32(h.crc32);
    w.u32(h.compressed_size);
    w.u32(h.uncompressed_size);
}

Bytes to_bytes(ByteSpan s) {
    return Bytes(s.begin(), s.end());
}

Result<Bytes> inflate_raw(ByteSpan in, std::size_t size, const std::string& path) {
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
        return pak_error("bsp.pak-deflate", "zlib initialisation failed", -1, path);
    }
    // Grow the output with what actually inflates, so a forged size costs nothing. zlib needs a
    // non-null output buffer even for an empty entry.
    Bytes out(std::max<std::size_t>(
        1, std::min<std::size_t>(size, std::max<std::size_t>(1 << 16, in.size() * 4))));
    zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data()));
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), UINT32_MAX));
    int rc = Z_OK;
    for (;;) {
        zs.next_out = reinterpret_cast<Bytef*>(out.data()) + zs.total_out;
        zs.avail_out =
            static_cast<uInt>(std::min<std::size_t>(out.size() - zs.total_out, UINT32_MAX));
        rc = inflate(&zs, Z_FINISH);
        if (rc == Z_STREAM_END) break;
        const bool out_full = zs.avail_out == 0;
        if ((rc != Z_OK && rc != Z_BUF_ERROR) || !out_full || out.size() >= size) break;
        out.resize(std::min(size, out.size() * 2));
    }
    const std::size_t produced = zs.total_out;
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || produced != size) {
        return pak_error(
            "bsp.pak-deflate",
            fmt::format("deflate data is corrupt or truncated ({} of {} bytes)", produced, size),
            -1, path);
    }
    out.resize(size);
    return out;
}

Result<Bytes> deflate_raw(ByteSpan in) {
    z_stream zs{};
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        return Diagnostic::error("bsp.pak-deflate", "zlib initialisation failed");
    }
    Bytes out(deflateBound(&zs, static_cast<uLong>(in.size())));
    zs.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&zs, Z_FINISH);
    const std::size_t produced = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) return Diagnostic::error("bsp.pak-deflate", "deflate failed");
    out.resize(produced);
    return out;
}

// Finds the end-of-central-directory record: the last signature whose comment length is
// consistent with the data that follows it.
std::optional<std::size_t> find_end_record(ByteSpan d) {
    if (d.size() < kEndFixed) return std::nullopt;
    const std::size_t lowest = d.size() > kEndFixed + 0xFFFF ? d.size() - kEndFixed - 0xFFFF : 0;
    std::optional<std::size_t> loose;
    for (std::size_t pos = d.size() - kEndFixed + 1; pos-- > lowest;) {
        if (load<std::uint32_t>(d.data() + pos, Endian::little) != kEndSig) continue;
        const std::uint16_t comment = load<std::uint16_t>(d.data() + pos + 20, Endian::little);
        if (pos + kEndFixed + comment == d.size()) return pos;
        if (!loose && pos + kEndFixed + comment <= d.size()) loose = pos;
    }
    return loose;
}

}  // namespace

Result<Pak> Pak::parse(Blob lump, std::uint64_t lump_file_offset) {
    const ByteSpan d = lump.bytes();
    Pak pak;
    const auto base = static_cast<std::int64_t>(lump_file_offset);
    const auto end_pos = find_end_record(d);
    if (!end_pos) {
        return pak_error("bsp.pak-no-end-record", "no ZIP end-of-central-directory record",
                         base + static_cast<std::int64_t>(d.size()), "pak");
    }
    ByteReader r(d, Endian::little, lump_file_offset);
    r.seek(*end_pos + 4, "pak/end");
    pak.disk_number_ = r.u16("pak/end/disk_number");
    pak.directory_disk_ = r.u16("pak/end/directory_disk");
    const std::uint16_t on_disk = r.u16("pak/end/entries_on_disk");
    const std::uint16_t total = r.u16("pak/end/entries");
    const std::uint32_t dir_size = r.u32("pak/end/directory_size");
    std::uint64_t dir_offset = r.u32("pak/end/directory_offset");
    const std::uint16_t comment_len = r.u16("pak/end/comment_length");
    pak.comment_ = to_bytes(r.bytes(comment_len, "pak/end/comment"));
    if (!r.ok()) return r.take_error();
    pak.trailing_ = to_bytes(d.subspan(r.pos()));
    pak.compact_directory_ =
        pak.comment_.size() >= 4 && std::memcmp(pak.comment_.data(), "XZP2", 4) == 0;
    if (pak.disk_number_ != 0 || pak.directory_disk_ != 0 || on_disk != total) {
        return pak_error("bsp.pak-unsupported", "multi-disk ZIP archives are not supported",
                         base + static_cast<std::int64_t>(*end_pos), "pak/end");
    }
    if (total == 0xFFFF || dir_size == 0xFFFFFFFF || dir_offset == 0xFFFFFFFF) {
        return pak_error("bsp.pak-unsupported", "ZIP64 archives are not supported",
                         base + static_cast<std::int64_t>(*end_pos), "pak/end");
    }
    // Some tools write offsets counted from the start of the BSP file, not the lump.
    auto dir_fits = [&](std::uint64_t off) {
        return off <= *end_pos && dir_size <= *end_pos - off;
    };
    if (!dir_fits(dir_offset) && dir_offset >= lump_file_offset &&
        dir_fits(dir_offset - lump_file_offset)) {
        pak.file_relative_ = true;
        dir_offset -= lump_file_offset;
    }
    if (!dir_fits(dir_offset)) {
        return pak_error("bsp.pak-bad-directory",
                         fmt::format("central directory at {} (+{} bytes) lies outside the "
                                     "archive",
                                     dir_offset, dir_size),
                         base + static_cast<std::int64_t>(*end_pos) + 16,
                         "pak/end/directory_offset");
    }
    const std::uint64_t rel = pak.file_relative_ ? lump_file_offset : 0;

    // Central directory.
    ByteReader c = r.slice(dir_offset, dir_size, "pak/directory");
    if (!c.check_count(total, kCentralFixed, "pak/end/entries")) return c.take_error();
    pak.entries_.resize(total);
    std::vector<std::uint64_t> local_offsets(total);
    for (std::size_t i = 0; i < total; ++i) {
        const std::string path = fmt::format("pak/entry[{}]", i);
        PakEntry& e = pak.entries_[i];
        if (c.u32(path) != kCentralSig && c.ok()) {
            return pak_error("bsp.pak-bad-directory", "central directory record signature missing",
                             static_cast<std::int64_t>(c.abs_pos()) - 4, path);
        }
        e.version_made_by = c.u16("version_made_by");
        read_common(c, e.central);
        const std::uint16_t name_len = c.u16("name_length");
        const std::uint16_t extra_len = c.u16("extra_length");
        const std::uint16_t comment = c.u16("comment_length");
        e.disk_start = c.u16("disk_start");
        e.internal_attributes = c.u16("internal_attributes");
        e.external_attributes = c.u32("external_attributes");
        const std::uint32_t local = c.u32("local_header_offset");
        e.central.name = std::string(as_text(c.bytes(name_len, "name")));
        if (pak.compact_directory_) {
            e.directory_extra_length = extra_len;
            e.directory_comment_length = comment;
        } else {
            e.central.extra = to_bytes(c.bytes(extra_len, "extra"));
            e.comment = to_bytes(c.bytes(comment, "comment"));
        }
        if (!c.ok()) return std::move(c.take_error().with_path(path + "/central"));
        if (local < rel) {
            return pak_error("bsp.pak-bad-offset", "local header offset before the archive",
                             static_cast<std::int64_t>(c.abs_pos()), path + "/local_header_offset");
        }
        local_offsets[i] = local - rel;
    }
    pak.directory_padding_ = to_bytes(c.bytes(c.remaining(), "pak/directory"));
    pak.gap_before_end_ =
        to_bytes(d.subspan(dir_offset + dir_size, *end_pos - dir_offset - dir_size));

    // Local records, walked in file order so the gaps between them are kept.
    pak.file_order_.resize(total);
    std::iota(pak.file_order_.begin(), pak.file_order_.end(), std::size_t{0});
    std::stable_sort(
        pak.file_order_.begin(), pak.file_order_.end(),
        [&](std::size_t a, std::size_t b) { return local_offsets[a] < local_offsets[b]; });
    std::uint64_t cursor = 0;
    for (std::size_t i : pak.file_order_) {
        const std::string path = fmt::format("pak/entry[{}]", i);
        PakEntry& e = pak.entries_[i];
        const std::uint64_t at = local_offsets[i];
        if (at < cursor || at > dir_offset) {
            return pak_error("bsp.pak-bad-offset", "local records overlap or follow the directory",
                             base + static_cast<std::int64_t>(at), path + "/local_header_offset");
        }
        e.gap_before = to_bytes(d.subspan(cursor, at - cursor));
        ByteReader l = r.slice(at, dir_offset - at, path);
        if (l.u32(path) != kLocalSig && l.ok()) {
            return pak_error("bsp.pak-bad-local", "local file header signature missing",
                             base + static_cast<std::int64_t>(at), path);
        }
        read_common(l, e.local);
        const std::uint16_t name_len = l.u16("name_length");
        const std::uint16_t extra_len = l.u16("extra_length");
        e.local.name = std::string(as_text(l.bytes(name_len, "name")));
        e.local.extra = to_bytes(l.bytes(extra_len, "extra"));
        if (!l.ok()) return std::move(l.take_error().with_path(path + "/local"));
        if (e.central.flags & kFlagEncrypted) {
            return pak_error("bsp.pak-unsupported", "encrypted entries are not supported",
                             base + static_cast<std::int64_t>(at), path + "/flags");
        }
        const std::size_t data_at = l.pos();
        if (!l.need(e.central.compressed_size, "data")) {
            return std::move(l.take_error().with_path(path + "/data"));
        }
        e.data = lump.slice(at + data_at, e.central.compressed_size);
        l.skip(e.central.compressed_size, "data");
        if (e.local.flags & kFlagDescriptor) {
            const bool has_sig =
                l.remaining() >= 4 &&
                load<std::uint32_t>(l.data().data() + l.pos(), Endian::little) == kDescriptorSig;
            e.data_descriptor = to_bytes(l.bytes(has_sig ? 16 : 12, "data_descriptor"));
            if (!l.ok()) return std::move(l.take_error().with_path(path + "/data_descriptor"));
        }
        cursor = at + l.pos();
    }
    pak.gap_before_directory_ = to_bytes(d.subspan(cursor, dir_offset - cursor));
    return pak;
}

Result<Bytes> Pak::write(std::uint64_t lump_file_offset) const {
    ByteWriter w(Endian::little);
    const std::uint64_t rel = file_relative_ ? lump_file_offset : 0;
    std::vector<std::uint64_t> offsets(entries_.size());
    for (std::size_t i : file_order_) {
        const PakEntry& e = entries_[i];
        w.bytes(e.gap_before);
        offsets[i] = w.size() + rel;
        w.u32(kLocalSig);
        write_common(w, e.local);
        w.u16(static_cast<std::uint16_t>(e.local.name.size()));
        w.u16(static_cast<std::uint16_t>(e.local.extra.size()));
        w.text(e.local.name);
        w.bytes(e.local.extra);
        w.bytes(e.data.bytes());
        w.bytes(e.data_descriptor);
    }
    w.bytes(gap_before_directory_);
    const std::uint64_t dir_offset = w.size() + rel;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const PakEntry& e = entries_[i];
        if (offsets[i] > UINT32_MAX) {
            return Diagnostic::error("bsp.pak-too-large", "pakfile exceeds 4 GiB")
                .with_path(fmt::format("pak/entry[{}]", i));
        }
        w.u32(kCentralSig);
        w.u16(e.version_made_by);
        write_common(w, e.central);
        w.u16(static_cast<std::uint16_t>(e.central.name.size()));
        w.u16(compact_directory_ ? e.directory_extra_length
                                 : static_cast<std::uint16_t>(e.central.extra.size()));
        w.u16(compact_directory_ ? e.directory_comment_length
                                 : static_cast<std::uint16_t>(e.comment.size()));
        w.u16(e.disk_start);
        w.u16(e.internal_attributes);
        w.u32(e.external_attributes);
        w.u32(static_cast<std::uint32_t>(offsets[i]));
        w.text(e.central.name);
        if (!compact_directory_) {
            w.bytes(e.central.extra);
            w.bytes(e.comment);
        }
    }
    w.bytes(directory_padding_);
    const std::uint64_t dir_size = w.size() + rel - dir_offset;
    w.bytes(gap_before_end_);
    if (dir_offset > UINT32_MAX || entries_.size() >= 0xFFFF) {
        return Diagnostic::error("bsp.pak-too-large",
                                 "pakfile needs ZIP64 (over 4 GiB or 65535 entries)")
            .with_path("pak");
    }
    w.u32(kEndSig);
    w.u16(disk_number_);
    w.u16(directory_disk_);
    w.u16(static_cast<std::uint16_t>(entries_.size()));
    w.u16(static_cast<std::uint16_t>(entries_.size()));
    w.u32(static_cast<std::uint32_t>(dir_size));
    w.u32(static_cast<std::uint32_t>(dir_offset));
    w.u16(static_cast<std::uint16_t>(comment_.size()));
    w.bytes(comment_);
    w.bytes(trailing_);
    return w.take();
}

const PakEntry* Pak::find(std::string_view name) const {
    for (const PakEntry& e : entries_) {
        if (names_match(e.name(), name)) return &e;
    }
    return nullptr;
}

Result<Bytes> Pak::contents(const PakEntry& e) {
    const std::string path = "pak/" + e.name();
    const ByteSpan in = e.data.bytes();
    const std::size_t size = e.central.uncompressed_size;
    Bytes out;
    switch (e.central.method) {
        case static_cast<std::uint16_t>(ZipMethod::stored):
            if (in.size() != size) {
                return pak_error(
                    "bsp.pak-size",
                    fmt::format("stored entry has {} bytes, header says {}", in.size(), size), -1,
                    path);
            }
            out = to_bytes(in);
            break;
        case static_cast<std::uint16_t>(ZipMethod::deflate): {
            LK_TRY_ASSIGN(out, inflate_raw(in, size, path));
            break;
        }
        case static_cast<std::uint16_t>(ZipMethod::lzma): {
            // ZIP's LZMA framing: version (2 bytes), properties size (u16), properties.
            if (in.size() < 9 || load<std::uint16_t>(in.data() + 2, Endian::little) != 5) {
                return pak_error("bsp.pak-lzma", "bad LZMA entry header", -1, path);
            }
            LzmaProperties props;
            std::memcpy(props.bytes.data(), in.data() + 4, 5);
            auto r = lzma1_decode(props, in.subspan(9), size,
                                  (e.central.flags & kFlagLzmaEndMarker) != 0);
            if (!r) return std::move(std::move(r).error().with_path(path));
            out = std::move(r).value();
            break;
        }
        default:
            return pak_error("bsp.pak-method",
                             fmt::format("unsupported compression method {}", e.central.method), -1,
                             path);
    }
    if (crc_of(out) != e.central.crc32) {
        return pak_error("bsp.pak-crc", "CRC-32 mismatch", -1, path);
    }
    return out;
}

Result<void> Pak::put(std::string_view name, ByteSpan contents, ZipMethod method) {
    std::string norm(name);
    std::replace(norm.begin(), norm.end(), '\\', '/');
    if (norm.empty() || norm.size() > 0xFFFF) {
        return Diagnostic::error("bsp.pak-name", "entry name is empty or too long");
    }
    if (contents.size() > UINT32_MAX) {
        return Diagnostic::error("bsp.pak-too-large", "entry exceeds 4 GiB")
            .with_path("pak/" + norm);
    }
    Bytes stored;
    std::uint16_t needed = 10;
    switch (method) {
        case ZipMethod::stored:
            stored = to_bytes(contents);
            break;
        case ZipMethod::deflate: {
            LK_TRY_ASSIGN(stored, deflate_raw(contents));
            needed = 20;
            break;
        }
        case ZipMethod::lzma: {
            LzmaProperties props;
            LK_TRY_ASSIGN(Bytes stream, lzma1_encode(contents, props));
            stored.reserve(stream.size() + 9);
            stored.push_back(std::byte{kLzmaSdkMajor});
            stored.push_back(std::byte{kLzmaSdkMinor});
            stored.push_back(std::byte{5});
            stored.push_back(std::byte{0});
            for (std::uint8_t b : props.bytes) stored.push_back(std::byte{b});
            stored.insert(stored.end(), stream.begin(), stream.end());
            needed = 63;
            break;
        }
    }
    if (stored.size() > UINT32_MAX) {
        return Diagnostic::error("bsp.pak-too-large", "entry exceeds 4 GiB")
            .with_path("pak/" + norm);
    }
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const PakEntry& e) { return names_match(e.name(), norm); });
    if (it == entries_.end()) {
        PakEntry e;
        e.central.name = norm;
        e.local.name = norm;
        entries_.push_back(std::move(e));
        file_order_.push_back(entries_.size() - 1);
        it = entries_.end() - 1;
    }
    const std::uint32_t crc = crc_of(contents);
    for (ZipHeader* h : {&it->local, &it->central}) {
        h->version_needed = needed;
        h->flags &= static_cast<std::uint16_t>(~(kFlagDescriptor | kFlagLzmaEndMarker));
        h->method = static_cast<std::uint16_t>(method);
        h->crc32 = crc;
        h->compressed_size = static_cast<std::uint32_t>(stored.size());
        h->uncompressed_size = static_cast<std::uint32_t>(contents.size());
    }
    it->data_descriptor.clear();
    it->data = Blob::from_bytes(std::move(stored));
    return success();
}

bool Pak::remove(std::string_view name) {
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const PakEntry& e) { return names_match(e.name(), name); });
    if (it == entries_.end()) return false;
    const std::size_t idx = static_cast<std::size_t>(it - entries_.begin());
    entries_.erase(it);
    std::vector<std::size_t> order;
    order.reserve(file_order_.size());
    for (std::size_t i : file_order_) {
        if (i == idx) continue;
        order.push_back(i > idx ? i - 1 : i);
    }
    file_order_ = std::move(order);
    return true;
}

std::string_view method_name(std::uint16_t m) {
    switch (m) {
        case 0:
            return "stored";
        case 8:
            return "deflate";
        case 14:
            return "lzma";
        default:
            return "other";
    }
}

std::optional<ZipMethod> parse_method(std::string_view name) {
    if (name == "stored") return ZipMethod::stored;
    if (name == "deflate") return ZipMethod::deflate;
    if (name == "lzma") return ZipMethod::lzma;
    return std::nullopt;
}

bool safe_entry_name(std::string_view name) {
    if (name.empty() || name.front() == '/' || name.front() == '\\') return false;
    if (name.size() > 1 && name[1] == ':') return false;
    // Both separators count: an archive made on Windows may use either.
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t end = name.find_first_of("/\\", start);
        const std::string_view part = name.substr(
            start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (part == "..") return false;
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return true;
}

}  // namespace lk::bsp
