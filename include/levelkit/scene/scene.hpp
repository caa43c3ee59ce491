// The neutral map model conversions go through: BSP → scene → VMF, VMF → scene → VMAP,
// scene → glTF... so N formats need about 2N converters instead of N².
//
// It is format-neutral but brush-aware: brushes are convex plane sets with per-side material and
// texture axes (the Source 1 / Quake family), meshes are polygon soups with per-face material and
// per-face-vertex attributes (Source 2, models, Gamestudio blocks after conversion), entities are
// a class, ordered keyvalues, structured outputs and their geometry. Editor organisation
// (visgroups, groups, cameras, cordons) rides along because map editors need it.
//
// Units are Hammer units; coordinates are world space unless a field says otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/boxed.hpp"
#include "levelkit/core/geometry.hpp"
#include "levelkit/core/keyvalue.hpp"

namespace lk::scene {

using lk::KeyValue;

using lk::TextureAxis;

// A Source displacement: a (2^power+1)^2 vertex grid over a 4-sided brush face.
struct Displacement {
    int power = 2;
    Vec3 start_position;  // the face corner the grid starts at
    double elevation = 0;
    int flags = 0;  // VMF dispinfo flags (inverted collision bits)
    // Per vertex, row-major. Empty vectors mean "all zero" (offsets) or "not known".
    std::vector<Vec3> normals;
    std::vector<double> distances;
    std::vector<Vec3> offsets;
    std::vector<Vec3> offset_normals;
    std::vector<double> alphas;      // 0..255 blend between the material's two textures
    std::vector<int> triangle_tags;  // per triangle
    std::vector<std::int64_t> allowed_verts;
    std::vector<std::array<double, 4>> multiblend;  // 4-way blend (Alien Swarm+)
    std::vector<std::array<double, 4>> alphablend;
    std::array<std::vector<Vec3>, 4> multiblend_color;

    int grid_size() const { return (1 << power) + 1; }
    bool operator==(const Displacement&) const = default;
};

struct BrushSide {
    Plane plane;                                // outward normal (VBSP convention)
    std::optional<std::array<Vec3, 3>> points;  // exact plane points when the source had them
    std::string material;
    TextureAxis u, v;
    double lightmap_scale = 16;
    std::uint32_t smoothing_groups = 0;
    Boxed<Displacement> displacement;
    std::vector<Vec3> exact_polygon;  // a stored exact polygon (Hammer++/Strata), if any
    std::int64_t id = 0;              // source side id (overlays and cubemaps refer to it)
    bool operator==(const BrushSide&) const = default;
};

// Editor organisation shared by brushes and entities.
struct EditorInfo {
    std::optional<std::array<int, 3>> color;
    std::vector<std::int64_t> visgroups;
    std::optional<std::int64_t> group;
    bool hidden = false;
    std::string comments;
    bool operator==(const EditorInfo&) const = default;
};

struct Brush {
    std::int64_t id = 0;
    std::vector<BrushSide> sides;
    EditorInfo editor;
    bool operator==(const Brush&) const = default;
};

// A polygon mesh. Faces index `positions`; per-face-vertex attributes run parallel to
// `face_vertices` (one entry per corner, faces in order).
struct Mesh {
    struct Face {
        std::uint32_t first = 0;  // into face_vertices
        std::uint32_t count = 0;
        std::uint32_t material = 0;  // into materials
        TextureAxis u, v;            // planar mapping, if the face has one
        bool operator==(const Face&) const = default;
    };
    std::vector<Vec3> positions;
    std::vector<std::uint32_t> face_vertices;  // position indices, counter-clockwise from outside
    std::vector<Face> faces;
    std::vector<std::string> materials;
    std::vector<std::array<double, 2>> uvs;     // per face-vertex (texture space, 0..1 per tile)
    std::vector<Vec3> normals;                  // per face-vertex, optional
    std::vector<std::array<double, 4>> colors;  // per face-vertex, optional (e.g. blend alpha)
    std::int64_t id = 0;
    EditorInfo editor;
    bool operator==(const Mesh&) const = default;
};

struct Output {
    std::string output;
    std::string target;
    std::string input;
    std::string param;
    double delay = 0;
    int times = -1;  // -1 = unlimited
    // The source's value text when it could not be split into the fields above; writers that
    // cannot represent it report it.
    std::optional<std::string> unparsed;
    bool operator==(const Output&) const = default;
};

struct Entity {
    std::int64_t id = 0;
    std::vector<KeyValue> keys;  // ordered, including classname/origin/angles as written
    std::vector<Output> outputs;
    std::vector<Brush> brushes;  // world space
    std::vector<Mesh> meshes;    // world space
    EditorInfo editor;
    std::optional<std::array<double, 2>> logical_pos;

    std::string_view get(std::string_view key, std::string_view fallback = {}) const;
    void set(std::string_view key, std::string_view value);  // replaces the first or appends
    void erase(std::string_view key);
    std::string_view classname() const { return get("classname"); }
    std::optional<Vec3> origin() const;
    std::optional<Vec3> angles() const;
    bool operator==(const Entity&) const = default;
};

struct Visgroup {
    std::string name;
    std::int64_t id = 0;
    std::optional<std::array<int, 3>> color;
    std::vector<Visgroup> children;
    bool operator==(const Visgroup&) const = default;
};

struct Group {
    std::int64_t id = 0;
    EditorInfo editor;  // a group can itself be in a group or visgroup
    bool operator==(const Group&) const = default;
};

using lk::Camera;

struct Cordon {
    std::string name;
    bool active = false;
    std::vector<Aabb> boxes;
};

struct Scene {
    Entity world;                  // classname worldspawn; world brushes and meshes
    std::vector<Entity> entities;  // in source order
    std::vector<Visgroup> visgroups;
    std::vector<Group> groups;
    std::vector<Camera> cameras;
    int active_camera = -1;
    std::vector<Cordon> cordons;
    bool cordons_active = false;
    // Where it came from ("vmf", "bsp", "vmap", "wmp") and notes a writer may need.
    std::string source_format;
    // How the source separated output fields ('\x1b' or ','), for writers whose format has a
    // choice (VMF: older Hammer builds read only commas); 0 = the source did not say.
    char output_separator = 0;
    std::vector<KeyValue> metadata;
    // Texture sizes in texels (width, height) the source knows, by lower-case material name (a
    // BSP's texdata, a WMB's embedded textures). Consumers take texture coordinates from them
    // before any size they are given.
    std::map<std::string, std::array<double, 2>> texture_sizes;
};

// Counts for reports.
struct Counts {
    std::size_t entities = 0, brushes = 0, sides = 0, displacements = 0, meshes = 0, faces = 0,
                outputs = 0;
};
Counts count(const Scene& s);

}  // namespace lk::scene
