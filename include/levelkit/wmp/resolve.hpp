// Group resolution: what WED does before it runs the map compiler. The object tree is
// flattened into world coordinates and each face's texture placement is baked into its texture
// vectors, giving a `$$M` level (blocks in world space, entities with world positions and
// Euler angles in degrees).
//
// The rules below were inferred from the 30 WMPB/`$$M` pairs in the research corpus (WED's
// own `$$M` files written next to the levels they were compiled from):
// * an object's world transform is parent * T(position) * R(angles) * S(scale), with
//   R = Rz(a0) * Rx(a1) * Ry(-a2) for WED's stored angle triple (see level.hpp);
// * block vertices map with that transform; texture axes map with its inverse transpose so
//   the texel at each point of a block is unchanged;
// * a face's placement controls are baked before that: axes rotated by the rotation (degrees,
//   in the face plane, both axis offsets rotated alike), then divided by the scale factors,
//   then the offsets added (`$$M` writes `( 0.5 0 0 0 )` for scale 2);
// * texture offsets stay in world space, except on faces with the texture-lock bit (28) or in
//   blocks with flag bit 16, whose offsets move with the block
//   (offset -= dot(axis, translation)) unless the block has flag bit 5 set;
// * WED drops the editor-only bits from `$$M` flags: face bit 28, block bit 16;
// * faces without a surface record get `#default` with Quake-style axis-aligned vectors;
// * entity Euler angles are (pan, tilt, roll) in degrees with matrix
//   Rz(pan) * Ry(tilt) * Rx(roll), pan and roll in [0, 360), tilt in [-90, 90];
// * type-7 (20-skill) map entities (.wmb) get world rotation * Rz(-90 degrees);
// * path nodes are transformed; `$$M` edges carry the world length of the edge.
#pragma once

#include <string>
#include <utility>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/geometry.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/wmp/level.hpp"

namespace lk::wmp {

// R = Rz(a0) * Rx(a1) * Ry(-a2), radians (WED's stored object angles).
Mat3 object_rotation(const Vec3& angles);
// R = Rz(pan) * Ry(tilt) * Rx(roll), degrees (`$$M` entity angles).
Mat3 mm_rotation(const Vec3& pan_tilt_roll_deg);
// The `$$M` angles of a rotation matrix (inverse of mm_rotation).
Vec3 mm_angles(const Mat3& rotation);

// Outward unit normal of a polygon face (WED winds faces clockwise seen from outside); zero for
// degenerate faces or out-of-range indices.
Vec3 face_normal(const std::vector<Vec3>& vertices, const Face& face);

// Quake-style axis-aligned texture axes for a face normal (the axis of largest |component|,
// ties to z, then x): floor/ceiling (1,0,0),(0,-1,0); x walls (0,1,0),(0,0,-1); y walls
// (1,0,0),(0,0,-1).
std::pair<TexAxis, TexAxis> default_texture_axes(const Vec3& normal);

// Bakes WED's placement controls into texture axes (see the rules above).
std::pair<TexAxis, TexAxis> bake_texture(const TexAxis& t1, const TexAxis& t2,
                                         const TexTransform& t);

// Builds vertices and polygon faces for an A4 plane block (plane points -> convex polygons).
// Faces keep their surface fields; returns false (block unchanged) if the planes do not close
// a convex volume.
bool plane_block_to_polygons(Block& b);

struct ResolveOptions {
    std::string wad;     // level WAD name for the `$$M`, e.g. "level.$$w"; default: the level's
    std::string banner;  // first line after `//`; default "wmpio (1.30), <date>"
};

// Flattens `level` (WMP2 or WMPB) into a `$$M` level. Blocks that cannot be resolved (A4
// planes that do not close) are reported in `notes` and skipped.
Result<Level> resolve(const Level& level, const ResolveOptions& opt = {},
                      Diagnostics* notes = nullptr);

}  // namespace lk::wmp
