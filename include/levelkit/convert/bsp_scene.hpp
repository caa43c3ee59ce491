// Compiled Source map (BSP) -> neutral scene: the decompiler behind `levelkit convert map.bsp
// map.vmf`. scene_to_vmf (vmf_scene.hpp) turns the result into a Hammer-loadable VMF.
//
// What comes back, and from where:
//  * Brushes from the brush and brush side lumps. Each model's brushes are found by walking its
//    BSP tree; bevel sides (flagged) are skipped, and so are unflagged planes that only touch
//    the solid at an edge or corner (vbsp appends axial ones at a brush's bounds); side
//    polygons are clipped from the planes in double precision and three plane points are
//    taken on the real face (snapped to whole units where that gives back the compiled
//    plane). Brush entity models are stored relative to the entity's origin and are moved
//    back; their "angles" stay a key, as Hammer keeps it.
//  * Every real side is written or reported lost: a lost side (a plane outside the lump or
//    repeated as a placeholder, a brush that forms no solid, a model no entity names, a
//    displacement that cannot be rebuilt) is listed in the report with its brush and solid
//    and is an error diagnostic, so a conversion that loses one fails.
//  * Textures: uaxis/vaxis/scale/shift inverted from texinfo (fractional shifts kept; an
//    entity brush's shift is rounded to the whole number single precision cannot tell from
//    it), lightmapscale from the lightmap vectors. Sides with a face keep their face's
//    texture. vbsp re-points a side without a face at the lowest texinfo a face uses with the
//    same flags and surface properties: its texinfo is its own when a lower one of the same
//    material and flags is on a face (or none is); otherwise it takes the material its brush
//    shows when a side of that material could have been re-pointed there, and axes that do
//    not span it are rebuilt as Hammer's world or face alignment (ruling out the one whose
//    texinfo a face uses). Sides whose surface flags say tool get the tool texture their
//    contents and flags imply. Material names vbsp patched for cubemaps or blends
//    ("maps/<map>/<material>_X_Y_Z", "_wvt_patch") are mapped back.
//  * Entities from the entity lump with outputs split into Output records; "model" "*N" brush
//    entities get their brushes; func_detail is rebuilt from detail brushes (an entity's
//    brushes are consecutive in the lump: groups never span a proven boundary, touching
//    brushes within one are grouped; brushes made detail by tool materials alone stay in the
//    world); func_areaportal and func_occluder get their brushes back by the best overlap
//    (Hungarian method); an info_ladder becomes a func_ladder with the ladder brushes inside
//    its bounds, and maps without any info_ladder get a func_ladder per ladder brush. Static
//    props become prop_static, overlays info_overlay (sides = the rebuilt side ids; Strata's
//    overlay lump version 3 too), cubemaps env_cubemap, displacements displacement brushes
//    with full dispinfo.
//  * Not recoverable, and counted in the report: visgroups and editor state, instances (already
//    collapsed), func_viscluster, how func_detail entities were split where no boundary
//    shows, the textures of sides vbsp re-pointed, lighting and visibility results, detail
//    props (vbsp makes them again), water overlays.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk::convert {

struct BspToSceneOptions {
    // Group func_detail brushes whose bounds touch into one entity (off: one entity per brush).
    bool merge_detail = true;
    // One thin brush per original face instead of the brush lump (maps with stripped or
    // obfuscated brushes): right textures, approximate solids.
    bool faces_mode = false;
    bool static_props = true;
    bool overlays = true;
    // The map's name, for cubemap-patched materials "maps/<name>/..."; empty: taken from the
    // patched names themselves.
    std::string map_name;
};

// Counts of what was rebuilt and what could not be, by kind.
struct BspToSceneReport {
    struct Recovered {
        std::size_t world_brushes = 0, detail_brushes = 0, func_detail = 0, entity_brushes = 0,
                    areaportal_brushes = 0, occluder_brushes = 0, ladder_brushes = 0,
                    closed_brushes = 0,  // sides missing from the lump, closed by leaf bounds
            displacements = 0, face_brushes = 0, sides = 0,
                    lump_sides = 0,  // sides written that are brush side lump entries
            visible_sides = 0, tool_sides = 0, unpatched_materials = 0, entities = 0,
                    brush_entities = 0, outputs = 0, static_props = 0, lighting_origins = 0,
                    overlays = 0, cubemaps = 0, cubemap_sides = 0, areaportals = 0, occluders = 0,
                    ladders = 0;
    } recovered;
    struct Lost {
        std::size_t invalid_brushes = 0, dropped_sides = 0, unowned_brushes = 0,
                    areaportals_unmatched = 0, occluders_unmatched = 0, overlays_skipped = 0,
                    overlay_sides_unmapped = 0, water_overlays = 0, static_props_skipped = 0,
                    detail_props = 0, worldlights = 0, compiler_entities = 0,
                    displacement_multiblend = 0, cubemap_sides = 0;
        bool visibility = false;  // PVS/PAS and func_viscluster are compile results
    } lost;
    // Sides of the brush lump that are not sides of the source brushes and are left out: those
    // flagged as bevels, and planes that only touch the solid at an edge or corner (vbsp adds
    // axial planes at a brush's bounds without the flag).
    struct Skipped {
        std::size_t bevel_sides = 0, redundant_sides = 0;
    } skipped;
    // Every real side that could not be rebuilt (lost.dropped_sides counts them); each is also
    // an error diagnostic (up to a limit).
    struct LostSide {
        std::int64_t brush = -1;       // brush lump index; -1 for a displacement
        std::int64_t brush_side = -1;  // brush side lump index, -1 if unknown
        std::int64_t dispinfo = -1;    // displacement index, -1 for brush sides
        std::int64_t solid_id = 0;     // the written solid the side belonged to; 0 if none
        std::string reason;
    };
    std::vector<LostSide> lost_sides;
    // Lumps that could not be read (their contents are skipped, named here).
    std::vector<std::string> unreadable_lumps;
};

// Decompiles `map`. Fails only when the lumps brushes are built from (planes, brushes, brush
// sides, models, nodes, leafs, leaf brushes, texinfo, texdata) or the entity lump cannot be read;
// other lumps that do not parse are skipped with a warning. Problems with individual brushes
// (no valid solid) are warnings in `diags` and counts in the report.
Result<scene::Scene> bsp_to_scene(const bsp::Bsp& map, Diagnostics& diags,
                                  const BspToSceneOptions& opt = {},
                                  BspToSceneReport* report = nullptr);

// The material a vbsp-patched name stands for: "maps/<map>/brick/wall01_12_-40_96" ->
// "brick/wall01" (and the cubemap origin in `cubemap` when given), "<...>_wvt_patch" -> the
// blend material, "<...>_depth_<n>" (water) -> the water material. Other names are returned
// unchanged. `map_name` empty accepts any map folder.
std::string unpatch_material(std::string_view name, std::string_view map_name = {},
                             std::array<int, 3>* cubemap = nullptr);

}  // namespace lk::convert
