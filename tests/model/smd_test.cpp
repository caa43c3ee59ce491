// SMD / VTA reading and writing, as a spec of the format.
#include <gtest/gtest.h>

#include "levelkit/smd/smd.hpp"

namespace lk::smd {
namespace {

constexpr const char* kReference = R"(// exported by hand
version 1
nodes
0 "root bone" -1
1 "Bone" 0
end
skeleton
time 0
0  0 0 0  0 0 0
1  1.000000 2.000000 3.000000  1.570796 -0.000000 0.000000
end
triangles
metal
0  -1.000000 -1.000000 1.000000  -1.000000 0.000000 0.000000  0.500000 0.500000 2 1 0.750000 0 0.250000
0  -1.000000 1.000000 -1.000000  -1.000000 0.000000 0.000000  1.000000 0.000000 1 1 1.000000
1  -1.000000 -1.000000 -1.000000  -1.000000 0.000000 0.000000  0.500000 0.000000
end
)";

TEST(Smd, ReadsNodesSkeletonAndTriangles) {
    Diagnostics w;
    auto f = read(kReference, w);
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    EXPECT_TRUE(w.empty());
    ASSERT_EQ(f->comments.size(), 1u);
    EXPECT_EQ(f->comments[0], "exported by hand");
    ASSERT_EQ(f->nodes.size(), 2u);
    EXPECT_EQ(f->nodes[0].name, "root bone");  // quoted names keep spaces
    EXPECT_EQ(f->nodes[1].parent, 0);
    ASSERT_EQ(f->skeleton.size(), 1u);
    EXPECT_EQ(f->skeleton[0].bones[1].position, (Vec3{1, 2, 3}));
    EXPECT_DOUBLE_EQ(f->skeleton[0].bones[1].rotation.x, 1.570796);
    ASSERT_EQ(f->triangles.size(), 1u);
    EXPECT_EQ(f->materials[f->triangles[0].material], "metal");
    const Vertex& v0 = f->triangles[0].v[0];
    ASSERT_EQ(v0.link_count, 2u);
    EXPECT_EQ(f->links_of(v0)[0].bone, 1);
    EXPECT_DOUBLE_EQ(f->links_of(v0)[1].weight, 0.25);
    // GoldSrc-style line: no link count, the parent column is the bone.
    const Vertex& v2 = f->triangles[0].v[2];
    EXPECT_FALSE(v2.has_links);
    EXPECT_EQ(v2.parent, 1);
}

TEST(Smd, WriteReadIsLossless) {
    Diagnostics w;
    auto f = read(kReference, w);
    ASSERT_TRUE(f.ok());
    const std::string text = write(*f);
    auto g = read(text, w);
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    EXPECT_TRUE(same_content(*f, *g));
    // Shortest spelling keeps any double exactly.
    File h = *f;
    h.skeleton[0].bones[1].position.x = 0.1 + 0.2;
    WriteOptions exact;
    exact.decimals = -1;
    auto back = read(write(h, exact), w);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->skeleton[0].bones[1].position.x, 0.1 + 0.2);
}

// Streaming: the same text as write(), handed over in pieces of about a megabyte between frames
// and triangles; a sink that fails stops the write with its error.
TEST(Smd, WriteToStreamsTheSameText) {
    Diagnostics w;
    auto f = read(kReference, w);
    ASSERT_TRUE(f.ok());
    File big = *f;
    for (std::int32_t t = 1; t < 40000; ++t) {
        Frame fr = big.skeleton[0];
        fr.time = t;
        fr.bones[1].position.x = t * 0.5;
        big.skeleton.push_back(std::move(fr));
    }
    big.triangles.resize(5000, f->triangles[0]);
    struct Pieces final : ByteSink {
        std::string text;
        std::size_t pieces = 0;
        std::size_t fail_at = SIZE_MAX;
        Result<void> write(ByteSpan b) override {
            if (++pieces == fail_at) return Diagnostic::error("io.write", "disk full");
            text.append(reinterpret_cast<const char*>(b.data()), b.size());
            return {};
        }
    };
    const std::string whole = write(big);
    ASSERT_GT(whole.size(), std::size_t{3} << 20);
    Pieces sink;
    ASSERT_TRUE(write_to(big, sink).ok());
    EXPECT_GT(sink.pieces, 3u);
    EXPECT_EQ(sink.text, whole);
    Pieces small;  // a file under one piece is handed over once
    ASSERT_TRUE(write_to(*f, small).ok());
    EXPECT_EQ(small.pieces, 1u);
    EXPECT_EQ(small.text, write(*f));
    Pieces failing;
    failing.fail_at = 2;
    auto r = write_to(big, failing);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "io.write");
    EXPECT_EQ(failing.pieces, 2u);  // nothing more after the failure
}

TEST(Smd, ReadsVertexAnimationWithShapeNames) {
    constexpr const char* vta = R"(version 1
nodes
0 "root" -1
end
skeleton
time 0
time 1 # Key 1
end
vertexanimation
time 0
0 -1.000000 -1.000000 1.000000 -1.000000 0.000000 0.000000
1 -1.000000 1.000000 -1.000000 -1.000000 0.000000 0.000000
time 1
0 -1.000000 -1.000000 2.000000 -1.000000 0.000000 0.000000
end
)";
    Diagnostics w;
    auto f = read(vta, w);
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    ASSERT_EQ(f->skeleton.size(), 2u);
    EXPECT_EQ(f->skeleton[1].comment, "Key 1");
    EXPECT_TRUE(f->skeleton[1].bones.empty());
    ASSERT_EQ(f->vertex_animation.size(), 2u);
    EXPECT_EQ(f->vertex_animation[1].vertices[0].position.z, 2.0);
    auto g = read(write(*f), w);
    ASSERT_TRUE(g.ok());
    EXPECT_TRUE(same_content(*f, *g));
}

TEST(Smd, ErrorsCarryLineAndColumn) {
    struct Case {
        const char* text;
        const char* code;
        std::uint32_t line, column;
    };
    const Case cases[] = {
        {"nodes\nend\n", "smd.no-version", 1, 1},
        {"version 1\nnodes\n0 \"a -1\nend\n", "smd.bad-node", 3, 3},
        {"version 1\nnodes\n0 \"a\" -1\n", "smd.unexpected-eof", 4, 1},
        {"version 1\nskeleton\n0 0 0 0 0 0 0\nend\n", "smd.no-time", 3, 1},
        {"version 1\nskeleton\ntime 0\n0 0 0 zero 0 0 0\nend\n", "smd.bad-bone", 4, 7},
        {"version 1\ntriangles\nmat\n0 0 0 0 0 0 1 0 0\nend\n", "smd.bad-vertex", 5, 1},
        {"version 1\ntriangles\nmat\n0 0 0 0 0 0 1 0\n", "smd.bad-vertex", 4, 16},
        {"version 1\ntriangles\nmat\n0 0 0 0 0 0 1 0 0 2 1 1\n", "smd.bad-links", 4, 24},
        {"version 1\ntriangles\nmat\n0 0 0 0 0 0 1 0 0 99999999 1 1\n", "smd.bad-links", 4, 19},
        {"version 1\nbogus line\n", "smd.bad-block", 2, 1},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        Diagnostics w;
        auto f = read(c.text, w);
        ASSERT_FALSE(f.ok());
        EXPECT_EQ(f.error().code, c.code) << f.error().to_string();
        EXPECT_EQ(f.error().line, c.line) << f.error().to_string();
        EXPECT_EQ(f.error().column, c.column) << f.error().to_string();
    }
}

TEST(Smd, ToleratesWhatStudiomdlTolerates) {
    Diagnostics w;
    auto f = read(
        "version 1\r\nnodes\r\n  0 \"a\" -1\r\nend\r\nmystery\r\nx\r\nend\r\n"
        "skeleton\r\ntime 0\r\n0 0 0 0 0 0 0\r\nend\r\n",
        w);
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w.items()[0].code, "smd.unknown-block");
    EXPECT_EQ(w.items()[0].line, 5u);
    EXPECT_EQ(f->nodes.size(), 1u);
    EXPECT_EQ(f->skeleton.size(), 1u);
}

}  // namespace
}  // namespace lk::smd
