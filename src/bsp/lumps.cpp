#include "levelkit/bsp/lumps.hpp"

#include <fmt/format.h>

#include <bit>

#include "record_io.hpp"

namespace lk::bsp {

using detail::RecordReader;
using detail::RecordWriter;

namespace {

static_assert(sizeof(dplane_t) == 20 && sizeof(Vec3f) == 12 && sizeof(texinfo_t) == 72 &&
                  sizeof(dtexdata_t) == 32 && sizeof(dbrush_t) == 12 && sizeof(dmodel_t) == 48 &&
                  sizeof(CDispVert) == 20 && sizeof(CDispTri) == 2 && sizeof(doverlayfade_t) == 8 &&
                  sizeof(dcubemapsample_t) == 16 && sizeof(darea_t) == 8 && sizeof(dedge_t) == 8 &&
                  sizeof(dareaportal_t) == 20 && sizeof(dworldlight_t) == 100,
              "structs marked as zero-copy must match their on-disk records");

bool is_strata(const Bsp& b) {
    return b.version() == 25;
}

// VitaminSource (Desolation's newer format) widens and reorders several records.
bool is_vitamin(const Bsp& b) {
    return b.version() == 43;
}

Diagnostic lump_diag(const Bsp& bsp, int index, std::string code, std::string message,
                     std::string sub = {}) {
    std::int64_t offset = -1;
    if (static_cast<std::size_t>(index) < bsp.headers_as_read().size()) {
        offset = bsp.headers_as_read()[static_cast<std::size_t>(index)].offset;
    }
    return Diagnostic::error(std::move(code),
                             fmt::format("lump {} ({}): {}", index, lump_name(index), message))
        .at_offset(offset)
        .with_path(lump_path(index) + sub);
}

Result<void> require_known_version(const Bsp& bsp, int index) {
    const int v = bsp.version();
    if ((v >= 17 && v <= 29) || v == 42 || v == 43) return success();
    return lump_diag(bsp, index, "bsp.unsupported-version",
                     fmt::format("no known record layouts for BSP version {}", v));
}

Diagnostic unsupported_layout(const Bsp& bsp, int index) {
    return lump_diag(bsp, index, "bsp.unsupported-layout",
                     fmt::format("no known layout for lump version {} in BSP version {}",
                                 bsp.lump(index).version, bsp.version()));
}

template <class T, class Fn>
Result<LumpView<T>> decode_records(const Bsp& bsp, int index, std::size_t record, bool identity,
                                   Fn&& io) {
    const Lump& l = bsp.lump(index);
    const ByteSpan d = l.bytes();
    if (d.size() % record != 0) {
        return lump_diag(
            bsp, index, "bsp.bad-lump-size",
            fmt::format("{} bytes is not a whole number of {}-byte records", d.size(), record),
            "/filelen");
    }
    if (identity && sizeof(T) == record && bsp.endian() == Endian::little &&
        std::endian::native == std::endian::little &&
        reinterpret_cast<std::uintptr_t>(d.data()) % alignof(T) == 0) {
        return detail::ViewAccess::borrow<T>(l.data());
    }
    std::vector<T> out(d.size() / record);
    const std::byte* p = d.data();
    for (T& item : out) {
        RecordReader r(p, bsp.endian());
        io(r, item);
        p += record;
    }
    return LumpView<T>::own(std::move(out));
}

template <class T, class Fn>
Result<Bytes> encode_records(const Bsp& bsp, int index, std::span<const T> items,
                             std::size_t record, Fn&& io) {
    Bytes out(items.size() * record);
    for (std::size_t i = 0; i < items.size(); ++i) {
        RecordWriter w(out.data() + i * record, bsp.endian());
        io(w, items[i]);
        if (!w.ok()) {
            return lump_diag(bsp, index, "bsp.value-out-of-range",
                             fmt::format("record {} holds a value that does not fit this lump "
                                         "layout",
                                         i),
                             fmt::format("/record[{}]", i));
        }
    }
    return out;
}

// --- layouts -------------------------------------------------------------------------------

template <class IO, class P>
void io_plane(IO& io, P& p) {
    io.vec(p.normal);
    io.template num<float>(p.dist);
    io.template num<std::int32_t>(p.type);
}

template <class IO, class V>
void io_vec(IO& io, V& v) {
    io.vec(v);
}

template <class D, class IO, class E>
void io_edge(IO& io, E& e) {
    io.template num<D>(e.v[0]);
    io.template num<D>(e.v[1]);
}

template <class D, class IO, class N>
void io_scalar(IO& io, N& n) {
    io.template num<D>(n);
}

template <class IO, class F>
void io_face_standard(IO& io, F& f) {
    io.template num<std::uint16_t>(f.planenum);
    io.template num<std::uint8_t>(f.side);
    io.template num<std::uint8_t>(f.onNode);
    io.template num<std::int32_t>(f.firstedge);
    io.template num<std::int16_t>(f.numedges);
    io.template num<std::int16_t>(f.texinfo);
    io.template num<std::int16_t>(f.dispinfo);
    io.template num<std::int16_t>(f.surfaceFogVolumeID);
    io.bytes(f.styles, 4);
    io.template num<std::int32_t>(f.lightofs);
    io.template num<float>(f.area);
    io.template nums<std::int32_t>(f.m_LightmapTextureMinsInLuxels);
    io.template nums<std::int32_t>(f.m_LightmapTextureSizeInLuxels);
    io.template num<std::int32_t>(f.origFace);
    io.template num<std::uint16_t>(f.m_NumPrims);
    io.template num<std::uint16_t>(f.firstPrimID);
    io.template num<std::uint32_t>(f.smoothingGroups);
}

template <class IO, class F>
void io_face_strata(IO& io, F& f) {
    io.template num<std::uint32_t>(f.planenum);
    io.template num<std::uint8_t>(f.side);
    io.template num<std::uint8_t>(f.onNode);
    io.bytes(f.padding);
    io.template num<std::int32_t>(f.firstedge);
    io.template num<std::int32_t>(f.numedges);
    io.template num<std::int32_t>(f.texinfo);
    io.template num<std::int32_t>(f.dispinfo);
    io.template num<std::int32_t>(f.surfaceFogVolumeID);
    io.bytes(f.styles, 4);
    io.template num<std::int32_t>(f.lightofs);
    io.template num<float>(f.area);
    io.template nums<std::int32_t>(f.m_LightmapTextureMinsInLuxels);
    io.template nums<std::int32_t>(f.m_LightmapTextureSizeInLuxels);
    io.template num<std::int32_t>(f.origFace);
    io.template num<std::uint32_t>(f.m_NumPrims);
    io.template num<std::uint32_t>(f.firstPrimID);
    io.template num<std::uint32_t>(f.smoothingGroups);
}

// BSP v17: average light colours first, no primitive fields; Bloodlines (`bloodlines`) has
// eight lightmap styles and its day/night style bytes, Half-Life 2 beta maps four styles.
template <class IO, class F>
void io_face_v17(IO& io, F& f, bool bloodlines) {
    const std::size_t n = bloodlines ? 8 : 4;
    for (std::size_t i = 0; i < n; ++i) io.bytes(&f.m_AvgLightColor[i], sizeof(ColorRGBExp32));
    io.template num<std::uint16_t>(f.planenum);
    io.template num<std::uint8_t>(f.side);
    io.template num<std::uint8_t>(f.onNode);
    io.template num<std::int32_t>(f.firstedge);
    io.template num<std::int16_t>(f.numedges);
    io.template num<std::int16_t>(f.texinfo);
    io.template num<std::int16_t>(f.dispinfo);
    io.template num<std::int16_t>(f.surfaceFogVolumeID);
    io.bytes(f.styles, n);
    if (bloodlines) {
        io.bytes(f.day, 8);
        io.bytes(f.night, 8);
    }
    io.template num<std::int32_t>(f.lightofs);
    io.template num<float>(f.area);
    io.template nums<std::int32_t>(f.m_LightmapTextureMinsInLuxels);
    io.template nums<std::int32_t>(f.m_LightmapTextureSizeInLuxels);
    io.template num<std::int32_t>(f.origFace);
    io.template num<std::uint32_t>(f.smoothingGroups);
}

// VitaminSource: 32-bit fields, no lighting or original-face fields, a flags byte.
template <class IO, class F>
void io_face_vitamin(IO& io, F& f) {
    io.template num<std::int32_t>(f.planenum);
    io.template num<std::int32_t>(f.texinfo);
    io.template num<std::int32_t>(f.dispinfo);
    io.template num<std::int32_t>(f.firstedge);
    io.template num<std::int32_t>(f.numedges);
    io.template nums<std::int32_t>(f.m_LightmapTextureMinsInLuxels);
    io.template nums<std::int32_t>(f.m_LightmapTextureSizeInLuxels);
    io.template num<std::uint8_t>(f.vitamin_flags);
    io.bytes(f.vitamin_padding);
}

template <class IO, class B>
void io_brush(IO& io, B& b) {
    io.template num<std::int32_t>(b.firstside);
    io.template num<std::int32_t>(b.numsides);
    io.template num<std::int32_t>(b.contents);
}

template <class IO, class S>
void io_brushside_standard(IO& io, S& s) {
    io.template num<std::uint16_t>(s.planenum);
    io.template num<std::int16_t>(s.texinfo);
    io.template num<std::int16_t>(s.dispinfo);
    io.template num<std::uint8_t>(s.bevel);
    io.template num<std::uint8_t>(s.thin);
}

template <class IO, class S>
void io_brushside_strata(IO& io, S& s) {
    io.template num<std::uint32_t>(s.planenum);
    io.template num<std::int32_t>(s.texinfo);
    io.template num<std::int32_t>(s.dispinfo);
    io.template num<std::uint8_t>(s.bevel);
    io.template num<std::uint8_t>(s.thin);
    io.bytes(s.padding);
}

template <class IO, class S>
void io_brushside_vitamin(IO& io, S& s) {
    io.template num<std::uint32_t>(s.planenum);
    io.template num<std::int32_t>(s.texinfo);
    io.template num<std::int16_t>(s.dispinfo);
    io.template num<std::uint8_t>(s.bevel);
    io.template num<std::uint8_t>(s.thin);
}

template <class IO, class M>
void io_model(IO& io, M& m) {
    io.vec(m.mins);
    io.vec(m.maxs);
    io.vec(m.origin);
    io.template num<std::int32_t>(m.headnode);
    io.template num<std::int32_t>(m.firstface);
    io.template num<std::int32_t>(m.numfaces);
}

template <class IO, class N>
void io_node_standard(IO& io, N& n) {
    io.template num<std::int32_t>(n.planenum);
    io.template nums<std::int32_t>(n.children);
    io.template nums<std::int16_t>(n.mins);
    io.template nums<std::int16_t>(n.maxs);
    io.template num<std::uint16_t>(n.firstface);
    io.template num<std::uint16_t>(n.numfaces);
    io.template num<std::int16_t>(n.area);
    io.bytes(n.padding);
}

template <class IO, class N>
void io_node_strata(IO& io, N& n) {
    io.template num<std::int32_t>(n.planenum);
    io.template nums<std::int32_t>(n.children);
    io.template nums<float>(n.mins);
    io.template nums<float>(n.maxs);
    io.template num<std::uint32_t>(n.firstface);
    io.template num<std::uint32_t>(n.numfaces);
    io.template num<std::int16_t>(n.area);
    io.bytes(n.padding);
}

template <class IO, class N>
void io_node_vitamin(IO& io, N& n) {
    io.template num<std::int32_t>(n.planenum);
    io.template nums<std::int32_t>(n.children);
    io.template nums<std::int32_t>(n.mins);
    io.template nums<std::int32_t>(n.maxs);
    io.template num<std::uint16_t>(n.firstface);
    io.template num<std::uint16_t>(n.numfaces);
    io.template num<std::int16_t>(n.area);
    io.bytes(n.padding);
}

// Standard leaves pack `short area:9, flags:7` (first field in the low bits); Strata packs
// flags into the low 17 bits of an int and the area above them.
void io_leaf_bits(RecordReader& io, dleaf_t& l, bool strata) {
    if (strata) {
        std::uint32_t v = 0;
        io.num<std::uint32_t>(v);
        l.area = static_cast<std::int32_t>(v >> 17);
        l.flags = static_cast<std::int32_t>(v & 0x1FFFF);
    } else {
        std::uint16_t v = 0;
        io.num<std::uint16_t>(v);
        l.area = v & 0x1FF;
        l.flags = v >> 9;
    }
}

void io_leaf_bits(RecordWriter& io, const dleaf_t& l, bool strata) {
    if (strata) {
        if (l.area < 0 || l.area >= (1 << 15) || l.flags < 0 || l.flags >= (1 << 17)) io.fail();
        io.num<std::uint32_t>((static_cast<std::uint32_t>(l.area) << 17) |
                              (static_cast<std::uint32_t>(l.flags) & 0x1FFFF));
    } else {
        if (l.area < 0 || l.area > 0x1FF || l.flags < 0 || l.flags > 0x7F) io.fail();
        io.num<std::uint16_t>(
            static_cast<std::uint16_t>((l.area & 0x1FF) | ((l.flags & 0x7F) << 9)));
    }
}

template <class IO, class L>
void io_leaf_standard(IO& io, L& l, bool ambient) {
    io.template num<std::int32_t>(l.contents);
    io.template num<std::int16_t>(l.cluster);
    io_leaf_bits(io, l, false);
    io.template nums<std::int16_t>(l.mins);
    io.template nums<std::int16_t>(l.maxs);
    io.template num<std::uint16_t>(l.firstleafface);
    io.template num<std::uint16_t>(l.numleaffaces);
    io.template num<std::uint16_t>(l.firstleafbrush);
    io.template num<std::uint16_t>(l.numleafbrushes);
    io.template num<std::int16_t>(l.leafWaterDataID);
    if (ambient) io.bytes(&l.m_AmbientLighting, sizeof(CompressedLightCube));
    io.bytes(l.padding);
}

template <class IO, class L>
void io_leaf_strata(IO& io, L& l) {
    io.template num<std::int32_t>(l.contents);
    io.template num<std::int32_t>(l.cluster);
    io_leaf_bits(io, l, true);
    io.template nums<float>(l.mins);
    io.template nums<float>(l.maxs);
    io.template num<std::uint32_t>(l.firstleafface);
    io.template num<std::uint32_t>(l.numleaffaces);
    io.template num<std::uint32_t>(l.firstleafbrush);
    io.template num<std::uint32_t>(l.numleafbrushes);
    io.template num<std::int32_t>(l.leafWaterDataID);
}

// VitaminSource: the area and the flags get fields of their own, bounds are 32-bit.
template <class IO, class L>
void io_leaf_vitamin(IO& io, L& l) {
    io.template num<std::int32_t>(l.contents);
    io.template num<std::int16_t>(l.cluster);
    io.template num<std::int16_t>(l.area);
    io.template nums<std::int32_t>(l.mins);
    io.template nums<std::int32_t>(l.maxs);
    io.template num<std::uint16_t>(l.firstleafface);
    io.template num<std::uint16_t>(l.numleaffaces);
    io.template num<std::uint16_t>(l.firstleafbrush);
    io.template num<std::uint16_t>(l.numleafbrushes);
    io.template num<std::int16_t>(l.leafWaterDataID);
    io.template num<std::uint8_t>(l.flags);
    io.template num<std::uint8_t>(l.padding[0]);
}

template <class IO, class T>
void io_texinfo(IO& io, T& t) {
    for (auto& row : t.textureVecsTexelsPerWorldUnits) io.template nums<float>(row);
    for (auto& row : t.lightmapVecsLuxelsPerWorldUnits) io.template nums<float>(row);
    io.template num<std::int32_t>(t.flags);
    io.template num<std::int32_t>(t.texdata);
}

template <class IO, class T>
void io_texdata(IO& io, T& t) {
    io.vec(t.reflectivity);
    io.template num<std::int32_t>(t.nameStringTableID);
    io.template num<std::int32_t>(t.width);
    io.template num<std::int32_t>(t.height);
    io.template num<std::int32_t>(t.view_width);
    io.template num<std::int32_t>(t.view_height);
}

template <class IO, class T>
void io_texdata_vitamin(IO& io, T& t) {
    io.vec(t.reflectivity);
    io.template num<std::int32_t>(t.nameStringTableID);
    io.template num<std::int32_t>(t.width);
    io.template num<std::int32_t>(t.height);
}

// `extra` is how many unknown words the BSP v22 (1) and v23 (2) layouts add; -1 is the
// Half-Life 2 beta (v17) record without triangle tags.
template <class IO, class D>
void io_dispinfo(IO& io, D& d, int extra) {
    io.vec(d.startPosition);
    io.template num<std::int32_t>(d.m_iDispVertStart);
    if (extra >= 0) io.template num<std::int32_t>(d.m_iDispTriStart);
    io.template num<std::int32_t>(d.power);
    io.template num<std::int32_t>(d.minTess);
    io.template num<float>(d.smoothingAngle);
    io.template num<std::int32_t>(d.contents);
    if (extra == 2) io.template num<std::int32_t>(d.unknown[0]);
    io.template num<std::uint16_t>(d.m_iMapFace);
    io.bytes(d.padding);
    io.template num<std::int32_t>(d.m_iLightmapAlphaStart);
    io.template num<std::int32_t>(d.m_iLightmapSamplePositionStart);
    if (extra >= 1) io.template num<std::int32_t>(d.unknown[extra - 1]);
    for (auto& edge : d.m_EdgeNeighbors) {
        for (auto& sub : edge.m_SubNeighbors) {
            io.template num<std::uint16_t>(sub.m_iNeighbor);
            io.template num<std::uint8_t>(sub.m_NeighborOrientation);
            io.template num<std::uint8_t>(sub.m_Span);
            io.template num<std::uint8_t>(sub.m_NeighborSpan);
            io.template num<std::uint8_t>(sub.padding);
        }
    }
    for (auto& corner : d.m_CornerNeighbors) {
        io.template nums<std::uint16_t>(corner.m_Neighbors);
        io.template num<std::uint8_t>(corner.m_nNeighbors);
        io.template num<std::uint8_t>(corner.padding[0]);
    }
    io.template nums<std::uint32_t>(d.m_AllowedVerts);
}

// Strata dispinfo lump version 1: the map face and the neighbour indices are 32-bit.
template <class IO, class D>
void io_dispinfo_strata(IO& io, D& d) {
    io.vec(d.startPosition);
    io.template num<std::int32_t>(d.m_iDispVertStart);
    io.template num<std::int32_t>(d.m_iDispTriStart);
    io.template num<std::int32_t>(d.power);
    io.template num<std::int32_t>(d.minTess);
    io.template num<float>(d.smoothingAngle);
    io.template num<std::int32_t>(d.contents);
    io.template num<std::uint32_t>(d.m_iMapFace);
    io.template num<std::int32_t>(d.m_iLightmapAlphaStart);
    io.template num<std::int32_t>(d.m_iLightmapSamplePositionStart);
    for (auto& edge : d.m_EdgeNeighbors) {
        for (auto& sub : edge.m_SubNeighbors) {
            io.template num<std::uint32_t>(sub.m_iNeighbor);
            io.template num<std::uint8_t>(sub.m_NeighborOrientation);
            io.template num<std::uint8_t>(sub.m_Span);
            io.template num<std::uint8_t>(sub.m_NeighborSpan);
            io.template num<std::uint8_t>(sub.padding);
        }
    }
    for (auto& corner : d.m_CornerNeighbors) {
        io.template nums<std::uint32_t>(corner.m_Neighbors);
        io.template num<std::uint8_t>(corner.m_nNeighbors);
        io.bytes(corner.padding);
    }
    io.template nums<std::uint32_t>(d.m_AllowedVerts);
}

template <class IO, class V>
void io_dispvert(IO& io, V& v) {
    io.vec(v.m_vVector);
    io.template num<float>(v.m_flDist);
    io.template num<float>(v.m_flAlpha);
}

template <class IO, class T>
void io_disptri(IO& io, T& t) {
    io.template num<std::uint16_t>(t.m_uiTags);
}

struct OverlayLayout {
    bool strata = false;
    bool tint = false;
};

template <class IO, class O>
void io_overlay(IO& io, O& o, OverlayLayout layout) {
    if (layout.strata) {
        io.template num<std::uint32_t>(o.nId);
        io.template num<std::int32_t>(o.nTexInfo);
        io.template num<std::uint32_t>(o.m_nFaceCountAndRenderOrder);
    } else {
        io.template num<std::int32_t>(o.nId);
        io.template num<std::int16_t>(o.nTexInfo);
        io.template num<std::uint16_t>(o.m_nFaceCountAndRenderOrder);
    }
    io.template nums<std::int32_t>(o.aFaces);
    io.template nums<float>(o.flU);
    io.template nums<float>(o.flV);
    for (auto& p : o.vecUVPoints) io.vec(p);
    io.vec(o.vecOrigin);
    io.vec(o.vecBasisNormal);
    if (layout.tint) io.bytes(o.tint);
}

template <class IO, class F>
void io_fade(IO& io, F& f) {
    io.template num<float>(f.flFadeDistMinSq);
    io.template num<float>(f.flFadeDistMaxSq);
}

template <class IO, class C>
void io_cubemap(IO& io, C& c) {
    io.template nums<std::int32_t>(c.origin);
    io.template num<std::uint8_t>(c.size);
    io.bytes(c.padding);
}

template <class IO, class A>
void io_area(IO& io, A& a) {
    io.template num<std::int32_t>(a.numareaportals);
    io.template num<std::int32_t>(a.firstareaportal);
}

template <class D, class IO, class A>
void io_areaportal(IO& io, A& a) {
    io.template num<D>(a.m_PortalKey);
    io.template num<D>(a.otherarea);
    io.template num<D>(a.m_FirstClipPortalVert);
    io.template num<D>(a.m_nClipPortalVerts);
    io.template num<std::int32_t>(a.planenum);
}

template <class IO, class W>
void io_worldlight(IO& io, W& w, bool v1) {
    io.vec(w.origin);
    io.vec(w.intensity);
    io.vec(w.normal);
    if (v1) io.vec(w.shadow_cast_offset);
    io.template num<std::int32_t>(w.cluster);
    io.template num<std::int32_t>(w.type);
    io.template num<std::int32_t>(w.style);
    io.template num<float>(w.stopdot);
    io.template num<float>(w.stopdot2);
    io.template num<float>(w.exponent);
    io.template num<float>(w.radius);
    io.template num<float>(w.constant_attn);
    io.template num<float>(w.linear_attn);
    io.template num<float>(w.quadratic_attn);
    io.template num<std::int32_t>(w.flags);
    io.template num<std::int32_t>(w.texinfo);
    io.template num<std::int32_t>(w.owner);
}

// --- layout choice -------------------------------------------------------------------------
//
// A layout chooser picks the on-disk record of one lump kind from the BSP version and the lump
// version, then calls `fn(record_size, zero_copy_ok, codec)`, where `codec(io, record)` reads
// or writes one record. The same choice drives both decoding and encoding.

template <class T>
struct Decode {
    using result_type = Result<LumpView<T>>;
    const Bsp& bsp;
    int index;
    template <class Codec>
    result_type operator()(std::size_t size, bool identity, Codec codec) const {
        return decode_records<T>(bsp, index, size, identity, codec);
    }
};

template <class T>
struct Encode {
    using result_type = Result<Bytes>;
    const Bsp& bsp;
    int index;
    std::span<const T> items;
    template <class Codec>
    result_type operator()(std::size_t size, bool, Codec codec) const {
        return encode_records<T>(bsp, index, items, size, codec);
    }
};

bool wide_indices(const Bsp& bsp, int index) {
    return is_strata(bsp) && bsp.lump(index).version >= 1;
}

template <class T>
struct Tag {};

// Records with one layout in every supported version; all of them match their struct.
constexpr auto fixed(Tag<dplane_t>) {
    return std::pair{20, [](auto& io, auto& r) { io_plane(io, r); }};
}
constexpr auto fixed(Tag<Vec3f>) {
    return std::pair{12, [](auto& io, auto& r) { io_vec(io, r); }};
}
constexpr auto fixed(Tag<std::int32_t>) {
    return std::pair{4, [](auto& io, auto& r) { io_scalar<std::int32_t>(io, r); }};
}
constexpr auto fixed(Tag<dbrush_t>) {
    return std::pair{12, [](auto& io, auto& r) { io_brush(io, r); }};
}
constexpr auto fixed(Tag<dmodel_t>) {
    return std::pair{48, [](auto& io, auto& r) { io_model(io, r); }};
}
constexpr auto fixed(Tag<texinfo_t>) {
    return std::pair{72, [](auto& io, auto& r) { io_texinfo(io, r); }};
}

constexpr auto fixed(Tag<CDispVert>) {
    return std::pair{20, [](auto& io, auto& r) { io_dispvert(io, r); }};
}
constexpr auto fixed(Tag<CDispTri>) {
    return std::pair{2, [](auto& io, auto& r) { io_disptri(io, r); }};
}
constexpr auto fixed(Tag<doverlayfade_t>) {
    return std::pair{8, [](auto& io, auto& r) { io_fade(io, r); }};
}
constexpr auto fixed(Tag<dcubemapsample_t>) {
    return std::pair{16, [](auto& io, auto& r) { io_cubemap(io, r); }};
}
constexpr auto fixed(Tag<darea_t>) {
    return std::pair{8, [](auto& io, auto& r) { io_area(io, r); }};
}

template <class T>
struct Fixed {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        const auto [size, codec] = fixed(Tag<T>{});
        return fn(static_cast<std::size_t>(size), true, codec);
    }
};

struct Texdata {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        if (is_vitamin(bsp)) {
            return fn(24, false, [](auto& io, auto& t) { io_texdata_vitamin(io, t); });
        }
        return fn(32, true, [](auto& io, auto& t) { io_texdata(io, t); });
    }
};

struct Edges {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        if (wide_indices(bsp, index)) {
            return fn(8, true, [](auto& io, auto& e) { io_edge<std::uint32_t>(io, e); });
        }
        return fn(4, false, [](auto& io, auto& e) { io_edge<std::uint16_t>(io, e); });
    }
};

// Leaf face and leaf brush lists: uint16 before Strata.
struct IndexList {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        if (wide_indices(bsp, index)) {
            return fn(4, true, [](auto& io, auto& v) { io_scalar<std::uint32_t>(io, v); });
        }
        return fn(2, false, [](auto& io, auto& v) { io_scalar<std::uint16_t>(io, v); });
    }
};

// BSP v17 faces are Bloodlines' 104-byte records or Half-Life 2 beta's 68-byte ones, the same
// in every face lump. The record size that divides the face lumps decides; when both do, the
// face count the models give; with no faces at all, Bloodlines (the one game released on v17).
bool bloodlines_faces(const Bsp& bsp) {
    bool fits104 = true, fits68 = true, any = false;
    for (const LumpId id : {LumpId::faces, LumpId::originalfaces, LumpId::faces_hdr}) {
        const std::size_t n = bsp.lump(id).size();
        if (!n) continue;
        any = true;
        fits104 &= n % 104 == 0;
        fits68 &= n % 68 == 0;
    }
    if (!any || fits104 != fits68) return !any || fits104;
    if (!fits104) return true;  // neither: the size check reports the lump
    const Lump& ml = bsp.lump(LumpId::models);
    std::uint64_t count = 0;
    if (ml.size() % 48 == 0) {
        ByteReader r(ml.bytes(), bsp.endian());
        for (std::size_t i = 0; i < ml.size() / 48; ++i) {
            r.skip(40, "model");
            const std::int64_t first = r.i32("firstface"), num = r.i32("numfaces");
            if (first >= 0 && num >= 0) count = std::max<std::uint64_t>(count, first + num);
        }
    }
    return bsp.lump(LumpId::faces).size() != count * 68;
}

struct Faces {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        if (bsp.version() == 17) {
            const bool b = bloodlines_faces(bsp);
            return fn(b ? 104 : 68, false, [b](auto& io, auto& f) { io_face_v17(io, f, b); });
        }
        if (is_vitamin(bsp)) {
            return fn(40, false, [](auto& io, auto& f) { io_face_vitamin(io, f); });
        }
        // Original faces keep lump version 0 in Strata maps while sharing the faces' layout.
        if (is_strata(bsp) && bsp.lump(LumpId::faces).version >= 2) {
            return fn(72, false, [](auto& io, auto& f) { io_face_strata(io, f); });
        }
        return fn(56, false, [](auto& io, auto& f) { io_face_standard(io, f); });
    }
};

struct Brushsides {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        if (wide_indices(bsp, index)) {
            return fn(16, false, [](auto& io, auto& s) { io_brushside_strata(io, s); });
        }
        if (is_vitamin(bsp)) {
            return fn(12, false, [](auto& io, auto& s) { io_brushside_vitamin(io, s); });
        }
        return fn(8, false, [](auto& io, auto& s) { io_brushside_standard(io, s); });
    }
};

struct Nodes {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        if (wide_indices(bsp, index)) {
            return fn(48, false, [](auto& io, auto& n) { io_node_strata(io, n); });
        }
        if (is_vitamin(bsp)) {
            return fn(44, false, [](auto& io, auto& n) { io_node_vitamin(io, n); });
        }
        return fn(32, false, [](auto& io, auto& n) { io_node_standard(io, n); });
    }
};

struct Leafs {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        const std::int32_t v = bsp.lump(index).version;
        if (is_strata(bsp) && v >= 2) {
            return fn(56, false, [](auto& io, auto& l) { io_leaf_strata(io, l); });
        }
        if (is_vitamin(bsp)) {
            return fn(44, false, [](auto& io, auto& l) { io_leaf_vitamin(io, l); });
        }
        // Version 0 leaves carry their ambient light cube inline.
        if (v == 0) return fn(56, false, [](auto& io, auto& l) { io_leaf_standard(io, l, true); });
        if (v == 1) return fn(32, false, [](auto& io, auto& l) { io_leaf_standard(io, l, false); });
        return unsupported_layout(bsp, index);
    }
};

template <class O>
struct Overlays {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        const std::int32_t v = bsp.lump(index).version;
        OverlayLayout layout;
        if (is_strata(bsp) && v != 0) {
            // Version 3 is not an array of records: see strata_overlays().
            if (v > 2) return unsupported_layout(bsp, index);
            layout = {true, v == 2};
        }
        if (is_vitamin(bsp)) layout = {true, false};
        const std::size_t size =
            (layout.strata ? 12 : 8) + sizeof(O::aFaces) + 16 + 4 * 12 + 24 + (layout.tint ? 4 : 0);
        return fn(size, false, [layout](auto& io, auto& o) { io_overlay(io, o, layout); });
    }
};

struct Areaportals {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        if (wide_indices(bsp, index)) {
            return fn(20, true, [](auto& io, auto& a) { io_areaportal<std::uint32_t>(io, a); });
        }
        return fn(12, false, [](auto& io, auto& a) { io_areaportal<std::uint16_t>(io, a); });
    }
};

struct Worldlights {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        const std::int32_t v = bsp.lump(index).version;
        if (v != 0 && v != 1) return unsupported_layout(bsp, index);
        const bool v1 = v == 1;
        return fn(v1 ? 100 : 88, v1, [v1](auto& io, auto& w) { io_worldlight(io, w, v1); });
    }
};

// BSP v22 adds one unknown word, v23 (Dota 2 beta) two; Strata's lump version 1 widens the
// map face and neighbour indices to 32 bits; Half-Life 2 beta v17 maps have no triangle tags
// (172 bytes), Bloodlines' v17 ones do (176, chosen when both sizes divide the lump).
struct Dispinfo {
    template <class Fn>
    typename Fn::result_type operator()(const Bsp& bsp, int index, Fn&& fn) const {
        LK_TRY(require_known_version(bsp, index));
        if (is_strata(bsp) && bsp.lump(index).version >= 1) {
            return fn(232, false, [](auto& io, auto& d) { io_dispinfo_strata(io, d); });
        }
        const std::size_t n = bsp.lump(index).size();
        if (bsp.version() == 17 && n % 172 == 0 && n % 176 != 0) {
            return fn(172, false, [](auto& io, auto& d) { io_dispinfo(io, d, -1); });
        }
        const int extra = bsp.version() == 22 ? 1 : bsp.version() == 23 ? 2 : 0;
        return fn(176 + 4 * static_cast<std::size_t>(extra), false,
                  [extra](auto& io, auto& d) { io_dispinfo(io, d, extra); });
    }
};

// An empty lump is an empty view whatever its layout would have been.
template <class T, class Chooser>
Result<LumpView<T>> decode_lump(const Bsp& bsp, LumpId id, Chooser choose) {
    const int index = index_of(id);
    if (bsp.lump(index).empty()) return LumpView<T>{};
    return choose(bsp, index, Decode<T>{bsp, index});
}

template <class T, class Chooser>
Result<Bytes> encode_lump(const Bsp& bsp, LumpId id, std::span<const T> items, Chooser choose) {
    const int index = index_of(id);
    return choose(bsp, index, Encode<T>{bsp, index, items});
}

bool is_face_lump(LumpId id) {
    return id == LumpId::faces || id == LumpId::originalfaces || id == LumpId::faces_hdr;
}
bool is_worldlight_lump(LumpId id) {
    return id == LumpId::worldlights || id == LumpId::worldlights_hdr;
}

}  // namespace

// --- decoders --------------------------------------------------------------------------------

Result<LumpView<dplane_t>> planes(const Bsp& bsp) {
    return decode_lump<dplane_t>(bsp, LumpId::planes, Fixed<dplane_t>{});
}
Result<LumpView<dvertex_t>> vertexes(const Bsp& bsp) {
    return decode_lump<Vec3f>(bsp, LumpId::vertexes, Fixed<Vec3f>{});
}
Result<LumpView<Vec3f>> clipportalverts(const Bsp& bsp) {
    return decode_lump<Vec3f>(bsp, LumpId::clipportalverts, Fixed<Vec3f>{});
}
Result<LumpView<std::int32_t>> surfedges(const Bsp& bsp) {
    return decode_lump<std::int32_t>(bsp, LumpId::surfedges, Fixed<std::int32_t>{});
}
Result<LumpView<dbrush_t>> brushes(const Bsp& bsp) {
    return decode_lump<dbrush_t>(bsp, LumpId::brushes, Fixed<dbrush_t>{});
}
Result<LumpView<dmodel_t>> models(const Bsp& bsp) {
    return decode_lump<dmodel_t>(bsp, LumpId::models, Fixed<dmodel_t>{});
}
Result<LumpView<texinfo_t>> texinfo(const Bsp& bsp) {
    return decode_lump<texinfo_t>(bsp, LumpId::texinfo, Fixed<texinfo_t>{});
}
Result<LumpView<dtexdata_t>> texdata(const Bsp& bsp) {
    return decode_lump<dtexdata_t>(bsp, LumpId::texdata, Texdata{});
}
Result<LumpView<CDispVert>> disp_verts(const Bsp& bsp) {
    return decode_lump<CDispVert>(bsp, LumpId::disp_verts, Fixed<CDispVert>{});
}
Result<LumpView<CDispTri>> disp_tris(const Bsp& bsp) {
    return decode_lump<CDispTri>(bsp, LumpId::disp_tris, Fixed<CDispTri>{});
}
Result<LumpView<doverlayfade_t>> overlay_fades(const Bsp& bsp) {
    return decode_lump<doverlayfade_t>(bsp, LumpId::overlay_fades, Fixed<doverlayfade_t>{});
}
Result<LumpView<dcubemapsample_t>> cubemaps(const Bsp& bsp) {
    return decode_lump<dcubemapsample_t>(bsp, LumpId::cubemaps, Fixed<dcubemapsample_t>{});
}
Result<LumpView<darea_t>> areas(const Bsp& bsp) {
    return decode_lump<darea_t>(bsp, LumpId::areas, Fixed<darea_t>{});
}
Result<LumpView<dedge_t>> edges(const Bsp& bsp) {
    return decode_lump<dedge_t>(bsp, LumpId::edges, Edges{});
}
Result<LumpView<std::uint32_t>> leaffaces(const Bsp& bsp) {
    return decode_lump<std::uint32_t>(bsp, LumpId::leaffaces, IndexList{});
}
Result<LumpView<std::uint32_t>> leafbrushes(const Bsp& bsp) {
    return decode_lump<std::uint32_t>(bsp, LumpId::leafbrushes, IndexList{});
}
Result<LumpView<dface_t>> faces(const Bsp& bsp, LumpId which) {
    if (!is_face_lump(which)) {
        return lump_diag(bsp, index_of(which), "bsp.not-faces", "not a face lump");
    }
    return decode_lump<dface_t>(bsp, which, Faces{});
}
Result<LumpView<dbrushside_t>> brushsides(const Bsp& bsp) {
    return decode_lump<dbrushside_t>(bsp, LumpId::brushsides, Brushsides{});
}
Result<LumpView<dnode_t>> nodes(const Bsp& bsp) {
    return decode_lump<dnode_t>(bsp, LumpId::nodes, Nodes{});
}
Result<LumpView<dleaf_t>> leafs(const Bsp& bsp) {
    return decode_lump<dleaf_t>(bsp, LumpId::leafs, Leafs{});
}
Result<LumpView<doverlay_t>> overlays(const Bsp& bsp) {
    return decode_lump<doverlay_t>(bsp, LumpId::overlays, Overlays<doverlay_t>{});
}
Result<LumpView<dwateroverlay_t>> water_overlays(const Bsp& bsp) {
    return decode_lump<dwateroverlay_t>(bsp, LumpId::wateroverlays, Overlays<dwateroverlay_t>{});
}
Result<LumpView<dareaportal_t>> areaportals(const Bsp& bsp) {
    return decode_lump<dareaportal_t>(bsp, LumpId::areaportals, Areaportals{});
}
Result<LumpView<dworldlight_t>> worldlights(const Bsp& bsp, LumpId which) {
    if (!is_worldlight_lump(which)) {
        return lump_diag(bsp, index_of(which), "bsp.not-worldlights", "not a world light lump");
    }
    return decode_lump<dworldlight_t>(bsp, which, Worldlights{});
}
Result<LumpView<ddispinfo_t>> dispinfo(const Bsp& bsp) {
    return decode_lump<ddispinfo_t>(bsp, LumpId::dispinfo, Dispinfo{});
}

Result<TexdataStrings> texdata_strings(const Bsp& bsp) {
    const int table_index = index_of(LumpId::texdata_string_table);
    LK_TRY(require_known_version(bsp, table_index));
    LK_TRY_ASSIGN(auto table, (decode_records<std::int32_t>(bsp, table_index, 4, false,
                                                            [](RecordReader& r, std::int32_t& v) {
                                                                r.num<std::int32_t>(v);
                                                            })));
    TexdataStrings out;
    out.data = bsp.lump(LumpId::texdata_string_data).data();
    out.table.assign(table.begin(), table.end());
    const std::string_view text = out.data.text();
    out.names.reserve(out.table.size());
    for (std::size_t i = 0; i < out.table.size(); ++i) {
        const std::int32_t off = out.table[i];
        if (off < 0 || static_cast<std::size_t>(off) >= text.size()) {
            return lump_diag(
                bsp, table_index, "bsp.bad-string-offset",
                fmt::format("offset {} is outside the {}-byte string data", off, text.size()),
                fmt::format("/record[{}]", i));
        }
        // The engine reads up to the NUL; a missing final terminator ends at the lump's end.
        const std::string_view rest = text.substr(static_cast<std::size_t>(off));
        out.names.push_back(rest.substr(0, rest.find('\0')));
    }
    return out;
}

Result<Occlusion> occlusion(const Bsp& bsp) {
    const int index = index_of(LumpId::occlusion);
    LK_TRY(require_known_version(bsp, index));
    Occlusion o;
    o.version = bsp.lump(index).version;
    const ByteSpan d = bsp.lump(index).bytes();
    if (d.empty()) return o;
    if (o.version < 1 || o.version > 2) return unsupported_layout(bsp, index);
    const std::size_t occluder_size = o.version >= 2 ? 44 : 40;
    const std::int64_t base = bsp.headers_as_read().empty()
                                  ? 0
                                  : bsp.headers_as_read()[static_cast<std::size_t>(index)].offset;
    ByteReader r(d, bsp.endian(), static_cast<std::uint64_t>(std::max<std::int64_t>(base, 0)));
    auto fail = [&](std::string_view field) {
        Diagnostic e = r.ok() ? Diagnostic::error("bsp.bad-occlusion", "negative count")
                                    .at_offset(static_cast<std::int64_t>(r.abs_pos()))
                              : r.take_error();
        e.message = fmt::format("lump {} (occlusion): {}", index, e.message);
        return std::move(e).with_path(fmt::format("{}/{}", lump_path(index), field));
    };
    auto count = [&](std::size_t item, std::string_view field, std::size_t& n) {
        const std::int32_t c = r.i32(field);
        if (!r.ok() || c < 0 || !r.check_count(static_cast<std::uint64_t>(c), item, field)) {
            return false;
        }
        n = static_cast<std::size_t>(c);
        return true;
    };
    std::size_t n = 0;
    if (!count(occluder_size, "count", n)) return fail("count");
    o.occluders.resize(n);
    for (doccluderdata_t& od : o.occluders) {
        od.flags = r.i32("flags");
        od.firstpoly = r.i32("firstpoly");
        od.polycount = r.i32("polycount");
        od.mins = {r.f32("mins"), r.f32("mins"), r.f32("mins")};
        od.maxs = {r.f32("maxs"), r.f32("maxs"), r.f32("maxs")};
        if (o.version >= 2) od.area = r.i32("area");
    }
    if (!count(12, "polycount", n)) return fail("polycount");
    o.polys.resize(n);
    for (doccluderpolydata_t& p : o.polys) {
        p.firstvertexindex = r.i32("firstvertexindex");
        p.vertexcount = r.i32("vertexcount");
        p.planenum = r.i32("planenum");
    }
    if (!count(4, "vertexcount", n)) return fail("vertexcount");
    o.vertex_indices.resize(n);
    for (std::int32_t& v : o.vertex_indices) v = r.i32("vertex_index");
    if (!r.ok()) return fail("data");
    if (!r.at_end()) {
        return lump_diag(bsp, index, "bsp.bad-occlusion",
                         fmt::format("{} bytes after the vertex indices", r.remaining()), "/data");
    }
    return o;
}

namespace {
constexpr std::size_t kOverlayV3Record = 108;
}

Result<StrataOverlays> strata_overlays(const Bsp& bsp) {
    const int index = index_of(LumpId::overlays);
    StrataOverlays o;
    const ByteSpan d = bsp.lump(index).bytes();
    if (d.empty() || !is_strata(bsp) || bsp.lump(index).version != 3) return o;
    const std::int64_t base = bsp.headers_as_read().empty()
                                  ? 0
                                  : bsp.headers_as_read()[static_cast<std::size_t>(index)].offset;
    ByteReader r(d, bsp.endian(), static_cast<std::uint64_t>(std::max<std::int64_t>(base, 0)));
    auto fail = [&](std::string_view field) {
        Diagnostic e = r.ok() ? Diagnostic::error("bsp.bad-overlays", "count does not fit")
                                    .at_offset(static_cast<std::int64_t>(r.abs_pos()))
                              : r.take_error();
        e.message = fmt::format("lump {} (overlays): {}", index, e.message);
        return std::move(e).with_path(fmt::format("{}/{}", lump_path(index), field));
    };
    const std::uint32_t count = r.u32("count"), nfaces = r.u32("face count");
    if (!r.ok() || !r.check_count(nfaces, 4, "faces")) return fail("faces");
    o.faces.resize(nfaces);
    for (std::uint32_t& f : o.faces) f = r.u32("face");
    if (!r.ok() || !r.check_count(count, kOverlayV3Record, "overlays")) return fail("overlays");
    o.overlays.resize(count);
    for (doverlay_v3_t& v : o.overlays) {
        v.nId = r.i32("id");
        v.nTexInfo = r.u32("texinfo");
        v.flags = r.u16("flags");
        v.renderOrder = r.u16("render order");
        v.faceOffset = r.i32("face offset");
        v.faceCount = r.i32("face count");
        for (float& f : v.flU) f = r.f32("u");
        for (float& f : v.flV) f = r.f32("v");
        for (auto& p : v.uv) {
            p[0] = r.f32("uv");
            p[1] = r.f32("uv");
        }
        for (Vec3f* p : {&v.basisU, &v.origin, &v.basisNormal})
            *p = {r.f32("x"), r.f32("y"), r.f32("z")};
        for (std::uint8_t& c : v.tint) c = r.u8("tint");
    }
    if (!r.ok()) return fail("overlays");
    if (!r.at_end()) {
        return lump_diag(bsp, index, "bsp.bad-overlays",
                         fmt::format("{} bytes after the overlay records", r.remaining()),
                         "/overlays");
    }
    return o;
}

Result<Bytes> encode(const Bsp& bsp, const StrataOverlays& o) {
    ByteWriter w(bsp.endian());
    w.u32(static_cast<std::uint32_t>(o.overlays.size()));
    w.u32(static_cast<std::uint32_t>(o.faces.size()));
    for (const std::uint32_t f : o.faces) w.u32(f);
    for (const doverlay_v3_t& v : o.overlays) {
        w.i32(v.nId);
        w.u32(v.nTexInfo);
        w.u16(v.flags);
        w.u16(v.renderOrder);
        w.i32(v.faceOffset);
        w.i32(v.faceCount);
        for (const float f : v.flU) w.f32(f);
        for (const float f : v.flV) w.f32(f);
        for (const auto& p : v.uv) {
            w.f32(p[0]);
            w.f32(p[1]);
        }
        for (const Vec3f* p : {&v.basisU, &v.origin, &v.basisNormal}) {
            w.f32(p->x);
            w.f32(p->y);
            w.f32(p->z);
        }
        for (const std::uint8_t c : v.tint) w.u8(c);
    }
    return w.take();
}

Result<Visibility> visibility(const Bsp& bsp) {
    const int index = index_of(LumpId::visibility);
    LK_TRY(require_known_version(bsp, index));
    Visibility v;
    v.data = bsp.lump(index).data();
    const ByteSpan d = v.data.bytes();
    if (d.empty()) return v;
    ByteReader r(d, bsp.endian());
    v.numclusters = r.i32("numclusters");
    if (!r.ok() || v.numclusters < 0 ||
        !r.check_count(static_cast<std::uint64_t>(v.numclusters), 8, "clusters")) {
        return lump_diag(bsp, index, "bsp.bad-visibility",
                         fmt::format("cluster count {} does not fit the lump", v.numclusters),
                         "/numclusters");
    }
    v.bitofs.resize(static_cast<std::size_t>(v.numclusters));
    for (std::size_t i = 0; i < v.bitofs.size(); ++i) {
        for (int k = 0; k < 2; ++k) {
            const std::int32_t ofs = r.i32("bitofs");
            if (ofs < 0 || static_cast<std::size_t>(ofs) > d.size()) {
                return lump_diag(bsp, index, "bsp.bad-visibility",
                                 fmt::format("cluster {} {} offset {} is outside the lump", i,
                                             k == 0 ? "PVS" : "PAS", ofs),
                                 fmt::format("/bitofs[{}][{}]", i, k));
            }
            v.bitofs[i][static_cast<std::size_t>(k)] = ofs;
        }
    }
    return v;
}

Result<Bytes> Visibility::decompress(std::int32_t cluster, int which) const {
    if (cluster < 0 || cluster >= numclusters || (which != kPvs && which != kPas)) {
        return Diagnostic::error("bsp.bad-cluster", fmt::format("no cluster {}", cluster))
            .with_path(fmt::format("lump[4]/cluster[{}]", cluster));
    }
    const ByteSpan d = data.bytes();
    const std::size_t row = (static_cast<std::size_t>(numclusters) + 7) / 8;
    Bytes out;
    out.reserve(row);
    std::size_t p = static_cast<std::size_t>(
        bitofs[static_cast<std::size_t>(cluster)][static_cast<std::size_t>(which)]);
    // A zero byte is followed by a count of zero bytes; anything else is literal.
    while (out.size() < row) {
        if (p >= d.size()) {
            return Diagnostic::error(
                       "bsp.bad-visibility",
                       fmt::format("cluster {} visibility runs past the lump", cluster))
                .with_path(fmt::format("lump[4]/cluster[{}]", cluster));
        }
        const std::byte b = d[p++];
        if (b != std::byte{0}) {
            out.push_back(b);
            continue;
        }
        if (p >= d.size()) {
            return Diagnostic::error("bsp.bad-visibility",
                                     fmt::format("cluster {} visibility run is truncated", cluster))
                .with_path(fmt::format("lump[4]/cluster[{}]", cluster));
        }
        const auto zeros = std::to_integer<std::size_t>(d[p++]);
        out.insert(out.end(), std::min(zeros, row - out.size()), std::byte{0});
    }
    return out;
}

// --- encoders --------------------------------------------------------------------------------

Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dplane_t> items) {
    return encode_lump(bsp, which, items, Fixed<dplane_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const Vec3f> items) {
    return encode_lump(bsp, which, items, Fixed<Vec3f>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const std::int32_t> items) {
    return encode_lump(bsp, which, items, Fixed<std::int32_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dbrush_t> items) {
    return encode_lump(bsp, which, items, Fixed<dbrush_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dmodel_t> items) {
    return encode_lump(bsp, which, items, Fixed<dmodel_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const texinfo_t> items) {
    return encode_lump(bsp, which, items, Fixed<texinfo_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dtexdata_t> items) {
    return encode_lump(bsp, which, items, Texdata{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const CDispVert> items) {
    return encode_lump(bsp, which, items, Fixed<CDispVert>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const CDispTri> items) {
    return encode_lump(bsp, which, items, Fixed<CDispTri>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const doverlayfade_t> items) {
    return encode_lump(bsp, which, items, Fixed<doverlayfade_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dcubemapsample_t> items) {
    return encode_lump(bsp, which, items, Fixed<dcubemapsample_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const darea_t> items) {
    return encode_lump(bsp, which, items, Fixed<darea_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dedge_t> items) {
    return encode_lump(bsp, which, items, Edges{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const std::uint32_t> items) {
    return encode_lump(bsp, which, items, IndexList{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dface_t> items) {
    return encode_lump(bsp, which, items, Faces{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dbrushside_t> items) {
    return encode_lump(bsp, which, items, Brushsides{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dnode_t> items) {
    return encode_lump(bsp, which, items, Nodes{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dleaf_t> items) {
    return encode_lump(bsp, which, items, Leafs{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const doverlay_t> items) {
    return encode_lump(bsp, which, items, Overlays<doverlay_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dwateroverlay_t> items) {
    return encode_lump(bsp, which, items, Overlays<dwateroverlay_t>{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dareaportal_t> items) {
    return encode_lump(bsp, which, items, Areaportals{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dworldlight_t> items) {
    return encode_lump(bsp, which, items, Worldlights{});
}
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const ddispinfo_t> items) {
    return encode_lump(bsp, which, items, Dispinfo{});
}

Result<Bytes> encode(const Bsp& bsp, const Occlusion& o) {
    const int index = index_of(LumpId::occlusion);
    if (o.version < 1 || o.version > 2) return unsupported_layout(bsp, index);
    ByteWriter w(bsp.endian());
    w.i32(static_cast<std::int32_t>(o.occluders.size()));
    for (const doccluderdata_t& od : o.occluders) {
        w.i32(od.flags);
        w.i32(od.firstpoly);
        w.i32(od.polycount);
        for (float f : {od.mins.x, od.mins.y, od.mins.z, od.maxs.x, od.maxs.y, od.maxs.z}) w.f32(f);
        if (o.version >= 2) w.i32(od.area);
    }
    w.i32(static_cast<std::int32_t>(o.polys.size()));
    for (const doccluderpolydata_t& p : o.polys) {
        w.i32(p.firstvertexindex);
        w.i32(p.vertexcount);
        w.i32(p.planenum);
    }
    w.i32(static_cast<std::int32_t>(o.vertex_indices.size()));
    for (std::int32_t v : o.vertex_indices) w.i32(v);
    return w.take();
}

}  // namespace lk::bsp
