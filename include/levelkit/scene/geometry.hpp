// Drawable geometry of a neutral scene: brush face polygons, displaced grids and mesh faces as
// one polygon soup, for every consumer that draws or exports a map (OBJ, glTF, pictures,
// `levelkit geometry`). The rules live here once:
//  * brush faces are clipped from the side planes in double precision (build_brush_polygons),
//    relative to the mean of the sides' plane points;
//  * a side with a displacement is its displaced grid (lk::displacement_grid), as Hammer and the
//    engine draw it; its texture coordinates come from the flat grid, as the engine computes them;
//  * mesh faces are taken as they are, with their own UVs where they have them.
// Every polygon is wound counter-clockwise seen from outside (glTF's and OBJ's convention; the
// opposite of Hammer's brush windings). Coordinates are the scene's (Hammer units, Z up).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/geometry.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk::scene {

// Texel coordinate of `p` along a Hammer texture axis: dot(p, axis) / scale + shift.
double texel(const TextureAxis& a, const Vec3& p);

// The colour pictures and glTF materials give a material where its texture is not at hand:
// stable across runs and platforms (a hash of its lower-case name), RGB in 0..1.
std::array<double, 3> material_color(std::string_view material);

// Materials map compilers and engines never draw: tools/* in Source 1 ("tools/toolsnodraw",
// "TOOLS/TOOLSCLIP"...) and materials/tools/*.vmat in Source 2, case-insensitive.
bool is_tool_material(std::string_view material);

struct BrushPolygonOptions {
    // Use a side's stored exact polygon (Hammer++ vertices_plus, Strata point_data) where present.
    bool prefer_exact_polygons = false;
    BrushClipOptions clip;
};

// Every side's face polygon, in Hammer's winding (clockwise seen from outside), as
// vmf::solid_polygons gives it for a VMF solid. `out.problems` says why a brush is invalid.
void brush_polygons(const Brush& brush, BrushPolygons& out, const BrushPolygonOptions& opt = {});

// The displaced grid of `side` over its face polygon (4 points), or nullopt.
std::optional<std::vector<Vec3>> displacement_grid(const BrushSide& side,
                                                   std::span<const Vec3> face);
// The same grid without elevation, offsets and distances: where texture coordinates are taken.
std::optional<std::vector<Vec3>> flat_displacement_grid(const BrushSide& side,
                                                        std::span<const Vec3> face);

struct SurfaceOptions {
    BrushPolygonOptions polygons;
    // Leave out faces whose material is_tool_material (nodraw, skip, hint, clip, triggers...).
    bool skip_tool_materials = false;
    // Texels per texture repeat (width, height) of a material; UVs are texels / size. Sizes the
    // scene knows (Scene::texture_sizes) come first; then this; then default_texture_size.
    std::function<std::array<double, 2>(std::string_view material)> texture_size;
    double default_texture_size = 512;
    // Corners of polygons with smoothing groups get the mean normal of the polygons of the same
    // entity that meet at the corner's position and share a group bit with theirs (Hammer's
    // smoothing groups, as VRAD lights them). Off: brush faces stay flat.
    bool smoothing_group_normals = false;
};

// A polygon soup in world space, in pieces of one brush or one mesh each.
struct Surfaces {
    enum class PieceKind : std::uint8_t { brush, displacement, mesh };
    struct Piece {
        std::size_t entity = 0;  // 0 = the world, i + 1 = scene.entities[i]
        std::int64_t id = 0;     // the brush's or mesh's id
        PieceKind kind = PieceKind::brush;
        std::uint32_t first_polygon = 0, polygon_count = 0;
    };
    struct Skipped {
        std::size_t entity = 0;
        std::int64_t id = 0;
        std::string reason;
    };

    std::vector<std::string> materials;  // distinct, in first-use order
    // Per corner.
    std::vector<Vec3> positions;
    std::vector<Vec3> normals;                  // unit; flat for brush and mesh faces without
    std::vector<std::array<double, 2>> uvs;     // in texture repeats, V down as in the texture
    std::vector<std::array<double, 4>> colors;  // RGBA 0..1; empty when no piece has colours
    // Per polygon: polygon i has corners [polygon_begin[i], polygon_begin[i + 1]).
    std::vector<std::uint32_t> polygon_begin{0};
    std::vector<std::uint32_t> polygon_material;
    std::vector<std::uint32_t> polygon_smoothing;  // smoothing group bits (0 = flat)
    std::vector<Piece> pieces;
    std::vector<Skipped> skipped;  // brushes without a valid solid, faces without area
    std::size_t tool_faces_skipped = 0;

    std::size_t polygon_count() const { return polygon_material.size(); }
    std::span<const Vec3> polygon(std::size_t i) const {
        return {positions.data() + polygon_begin[i], polygon_begin[i + 1] - polygon_begin[i]};
    }
    // Triangles of all polygons: Σ(corners - 2).
    std::size_t triangle_count() const;
};

Surfaces build_surfaces(const Scene& s, const SurfaceOptions& opt = {});

// The 3D skybox of a Source map: the world geometry around a sky_camera that stands apart from
// the rest of the map. Found from the world pieces alone: pieces whose bounds touch (within one
// unit) form groups; the smallest group whose bounds hold the camera is the skybox room, and
// every world piece inside its bounds belongs to it. Nothing is found when there is no
// sky_camera, when the camera is in no group, when that group is the whole world (a skybox
// built against the map) or when a player start (info_player_*) is inside it. Build the
// surfaces with tool materials kept: the room's walls are usually tools/toolsskybox.
struct Skybox {
    std::size_t camera = 0;    // the sky_camera: i + 1 = scene.entities[i]
    Vec3 origin;               // the camera's origin
    double scale = 16;         // the camera's "scale" key (how much larger the game draws it)
    Aabb bounds;               // of the skybox pieces
    std::vector<bool> pieces;  // per Surfaces piece: part of the skybox
};
std::optional<Skybox> find_skybox(const Scene& s, const Surfaces& surfaces);

// Bounds of the polygons of one piece.
Aabb piece_bounds(const Surfaces& surfaces, const Surfaces::Piece& piece);

}  // namespace lk::scene
