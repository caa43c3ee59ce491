// Small WMB files built in code, as specs of the layouts in views.hpp: a WMB7 level with one
// cube block and one object of every type, and a WMB4 (Quake-style) level with a cube of six
// faces. The fuzz seeds in fuzz/seeds/fuzz_wmb/ were written from these.
#pragma once

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/wmb/wmb.hpp"

namespace lk::test {

inline void put_string(ByteWriter& w, std::string_view s, std::size_t n) {
    std::string f(s.substr(0, n));
    f.resize(n, '\0');
    w.text(f);
}
inline void put_vec(ByteWriter& w, float x, float y, float z) {
    w.f32(x);
    w.f32(y);
    w.f32(z);
}

// A file from list bytes (empty lists stay empty), laid out by wmb::write.
inline Bytes build_wmb(int version, std::vector<Bytes> lists) {
    wmb::File f;
    f.magic = {'W', 'M', 'B', static_cast<char>('0' + version)};
    f.version = version;
    f.lists.resize(wmb::standard_list_count(version));
    for (std::size_t i = 0; i < lists.size() && i < f.lists.size(); ++i) {
        if (!lists[i].empty()) f.lists[i].data = Blob::from_bytes(std::move(lists[i]));
    }
    return wmb::write(f).value();
}

// Objects list: count, offsets, records (each padded to 4 bytes).
inline Bytes object_list(const std::vector<Bytes>& records) {
    ByteWriter w;
    w.u32(static_cast<std::uint32_t>(records.size()));
    std::uint32_t at = 4 + 4 * static_cast<std::uint32_t>(records.size());
    for (const Bytes& r : records) {
        w.u32(at);
        at += static_cast<std::uint32_t>((r.size() + 3) & ~std::size_t{3});
    }
    for (const Bytes& r : records) {
        w.bytes(r);
        w.align(4);
    }
    return w.take();
}

inline Bytes info_record(std::size_t size) {
    ByteWriter w;
    w.u32(5);
    put_vec(w, 0, 0, 0);
    w.f32(45);    // azimuth
    w.f32(60);    // elevation
    w.u32(0x27);  // flags
    w.f32(7.35f);
    w.u8(2);  // gamma
    w.u8(0);  // lightmap size: 256
    w.u8(0);
    w.u8(0);
    w.u32(0x00939393);  // sun
    w.u32(0x00303030);  // ambient
    for (std::uint32_t c : {0x00ffffffu, 0x00ff6330u, 0x003030ffu, 0u}) w.u32(c);
    Bytes b = w.take();
    b.resize(size);
    return b;
}

// WMB7: textures (one 4x4 RGB565 with mip maps), one material, one cube block of 12
// triangles, objects: info, entity, light, position, sound, path, region.
inline Bytes wmb7_fixture() {
    std::vector<Bytes> lists(20);
    {
        ByteWriter w;  // palette: prefix + grey ramp
        w.zeros(16);
        for (int i = 0; i < 256; ++i) {
            for (int k = 0; k < 3; ++k) w.u8(static_cast<std::uint8_t>(i));
        }
        lists[0] = w.take();
    }
    {
        ByteWriter w;  // textures
        w.u32(1);
        w.u32(8);
        put_string(w, "brick", 16);
        w.u32(4);
        w.u32(4);
        w.u32(0x0a);                                 // RGB565 with mip maps
        w.u32(40 + 32);                              // mip 1
        w.u32(40 + 32 + 8);                          // mip 2
        w.u32(40 + 32 + 8 + 2);                      // mip 3
        for (int i = 0; i < 16; ++i) w.u16(0xf800);  // red
        for (int i = 0; i < 4; ++i) w.u16(0x07e0);   // green
        w.u16(0x001f);                               // blue
        lists[2] = w.take();
    }
    {
        ByteWriter w;  // one material
        put_vec(w, 1, 0, 0);
        w.f32(0);
        put_vec(w, 0, -1, 0);
        w.f32(0);
        w.u32(0);
        w.u16(0x4000);  // smooth
        w.u32(0x80);    // flag8
        w.u8(0);
        w.u8(50);
        put_string(w, "", 20);
        lists[6] = w.take();
    }
    {
        ByteWriter w;  // one block: a 64-quant cube around the origin
        w.u32(1);
        put_vec(w, -32, -32, -32);
        put_vec(w, 32, 32, 32);
        w.u32(0xffffff80);
        w.u32(8);
        w.u32(12);
        w.u32(1);
        for (int i = 0; i < 8; ++i) {
            const float x = (i & 1) ? 32.f : -32.f, y = (i & 2) ? 32.f : -32.f,
                        z = (i & 4) ? 32.f : -32.f;
            put_vec(w, x, y, z);
            w.f32(x / 4);
            w.f32(-y / 4);
            w.f32(0);
            w.f32(0);
        }
        // Faces as quads (a b c d), clockwise seen from outside, split into two triangles
        // with the face number in the last word.
        const std::array<std::array<std::uint16_t, 4>, 6> quads = {
            {{5, 7, 3, 1}, {2, 6, 4, 0}, {3, 7, 6, 2}, {4, 5, 1, 0}, {6, 7, 5, 4}, {1, 3, 2, 0}}};
        for (std::uint32_t f = 0; f < 6; ++f) {
            const auto& q = quads[f];
            for (const auto& t : {std::array{q[0], q[1], q[2]}, std::array{q[0], q[2], q[3]}}) {
                w.u16(t[0]);
                w.u16(t[1]);
                w.u16(t[2]);
                w.u16(0);  // skin
                w.u32(f);
            }
        }
        w.u16(0);  // skin: texture
        w.u16(0);  // lightmap
        w.u32(0);  // material
        w.f32(0);
        w.f32(50);
        w.u32(0);
        lists[17] = w.take();
    }
    std::vector<Bytes> objects;
    objects.push_back(info_record(60));
    {
        ByteWriter w;
        w.u32(7);
        put_vec(w, 100, 200, 16);
        put_vec(w, 90, 0, 0);
        put_vec(w, 2, 2, 2);
        put_string(w, "barrel_1", 33);
        put_string(w, "barrel.mdl", 33);
        put_string(w, "act_barrel", 33);
        for (int i = 0; i < 20; ++i) w.f32(static_cast<float>(i));
        w.u32(0x200);  // passable
        w.f32(10);
        w.f32(40);
        w.u32(1);  // path 1
        w.u32(0);
        put_string(w, "mtl_metal", 33);
        put_string(w, "one", 33);
        put_string(w, "two", 33);
        put_string(w, "", 33);
        objects.push_back(w.take());
    }
    {
        ByteWriter w;
        w.u32(2);
        put_vec(w, 0, 0, 100);
        put_vec(w, 100, 50, 0);
        w.f32(300);
        w.u32(4);
        objects.push_back(w.take());
    }
    {
        ByteWriter w;
        w.u32(1);
        put_vec(w, -64, 0, 8);
        put_vec(w, 180, 0, 0);
        w.u32(0);
        w.u32(0);
        put_string(w, "pos_000", 20);
        objects.push_back(w.take());
    }
    {
        ByteWriter w;
        w.u32(4);
        put_vec(w, 8, 8, 8);
        w.f32(50);
        w.f32(0);
        w.f32(1);
        w.i32(2000);
        w.u32(0);
        put_string(w, "sound.wav", 33);
        objects.push_back(w.take());
    }
    {
        ByteWriter w;
        w.u32(6);
        put_string(w, "path_000", 20);
        w.f32(2);  // nodes
        w.u32(0);
        w.u32(0);
        w.u32(0);
        w.u32(3 * 2 + 2 * 1);
        put_vec(w, 0, 0, 0);
        put_vec(w, 128, 0, 0);
        for (int i = 0; i < 12; ++i) w.f32(0);
        w.f32(1);
        w.f32(2);
        w.f32(128);
        w.f32(0);
        w.f32(0);
        w.f32(0);
        objects.push_back(w.take());
    }
    {
        ByteWriter w;
        w.u32(8);
        put_vec(w, -10, -20, -30);
        put_vec(w, 10, 20, 30);
        w.u32(0);
        w.u32(0);
        put_string(w, "reg_000", 20);
        objects.push_back(w.take());
    }
    lists[15] = object_list(objects);
    {
        ByteWriter w;  // no terrain lightmaps
        w.u32(0);
        lists[19] = w.take();
    }
    return build_wmb(7, std::move(lists));
}

// WMB4: the Quake-style cube (6 faces of 4 edges each), one 4x4 palette texture, a light and
// an old (type 3) entity.
inline Bytes wmb4_fixture() {
    std::vector<Bytes> lists(16);
    const float s = 32;
    {
        ByteWriter w;  // planes: +x -x +y -y +z -z
        const float n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        for (int i = 0; i < 6; ++i) {
            put_vec(w, n[i][0], n[i][1], n[i][2]);
            w.f32(s);
            w.i32(i / 2);
        }
        lists[1] = w.take();
    }
    {
        ByteWriter w;  // texture, Quake miptex layout, 8-bit
        w.u32(1);
        w.u32(8);
        put_string(w, "stone", 16);
        w.u32(4);
        w.u32(4);
        w.u32(40);
        w.u32(40 + 16);
        w.u32(40 + 16 + 4);
        w.u32(40 + 16 + 4 + 1);
        for (int i = 0; i < 21; ++i) w.u8(static_cast<std::uint8_t>(i * 10));
        lists[2] = w.take();
    }
    {
        ByteWriter w;  // 8 corners
        for (int i = 0; i < 8; ++i) {
            put_vec(w, (i & 1) ? s : -s, (i & 2) ? s : -s, (i & 4) ? s : -s);
        }
        lists[3] = w.take();
    }
    {
        ByteWriter w;  // one texinfo
        put_vec(w, 1, 0, 0);
        w.f32(0);
        put_vec(w, 0, -1, 0);
        w.f32(0);
        w.u32(0);
        w.u16(0);
        w.u32(0);
        w.u8(0);
        w.u8(50);
        put_string(w, "", 20);
        lists[6] = w.take();
    }
    // Faces wound clockwise seen from the front (Quake), corners by index.
    const std::array<std::array<std::uint32_t, 4>, 6> quads = {
        {{5, 7, 3, 1}, {2, 6, 4, 0}, {3, 7, 6, 2}, {4, 5, 1, 0}, {6, 7, 5, 4}, {1, 3, 2, 0}}};
    ByteWriter edges, surf, faces;
    edges.u32(0);
    edges.u32(0);  // edge 0 is unused, as in Quake
    std::uint32_t e = 1;
    for (std::uint32_t f = 0; f < 6; ++f) {
        for (int k = 0; k < 4; ++k) {
            edges.u32(quads[f][k]);
            edges.u32(quads[f][(k + 1) % 4]);
            surf.i32(static_cast<std::int32_t>(e++));
        }
        faces.u16(static_cast<std::uint16_t>(f));
        faces.u16(0);
        faces.u32(4 * f);
        faces.u16(4);
        faces.u16(0);
        for (int k = 0; k < 4; ++k) faces.u8(0xff);
        faces.i32(-1);
        faces.u32(0);
    }
    lists[7] = faces.take();
    lists[12] = edges.take();
    lists[13] = surf.take();
    {
        ByteWriter w;  // world model
        put_vec(w, -s, -s, -s);
        put_vec(w, s, s, s);
        put_vec(w, 0, 0, 0);
        for (int i = 0; i < 4 + 24; ++i) w.i32(0);
        w.i32(1);
        w.i32(0);
        w.i32(6);
        lists[14] = w.take();
    }
    std::vector<Bytes> objects;
    objects.push_back(info_record(56));
    {
        ByteWriter w;
        w.u32(2);
        put_vec(w, 0, 0, 100);
        put_vec(w, 50, 50, 50);
        w.f32(200);
        w.u32(0);
        objects.push_back(w.take());
    }
    {
        ByteWriter w;
        w.u32(3);
        put_vec(w, 64, 0, 0);
        put_vec(w, 45, 0, 0);
        put_vec(w, 1, 1, 1);
        put_string(w, "guard", 20);
        w.text("soldier_guard.mdl");  // longer than its 13 bytes: runs into the action
        w.u8(0);
        w.zeros(20 + 13 - 18);
        for (int i = 0; i < 8; ++i) w.f32(1);
        w.f32(0);
        w.u32(0);
        objects.push_back(w.take());
    }
    lists[15] = object_list(objects);
    return build_wmb(4, std::move(lists));
}

}  // namespace lk::test
