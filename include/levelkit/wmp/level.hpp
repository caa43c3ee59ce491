// The typed Gamestudio (Acknex) level model shared by every WMP dialect: WMP2 text (A4 plane
// blocks, A5 `version 510`, A6-A8 `version 710`), WMPB binary, and the `$$M` file WED hands to
// its map compiler. A3 (2.5D) maps have their own model, A3Level, at the end of this header.
//
// What the model holds:
// * an object tree (Level::objects): groups with transforms and children, each object
//   optionally owning one payload record (a block, the level record or an entity);
// * payload records in one vector per kind (blocks, levels, models, lights, starts, sounds,
//   paths, regions), each keeping its record number from the text file;
// * WED editor data (palette, WAD list, bookmarks, view) and the file header.
//
// Angles and units. Positions are Gamestudio quants. In WMP2 and WMPB an object's `angles` are
// the triple WED stores, in radians: (a0, a1, a2) with rotation matrix Rz(a0) * Rx(a1) * Ry(-a2)
// (Ry(t) tilts +x towards +z). In `$$M` they are (pan, tilt, roll) in degrees with matrix
// Rz(pan) * Ry(tilt) * Rx(roll). Both facts were inferred from WED's own `$$M` files beside
// their WMPB sources; see angles_matrix() / mm_angles_matrix() in resolve.hpp.
//
// Text spellings. Where WED writes `ndef` for "no value" (script, action, material, block
// function) the model holds std::nullopt, which is also what WMPB expresses by omitting the
// chunk. Colours are percentages (0..100) as in the text files; WMPB stores bytes (0..255) and
// converts exactly.
//
// Lossless round trips. Text documents keep a TextLayout (the bytes between and the spelling of
// every token), WMPB documents keep the chunk details the model does not interpret
// (`WmpbExtra`, raw unknown chunks), so write(read(f)) reproduces f byte for byte while every
// value still comes from the typed fields.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/file.hpp"
#include "levelkit/core/geometry.hpp"

namespace lk::wmp {

enum class Dialect : std::uint8_t {
    a3,       // Acknex 3 line records (`VERTEX ...;`)
    wmp2_a4,  // WMP2 text without a `version` line, Quake-style plane blocks
    wmp2_a5,  // WMP2 `version 510`: polygon blocks without texture vectors
    wmp2_a6,  // WMP2 `version 710` (A6, A7, A8 text saves): polygon blocks with texture vectors
    wmpb,     // WMPB binary chunk tree (WED 7.8x/8 default save)
    mm,       // `$$M` (`version 711`), world-space input of the map compiler
};

// "a3", "wmp2-a4", "wmp2-a5", "wmp2-a6", "wmpb", "$$m" (the `info --json` variant names).
std::string_view to_string(Dialect d);
bool is_wmp2(Dialect d);

// The payload kinds an object can own. `group` objects own none.
enum class Kind : std::uint8_t { group, level, block, model, light, start, sound, path, region };
// WED's class names: "object" (group), "level", "block", "model", "light", ...
std::string_view class_name(Kind k);
std::optional<Kind> kind_from_class_name(std::string_view s);

// Surface flag bits documented in the Gamestudio manual (prog_wmp), plus the editor-only bit
// WED strips when it writes `$$M` (inferred from the corpus pairs).
namespace face_flag {
inline constexpr std::uint32_t unshaded = 1u << 0;
inline constexpr std::uint32_t flat = 1u << 1;
inline constexpr std::uint32_t sky = 1u << 2;
inline constexpr std::uint32_t water = 1u << 3;
inline constexpr std::uint32_t smooth = 1u << 13;
inline constexpr std::uint32_t mirror = 1u << 14;
inline constexpr std::uint32_t user_first = 1u << 16;  // user flags 1..8 are bits 16..23
inline constexpr std::uint32_t texture_lock = 1u << 28;
}  // namespace face_flag

namespace block_flag {
inline constexpr std::uint32_t locked_textures = 1u << 16;  // manual: "for locked textures"
// Set on blocks whose locked faces keep their texture offsets in world space (inferred).
inline constexpr std::uint32_t world_texture_offsets = 1u << 5;
}  // namespace block_flag

struct Rgb {
    double r = 0, g = 0, b = 0;  // percent, 0..100
    bool operator==(const Rgb&) const = default;
};

// One texture axis of a face: texel coordinate = dot(axis, p) + offset.
struct TexAxis {
    Vec3 axis;
    double offset = 0;
    bool operator==(const TexAxis&) const = default;
};

// WED's texture placement controls (offsets in texels, rotation in degrees, scale factors).
struct TexTransform {
    double offset_x = 0, offset_y = 0, rotation = 0, scale_x = 1, scale_y = 1;
    bool operator==(const TexTransform&) const = default;
    bool is_identity() const { return *this == TexTransform{}; }
};

// A raw WMPB chunk the model does not interpret, kept with its place among its siblings.
struct RawChunk {
    std::uint8_t id = 0, kind = 0;
    std::uint32_t position = 0;  // index among the container's chunks where it appeared
    std::vector<std::uint8_t> payload;
};

struct Face {
    std::vector<std::uint32_t> indices;  // polygon blocks: vertex indices, in file order
    std::array<Vec3, 3> plane_points{};  // A4 plane blocks: three points on the face plane
    std::string texture;
    std::optional<TexAxis> t1, t2;          // A6+ / WMPB / $$M texture vectors (both or none)
    std::optional<TexTransform> transform;  // absent in `$$M` (baked into t1/t2)
    std::uint32_t flags = 0;
    double ambient = 0, albedo = 50;
    std::optional<std::string> material;     // text only; WMPB has no per-face material
    std::vector<std::array<double, 2>> uvs;  // explicit per-vertex texture coordinates, if any
    // The face has a texture-coordinate list though it is empty (text `[ ]`, a WMPB uv chunk
    // of 0 pairs): written back as it was. A list with pairs is written whatever this says.
    bool empty_uv_list = false;
    std::vector<std::string> a4_tail;  // A4: the three fields after the material (raw)
    // WMPB: false when WED stored no surface record for the face (WED then uses `#default`
    // with axis-aligned texture vectors).
    bool has_surface = true;
    std::vector<RawChunk> wmpb_chunks;  // unknown chunks inside the WMPB surface record
};

// Record numbers: `block N` / `model N` ... in WMP2 text; in `$$M` the record's type number
// (level 0, start 1, light 2, model 3 or 7, sound 4, path 6, region 8); unused for WMPB.
struct Block {
    std::int64_t number = 0;
    std::optional<std::string> label;  // comment after the record's `{` (text)
    bool plane_syntax = false;         // A4 plane triplets instead of vertices + polygons
    std::vector<Vec3> vertices;
    std::vector<Face> faces;
    std::uint32_t flags = 0;
    std::optional<std::string> function;  // block function; A7+ WMPB keeps a material name here
    std::optional<std::int64_t> index;    // trailer index (A5+, WMPB); A4 has none
};

struct LevelInfo {
    std::int64_t number = 0;
    std::optional<std::string> label;
    std::string wad;      // `<name.$$w>` (text), `name.$$w` ($$M); WMPB has none
    std::string palette;  // palette image, e.g. palette.pcx
    double nexus = 30;    // Map Properties "Nexus Size" (MB)
    double sun_azimuth = 0, sun_elevation = 60;
    std::optional<std::string> script;
    // Fog colours 1-4, then the sun and ambient colours (order as WED writes them; the names of
    // the last two are inferred from WED's defaults 150,150,150 and 50,50,50). WED 4.24 writes
    // only the four fog colours.
    std::vector<Rgb> colors = std::vector<Rgb>(6);
    // WMPB only: an unexplained scalar chunk (always 0 in the corpus) and the tag bytes WED puts
    // in front of each stored colour (0,1,2,3 for the fog colours, 0 for the others).
    std::uint32_t wmpb_scalar = 0;
    std::array<std::uint8_t, 6> wmpb_color_tags{0, 1, 2, 3, 0, 0};
    std::int64_t mm_sun_type = 5;  // `$$M`: type number of the sun record
};

struct TaggedString {
    std::uint16_t tag = 0;
    std::string text;
    bool operator==(const TaggedString&) const = default;
};

struct Model {
    std::int64_t number = 0;
    std::optional<std::string> label;
    Vec3 scale{1, 1, 1};  // text records repeat the owning object's scale here
    std::string file;     // .mdl model, .wmb map entity, .hmp terrain, .pcx/.tga/.bmp/.dds sprite
    std::string name;
    std::optional<std::string> action;
    std::vector<double> skills;  // 8, or 20 in WED 7+
    std::uint32_t flags = 0;
    double ambient = 0, albedo = 50;
    std::optional<std::string> path;      // name of the path the entity is attached to
    std::optional<std::string> string2;   // WMPB chunk 14 (meaning unknown; a name)
    std::optional<std::string> material;  // entity material
    std::vector<TaggedString> strings;    // WMPB chunk 15 (tagged strings, e.g. light presets)
    // Text A7+: whether the record spells out albedo and the two string slots, and whether the
    // material line group is present.
    bool text_extended = false;
    bool text_material_lines = false;
    bool text_quoted_flags = false;  // A4 writes the flags as '0101'
    // `$$M`: the path index field (1-based position of `path` among the level's paths).
    std::int64_t mm_path_index = 0;
    std::int64_t mm_reserved = 0;
    // `$$M`: entity string lines as read, `ndef` lines after the last string included (the
    // writer writes at least as many).
    std::uint16_t mm_string_lines = 0;
};

enum class ModelFileType : std::uint8_t { dds_sprite = 0, sprite = 1, mdl = 2, wmb = 3, hmp = 4 };
// By extension: .dds -> dds_sprite, .pcx/.tga/.bmp -> sprite, .wmb, .hmp, anything else -> mdl.
ModelFileType model_file_type(std::string_view file);

struct Light {
    std::int64_t number = 0;
    std::optional<std::string> label;
    Rgb color;
    double range = 0;
    std::uint32_t flags = 0;
};

struct Start {
    std::int64_t number = 0;
    std::optional<std::string> label;
    std::string name;
    std::uint32_t flags = 0;
};

struct Sound {
    std::int64_t number = 0;
    std::optional<std::string> label;
    std::string file;
    std::uint32_t flags = 0;
    // WED's sound fields in file order: volume, two unexplained values (0 and 1 in the corpus),
    // and the range.
    double volume = 100, param2 = 0, param3 = 1, range = 0;
};

struct PathEdge {
    std::uint32_t from = 0, to = 0;  // node indices (0-based; `$$M` writes them 1-based)
    // WMPB: four values per edge, (1, 0, 0, 0) throughout the corpus (edge panel: bezier,
    // weight, skill). `$$M` writes (length, v1, v2, v3): the length replaces the first value.
    std::array<double, 4> values{1, 0, 0, 0};
};

struct Path {
    std::int64_t number = 0;
    std::optional<std::string> label;
    std::string name;
    std::uint32_t flags = 0;
    double text_scalar = 0;  // A4/A5 text: the value between name and node count (always 0)
    std::vector<Vec3> nodes;
    std::uint32_t skills_per_node = 6;
    std::vector<double> node_skills;  // nodes.size() * skills_per_node
    std::vector<PathEdge> edges;
    bool has_node_skills = true;      // A4/A5 text paths carry neither skills nor edges
    std::int64_t mm_value_count = 0;  // `$$M`: the count after the node count (3 nodes + 2 edges)
};

struct Region {
    std::int64_t number = 0;
    std::optional<std::string> label;
    std::string name;
    std::uint32_t flags = 0;
    Vec3 mins, maxs;
};

// WMPB details of one object container and its payload container that have no text spelling.
struct WmpbExtra {
    std::uint8_t code = 0;     // object prefix byte: 0x01 level, 0x03 group, 0x04 block, entities
                               // 0x15 start, 0x25 light, 0x35/0x45 model (8/20 skills),
                               // 0x55 sound, 0x65 path, 0x75 region
    std::uint8_t subtype = 0;  // blocks: 1, or 2 with block flag 0x20; models: ModelFileType
    std::uint32_t reserved = 0;
    std::uint32_t payload_type = 0;  // first prefix word of the payload: the `$$M` type number
    std::uint32_t payload_word = 0;  // model: file-type code (type << 8); sound: field 4
    bool has_code = false;           // false for objects that did not come from a WMPB file
    // Unknown chunks inside the object container (including the payload container of a class
    // levelkit does not know) and inside the payload container.
    std::vector<RawChunk> object_chunks;
    std::vector<RawChunk> payload_chunks;
};

struct Transform {
    Vec3 position;
    Vec3 angles;  // see the header comment for units and convention
    Vec3 scale{1, 1, 1};
};

struct Object {
    std::int64_t number = 0;          // `object N` record number (text)
    std::optional<std::string> name;  // text: the comment after `{`; WMPB: name chunk
    std::string class_text;           // WMPB class string as read (unknown classes: group)
    Transform transform;
    Kind kind = Kind::group;
    std::int32_t payload = -1;            // index into the Level vector of `kind`
    std::vector<std::uint32_t> children;  // indices into Level::objects
    WmpbExtra wmpb;
};

struct Wad {
    std::string path;
    double flag = 1;  // text only: the number after each WAD path
};

// WED editor data (`wed { ... }` in text, section 2 in WMPB).
struct WedData {
    bool present = true;
    bool has_palette = true;
    std::vector<std::uint8_t> palette;  // 256 RGB triples, or empty (`palette { }`)
    bool has_wad_section = true;
    std::array<double, 5> wad_header{};  // text: the `0 0 0 0 0` line
    std::vector<Wad> wads;
    std::vector<std::string> texture_folders;  // WMPB chunk 7
    // Other text sections (bookmark, view, ...), each as its lines of raw tokens.
    struct Section {
        std::string name;
        std::vector<std::vector<std::string>> lines;
    };
    std::vector<Section> sections;
    // Text: the order of the sections as read (kPalette, kWad, or an index into `sections`);
    // empty means palette, wad, then `sections`.
    static constexpr std::int32_t kPalette = -1, kWad = -2;
    std::vector<std::int32_t> section_order;
};

// Where each text record sits in the file, so the writer keeps the order.
enum class RecordKind : std::uint8_t {
    object,
    block,
    level,
    model,
    light,
    start,
    sound,
    path,
    region,
    sun,
    unknown
};
struct RecordRef {
    RecordKind kind;
    std::uint32_t index;
};

struct UnknownRecord {
    std::string keyword;  // `$$M`: the comment after `{` (none if has_keyword is false)
    bool has_keyword = true;
    std::optional<std::string> label;  // WMP2: the comment after `{`
    std::int64_t number = 0;
    std::vector<std::string> tokens;  // the tokens between the braces
};

struct Header {
    // Text: "ACKWED V 4.34" / "WMPIO V 1.30" (line 2) and the date of "// Created dd.mm.yyyy"
    // (line 3; without the word "Created" if the line does not start with it). Absent lines
    // are nullopt.
    std::optional<std::string> editor;
    std::optional<std::string> created;
    bool created_prefix = true;
    std::optional<std::int64_t> version;  // WMP2 `version` (510/710), `$$M` 711
    // Counts as written in the file (text `blocks/entities/objects`, WMPB section 1).
    std::int64_t blocks = 0, entities = 0, objects = 0;
    // `$$M`: the first line after `//` ("wmpio (1.30), 27.10.2017"), if there is one.
    std::optional<std::string> mm_banner;
    // WMPB section 1: words 0, 1 and 5 of its prefix, and the banner string.
    std::uint32_t wmpb_version = 710, wmpb_format = 2, wmpb_reserved = 0;
    std::string wmpb_banner;
};

// A token-exact record of a text file: for every token its byte range; the bytes between
// tokens are the "gaps". Writers replay gaps and, where a token still denotes the model's
// value, its original spelling.
struct TextLayout {
    Blob source;
    std::vector<std::uint32_t> token_begin, token_end;
    std::size_t size() const { return token_begin.size(); }
    bool empty() const { return token_begin.empty(); }
};

// A contiguous range of layout tokens belonging to one record.
struct TokenSpan {
    std::uint32_t begin = 0, end = 0;
    bool empty() const { return begin == end; }
};

struct Level {
    Dialect dialect = Dialect::wmp2_a6;
    Header header;
    WedData wed;
    std::vector<Object> objects;  // objects[root] is the tree root
    std::uint32_t root = 0;
    std::vector<Block> blocks;
    std::vector<LevelInfo> levels;
    std::vector<Model> models;
    std::vector<Light> lights;
    std::vector<Start> starts;
    std::vector<Sound> sounds;
    std::vector<Path> paths;
    std::vector<Region> regions;
    std::vector<UnknownRecord> unknown_records;
    // Text record order (empty for documents built in code or read from WMPB).
    std::vector<RecordRef> record_order;
    // WMPB: unknown top-level chunks and unknown chunks of sections 1 and 2.
    std::vector<RawChunk> wmpb_top_chunks, wmpb_section1_chunks, wmpb_section2_chunks;
    // Text layout (read from text) and the token span of each record, parallel to
    // record_order, plus the span of everything before the first record.
    TextLayout layout;
    std::vector<TokenSpan> record_spans;
    TokenSpan prologue_span;
    std::string newline = "\r\n";  // line break used for new text

    // Number of payload records of a kind.
    std::size_t count(Kind k) const;
    // Entities as WED counts them: level records plus every entity payload.
    std::size_t entity_count() const;
    std::size_t face_count() const;
};

// --- A3 -----------------------------------------------------------------------------------

// An Acknex 3 (2.5D) map: line records terminated by `;`, `#` comments. Geometry semantics
// (region heights, wall textures) live in the game's WDL scripts.
struct A3Level {
    struct Vertex {
        double x = 0, y = 0, z = 0;
    };
    struct Region {
        std::string name;
        double floor = 0, ceiling = 0;
    };
    struct Wall {
        std::string name;
        std::int64_t v1 = 0, v2 = 0, region1 = 0, region2 = 0;
        double offset_x = 0, offset_y = 0;
    };
    struct Thing {  // THING and ACTOR records
        std::string name;
        double x = 0, y = 0, angle = 0;
        std::int64_t region = 0;
    };
    struct PlayerStart {
        double x = 0, y = 0, angle = 0;
        std::int64_t region = 0;
    };
    struct Way {
        std::string name;
        std::vector<std::array<double, 2>> points;
    };
    struct Unknown {
        std::string keyword;
        std::vector<std::string> fields;
    };
    enum class Rec : std::uint8_t {
        vertex,
        region,
        wall,
        thing,
        actor,
        player_start,
        way,
        unknown
    };
    struct RecordRef {
        Rec kind;
        std::uint32_t index;
    };

    std::string editor;  // "WED v3.26" from the header comment, if present
    std::vector<Vertex> vertices;
    std::vector<Region> regions;
    std::vector<Wall> walls;
    std::vector<Thing> things, actors;
    std::vector<PlayerStart> player_starts;
    std::vector<Way> ways;
    std::vector<Unknown> unknown;
    std::vector<RecordRef> order;
    TextLayout layout;
    std::vector<TokenSpan> spans;  // parallel to order
    std::string newline = "\r\n";
};

}  // namespace lk::wmp
