// Compiled Source map (BSP) -> neutral scene of what the game draws: its compiled faces and
// displacements as meshes, for pictures and glTF (bsp_scene.hpp rebuilds editable brushes
// instead).
//
//  * Faces: every face of every model (faces lump; vertices through surfedges and edges), wound
//    counter-clockwise seen from the front (the scene's convention; the lump winds them the
//    other way), with the material of its texdata (cubemap-patched names mapped back to the
//    material they patch, unpatch_material) and texture coordinates by the engine's formula on
//    the model-space position p: u = (dot(p, s.xyz) + s.w) / width, v = (dot(p, t.xyz) + t.w) /
//    height, with s and t the texinfo's texture vectors and width/height the texdata's.
//    Vertex normals come from the map's vertex normal lumps when they match the faces lump;
//    otherwise faces are flat.
//  * Displacements: the displaced grid from DISP_VERTS (flat grid + vector * distance), as
//    triangles in the engine's alternating pattern, with the blend alpha as the vertex colour's
//    alpha, smooth normals and texture coordinates of the flat grid.
//  * Meshes: the world's faces go into one mesh per BSP area (the area of the leaf in front of
//    each face), so the 3D skybox (usually an area of its own) can be told apart; the faces of
//    a brush entity's model ("model" "*N") are a mesh of that entity, moved from model space to
//    its "origin" (its "angles" stay a key, as the decompiler keeps them).
//  * Entities: every block of the entity lump with its keys in order and its outputs as Output
//    records; worldspawn's keys go to the world. Static props become prop_static entities with
//    origin, angles, model, skin, solid (and their scale where the lump has one).
// Overlays, decals, detail props and water overlays are not drawn here.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <string_view>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk::convert {

struct BspFacesOptions {
    bool static_props = true;
    // Map "maps/<map>/brick/wall_1_2_3" back to "brick/wall" (off: keep what the lump names).
    bool unpatch_materials = true;
    // Texels per repeat for texdata without a size.
    double default_texture_size = 512;
};

struct BspFacesReport {
    std::size_t models = 0, faces = 0, displacements = 0, meshes = 0, entities = 0,
                brush_entities = 0, static_props = 0;
    std::size_t faces_skipped = 0;     // indices out of range, fewer than 3 corners (warned)
    std::size_t degenerate_faces = 0;  // faces without area (not drawn, not warned)
    bool vertex_normals = false;       // the vertex normal lumps were used
};

// Fails when the lumps faces are built from (vertices, edges, surfedges, faces, texinfo,
// texdata and its strings, models) or the entity lump cannot be read; displacements, static
// props and the area split are skipped with a warning when their lumps do not parse.
Result<scene::Scene> bsp_faces_to_scene(const bsp::Bsp& map, Diagnostics& diags,
                                        const BspFacesOptions& opt = {},
                                        BspFacesReport* report = nullptr);

// The scene to draw or export a BSP from: its compiled faces (bsp_faces_to_scene), or with
// `brushes` its decompiled brushes (bsp_to_scene), carrying the texdata sizes.
Result<scene::Scene> bsp_drawable_scene(const bsp::Bsp& map, bool brushes, Diagnostics& diags);

// Texture sizes the map's texdata records, by lower-case material name (cubemap-patched names
// also under the material they patch), for scene::Scene::texture_sizes. Empty when the texdata
// lumps do not parse.
std::map<std::string, std::array<double, 2>> bsp_texture_sizes(const bsp::Bsp& map);

}  // namespace lk::convert
