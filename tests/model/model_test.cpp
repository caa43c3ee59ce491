// The neutral model: math conventions, welding/triangulation, correctives, sampling, checks.
#include <gtest/gtest.h>

#include <limits>

#include <cmath>

#include "levelkit/model/model.hpp"

namespace lk::model {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(ModelMath, EulerXyzIsRzRyRx) {
    // 90 degrees about X turns +Y into +Z (SMD's "1.570796 0 0").
    const Quat qx = from_euler_xyz({static_cast<float>(kPi / 2), 0, 0});
    const Vec3f y = rotate(qx, {0, 1, 0});
    EXPECT_NEAR(y.z, 1, 1e-6);
    // X first, then Z: (1.57, 0, 1.57) maps +Y to +Z and +X to +Y.
    const Quat q = from_euler_xyz({static_cast<float>(kPi / 2), 0, static_cast<float>(kPi / 2)});
    const Vec3f a = rotate(q, {1, 0, 0}), b = rotate(q, {0, 1, 0});
    EXPECT_NEAR(a.y, 1, 1e-6);
    EXPECT_NEAR(b.z, 1, 1e-6);
    // Round trip.
    for (const Vec3f e : {Vec3f{0.3f, -1.2f, 2.5f}, Vec3f{-2.9f, 0.7f, -0.1f}, Vec3f{0, 0, 0}}) {
        const Quat r = from_euler_xyz(e);
        EXPECT_LT(angle_between(r, from_euler_xyz(to_euler_xyz(r))), 1e-6);
    }
    EXPECT_LT(angle_between(Quat{0, 0, 0, 1}, Quat{0, 0, 0, -1}), 1e-9);  // q and -q
}

TEST(ModelMath, AffineComposesAndInverts) {
    Transform t;
    t.translation = {1, 2, 3};
    t.rotation = from_euler_xyz({0, 0, static_cast<float>(kPi / 2)});
    t.scale = {2, 2, 2};
    const Affine a = Affine::from(t);
    const Vec3f p = a.point({1, 0, 0});  // scale, rotate +X to +Y, translate
    EXPECT_NEAR(p.x, 1, 1e-6);
    EXPECT_NEAR(p.y, 4, 1e-6);
    const Vec3f back = a.inverse().point(p);
    EXPECT_NEAR(back.x, 1, 1e-6);
    const Transform d = decompose(a);
    EXPECT_NEAR(d.scale.x, 2, 1e-6);
    EXPECT_LT(angle_between(d.rotation, t.rotation), 1e-6);
}

Mesh quad_mesh() {
    Mesh m;
    m.positions.values = {{0, 0, 0}, {2, 0, 0}, {2, 1, 0}, {0, 1, 0}};
    m.positions.indices = {0, 1, 2, 3};
    m.normals.values = {{0, 0, 1}};
    m.normals.indices = {0, 0, 0, 0};
    m.face_sets.push_back({0, {0, 1, 2, 3}, {4}});
    return m;
}

TEST(ModelMesh, FlattenWeldsAndSplitsQuads) {
    const Mesh m = quad_mesh();
    const Flattened f = flatten(m);
    EXPECT_EQ(f.corner.size(), 4u);
    ASSERT_EQ(f.parts.size(), 1u);
    EXPECT_EQ(f.parts[0].triangles, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3}));
    const Flattened g = flatten(m, QuadSplit::second);
    EXPECT_EQ(g.parts[0].triangles, (std::vector<std::uint32_t>{1, 2, 3, 1, 3, 0}));
    // 0-2 and 1-3 have the same length here: the shortest rule keeps 0-2.
    EXPECT_EQ(flatten(m, QuadSplit::shortest).parts[0].triangles, f.parts[0].triangles);
    // Corners with equal indices share a vertex.
    Mesh twice = m;
    twice.positions.indices = {0, 1, 2, 3, 0, 2};
    twice.normals.indices = {0, 0, 0, 0, 0, 0};
    twice.face_sets[0] = {0, {0, 1, 2, 3, 4, 5}, {4, 2}};
    EXPECT_EQ(flatten(twice).corner.size(), 4u);
}

TEST(ModelFlex, CorrectiveDriversJoinRawControls) {
    Flex flex;
    flex.controllers.push_back({"a", {"JawOpen"}});
    flex.controllers.push_back({"b", {"LipPucker"}});
    flex.controllers.push_back({"c", {"Smile-Wide"}});
    EXPECT_EQ(corrective_drivers(flex, "JawOpen_LipPucker"),
              (std::vector<std::string>{"JawOpen", "LipPucker"}));
    EXPECT_EQ(corrective_drivers(flex, "JawOpen__LipPucker"),
              (std::vector<std::string>{"JawOpen", "LipPucker"}));
    EXPECT_TRUE(corrective_drivers(flex, "JawOpen").empty());     // a raw control itself
    EXPECT_TRUE(corrective_drivers(flex, "Smile-Wide").empty());  // '-' inside a raw name
    EXPECT_TRUE(corrective_drivers(flex, "left_wrinkler").empty());
}

TEST(ModelClip, SamplingSnapsToTruncatedKeyTimes) {
    NodeTrack t;
    // Key times as files store frames of 24 fps: truncated to 1/10000 s.
    t.translation.times = {0, 0.0416, 0.0833};
    t.translation.values = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    const Transform rest{};
    EXPECT_EQ(sample(&t, rest, 1.0 / 24).translation.x, 1.0f);
    EXPECT_EQ(sample(&t, rest, 2.0 / 24).translation.x, 2.0f);
    EXPECT_NEAR(sample(&t, rest, 0.0625).translation.x, 1.5, 0.01);
    EXPECT_EQ(sample(&t, rest, 5).translation.x, 2.0f);  // holds the last key
    EXPECT_EQ(sample(nullptr, rest, 1).translation.x, 0.0f);
    Clip c;
    c.frame_rate = 24;
    c.duration = 0.0833;
    EXPECT_EQ(c.frame_count(), 3u);
}

TEST(ModelCheck, FindsBrokenIndices) {
    Model m = Model::with_root("m");
    m.materials.push_back({"mat"});
    m.meshes.push_back(quad_mesh());
    EXPECT_TRUE(check(m).empty());
    Model bad = m;
    bad.meshes[0].normals.indices[2] = 7;
    auto problems = check(bad);
    ASSERT_FALSE(problems.empty());
    EXPECT_NE(problems[0].find("normals.indices[2]"), std::string::npos) << problems[0];
    bad = m;
    bad.meshes[0].face_sets[0].material = 3;
    EXPECT_FALSE(check(bad).empty());
    bad = m;
    bad.nodes.push_back({"child", 5});
    EXPECT_FALSE(check(bad).empty());
}

TEST(ModelCheck, CompareReportsThePath) {
    Model a = Model::with_root("m");
    a.materials.push_back({"mat"});
    a.meshes.push_back(quad_mesh());
    Model b = a;
    EXPECT_FALSE(compare(a, b).has_value());
    b.meshes[0].positions.values[2].y = 1.00001f;
    auto diff = compare(a, b);
    ASSERT_TRUE(diff.has_value());
    EXPECT_NE(diff->find("positions.values[2]"), std::string::npos) << *diff;
    Tolerance tol;
    tol.position = 1e-4;
    EXPECT_FALSE(compare(a, b, tol).has_value());
}

// A NaN read from a file is the same NaN when the file is read again (fuzz_dmxmodel: a
// wrinkle scale of NaN made every re-read model differ from itself).
TEST(ModelCheck, NaNEqualsNaNInCompare) {
    Model a = Model::with_root("m");
    FlexController c;
    c.name = "Key 1";
    c.wrinkle_scales = {std::numeric_limits<float>::quiet_NaN()};
    a.flex.controllers.push_back(c);
    Model b = a;
    EXPECT_FALSE(compare(a, b).has_value()) << *compare(a, b);
    b.flex.controllers[0].wrinkle_scales[0] = 1;
    EXPECT_TRUE(compare(a, b).has_value());
}

// An influence that weighs 0 names no joint that matters: a DMX without a root bone has no
// index for the model and writes another joint there (CI fuzz_dmxmodel). Weighted joints count.
TEST(ModelCheck, JointsOfZeroWeightInfluencesAreNotCompared) {
    Model a = Model::with_root("m");
    a.nodes.push_back({"bone", 0, NodeKind::joint});
    a.materials.push_back({"mat"});
    a.meshes.push_back(quad_mesh());
    Skin& s = a.meshes[0].skin;
    s.influences = 2;
    const std::size_t slots = 2 * a.meshes[0].positions.values.size();
    s.joints.assign(slots, 1);
    s.weights.assign(slots, 0.5f);
    s.weights[1] = 0;
    s.weights[3] = 1;
    s.joints[1] = 0;  // the model, at weight 0
    Model b = a;
    b.meshes[0].skin.joints[1] = 1;
    EXPECT_FALSE(compare(a, b).has_value()) << *compare(a, b);
    b.meshes[0].skin.joints[3] = 0;  // weight 1
    auto diff = compare(a, b);
    ASSERT_TRUE(diff.has_value());
    EXPECT_NE(diff->find("skin.joints"), std::string::npos) << *diff;
}

TEST(ModelNames, RootBoneNameFollowsBlenderSourceTools) {
    Model m = Model::with_root("Cube");
    m.nodes.push_back({"Cube", 0, NodeKind::dag});
    m.meshes.push_back(quad_mesh());
    m.meshes[0].name = "Cube";
    m.meshes[0].node = 1;
    EXPECT_EQ(root_bone_name(m), "root");  // no armature: named after the mesh
    m.nodes[0].name = "Armature";
    m.meshes[0].name = "Cube";
    EXPECT_EQ(root_bone_name(m), "blender_implicit");
    m.nodes[0].name = "root";
    EXPECT_EQ(root_bone_name(m), "root");
}

}  // namespace
}  // namespace lk::model
