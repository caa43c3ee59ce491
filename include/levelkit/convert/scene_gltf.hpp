// Neutral scene -> glTF 2.0 (.glb, or .gltf + .bin): a map that Blender, a browser or a game
// engine can open.
//
// Geometry comes from scene::build_surfaces (brush faces, displaced grids, mesh faces), so it is
// the geometry every other consumer draws. What the file holds:
//  * Nodes. One root node (the map), and under it a node per entity named by its targetname,
//    else its classname, with every keyvalue in `extras` (a key written twice becomes an array
//    of its values; outputs are `extras.outputs`, one "output target,input,param,delay,times"
//    string each). The world is the node "worldspawn". Entities with geometry own their mesh
//    and sit at their "origin" (the mesh is relative to it); point entities are empty nodes at
//    their origin, turned by their angles. Props (prop_* classes and models named *.mdl /
//    *.vmdl) keep the model path in `extras.model`; `prop_boxes` gives each a small placeholder
//    box. Lights (light, light_spot, light_environment, light_dynamic, Source 2 light_omni /
//    light_spot / light_sun) become KHR_lights_punctual lights. The 3D skybox (scene::find_skybox)
//    is a node "3D skybox" holding its share of the world, the sky_camera and the entities inside
//    it, with the camera's scale and origin in `extras` (it stays where it is in the map).
//  * Meshes. One mesh per entity, one primitive per material (triangles), with POSITION, NORMAL,
//    TEXCOORD_0 and, where a piece has colours other than white (displacement blend alpha),
//    COLOR_0. Vertices are deduplicated and the index order optimised for the vertex cache
//    (meshoptimizer); indices are 16-bit where the vertex count allows. `quantize` stores
//    positions as 16-bit integers and normals as 8-bit (KHR_mesh_quantization) on a child node
//    that carries the dequantisation.
//  * Materials. One per distinct drawn material, named by its path, with a stable colour
//    (scene::material_color, as pictures use), not metallic, fully rough. Textures are not
//    embedded. Tool materials are left out unless `tools`; kept ones are drawn half transparent.
//  * Units and axes. Source and Gamestudio maps are Z up in inches; glTF is Y up in metres:
//    (x, y, z) -> (x, z, -y) * scale, a rotation, so nothing is mirrored and windings stay
//    counter-clockwise. Texture coordinates are texels / texture size (V down, as glTF has it).
//
// Output is deterministic: the same scene and options give the same bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk::convert {

struct GltfOptions {
    // Metres per map unit (Hammer unit / Gamestudio quant = 1 inch).
    double scale = 0.0254;
    // Texels per texture repeat where the size is not known (square).
    double texture_size = 512;
    // A game's materials folder (or the folder holding materials/ or WADs): texture sizes are
    // read from VMT -> VTF headers and WAD/PCX/BMP/TGA headers there (convert::TextureSizes).
    std::filesystem::path materials_dir;
    // Or sizes from the caller ({0, 0} = unknown). Takes precedence over materials_dir.
    std::function<std::array<double, 2>(std::string_view material)> texture_size_of;
    bool tools = false;       // keep faces with tool materials (nodraw, clip, trigger, skybox...)
    bool prop_boxes = false;  // a placeholder box mesh on every prop node
    bool quantize = false;    // KHR_mesh_quantization
    bool lights = true;       // KHR_lights_punctual lights for light entities
    bool skybox = true;       // put the 3D skybox under its own node
    bool smoothing_groups = true;  // smooth normals where brush sides share smoothing groups
    // Export a compiled BSP's decompiled brushes instead of its compiled faces. The scene
    // producer reads this (bsp_drawable_scene in bsp_faces.hpp; give texture_size_of
    // bsp_texture_sizes(map) so the brushes' UVs use the texdata sizes); the writer itself
    // ignores it.
    bool bsp_brushes = false;
    // GLB (one file) or .gltf JSON with a separate .bin named `bin_name`.
    bool binary = true;
    std::string bin_name = "scene.bin";
    // Name of the root node (e.g. the map's file name); "map" if empty.
    std::string name;
};

struct GltfReport {
    std::size_t nodes = 0, meshes = 0, primitives = 0, materials = 0, lights = 0, props = 0;
    std::size_t polygons = 0, triangles = 0, vertices = 0;
    std::size_t tool_faces_skipped = 0;
    std::size_t skipped_brushes = 0;  // brushes without a valid solid (warned)
    bool skybox = false;
    std::size_t skybox_polygons = 0;
    std::size_t textures_sized = 0, textures_unsized = 0;  // with materials_dir
};

struct GltfFiles {
    bool binary = true;
    Bytes glb;             // binary: the whole .glb
    std::string json;      // !binary: the .gltf text
    Bytes bin;             // !binary: the buffer it refers to as `bin_name`
    std::string bin_name;  // !binary
    GltfReport report;
};

// Fails only when the scene cannot be expressed at all (more than 4 GiB of buffer data);
// brushes that do not form a solid are skipped with a warning in `diags`.
Result<GltfFiles> scene_to_gltf(const scene::Scene& s, const GltfOptions& opt, Diagnostics& diags);

// Writes the files atomically: `path` (.glb or .gltf) and, for .gltf, the .bin beside it.
Result<void> save_gltf(const GltfFiles& files, const std::filesystem::path& path);

}  // namespace lk::convert
