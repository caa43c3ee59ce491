#include "levelkit/convert/mesh_displacement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numeric>
#include <optional>
#include <span>
#include <unordered_map>

#include "bsp_decompiler.hpp"  // detail::tidy
#include "levelkit/convert/vmf_scene.hpp"

namespace lk::convert {

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

std::uint64_t edge_key(std::uint32_t a, std::uint32_t b) {
    return (std::uint64_t{a} << 32) | b;
}

// Hammer's world-aligned texture axes for a face normal (the backing sides get them).
std::pair<Vec3, Vec3> world_axes(const Vec3& n) {
    const double ax = std::abs(n.x), ay = std::abs(n.y), az = std::abs(n.z);
    if (az >= ax && az >= ay) return {{1, 0, 0}, {0, -1, 0}};
    if (ax >= ay) return {{0, 1, 0}, {0, 0, -1}};
    return {{1, 0, 0}, {0, 0, -1}};
}

// Mesh positions are float32 in a VMAP, so the face's corners are written as floats' shortest
// decimals (as the BSP decompiler writes numbers) when the four stay on one plane that way; the
// distances are measured from the face as written, so nothing is lost.
void snap(std::array<Vec3, 4>& face) {
    std::array<Vec3, 4> t;
    for (std::size_t k = 0; k < 4; ++k) t[k] = detail::tidy(face[k]);
    const auto plane = Plane::from_points(t[0], t[1], t[2]);
    double scale = 1;
    for (const Vec3& p : t) scale = std::max({scale, std::abs(p.x), std::abs(p.y), std::abs(p.z)});
    if (plane && std::abs(plane->distance_to(t[3])) <= 1e-12 * scale) face = t;
}

// A W x H grid of cells over a piece of the mesh: vertex (i, j) for rows i = 0..h and columns
// j = 0..w, the faces of cell (i, j) (one quad or two triangles).
struct Grid {
    std::uint32_t w = 0, h = 0;
    std::vector<std::uint32_t> vertex;               // (h + 1) * (w + 1)
    std::vector<std::array<std::uint32_t, 2>> cell;  // h * w, second = kNone for a quad
    std::uint32_t at(std::uint32_t i, std::uint32_t j) const { return vertex[i * (w + 1) + j]; }
};

class Recogniser {
public:
    Recogniser(const scene::Mesh& m, const MeshDisplacementOptions& opt, MeshDisplacements& out)
        : m_(m), opt_(opt), out_(out) {}

    void run() {
        const std::size_t nf = m_.faces.size();
        taken_.assign(nf, false);
        if (prepare()) {
            for (std::uint32_t c = 0; c < component_faces_.size(); ++c) piece(c);
        }
        build_rest();
    }

private:
    std::span<const std::uint32_t> verts(std::uint32_t f) const {
        const scene::Mesh::Face& face = m_.faces[f];
        return std::span(m_.face_vertices).subspan(face.first, face.count);
    }

    void fail(std::string why) {
        if (out_.reason.empty()) out_.reason = std::move(why);
    }

    // Checks the face index ranges and that every directed edge is used once (a manifold,
    // consistently wound surface), then splits the faces into edge-connected pieces.
    bool prepare() {
        const std::size_t nv = m_.positions.size(), nf = m_.faces.size();
        if (nf == 0) return false;
        edges_.reserve(m_.face_vertices.size());
        for (std::uint32_t f = 0; f < nf; ++f) {
            const scene::Mesh::Face& face = m_.faces[f];
            if (face.count < 3 || std::size_t{face.first} + face.count > m_.face_vertices.size()) {
                fail(fmt::format("face {} has no valid corner list", f));
                return false;
            }
            const auto vs = verts(f);
            for (std::size_t k = 0; k < vs.size(); ++k) {
                const std::uint32_t a = vs[k], b = vs[(k + 1) % vs.size()];
                if (a >= nv || b >= nv || a == b) {
                    fail(fmt::format("face {} has an invalid or repeated vertex", f));
                    return false;
                }
                if (!edges_.emplace(edge_key(a, b), f).second) {
                    fail(fmt::format("edge {}-{} is used twice in the same direction", a, b));
                    return false;
                }
            }
        }
        // Union-find over faces that share an edge.
        std::vector<std::uint32_t> parent(nf);
        std::iota(parent.begin(), parent.end(), 0u);
        auto root = [&](std::uint32_t x) {
            while (parent[x] != x) x = parent[x] = parent[parent[x]];
            return x;
        };
        for (const auto& [key, f] : edges_) {
            const auto a = static_cast<std::uint32_t>(key >> 32),
                       b = static_cast<std::uint32_t>(key);
            if (auto it = edges_.find(edge_key(b, a)); it != edges_.end()) {
                const std::uint32_t x = root(f), y = root(it->second);
                if (x != y) parent[std::max(x, y)] = std::min(x, y);
            }
        }
        component_.assign(nf, kNone);
        for (std::uint32_t f = 0; f < nf; ++f) {
            const std::uint32_t r = root(f);
            if (component_[r] == kNone) {
                component_[r] = static_cast<std::uint32_t>(component_faces_.size());
                component_faces_.emplace_back();
            }
            component_[f] = component_[r];
            component_faces_[component_[f]].push_back(f);
        }
        // Faces around each vertex (CSR). Only the faces' corners count: the corner list may
        // hold unused entries, and faces may share entries.
        incident_begin_.assign(nv + 1, 0);
        std::size_t corners = 0;
        for (std::uint32_t f = 0; f < nf; ++f) {
            for (std::uint32_t v : verts(f)) ++incident_begin_[v + 1];
            corners += verts(f).size();
        }
        for (std::size_t v = 0; v < nv; ++v) incident_begin_[v + 1] += incident_begin_[v];
        incident_.resize(corners);
        std::vector<std::uint32_t> fill(incident_begin_.begin(), incident_begin_.end() - 1);
        for (std::uint32_t f = 0; f < nf; ++f) {
            for (std::uint32_t v : verts(f)) incident_[fill[v]++] = f;
        }
        vertex_stamp_.assign(nv, 0);
        face_stamp_.assign(nf, 0);
        boundary_next_.assign(nv, kNone);
        if (m_.colors.size() == m_.face_vertices.size()) {
            // Not clamped: a VMF's alphas outside 0..255 (real maps have some) come back as
            // they were.
            alpha_.assign(nv, std::nan(""));
            for (std::uint32_t f = 0; f < nf; ++f) {
                const scene::Mesh::Face& face = m_.faces[f];
                for (std::size_t c = face.first; c < std::size_t{face.first} + face.count; ++c) {
                    double& a = alpha_[m_.face_vertices[c]];
                    if (std::isnan(a)) a = m_.colors[c][3] * 255.0;
                }
            }
        }
        return true;
    }

    std::span<const std::uint32_t> incident(std::uint32_t v) const {
        return std::span(incident_).subspan(incident_begin_[v],
                                            incident_begin_[v + 1] - incident_begin_[v]);
    }

    bool usable(std::uint32_t f) const {
        return component_[f] == current_ && face_stamp_[f] != stamp_;
    }

    // The cell with corners a = (i, j), b = (i, j + 1), d = (i + 1, j): its fourth corner
    // c = (i + 1, j + 1) and its faces, among the faces not yet given to a cell.
    bool cell(std::uint32_t a, std::uint32_t b, std::uint32_t d, std::uint32_t& c,
              std::array<std::uint32_t, 2>& faces) const {
        auto has = [&](std::uint32_t f, std::uint32_t v) {
            const auto vs = verts(f);
            return std::find(vs.begin(), vs.end(), v) != vs.end();
        };
        auto third = [&](std::uint32_t f, std::uint32_t x, std::uint32_t y) {
            for (std::uint32_t v : verts(f)) {
                if (v != x && v != y) return v;
            }
            return kNone;
        };
        for (std::uint32_t f : incident(a)) {
            if (!usable(f)) continue;
            const auto vs = verts(f);
            if (vs.size() == 4) {
                std::size_t ia = 0;
                while (vs[ia] != a) ++ia;
                const std::uint32_t n1 = vs[(ia + 1) % 4], n3 = vs[(ia + 3) % 4];
                if (!((n1 == b && n3 == d) || (n1 == d && n3 == b))) continue;
                c = vs[(ia + 2) % 4];
                faces = {f, kNone};
                return true;
            }
            if (vs.size() != 3 || !has(f, b)) continue;
            if (has(f, d)) {
                // Diagonal b-d: the other triangle on that edge holds c.
                for (std::uint32_t g : incident(b)) {
                    if (g == f || !usable(g) || verts(g).size() != 3 || !has(g, d)) continue;
                    c = third(g, b, d);
                    faces = {f, g};
                    return c != a;
                }
                return false;
            }
            // Diagonal a-c: triangles (a, b, c) and (a, c, d).
            const std::uint32_t x = third(f, a, b);
            for (std::uint32_t g : incident(a)) {
                if (g == f || !usable(g) || verts(g).size() != 3 || !has(g, x) || !has(g, d))
                    continue;
                c = x;
                faces = {f, g};
                return true;
            }
            return false;
        }
        return false;
    }

    // Fills a w x h grid whose row 0 runs forward along the border loop from loop[t] and whose
    // column 0 runs backward from it.
    bool fill(const std::vector<std::uint32_t>& loop, std::size_t t, std::uint32_t w,
              std::uint32_t h, std::size_t piece_faces, Grid& g) {
        ++stamp_;
        const std::size_t n = loop.size();
        g.w = w;
        g.h = h;
        g.vertex.assign(std::size_t{h + 1} * (w + 1), kNone);
        g.cell.assign(std::size_t{h} * w, {kNone, kNone});
        auto put = [&](std::uint32_t i, std::uint32_t j, std::uint32_t v) {
            if (vertex_stamp_[v] == stamp_) return false;  // a vertex twice: not a grid
            vertex_stamp_[v] = stamp_;
            g.vertex[i * (w + 1) + j] = v;
            return true;
        };
        for (std::uint32_t j = 0; j <= w; ++j) {
            if (!put(0, j, loop[(t + j) % n])) return false;
        }
        for (std::uint32_t i = 1; i <= h; ++i) {
            if (!put(i, 0, loop[(t + n - i) % n])) return false;
        }
        std::size_t used = 0;
        for (std::uint32_t i = 0; i < h; ++i) {
            for (std::uint32_t j = 0; j < w; ++j) {
                std::uint32_t c = kNone;
                std::array<std::uint32_t, 2> faces{};
                if (!cell(g.at(i, j), g.at(i, j + 1), g.at(i + 1, j), c, faces)) return false;
                if (c == kNone) return false;
                // A vertex met twice means the surface folds onto itself: no grid.
                if (!put(i + 1, j + 1, c)) return false;
                for (std::uint32_t f : faces) {
                    if (f == kNone) continue;
                    face_stamp_[f] = stamp_;
                    ++used;
                }
                g.cell[std::size_t{i} * w + j] = faces;
            }
        }
        return used == piece_faces;
    }

    // +1 if the faces wind (i, j) -> (i, j + 1) -> (i + 1, j + 1) -> (i + 1, j), -1 if the other
    // way, 0 if they disagree.
    int orientation(const Grid& g) const {
        int seen = 0;
        for (std::uint32_t i = 0; i < g.h; ++i) {
            for (std::uint32_t j = 0; j < g.w; ++j) {
                const std::array<std::uint32_t, 4> ring{g.at(i, j), g.at(i, j + 1),
                                                        g.at(i + 1, j + 1), g.at(i + 1, j)};
                for (std::uint32_t f : g.cell[std::size_t{i} * g.w + j]) {
                    if (f == kNone) continue;
                    const auto vs = verts(f);
                    int turn = 0;
                    for (std::size_t k = 0; k < vs.size(); ++k) {
                        const auto p = std::find(ring.begin(), ring.end(), vs[k]) - ring.begin();
                        const auto q =
                            std::find(ring.begin(), ring.end(), vs[(k + 1) % vs.size()]) -
                            ring.begin();
                        turn += static_cast<int>((q - p + 4) % 4);
                    }
                    const int o = turn == 4 ? 1 : -1;
                    if (seen == 0) seen = o;
                    if (o != seen) return 0;
                }
            }
        }
        return seen;
    }

    void piece(std::uint32_t c) {
        current_ = c;
        const std::vector<std::uint32_t>& faces = component_faces_[c];
        std::size_t quads = 0, tris = 0;
        for (std::uint32_t f : faces) {
            const std::size_t k = verts(f).size();
            if (k == 4) {
                ++quads;
            } else if (k == 3) {
                ++tris;
            } else {
                return fail(
                    fmt::format("a face has {} corners (a grid has quads or triangles)", k));
            }
        }
        // Vertices and border of the piece.
        ++stamp_;
        std::size_t nverts = 0, nborder = 0;
        std::uint32_t first_border = kNone;
        for (std::uint32_t f : faces) {
            const auto vs = verts(f);
            for (const std::uint32_t a : vs) {
                if (vertex_stamp_[a] != stamp_) {
                    vertex_stamp_[a] = stamp_;
                    ++nverts;
                    boundary_next_[a] = kNone;
                }
            }
        }
        for (std::uint32_t f : faces) {
            const auto vs = verts(f);
            for (std::size_t k = 0; k < vs.size(); ++k) {
                const std::uint32_t a = vs[k], b = vs[(k + 1) % vs.size()];
                if (edges_.count(edge_key(b, a))) continue;
                if (boundary_next_[a] != kNone)
                    return fail("its border touches itself (not a disc)");
                boundary_next_[a] = b;
                ++nborder;
                if (first_border == kNone) first_border = a;
            }
        }
        if (nborder == 0) return fail("it is closed (a grid has a border)");
        std::vector<std::uint32_t> loop;
        for (std::uint32_t v = first_border; loop.size() <= nborder;) {
            loop.push_back(v);
            v = boundary_next_[v];
            if (v == first_border || v == kNone) break;
        }
        if (loop.size() != nborder) return fail("it has holes (more than one border loop)");
        // A W x H grid has 2(W + H) border edges and (W + 1)(H + 1) vertices.
        const auto s = static_cast<long long>(nborder / 2);
        const long long p = static_cast<long long>(nverts) - s - 1;
        const long long disc = s * s - 4 * p;
        long long r = disc >= 0 ? std::llround(std::sqrt(static_cast<double>(disc))) : -1;
        // The double square root can be one off for very large meshes.
        while (r > 0 && r * r > disc) --r;
        while (r >= 0 && (r + 1) * (r + 1) <= disc) ++r;
        if (nborder % 2 || p <= 0 || r < 0 || r * r != disc || (s + r) % 2) {
            return fail(
                fmt::format("{} vertices with a border of {} edges is no grid", nverts, nborder));
        }
        const auto w = static_cast<std::uint32_t>((s + r) / 2),
                   h = static_cast<std::uint32_t>((s - r) / 2);
        if (quads + tris / 2 != std::size_t{w} * h || tris % 2) {
            return fail(fmt::format("{} quads and {} triangles do not fill a {} x {} grid", quads,
                                    tris, w, h));
        }
        std::uint32_t size = 0;
        for (int pw = opt_.max_power; pw >= opt_.min_power && pw >= 0 && pw < 31; --pw) {
            const std::uint32_t k = 1u << pw;
            if (w % k == 0 && h % k == 0) {
                size = k;
                break;
            }
        }
        if (size == 0) {
            return fail(
                fmt::format("a {} x {} grid does not split into 2^p x 2^p patches "
                            "(p {}..{})",
                            w, h, opt_.min_power, opt_.max_power));
        }
        // Corners touch one quad or two triangles.
        auto corner_like = [&](std::uint32_t v) {
            std::size_t k = 0;
            for (std::uint32_t f : incident(v)) k += component_[f] == c;
            return k <= 2;
        };
        const std::size_t n = loop.size();
        Grid g;
        bool found = false;
        for (std::size_t t = 0; t < n && !found; ++t) {
            for (int swap = 0; swap < (w == h ? 1 : 2) && !found; ++swap) {
                const std::uint32_t gw = swap ? h : w, gh = swap ? w : h;
                if (!corner_like(loop[t]) || !corner_like(loop[(t + gw) % n]) ||
                    !corner_like(loop[(t + gw + gh) % n]) ||
                    !corner_like(loop[(t + 2 * gw + gh) % n]))
                    continue;
                found = fill(loop, t, gw, gh, faces.size(), g);
            }
        }
        if (!found) return fail("its faces do not pair up into the cells of a grid");
        const int orient = orientation(g);
        if (orient == 0) return fail("its faces are not wound consistently");
        for (std::uint32_t bi = 0; bi < g.h / size; ++bi) {
            for (std::uint32_t bj = 0; bj < g.w / size; ++bj) patch(g, orient, bi, bj, size);
        }
    }

    // The plane of the flat face under a patch. Coplanar corners give it. Corners off one plane
    // were displaced too: Hammer moves vertices along one normal (the face's, unless the mapper
    // chose an axis), so when every vertex leaves the surface spanned by the corners along one
    // direction, that direction is the face normal, and the face sits where the undisplaced
    // vertices are. Otherwise the best plane through the corners' centre: any plane gives the
    // same vertices, this one the smallest corner distances.
    std::pair<Vec3, double> base_plane(const std::array<Vec3, 4>& corners, const Vec3& front,
                                       const std::vector<std::uint32_t>& idx, int power) const {
        // Positions were float32 (about 0.001 of noise near +-16384); the choice of plane does
        // not limit precision (distances absorb it), so a loose tolerance costs nothing.
        constexpr double tol = 0.01;
        const double centre =
            dot(front, (corners[0] + corners[1] + corners[2] + corners[3]) * 0.25);
        bool coplanar = true;
        for (const Vec3& c : corners) coplanar &= std::abs(dot(front, c) - centre) <= tol;
        if (coplanar) return {front, centre};
        const auto spanned = lk::displacement_grid({power, corners[0]}, corners, front);
        if (!spanned) return {front, centre};
        Vec3 dir;
        double longest = 0;
        for (std::size_t k = 0; k < idx.size(); ++k) {
            const Vec3 e = m_.positions[idx[k]] - (*spanned)[k];
            if (length(e) > longest) {
                longest = length(e);
                dir = e / longest;
            }
        }
        if (longest <= tol) return {front, centre};
        for (std::size_t k = 0; k < idx.size(); ++k) {
            const Vec3 e = m_.positions[idx[k]] - (*spanned)[k];
            if (length(cross(e, dir)) > tol) return {front, centre};
        }
        if (dot(dir, front) < 0) dir = -dir;
        if (dot(dir, front) < 0.1) return {front, centre};
        // Undisplaced vertices lie on the face: the level most vertices share (the lowest on a
        // tie), else the one most corners share. Hammer's faces sit on whole units.
        std::vector<double> heights(idx.size());
        for (std::size_t k = 0; k < idx.size(); ++k) heights[k] = dot(dir, m_.positions[idx[k]]);
        std::sort(heights.begin(), heights.end());
        double level = 0;
        std::size_t best = 0;
        for (std::size_t a = 0, b = 0; a < heights.size(); ++a) {
            b = std::max(b, a);
            while (b + 1 < heights.size() && heights[b + 1] - heights[a] <= tol) ++b;
            if (b - a + 1 > best) {
                best = b - a + 1;
                level = heights[a];
            }
        }
        if (best < 2) {
            best = 0;
            for (const Vec3& c : corners) {
                const double t = dot(dir, c);
                std::size_t same = 0;
                for (const Vec3& o : corners) same += std::abs(dot(dir, o) - t) <= tol;
                if (same > best || (same == best && t < level)) {
                    best = same;
                    level = t;
                }
            }
        }
        if (std::abs(level - std::round(level)) <= tol) level = std::round(level);
        return {dir, level};
    }

    // One 2^p x 2^p patch of a grid as a displacement brush.
    void patch(const Grid& g, int orient, std::uint32_t bi, std::uint32_t bj, std::uint32_t size) {
        const int power = std::countr_zero(size);
        const std::uint32_t n = size + 1;
        // Hammer's (i, j): i runs from the start corner along the face's winding (p0 -> p1),
        // which in the mesh's counter-clockwise loops is the second step; faces wound the
        // other way have their grid transposed. Rotations keep the winding, so the start corner
        // can be any of the four: the lowest vertex index.
        auto q = [&](std::uint32_t i, std::uint32_t j) {
            return orient > 0 ? g.at(bi * size + i, bj * size + j)
                              : g.at(bi * size + j, bj * size + i);
        };
        const std::uint32_t m = size;
        auto rotated = [&](int rot, std::uint32_t i, std::uint32_t j) {
            switch (rot) {
                case 1:
                    return q(m - j, i);
                case 2:
                    return q(m - i, m - j);
                case 3:
                    return q(j, m - i);
                default:
                    return q(i, j);
            }
        };
        int rot = 0;
        for (int k = 1; k < 4; ++k) {
            if (rotated(k, 0, 0) < rotated(rot, 0, 0)) rot = k;
        }
        std::vector<std::uint32_t> idx(std::size_t{n} * n);
        for (std::uint32_t i = 0; i < n; ++i) {
            for (std::uint32_t j = 0; j < n; ++j) idx[i * n + j] = rotated(rot, i, j);
        }
        for (std::uint32_t v : idx) {
            const Vec3& p = m_.positions[v];
            // No map reaches 1e9 units; beyond, float-precision output and planes mean nothing.
            if (!(std::abs(p.x) <= 1e9 && std::abs(p.y) <= 1e9 && std::abs(p.z) <= 1e9))
                return fail("a vertex is not finite or lies beyond 1e9 units");
        }
        // The patch's faces give its material and texture axes (the most used material).
        std::vector<std::uint32_t> pfaces;
        for (std::uint32_t i = 0; i < size; ++i) {
            for (std::uint32_t j = 0; j < size; ++j) {
                for (std::uint32_t f : g.cell[std::size_t{bi * size + i} * g.w + bj * size + j]) {
                    if (f != kNone) pfaces.push_back(f);
                }
            }
        }
        std::unordered_map<std::uint32_t, std::size_t> uses;
        std::uint32_t material = m_.faces[pfaces.front()].material;
        for (std::uint32_t f : pfaces) {
            const std::uint32_t mat = m_.faces[f].material;
            if (++uses[mat] > uses[material] || (uses[mat] == uses[material] && mat < material))
                material = mat;
        }
        const scene::Mesh::Face* style = nullptr;
        for (std::uint32_t f : pfaces) {
            if (m_.faces[f].material == material) {
                style = &m_.faces[f];
                break;
            }
        }

        const Vec3 c0 = m_.positions[idx[0]], c1 = m_.positions[idx[m * n]],
                   c2 = m_.positions[idx[m * n + m]], c3 = m_.positions[idx[m]];
        // Hammer's face polygon p0 p1 p2 p3 is clockwise seen from the front.
        const std::array<Vec3, 4> corners{c0, c1, c2, c3};
        const Vec3 front = -normalize(winding_area_vector(corners));
        if (front == Vec3{}) return fail("its corners span no area");
        const auto [normal, dist] = base_plane(corners, front, idx, power);
        std::array<Vec3, 4> face;
        for (std::size_t k = 0; k < 4; ++k)
            face[k] = corners[k] - normal * (dot(normal, corners[k]) - dist);
        snap(face);
        for (std::size_t k = 0; k < 4; ++k) {
            const Vec3 e1 = face[(k + 1) % 4] - face[k], e2 = face[(k + 2) % 4] - face[(k + 1) % 4];
            // Clockwise turns everywhere, by more than a hair: a convex quad.
            if (!(dot(cross(e1, e2), normal) < -1e-6 * length(e1) * length(e2)))
                return fail("its corners do not form a convex quad");
        }
        const auto flat = lk::displacement_grid({power, face[0]}, face, normal);
        if (!flat) return fail("no displacement grid");

        scene::Displacement d;
        d.power = power;
        d.start_position = face[0];
        const std::size_t count = std::size_t{n} * n;
        d.normals.resize(count);
        d.distances.resize(count);
        d.offset_normals.assign(count, normal);
        bool any_alpha = false;
        if (!alpha_.empty()) d.alphas.resize(count);
        for (std::size_t k = 0; k < count; ++k) {
            const Vec3 delta = m_.positions[idx[k]] - (*flat)[k];
            const double len = length(delta);
            if (len > opt_.flat_epsilon) {
                d.normals[k] = delta / len;
                d.distances[k] = detail::tidy(len);
            } else {
                d.normals[k] = normal;
                d.distances[k] = 0;
            }
            if (!alpha_.empty()) {
                double a = std::isfinite(alpha_[idx[k]]) ? alpha_[idx[k]] : 0.0;
                // The paint stream is float32 of alpha / 255: whole alphas come back whole.
                a = std::abs(a - std::round(a)) < 1e-3 * std::max(1.0, std::abs(a) / 255)
                        ? std::round(a)
                        : detail::tidy(a);
                d.alphas[k] = a;
                any_alpha |= a != 0;
            }
        }
        if (!any_alpha) d.alphas.clear();

        scene::Brush brush;
        brush.editor = m_.editor;
        auto add_side = [&](std::span<const Vec3> poly, std::string material_name,
                            scene::TextureAxis u, scene::TextureAxis v) {
            const auto pts = plane_points_on_face(poly);
            const auto plane =
                pts ? Plane::from_points((*pts)[0], (*pts)[1], (*pts)[2]) : std::nullopt;
            if (!plane) return false;
            scene::BrushSide sd;
            sd.plane = *plane;
            sd.points = *pts;
            sd.material = std::move(material_name);
            if (length(u.axis) < 1e-9 || length(v.axis) < 1e-9) {
                const auto [wu, wv] = world_axes(plane->normal);
                u = {wu, 0, 0.25};
                v = {wv, 0, 0.25};
            }
            sd.u = u;
            sd.v = v;
            brush.sides.push_back(std::move(sd));
            return true;
        };
        const std::string mat_name =
            material < m_.materials.size() ? m_.materials[material] : std::string();
        if (!add_side(face, mat_name, style->u, style->v)) return fail("the face has no plane");
        brush.sides.front().displacement = std::move(d);
        std::array<Vec3, 4> back;
        for (std::size_t k = 0; k < 4; ++k) back[k] = face[k] - normal * opt_.depth;
        const std::array<Vec3, 4> back_poly{back[3], back[2], back[1], back[0]};
        bool ok = add_side(back_poly, opt_.backing_material, {}, {});
        for (std::size_t k = 0; k < 4 && ok; ++k) {
            const std::size_t l = (k + 1) % 4;
            const std::array<Vec3, 4> side{face[l], face[k], back[k], back[l]};
            ok = add_side(side, opt_.backing_material, {}, {});
        }
        if (!ok) return fail("a backing side has no plane");
        for (std::uint32_t f : pfaces) taken_[f] = true;
        out_.brushes.push_back(std::move(brush));
    }

    // The faces no patch took, with their per-corner attributes and the positions they use.
    void build_rest() {
        scene::Mesh& r = out_.rest;
        r.id = m_.id;
        r.editor = m_.editor;
        r.materials = m_.materials;
        std::vector<std::uint32_t> remap(m_.positions.size(), kNone);
        const bool uvs = m_.uvs.size() == m_.face_vertices.size(),
                   normals = m_.normals.size() == m_.face_vertices.size(),
                   colors = m_.colors.size() == m_.face_vertices.size();
        for (std::size_t f = 0; f < m_.faces.size(); ++f) {
            if (taken_[f]) continue;
            scene::Mesh::Face face = m_.faces[f];
            face.first = static_cast<std::uint32_t>(r.face_vertices.size());
            const scene::Mesh::Face& src = m_.faces[f];
            for (std::uint32_t k = 0; k < src.count; ++k) {
                const std::size_t c = std::size_t{src.first} + k;
                if (c >= m_.face_vertices.size()) break;
                const std::uint32_t v = m_.face_vertices[c];
                std::uint32_t nv = kNone;
                if (v < m_.positions.size()) {
                    if (remap[v] == kNone) {
                        remap[v] = static_cast<std::uint32_t>(r.positions.size());
                        r.positions.push_back(m_.positions[v]);
                    }
                    nv = remap[v];
                }
                // Out-of-range indices stay out of range, so the rest is as invalid as the input.
                r.face_vertices.push_back(nv == kNone ? v : nv);
                if (uvs) r.uvs.push_back(m_.uvs[c]);
                if (normals) r.normals.push_back(m_.normals[c]);
                if (colors) r.colors.push_back(m_.colors[c]);
            }
            face.count = static_cast<std::uint32_t>(r.face_vertices.size()) - face.first;
            r.faces.push_back(face);
        }
    }

    const scene::Mesh& m_;
    const MeshDisplacementOptions& opt_;
    MeshDisplacements& out_;
    std::unordered_map<std::uint64_t, std::uint32_t> edges_;  // directed edge -> face
    std::vector<std::uint32_t> component_;                    // per face
    std::vector<std::vector<std::uint32_t>> component_faces_;
    std::vector<std::uint32_t> incident_begin_, incident_;
    std::vector<std::uint32_t> vertex_stamp_, face_stamp_, boundary_next_;
    std::vector<double> alpha_;  // per vertex, 0..255; empty without a paint stream
    std::vector<bool> taken_;
    std::uint32_t stamp_ = 0, current_ = 0;
};

}  // namespace

MeshDisplacements mesh_to_displacements(const scene::Mesh& mesh,
                                        const MeshDisplacementOptions& opt) {
    MeshDisplacements out;
    Recogniser(mesh, opt, out).run();
    return out;
}

}  // namespace lk::convert
