// Texture sizes from a game's files: header readers and the folder lookup.
#include "levelkit/convert/texture_sizes.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "levelkit/convert/scene_gltf.hpp"
#include "levelkit/scene/geometry.hpp"

using namespace lk;
namespace fs = std::filesystem;

namespace {

Bytes le(std::initializer_list<std::pair<std::uint32_t, int>> fields) {
    Bytes out;
    for (auto [v, n] : fields)
        for (int i = 0; i < n; ++i) out.push_back(std::byte((v >> (8 * i)) & 0xFF));
    return out;
}

Bytes vtf(int w, int h) {
    Bytes b = le(
        {{0x00465456, 4}, {7, 4}, {2, 4}, {80, 4}, {std::uint32_t(w), 2}, {std::uint32_t(h), 2}});
    b.resize(80);
    return b;
}

void write(const fs::path& p, const Bytes& b) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}
void write(const fs::path& p, std::string_view text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST(TextureSizes, HeaderReaders) {
    EXPECT_EQ(convert::vtf_size(vtf(256, 128)), (std::array<int, 2>{256, 128}));
    EXPECT_FALSE(convert::vtf_size(vtf(0, 128)));
    Bytes pcx(128);
    pcx[0] = std::byte{10};
    pcx[1] = std::byte{5};
    pcx[2] = std::byte{1};
    const Bytes win = le({{0, 2}, {0, 2}, {63, 2}, {31, 2}});
    std::memcpy(pcx.data() + 4, win.data(), 8);
    EXPECT_EQ(convert::pcx_size(pcx), (std::array<int, 2>{64, 32}));
    Bytes bmp = le({{'B' | ('M' << 8), 2},
                    {54, 4},
                    {0, 4},
                    {54, 4},
                    {40, 4},
                    {16, 4},
                    {std::uint32_t(-8), 4}});
    EXPECT_EQ(convert::bmp_size(bmp), (std::array<int, 2>{16, 8}));  // top-down rows
    Bytes tga =
        le({{0, 1}, {0, 1}, {2, 1}, {0, 4}, {0, 1}, {0, 4}, {32, 2}, {16, 2}, {24, 1}, {0, 1}});
    EXPECT_EQ(convert::tga_size(tga), (std::array<int, 2>{32, 16}));
    tga[2] = std::byte{7};  // no such image type
    EXPECT_FALSE(convert::tga_size(tga));
    EXPECT_FALSE(convert::bmp_size(pcx));
}

TEST(TextureSizes, WadDirectory) {
    Bytes mip(16 + 24);
    std::memcpy(mip.data(), "brick", 5);
    const Bytes wh = le({{64, 4}, {32, 4}});
    std::memcpy(mip.data() + 16, wh.data(), 8);
    Bytes wad = le({{'W' | ('A' << 8) | ('D' << 16) | ('3' << 24), 4},
                    {2, 4},
                    {std::uint32_t(12 + mip.size()), 4}});
    wad.insert(wad.end(), mip.begin(), mip.end());
    Bytes e1 = le({{12, 4},
                   {std::uint32_t(mip.size()), 4},
                   {std::uint32_t(mip.size()), 4},
                   {0x43, 1},
                   {0, 1},
                   {0, 2}});
    e1.resize(16 + 16);
    std::memcpy(e1.data() + 16, "BRICK", 5);
    Bytes e2 = le({{100000, 4}, {40, 4}, {40, 4}, {0x43, 1}, {0, 1}, {0, 2}});  // outside the file
    e2.resize(32);
    wad.insert(wad.end(), e1.begin(), e1.end());
    wad.insert(wad.end(), e2.begin(), e2.end());
    auto list = convert::wad_textures(wad);
    ASSERT_TRUE(list);
    ASSERT_EQ(list->size(), 1u);
    EXPECT_EQ((*list)[0].name, "BRICK");
    EXPECT_EQ((*list)[0].size, (std::array<int, 2>{64, 32}));
    wad[8] = std::byte{0xFF};  // directory past the end
    EXPECT_FALSE(convert::wad_textures(wad));
}

TEST(TextureSizes, VmtBaseTextureAndPatch) {
    auto v =
        convert::parse_vmt("\"LightmappedGeneric\"\n{\n\t\"$BaseTexture\" \"brick/wall01a\"\n}\n");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->base_texture, "brick/wall01a");
    v = convert::parse_vmt(
        "patch { include \"materials/brick/wall01.vmt\" replace { \"$envmap\" \"x\" } }");
    ASSERT_TRUE(v);
    EXPECT_FALSE(v->base_texture);
    EXPECT_EQ(v->include, "materials/brick/wall01.vmt");
    EXPECT_FALSE(convert::parse_vmt("\"unterminated"));
}

TEST(TextureSizes, FolderLookupAndGltfUvs) {
    const fs::path dir = fs::temp_directory_path() / "levelkit_texture_sizes_test";
    fs::remove_all(dir);
    write(dir / "materials" / "brick" / "wall01.vmt",
          "\"LightmappedGeneric\" { \"$basetexture\" \"Brick/Wall01A\" }");
    write(dir / "materials" / "brick" / "wall01a.vtf", vtf(256, 128));
    write(dir / "materials" / "maps" / "x" / "patched.vmt",
          "patch { include \"materials/brick/wall01.vmt\" }");
    write(dir / "materials" / "dev" / "plain.vtf", vtf(64, 64));
    convert::TextureSizes sizes(dir);
    EXPECT_EQ(sizes.size("BRICK/WALL01"), (std::array<double, 2>{256, 128}));
    EXPECT_EQ(sizes.size("maps/x/patched"), (std::array<double, 2>{256, 128}));
    EXPECT_EQ(sizes.size("dev/plain"), (std::array<double, 2>{64, 64}));  // no VMT: same-name VTF
    EXPECT_FALSE(sizes.size("dev/missing"));
    EXPECT_EQ(sizes.found(), 3u);
    EXPECT_EQ(sizes.missing(), 1u);

    // The glTF writer divides texels by the size found.
    scene::Scene s;
    scene::Brush b;
    const Vec3 n[6] = {{0, 0, 1}, {0, 0, -1}, {-1, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (int i = 0; i < 6; ++i) {
        scene::BrushSide sd;
        sd.plane = {n[i], 64};
        sd.material = "brick/wall01";
        sd.u = {{1, 0, 0}, 0, 0.25};
        sd.v = {{0, -1, 0}, 0, 0.25};
        b.sides.push_back(sd);
    }
    s.world.brushes.push_back(b);
    convert::GltfOptions opt;
    opt.materials_dir = dir;
    Diagnostics d;
    auto files = convert::scene_to_gltf(s, opt, d);
    ASSERT_TRUE(files);
    EXPECT_EQ(files->report.textures_sized, 1u);
    fs::remove_all(dir);
}
