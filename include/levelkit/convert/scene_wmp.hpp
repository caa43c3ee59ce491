// Neutral scene -> Gamestudio WMP level (WMP2 text, `version 710`, as WED 6-8 save it).
//
// With wmb_scene.hpp this recovers an editable source from a compiled WMB; through the scene it
// also turns VMF, BSP or VMAP maps into WMP levels.
//
// Blocks. Every brush of the scene (world and brush entities) becomes a block with one face
// per side. Polygon meshes have no block structure, so blocks are rebuilt from their faces:
// * a mesh whose faces close a convex solid (every face plane keeps every corner behind it,
//   and the faces on each plane cover that plane's side of the solid; compiled levels split
//   faces, so faces need not share edges) becomes one block;
// * otherwise faces are grouped across convex edges (two faces sharing two corners, each
//   behind the other's plane), and every group that closes a convex solid becomes a block;
// * a convex group (or mesh) that does not close, because the compiler dropped the faces
//   where blocks touch or cut them away, is closed by the planes of its bounding box, as long
//   as each of its faces lies on the resulting solid's surface ("capped" blocks: the cap faces
//   get the group's main material and default surface);
// * every remaining face becomes a thin block: the face, pushed back by `thin_thickness`
//   quants into a prism. Coplanar faces of one material whose union is convex (a compiled face
//   split into pieces) are merged first; non-convex faces are cut into triangles.
// The report counts each kind. Each block face keeps its material and texture axes (WED's
// texture vectors are the scene's axes; offsets and scales go into the face's placement
// controls) and the Gamestudio surface fields that wmp_scene/wmb_scene wrote into the editor
// comments (`wmp block=<n> flags=<hex> [function=<f>]; side|face <i> flags=<hex> ambient=<a>
// albedo=<b> [material=<m>]`).
//
// Entities, back from the `wmp_*` keys wmp_scene/wmb_scene write, or from the Source keys of
// other scenes: worldspawn -> the level record (sun, fog and ambient colours); light_environment
// -> the sun when the world has no `wmp_sun_*` keys; info_player_start -> start; light ->
// light; ambient_generic -> sound; path_track chains -> paths (grouped by `wmp_path`, or by
// their target links); trigger_multiple with `wmp_mins`/`wmp_maxs` -> region; any other
// entity with a `model` key -> model (sprites, map entities and terrain by file type). Other
// point entities have no WMP form and are reported. Angles become WED's object angles.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/scene/scene.hpp"
#include "levelkit/wmp/level.hpp"

namespace lk::convert {

struct SceneToWmpOptions {
    double scale = 1.0;           // Hammer units per quant (as in WmpToSceneOptions)
    double thin_thickness = 4.0;  // quants
    std::string wad;  // level WAD name (`<name.$$w>`); default: the scene's or "level.$$w"
};

struct SceneToWmpReport {
    std::size_t brush_blocks = 0;     // blocks from scene brushes
    std::size_t solid_blocks = 0;     // blocks rebuilt from closed convex groups of mesh faces
    std::size_t capped_blocks = 0;    // convex groups closed by bounding-box faces
    std::size_t thin_blocks = 0;      // blocks made from single (merged) faces
    std::size_t merged_faces = 0;     // mesh faces merged into a coplanar neighbour first
    std::size_t split_faces = 0;      // non-convex faces cut into triangles
    std::size_t dropped_faces = 0;    // faces without area
    std::size_t invalid_brushes = 0;  // scene brushes whose planes do not close (skipped)
    std::size_t entities = 0;         // WMP entities written (models, lights, ... regions)
    std::vector<std::string> skipped_entities;  // classes without a WMP form
};

Result<wmp::Level> scene_to_wmp(const scene::Scene& scene, Diagnostics& diags,
                                const SceneToWmpOptions& opt = {},
                                SceneToWmpReport* report = nullptr);

// The blocks scene_to_wmp rebuilds from `mesh`, as scene brushes in the mesh's units (for
// targets that want brushes, e.g. WMB -> VMF): one side per block face, its plane points on the
// face, material and texture axes, the Gamestudio surface fields in the editor comments as
// wmp_scene writes them. The report counts them as scene_to_wmp does.
std::vector<scene::Brush> mesh_blocks(const scene::Mesh& mesh, Diagnostics& diags,
                                      const SceneToWmpOptions& opt = {},
                                      SceneToWmpReport* report = nullptr);

// WED's stored object angles (radians, R = Rz(a0) * Rx(a1) * Ry(-a2), see wmp/level.hpp) of a
// rotation; the inverse of wmp::object_rotation.
Vec3 wed_object_angles(const Mat3& rotation);

}  // namespace lk::convert
