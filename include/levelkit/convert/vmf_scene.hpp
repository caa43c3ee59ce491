// VMF <-> neutral scene.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/scene/scene.hpp"
#include "levelkit/vmf/vmf.hpp"

namespace lk::convert {

// Everything in the typed VMF that the scene can hold: brushes with planes, exact plane points,
// texture axes, displacements, stored exact polygons; entities with keys and parsed outputs;
// visgroups, groups, cameras, cordons, hidden flags. Keys are copied as written; "id" becomes
// Entity::id.
scene::Scene vmf_to_scene(const vmf::Map& map, Diagnostics& diags);
// The same from a map the caller gives up: each solid and entity is freed once converted, so
// the map's memory is reused for the scene (`map` is left empty).
scene::Scene vmf_to_scene(vmf::Map&& map, Diagnostics& diags);

struct SceneToVmfOptions {
    // versioninfo for scenes that do not say (the Source 2 importer requires the block).
    int editor_version = 400;
    int editor_build = 8864;
    int map_version = 1;
    // ESC (L4D and later Hammer) or ','; used when the scene's output_separator is 0.
    char output_separator = '\x1b';
};

struct SceneToVmfReport {
    std::size_t solids = 0;
    std::size_t sides_with_computed_points = 0;  // plane points chosen on the face polygon
    std::size_t renumbered_ids = 0;              // zero or duplicate ids given fresh ones
    std::size_t meshes_as_brushes = 0;           // closed convex meshes written as solids
    // Displacement-shaped meshes (mesh_displacement.hpp): grid patches written as solids with a
    // dispinfo, and the meshes that gave at least one.
    std::size_t displacements_recovered = 0;
    std::size_t displacement_meshes = 0;
    // Meshes (or what is left of them after displacement recovery) with no VMF form, their ids
    // and face count.
    std::size_t meshes_skipped = 0;
    std::vector<std::int64_t> skipped_mesh_ids;
    std::size_t faces_skipped = 0;
    std::size_t outputs_unparsed = 0;  // written back as their original text
};

// A complete Hammer-loadable map: versioninfo, visgroups, viewsettings, world, entities,
// cameras and cordon blocks are always present; solid, side, entity and group ids are unique
// (zero or duplicate ones are renumbered, and `sides` references follow the renumbering).
// Sides without exact points get three points chosen far apart on their real face.
vmf::Map scene_to_vmf(const scene::Scene& s, Diagnostics& diags, const SceneToVmfOptions& opt = {},
                      SceneToVmfReport* report = nullptr);

// A mesh that is a closed convex polyhedron (every edge shared by two faces in opposite
// directions, every vertex behind every face plane within `eps`, faces planar within `eps`) as a
// brush: one side per distinct face plane, with the face's material and texture axes and three
// plane points on the face. nullopt for any other mesh.
std::optional<scene::Brush> mesh_to_brush(const scene::Mesh& mesh, double eps = 0.01);

// Three points on a face polygon (wound as Hammer winds faces) that give back its plane by
// VBSP's rule, chosen to span the face (largest triangle) for precision. nullopt if the polygon
// has no area.
std::optional<std::array<Vec3, 3>> plane_points_on_face(std::span<const Vec3> polygon);

// Three points on `plane` (around the point of it nearest `near`) that give it back by VBSP's
// rule; for sides whose face polygon is empty.
std::array<Vec3, 3> plane_points_on_plane(const Plane& plane, const Vec3& near, double size = 64);

}  // namespace lk::convert
