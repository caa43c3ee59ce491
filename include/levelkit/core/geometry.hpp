// Double-precision geometry: vectors, planes, windings (convex polygons), brush clipping,
// Source-style angle matrices and bounding boxes.
//
// Conventions follow VBSP: a plane through three points p0 p1 p2 has the normal
// normalize((p0 - p1) x (p2 - p1)) and points *out* of the brush; a brush is the intersection of
// the half-spaces n.x <= d. Angles are Source's (pitch, yaw, roll) in degrees.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace lk {

struct Vec3 {
    double x = 0, y = 0, z = 0;

    constexpr Vec3() = default;
    constexpr Vec3(double x_, double y_, double z_) : x(x_), y(y_), z(z_) {}

    constexpr double operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
    double& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
    constexpr Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
    constexpr Vec3 operator-(const Vec3& o) const { return {x - o.x, y - o.y, z - o.z}; }
    constexpr Vec3 operator-() const { return {-x, -y, -z}; }
    constexpr Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
    constexpr Vec3 operator/(double s) const { return {x / s, y / s, z / s}; }
    Vec3& operator+=(const Vec3& o) {
        x += o.x;
        y += o.y;
        z += o.z;
        return *this;
    }
    Vec3& operator-=(const Vec3& o) {
        x -= o.x;
        y -= o.y;
        z -= o.z;
        return *this;
    }
    Vec3& operator*=(double s) {
        x *= s;
        y *= s;
        z *= s;
        return *this;
    }
    constexpr bool operator==(const Vec3&) const = default;
};

constexpr Vec3 operator*(double s, const Vec3& v) {
    return v * s;
}
constexpr double dot(const Vec3& a, const Vec3& b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double length(const Vec3& v) {
    return std::sqrt(dot(v, v));
}
inline double distance(const Vec3& a, const Vec3& b) {
    return length(a - b);
}
// Unit vector, or the zero vector if v has (near) zero length.
Vec3 normalize(const Vec3& v);
inline Vec3 lerp(const Vec3& a, const Vec3& b, double t) {
    return a + (b - a) * t;
}
inline bool near(const Vec3& a, const Vec3& b, double eps) {
    return std::abs(a.x - b.x) <= eps && std::abs(a.y - b.y) <= eps && std::abs(a.z - b.z) <= eps;
}

// A texture axis as Hammer defines it (a VMF side's uaxis/vaxis "[x y z shift] scale"):
// texel coordinate = dot(p, axis) / scale + shift. Shared by the VMF model and the scene.
struct TextureAxis {
    Vec3 axis;
    double shift = 0;
    double scale = 0.25;
    bool operator==(const TextureAxis&) const = default;
};

struct Plane {
    Vec3 normal;
    double dist = 0;

    double distance_to(const Vec3& p) const { return dot(normal, p) - dist; }
    Plane flipped() const { return {-normal, -dist}; }
    // VBSP's rule; nullopt if the points are collinear or coincident.
    static std::optional<Plane> from_points(const Vec3& p0, const Vec3& p1, const Vec3& p2);
    bool operator==(const Plane&) const = default;
};

// The same plane (normal within normal_eps, distance within dist_eps).
inline bool same_plane(const Plane& a, const Plane& b, double normal_eps, double dist_eps) {
    return near(a.normal, b.normal, normal_eps) && std::abs(a.dist - b.dist) <= dist_eps;
}

struct Aabb {
    Vec3 mins{INFINITY, INFINITY, INFINITY};
    Vec3 maxs{-INFINITY, -INFINITY, -INFINITY};
    bool empty() const { return mins.x > maxs.x; }
    void add(const Vec3& p);
    void add(const Aabb& b);
    Vec3 center() const { return (mins + maxs) * 0.5; }
    Vec3 size() const { return maxs - mins; }
    bool contains(const Vec3& p, double eps = 0) const;
    bool overlaps(const Aabb& o, double eps = 0) const;
};

// --- windings ---------------------------------------------------------------------------

using Winding = std::vector<Vec3>;

// A square of half-size `extent` on the plane, centred on the plane point nearest the origin,
// wound so Plane::from_points on its first three points gives back `plane`.
Winding base_winding(const Plane& plane, double extent);

// Keeps the part of `in` with plane.distance_to(p) <= eps (the back side) in `out`.
// `in` and `out` must be different objects. `out` may end up with fewer than 3 points.
void clip_winding_back(const Winding& in, const Plane& plane, double eps, Winding& out);

// Vector area of a polygon (its normal times its area).
Vec3 winding_area_vector(std::span<const Vec3> w);
double winding_area(std::span<const Vec3> w);
Vec3 winding_center(std::span<const Vec3> w);
// Removes consecutive points closer than eps (cyclically).
void remove_duplicate_points(Winding& w, double eps);
// Area of the intersection of two coplanar convex polygons (either winding order). Each edge
// of `b` is pulled inward by `shrink`, so polygons that only share an edge overlap by 0.
double convex_overlap_area(std::span<const Vec3> a, std::span<const Vec3> b, double shrink = 0);

// --- brushes ------------------------------------------------------------------------------

enum class BrushProblem : std::uint8_t {
    none,
    degenerate_plane,  // a side's plane could not be formed (collinear points)
    duplicate_plane,   // two sides share a plane
    opposed_planes,    // two sides are mirrored planes: the brush has no volume
    side_no_face,      // a side's plane does not touch the brush (clipped away entirely)
    open,              // the planes do not enclose a finite volume
    too_few_sides,     // fewer than 4 sides
};
std::string_view to_string(BrushProblem p);

struct BrushFaceProblem {
    std::size_t side = 0;               // index of the side the problem is about
    std::size_t other_side = SIZE_MAX;  // for duplicate/opposed planes
    BrushProblem problem = BrushProblem::none;
};

// Polygons of every side of a convex brush, stored flat: side i's vertices are
// points[face_begin[i] .. face_begin[i+1]), wound as Hammer and VBSP wind them:
// Plane::from_points(w[0], w[1], w[2]) is the outward plane, i.e. clockwise seen from outside.
struct BrushPolygons {
    std::vector<Vec3> points;
    std::vector<std::uint32_t> face_begin;  // size = sides + 1
    std::vector<BrushFaceProblem> problems;
    bool valid() const { return problems.empty(); }
    std::size_t face_count() const { return face_begin.empty() ? 0 : face_begin.size() - 1; }
    std::span<const Vec3> face(std::size_t i) const {
        return {points.data() + face_begin[i], face_begin[i + 1] - face_begin[i]};
    }
    void clear() {
        points.clear();
        face_begin.clear();
        problems.clear();
    }
};

struct BrushClipOptions {
    double clip_epsilon = 1e-6;   // plane-side test when clipping
    double merge_epsilon = 1e-5;  // consecutive points closer than this are merged
    double extent = 1 << 20;      // half-size of the starting winding
};

// Builds every side's polygon by clipping a base winding by all other planes (VBSP's method,
// in double precision). `planes[i]` may be nullopt for sides whose plane is degenerate. The
// computation runs relative to `center` (e.g. the mean of the plane points) for precision.
void build_brush_polygons(std::span<const std::optional<Plane>> planes, const Vec3& center,
                          BrushPolygons& out, const BrushClipOptions& opt = {});

// --- displacements ----------------------------------------------------------------------

// What Hammer's displacement rule reads. Per-vertex fields run row-major over the
// (2^power+1)^2 grid; a field shorter than the grid counts as zero where it is missing.
struct DisplacementFields {
    int power = 0;
    Vec3 start_position;
    double elevation = 0;
    std::span<const Vec3> normals;
    std::span<const double> distances;
    std::span<const Vec3> offsets;
};

// The displaced vertex grid over a 4-point face, (2^power+1)^2 points row-major: start at the
// corner nearest start_position, bilinear flat grid, plus elevation along `normal` (the face's
// outward normal), plus offsets, plus normals * distances. nullopt if the face is not a quad or
// power is outside 0..4.
std::optional<std::vector<Vec3>> displacement_grid(const DisplacementFields& d,
                                                   std::span<const Vec3> face, const Vec3& normal);

// Triangles of a displacement grid in Hammer's alternating diagonal pattern, as vertex index
// triples (two per quad, 2 * 4^power in all), wound like the grid's rows (i, i+1) x (j, j+1).
std::vector<std::array<std::uint32_t, 3>> displacement_triangles(int power);

// --- triangulation -----------------------------------------------------------------------

// Triangulates a simple planar polygon (convex or not) by ear clipping, keeping its winding.
// Appends index triples into `poly` to `out`. Degenerate or self-intersecting input still gives
// poly.size() - 2 triangles (falling back to a fan), so counts stay predictable.
void triangulate_polygon(std::span<const Vec3> poly,
                         std::vector<std::array<std::uint32_t, 3>>& out);

// An editor camera: where it stands and the point it looks at.
struct Camera {
    Vec3 position;
    Vec3 look;
    bool operator==(const Camera&) const = default;
};

// --- rotations ---------------------------------------------------------------------------

struct Mat3 {
    // Row-major; columns are the rotated forward/left/up axes as in Source's AngleMatrix.
    std::array<double, 9> m{1, 0, 0, 0, 1, 0, 0, 0, 1};
    Vec3 operator*(const Vec3& v) const {
        return {m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                m[6] * v.x + m[7] * v.y + m[8] * v.z};
    }
    Mat3 operator*(const Mat3& o) const;
    Mat3 transposed() const;
    static Mat3 identity() { return {}; }
    bool is_identity(double eps = 1e-12) const;
};

// Source's AngleMatrix: angles = (pitch, yaw, roll) in degrees.
Mat3 angle_matrix(const Vec3& pitch_yaw_roll_deg);
// Inverse of angle_matrix for a pure rotation (MatrixAngles).
Vec3 matrix_angles(const Mat3& m);

}  // namespace lk
