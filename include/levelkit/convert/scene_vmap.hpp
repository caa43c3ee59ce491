// Neutral scene <-> Source 2 vmap (notes/vmf.md §3).
//
// scene → vmap: every brush becomes one CMapMesh (world brushes and func_detail under the world,
// brush entities' brushes under their CMapEntity), built as a closed half-edge mesh from the
// brush's face polygons with Hammer's face streams (texture axes, scale, material index) and
// per-corner texcoords/normals/tangents, so the UVs equal the source's texture projection.
// Displacement sides become triangle meshes of the displaced grid (the brush's other sides are
// dropped, as VBSP does), with the blend alpha in a VertexPaintBlendParams stream. Point and
// brush entities become CMapEntity nodes (origin/angles on the node, other keys in
// entity_properties, outputs as DmeConnectionData), func_instance a CMapPrefab, groups CMapGroup,
// hidden objects visibility-manager entries, cameras 3dcameras.
//
// vmap → scene: every CMapMesh is read back as a scene mesh in world space (texture axes from the
// face streams, a VertexPaintBlendParams stream's blend weight as the colours' alpha), entities
// with their properties, node transform and outputs. scene → VMF turns grid-shaped meshes back
// into displacements (mesh_displacement.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/dmx/document.hpp"
#include "levelkit/scene/scene.hpp"
#include "levelkit/vmap/vmap.hpp"

namespace lk::convert {

// "BRICK/Wall01" → "materials/brick/wall01.vmat" (Source 2 keeps the path, lower case).
std::string vmat_path(std::string_view vmt_material);
// The inverse: "materials/brick/wall01.vmat" → "brick/wall01" (other paths are kept as they are).
std::string vmt_material(std::string_view vmat);

struct SceneToVmapOptions {
    std::uint64_t seed = 0x6c6576656c6b6974;  // element GUIDs and reference ids derive from it
    // Texels per texture repeat, for the texcoord stream (a VMF does not know its textures'
    // sizes; Hammer recomputes texcoords from the face axes once the material is loaded).
    std::function<std::array<double, 2>(std::string_view material)> texture_size;
    double default_texture_size = 512;
    vmap::BuildOptions build;
    // When set, each mesh's data is encoded into `packed` as it is made (MapBuilder::pack_meshes):
    // the output is then written with dmx::write_to(doc, *packed, sink), binary 9 only, in a
    // third of the memory.
    dmx::PackedSubtrees* packed = nullptr;
};

struct SceneToVmapReport {
    std::size_t meshes = 0, faces = 0, brushes = 0, displacements = 0;
    std::size_t brushes_skipped = 0;  // invalid brushes (no closed polyhedron)
    std::size_t entities = 0, outputs = 0, prefabs = 0, groups = 0;
    std::size_t outputs_unparsed = 0;  // written with their whole text as the target name
    std::size_t hidden = 0, cameras = 0;
    std::size_t visgroups_dropped = 0, cordon_boxes_dropped = 0, instance_variables_dropped = 0;
};

dmx::Document scene_to_vmap(const scene::Scene& s, Diagnostics& diags,
                            const SceneToVmapOptions& opt = {},
                            SceneToVmapReport* report = nullptr);
// The same output from a scene the caller gives up: each brush, mesh and entity is freed once
// it is converted, so the scene's memory is reused for the output (`s` is left empty).
dmx::Document scene_to_vmap(scene::Scene&& s, Diagnostics& diags,
                            const SceneToVmapOptions& opt = {},
                            SceneToVmapReport* report = nullptr);

struct VmapToSceneReport {
    std::size_t meshes = 0, entities = 0, prefabs = 0;
    std::vector<std::int32_t> unreadable_meshes;  // nodeIDs of meshes whose topology is invalid
};

scene::Scene vmap_to_scene(const vmap::Map& map, Diagnostics& diags,
                           VmapToSceneReport* report = nullptr);

}  // namespace lk::convert
