// VMF (Hammer map source): a typed model over the lossless KeyValues tree.
//
// Two layers, on purpose:
//  * vmf::Document holds the kv::Document it was read from. Writing it gives back the input
//    bytes exactly (comments, CRLF, number text, key order, unknown blocks).
//  * vmf::Map is the typed model: versioninfo, visgroups, world, entities, solids, sides,
//    displacements, cameras, cordons... with numbers parsed. It is a plain value (owns its
//    strings) that converters fill and `to_kv()` serialises in Hammer's canonical layout.
//    Nothing the KeyValues layer holds is dropped: keys and blocks the model has no field for
//    are kept in `extra_*` members, and a known key whose value does not parse is kept there
//    too (with a diagnostic) instead of being replaced by a default.
//
// Typed objects carry an `Origin` (kv node and byte offset) so diagnostics point at the line.
// Origins never take part in equality, so a map re-read from its own output compares equal.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/boxed.hpp"
#include "levelkit/core/geometry.hpp"
#include "levelkit/core/keyvalue.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/kv/keyvalues.hpp"

namespace lk::vmf {

struct Origin {
    kv::NodeId node = kv::kNone;
    std::uint32_t offset = 0;
    bool operator==(const Origin&) const { return true; }  // never part of a model's value
};

using lk::KeyValue;

// A KeyValues subtree kept whole (unknown blocks and keys).
struct RawNode {
    std::string key;
    std::string value;
    bool block = false;
    std::vector<RawNode> children;
    bool operator==(const RawNode&) const = default;
};

using lk::find_key;

// uaxis/vaxis "[x y z shift] scale".
using UVAxis = lk::TextureAxis;

struct DispInfo {
    // Row blocks and keys that were present (decompiled maps lack offsets/offset_normals, some
    // tools write only normals and distances); to_kv writes exactly these.
    enum Field : std::uint32_t {
        kPower = 1u << 0,
        kStartPosition = 1u << 1,
        kFlags = 1u << 2,
        kElevation = 1u << 3,
        kSubdiv = 1u << 4,
        kNormals = 1u << 5,
        kDistances = 1u << 6,
        kOffsets = 1u << 7,
        kOffsetNormals = 1u << 8,
        kAlphas = 1u << 9,
        kTriangleTags = 1u << 10,
        kAllowedVerts = 1u << 11,
        kMultiblend = 1u << 12,
        kAlphablend = 1u << 13,
        kMultiblendColor0 = 1u << 14,  // ...1u << 17 for colour 3
    };
    std::uint32_t present = 0;
    int power = 0;
    Vec3 start_position;
    int flags = 0;  // bits 2/4/8 = NO physics/hull/ray collision (inverted in the file)
    double elevation = 0;
    int subdiv = 0;
    // Per vertex, row-major, (2^power+1)^2 entries; row i of the file's "rowI".
    std::vector<Vec3> normals;
    std::vector<double> distances;
    std::vector<Vec3> offsets;
    std::vector<Vec3> offset_normals;
    std::vector<double> alphas;
    // Per triangle: 2 * 2^power per row, 2^power rows.
    std::vector<int> triangle_tags;
    // "allowed_verts" { "10" "..." }: 10 ints (Strata writes int64s under "5").
    std::string allowed_verts_key;
    std::vector<std::int64_t> allowed_verts;
    // Alien Swarm+ 4-way blend: 4 floats per vertex; colours 3 floats per vertex.
    std::vector<std::array<double, 4>> multiblend;
    std::vector<std::array<double, 4>> alphablend;
    std::array<std::vector<Vec3>, 4> multiblend_color;
    std::vector<KeyValue> extra_keys;
    std::vector<RawNode> extra_blocks;
    Origin origin;

    int grid_size() const { return (1 << power) + 1; }
    bool has(Field f) const { return (present & f) != 0; }
    bool operator==(const DispInfo&) const = default;
};

// The `editor` block of solids, entities and groups. Hammer writes its keys in this order.
struct Editor {
    bool present = false;
    std::optional<std::array<int, 3>> color;           // "r g b"
    std::vector<std::int64_t> visgroup_ids;            // "visgroupid" (repeats)
    std::optional<std::int64_t> group_id;              // "groupid"
    std::optional<bool> visgroup_shown;                // "visgroupshown"
    std::optional<bool> visgroup_autoshown;            // "visgroupautoshown"
    std::optional<bool> cordon_solid;                  // "cordonsolid"
    std::optional<std::string> comments;               // "comments"
    std::optional<std::array<double, 2>> logical_pos;  // "logicalpos" "[x y]"
    std::vector<KeyValue> extra_keys;  // unknown keys, or known ones whose value did not parse
    std::vector<RawNode> extra_blocks;
    bool operator==(const Editor&) const = default;
};

struct Side {
    enum Field : std::uint32_t {
        kId = 1u << 0,
        kPlane = 1u << 1,
        kMaterial = 1u << 2,
        kUAxis = 1u << 3,
        kVAxis = 1u << 4,
        kRotation = 1u << 5,
        kLightmapScale = 1u << 6,
        kSmoothingGroups = 1u << 7,
        kVerticesPlus = 1u << 8,
        kPointData = 1u << 9,
    };
    std::uint32_t present = 0;
    std::int64_t id = 0;
    std::array<Vec3, 3> plane_points{};
    std::string material;
    UVAxis uaxis, vaxis;
    double rotation = 0;  // editor-only: the axes are already rotated
    double lightmapscale = 16;
    std::uint32_t smoothing_groups = 0;
    Boxed<DispInfo> disp;  // heap: most sides have none
    // Hammer++ `vertices_plus { "v" "x y z" }`: the side's exact polygon.
    std::vector<Vec3> vertices_plus;
    // Strata `point_data { "numpts" N  "point" "i x y z" }`.
    std::vector<Vec3> point_data;
    std::vector<KeyValue> extra_keys;
    std::vector<RawNode> extra_blocks;
    Origin origin;

    bool has(Field f) const { return (present & f) != 0; }
    // The plane through the three points (VBSP's rule: normal points out of the brush).
    std::optional<Plane> plane() const {
        return Plane::from_points(plane_points[0], plane_points[1], plane_points[2]);
    }
    bool operator==(const Side&) const = default;
};

struct Solid {
    std::int64_t id = 0;
    std::vector<Side> sides;
    Editor editor;
    bool hidden = false;  // wrapped in `hidden { }`
    std::vector<KeyValue> extra_keys;
    std::vector<RawNode> extra_blocks;
    Origin origin;
    bool operator==(const Solid&) const = default;
};

// One output line: "OnTrigger" "target<sep>Input<sep>param<sep>delay<sep>times".
struct Connection {
    std::string output;
    std::string target;
    std::string input;
    std::string param;
    double delay = 0;
    int times = -1;           // -1 = unlimited
    char separator = '\x1b';  // ESC (L4D and later) or ',' (older Hammer)
    bool parsed = true;       // false: `raw` could not be split into 5 fields and is kept as is
    std::string raw;
    Origin origin;

    std::string value_text() const;  // the value as Hammer writes it
    bool operator==(const Connection&) const = default;
};

// Splits a connection value (either separator; extra separators belong to the parameter).
std::optional<Connection> parse_connection(std::string_view output, std::string_view value);

struct Group {
    std::int64_t id = 0;
    Editor editor;
    std::vector<KeyValue> extra_keys;
    std::vector<RawNode> extra_blocks;
    bool operator==(const Group&) const = default;
};

struct Entity {
    // Every key in order, including "id" and "classname".
    std::vector<KeyValue> keys;
    bool has_connections = false;  // a `connections` block was present (possibly empty)
    std::vector<Connection> connections;
    std::vector<Solid> solids;  // in order; hidden ones have Solid::hidden
    std::vector<Group> groups;  // world only
    Editor editor;
    bool hidden = false;  // top-level `hidden { entity { } }`
    std::vector<RawNode> extra_blocks;
    Origin origin;

    std::string_view get(std::string_view key, std::string_view fallback = {}) const;
    void set(std::string_view key, std::string_view value);  // replaces the first or appends
    std::int64_t id() const;
    std::string_view classname() const { return get("classname"); }
    std::optional<Vec3> origin_vec() const;
    std::optional<Vec3> angles() const;
    bool operator==(const Entity&) const = default;
};

struct Visgroup {
    std::string name;
    std::int64_t id = 0;
    std::string color;
    std::vector<Visgroup> children;
    std::vector<KeyValue> extra_keys;
    std::vector<RawNode> extra_blocks;
    bool operator==(const Visgroup&) const = default;
};

using lk::Camera;

struct Cordon {
    std::string name;
    bool active = false;
    std::vector<Aabb> boxes;
    std::vector<KeyValue> extra_keys;
    bool operator==(const Cordon& o) const;
};

struct Map {
    bool has_versioninfo = false;
    std::vector<KeyValue>
        versioninfo;  // editorversion, editorbuild, mapversion, formatversion, prefab
    bool has_visgroups = false;
    std::vector<Visgroup> visgroups;
    std::optional<RawNode> viewsettings;
    Entity world;
    bool has_world = false;
    std::vector<Entity> entities;  // in order; top-level hidden ones have Entity::hidden
    bool has_cameras = false;
    int active_camera = -1;
    std::vector<Camera> cameras;
    // Old maps: one `cordon { mins maxs active }`; L4D+: `cordons { active  cordon { box } }`.
    enum class CordonStyle : std::uint8_t {
        none,
        single,
        multiple
    } cordon_style = CordonStyle::none;
    bool cordons_active = false;
    std::vector<Cordon> cordons;
    std::vector<RawNode> extra_blocks;  // quickhide, Hammer++ *_plus, unknown top-level blocks

    std::int64_t editor_build() const;
    std::int64_t map_version() const;
    bool operator==(const Map&) const = default;
};

struct ReadOptions {
    kv::ParseOptions kv = kv::ParseOptions::vmf();
    // read_map only: threads for large inputs (0 = one per core, 1 = this thread only). The
    // text is cut at top-level `entity` blocks and the pieces are read side by side; the result
    // (model, diagnostics and their positions) is the same as a one-thread read.
    unsigned threads = 0;
    std::size_t min_piece_bytes = std::size_t{1} << 20;  // smaller pieces are not worth a thread
    // read_map only: cut the text into this many pieces (at most one per min_piece_bytes) even
    // on one thread; 0 = three a thread when there are two or more. Tests and fuzzers force the
    // cut-and-join path on small texts this way without starting a thread per read.
    std::size_t pieces = 0;
    // read_map only: tokenize with the light reader, which keeps no layout and leaves any text
    // it does not handle (a warning, an error, `"a" + "b"`) to the full KeyValues parser; both
    // give the same model and diagnostics. False: always the full parser (tests compare them).
    bool light_tokenizer = true;
};

// A VMF as read: the lossless tree plus the typed model built from it.
class Document {
public:
    static Result<Document> read(Blob source, const ReadOptions& opt = {});
    static Result<Document> read(std::string_view text, const ReadOptions& opt = {});

    const kv::Document& tree() const { return tree_; }
    kv::Document& tree() { return tree_; }
    const Map& map() const { return map_; }
    Map& map() { return map_; }
    // Warnings and field errors found while building the typed model (the tree parsed fine).
    const Diagnostics& diagnostics() const { return diags_; }
    // The input bytes, reproduced from the tree.
    std::string write() const { return tree_.write(); }

private:
    kv::Document tree_;
    Map map_;
    Diagnostics diags_;
};

// The reader every module has: input, warnings, options. The lossless tree and the typed model;
// the model's warnings and field errors go to `warnings` (and stay in Document::diagnostics()).
Result<Document> read(Blob source, Diagnostics& warnings, const ReadOptions& opt = {});

// Builds the typed model from a KeyValues tree (diagnostics for malformed fields).
Map map_from_tree(const kv::Document& tree, Diagnostics& diags);

// Reads only the typed model, streaming: each solid and entity becomes typed as soon as its
// block closes and its text tree is dropped, so memory stays near the size of the model. Use
// this when the lossless tree is not needed (conversions, analysis). Origins carry offsets
// only (node = kv::kNone). Diagnostics: parse warnings and field errors. Inputs of several MiB
// are read on several threads (ReadOptions::threads).
Result<Map> read_map(Blob source, Diagnostics& diags, const ReadOptions& opt = {});

struct WriteOptions {
    std::string eol = "\n";  // Hammer writes "\r\n" on Windows; both read fine
};
// Serialises a typed map in Hammer's layout (tabs, quoted keys, bare block names).
kv::Document to_tree(const Map& map, const WriteOptions& opt = {});
std::string write(const Map& map, const WriteOptions& opt = {});

// --- counts used by `levelkit info` ---
struct Stats {
    std::size_t solids = 0, sides = 0, entities = 0, displacements = 0, overlays = 0, instances = 0,
                visgroups = 0, cameras = 0, connections = 0, hidden = 0;
    bool operator==(const Stats&) const = default;
};
Stats stats(const Map& map);
// What solids (of the world or an entity) and an entity of `map.entities` add to the counts:
// stats() is these plus the world's connections, the visgroups and the cameras.
void add_solid_stats(const std::vector<Solid>& solids, Stats& s);
void add_entity_stats(const Entity& e, Stats& s);

// A map's counts without its model: `head` is the map as read_map reads it but without world
// solids and entities, `stats` is what stats() gives for the whole map. The text is read as
// read_map reads it (the same errors and warnings, at the same positions), in pieces of about
// 64 KiB (on several threads, ReadOptions::threads), and each piece's solids and entities
// are counted and freed as soon as it is read: memory stays a few pieces' worth however large
// the map (its whole model only in the rare case read_map reads the file in one piece).
struct Summary {
    Map head;
    Stats stats;
};
Result<Summary> summarize(Blob source, Diagnostics& diags, const ReadOptions& opt = {});

}  // namespace lk::vmf
