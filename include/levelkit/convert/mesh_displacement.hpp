// Displacement-shaped meshes back to Source displacements (notes/vmf.md §1.2 and §3.3 step 6).
//
// A Source displacement is a (2^p+1)^2 vertex grid over a 4-sided brush face. VMF -> VMAP (ours
// and Valve's importer) writes it as a mesh of the displaced grid: 2^p x 2^p quads, or two
// triangles per quad with either diagonal, with the blend alpha in a paint stream (the scene
// carries it as the alpha of Mesh::colors). The VMF has no mesh, so scene -> VMF turns such a
// grid back into a brush with a dispinfo.
//
// Recognition uses topology only, never names or vertex order:
//  * the mesh splits into edge-connected pieces; each piece must be a disc (one border loop,
//    manifold) of quads and/or triangles whose faces pair up into the cells of a W x H grid;
//  * a grid whose sides are both multiples of 2^p (p from max_power down to min_power) is cut
//    into 2^p x 2^p patches, so welded neighbours (one mesh for a whole terrain) come apart into
//    one displacement each.
// Each patch becomes a brush: side 0 is the displacement face, a flat quad through the patch's
// four corner vertices (their best plane when they are not coplanar); the displaced vertices are
// stored as per-vertex normals and distances from the flat grid (lk::displacement_grid gives them
// back exactly), alphas from the paint stream, startposition the corner with the lowest vertex
// index (vertex 0 when the mesh was written from a VMF). Behind the face sits a box `depth` thick
// (4 edge sides and a back side in `backing_material`), as Hammer builds displacement brushes.
// The grid's row direction follows the faces' winding, so front faces stay front faces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "levelkit/scene/scene.hpp"

namespace lk::convert {

struct MeshDisplacementOptions {
    int min_power = 2, max_power = 4;  // Source's range (Hammer makes 2..4)
    double depth = 8;                  // thickness of the brush behind the displacement face
    std::string backing_material = "tools/toolsnodraw";
    // A displaced vertex closer than this to its flat grid point counts as undisplaced (the
    // mesh's positions were float32: about 0.001 of noise near +-16384).
    double flat_epsilon = 1e-4;
};

struct MeshDisplacements {
    // One brush per recognised patch, the displacement on sides[0]; ids are 0 (the caller's).
    std::vector<scene::Brush> brushes;
    // The faces in no recognised patch, with their attributes and only the positions they use;
    // no faces when the whole mesh was recognised.
    scene::Mesh rest;
    // Why the first unrecognised piece is not a grid ("" when everything was recognised).
    std::string reason;
};

MeshDisplacements mesh_to_displacements(const scene::Mesh& mesh,
                                        const MeshDisplacementOptions& opt = {});

}  // namespace lk::convert
