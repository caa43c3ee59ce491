// Gamestudio (Acknex) compiled levels: WMB1..WMB7.
//
// A WMB file is the magic "WMB<digit>" followed by a table of LIST {u32 offset, u32 length}
// entries and the lists' bytes. WMB1..WMB5 have 16 lists, WMB6 19 (one file of the corpus has
// 17) and WMB7 20; the number of lists of a file is the standard number for its version, or
// fewer when its first list starts inside that table. Lists are in the order of the Gamestudio
// manual's WMB_HEADER (ListId below). WMB1..WMB6 keep Quake's BSP lumps under the manual's
// "legacy" names (planes, vertices, faces, edges, ...); WMB7 stores its geometry as block meshes
// and uses the BSP lists only for BSP-tree levels. See views.hpp for what each list holds.
//
// Lossless model. File keeps every list's bytes (a Blob slice of the input, no copy) and the
// file it was read from. write() gives back the input byte for byte while no list changed, so
// padding between lists, bytes after the last list and lists that overlap each other (both
// seen in compiler output) survive. When lists were changed or added, write() lays the file out
// anew: the table, then the lists in their original file order (new ones last), each starting
// on a 4-byte boundary; bytes outside any list are then not kept.
//
// Typed views. read() also decodes every list it knows into File::views (views.hpp): plain
// structs and byte spans into the lists. They are a read-only picture of the lists as read:
// write() writes the lists, not the views. Every count and offset inside a list is checked
// before use. A list that does not decode is reported as a located warning (byte offset and
// logical path such as `list[15]/object[3]/skills`) and its view is left empty, unless
// ReadOptions::strict makes it an error.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/wmb/views.hpp"

namespace lk::wmb {

// The manual's list slots. Quake's lump names for the WMB1..6 "legacy" slots are in comments.
enum class ListId : std::uint8_t {
    palettes = 0,            // 16-byte prefix, 256 RGB colours, then (WMB4/6) lighting tables
    planes = 1,              // legacy1: planes
    textures = 2,            // count, offsets, texture records with their pixels
    vertices = 3,            // legacy2: vertex positions
    pvs = 4,                 // compressed visibility (BSP only)
    bsp_nodes = 5,           // BSP nodes
    materials = 6,           // 64-byte surface records (Quake texinfo + Gamestudio fields)
    faces = 7,               // legacy3: faces
    lighting = 8,            // legacy4: per-face light samples
    aabb_hulls = 9,          // collision hull nodes (Quake clipnodes)
    bsp_leafs = 10,          // BSP leaves
    bsp_blocks = 11,         // leaf -> face (WMB1..6) or leaf -> block (WMB7) references
    edges = 12,              // legacy5: edges
    edge_list = 13,          // legacy6: signed edge references of the faces
    models = 14,             // legacy7: the world model (bounds, head nodes, face range)
    objects = 15,            // entities, lights, positions, sounds, paths, regions, level info
    lightmaps = 16,          // WMB6/7: lightmap pages of the blocks
    blocks = 17,             // WMB7: block meshes
    legacy8 = 18,            // unused in every known file
    terrain_lightmaps = 19,  // WMB7: lightmaps of terrain entities
};

inline constexpr std::size_t kMaxLists = 20;
constexpr std::size_t index_of(ListId id) {
    return static_cast<std::size_t>(id);
}

// "palettes", "planes", ...; "list<N>" past the known slots.
std::string list_name(std::size_t index);
// Logical path used in diagnostics: "list[7]".
std::string list_path(std::size_t index);

// Lists in the standard header of a version: 16 for WMB1..5, 19 for WMB6, 20 for WMB7+.
std::size_t standard_list_count(int version);

struct List {
    std::uint32_t offset = 0;  // where the list was read from (0 for lists built in memory)
    Blob data;

    ByteSpan bytes() const { return data.bytes(); }
    std::size_t size() const { return data.size(); }
    bool empty() const { return data.empty(); }
};

struct ReadOptions {
    bool decode = true;   // decode the typed views (File::views)
    bool strict = false;  // a list that does not decode is an error instead of a warning
};

struct File {
    std::array<char, 4> magic{'W', 'M', 'B', '7'};
    int version = 7;          // the digit of the magic
    std::vector<List> lists;  // in header order; size() is the file's list count
    Views views;              // typed views of the lists as read (see the header comment)

    // The file as read, and its list table, so an unchanged file writes back identically.
    Blob source;
    std::vector<std::uint32_t> read_offsets, read_lengths;

    const List* list(ListId id) const {
        const std::size_t i = index_of(id);
        return i < lists.size() ? &lists[i] : nullptr;
    }
    ByteSpan list_bytes(ListId id) const {
        const List* l = list(id);
        return l ? l->bytes() : ByteSpan{};
    }
};

// True if `data` starts with a WMB magic ("WMB" and a digit 1..9).
bool is_wmb(ByteSpan data);

// Reads a WMB file. Errors (bad magic, a table or list outside the file) carry the byte offset
// and the path `header` or `header/list[N]`. List decoding problems go to `warnings` (see the
// header comment). The Blob overload keeps zero-copy views into `data`; the span overload
// copies it first.
Result<File> read(Blob data, Diagnostics& warnings, const ReadOptions& opt = {});
Result<File> read(ByteSpan data, Diagnostics& warnings, const ReadOptions& opt = {});

// Decodes the typed views of `file`'s lists (what read() does unless told not to).
Result<Views> decode(const File& file, Diagnostics& warnings, bool strict = false);

// Serialises `file` (see the header comment for layout). Fails if the file would exceed 4 GiB.
Result<Bytes> write(const File& file);

// Figures for reports (`info`): compiled faces (WMB1..6) or block triangles and faces
// (WMB7), objects by kind, textures and lightmap pages.
struct Counts {
    std::size_t lists = 0, faces = 0, blocks = 0, triangles = 0, block_faces = 0;
    std::size_t entities = 0, positions = 0, lights = 0, sounds = 0, paths = 0, regions = 0;
    std::size_t textures = 0, lightmaps = 0, terrain_lightmaps = 0, materials = 0;
};
Counts count(const File& file);

// Semantic checks of the views: references between lists out of range (face edges and
// surfaces, edge vertices, triangle vertices and skins, skin textures and materials, material
// textures, BSP node/leaf references, entity path indices), lists that did not decode. Errors
// name the list and record (`list[17]/block[2]/triangle[40]`) and the byte offset.
void validate(const File& file, Diagnostics& out);

}  // namespace lk::wmb
