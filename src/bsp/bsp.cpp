#include "levelkit/bsp/bsp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "levelkit/bsp/lzma.hpp"

namespace lk::bsp {

namespace {

constexpr std::array<std::string_view, kLumpCount> kLumpNames = {
    "entities",
    "planes",
    "texdata",
    "vertexes",
    "visibility",
    "nodes",
    "texinfo",
    "faces",
    "lighting",
    "occlusion",
    "leafs",
    "faceids",
    "edges",
    "surfedges",
    "models",
    "worldlights",
    "leaffaces",
    "leafbrushes",
    "brushes",
    "brushsides",
    "areas",
    "areaportals",
    "propcollision",
    "prophulls",
    "prophullverts",
    "proptris",
    "dispinfo",
    "originalfaces",
    "physdisp",
    "physcollide",
    "vertnormals",
    "vertnormalindices",
    "disp_lightmap_alphas",
    "disp_verts",
    "disp_lightmap_sample_positions",
    "game_lump",
    "leafwaterdata",
    "primitives",
    "primverts",
    "primindices",
    "pakfile",
    "clipportalverts",
    "cubemaps",
    "texdata_string_data",
    "texdata_string_table",
    "overlays",
    "leafmindisttowater",
    "face_macro_texture_info",
    "disp_tris",
    "physcollidesurface",
    "wateroverlays",
    "leaf_ambient_index_hdr",
    "leaf_ambient_index",
    "lighting_hdr",
    "worldlights_hdr",
    "leaf_ambient_lighting_hdr",
    "leaf_ambient_lighting",
    "xzippakfile",
    "faces_hdr",
    "map_flags",
    "overlay_fades",
    "overlay_system_levels",
    "physlevel",
    "disp_multiblend",
};

constexpr std::size_t kLumpEntrySize = 16;
constexpr std::size_t kGameLumpEntrySize = 16;
constexpr std::uint32_t kPakAlignment = 2048;

std::uint64_t pad_to(std::uint64_t pos, std::uint64_t alignment) {
    if (alignment <= 1) return 0;
    return (alignment - pos % alignment) % alignment;
}

bool all_zero(ByteSpan b) {
    return std::all_of(b.begin(), b.end(), [](std::byte x) { return x == std::byte{0}; });
}

// Describes the bytes found between two blocks by the simplest rule that reproduces them.
Gap classify_gap(ByteSpan bytes, std::uint64_t position, std::uint32_t default_alignment) {
    Gap g;
    if (all_zero(bytes)) {
        if (bytes.size() == pad_to(position, default_alignment)) {
            g.alignment = default_alignment;
            return g;
        }
        if (bytes.size() == pad_to(position, kPakAlignment)) {
            g.alignment = kPakAlignment;
            return g;
        }
    }
    g.alignment = 1;
    g.raw = Bytes(bytes.begin(), bytes.end());
    return g;
}

void write_gap(ByteWriter& w, const Gap& g, std::uint64_t position) {
    if (g.raw) {
        w.bytes(*g.raw);
    } else {
        w.zeros(g.size_at(position));
    }
}

Diagnostic lump_error(std::string code, int index, std::string message, std::int64_t offset,
                      std::string_view field) {
    return Diagnostic::error(std::move(code),
                             fmt::format("lump {} ({}): {}", index, lump_name(index), message))
        .at_offset(offset)
        .with_path(fmt::format("lump[{}]{}{}", index, field.empty() ? "" : "/", field));
}

struct RawEntry {
    std::int64_t a = 0, b = 0, c = 0;
    std::uint32_t fourcc = 0;
};

struct Candidate {
    std::int64_t offset, length;
    std::int32_t version;
};

Candidate decode_entry(const RawEntry& e, HeaderLayout layout) {
    if (layout == HeaderLayout::l4d2) {
        return {e.b, e.c, static_cast<std::int32_t>(e.a)};
    }
    return {e.a, e.b, static_cast<std::int32_t>(e.c)};
}

// How many non-empty lumps lie within the file (after the header) in this field order.
int lumps_fitting(const std::vector<RawEntry>& raw, HeaderLayout layout, std::size_t header,
                  std::size_t file_size) {
    int n = 0;
    for (const RawEntry& e : raw) {
        const Candidate c = decode_entry(e, layout);
        if (c.length == 0) continue;
        if (c.offset >= static_cast<std::int64_t>(header) && c.length > 0 &&
            static_cast<std::uint64_t>(c.offset) + static_cast<std::uint64_t>(c.length) <=
                file_size) {
            ++n;
        } else {
            --n;
        }
    }
    return n;
}

// Version 21 files come in two lump_t field orders (Left 4 Dead 2 moved `version` to the
// front); the order under which more lumps lie inside the file is the right one (so one damaged
// entry does not flip the choice). On a tie, a zero first word (a lump version rather than an
// offset) decides.
HeaderLayout detect_v21_layout(const std::vector<RawEntry>& raw, std::size_t header,
                               std::size_t file_size) {
    const int std_fit = lumps_fitting(raw, HeaderLayout::standard, header, file_size);
    const int l4d2_fit = lumps_fitting(raw, HeaderLayout::l4d2, header, file_size);
    return l4d2_fit > std_fit || (l4d2_fit == std_fit && raw[0].a == 0) ? HeaderLayout::l4d2
                                                                        : HeaderLayout::standard;
}

}  // namespace

std::string_view lump_name(int index) {
    if (index < 0 || index >= kLumpCount) return "lump";
    return kLumpNames[static_cast<std::size_t>(index)];
}

std::string lump_path(int index) {
    return fmt::format("lump[{}]", index);
}

std::size_t Gap::size_at(std::uint64_t position) const {
    if (raw) return raw->size();
    std::uint64_t pad = pad_to(position, alignment);
    while (pad < min_size) pad += std::max<std::uint32_t>(alignment, 1);
    return static_cast<std::size_t>(pad);
}

std::string fourcc_string(std::uint32_t id) {
    std::string s;
    for (int shift = 24; shift >= 0; shift -= 8) {
        const auto ch = static_cast<unsigned char>((id >> shift) & 0xFF);
        if (ch >= 0x20 && ch < 0x7F && ch != '\\') {
            s += static_cast<char>(ch);
        } else {
            s += fmt::format("\\x{:02x}", ch);
        }
    }
    return s;
}

std::size_t Bsp::header_size() const {
    return 8 + (layout_ == HeaderLayout::contagion ? 4 : 0) + kLumpCount * kLumpEntrySize + 4;
}

std::vector<int> Bsp::index_order() {
    std::vector<int> order(kLumpCount);
    std::iota(order.begin(), order.end(), 0);
    return order;
}

Bsp Bsp::make_empty(std::int32_t version, Endian e) {
    Bsp b;
    b.version_ = version;
    b.endian_ = e;
    b.magic_ = e == Endian::big ? std::array<char, 4>{'P', 'S', 'B', 'V'}
                                : std::array<char, 4>{'V', 'B', 'S', 'P'};
    if (version == 27) b.layout_ = HeaderLayout::contagion;
    return b;
}

Result<Bsp> Bsp::read(Blob file, Diagnostics* warnings, const ReadOptions& opt) {
    const ByteSpan d = file.bytes();
    auto warn = [&](Diagnostic w) {
        if (warnings) warnings->add(std::move(w));
    };
    if (d.size() < 8) {
        return Diagnostic::error("bsp.truncated-header", "file is too short for a BSP header")
            .at_offset(static_cast<std::int64_t>(d.size()))
            .with_path("header");
    }
    Bsp bsp;
    std::memcpy(bsp.magic_.data(), d.data(), 4);
    const std::string_view magic(bsp.magic_.data(), 4);
    if (magic == "VBSP" || magic == "FART") {
        bsp.endian_ = Endian::little;
    } else if (magic == "PSBV") {
        bsp.endian_ = Endian::big;
    } else {
        return Diagnostic::error("bsp.bad-magic", "not a Source BSP (magic is not VBSP or PSBV)")
            .at_offset(0)
            .with_path("header/ident");
    }
    ByteReader r(d, bsp.endian_);
    r.skip(4, "header/ident");
    bsp.version_ = r.i32("header/version");
    if (bsp.version_ == 27) {
        bsp.layout_ = HeaderLayout::contagion;
        bsp.contagion_word_ = r.i32("header/contagion");
    }
    const std::size_t header = bsp.header_size();
    if (d.size() < header) {
        return Diagnostic::error(
                   "bsp.truncated-header",
                   fmt::format("file has {} bytes, the BSP header needs {}", d.size(), header))
            .at_offset(static_cast<std::int64_t>(d.size()))
            .with_path("header/lumps");
    }
    std::vector<RawEntry> raw(kLumpCount);
    for (RawEntry& e : raw) {
        e.a = r.i32("header/lump");
        e.b = r.i32("header/lump");
        e.c = r.i32("header/lump");
        e.fourcc = r.u32("header/lump");
    }
    bsp.map_revision_ = r.i32("header/mapRevision");
    if (!r.ok()) return r.take_error();

    if (bsp.version_ == 21) bsp.layout_ = detect_v21_layout(raw, header, d.size());
    const std::size_t table_at = header - 4 - kLumpCount * kLumpEntrySize;
    bsp.headers_.resize(kLumpCount);
    for (int i = 0; i < kLumpCount; ++i) {
        const Candidate c = decode_entry(raw[static_cast<std::size_t>(i)], bsp.layout_);
        const auto field_at = static_cast<std::int64_t>(table_at + kLumpEntrySize * i);
        LumpHeader& h = bsp.headers_[static_cast<std::size_t>(i)];
        h = {c.offset, c.length, c.version, raw[static_cast<std::size_t>(i)].fourcc};
        Lump& l = bsp.lumps_[static_cast<std::size_t>(i)];
        l.version = c.version;
        if (c.length < 0) {
            return lump_error("bsp.bad-lump", i, fmt::format("negative length {}", c.length),
                              field_at, "filelen");
        }
        if (c.length == 0) {
            l.fourcc = h.fourcc;
            continue;
        }
        if (c.offset < 0 ||
            static_cast<std::uint64_t>(c.offset) + static_cast<std::uint64_t>(c.length) >
                d.size()) {
            return lump_error("bsp.bad-lump", i,
                              fmt::format("offset {} + length {} runs past the end of the file "
                                          "({} bytes)",
                                          c.offset, c.length, d.size()),
                              field_at, c.offset < 0 ? "fileofs" : "filelen");
        }
        if (static_cast<std::uint64_t>(c.offset) < header) {
            warn(Diagnostic::warning(
                     "bsp.lump-in-header",
                     fmt::format("lump {} ({}) starts inside the header", i, lump_name(i)))
                     .at_offset(field_at)
                     .with_path(lump_path(i) + "/fileofs"));
        }
        Blob stored =
            file.slice(static_cast<std::size_t>(c.offset), static_cast<std::size_t>(c.length));
        if (h.fourcc != 0 && has_valve_lzma_magic(stored.bytes())) {
            auto hdr = parse_valve_lzma_header(stored.bytes());
            if (hdr && hdr->actual_size == h.fourcc) {
                auto data = valve_lzma_decompress(stored.bytes(), opt.max_decompressed);
                if (!data) {
                    return lump_error("bsp.bad-lzma", i, data.error().message, c.offset, "data");
                }
                l.data_ = Blob::from_bytes(std::move(data).value());
                l.stored_ = std::move(stored);
                l.compression_ = Compression::lzma;
                continue;
            }
            warn(Diagnostic::warning("bsp.lzma-size-mismatch",
                                     fmt::format("lump {} ({}) looks LZMA-compressed but its "
                                                 "sizes disagree; kept as stored",
                                                 i, lump_name(i)))
                     .at_offset(c.offset)
                     .with_path(lump_path(i)));
        }
        l.fourcc = h.fourcc;
        l.data_ = std::move(stored);
    }

    // File layout: lumps by offset (empty ones before the lump they point at).
    auto stored_len = [&](int i) { return bsp.headers_[static_cast<std::size_t>(i)].length; };
    auto offset_of = [&](int i) { return bsp.headers_[static_cast<std::size_t>(i)].offset; };
    std::stable_sort(bsp.order_.begin(), bsp.order_.end(), [&](int a, int b) {
        if (offset_of(a) != offset_of(b)) return offset_of(a) < offset_of(b);
        return (stored_len(a) != 0) < (stored_len(b) != 0);
    });
    // Lumps that share exactly the same bytes stay shared, except the game lump: its entries
    // hold file offsets, so its bytes depend on where it is written (fuzz_bsp: a lump sharing
    // them was written with the old offsets, which then pointed outside the moved game lump).
    const int game = index_of(LumpId::game_lump);
    std::vector<int> stored;
    for (int i : bsp.order_) {
        if (stored_len(i) == 0) continue;
        if (!stored.empty() && i != game && stored.back() != game &&
            offset_of(stored.back()) == offset_of(i) &&
            stored_len(stored.back()) == stored_len(i)) {
            bsp.lumps_[static_cast<std::size_t>(i)].alias_of_ = stored.back();
            continue;
        }
        stored.push_back(i);
    }
    const bool aligned4 =
        std::all_of(stored.begin(), stored.end(), [&](int i) { return offset_of(i) % 4 == 0; });
    const std::uint32_t default_alignment = aligned4 ? 4 : 1;
    std::uint64_t cursor = header;
    for (int i : stored) {
        Lump& l = bsp.lumps_[static_cast<std::size_t>(i)];
        const auto off = static_cast<std::uint64_t>(offset_of(i));
        if (off < cursor) {
            warn(Diagnostic::warning("bsp.overlapping-lumps",
                                     fmt::format("lump {} ({}) overlaps the lump before it; "
                                                 "it will be stored separately when written",
                                                 i, lump_name(i)))
                     .at_offset(offset_of(i))
                     .with_path(lump_path(i)));
            l.gap_ = Gap{default_alignment, std::nullopt};
        } else {
            l.gap_ = classify_gap(d.subspan(cursor, off - cursor), cursor, default_alignment);
        }
        cursor = std::max<std::uint64_t>(cursor, off + static_cast<std::uint64_t>(stored_len(i)));
    }
    bsp.tail_ = classify_gap(d.subspan(cursor), cursor, default_alignment);
    const std::uint64_t stored_end = cursor;
    // Empty lumps: offset 0, the next stored lump's start, or a value kept verbatim.
    for (std::size_t k = 0; k < bsp.order_.size(); ++k) {
        const int i = bsp.order_[k];
        if (stored_len(i) != 0) continue;
        Lump& l = bsp.lumps_[static_cast<std::size_t>(i)];
        std::uint64_t next = stored_end;
        for (std::size_t m = k + 1; m < bsp.order_.size(); ++m) {
            const int j = bsp.order_[m];
            if (stored_len(j) != 0 && bsp.lumps_[static_cast<std::size_t>(j)].alias_of_ < 0) {
                next = static_cast<std::uint64_t>(offset_of(j));
                break;
            }
        }
        if (offset_of(i) == 0) {
            l.empty_offset_ = EmptyOffset::zero;
        } else if (static_cast<std::uint64_t>(offset_of(i)) == next) {
            l.empty_offset_ = EmptyOffset::next;
        } else {
            l.empty_offset_ = EmptyOffset::verbatim;
            l.verbatim_offset_ = offset_of(i);
        }
    }

    LK_TRY(bsp.read_game_lumps(warnings, opt));
    return bsp;
}

Result<void> Bsp::read_game_lumps(Diagnostics* warnings, const ReadOptions& opt) {
    const int gi = index_of(LumpId::game_lump);
    const Lump& gl = lumps_[static_cast<std::size_t>(gi)];
    gl_tail_.alignment = 1;
    if (gl.data_.empty()) return success();
    auto warn = [&](Diagnostic w) {
        if (warnings) warnings->add(std::move(w));
    };
    const ByteSpan d = gl.data_.bytes();
    const std::int64_t base = headers_[static_cast<std::size_t>(gi)].offset;
    const std::string path = lump_path(gi);
    if (gl.compression_ != Compression::none) {
        return lump_error("bsp.gamelump-compressed", gi,
                          "the game lump directory itself is LZMA-compressed (unsupported)", base,
                          "");
    }
    ByteReader r(d, endian_, static_cast<std::uint64_t>(base));
    const std::int32_t count = r.i32("count");
    if (!r.ok()) return std::move(r.take_error().with_path(path + "/count"));
    if (count < 0 || !r.check_count(static_cast<std::uint64_t>(count), kGameLumpEntrySize,
                                    "game lump entries")) {
        return lump_error(
            "bsp.gamelump-bad-count", gi,
            fmt::format("{} directory entries do not fit in {} bytes", count, d.size()), base,
            "count");
    }
    struct Raw {
        std::uint32_t id;
        std::uint16_t flags, version;
        std::int64_t ofs, len;
    };
    std::vector<Raw> raws(static_cast<std::size_t>(count));
    for (Raw& e : raws) {
        e.id = r.u32("id");
        e.flags = r.u16("flags");
        e.version = r.u16("version");
        e.ofs = r.i32("fileofs");
        e.len = r.i32("filelen");
    }
    if (!raws.empty() && raws.back().id == 0 && raws.back().len == 0 && raws.back().flags == 0) {
        gl_terminal_ = true;
        raws.pop_back();
    }
    const std::uint64_t dir_end = r.pos();

    // Where each entry's bytes lie, relative to the lump, for one interpretation of fileofs.
    auto extent = [&](const Raw& e, std::int64_t rel, std::uint64_t& size) -> bool {
        if (rel < static_cast<std::int64_t>(dir_end) || rel > static_cast<std::int64_t>(d.size())) {
            return false;
        }
        const ByteSpan at = d.subspan(static_cast<std::size_t>(rel));
        if (e.flags & GameLump::kCompressedFlag) {
            auto h = parse_valve_lzma_header(at);
            if (!h) return false;
            size = kValveLzmaHeaderSize + std::uint64_t{h->lzma_size};
        } else {
            if (e.len < 0) return false;
            size = static_cast<std::uint64_t>(e.len);
        }
        return size <= at.size();
    };
    auto fits_all = [&](bool relative) {
        for (const Raw& e : raws) {
            if (e.len == 0 && !(e.flags & GameLump::kCompressedFlag)) continue;
            std::uint64_t size = 0;
            if (!extent(e, relative ? e.ofs : e.ofs - base, size)) return false;
        }
        return true;
    };
    if (fits_all(false)) {
        gl_relative_ = false;
    } else if (fits_all(true)) {
        gl_relative_ = true;
    } else {
        for (std::size_t k = 0; k < raws.size(); ++k) {
            std::uint64_t size = 0;
            const Raw& e = raws[k];
            if ((e.len == 0 && !(e.flags & GameLump::kCompressedFlag)) ||
                extent(e, e.ofs - base, size)) {
                continue;
            }
            return Diagnostic::error(
                       "bsp.gamelump-bad-offset",
                       fmt::format("game lump '{}': offset {} (length {}) lies outside the game "
                                   "lump",
                                   fourcc_string(e.id), e.ofs, e.len))
                .at_offset(base + 4 + static_cast<std::int64_t>(k * kGameLumpEntrySize) + 8)
                .with_path(fmt::format("{}/entry[{}]/fileofs", path, k));
        }
    }
    const std::int64_t to_rel = gl_relative_ ? 0 : base;

    game_lumps_.resize(raws.size());
    std::vector<std::uint64_t> starts(raws.size()), sizes(raws.size());
    for (std::size_t k = 0; k < raws.size(); ++k) {
        const Raw& e = raws[k];
        GameLump& g = game_lumps_[k];
        g.id = e.id;
        g.flags = e.flags;
        g.version = e.version;
        const bool has_data = e.len != 0 || (e.flags & GameLump::kCompressedFlag);
        if (!has_data) {
            starts[k] = sizes[k] = 0;
            continue;
        }
        const auto rel = static_cast<std::uint64_t>(e.ofs - to_rel);
        extent(e, e.ofs - to_rel, sizes[k]);
        starts[k] = rel;
        Blob stored = gl.data_.slice(rel, sizes[k]);
        if (g.compressed()) {
            auto data = valve_lzma_decompress(stored.bytes(), opt.max_decompressed);
            if (!data) {
                return Diagnostic::error(
                           "bsp.bad-lzma",
                           fmt::format("game lump '{}': {}", g.id_string(), data.error().message))
                    .at_offset(base + static_cast<std::int64_t>(rel))
                    .with_path(fmt::format("{}/entry[{}]/data", path, k));
            }
            if (static_cast<std::int64_t>(data->size()) != e.len) {
                warn(Diagnostic::warning("bsp.gamelump-size",
                                         fmt::format("game lump '{}' decompresses to {} bytes, "
                                                     "its directory says {}",
                                                     g.id_string(), data->size(), e.len))
                         .with_path(fmt::format("{}/entry[{}]/filelen", path, k)));
            }
            g.data_ = Blob::from_bytes(std::move(data).value());
            g.stored_ = std::move(stored);
        } else {
            g.data_ = std::move(stored);
            g.file_offset_ = base + static_cast<std::int64_t>(rel);
        }
    }

    // Data layout, like the lump layout one level up.
    gl_order_.resize(raws.size());
    std::iota(gl_order_.begin(), gl_order_.end(), std::size_t{0});
    std::stable_sort(gl_order_.begin(), gl_order_.end(), [&](std::size_t a, std::size_t b) {
        const bool da = sizes[a] != 0, db = sizes[b] != 0;
        const std::uint64_t oa = da ? starts[a] : 0, ob = db ? starts[b] : 0;
        if (da != db) return da < db;
        return oa < ob;
    });
    bool aligned4 = true;
    for (std::size_t k = 0; k < raws.size(); ++k) {
        if (sizes[k] && (static_cast<std::uint64_t>(base) + starts[k]) % 4 != 0) aligned4 = false;
    }
    const std::uint32_t default_alignment = aligned4 ? 4 : 1;
    std::uint64_t cursor = dir_end;
    for (std::size_t k : gl_order_) {
        if (!sizes[k]) continue;
        if (starts[k] < cursor) {
            warn(Diagnostic::warning("bsp.gamelump-irregular",
                                     "game lump entries overlap; the directory is kept verbatim")
                     .with_path(path));
            gl_verbatim_ = true;
            gl_raw_ = gl.data_;
            gl_raw_offset_ = base;
            return success();
        }
        const auto abs = static_cast<std::uint64_t>(base) + cursor;
        game_lumps_[k].gap_ =
            classify_gap(d.subspan(cursor, starts[k] - cursor), abs, default_alignment);
        cursor = starts[k] + sizes[k];
    }
    gl_tail_ = classify_gap(d.subspan(cursor), static_cast<std::uint64_t>(base) + cursor,
                            default_alignment);
    const std::int64_t end_value = static_cast<std::int64_t>(cursor) + to_rel;
    auto classify_offset = [&](std::int64_t value, std::int64_t next, EmptyOffset& rule,
                               std::int64_t& verbatim) {
        if (value == 0) {
            rule = EmptyOffset::zero;
        } else if (value == next) {
            rule = EmptyOffset::next;
        } else {
            rule = EmptyOffset::verbatim;
            verbatim = value;
        }
    };
    for (std::size_t pos = 0; pos < gl_order_.size(); ++pos) {
        const std::size_t k = gl_order_[pos];
        if (sizes[k]) continue;
        std::int64_t next = end_value;
        for (std::size_t m = pos + 1; m < gl_order_.size(); ++m) {
            if (sizes[gl_order_[m]]) {
                next = static_cast<std::int64_t>(starts[gl_order_[m]]) + to_rel;
                break;
            }
        }
        classify_offset(raws[k].ofs, next, game_lumps_[k].empty_offset_,
                        game_lumps_[k].verbatim_offset_);
    }
    if (gl_terminal_) {
        const std::int64_t term =
            load<std::int32_t>(d.data() + dir_end - kGameLumpEntrySize + 8, endian_);
        classify_offset(term, end_value, gl_terminal_offset_, gl_terminal_verbatim_);
    }
    return success();
}

Result<Bytes> Bsp::build_game_lump(std::uint64_t at) const {
    const std::string path = lump_path(index_of(LumpId::game_lump));
    if (gl_verbatim_) {
        Bytes out(gl_raw_.bytes().begin(), gl_raw_.bytes().end());
        if (!gl_relative_) {
            const std::int64_t delta = static_cast<std::int64_t>(at) - gl_raw_offset_;
            const auto n = static_cast<std::size_t>(load<std::int32_t>(out.data(), endian_));
            for (std::size_t k = 0; k < n; ++k) {
                std::byte* f = out.data() + 4 + k * kGameLumpEntrySize + 8;
                const std::int64_t v = load<std::int32_t>(f, endian_);
                if (v != 0) store<std::int32_t>(f, static_cast<std::int32_t>(v + delta), endian_);
            }
        }
        return out;
    }
    if (game_lumps_.empty() && !gl_terminal_) return Bytes{};
    const std::size_t count = game_lumps_.size() + (gl_terminal_ ? 1 : 0);
    ByteWriter w(endian_);
    w.i32(static_cast<std::int32_t>(count));
    w.zeros(count * kGameLumpEntrySize);
    const std::int64_t to_out = gl_relative_ ? 0 : static_cast<std::int64_t>(at);
    std::vector<std::int64_t> offsets(game_lumps_.size(), 0);
    std::vector<bool> placed(game_lumps_.size(), false);
    for (std::size_t k : gl_order_) {
        const GameLump& g = game_lumps_[k];
        Bytes compressed;
        ByteSpan bytes = g.data_.bytes();
        if (g.compressed()) {
            if (!g.stored_.empty()) {
                bytes = g.stored_.bytes();
            } else {
                auto c = valve_lzma_compress(g.data_.bytes());
                if (!c) return std::move(std::move(c).error().with_path(path));
                compressed = std::move(c).value();
                bytes = compressed;
            }
        }
        if (bytes.empty()) continue;
        write_gap(w, g.gap_, at + w.size());
        offsets[k] = static_cast<std::int64_t>(w.size()) + to_out;
        placed[k] = true;
        w.bytes(bytes);
    }
    const std::int64_t end_value = static_cast<std::int64_t>(w.size()) + to_out;
    write_gap(w, gl_tail_, at + w.size());
    auto resolve = [](EmptyOffset rule, std::int64_t verbatim, std::int64_t next) {
        switch (rule) {
            case EmptyOffset::zero:
                return std::int64_t{0};
            case EmptyOffset::next:
                return next;
            case EmptyOffset::verbatim:
                return verbatim;
        }
        return std::int64_t{0};
    };
    for (std::size_t pos = 0; pos < gl_order_.size(); ++pos) {
        const std::size_t k = gl_order_[pos];
        if (placed[k]) continue;
        std::int64_t next = end_value;
        for (std::size_t m = pos + 1; m < gl_order_.size(); ++m) {
            if (placed[gl_order_[m]]) {
                next = offsets[gl_order_[m]];
                break;
            }
        }
        offsets[k] = resolve(game_lumps_[k].empty_offset_, game_lumps_[k].verbatim_offset_, next);
    }
    for (std::size_t k = 0; k < game_lumps_.size(); ++k) {
        const GameLump& g = game_lumps_[k];
        if (offsets[k] > INT32_MAX || g.data_.size() > INT32_MAX) {
            return Diagnostic::error("bsp.too-large", "game lump offsets exceed 2 GiB")
                .with_path(path);
        }
        const std::size_t at_entry = 4 + k * kGameLumpEntrySize;
        w.patch<std::uint32_t>(at_entry, g.id);
        w.patch<std::uint16_t>(at_entry + 4, g.flags);
        w.patch<std::uint16_t>(at_entry + 6, g.version);
        w.patch<std::int32_t>(at_entry + 8, static_cast<std::int32_t>(offsets[k]));
        w.patch<std::int32_t>(at_entry + 12, static_cast<std::int32_t>(g.data_.size()));
    }
    if (gl_terminal_) {
        const std::size_t at_entry = 4 + game_lumps_.size() * kGameLumpEntrySize;
        w.patch<std::int32_t>(at_entry + 8,
                              static_cast<std::int32_t>(
                                  resolve(gl_terminal_offset_, gl_terminal_verbatim_, end_value)));
    }
    return w.take();
}

Result<Bytes> Bsp::write() const {
    const std::size_t header = header_size();
    ByteWriter w(endian_);
    // One allocation for the usual case (growing a 9 MB map by doubling copied it ~4 times):
    // stored lumps and game lumps as they are now, each gap at its largest, the tail.
    std::size_t expected = header + (tail_.raw ? tail_.raw->size() : 0);
    for (const Lump& l : lumps_) {
        if (l.alias_of_ >= 0) continue;
        const std::size_t body = l.compression_ == Compression::lzma && !l.stored_.empty()
                                     ? l.stored_.size()
                                     : l.data_.size();
        expected += body + (l.gap_.raw ? l.gap_.raw->size() : l.gap_.alignment + l.gap_.min_size);
    }
    for (const GameLump& g : game_lumps_) expected += g.data_.size() + g.stored_.size() + 16;
    w.reserve(expected);
    w.zeros(header);
    struct Out {
        std::int64_t offset = 0, length = 0;
        bool placed = false;
    };
    std::array<Out, kLumpCount> out{};
    for (int i : order_) {
        const Lump& l = lumps_[static_cast<std::size_t>(i)];
        if (l.alias_of_ >= 0) continue;
        Bytes built;
        ByteSpan bytes = l.data_.bytes();
        if (i == index_of(LumpId::game_lump)) {
            const std::uint64_t at = w.size() + l.gap_.size_at(w.size());
            LK_TRY_ASSIGN(built, build_game_lump(at));
            bytes = built;
        } else if (l.compression_ == Compression::lzma && !l.data_.empty()) {
            if (!l.stored_.empty()) {
                bytes = l.stored_.bytes();
            } else {
                auto c = valve_lzma_compress(l.data_.bytes());
                if (!c) return std::move(std::move(c).error().with_path(lump_path(i)));
                built = std::move(c).value();
                bytes = built;
            }
        }
        if (bytes.empty()) continue;
        write_gap(w, l.gap_, w.size());
        Out& o = out[static_cast<std::size_t>(i)];
        o.offset = static_cast<std::int64_t>(w.size());
        o.length = static_cast<std::int64_t>(bytes.size());
        o.placed = true;
        w.bytes(bytes);
    }
    const auto stored_end = static_cast<std::int64_t>(w.size());
    write_gap(w, tail_, w.size());
    if (w.size() > static_cast<std::size_t>(INT32_MAX)) {
        return Diagnostic::error("bsp.too-large", "the map would exceed 2 GiB");
    }
    for (std::size_t k = 0; k < order_.size(); ++k) {
        const int i = order_[k];
        const Lump& l = lumps_[static_cast<std::size_t>(i)];
        Out& o = out[static_cast<std::size_t>(i)];
        if (l.alias_of_ >= 0) {
            o = out[static_cast<std::size_t>(l.alias_of_)];
            continue;
        }
        if (o.placed) continue;
        switch (l.empty_offset_) {
            case EmptyOffset::zero:
                o.offset = 0;
                break;
            case EmptyOffset::verbatim:
                o.offset = l.verbatim_offset_;
                break;
            case EmptyOffset::next: {
                o.offset = stored_end;
                for (std::size_t m = k + 1; m < order_.size(); ++m) {
                    const Out& n = out[static_cast<std::size_t>(order_[m])];
                    if (n.placed) {
                        o.offset = n.offset;
                        break;
                    }
                }
                break;
            }
        }
    }
    // Header.
    std::memcpy(w.at(0), magic_.data(), 4);
    w.patch<std::int32_t>(4, version_);
    std::size_t at = 8;
    if (layout_ == HeaderLayout::contagion) {
        w.patch<std::int32_t>(at, contagion_word_);
        at += 4;
    }
    std::vector<RawEntry> raw(kLumpCount);
    for (int i = 0; i < kLumpCount; ++i) {
        const Lump& l = lumps_[static_cast<std::size_t>(i)];
        const Out& o = out[static_cast<std::size_t>(i)];
        const bool lzma = l.compression_ == Compression::lzma && !l.data_.empty() &&
                          i != index_of(LumpId::game_lump);
        RawEntry& e = raw[static_cast<std::size_t>(i)];
        e.fourcc = lzma ? static_cast<std::uint32_t>(l.data_.size()) : l.fourcc;
        if (layout_ == HeaderLayout::l4d2) {
            e = {l.version, o.offset, o.length, e.fourcc};
        } else {
            e = {o.offset, o.length, l.version, e.fourcc};
        }
    }
    if (version_ == 21 && detect_v21_layout(raw, header, w.size()) != layout_) {
        // The other field order would read this header better (the offsets kept for empty
        // lumps look like lumps under it: fuzz_bsp). Empty lumps then get offset and version
        // 0, which count under neither order.
        for (RawEntry& e : raw) {
            if ((layout_ == HeaderLayout::l4d2 ? e.c : e.b) == 0) e = {0, 0, 0, e.fourcc};
        }
        if (detect_v21_layout(raw, header, w.size()) != layout_) {
            return Diagnostic::error("bsp.ambiguous-layout",
                                     "the lump table would read back in the other version 21 "
                                     "field order");
        }
    }
    for (const RawEntry& e : raw) {
        w.patch<std::int32_t>(at, static_cast<std::int32_t>(e.a));
        w.patch<std::int32_t>(at + 4, static_cast<std::int32_t>(e.b));
        w.patch<std::int32_t>(at + 8, static_cast<std::int32_t>(e.c));
        w.patch<std::uint32_t>(at + 12, e.fourcc);
        at += kLumpEntrySize;
    }
    w.patch<std::int32_t>(at, map_revision_);
    return w.take();
}

Result<void> Bsp::set_lump(LumpId id, Blob data) {
    const int i = index_of(id);
    if (id == LumpId::game_lump) {
        return Diagnostic::error("bsp.game-lump-direct",
                                 "the game lump is rebuilt from its entries; use set_game_lump")
            .with_path(lump_path(i));
    }
    unalias(i);
    Lump& l = lumps_[static_cast<std::size_t>(i)];
    l.data_ = std::move(data);
    l.stored_ = Blob();
    return success();
}

void Bsp::unalias(int i) {
    for (Lump& other : lumps_) {
        if (other.alias_of_ == i) other.alias_of_ = -1;
    }
    Lump& l = lumps_[static_cast<std::size_t>(i)];
    if (l.alias_of_ >= 0) {
        l.alias_of_ = -1;
        l.gap_ = Gap{};
    }
}

Result<void> Bsp::set_compression(LumpId id, Compression c) {
    const int i = index_of(id);
    if (c == Compression::lzma && (id == LumpId::pakfile || id == LumpId::game_lump)) {
        return Diagnostic::error("bsp.cannot-compress",
                                 fmt::format("lump {} ({}) cannot be LZMA-compressed as a whole", i,
                                             lump_name(i)))
            .with_path(lump_path(i));
    }
    unalias(i);
    Lump& l = lumps_[static_cast<std::size_t>(i)];
    if (l.compression_ != c) {
        l.compression_ = c;
        l.stored_ = Blob();
        if (c == Compression::lzma) l.fourcc = 0;
    }
    return success();
}

const GameLump* Bsp::find_game_lump(std::uint32_t id) const {
    for (const GameLump& g : game_lumps_) {
        if (g.id == id) return &g;
    }
    return nullptr;
}

void Bsp::set_game_lump(std::uint32_t id, std::uint16_t version, Blob data) {
    gl_verbatim_ = false;
    for (GameLump& g : game_lumps_) {
        if (g.id != id) continue;
        g.version = version;
        g.data_ = std::move(data);
        g.stored_ = Blob();
        g.file_offset_ = -1;
        return;
    }
    GameLump g;
    g.id = id;
    g.version = version;
    g.data_ = std::move(data);
    game_lumps_.push_back(std::move(g));
    gl_order_.push_back(game_lumps_.size() - 1);
}

void Bsp::set_game_lump_compression(std::uint32_t id, Compression c) {
    for (GameLump& g : game_lumps_) {
        if (g.id != id || g.compressed() == (c == Compression::lzma)) continue;
        gl_verbatim_ = false;
        g.flags = static_cast<std::uint16_t>(c == Compression::lzma
                                                 ? g.flags | GameLump::kCompressedFlag
                                                 : g.flags & ~GameLump::kCompressedFlag);
        g.stored_ = Blob();
        // A compressed entry's size is found from the next entry's offset, so the directory
        // needs the terminal entry after the last one.
        if (c == Compression::lzma && !gl_terminal_) {
            gl_terminal_ = true;
            gl_terminal_offset_ = EmptyOffset::next;
        }
    }
}

Result<void> Bsp::repack(Compression c) {
    // Valve's repack writes every lump on its own, shared bytes included.
    for (int i = 0; i < kLumpCount; ++i) unalias(i);
    for (int i = 0; i < kLumpCount; ++i) {
        Lump& l = lumps_[static_cast<std::size_t>(i)];
        l.gap_ = Gap{i == index_of(LumpId::pakfile) ? kPakAlignment : 4, std::nullopt};
        l.empty_offset_ = EmptyOffset::zero;
        if (i == index_of(LumpId::pakfile) || i == index_of(LumpId::game_lump) || l.data_.empty()) {
            continue;
        }
        if (c == Compression::none) {
            if (l.compression_ != Compression::none) {
                l.compression_ = Compression::none;
                l.stored_ = Blob();
            }
            continue;
        }
        if (l.compression_ == Compression::lzma && !l.stored_.empty()) continue;
        auto packed = valve_lzma_compress(l.data_.bytes());
        if (!packed) return std::move(std::move(packed).error().with_path(lump_path(i)));
        if (packed->size() < l.data_.size()) {
            l.compression_ = Compression::lzma;
            l.stored_ = Blob::from_bytes(std::move(packed).value());
            l.fourcc = 0;
        } else {
            l.compression_ = Compression::none;
            l.stored_ = Blob();
        }
    }
    tail_ = Gap{1, std::nullopt};
    if (gl_verbatim_ || !game_lumps_.empty()) {
        gl_verbatim_ = false;
        for (GameLump& g : game_lumps_) {
            g.gap_ = Gap{4, std::nullopt};
            g.empty_offset_ = EmptyOffset::next;
            if (c == Compression::none) {
                if (g.compressed()) {
                    g.flags = static_cast<std::uint16_t>(g.flags & ~GameLump::kCompressedFlag);
                    g.stored_ = Blob();
                }
                continue;
            }
            if (g.compressed() && !g.stored_.empty()) continue;
            if (g.data_.empty()) continue;
            auto packed = valve_lzma_compress(g.data_.bytes());
            if (!packed) {
                return std::move(
                    std::move(packed).error().with_path(lump_path(index_of(LumpId::game_lump))));
            }
            if (packed->size() < g.data_.size()) {
                g.flags = static_cast<std::uint16_t>(g.flags | GameLump::kCompressedFlag);
                g.stored_ = Blob::from_bytes(std::move(packed).value());
            }
        }
        // srctools (2.7) takes a compressed entry's size as the next entry's offset minus one,
        // which cuts off the stream's last byte when the next entry follows without a gap.
        // At least one padding byte after a compressed entry keeps such readers working; the
        // engine reads the LZMA header's size and ignores padding.
        for (std::size_t k = 1; k < gl_order_.size(); ++k) {
            const bool after_compressed = game_lumps_[gl_order_[k - 1]].compressed();
            game_lumps_[gl_order_[k]].gap_.min_size = after_compressed ? 1 : 0;
        }
        gl_terminal_ = true;
        gl_terminal_offset_ = EmptyOffset::next;
        gl_tail_ = Gap{1, std::nullopt};
    }
    return success();
}

Result<Bsp> read(Blob file, Diagnostics& warnings, const ReadOptions& opt) {
    return Bsp::read(std::move(file), &warnings, opt);
}

}  // namespace lk::bsp
