// Pictures: what lands on which pixel, back faces, the overview numbers, PNG bytes.
#include "levelkit/render/render.hpp"

#include <gtest/gtest.h>

using namespace lk;

namespace {

scene::Brush box(std::int64_t id, Vec3 lo, Vec3 hi, std::string material) {
    scene::Brush b;
    b.id = id;
    const Vec3 n[6] = {{0, 0, 1}, {0, 0, -1}, {-1, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    const double d[6] = {hi.z, -lo.z, -lo.x, hi.x, hi.y, -lo.y};
    for (int i = 0; i < 6; ++i) {
        scene::BrushSide s;
        s.plane = {n[i], d[i]};
        s.material = material;
        s.u = {{1, 0, 0}, 0, 0.25};
        s.v = {{0, -1, 0}, 0, 0.25};
        b.sides.push_back(s);
    }
    return b;
}

std::array<std::uint8_t, 3> pixel(const render::Image& img, int x, int y) {
    const std::uint8_t* p = &img.rgb[(std::size_t(y) * img.width + x) * 3];
    return {p[0], p[1], p[2]};
}

// The pixel a world point falls on in an overview.
std::pair<int, int> to_pixel(const render::Overview& o, double x, double y) {
    const double upp = o.scale * 1024 / o.size;
    return {int((x - o.pos_x) / upp), int((o.pos_y - y) / upp)};
}

}  // namespace

TEST(Render, OverviewPlacesTheMapByItsNumbers) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {1024, 512, 16}, "dev/floor"));
    s.world.brushes.push_back(box(2, {100, 100, 16}, {200, 200, 128}, "dev/crate"));
    render::RenderOptions opt;
    opt.size = 256;
    const render::Picture pic = render::render_scene(s, opt);
    ASSERT_TRUE(pic.overview);
    EXPECT_EQ(pic.image.width, 256);
    EXPECT_EQ(pic.image.height, 256);
    const render::Overview& o = *pic.overview;
    // The map is 1024 wide: it fills the picture but for the 2% margins.
    EXPECT_NEAR(o.scale * 1024 / 256, 1024 / (256 * 0.96), 1e-9);
    EXPECT_NEAR(o.pos_x, 512 - 1024 / 0.96 / 2, 1e-9);
    EXPECT_NEAR(o.pos_y, 256 + 1024 / 0.96 / 2, 1e-9);
    // The crate's top is brighter than the floor (higher), and both differ from the background.
    const auto [cx, cy] = to_pixel(o, 150, 150);
    const auto [fx, fy] = to_pixel(o, 600, 300);
    const auto crate = pixel(pic.image, cx, cy), floor = pixel(pic.image, fx, fy);
    const auto bg = pixel(pic.image, 2, 2);
    EXPECT_EQ(bg, opt.background);
    EXPECT_NE(floor, bg);
    EXPECT_NE(crate, floor);
    // North is up: the floor's north edge (y = 512) is above the picture's centre row.
    EXPECT_LT(to_pixel(o, 0, 512).second, 128);
    EXPECT_NE(render::overview_text("test", o).find("\"pos_x\"\t\t\""), std::string::npos);
}

TEST(Render, CeilingsFacingDownAreNotDrawnFromAbove) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {512, 512, 16}, "dev/floor"));
    // A ceiling slab whose only drawn face is its underside.
    scene::Brush ceiling = box(2, {0, 0, 256}, {512, 512, 272}, "tools/toolsnodraw");
    ceiling.sides[1].material = "dev/ceiling";
    s.world.brushes.push_back(ceiling);
    render::RenderOptions opt;
    opt.size = 64;
    const render::Picture with = render::render_scene(s, opt);
    s.world.brushes.pop_back();
    const render::Picture without = render::render_scene(s, opt);
    EXPECT_EQ(with.image.rgb, without.image.rgb);
}

TEST(Render, SamePictureEveryRunAndAValidPng) {
    scene::Scene s;
    s.world.brushes.push_back(box(1, {0, 0, 0}, {300, 200, 50}, "a"));
    s.world.brushes.push_back(box(2, {50, 50, 50}, {100, 150, 300}, "b"));
    render::RenderOptions opt;
    opt.view = render::View::iso;
    opt.size = 200;
    const render::Picture a = render::render_scene(s, opt);
    const render::Picture b = render::render_scene(s, opt);
    EXPECT_FALSE(a.overview);
    EXPECT_EQ(a.image.width, 200);
    EXPECT_GE(a.image.height, 200 / 3);
    EXPECT_LE(a.image.height, 200);
    auto pa = render::encode_png(a.image);
    auto pb = render::encode_png(b.image);
    ASSERT_TRUE(pa);
    ASSERT_TRUE(pb);
    EXPECT_EQ(*pa, *pb);
    // PNG signature, then IHDR with the width and height (big-endian).
    const std::uint8_t sig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    ASSERT_GT(pa->size(), 24u);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(std::to_integer<std::uint8_t>((*pa)[i]), sig[i]);
    EXPECT_EQ(std::to_integer<int>((*pa)[18]) * 256 + std::to_integer<int>((*pa)[19]), 200);
    auto small = render::encode_png(a.image, true);
    ASSERT_TRUE(small);
    EXPECT_LE(small->size(), pa->size());
}

TEST(Render, SharedEdgesAreFilledOnceWithoutGaps) {
    // A square made of two triangles: with one sample per pixel and no margin, every pixel is
    // covered exactly once (no background showing through the diagonal).
    scene::Scene s;
    scene::Mesh m;
    m.positions = {{0, 0, 0}, {100, 0, 0}, {100, 100, 0}, {0, 100, 0}};
    m.face_vertices = {0, 1, 2, 0, 2, 3};
    m.faces.push_back({0, 3, 0, {}, {}});
    m.faces.push_back({3, 3, 0, {}, {}});
    m.materials = {"dev/floor"};
    s.world.meshes.push_back(m);
    render::RenderOptions opt;
    opt.size = 64;
    opt.supersample = 1;
    opt.margin = 0;
    const render::Picture pic = render::render_scene(s, opt);
    EXPECT_EQ(pic.triangles, 2u);
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x)
            EXPECT_NE(pixel(pic.image, x, y), opt.background) << x << "," << y;
}

TEST(Render, EmptySceneIsBackground) {
    scene::Scene s;
    render::RenderOptions opt;
    opt.size = 16;
    const render::Picture pic = render::render_scene(s, opt);
    EXPECT_EQ(pic.triangles, 0u);
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) EXPECT_EQ(pixel(pic.image, x, y), opt.background);
    EXPECT_FALSE(render::encode_png(render::Image{}));
}

// Two floors near the ends of the double range: their depth span overflows to infinity and the
// top view's depth shading of the upper one was inf / inf = NaN, which the colour packing cast
// to an integer (undefined behaviour; black on x86). It is drawn in its shaded colour.
TEST(Render, DepthShadingOfAnInfiniteDepthSpanStaysAColour) {
    scene::Scene s;
    scene::Mesh m;
    const double z = 1.7e308;
    m.positions = {{0, 0, z}, {64, 0, z}, {0, 64, z}, {80, 0, -z}, {144, 0, -z}, {80, 64, -z}};
    m.face_vertices = {0, 1, 2, 3, 4, 5};
    m.materials = {"floor"};
    m.faces = {{0, 3, 0, {}, {}}, {3, 3, 0, {}, {}}};
    m.uvs.assign(6, {0, 0});
    s.world.meshes.push_back(m);
    render::RenderOptions opt;
    opt.size = 64;
    opt.supersample = 1;
    const render::Picture pic = render::render_scene(s, opt);
    ASSERT_EQ(pic.triangles, 2u);
    const auto& o = *pic.overview;
    const auto [x, y] = to_pixel(o, 8, 8);  // inside the upper floor
    const auto p = pixel(pic.image, x, y);
    EXPECT_NE(p, (std::array<std::uint8_t, 3>{0, 0, 0}));
    EXPECT_NE(p, opt.background);
}

// An isometric picture's height is the scene's height / width ratio times the width, clamped to
// [width / 3, width]; a ratio past int range wrapped (here to a negative number, so the
// picture came out a third as high).
TEST(Render, IsoHeightOfAVeryTallThinSceneIsClampedNotWrapped) {
    const Vec3 toward = normalize({1, -1, 1});
    const Vec3 right = normalize({1, 1, 0});
    const Vec3 up = cross(toward, right);
    const double w = 1, h = 117440512;  // 64 * h / w = 1.75 * 2^32
    scene::Scene s;
    scene::Mesh m;
    m.positions = {{0, 0, 0}, right * w, right * w + up * h, up * h};
    m.face_vertices = {0, 1, 2, 3};
    m.materials = {"pole"};
    m.faces = {{0, 4, 0, {}, {}}};
    m.uvs.assign(4, {0, 0});
    s.world.meshes.push_back(m);
    render::RenderOptions opt;
    opt.view = render::View::iso;
    opt.size = 64;
    opt.supersample = 1;
    const render::Picture pic = render::render_scene(s, opt);
    EXPECT_EQ(pic.image.width, 64);
    EXPECT_EQ(pic.image.height, 64);
}
