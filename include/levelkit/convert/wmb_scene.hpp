// Gamestudio compiled levels (WMB1..7) -> neutral scene.
//
// The scene is built so that a WMB and the WMP it was compiled from convert to comparable
// scenes (wmp_scene.hpp): the same entity classes, the same `wmp_*` keys, world-space
// positions in quants times `scale`.
//
// Geometry becomes polygon meshes in the world entity:
// * WMB1..6: one mesh of every compiled face (Quake-style faces from the edge lists), wound
//   counter-clockwise seen from the front. Materials are the embedded texture names; each face
//   carries the texture axes of its surface record (texel = dot(axis, p) / scale + shift, as in
//   wmp_scene) and per-corner texture coordinates.
// * WMB7: one mesh per block. The triangles of one compiled face (WMB7 triangles name their
//   face) are joined back into one polygon; triangles that do not join stay triangles. Texture
//   coordinates come from the block vertices, texture axes from the skin's surface record.
// The mesh's editor comments carry the Gamestudio surface data in the syntax of
// wmp_scene's brush comments: `wmp block=<n> flags=<hex>`, then for every face whose surface
// differs from WED's defaults `face <i> flags=<hex> ambient=<a> albedo=<b>` ("; "-separated).
// Face flags are WED's face flag bits (the surface flags, user flags in bits 16..23).
//
// Entities, as wmp_scene maps them: the level info -> worldspawn keys (`wmp_sun_azimuth`,
// `wmp_sun_elevation`, `wmp_fog1..4`, `wmp_sun_color`, `wmp_ambient_color` as percent
// triples, plus `wmb_*` compiler data) and a light_environment; positions ->
// info_player_start; lights -> light; entities (types 3 and 7) -> prop_static, prop_dynamic
// or env_sprite by file type and action; sounds -> ambient_generic; paths -> path_track
// chains; regions -> trigger_multiple boxes. Angles become Source's "pitch yaw roll" of the
// rotation Gamestudio's (pan, tilt, roll) describe.
#pragma once

#include <cstddef>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/scene/scene.hpp"
#include "levelkit/wmb/wmb.hpp"

namespace lk::convert {

struct WmbToSceneOptions {
    double scale = 1.0;  // Hammer units per quant
    // World geometry as brushes rebuilt from the faces (scene_wmp.hpp's mesh_blocks: closed,
    // capped or thin blocks) instead of meshes; for targets without meshes, such as VMF.
    bool brushes = false;
};

struct WmbToSceneReport {
    std::size_t meshes = 0, faces = 0, triangles = 0;
    std::size_t joined_faces = 0;   // WMB7 faces rebuilt from two or more triangles
    std::size_t split_faces = 0;    // WMB7 faces whose triangles did not join (kept as triangles)
    std::size_t dropped_faces = 0;  // faces or triangles with references out of range
    std::size_t entities = 0;
    std::size_t unknown_objects = 0;  // object records of unknown types (not converted)
    std::size_t brushes = 0;          // with WmbToSceneOptions::brushes: brushes rebuilt
};

Result<scene::Scene> wmb_to_scene(const wmb::File& file, Diagnostics& diags,
                                  const WmbToSceneOptions& opt = {},
                                  WmbToSceneReport* report = nullptr);

}  // namespace lk::convert
