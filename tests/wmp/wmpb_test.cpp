// WMPB, written out chunk by chunk: the test builds files with the layout documented in
// src/wmp/wmpb.cpp and checks what the reader makes of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/wmp/wmp.hpp"

namespace lk::wmp {
namespace {

// Chunk header: u8 id, u8 kind, u16 kind + 1, u32 size including the 8 header bytes.
Bytes chunk(std::uint8_t id, std::uint8_t kind, const Bytes& body) {
    ByteWriter w;
    w.u8(id);
    w.u8(kind);
    w.u16(static_cast<std::uint16_t>(kind + 1));
    w.u32(static_cast<std::uint32_t>(body.size() + 8));
    w.bytes(body);
    return w.take();
}
Bytes cat(std::initializer_list<Bytes> parts) {
    Bytes out;
    for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}
Bytes str(std::string_view s) {
    ByteWriter w;
    w.cstring(s);
    return w.take();
}
Bytes f64s(std::initializer_list<double> v) {
    ByteWriter w;
    for (double d : v) w.f64(d);
    return w.take();
}
Bytes u32s(std::initializer_list<std::uint32_t> v) {
    ByteWriter w;
    for (auto d : v) w.u32(d);
    return w.take();
}
Bytes f32s(std::initializer_list<float> v) {
    ByteWriter w;
    for (float d : v) w.f32(d);
    return w.take();
}
// Object container prefix: u8 code, u8 subtype, u16 child count, u32 0.
Bytes object_prefix(std::uint8_t code, std::uint8_t subtype, std::uint16_t children) {
    ByteWriter w;
    w.u8(code);
    w.u8(subtype);
    w.u16(children);
    w.u32(0);
    return w.take();
}
Bytes transform(const Vec3& pos, const Vec3& ang) {
    return cat({chunk(1, 0, f64s({pos.x, pos.y, pos.z})), chunk(3, 0, f64s({ang.x, ang.y, ang.z})),
                chunk(5, 0, f64s({1, 1, 1}))});
}

// A tetrahedron block: 4 vertices, 4 triangles, surface records for faces 0 and 2.
Bytes block_object(const Bytes& extra_face_chunk = {}) {
    ByteWriter faces;
    faces.u32(4);
    for (auto tri : {std::array<int, 3>{1, 0, 2}, {0, 1, 3}, {2, 0, 3}, {1, 2, 3}}) {
        faces.u16(3);
        for (int i : tri) faces.u16(static_cast<std::uint16_t>(i));
    }
    auto surface = [&](std::uint32_t face, std::string_view tex, const Bytes& more) {
        return chunk(18, 2,
                     cat({u32s({face, 0x10000000}), f32s({0, 50}), chunk(3, 1, str(tex)),
                          chunk(5, 2, f64s({1, 0, 0, 0, 0, -1, 0, 0})),
                          chunk(9, 2, f64s({0, 0, 0, 2, 2})), more}));
    };
    const Bytes payload =
        cat({u32s({7, 0}),  // block index, block flags
             chunk(1, 2, cat({u32s({4}), f64s({0, 0, 0, 64, 0, 0, 0, 64, 0, 0, 0, 64})})),
             chunk(17, 2, faces.take()), surface(0, "stone", extra_face_chunk),
             surface(2, "brick", {})});
    return chunk(1, 5,
                 cat({object_prefix(0x04, 1, 0), chunk(2, 1, str("block")),
                      transform({100, 0, 0}, {0, 0, 0}), chunk(2, 5, payload)}));
}

Bytes model_object() {
    const Bytes payload =
        cat({u32s({3, 0x200, 0x200}), f32s({0, 50}), chunk(3, 1, str("guard_mdl_001")),
             chunk(11, 1, str("guard.mdl")), chunk(12, 1, str("patrol")),
             chunk(11, 2, cat({u32s({8}), f64s({1, 2, 3, 0, 0, 0, 0, 0})})),
             chunk(13, 1, str("path_000"))});
    return chunk(
        1, 5,
        cat({object_prefix(0x35, 2, 0), chunk(2, 1, str("model")), chunk(3, 1, str("guard")),
             transform({0, 10, 0}, {1.5, 0, 0}), chunk(9, 5, payload)}));
}

Bytes wmpb_file(const Bytes& extra_face_chunk = {}, const Bytes& extra_top = {}) {
    const Bytes section1 = chunk(1, 4,
                                 cat({u32s({710, 2, 3, 1, 2, 0}),
                                      chunk(1, 1, str("file created: 1.1.2020, wmpio (1.30)\n"))}));
    Bytes palette(768, std::byte{0});
    const Bytes section2 = chunk(2, 4, cat({chunk(10, 1, palette), chunk(4, 1, str("std.wad"))}));
    const Bytes level_payload =
        cat({u32s({0, 0, 30}), f32s({90, 45}), chunk(4, 3, u32s({0})), chunk(5, 1, str("main.c")),
             chunk(6, 1, str("palette.pcx")), chunk(1, 3, u32s({0x00FFFFFF})),
             chunk(1, 3, u32s({0x01000000})), chunk(1, 3, u32s({0x02000000})),
             chunk(1, 3, u32s({0x03000000})), chunk(2, 3, u32s({0x00969696})),
             chunk(3, 3, u32s({0x00323232}))});
    const Bytes root =
        chunk(1, 5,
              cat({object_prefix(0x01, 0, 2), chunk(2, 1, str("level")), chunk(3, 1, str("Root")),
                   transform({}, {}), chunk(4, 5, level_payload), block_object(extra_face_chunk),
                   model_object()}));
    Bytes magic(4);
    std::memcpy(magic.data(), "WMPB", 4);
    return cat({magic, section1, section2, root, extra_top});
}

TEST(Wmpb, ReadsTheChunkTree) {
    auto lv = read_wmpb(Blob::from_bytes(wmpb_file()));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    EXPECT_EQ(lv->header.objects, 3);
    EXPECT_EQ(lv->header.wmpb_banner, "file created: 1.1.2020, wmpio (1.30)\n");
    EXPECT_EQ(lv->wed.palette.size(), 768u);
    ASSERT_EQ(lv->wed.wads.size(), 1u);
    ASSERT_EQ(lv->objects.size(), 3u);
    const Object& root = lv->objects[lv->root];
    EXPECT_EQ(root.name, "Root");
    EXPECT_EQ(root.kind, Kind::level);
    const LevelInfo& li = lv->levels[0];
    EXPECT_EQ(li.nexus, 30);
    EXPECT_EQ(li.sun_azimuth, 90);
    EXPECT_EQ(li.script, "main.c");
    EXPECT_DOUBLE_EQ(li.colors[0].r, 100.0);              // bytes 0..255 -> percent
    EXPECT_DOUBLE_EQ(li.colors[4].r, 150 * 100.0 / 255);  // sun colour 150
    const Block& b = lv->blocks[0];
    EXPECT_EQ(b.index, 7);
    EXPECT_EQ(b.vertices[3], Vec3(0, 0, 64));
    ASSERT_EQ(b.faces.size(), 4u);
    EXPECT_EQ(b.faces[0].texture, "stone");
    EXPECT_EQ(b.faces[0].flags, face_flag::texture_lock);
    EXPECT_EQ(b.faces[0].transform->scale_x, 2);
    EXPECT_FALSE(b.faces[1].has_surface);  // no record: WED's default surface
    EXPECT_EQ(b.faces[1].texture, "#default");
    EXPECT_EQ(b.faces[2].texture, "brick");
    const Model& m = lv->models[0];
    EXPECT_EQ(m.file, "guard.mdl");
    EXPECT_EQ(m.action, "patrol");
    EXPECT_EQ(m.flags, 0x200u);
    EXPECT_EQ(m.skills[2], 3);
    EXPECT_EQ(m.path, "path_000");
    const Object& mo = lv->objects[2];
    EXPECT_EQ(mo.name, "guard");
    EXPECT_EQ(mo.wmpb.code, 0x35);
    EXPECT_EQ(mo.transform.angles.x, 1.5);
}

TEST(Wmpb, WritesBackByteForByteIncludingUnknownChunks) {
    // An unknown chunk inside a surface record and one at the top level.
    const Bytes in = wmpb_file(chunk(42, 2, u32s({1, 2, 3})), chunk(9, 1, str("future")));
    auto lv = read_wmpb(Blob::copy_of(in));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    EXPECT_EQ(lv->blocks[0].faces[0].wmpb_chunks.size(), 1u);
    EXPECT_EQ(lv->wmpb_top_chunks.size(), 1u);
    auto out = write_wmpb(lv.value());
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(out.value() == in);
}

// The 4-byte floats (sun angles, ambient, albedo) are held as doubles: NaNs of every kind,
// signalling ones included, must come back with their own bits (found by fuzz_wmpb).
TEST(Wmpb, FloatNansWriteBackWithTheirBits) {
    Bytes in = wmpb_file();
    const std::uint32_t nans[] = {0xFFAB564Cu, 0x7F800001u, 0x7FC00000u, 0xFFBFFFFFu};
    std::size_t patched = 0;
    for (float f : {90.0f, 45.0f, 50.0f}) {
        Bytes pattern(4);
        std::memcpy(pattern.data(), &f, 4);
        for (auto it = in.begin();
             (it = std::search(it, in.end(), pattern.begin(), pattern.end())) != in.end();
             it += 4) {
            std::memcpy(&*it, &nans[patched++ % 4], 4);
        }
    }
    ASSERT_EQ(patched, 5u);  // sun azimuth + elevation, albedo of two surfaces and the model
    auto lv = read_wmpb(Blob::copy_of(in));
    ASSERT_TRUE(lv.ok()) << lv.error().to_string();
    EXPECT_TRUE(std::isnan(lv->levels[0].sun_azimuth));
    EXPECT_TRUE(std::isnan(lv->models[0].albedo));
    auto out = write_wmpb(lv.value());
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(out.value() == in);
}

TEST(Wmpb, ValuesComeFromTheModel) {
    auto lv = read_wmpb(Blob::from_bytes(wmpb_file()));
    ASSERT_TRUE(lv.ok());
    lv->blocks[0].vertices[1].x = 128;
    lv->models[0].skills.push_back(9);  // the skill list grows: chunk sizes follow
    auto out = write_wmpb(lv.value());
    ASSERT_TRUE(out.ok());
    auto again = read_wmpb(Blob::from_bytes(out.value()));
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    EXPECT_EQ(again->blocks[0].vertices[1].x, 128);
    EXPECT_EQ(again->models[0].skills.size(), 9u);
}

// WMPB holds face vertex counts and indices in 16 bits and block indices in 32: a level from
// text that needs more is refused with the place, not written with the values cut (narrowing
// audit).
TEST(Wmpb, ValuesPastTheFieldsAreRefusedWithTheirPlace) {
    auto base = read_wmpb(Blob::from_bytes(wmpb_file()));
    ASSERT_TRUE(base.ok());
    {
        Level lv = base.value();
        Block& b = lv.blocks[0];
        b.vertices.resize(70001);
        b.faces[0].indices.back() = 70000;
        auto out = write_wmpb(lv);
        ASSERT_FALSE(out.ok());
        EXPECT_EQ(out.error().code, "wmpb.value-out-of-range");
        EXPECT_EQ(out.error().path, "block[0]/face[0]");
    }
    {
        Level lv = base.value();
        lv.blocks[0].index = std::int64_t{1} << 32;
        auto out = write_wmpb(lv);
        ASSERT_FALSE(out.ok());
        EXPECT_EQ(out.error().path, "block[0]/index");
    }
}

TEST(Wmpb, ConvertsToTextAndBack) {
    auto lv = read_wmpb(Blob::from_bytes(wmpb_file()));
    ASSERT_TRUE(lv.ok());
    auto text = convert(lv.value(), Dialect::wmp2_a6);
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    auto s = write_text(text.value());
    ASSERT_TRUE(s.ok());
    EXPECT_NE(s->find("model 1 {   // guard_mdl_001"), std::string::npos);
    EXPECT_NE(s->find("object 2 {  // guard"), std::string::npos);
    EXPECT_NE(s->find("#default ( 1 0 0 0 ) ( 0 0 -1 0 ) 0 0 0 1 1"), std::string::npos)
        << "a face without a surface record gets WED's default surface";
    auto re = read_wmp2(Blob::copy_of(s.value()));
    ASSERT_TRUE(re.ok()) << re.error().to_string();
    EXPECT_EQ(re->models[0].path, "path_000");
    EXPECT_EQ(re->objects[2].transform.angles.x, 1.5);
    auto bin = convert(re.value(), Dialect::wmpb);
    ASSERT_TRUE(bin.ok());
    auto bytes = write_wmpb(bin.value());
    ASSERT_TRUE(bytes.ok());
    auto back = read_wmpb(Blob::from_bytes(bytes.value()));
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(back->objects[2].wmpb.code, 0x35);  // derived again: 8 skills
    EXPECT_EQ(back->objects[1].wmpb.subtype, 1);  // block without flag 0x20
    EXPECT_EQ(back->blocks[0].faces[0].texture, "stone");
}

TEST(Wmpb, BadInputGivesLocatedErrors) {
    const Bytes good = wmpb_file();
    auto expect_error = [](Bytes b, std::string_view code) {
        auto lv = read_wmpb(Blob::from_bytes(std::move(b)));
        if (lv.ok()) {
            ADD_FAILURE() << "expected " << code;
            return Diagnostic{};
        }
        EXPECT_EQ(lv.error().code, code) << lv.error().to_string();
        EXPECT_TRUE(lv.error().has_offset());
        return lv.error();
    };
    {
        Bytes b = good;
        b[0] = std::byte{'X'};
        expect_error(b, "wmpb.bad-magic");
    }
    {
        Bytes b = good;
        b[7] = std::byte{9};  // section 1: kind check no longer kind + 1
        const Diagnostic d = expect_error(b, "wmpb.bad-chunk-header");
        EXPECT_EQ(d.offset, 4);
    }
    {
        Bytes b = good;
        b[8] = std::byte{0xFF};  // section 1 size runs past the end
        b[11] = std::byte{0x7F};
        expect_error(b, "wmpb.bad-chunk-size");
    }
    // Every truncation of the file is an error, never a crash.
    for (std::size_t n = 0; n < good.size(); ++n) {
        auto lv = read_wmpb(Blob::copy_of(ByteSpan(good).first(n)));
        ASSERT_FALSE(lv.ok()) << "cut at " << n;
        EXPECT_TRUE(lv.error().has_offset()) << lv.error().to_string();
    }
}

TEST(Wmpb, ErrorPathsNameTheField) {
    // A face index beyond the block's vertex count.
    Bytes b = wmpb_file();
    const std::string_view hay(reinterpret_cast<const char*>(b.data()), b.size());
    // Face list: u32 4, then u16 3, u16 1, u16 0, u16 2 ... patch the first index to 9.
    const std::string needle("\x04\x00\x00\x00\x03\x00\x01\x00", 8);
    const auto at = hay.find(needle);
    ASSERT_NE(at, std::string_view::npos);
    b[at + 6] = std::byte{9};
    auto lv = read_wmpb(Blob::from_bytes(b));
    ASSERT_FALSE(lv.ok());
    EXPECT_EQ(lv.error().code, "wmp.bad-vertex-index");
    EXPECT_EQ(lv.error().path, "object[0]/object[0]/payload/face[0]");
    EXPECT_EQ(lv.error().offset, static_cast<std::int64_t>(at + 6));
}

}  // namespace
}  // namespace lk::wmp
