// The WMB container: magic, list table, list bytes, and write-back.
#include "levelkit/wmb/wmb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "levelkit/core/text.hpp"

namespace lk::wmb {

namespace {

constexpr const char* kListNames[kMaxLists] = {
    "palettes",  "planes",     "textures", "vertices",  "pvs",
    "bsp_nodes", "materials",  "faces",    "lighting",  "aabb_hulls",
    "bsp_leafs", "bsp_blocks", "edges",    "edge_list", "models",
    "objects",   "lightmaps",  "blocks",   "legacy8",   "terrain_lightmaps",
};

// The smallest list count a shortened header may have: every version has at least the 16
// lists of WMB1..5.
constexpr std::size_t kMinLists = 16;

bool same_bytes(ByteSpan a, ByteSpan b) {
    if (a.size() != b.size()) return false;
    if (a.data() == b.data() || a.empty()) return true;
    return std::memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string list_name(std::size_t index) {
    if (index < kMaxLists) return kListNames[index];
    return "list" + std::to_string(index);
}

std::string list_path(std::size_t index) {
    return "list[" + std::to_string(index) + "]";
}

std::size_t standard_list_count(int version) {
    if (version <= 5) return 16;
    if (version == 6) return 19;
    return 20;
}

bool is_wmb(ByteSpan data) {
    return data.size() >= 4 && std::memcmp(data.data(), "WMB", 3) == 0 &&
           static_cast<char>(data[3]) >= '1' && static_cast<char>(data[3]) <= '9';
}

Result<File> read(Blob data, Diagnostics& warnings, const ReadOptions& opt) {
    const ByteSpan bytes = data.bytes();
    ByteReader r(bytes);
    if (bytes.size() < 4) {
        return Diagnostic::error("wmb.truncated", fmt::format("{} bytes are too short for the WMB "
                                                              "magic",
                                                              bytes.size()))
            .at_offset(0)
            .with_path("header/magic");
    }
    if (!is_wmb(bytes)) {
        return Diagnostic::error("wmb.bad-magic", "not a WMB file (magic " +
                                                      printable(as_text(bytes.first(4))) +
                                                      ", expected WMB1..WMB9)")
            .at_offset(0)
            .with_path("header/magic");
    }
    File f;
    std::memcpy(f.magic.data(), bytes.data(), 4);
    f.version = f.magic[3] - '0';
    std::size_t count = standard_list_count(f.version);
    if (!r.skip(4, "magic") || !r.check_count(count, 8, "header list table")) {
        return r.take_error().with_path("header");
    }
    std::vector<std::uint32_t> offsets(count), lengths(count);
    for (std::size_t i = 0; i < count; ++i) {
        offsets[i] = r.u32("list offset");
        lengths[i] = r.u32("list length");
    }
    // A header shorter than the standard one: its first list starts inside the standard table.
    // That start must then be exactly the end of a shorter table.
    std::uint64_t first = UINT64_MAX;
    for (std::size_t i = 0; i < count; ++i) {
        if (lengths[i] != 0 && offsets[i] >= 4) first = std::min<std::uint64_t>(first, offsets[i]);
    }
    const std::uint64_t table_end = 4 + 8 * static_cast<std::uint64_t>(count);
    if (first < table_end) {
        const std::uint64_t k = (first - 4) / 8;
        if ((first - 4) % 8 != 0 || k < kMinLists) {
            return Diagnostic::error("wmb.bad-offset",
                                     fmt::format("a list starts at byte {}, inside the {}-byte "
                                                 "list table",
                                                 first, table_end))
                .at_offset(4)
                .with_path("header");
        }
        count = static_cast<std::size_t>(k);
        offsets.resize(count);
        lengths.resize(count);
    }
    f.lists.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t off = offsets[i], len = lengths[i];
        if (len != 0 && (off > bytes.size() || len > bytes.size() - off)) {
            return Diagnostic::error("wmb.bad-list",
                                     fmt::format("list {} ({}) [{}, +{}) lies outside the file "
                                                 "(size {})",
                                                 i, list_name(i), off, len, bytes.size()))
                .at_offset(static_cast<std::int64_t>(4 + 8 * i))
                .with_path("header/" + list_path(i));
        }
        f.lists[i].offset = offsets[i];
        if (len != 0) f.lists[i].data = data.slice(off, len);
    }
    f.read_offsets = std::move(offsets);
    f.read_lengths = std::move(lengths);
    f.source = std::move(data);
    if (opt.decode) {
        auto v = decode(f, warnings, opt.strict);
        if (!v) return std::move(v).error();
        f.views = std::move(v).value();
    }
    return f;
}

Result<File> read(ByteSpan data, Diagnostics& warnings, const ReadOptions& opt) {
    return read(Blob::copy_of(data), warnings, opt);
}

Result<Bytes> write(const File& file) {
    const std::size_t n = file.lists.size();
    // Unchanged since read: the source, byte for byte.
    bool unchanged = !file.source.empty() && file.read_offsets.size() == n &&
                     file.read_lengths.size() == n && file.source.size() >= 4 &&
                     std::memcmp(file.source.bytes().data(), file.magic.data(), 4) == 0;
    for (std::size_t i = 0; unchanged && i < n; ++i) {
        const List& l = file.lists[i];
        if (l.offset != file.read_offsets[i] || l.size() != file.read_lengths[i]) {
            unchanged = false;
        } else if (!l.empty()) {
            unchanged = same_bytes(l.bytes(), file.source.bytes().subspan(l.offset, l.size()));
        }
    }
    if (unchanged) {
        const ByteSpan s = file.source.bytes();
        return Bytes(s.begin(), s.end());
    }

    // New layout: lists in their original order (by where they were read), new ones last.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto key = [&](std::size_t i) -> std::uint64_t {
        const bool had = i < file.read_offsets.size() && file.read_lengths[i] != 0;
        return had ? file.read_offsets[i] : UINT64_MAX;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    ByteWriter w;
    w.bytes(as_bytes(std::string_view(file.magic.data(), 4)));
    w.zeros(8 * n);
    for (std::size_t i : order) {
        const List& l = file.lists[i];
        if (l.empty()) continue;
        w.align(4);
        if (w.size() > UINT32_MAX || l.size() > UINT32_MAX - w.size()) {
            return Diagnostic::error("wmb.too-large",
                                     "the lists do not fit into a WMB file (4 GiB at most)")
                .with_path(list_path(i));
        }
        w.patch<std::uint32_t>(4 + 8 * i, static_cast<std::uint32_t>(w.size()));
        w.patch<std::uint32_t>(4 + 8 * i + 4, static_cast<std::uint32_t>(l.size()));
        w.bytes(l.bytes());
    }
    return w.take();
}

}  // namespace lk::wmb
