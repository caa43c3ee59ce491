// SMD (Studiomdl Data) and VTA: the text model format of Source 1 studiomdl and GoldSrc
// (notes/interchange.md). One File holds any of the four blocks:
//   nodes             `id "name" parent`
//   skeleton          `time N`, then `bone px py pz rx ry rz` (Euler XYZ radians, R = Rz Ry Rx)
//   triangles         a material line, then three vertex lines:
//                     `parent px py pz nx ny nz u v [links (bone weight)*links]`
//   vertexanimation   (VTA) `time N`, then `vertex px py pz nx ny nz`; time 0 is the base pose and
//                     vertex N is the N-th vertex line of the reference SMD's triangles
// A reference SMD has one skeleton frame (the bind pose) and triangles; an animation SMD has
// frames and no triangles; a VTA has `time` lines without bones and vertex animation.
//
// Numbers are kept as doubles, so a file written with up to 15 significant digits reads back
// exactly and `write(read(f))` equals `f` in content (every name, number and link); spacing and
// the spelling of numbers follow the writer's options. `// ...` lines before `version` are kept.
// A `# text` after `time N` (Blender Source Tools names VTA shape keys so) is kept with the frame.
//
// Errors carry line:column (a block without `end`, a short line, a number that is not one); what
// can be read past (an unknown block, text after a line's values) is a warning.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"

namespace lk::smd {

struct Vec3 {
    double x = 0, y = 0, z = 0;
    constexpr bool operator==(const Vec3&) const = default;
};

struct Node {
    std::int32_t id = 0;
    std::string name;
    std::int32_t parent = -1;
    bool operator==(const Node&) const = default;
};

struct BonePose {
    std::int32_t bone = 0;
    Vec3 position;
    Vec3 rotation;  // radians, Euler XYZ
    bool operator==(const BonePose&) const = default;
};

struct Frame {
    std::int32_t time = 0;
    std::vector<BonePose> bones;
    std::string comment;  // text after '#' on the time line, trimmed
    bool operator==(const Frame&) const = default;
};

struct Link {
    std::int32_t bone = 0;
    double weight = 0;
    bool operator==(const Link&) const = default;
};

struct Vertex {
    std::int32_t parent = 0;
    Vec3 position, normal;
    double u = 0, v = 0;
    std::uint32_t first_link = 0;  // into File::links
    std::uint32_t link_count = 0;
    bool has_links = false;  // the line had a link count (GoldSrc lines have none)
};

struct Triangle {
    std::uint32_t material = 0;  // index into File::materials
    Vertex v[3];
};

struct FlexVertex {
    std::int32_t index = 0;
    Vec3 position, normal;
    bool operator==(const FlexVertex&) const = default;
};

struct FlexFrame {
    std::int32_t time = 0;
    std::vector<FlexVertex> vertices;
    bool operator==(const FlexFrame&) const = default;
};

struct File {
    int version = 1;
    std::vector<std::string> comments;  // "// ..." lines before `version`, without the slashes
    std::vector<Node> nodes;
    std::vector<Frame> skeleton;
    bool has_triangles = false;  // a triangles block is present (maybe empty)
    std::vector<std::string> materials;
    std::vector<Triangle> triangles;
    std::vector<Link> links;
    bool has_vertex_animation = false;
    std::vector<FlexFrame> vertex_animation;

    std::span<const Link> links_of(const Vertex& v) const {
        return std::span<const Link>(links).subspan(v.first_link, v.link_count);
    }
    std::uint32_t material(std::string_view name);  // index, added if new
    // Index of the node with this id, or -1.
    std::int32_t node_index(std::int32_t id) const;
};

struct ReadOptions {
    std::string source_name;  // for diagnostics only
};

Result<File> read(std::string_view text, Diagnostics& warnings, const ReadOptions& opt = {});

struct WriteOptions {
    // Digits after the point ("%.6f", what studiomdl, Crowbar and Blender Source Tools write);
    // negative = the shortest text that reads back to the same double.
    int decimals = 6;
};

std::string write(const File& file, const WriteOptions& opt = {});
// The same text handed to `out` a chunk at a time (a large animation is not held whole).
Result<void> write_to(const File& file, ByteSink& out, const WriteOptions& opt = {});

// Content equality (every value exactly; spelling and spacing aside).
bool same_content(const File& a, const File& b);

}  // namespace lk::smd
