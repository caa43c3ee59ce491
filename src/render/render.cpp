#include "levelkit/render/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "levelkit/core/text.hpp"

namespace lk::render {

namespace {

// A camera: screen right, screen up and towards the viewer, as an orthonormal right-handed
// frame, so a counter-clockwise (front) face stays counter-clockwise on screen.
struct Camera {
    Vec3 right, up, toward;
    Vec3 light;  // unit, pointing to the light
};

Camera camera_for(View v) {
    if (v == View::top) return {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, normalize({0.3, 0.5, 1.0})};
    // Isometric from the south-east, above: looking along -(1, -1, 1).
    const Vec3 toward = normalize({1, -1, 1});
    const Vec3 right = normalize({1, 1, 0});
    return {right, cross(toward, right), toward, normalize({0.35, -0.6, 1.0})};
}

struct Vertex {
    double x, y, z;  // screen: pixels (y down) and depth (larger = nearer)
    float r, g, b;
};

// Draws into one band of sample rows [y0, y0 + h) at a time: a few megabytes that stay in
// cache and are reused for every band, instead of a whole supersampled frame.
class Rasterizer {
public:
    Rasterizer(int w, int h)
        : w_(w), h_(h), depth_(std::size_t(w) * h), color_(std::size_t(w) * h) {}

    void start_band(int y0) {
        y0_ = y0;
        std::fill(depth_.begin(), depth_.end(), -INFINITY);
    }

    // Corners must be finite and within +-2^22 pixels so that the 24.8 fixed point below and
    // the products of its differences fit in 64 bits. Scenes are framed to fit the picture, so
    // only non-finite or absurd coordinates (damaged input) fall outside; such triangles are
    // not drawn.
    static bool drawable(const Vertex& a, const Vertex& b, const Vertex& c) {
        constexpr double kLimit = 4194304.0;  // 2^22
        for (const Vertex* v : {&a, &b, &c}) {
            if (!(std::abs(v->x) < kLimit && std::abs(v->y) < kLimit) || !std::isfinite(v->z))
                return false;
        }
        return true;
    }

    // Counter-clockwise seen by the viewer (clockwise in pixel coordinates, y down), in the
    // same fixed point triangle() uses.
    static bool front_facing(const Vertex& a, const Vertex& b, const Vertex& c) {
        if (!drawable(a, b, c)) return false;
        const std::int64_t x0 = std::llround(a.x * 256), y0 = std::llround(a.y * 256);
        const std::int64_t x1 = std::llround(b.x * 256), y1 = std::llround(b.y * 256);
        const std::int64_t x2 = std::llround(c.x * 256), y2 = std::llround(c.y * 256);
        return (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0) < 0;
    }

    // Draws a triangle whose corners are counter-clockwise seen by the viewer (clockwise in
    // pixel coordinates, y down); others are back faces and are skipped. True if drawn.
    bool triangle(const Vertex& a, const Vertex& b, const Vertex& c) {
        if (!drawable(a, b, c)) return false;
        // 8 bits of subpixel precision; pixel centres at +0.5.
        const std::int64_t x0 = std::llround(a.x * 256), y0 = std::llround(a.y * 256);
        std::int64_t x1 = std::llround(b.x * 256), y1 = std::llround(b.y * 256);
        std::int64_t x2 = std::llround(c.x * 256), y2 = std::llround(c.y * 256);
        const Vertex* vb = &b;
        const Vertex* vc = &c;
        std::int64_t area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
        // Front faces are clockwise with y down: negative area. Swap to make it positive.
        if (area >= 0) return false;
        std::swap(x1, x2);
        std::swap(y1, y2);
        std::swap(vb, vc);
        area = -area;
        const std::int64_t minx =
            std::max<std::int64_t>(0, (std::min({x0, x1, x2}) - 128 + 255) >> 8);
        const std::int64_t maxx =
            std::min<std::int64_t>(w_ - 1, (std::max({x0, x1, x2}) - 128) >> 8);
        const std::int64_t miny =
            std::max<std::int64_t>(y0_, (std::min({y0, y1, y2}) - 128 + 255) >> 8);
        const std::int64_t maxy =
            std::min<std::int64_t>(y0_ + h_ - 1, (std::max({y0, y1, y2}) - 128) >> 8);
        if (minx > maxx || miny > maxy) return true;
        struct Edge {
            std::int64_t a, b, c;
        };
        // E(p) = (q.x - p0.x) * (p.y - p0.y) - (q.y - p0.y) * (p.x - p0.x) for the edge p0 -> q,
        // positive inside. An edge owns its pixels exactly when its direction is "top or left"
        // (dy < 0, or dy == 0 and dx > 0): a shared edge runs the other way in the neighbour.
        auto edge = [](std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by) {
            Edge e{-(by - ay), bx - ax, 0};
            e.c = -(e.a * ax + e.b * ay);
            const std::int64_t dx = bx - ax, dy = by - ay;
            if (!(dy < 0 || (dy == 0 && dx > 0))) e.c -= 1;
            return e;
        };
        const Edge e0 = edge(x1, y1, x2, y2), e1 = edge(x2, y2, x0, y0), e2 = edge(x0, y0, x1, y1);
        // Depth and colour are planes over the pixel grid: value = v0 + l1 * (v1 - v0) + l2 *
        // (v2 - v0) with l1 = w1 / area, l2 = w2 / area, stepped per pixel along x.
        const double inv = 1.0 / double(area);
        const double step1 = double(e1.a) * 256 * inv, step2 = double(e2.a) * 256 * inv;
        const double z0 = a.z, z1 = vb->z - a.z, z2 = vc->z - a.z;
        const float dz = float(step1 * z1 + step2 * z2);
        const std::int64_t px0 = minx * 256 + 128;
        for (std::int64_t py = miny; py <= maxy; ++py) {
            const std::int64_t fy = py * 256 + 128;
            std::int64_t w0 = e0.a * px0 + e0.b * fy + e0.c;
            std::int64_t w1 = e1.a * px0 + e1.b * fy + e1.c;
            std::int64_t w2 = e2.a * px0 + e2.b * fy + e2.c;
            const std::int64_t s0 = e0.a * 256, s1 = e1.a * 256, s2 = e2.a * 256;
            // Skip to the first covered pixel of the row, then stop after the last.
            std::int64_t px = minx;
            while (px <= maxx && (w0 | w1 | w2) < 0) {
                ++px;
                w0 += s0;
                w1 += s1;
                w2 += s2;
            }
            if (px > maxx) continue;
            float z = float(z0 + (double(w1) * z1 + double(w2) * z2) * inv);
            std::size_t at = std::size_t(py - y0_) * std::size_t(w_) + std::size_t(px);
            for (; px <= maxx && (w0 | w1 | w2) >= 0;
                 ++px, ++at, w0 += s0, w1 += s1, w2 += s2, z += dz) {
                if (!(z > depth_[at])) continue;
                depth_[at] = z;
                const float l1 = float(double(w1) * inv), l2 = float(double(w2) * inv);
                const float l0 = 1 - l1 - l2;
                color_[at] =
                    pack(l0 * a.r + l1 * vb->r + l2 * vc->r, l0 * a.g + l1 * vb->g + l2 * vc->g,
                         l0 * a.b + l1 * vb->b + l2 * vc->b);
            }
        }
        return true;
    }

    // Averages `ss` x `ss` blocks of the band into its rows of `img`.
    void resolve(int ss, const std::array<std::uint8_t, 3>& bg, Image& img) const {
        const std::uint32_t n = std::uint32_t(ss * ss);
        const std::uint32_t background =
            bg[0] | (std::uint32_t(bg[1]) << 8) | (std::uint32_t(bg[2]) << 16);
        const int rows = std::min(h_, img.height * ss - y0_) / ss;
        for (int y = 0; y < rows; ++y) {
            for (int x = 0; x < img.width; ++x) {
                std::uint32_t sum[3] = {0, 0, 0};
                for (int j = 0; j < ss; ++j) {
                    const std::size_t row =
                        std::size_t(y * ss + j) * std::size_t(w_) + std::size_t(x * ss);
                    for (int i = 0; i < ss; ++i) {
                        const std::uint32_t c = depth_[row + std::size_t(i)] == -INFINITY
                                                    ? background
                                                    : color_[row + std::size_t(i)];
                        sum[0] += c & 0xFF;
                        sum[1] += (c >> 8) & 0xFF;
                        sum[2] += (c >> 16) & 0xFF;
                    }
                }
                std::uint8_t* out = &img.rgb[(std::size_t(y0_ / ss + y) * img.width + x) * 3];
                for (int k = 0; k < 3; ++k)
                    out[k] = static_cast<std::uint8_t>((sum[k] + n / 2) / n);
            }
        }
    }

private:
    static std::uint32_t pack(float r, float g, float b) {
        // NaN (std::clamp passes it through) packs as 0 rather than an undefined cast.
        auto q = [](float v) {
            return std::uint32_t((v > 0 ? std::min(v, 1.0f) : 0.0f) * 255.0f + 0.5f);
        };
        return q(r) | (q(g) << 8) | (q(b) << 16);
    }

    int w_, h_, y0_ = 0;
    std::vector<float> depth_;
    std::vector<std::uint32_t> color_;
};

}  // namespace

Picture render_surfaces(const scene::Surfaces& surf, const std::vector<bool>& skybox_pieces,
                        const RenderOptions& opt) {
    const int size = std::clamp(opt.size, 1, 16384);
    const int ss = std::clamp(opt.supersample, 1, 4);
    const Camera cam = camera_for(opt.view);
    std::vector<bool> drawn(surf.materials.size());
    std::vector<std::array<float, 3>> colors(surf.materials.size());
    for (std::size_t i = 0; i < surf.materials.size(); ++i) {
        drawn[i] = opt.tools || !scene::is_tool_material(surf.materials[i]);
        const auto c = scene::material_color(surf.materials[i]);
        colors[i] = {float(c[0]), float(c[1]), float(c[2])};
    }
    auto piece_drawn = [&](std::size_t p) {
        return opt.skybox || p >= skybox_pieces.size() || !skybox_pieces[p];
    };

    // Screen-space bounds of what can be seen: polygons facing the viewer (an orthographic view
    // sees a polygon's front exactly when its area vector points towards the viewer).
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (std::size_t p = 0; p < surf.pieces.size(); ++p) {
        if (!piece_drawn(p)) continue;
        const auto& piece = surf.pieces[p];
        for (std::uint32_t i = piece.first_polygon; i < piece.first_polygon + piece.polygon_count;
             ++i) {
            if (!drawn[surf.polygon_material[i]]) continue;
            if (!(dot(winding_area_vector(surf.polygon(i)), cam.toward) > 0)) continue;
            for (const Vec3& v : surf.polygon(i)) {
                const double s[3] = {dot(v, cam.right), dot(v, cam.up), dot(v, cam.toward)};
                for (int k = 0; k < 3; ++k) {
                    lo[k] = std::min(lo[k], s[k]);
                    hi[k] = std::max(hi[k], s[k]);
                }
            }
        }
    }
    Picture pic;
    const bool empty = !(lo[0] <= hi[0]);
    const double m = std::clamp(opt.margin, 0.0, 0.4);
    const double dx = empty ? 1 : std::max(hi[0] - lo[0], 1e-6);
    const double dy = empty ? 1 : std::max(hi[1] - lo[1], 1e-6);
    int width = size, height = size;
    if (opt.view == View::iso) {
        // In double first: a tall thin scene's ratio overflows int (it wrapped).
        const double h = std::round(size * dy / dx);
        const int min_height = std::max(1, size / 3);
        height = h >= min_height ? (h <= size ? int(h) : size) : min_height;
    }
    // World units per output pixel, fitting both axes inside the margins.
    const double upp = std::max(dx / (width * (1 - 2 * m)), dy / (height * (1 - 2 * m)));
    const double cx = empty ? 0 : (lo[0] + hi[0]) / 2, cy = empty ? 0 : (lo[1] + hi[1]) / 2;
    const double left = cx - upp * width / 2, top = cy + upp * height / 2;
    if (opt.view == View::top) {
        Overview o;
        o.pos_x = left;
        o.pos_y = top;
        o.scale = upp * width / 1024.0;
        o.size = width;
        pic.overview = o;
    }

    const double k = double(ss) / upp;
    const double zlo = lo[2], zspan = empty ? 1 : std::max(hi[2] - lo[2], 1e-6);
    auto vertex = [&](const Vec3& p, const Vec3& n, const std::array<float, 3>& c) {
        Vertex v;
        v.x = (dot(p, cam.right) - left) * k;
        v.y = (top - dot(p, cam.up)) * k;
        v.z = dot(p, cam.toward);
        double shade = 0.3 + 0.7 * std::max(0.0, dot(n, cam.light));
        if (opt.view == View::top) {
            // A depth span past double range (damaged input) gives inf / inf: mid shade.
            const double t = (v.z - zlo) / zspan;
            shade *= 0.55 + 0.45 * (std::isfinite(t) ? t : 0.5);
        }
        v.r = float(c[0] * shade);
        v.g = float(c[1] * shade);
        v.b = float(c[2] * shade);
        return v;
    };
    // Every front-facing triangle once, with the sample rows it covers.
    struct Tri {
        std::uint32_t v[3];
        std::int32_t y0, y1;
    };
    std::vector<Vertex> verts;
    std::vector<Tri> front;
    std::vector<std::array<std::uint32_t, 3>> tris;
    for (std::size_t p = 0; p < surf.pieces.size(); ++p) {
        if (!piece_drawn(p)) continue;
        const auto& piece = surf.pieces[p];
        const bool convex = piece.kind != scene::Surfaces::PieceKind::mesh;
        for (std::uint32_t i = piece.first_polygon; i < piece.first_polygon + piece.polygon_count;
             ++i) {
            const std::uint32_t mat = surf.polygon_material[i];
            if (!drawn[mat]) continue;
            const std::uint32_t first = surf.polygon_begin[i],
                                n = surf.polygon_begin[i + 1] - first;
            const std::uint32_t base = std::uint32_t(verts.size());
            for (std::uint32_t c = first; c < first + n; ++c)
                verts.push_back(vertex(surf.positions[c], surf.normals[c], colors[mat]));
            tris.clear();
            if (convex || n == 3) {
                for (std::uint32_t t = 1; t + 1 < n; ++t) tris.push_back({0, t, t + 1});
            } else {
                triangulate_polygon(surf.polygon(i), tris);
            }
            for (const auto& t : tris) {
                const Vertex& a = verts[base + t[0]];
                const Vertex& b = verts[base + t[1]];
                const Vertex& c = verts[base + t[2]];
                if (!Rasterizer::front_facing(a, b, c)) continue;
                const double ylo = std::min({a.y, b.y, c.y}), yhi = std::max({a.y, b.y, c.y});
                front.push_back({{base + t[0], base + t[1], base + t[2]},
                                 std::int32_t(std::clamp(std::floor(ylo) - 1, -1.0, 1e9)),
                                 std::int32_t(std::clamp(std::ceil(yhi) + 1, -1.0, 1e9))});
            }
        }
    }
    pic.triangles = front.size();
    pic.image.width = width;
    pic.image.height = height;
    pic.image.rgb.resize(std::size_t(width) * std::size_t(height) * 3);
    constexpr int kBandRows = 64;  // output rows per band
    const int band = kBandRows * ss;
    Rasterizer r(width * ss, band);
    for (int y0 = 0; y0 < height * ss; y0 += band) {
        r.start_band(y0);
        for (const Tri& t : front) {
            if (t.y1 < y0 || t.y0 >= y0 + band) continue;
            r.triangle(verts[t.v[0]], verts[t.v[1]], verts[t.v[2]]);
        }
        r.resolve(ss, opt.background, pic.image);
    }
    return pic;
}

Picture render_scene(const scene::Scene& s, const RenderOptions& opt) {
    scene::SurfaceOptions so;
    so.skip_tool_materials = false;  // the skybox search needs the skybox walls
    const scene::Surfaces surf = scene::build_surfaces(s, so);
    std::vector<bool> sky;
    if (!opt.skybox) {
        if (auto found = scene::find_skybox(s, surf)) sky = std::move(found->pieces);
    }
    return render_surfaces(surf, sky, opt);
}

std::string overview_text(std::string_view map_name, const Overview& o) {
    // Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
    const std::string name(map_name);
    const std::string size = std::to_string(o.size);
    std::string out;
    out.append("// overview for ").append(name).append(", drawn by levelkit (");
    out.append(size).append("x").append(size).append(" pixels)\n");
    out.append("\"").append(name).append("\"\n{\n");
    out.append("\t\"material\"\t\"overviews/").append(name).append("\"\n");
    out.append("\t\"pos_x\"\t\t\"").append(format_fixed(o.pos_x, 3)).append("\"\n");
    out.append("\t\"pos_y\"\t\t\"").append(format_fixed(o.pos_y, 3)).append("\"\n");
    out.append("\t\"scale\"\t\t\"").append(format_fixed(o.scale, 6)).append("\"\n");
    out.append("}\n");
    return out;
}

}  // namespace lk::render
