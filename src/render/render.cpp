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

class Rasterizer {
public:
    Rasterizer(int w, int h)
        : w_(w), h_(h), depth_(std::size_t(w) * h, -INFINITY), color_(std::size_t(w) * h * 3, 0) {}

    // Draws a triangle whose corners are counter-clockwise seen by the viewer (clockwise in
    // pixel coordinates, y down); others are back faces and are skipped. True if drawn.
    bool triangle(const Vertex& a, const Vertex& b, const Vertex& c) {
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
            std::max<std::int64_t>(0, (std::min({y0, y1, y2}) - 128 + 255) >> 8);
        const std::int64_t maxy =
            std::min<std::int64_t>(h_ - 1, (std::max({y0, y1, y2}) - 128) >> 8);
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
        const double inv = 1.0 / double(area);
        const float za = float(a.z), zb = float(vb->z), zc = float(vc->z);
        const std::int64_t px0 = minx * 256 + 128;
        for (std::int64_t py = miny; py <= maxy; ++py) {
            const std::int64_t fy = py * 256 + 128;
            std::int64_t w0 = e0.a * px0 + e0.b * fy + e0.c;
            std::int64_t w1 = e1.a * px0 + e1.b * fy + e1.c;
            std::int64_t w2 = e2.a * px0 + e2.b * fy + e2.c;
            const std::int64_t s0 = e0.a * 256, s1 = e1.a * 256, s2 = e2.a * 256;
            std::size_t at = std::size_t(py) * std::size_t(w_) + std::size_t(minx);
            for (std::int64_t px = minx; px <= maxx; ++px, ++at, w0 += s0, w1 += s1, w2 += s2) {
                if ((w0 | w1 | w2) < 0) continue;
                const float l0 = float(double(w0) * inv), l1 = float(double(w1) * inv),
                            l2 = float(double(w2) * inv);
                const float z = l0 * za + l1 * zb + l2 * zc;
                if (!(z > depth_[at])) continue;
                depth_[at] = z;
                float* col = &color_[at * 3];
                col[0] = l0 * a.r + l1 * vb->r + l2 * vc->r;
                col[1] = l0 * a.g + l1 * vb->g + l2 * vc->g;
                col[2] = l0 * a.b + l1 * vb->b + l2 * vc->b;
            }
        }
        return true;
    }

    // Averages `ss` x `ss` blocks into 8-bit RGB.
    Image resolve(int ss, const std::array<std::uint8_t, 3>& bg) const {
        Image img;
        img.width = w_ / ss;
        img.height = h_ / ss;
        img.rgb.resize(std::size_t(img.width) * img.height * 3);
        const float inv = 1.0f / float(ss * ss);
        for (int y = 0; y < img.height; ++y) {
            for (int x = 0; x < img.width; ++x) {
                float sum[3] = {0, 0, 0};
                for (int j = 0; j < ss; ++j) {
                    for (int i = 0; i < ss; ++i) {
                        const std::size_t at =
                            std::size_t(y * ss + j) * w_ + std::size_t(x * ss + i);
                        for (int k = 0; k < 3; ++k)
                            sum[k] += depth_[at] == -INFINITY ? bg[k] / 255.0f : color_[at * 3 + k];
                    }
                }
                std::uint8_t* out = &img.rgb[(std::size_t(y) * img.width + x) * 3];
                for (int k = 0; k < 3; ++k) {
                    const float v = std::clamp(sum[k] * inv, 0.0f, 1.0f);
                    out[k] = static_cast<std::uint8_t>(std::lround(v * 255.0f));
                }
            }
        }
        return img;
    }

private:
    int w_, h_;
    std::vector<float> depth_;
    std::vector<float> color_;
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

    // Screen-space bounds of what is drawn.
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (std::size_t p = 0; p < surf.pieces.size(); ++p) {
        if (!piece_drawn(p)) continue;
        const auto& piece = surf.pieces[p];
        for (std::uint32_t i = piece.first_polygon; i < piece.first_polygon + piece.polygon_count;
             ++i) {
            if (!drawn[surf.polygon_material[i]]) continue;
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
        height = std::clamp(int(std::lround(size * dy / dx)), std::max(1, size / 3), size);
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

    Rasterizer r(width * ss, height * ss);
    const double k = double(ss) / upp;
    const double zlo = lo[2], zspan = empty ? 1 : std::max(hi[2] - lo[2], 1e-6);
    auto vertex = [&](const Vec3& p, const Vec3& n, const std::array<float, 3>& c) {
        Vertex v;
        v.x = (dot(p, cam.right) - left) * k;
        v.y = (top - dot(p, cam.up)) * k;
        v.z = dot(p, cam.toward);
        double shade = 0.3 + 0.7 * std::max(0.0, dot(n, cam.light));
        if (opt.view == View::top) shade *= 0.55 + 0.45 * (v.z - zlo) / zspan;
        v.r = float(c[0] * shade);
        v.g = float(c[1] * shade);
        v.b = float(c[2] * shade);
        return v;
    };
    std::vector<Vertex> corners;
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
            corners.clear();
            for (std::uint32_t c = first; c < first + n; ++c)
                corners.push_back(vertex(surf.positions[c], surf.normals[c], colors[mat]));
            tris.clear();
            if (convex || n == 3) {
                for (std::uint32_t t = 1; t + 1 < n; ++t) tris.push_back({0, t, t + 1});
            } else {
                triangulate_polygon(surf.polygon(i), tris);
            }
            for (const auto& t : tris)
                pic.triangles += r.triangle(corners[t[0]], corners[t[1]], corners[t[2]]);
        }
    }
    pic.image = r.resolve(ss, opt.background);
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
    std::string out;
    out += "// overview for " + std::string(map_name) + ", drawn by levelkit (" +
           std::to_string(o.size) + "x" + std::to_string(o.size) + " pixels)\n";
    out += "\"" + std::string(map_name) + "\"\n{\n";
    out += "\t\"material\"\t\"overviews/" + std::string(map_name) + "\"\n";
    out += "\t\"pos_x\"\t\t\"" + format_fixed(o.pos_x, 3) + "\"\n";
    out += "\t\"pos_y\"\t\t\"" + format_fixed(o.pos_y, 3) + "\"\n";
    out += "\t\"scale\"\t\t\"" + format_fixed(o.scale, 6) + "\"\n";
    out += "}\n";
    return out;
}

}  // namespace lk::render
