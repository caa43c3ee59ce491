// Displacement-shaped meshes back to Source displacements (notes/vmf.md §1.2 and §3.3 step 6).
//
// A Source displacement is a (2^p+1)^2 vertex grid over a 4-sided brush face. VMF -> VMAP
// writes it as a mesh of the displaced grid (ours: two triangles per cell in Hammer's alternating
// pattern; other converters: quads, or triangles with either diagonal) with the blend alpha in a
// paint stream, which the scene carries as the alpha of Mesh::colors. The VMF has no mesh, so
// scene -> VMF turns such a grid back into a brush with a dispinfo.
//
// Recognition uses topology only, never names or vertex order:
//  * the mesh splits into edge-connected pieces; each piece must be a disc (one border loop,
//    manifold, consistently wound) of quads and/or triangles whose faces pair up into the cells
//    of a W x H grid;
//  * a grid whose sides are both multiples of 2^p (the largest p from max_power down to
//    min_power) is cut into 2^p x 2^p patches, so welded neighbours (one mesh for a rectangle of
//    displacements) come apart into one displacement each. Welded grids that do not form a
//    rectangle (an L of displacements) are not recognised.
// Each patch becomes a brush. Side 0 is the displacement face, a flat convex quad under the
// patch's four corner vertices: their plane when they are coplanar; when they are not but every
// vertex leaves the corners' surface along one direction, the plane across that direction where
// the undisplaced vertices lie; else the corners' best plane (any plane gives the same vertices).
// The vertices are stored as per-vertex normals and distances from the flat grid, so
// lk::displacement_grid gives them back; alphas come from the paint stream; startposition is the
// corner with the lowest vertex index (vertex 0 when the mesh was written from a VMF), and the
// grid's rows follow the faces' winding, so front faces stay front faces and a mesh written from
// a VMF comes back in its original vertex order. Behind the face sits a box `depth` thick (4 edge
// sides and a back side in `backing_material`), as Hammer builds displacement brushes.
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
