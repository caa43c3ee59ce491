// Typed views of WMB lists (see wmb.hpp for the container).
//
// Sources. The list slots, the WMB7 block/skin/vertex/triangle records, the object records
// (position, light, entity, sound, info, path) and the texture type codes follow the
// Gamestudio manual's WMB description as quoted on the Gamestudio forum and libgamestudio's
// reader (MIT), used as behavioural references. Everything marked "(inferred)" was worked out
// from the 86 WMB files of the research corpus and is not documented anywhere:
// * WMB1..6 keep Quake's BSP lumps in the legacy slots. WMB1/2 use Quake's 16-bit records
//   (faces 20 bytes, nodes 24, leaves 28, clip nodes 8, edges 4, leaf faces 2); WMB3..7 widen
//   them (faces 24, nodes 40, leaves 36, clip nodes 16, edges 8, leaf faces 4). (inferred)
// * The world model record is 160 bytes: bounds, origin, 4 head nodes, 4 hull boxes as
//   integers, visible leaf count, first face and face count. (inferred)
// * Texture records of WMB1..5 (and of some WMB6 files) are Quake miptex records: name,
//   width, height and four mip offsets relative to the record; pixels are 8-bit palette
//   indices or 16-bit RGB565, told apart by the distance between the first two mip levels.
//   WMB6/7 records put a type code where the first mip offset was (bits 0-2 format, bit 3 mip
//   maps) and the offsets of mip levels 1..3 after it. (inferred)
// * The object list is a count, one offset per object (relative to the list) and the records;
//   a record runs to the next higher offset. WMB1..5 paths hold only their node positions
//   (the node count sits where WMB7 keeps its value count); WMB6/7 paths hold nodes, six
//   skills per node and edges. Region records are min, max, two words and a 20-character
//   name. The info record is 56 bytes in WMB1..5, 68 in WMB6 and 60 in WMB7. (inferred)
// * WMB7 triangles carry the index of the compiled face they belong to where the manual says
//   "unused"; the world model's face count counts those faces. (inferred)
//
// Angles are Gamestudio's (pan, tilt, roll) in degrees; colours of lights are percentages;
// colours of the level info are 0xAARRGGBB words. Positions are in quants.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/geometry.hpp"

namespace lk::wmb {

struct Vec3f {
    float x = 0, y = 0, z = 0;
    Vec3 to_vec3() const { return {x, y, z}; }
    bool operator==(const Vec3f&) const = default;
};

// List 0: a 16-byte prefix (four words), 256 RGB colours, then (WMB4/6) lighting tables.
struct Palette {
    std::array<std::uint32_t, 4> prefix{};
    std::array<std::uint8_t, 768> colors{};  // RGB triples
    ByteSpan tables;                         // whatever follows the colours
};

struct Plane {
    Vec3f normal;
    float dist = 0;
    std::int32_t type = 0;  // Quake: 0-2 axial x/y/z, 3-5 mostly x/y/z
};

enum class PixelFormat : std::uint8_t { pal8, rgb565, rgb888, rgba8888, dds, unknown };
std::string_view to_string(PixelFormat f);

struct Texture {
    std::string name;
    std::uint32_t width = 0, height = 0;  // dds: width holds the byte size of the DDS file
    bool miptex_layout = false;           // Quake miptex record (see the header comment)
    std::uint32_t type_code = 0;          // WMB6/7 type code; 0 for miptex records
    // Words 3..6 of the record: miptex: the four mip offsets; WMB6/7: the type code, then the
    // offsets of mip levels 1..3 (0 without mip maps). Offsets are relative to the record.
    std::array<std::uint32_t, 4> words{};
    PixelFormat format = PixelFormat::unknown;
    std::uint32_t mip_count = 1;
    std::array<ByteSpan, 4> mips;  // pixel data of mip level 0..mip_count-1
    std::uint32_t offset = 0;      // record offset within the list
};

// List 6: 64 bytes per surface.
struct Material {
    Vec3f s_axis;  // texel s = dot(s_axis, p) + s_offset
    float s_offset = 0;
    Vec3f t_axis;
    float t_offset = 0;
    std::uint32_t texture = 0;  // index into the textures
    // Surface flags: low nibble 0 shaded, 3 flat, 5 sky, 9 water, 11 none; bit 4 detail,
    // bit 6 passable, bit 13 mirror, bit 14 smooth (as WED's face flag bits).
    std::uint16_t flags = 0;
    std::uint32_t user_flags = 0;  // flag1..flag8 in bits 0..7
    std::int8_t ambient = 0;       // -100..100
    std::uint8_t albedo = 50;
    std::string name;  // material name from the level script (20 characters)
};

struct Face {
    std::uint32_t plane = 0;
    std::uint16_t side = 0;  // 1: the face looks along the plane's negative normal
    std::uint32_t first_edge = 0;
    std::uint16_t edge_count = 0;
    std::uint16_t material = 0;
    std::array<std::uint8_t, 4> styles{};
    std::int32_t light_offset = -1;
    std::uint32_t extra = 0;  // WMB3+: a trailing word (0 in the corpus)
};

struct Edge {
    std::uint32_t v0 = 0, v1 = 0;
};

struct Node {
    std::int32_t plane = 0;
    std::uint32_t unknown1 = 0;  // WMB3+ only
    std::array<std::int16_t, 3> mins{}, maxs{};
    std::uint32_t unknown2 = 0;              // WMB3+ only
    std::array<std::int32_t, 2> children{};  // >= 0 node, < 0 -(leaf + 1)
    std::uint32_t first_face = 0, face_count = 0;
};

struct Leaf {
    std::int32_t contents = 0;
    std::int32_t vis_offset = -1;
    std::array<std::int16_t, 3> mins{}, maxs{};
    std::array<std::uint32_t, 2> unknown{};  // WMB1/2: the four ambient levels in unknown[0]
    std::uint32_t first_leaf_face = 0, leaf_face_count = 0;
};

struct ClipNode {
    std::int32_t plane = 0;
    std::int32_t unknown = 0;  // WMB3+ only
    std::array<std::int32_t, 2> children{};
};

struct Model {
    Vec3f mins, maxs, origin;
    std::array<std::int32_t, 4> head_nodes{};
    std::array<std::array<std::int32_t, 3>, 4> hull_mins{}, hull_maxs{};
    std::int32_t vis_leafs = 0, first_face = 0, face_count = 0;
};

// --- objects ------------------------------------------------------------------------------

enum class ObjectType : std::uint32_t {
    position = 1,
    light = 2,
    old_entity = 3,
    sound = 4,
    info = 5,
    path = 6,
    entity = 7,
    region = 8,
};

struct Position {
    Vec3f origin, angles;
    std::array<std::uint32_t, 2> unused{};
    std::string name;
};

struct Light {
    Vec3f origin;
    Vec3f color;  // percent
    float range = 0;
    std::uint32_t flags = 0;  // bit 0 high resolution, 1 dynamic, 2 static, 3 cast
};

// Types 7 (entity) and 3 (old entity: 8 skills, no albedo/strings; a file name longer than its
// 13-byte field runs on over the 20-byte action field, whose action is then lost).
struct Entity {
    bool old_layout = false;
    Vec3f origin, angles, scale{1, 1, 1};
    std::string name, file, action;
    std::vector<float> skills;  // 20 (type 7) or 8 (type 3)
    std::uint32_t flags = 0;
    float ambient = 0, albedo = 50;
    std::uint32_t path = 0;      // 1-based index among the level's paths, 0 none
    std::uint32_t attached = 0;  // 1-based index of an attached entity, 0 none
    std::string material, string1, string2, unused;
};

struct Sound {
    Vec3f origin;
    float volume = 0;
    std::array<float, 2> values{};
    std::int32_t range = 0;
    std::uint32_t flags = 0;
    std::string file;
};

// The level info. Fields after `elevation` are present as far as the record reaches.
struct Info {
    Vec3f origin;
    float azimuth = 0, elevation = 0;
    std::uint32_t flags = 0;
    float compiler_version = 0;
    std::uint8_t gamma = 0, lightmap_size = 0;  // lightmap pages of 256 << lightmap_size texels
    std::array<std::uint8_t, 2> unused{};
    std::optional<std::uint32_t> sun_color, ambient_color;  // 0xAARRGGBB
    std::vector<std::uint32_t> fog_colors;
    ByteSpan extra;  // bytes after the last field this reader knows
};

struct PathEdge {
    float node1 = 0, node2 = 0;  // 1-based node numbers
    float length = 0, bezier = 0, weight = 0, skill = 0;
};

struct Path {
    bool old_layout = false;  // WMB1..5: positions only
    std::string name;
    float node_count_field = 0;  // WMB6/7: the node count as a float; WMB1..5: a scalar (0)
    std::array<std::uint32_t, 3> unused{};
    std::uint32_t value_count = 0;  // WMB6/7: 3 * nodes + 2 * edges; WMB1..5: the node count
    std::vector<Vec3f> nodes;
    std::vector<std::array<float, 6>> skills;  // per node (WMB6/7)
    std::vector<PathEdge> edges;
};

struct Region {
    Vec3f mins, maxs;
    std::array<std::uint32_t, 2> values{};
    std::string name;
};

struct Object {
    std::uint32_t type = 0;
    std::uint32_t offset = 0;  // record offset within the objects list
    ByteSpan record;           // the record's bytes (to the next record)
    std::variant<std::monostate, Position, Light, Entity, Sound, Info, Path, Region> value;

    ObjectType object_type() const { return static_cast<ObjectType>(type); }
    template <class T>
    const T* get() const {
        return std::get_if<T>(&value);
    }
};

// --- WMB7 blocks and lightmaps ------------------------------------------------------------

struct BlockVertex {
    Vec3f position;
    float u = 0, v = 0;    // texture coordinates (1.0 = one texture width/height)
    float lu = 0, lv = 0;  // lightmap coordinates (0..1 on the lightmap page)
};

struct Triangle {
    std::array<std::uint16_t, 3> v{};
    std::uint16_t skin = 0;
    std::uint32_t face = 0;  // compiled face the triangle belongs to (inferred)
};

struct Skin {
    std::uint16_t texture = 0;   // into the textures
    std::uint16_t lightmap = 0;  // into the lightmaps
    std::uint32_t material = 0;  // into the materials
    float ambient = 0, albedo = 0;
    std::uint32_t flags = 0;  // surface flags as Material::flags, user flags in bits 16..23
};

struct Block {
    Vec3f mins, maxs;
    std::uint32_t content = 0;
    std::vector<BlockVertex> vertices;
    std::vector<Triangle> triangles;
    std::vector<Skin> skins;
};

struct Lightmap {
    std::uint32_t width = 0, height = 0;
    std::int64_t object = -1;  // terrain lightmaps: the object they belong to
    ByteSpan pixels;           // width * height * 3 bytes, B G R (inferred from D3D's order)
};

// Everything decoded from a file's lists. Empty where the list is absent or did not decode.
struct Views {
    std::optional<Palette> palette;
    std::vector<Plane> planes;
    std::vector<Texture> textures;
    std::vector<Vec3f> vertices;
    ByteSpan pvs;
    std::vector<Node> nodes;
    std::vector<Material> materials;
    std::vector<Face> faces;
    ByteSpan lighting;
    std::vector<ClipNode> clip_nodes;
    std::vector<Leaf> leafs;
    std::vector<std::uint32_t> leaf_faces;  // bsp_blocks
    std::vector<Edge> edges;
    std::vector<std::int32_t> edge_list;
    std::vector<Model> models;
    std::vector<Object> objects;
    std::vector<Lightmap> lightmaps;
    std::vector<Block> blocks;
    std::vector<Lightmap> terrain_lightmaps;
    std::vector<std::size_t> undecoded;  // indices of lists that did not decode

    // The info object, if any.
    const Info* info() const;
    // Vertex indices of face `i` in order (from its edge references); empty if out of range.
    std::vector<std::uint32_t> face_vertices(std::size_t i) const;
};

}  // namespace lk::wmb
