// Brush and displacement geometry for VMF solids, and map validation.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"

namespace lk::vmf {

struct PolygonOptions {
    // Use Hammer++ `vertices_plus` / Strata `point_data` for a side's polygon when present
    // (they are exact; plane points are rounded). Validity is still computed from the planes.
    bool prefer_stored_vertices = false;
    BrushClipOptions clip;
};

// Polygons of every side of `solid` (VBSP's clip method in double precision, relative to the
// mean of the plane points). `out.problems` lists why a solid is invalid (by side index).
void solid_polygons(const Solid& solid, BrushPolygons& out, const PolygonOptions& opt = {});

// The displaced vertex grid of a side (lk::displacement_grid with the side's dispinfo and plane
// normal), given its face polygon. nullopt if the side has no usable dispinfo or the face is
// not a quad.
std::optional<std::vector<Vec3>> displacement_grid(const Side& side, std::span<const Vec3> face);
using lk::displacement_triangles;

// Ids not used yet by any entity, solid or side of `map` (one past the largest of each kind), for
// objects added to a map.
struct NextIds {
    std::int64_t entity = 1;
    std::int64_t solid = 1;
    std::int64_t side = 1;
};
NextIds next_ids(const Map& map);

// An axis-aligned box brush as Hammer's block tool makes it: six sides in Hammer's order (top,
// bottom, -x, +x, +y, -y) with `material` and world-aligned texture axes at scale 0.25. Solid
// and side ids are taken from `ids` (and advanced). The box must have a positive size on every
// axis.
Solid box_solid(const Aabb& box, std::string_view material, NextIds& ids);

struct ValidateOptions {
    PolygonOptions polygons;
};

// Semantic checks: invalid brushes (with solid and side ids), displacement faces that are not
// quads, duplicate ids, overlay/cubemap side references that point nowhere, what Hammer or
// Valve's Source 2 importer would reject (missing top-level blocks, over-long values).
// Positions come from the objects' Origins via `tree` when given.
void validate(const Map& map, Diagnostics& out, const kv::Document* tree = nullptr,
              const ValidateOptions& opt = {});

}  // namespace lk::vmf
