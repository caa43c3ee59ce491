// Source engine compiled maps (VBSP): the lump container.
//
// A Bsp holds the header, the 64-entry lump table and every lump's bytes (uncompressed; LZMA
// lumps are decompressed on read), the game lump directory with its entries, and the file
// layout (lump order, padding, where empty lumps point), so that an unchanged map writes back
// byte-identical. Typed views of individual lumps live in lumps.hpp, static props in
// props.hpp, the pakfile in pak.hpp and the entity lump in entities.hpp.
//
// Supported containers: "VBSP" little-endian and "PSBV" big-endian (Xbox 360 / PS3) files of
// any version (typed views know versions 17-29 and 42), the Left 4 Dead 2 lump_t field order
// (chosen for v21 maps by which order places more lumps inside the file), Contagion's extra
// header word (v27) and VitaminSource's "FART" magic.
//
// Ownership: lump data are Blobs; when the map was read from a mapped file, uncompressed lumps
// are zero-copy slices of it and keep it alive.
//
// Writing: lumps keep their file order and padding; changed lumps are re-packed in place with
// the layout rules the file used (4-byte alignment, unless the file had none). Game lump offsets
// are recomputed. Compressed lumps reuse their original compressed bytes while their data is
// unchanged; otherwise they are recompressed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/result.hpp"

namespace lk::bsp {

inline constexpr int kLumpCount = 64;

// Lump indices. Several slots were reused by different engine branches; the names are the
// Source SDK 2013 ones.
enum class LumpId : int {
    entities = 0,
    planes = 1,
    texdata = 2,
    vertexes = 3,
    visibility = 4,
    nodes = 5,
    texinfo = 6,
    faces = 7,
    lighting = 8,
    occlusion = 9,
    leafs = 10,
    faceids = 11,
    edges = 12,
    surfedges = 13,
    models = 14,
    worldlights = 15,
    leaffaces = 16,
    leafbrushes = 17,
    brushes = 18,
    brushsides = 19,
    areas = 20,
    areaportals = 21,
    propcollision = 22,
    prophulls = 23,
    prophullverts = 24,
    proptris = 25,
    dispinfo = 26,
    originalfaces = 27,
    physdisp = 28,
    physcollide = 29,
    vertnormals = 30,
    vertnormalindices = 31,
    disp_lightmap_alphas = 32,
    disp_verts = 33,
    disp_lightmap_sample_positions = 34,
    game_lump = 35,
    leafwaterdata = 36,
    primitives = 37,
    primverts = 38,
    primindices = 39,
    pakfile = 40,
    clipportalverts = 41,
    cubemaps = 42,
    texdata_string_data = 43,
    texdata_string_table = 44,
    overlays = 45,
    leafmindisttowater = 46,
    face_macro_texture_info = 47,
    disp_tris = 48,
    physcollidesurface = 49,
    wateroverlays = 50,
    leaf_ambient_index_hdr = 51,
    leaf_ambient_index = 52,
    lighting_hdr = 53,
    worldlights_hdr = 54,
    leaf_ambient_lighting_hdr = 55,
    leaf_ambient_lighting = 56,
    xzippakfile = 57,
    faces_hdr = 58,
    map_flags = 59,
    overlay_fades = 60,
    overlay_system_levels = 61,
    physlevel = 62,
    disp_multiblend = 63,
};

constexpr int index_of(LumpId id) {
    return static_cast<int>(id);
}
// Lower-case name of a lump slot ("faces", "pakfile"); "lump<N>" outside 0-63.
std::string_view lump_name(int index);
// Logical path used in diagnostics: "lump[7]" (the name goes in messages).
std::string lump_path(int index);

enum class HeaderLayout : std::uint8_t {
    standard,   // lump_t = {fileofs, filelen, version, fourCC}
    l4d2,       // lump_t = {version, fileofs, filelen, fourCC} (Left 4 Dead 2)
    contagion,  // standard, with an extra int after the BSP version (v27)
};

enum class Compression : std::uint8_t { none, lzma };

// Bytes between two stored blocks: zero padding to an alignment, or bytes kept verbatim.
struct Gap {
    std::uint32_t alignment = 4;  // pad with zeros to a multiple of this (1 = no padding)
    std::optional<Bytes> raw;     // when set, exactly these bytes instead
    std::uint32_t min_size = 0;   // at least this many padding bytes (still aligned)

    std::size_t size_at(std::uint64_t position) const;
    bool operator==(const Gap&) const = default;
};

// Where an empty lump's (or game lump's) offset field points.
enum class EmptyOffset : std::uint8_t {
    zero,      // 0
    next,      // the start of the next stored block (vbsp's habit)
    verbatim,  // the value read from the file
};

class Lump {
public:
    std::int32_t version = 0;
    // The fourCC field of an uncompressed lump (normally 0). For LZMA lumps the field holds the
    // uncompressed size and is computed on write.
    std::uint32_t fourcc = 0;

    const Blob& data() const { return data_; }
    ByteSpan bytes() const { return data_.bytes(); }
    std::size_t size() const { return data_.size(); }
    bool empty() const { return data_.empty(); }
    Compression compression() const { return compression_; }

private:
    friend class Bsp;
    Blob data_;
    Compression compression_ = Compression::none;
    Blob stored_;  // the compressed block as read, valid while data_ is unchanged
    // Layout.
    Gap gap_;
    EmptyOffset empty_offset_ = EmptyOffset::next;
    std::int64_t verbatim_offset_ = 0;
    int alias_of_ = -1;  // shares another lump's bytes (same offset and length) when >= 0
};

// "sprp" for 0x73707270, with non-printable bytes escaped as \xNN.
std::string fourcc_string(std::uint32_t id);

// One entry of the game lump directory (lump 35).
class GameLump {
public:
    static constexpr std::uint16_t kCompressedFlag = 0x0001;

    std::uint32_t id = 0;  // FourCC as a big-endian number: 'sprp' == 0x73707270
    std::uint16_t flags = 0;
    std::uint16_t version = 0;

    const Blob& data() const { return data_; }
    ByteSpan bytes() const { return data_.bytes(); }
    bool compressed() const { return (flags & kCompressedFlag) != 0; }
    std::string id_string() const { return fourcc_string(id); }
    // Where the (uncompressed) data sat in the file read, for diagnostics; -1 if unknown.
    std::int64_t file_offset() const { return file_offset_; }

private:
    friend class Bsp;
    Blob data_;
    std::int64_t file_offset_ = -1;
    Blob stored_;
    Gap gap_;
    EmptyOffset empty_offset_ = EmptyOffset::next;
    std::int64_t verbatim_offset_ = 0;
};

constexpr std::uint32_t fourcc(const char (&s)[5]) {
    return (std::uint32_t(std::uint8_t(s[0])) << 24) | (std::uint32_t(std::uint8_t(s[1])) << 16) |
           (std::uint32_t(std::uint8_t(s[2])) << 8) | std::uint32_t(std::uint8_t(s[3]));
}

// The lump table entry exactly as read from the file (for `info`).
struct LumpHeader {
    std::int64_t offset = 0;
    std::int64_t length = 0;
    std::int32_t version = 0;
    std::uint32_t fourcc = 0;
};

struct ReadOptions {
    // Largest size a single LZMA lump may decompress to.
    std::size_t max_decompressed = std::size_t{1} << 31;
};

class Bsp;

// The reader every module has: input, warnings, options. Same as Bsp::read.
Result<Bsp> read(Blob file, Diagnostics& warnings, const ReadOptions& opt = {});

class Bsp {
public:
    // Reads the container: header, lump table, lump data (LZMA lumps decompressed) and the game
    // lump directory. Errors are "bsp.*" diagnostics with the byte offset and a path such as
    // "lump[40]/filelen". Oddities that do not stop reading become warnings in `warnings`.
    static Result<Bsp> read(Blob file, Diagnostics* warnings = nullptr,
                            const ReadOptions& opt = {});
    // Writes the map. An unchanged map gives back the bytes it was read from.
    Result<Bytes> write() const;

    // Header.
    std::array<char, 4> magic() const { return magic_; }
    std::int32_t version() const { return version_; }
    Endian endian() const { return endian_; }
    HeaderLayout header_layout() const { return layout_; }
    std::int32_t map_revision() const { return map_revision_; }
    void set_map_revision(std::int32_t r) { map_revision_ = r; }

    // Lumps. Lump 35 holds the game lump directory as read; game_lumps() is what gets written.
    const Lump& lump(int index) const { return lumps_.at(static_cast<std::size_t>(index)); }
    const Lump& lump(LumpId id) const { return lump(index_of(id)); }
    // Replaces a lump's contents (uncompressed bytes). The game lump (35) is rebuilt from
    // game_lumps() and cannot be set directly.
    Result<void> set_lump(LumpId id, Blob data);
    void set_lump_version(LumpId id, std::int32_t version) {
        lumps_[index_of(id)].version = version;
    }
    // Chooses how a lump is stored. The pakfile and game lump cannot be LZMA-compressed as a
    // whole (game lumps are compressed entry by entry).
    Result<void> set_compression(LumpId id, Compression c);
    // The lump table as read (offsets and stored lengths); empty for a map built in memory.
    const std::vector<LumpHeader>& headers_as_read() const { return headers_; }

    // Game lumps.
    const std::vector<GameLump>& game_lumps() const { return game_lumps_; }
    const GameLump* find_game_lump(std::uint32_t id) const;
    // Adds or replaces a game lump's data (keeps its flags; compressed entries are
    // recompressed on write).
    void set_game_lump(std::uint32_t id, std::uint16_t version, Blob data);
    void set_game_lump_compression(std::uint32_t id, Compression c);
    bool game_lump_offsets_relative() const { return gl_relative_; }
    bool has_terminal_game_lump() const { return gl_terminal_; }

    // Valve's repack (bspzip -repack): every non-empty lump and game lump is LZMA-compressed
    // (kept uncompressed where LZMA would not make it smaller) or decompressed; lumps are
    // aligned to 4 bytes and the pakfile to 2048, empty lumps point at offset 0 and the game
    // lump directory ends with a null terminal entry.
    Result<void> repack(Compression c);

    // A map with every lump empty, for building files in memory ("PSBV" when big-endian).
    static Bsp make_empty(std::int32_t version, Endian e = Endian::little);

private:
    Result<void> read_game_lumps(Diagnostics* warnings, const ReadOptions& opt);
    // Gives lump `i` (and any lump sharing its bytes) its own stored copy.
    void unalias(int i);
    Result<Bytes> build_game_lump(std::uint64_t at) const;
    std::size_t header_size() const;

    std::array<char, 4> magic_{'V', 'B', 'S', 'P'};
    std::int32_t version_ = 20;
    std::int32_t contagion_word_ = 0;
    Endian endian_ = Endian::little;
    HeaderLayout layout_ = HeaderLayout::standard;
    std::int32_t map_revision_ = 0;
    std::vector<Lump> lumps_ = std::vector<Lump>(kLumpCount);
    std::vector<int> order_ = index_order();  // all 64 lump indices in file order
    Gap tail_{1, std::nullopt};
    static std::vector<int> index_order();
    std::vector<LumpHeader> headers_;

    // Game lump directory.
    std::vector<GameLump> game_lumps_;
    std::vector<std::size_t> gl_order_;  // data order in the file (indices into game_lumps_)
    bool gl_relative_ = false;
    bool gl_terminal_ = false;
    EmptyOffset gl_terminal_offset_ = EmptyOffset::next;
    std::int64_t gl_terminal_verbatim_ = 0;
    Gap gl_tail_{1, std::nullopt};
    // Irregular directories (overlapping or out-of-range entries) are kept verbatim and only
    // relocated; editing a game lump switches to a rebuilt directory.
    bool gl_verbatim_ = false;
    Blob gl_raw_;
    std::int64_t gl_raw_offset_ = 0;
};

}  // namespace lk::bsp
