#include "levelkit/core/geometry.hpp"

#include <algorithm>
#include <numbers>

namespace lk {

Vec3 normalize(const Vec3& v) {
    const double len = length(v);
    if (len < 1e-300) return {};
    return v / len;
}

std::optional<Plane> Plane::from_points(const Vec3& p0, const Vec3& p1, const Vec3& p2) {
    const Vec3 n = cross(p0 - p1, p2 - p1);
    const double len = length(n);
    // Relative test: collinear points give a cross product tiny against the edge lengths.
    const double scale = length(p0 - p1) * length(p2 - p1);
    if (!(len > 1e-12 * scale) || !(len > 0)) return std::nullopt;
    Plane pl;
    pl.normal = n / len;
    pl.dist = dot(p0, pl.normal);
    return pl;
}

void Aabb::add(const Vec3& p) {
    mins = {std::min(mins.x, p.x), std::min(mins.y, p.y), std::min(mins.z, p.z)};
    maxs = {std::max(maxs.x, p.x), std::max(maxs.y, p.y), std::max(maxs.z, p.z)};
}

void Aabb::add(const Aabb& b) {
    if (b.empty()) return;
    add(b.mins);
    add(b.maxs);
}

bool Aabb::contains(const Vec3& p, double eps) const {
    return p.x >= mins.x - eps && p.y >= mins.y - eps && p.z >= mins.z - eps &&
           p.x <= maxs.x + eps && p.y <= maxs.y + eps && p.z <= maxs.z + eps;
}

bool Aabb::overlaps(const Aabb& o, double eps) const {
    return mins.x <= o.maxs.x + eps && maxs.x >= o.mins.x - eps && mins.y <= o.maxs.y + eps &&
           maxs.y >= o.mins.y - eps && mins.z <= o.maxs.z + eps && maxs.z >= o.mins.z - eps;
}

namespace {

// base_winding into an existing buffer (no allocation once it has capacity).
void base_winding_into(const Plane& plane, double extent, Winding& w) {
    const Vec3& n = plane.normal;
    // Pick an "up" that is not parallel to the normal: the major axis decides.
    const double ax = std::abs(n.x), ay = std::abs(n.y), az = std::abs(n.z);
    Vec3 up = (az >= ax && az >= ay) ? Vec3{1, 0, 0} : Vec3{0, 0, 1};
    up = normalize(up - n * dot(up, n));
    const Vec3 right = cross(up, n);
    const Vec3 org = n * plane.dist;
    const Vec3 u = up * extent, r = right * extent;
    // Wound so that (p0 - p1) x (p2 - p1) points along n.
    w.assign({org - r + u, org + r + u, org + r - u, org - r - u});
    if (dot(cross(w[0] - w[1], w[2] - w[1]), n) < 0) std::reverse(w.begin(), w.end());
}

enum class Clip { unchanged, clipped };

// clip_winding_back, except that a winding with no point in front is left where it is
// (Clip::unchanged, `out` untouched) instead of being copied: most clips of a brush face by the
// brush's other planes change nothing.
Clip clip_back(const Winding& in, const Plane& plane, double eps, Winding& out);

}  // namespace

Winding base_winding(const Plane& plane, double extent) {
    Winding w;
    base_winding_into(plane, extent, w);
    return w;
}

void clip_winding_back(const Winding& in, const Plane& plane, double eps, Winding& out) {
    if (clip_back(in, plane, eps, out) == Clip::unchanged) out = in;
}

namespace {

Clip clip_back(const Winding& in, const Plane& plane, double eps, Winding& out) {
    const std::size_t n = in.size();
    if (n == 0) return Clip::unchanged;
    constexpr int kFront = 0, kBack = 1, kOn = 2;
    // Small polygons dominate; avoid heap traffic for the per-point arrays.
    double dist_buf[64];
    int side_buf[64];
    std::vector<double> dist_heap;
    std::vector<int> side_heap;
    double* dists = dist_buf;
    int* sides = side_buf;
    if (n + 1 > 64) {
        dist_heap.resize(n + 1);
        side_heap.resize(n + 1);
        dists = dist_heap.data();
        sides = side_heap.data();
    }
    int counts[3] = {0, 0, 0};
    for (std::size_t i = 0; i < n; ++i) {
        const double d = plane.distance_to(in[i]);
        dists[i] = d;
        sides[i] = d > eps ? kFront : (d < -eps ? kBack : kOn);
        ++counts[sides[i]];
    }
    dists[n] = dists[0];
    sides[n] = sides[0];
    if (counts[kFront] == 0) return Clip::unchanged;
    out.clear();
    if (counts[kBack] == 0) return Clip::clipped;  // entirely in front (or touching): clipped away
    out.reserve(n + 4);
    // Exactly axial planes get exact coordinates (no drift). A normal component can round to
    // exactly +-1 while the others are tiny but not zero; that plane is not axial.
    int axis = -1;
    for (int k = 0; k < 3; ++k) {
        if ((plane.normal[k] == 1 || plane.normal[k] == -1) && plane.normal[(k + 1) % 3] == 0 &&
            plane.normal[(k + 2) % 3] == 0) {
            axis = k;
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        const Vec3& p1 = in[i];
        if (sides[i] == kOn) {
            out.push_back(p1);
            continue;
        }
        if (sides[i] == kBack) out.push_back(p1);
        if (sides[i + 1] == kOn || sides[i + 1] == sides[i]) continue;
        const Vec3& p2 = in[(i + 1) % n];
        const double t = dists[i] / (dists[i] - dists[i + 1]);
        Vec3 mid;
        for (int k = 0; k < 3; ++k) {
            if (k == axis) {
                mid[k] = plane.normal[k] * plane.dist;
            } else {
                mid[k] = p1[k] + t * (p2[k] - p1[k]);
            }
        }
        out.push_back(mid);
    }
    return Clip::clipped;
}

}  // namespace

Vec3 winding_area_vector(std::span<const Vec3> w) {
    Vec3 acc;
    if (w.size() < 3) return acc;
    for (std::size_t i = 1; i + 1 < w.size(); ++i) acc += cross(w[i] - w[0], w[i + 1] - w[0]);
    return acc * 0.5;
}

double winding_area(std::span<const Vec3> w) {
    return length(winding_area_vector(w));
}

Vec3 winding_center(std::span<const Vec3> w) {
    Vec3 c;
    if (w.empty()) return c;
    for (const Vec3& p : w) c += p;
    return c / static_cast<double>(w.size());
}

void remove_duplicate_points(Winding& w, double eps) {
    if (w.size() < 2) return;
    std::size_t k = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        if (k > 0 && near(w[i], w[k - 1], eps)) continue;
        w[k++] = w[i];
    }
    while (k > 1 && near(w[k - 1], w[0], eps)) --k;
    w.resize(k);
}

double convex_overlap_area(std::span<const Vec3> a, std::span<const Vec3> b, double shrink) {
    if (a.size() < 3 || b.size() < 3) return 0;
    const Vec3 nb = normalize(winding_area_vector(b));
    if (nb == Vec3{}) return 0;
    thread_local Winding cur, next;
    cur.assign(a.begin(), a.end());
    for (std::size_t i = 0; i < b.size() && cur.size() >= 3; ++i) {
        const Vec3 edge = b[(i + 1) % b.size()] - b[i];
        // The right-hand area vector makes the interior lie to the left of each edge.
        const Vec3 out = normalize(cross(edge, nb));
        if (out == Vec3{}) continue;
        clip_winding_back(cur, Plane{out, dot(out, b[i]) - shrink}, 0, next);
        std::swap(cur, next);
    }
    return cur.size() < 3 ? 0 : winding_area(cur);
}

std::string_view to_string(BrushProblem p) {
    switch (p) {
        case BrushProblem::none:
            return "ok";
        case BrushProblem::degenerate_plane:
            return "degenerate plane (collinear points)";
        case BrushProblem::duplicate_plane:
            return "duplicate plane";
        case BrushProblem::opposed_planes:
            return "opposed coincident planes (no volume)";
        case BrushProblem::side_no_face:
            return "side plane does not touch the brush";
        case BrushProblem::open:
            return "brush is not closed";
        case BrushProblem::too_few_sides:
            return "fewer than 4 sides";
    }
    return "?";
}

void build_brush_polygons(std::span<const std::optional<Plane>> planes, const Vec3& center,
                          BrushPolygons& out, const BrushClipOptions& opt) {
    out.clear();
    const std::size_t n = planes.size();
    out.face_begin.reserve(n + 1);
    out.points.reserve(n * 5);
    if (n < 4) out.problems.push_back({0, SIZE_MAX, BrushProblem::too_few_sides});

    // Planes relative to `center`; skip[j] marks a plane that repeats an earlier one.
    thread_local std::vector<Plane> local;
    thread_local std::vector<std::uint8_t> skip;
    local.assign(n, Plane{});
    skip.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (!planes[i]) {
            skip[i] = 1;
            out.problems.push_back({i, SIZE_MAX, BrushProblem::degenerate_plane});
            continue;
        }
        local[i] = {planes[i]->normal, planes[i]->dist - dot(planes[i]->normal, center)};
    }
    constexpr double kNormalEps = 1e-9, kDistEps = 1e-6;
    for (std::size_t i = 0; i < n; ++i) {
        if (skip[i]) continue;
        for (std::size_t j = i + 1; j < n; ++j) {
            if (skip[j]) continue;
            if (same_plane(local[i], local[j], kNormalEps, kDistEps)) {
                skip[j] = 2;
                out.problems.push_back({j, i, BrushProblem::duplicate_plane});
            } else if (same_plane(local[i], local[j].flipped(), kNormalEps, kDistEps)) {
                out.problems.push_back({j, i, BrushProblem::opposed_planes});
            }
        }
    }

    thread_local Winding a, b;
    bool open = false;
    const double open_limit = opt.extent * 0.5;
    for (std::size_t i = 0; i < n; ++i) {
        out.face_begin.push_back(static_cast<std::uint32_t>(out.points.size()));
        if (skip[i] == 1) continue;
        base_winding_into(local[i], opt.extent, a);
        for (std::size_t j = 0; j < n && a.size() >= 3; ++j) {
            if (j == i || skip[j]) continue;
            // A duplicate of side i would clip nothing; an earlier identical plane is the same.
            if (skip[i] == 2 && same_plane(local[i], local[j], kNormalEps, kDistEps)) continue;
            if (clip_back(a, local[j], opt.clip_epsilon, b) == Clip::clipped) std::swap(a, b);
        }
        remove_duplicate_points(a, opt.merge_epsilon);
        if (a.size() < 3) {
            if (skip[i] != 2) out.problems.push_back({i, SIZE_MAX, BrushProblem::side_no_face});
            continue;
        }
        for (const Vec3& p : a) {
            if (std::abs(p.x) > open_limit || std::abs(p.y) > open_limit ||
                std::abs(p.z) > open_limit) {
                open = true;
            }
            out.points.push_back(p + center);
        }
    }
    out.face_begin.push_back(static_cast<std::uint32_t>(out.points.size()));
    if (open) out.problems.push_back({0, SIZE_MAX, BrushProblem::open});
}

Mat3 Mat3::operator*(const Mat3& o) const {
    Mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i * 3 + j] =
                m[i * 3] * o.m[j] + m[i * 3 + 1] * o.m[3 + j] + m[i * 3 + 2] * o.m[6 + j];
        }
    }
    return r;
}

Mat3 Mat3::transposed() const {
    return {{m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]}};
}

bool Mat3::is_identity(double eps) const {
    static constexpr std::array<double, 9> id{1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 9; ++i) {
        if (std::abs(m[i] - id[i]) > eps) return false;
    }
    return true;
}

Mat3 angle_matrix(const Vec3& a) {
    constexpr double d2r = std::numbers::pi / 180.0;
    const double sp = std::sin(a.x * d2r), cp = std::cos(a.x * d2r);
    const double sy = std::sin(a.y * d2r), cy = std::cos(a.y * d2r);
    const double sr = std::sin(a.z * d2r), cr = std::cos(a.z * d2r);
    Mat3 r;
    r.m = {cp * cy,
           sr * sp * cy - cr * sy,
           cr * sp * cy + sr * sy,
           cp * sy,
           sr * sp * sy + cr * cy,
           cr * sp * sy - sr * cy,
           -sp,
           sr * cp,
           cr * cp};
    return r;
}

Vec3 matrix_angles(const Mat3& mat) {
    constexpr double r2d = 180.0 / std::numbers::pi;
    const auto& m = mat.m;
    const Vec3 fwd{m[0], m[3], m[6]};
    const Vec3 left{m[1], m[4], m[7]};
    const Vec3 up{m[2], m[5], m[8]};
    const double xy = std::sqrt(fwd.x * fwd.x + fwd.y * fwd.y);
    Vec3 out;
    if (xy > 0.001) {
        out.y = std::atan2(fwd.y, fwd.x) * r2d;
        out.x = std::atan2(-fwd.z, xy) * r2d;
        out.z = std::atan2(left.z, up.z) * r2d;
    } else {
        out.y = std::atan2(-left.x, left.y) * r2d;
        out.x = std::atan2(-fwd.z, xy) * r2d;
        out.z = 0;
    }
    return out;
}

}  // namespace lk

namespace lk {

std::optional<std::vector<Vec3>> displacement_grid(const DisplacementFields& d,
                                                   std::span<const Vec3> face, const Vec3& normal) {
    if (face.size() != 4 || d.power < 0 || d.power > 4) return std::nullopt;
    const int size = (1 << d.power) + 1;
    const auto count = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
    // The corner nearest startposition becomes p0 (Hammer/VBSP).
    std::size_t start = 0;
    double best = INFINITY;
    for (std::size_t i = 0; i < 4; ++i) {
        const double dd = distance(face[i], d.start_position);
        if (dd < best - 1e-9) {
            best = dd;
            start = i;
        }
    }
    const Vec3 p0 = face[start], p1 = face[(start + 1) % 4], p2 = face[(start + 2) % 4],
               p3 = face[(start + 3) % 4];
    std::vector<Vec3> out(count);
    const double inv = 1.0 / (size - 1);
    for (int i = 0; i < size; ++i) {
        const Vec3 a = lerp(p0, p1, i * inv);
        const Vec3 b = lerp(p3, p2, i * inv);
        for (int j = 0; j < size; ++j) {
            const std::size_t k = static_cast<std::size_t>(i) * static_cast<std::size_t>(size) +
                                  static_cast<std::size_t>(j);
            Vec3 p = lerp(a, b, j * inv) + normal * d.elevation;
            if (k < d.offsets.size()) p += d.offsets[k];
            if (k < d.normals.size() && k < d.distances.size()) p += d.normals[k] * d.distances[k];
            out[k] = p;
        }
    }
    return out;
}

std::vector<std::array<std::uint32_t, 3>> displacement_triangles(int power) {
    std::vector<std::array<std::uint32_t, 3>> tris;
    if (power < 0 || power > 4) return tris;
    const std::uint32_t size = (1u << power) + 1;
    tris.reserve(2u << (2 * power));
    for (std::uint32_t i = 0; i + 1 < size; ++i) {
        for (std::uint32_t j = 0; j + 1 < size; ++j) {
            const std::uint32_t a = i * size + j, b = i * size + j + 1, c = (i + 1) * size + j + 1,
                                d = (i + 1) * size + j;
            // Alternate the diagonal like a checkerboard so the surface is symmetric.
            if ((i + j) % 2 == 0) {
                tris.push_back({a, b, c});
                tris.push_back({a, c, d});
            } else {
                tris.push_back({a, b, d});
                tris.push_back({b, c, d});
            }
        }
    }
    return tris;
}

void triangulate_polygon(std::span<const Vec3> poly,
                         std::vector<std::array<std::uint32_t, 3>>& out) {
    const std::size_t n = poly.size();
    if (n < 3) return;
    if (n == 3) {
        out.push_back({0, 1, 2});
        return;
    }
    const Vec3 normal = winding_area_vector(poly);
    auto convex_at = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        return dot(cross(poly[b] - poly[a], poly[c] - poly[b]), normal) > 0;
    };
    // Convex polygons (almost every map face) are fans; test that first.
    bool convex = normal != Vec3{};
    for (std::size_t i = 0; i < n && convex; ++i) {
        convex = convex_at(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + 1) % n),
                           static_cast<std::uint32_t>((i + 2) % n)) ||
                 length(cross(poly[(i + 1) % n] - poly[i], poly[(i + 2) % n] - poly[(i + 1) % n])) <
                     1e-12;
    }
    if (convex) {
        for (std::uint32_t i = 1; i + 1 < n; ++i) out.push_back({0, i, i + 1});
        return;
    }
    // Ear clipping: O(n^2) per polygon, fine for map faces (tens of corners).
    std::vector<std::uint32_t> left(n);
    for (std::size_t i = 0; i < n; ++i) left[i] = static_cast<std::uint32_t>(i);
    auto inside = [&](const Vec3& p, std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        const Vec3 ab = cross(poly[b] - poly[a], p - poly[a]);
        const Vec3 bc = cross(poly[c] - poly[b], p - poly[b]);
        const Vec3 ca = cross(poly[a] - poly[c], p - poly[c]);
        return dot(ab, normal) >= 0 && dot(bc, normal) >= 0 && dot(ca, normal) >= 0;
    };
    std::size_t guard = 0;
    while (left.size() > 3 && guard < n * n) {
        ++guard;
        bool clipped = false;
        for (std::size_t i = 0; i < left.size(); ++i) {
            const std::uint32_t a = left[(i + left.size() - 1) % left.size()], b = left[i],
                                c = left[(i + 1) % left.size()];
            if (!convex_at(a, b, c)) continue;
            bool ear = true;
            for (std::uint32_t v : left) {
                if (v == a || v == b || v == c) continue;
                if (poly[v] == poly[a] || poly[v] == poly[b] || poly[v] == poly[c]) continue;
                if (inside(poly[v], a, b, c)) {
                    ear = false;
                    break;
                }
            }
            if (!ear) continue;
            out.push_back({a, b, c});
            left.erase(left.begin() + static_cast<std::ptrdiff_t>(i));
            clipped = true;
            break;
        }
        if (!clipped) break;
    }
    // Whatever could not be clipped (degenerate or self-intersecting input) becomes a fan.
    for (std::size_t i = 1; i + 1 < left.size(); ++i)
        out.push_back({left[0], left[i], left[i + 1]});
}

}  // namespace lk
