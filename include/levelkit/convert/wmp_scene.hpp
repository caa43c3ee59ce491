// Gamestudio levels -> neutral scene (and from there to VMF with scene_to_vmf).
//
// WMP2 and WMPB levels are resolved first (resolve.hpp), so everything works in world space;
// `$$M` levels are already resolved.
//
// Units. One Gamestudio quant becomes `scale` Hammer units (default 1): both engines treat
// their unit as roughly an inch, and WED maps one quant to one texel of an unscaled texture as
// Hammer maps one unit to one texel at texture scale 1.
//
// Blocks -> brushes. Each face polygon gives a side whose three plane points are chosen on the
// face (WED winds faces as VBSP does). Faces on the same plane as an earlier face of the block
// are merged into it (WED may split a side into several polygons). A block becomes a brush only
// if it is closed (every edge shared by two faces), convex (no vertex outside any face plane by
// more than 0.01 units) and its planes rebuild a valid brush; otherwise it is reported in
// WmpToSceneReport::rejected and kept as a world mesh, which VMF cannot hold (scene_to_vmf warns).
//
// Textures. WED's texture vectors give texel = dot(t, p) + offset; Hammer's axes give texel =
// dot(axis, p) / scale + shift. So axis = t / |t|, scale = |t|^-1 * scale factor, shift =
// offset: the texel mapping is the same. Material names are the WAD texture names unchanged.
//
// Flags. VMF sides have no free fields, so each brush carries its Gamestudio data in its editor
// comments: `wmp block=<index> flags=<hex> [function=<name>]` and, for every side whose
// surface differs from WED's defaults, `side <n> flags=<hex> ambient=<a> albedo=<b>
// [material=<m>]`, separated by "; ". Face flag bits: 0 unshaded, 1 flat, 2 sky, 3 water,
// 13 smooth, 14 mirror, 16-23 user flags 1-8.
//
// Entities. Every entity keeps all of its Gamestudio fields as `wmp_*` keyvalues next to the
// nearest Source equivalent:
//   level  -> worldspawn keys, plus light_environment for the sun (angles, sun/ambient colour)
//   start  -> info_player_start
//   light  -> light (`_light` "R G B 200" from the percent colour, `_distance` from the range)
//   sound  -> ambient_generic (`message` file, `health` volume / 10, `radius` range)
//   model  -> prop_static (no action) or prop_dynamic (with an action); sprites (.pcx, .tga,
//             .bmp, .dds) -> env_sprite; terrain (.hmp) and map entities (.wmb) -> prop_static
//             with `wmp_kind`
//   path   -> a path_track chain (`target` along the first outgoing edge, `altpath` the second)
//   region -> trigger_multiple with a box brush (tools/toolstrigger)
// Angles become Source's "pitch yaw roll" of the same rotation.
//
// A3 levels (2.5D) have no blocks: walls become thin brushes from the lower floor to the upper
// ceiling of their regions, things/actors/player start/ways become entities.
#pragma once

#include <string>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/scene/scene.hpp"
#include "levelkit/wmp/level.hpp"

namespace lk::convert {

struct WmpToSceneOptions {
    double scale = 1.0;  // Hammer units per quant
};

struct WmpToSceneReport {
    struct Rejected {
        std::size_t block = 0;  // index among the resolved blocks
        std::string reason;     // "open", "non-convex", "invalid brush: <problem>", ...
    };
    std::size_t blocks = 0, brushes = 0, sides = 0;
    std::size_t merged_faces = 0;      // coplanar faces folded into one side
    std::size_t degenerate_faces = 0;  // faces without area (dropped)
    std::vector<Rejected> rejected;    // blocks kept as meshes instead of brushes
    std::size_t entities = 0;
};

// `level` may be WMP2, WMPB or `$$M`.
Result<scene::Scene> wmp_to_scene(const wmp::Level& level, Diagnostics& diags,
                                  const WmpToSceneOptions& opt = {},
                                  WmpToSceneReport* report = nullptr);

scene::Scene a3_to_scene(const wmp::A3Level& level, Diagnostics& diags,
                         const WmpToSceneOptions& opt = {}, WmpToSceneReport* report = nullptr);

}  // namespace lk::convert
