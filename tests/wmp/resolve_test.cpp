// Group resolution rules (what WED does before compiling), each on a tiny level.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"

namespace lk::wmp {
namespace {

constexpr double kPi = std::numbers::pi;

bool mat_near(const Mat3& a, const Mat3& b, double eps) {
    for (int i = 0; i < 9; ++i) {
        if (std::abs(a.m[i] - b.m[i]) > eps) return false;
    }
    return true;
}

TEST(WmpResolve, ObjectAnglesAreZXYRadians) {
    // a0 turns about z: +x goes to +y.
    EXPECT_TRUE(near(object_rotation({kPi / 2, 0, 0}) * Vec3(1, 0, 0), Vec3(0, 1, 0), 1e-12));
    // a2 is minus the tilt: a2 = -90 degrees points +x straight up.
    EXPECT_TRUE(near(object_rotation({0, 0, -kPi / 2}) * Vec3(1, 0, 0), Vec3(0, 0, 1), 1e-12));
    // a1 rolls about x: +y goes to +z.
    EXPECT_TRUE(near(object_rotation({0, kPi / 2, 0}) * Vec3(0, 1, 0), Vec3(0, 0, 1), 1e-12));
}

TEST(WmpResolve, MMAnglesRoundTripThroughMatrices) {
    for (const Vec3& a : {Vec3(0, 0, 0), Vec3(90, 0, 0), Vec3(197.5, 350.25, 331.5),
                          Vec3(10, 80, 20), Vec3(270, 45, 0), Vec3(1, 2, 3)}) {
        const Mat3 r = mm_rotation(a);
        EXPECT_TRUE(mat_near(mm_rotation(mm_angles(r)), r, 1e-9))
            << a.x << " " << a.y << " " << a.z;
        const Vec3 back = mm_angles(r);
        for (double v : {back.x, back.y, back.z}) {
            EXPECT_GE(v, 0);
            EXPECT_LT(v, 360);
        }
    }
    // Looking straight up (gimbal lock) still gives an equivalent rotation.
    const Mat3 up = mm_rotation({30, 90, 0});
    EXPECT_TRUE(mat_near(mm_rotation(mm_angles(up)), up, 1e-9));
}

TEST(WmpResolve, DefaultAxesFollowQuake) {
    auto [s, t] = default_texture_axes({0, 0, 1});
    EXPECT_EQ(s.axis, Vec3(1, 0, 0));
    EXPECT_EQ(t.axis, Vec3(0, -1, 0));
    std::tie(s, t) = default_texture_axes({-1, 0, 0});
    EXPECT_EQ(s.axis, Vec3(0, 1, 0));
    EXPECT_EQ(t.axis, Vec3(0, 0, -1));
    std::tie(s, t) = default_texture_axes({0, 0.8, 0.6});  // mostly a y wall
    EXPECT_EQ(s.axis, Vec3(1, 0, 0));
    EXPECT_EQ(t.axis, Vec3(0, 0, -1));
}

TEST(WmpResolve, BakingScaleRotationAndOffsets) {
    const TexAxis s{{1, 0, 0}, 0}, t{{0, -1, 0}, 0};
    // Scale 2 halves the axes (`$$M` writes ( 0.5 0 0 0 )); offsets are added in texels.
    auto [a, b] = bake_texture(s, t, {16, 8, 0, 2, 2});
    EXPECT_EQ(a.axis, Vec3(0.5, 0, 0));
    EXPECT_EQ(b.axis, Vec3(0, -0.5, 0));
    EXPECT_EQ(a.offset, 16);
    EXPECT_EQ(b.offset, 8);
    // A rotation of 90 degrees turns the axes within the face plane.
    std::tie(a, b) = bake_texture(s, t, {0, 0, 90, 1, 1});
    EXPECT_TRUE(near(a.axis, Vec3(0, 1, 0), 1e-12));
    EXPECT_TRUE(near(b.axis, Vec3(1, 0, 0), 1e-12));
    // Axis offsets already present are scaled with their axis.
    std::tie(a, b) = bake_texture({{1, 0, 0}, 10}, t, {7, 0, 0, 2, 1});
    EXPECT_EQ(a.offset, 12);
}

// A group moved by (100, 0, 0) and turned 90 degrees, holding a block and a model.
Level grouped_level(std::uint32_t face_flags, std::uint32_t block_flags) {
    Level lv;
    lv.dialect = Dialect::wmpb;
    lv.levels.emplace_back();
    Block& b = lv.blocks.emplace_back();
    b.vertices = {{0, 0, 0}, {10, 0, 0}, {0, 10, 0}, {0, 0, 10}};
    b.flags = block_flags;
    for (auto idx : {std::vector<std::uint32_t>{1, 0, 2}, {0, 1, 3}, {2, 0, 3}, {1, 2, 3}}) {
        Face& f = b.faces.emplace_back();
        f.indices = idx;
        f.texture = "stone";
        f.t1 = TexAxis{{1, 0, 0}, 0};
        f.t2 = TexAxis{{0, -1, 0}, 0};
        f.transform = TexTransform{};
        f.flags = face_flags;
    }
    Model& m = lv.models.emplace_back();
    m.file = "guard.mdl";
    m.name = "guard";
    m.skills.assign(8, 0);
    lv.objects.resize(4);
    lv.objects[0].kind = Kind::level;
    lv.objects[0].payload = 0;
    lv.objects[0].children = {1};
    lv.objects[1].transform.position = {100, 0, 0};
    lv.objects[1].transform.angles = {kPi / 2, 0, 0};
    lv.objects[1].children = {2, 3};
    lv.objects[2].kind = Kind::block;
    lv.objects[2].payload = 0;
    lv.objects[3].kind = Kind::model;
    lv.objects[3].payload = 0;
    lv.objects[3].transform.position = {5, 0, 0};
    return lv;
}

TEST(WmpResolve, FlattensGroupsIntoWorldSpace) {
    auto mm = resolve(grouped_level(0, 0));
    ASSERT_TRUE(mm.ok()) << mm.error().to_string();
    EXPECT_EQ(mm->dialect, Dialect::mm);
    ASSERT_EQ(mm->blocks.size(), 1u);
    const Block& b = mm->blocks[0];
    EXPECT_TRUE(near(b.vertices[1], Vec3(100, 10, 0), 1e-5));  // (10,0,0) turned to +y, moved
    // Texture axes turn with the block...
    EXPECT_TRUE(near(b.faces[0].t1->axis, Vec3(0, 1, 0), 1e-6));
    // ...but offsets stay in world space (no texture lock).
    EXPECT_EQ(b.faces[0].t1->offset, 0);
    EXPECT_FALSE(b.faces[0].transform.has_value());
    ASSERT_EQ(mm->models.size(), 1u);
    EXPECT_EQ(mm->models[0].number, 3);  // 8 skills: `$$M` type 3
    const Object& o = mm->objects[mm->objects[0].children[1]];
    EXPECT_TRUE(near(o.transform.position, Vec3(100, 5, 0), 1e-5));
    EXPECT_NEAR(o.transform.angles.x, 90, 1e-4);  // degrees
}

TEST(WmpResolve, LockedTexturesMoveWithTheBlock) {
    auto mm = resolve(grouped_level(face_flag::texture_lock, block_flag::locked_textures));
    ASSERT_TRUE(mm.ok());
    const Face& f = mm->blocks[0].faces[0];
    // offset -= dot(axis, translation): axis (0,1,0) after the turn, translation (100,0,0).
    EXPECT_EQ(f.t2->offset, -dot(f.t2->axis, Vec3(100, 0, 0)));
    EXPECT_NEAR(f.t1->offset, 0, 1e-9);
    // Editor-only bits are not written to `$$M`.
    EXPECT_EQ(f.flags, 0u);
    EXPECT_EQ(mm->blocks[0].flags, 0u);
    // Block flag 5 keeps locked offsets in world space.
    auto world = resolve(grouped_level(face_flag::texture_lock, block_flag::world_texture_offsets));
    ASSERT_TRUE(world.ok());
    EXPECT_EQ(world->blocks[0].faces[0].t2->offset, 0);
}

TEST(WmpResolve, EitherLockBitMovesOffsets) {
    // Face bit 28 alone, block bit 16 alone: both shift the offsets with the block.
    for (auto [face, block] :
         {std::pair{face_flag::texture_lock, 0u}, std::pair{0u, block_flag::locked_textures}}) {
        auto mm = resolve(grouped_level(face, block));
        ASSERT_TRUE(mm.ok());
        const Face& f = mm->blocks[0].faces[0];
        EXPECT_EQ(f.t2->offset, -dot(f.t2->axis, Vec3(100, 0, 0)));
    }
    // Block bit 5 wins over both.
    auto world =
        resolve(grouped_level(0, block_flag::locked_textures | block_flag::world_texture_offsets));
    ASSERT_TRUE(world.ok());
    EXPECT_EQ(world->blocks[0].faces[0].t2->offset, 0);
}

TEST(WmpResolve, TypeSevenMapEntitiesTurnAQuarter) {
    // The model is turned 90 degrees by its group. As a 20-skill (type 7) map entity WED
    // writes it turned back a quarter; as a type-3 map entity or a type-7 mdl it keeps 90.
    auto pan = [](const char* file, std::size_t skills) {
        Level lv = grouped_level(0, 0);
        lv.models[0].file = file;
        lv.models[0].skills.assign(skills, 0);
        auto mm = resolve(lv);
        EXPECT_TRUE(mm.ok());
        return mm->objects[mm->objects[0].children[1]].transform.angles.x;
    };
    EXPECT_NEAR(pan("lift.wmb", 20), 0, 1e-4);
    EXPECT_NEAR(pan("lift.wmb", 8), 90, 1e-4);
    EXPECT_NEAR(pan("guard.mdl", 20), 90, 1e-4);
}

TEST(WmpResolve, WritesAMMFileThatReadsBack) {
    auto mm = resolve(grouped_level(0, 0), {"box.$$w", "levelkit test"});
    ASSERT_TRUE(mm.ok());
    auto text = write_text(mm.value());
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(text->rfind("// levelkit test", 0), 0u);
    EXPECT_NE(text->find("{ //level"), std::string::npos);
    EXPECT_NE(text->find("{ //sun"), std::string::npos);
    EXPECT_NE(text->find("\tbox.$$w"), std::string::npos);
    auto back = read_mm(Blob::copy_of(text.value()));
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(back->blocks.size(), 1u);
    EXPECT_EQ(back->models.size(), 1u);
}

}  // namespace
}  // namespace lk::wmp
