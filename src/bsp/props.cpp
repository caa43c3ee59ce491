#include "levelkit/bsp/props.hpp"

#include <fmt/format.h>

#include <cstring>

#include "record_io.hpp"

namespace lk::bsp {

using detail::RecordReader;
using detail::RecordWriter;

namespace {

using L = StaticPropLayout;

struct LayoutInfo {
    L layout;
    std::uint16_t version;
    std::size_t size;
    std::string_view name;
};

constexpr LayoutInfo kLayouts[] = {
    {L::v4, 4, 56, "v4 (56 bytes)"},
    {L::v5, 5, 60, "v5 (60 bytes)"},
    {L::v5_ship, 5, 188, "v5 with targetname (The Ship, 188 bytes)"},
    {L::v6, 6, 64, "v6 (64 bytes)"},
    {L::v7, 7, 68, "v7 (68 bytes)"},
    {L::v7_lightmap, 7, 72, "v7* (SDK 2013 lightmapped, 72 bytes)"},
    {L::v8, 8, 68, "v8 (68 bytes)"},
    {L::v9, 9, 72, "v9 (72 bytes)"},
    {L::v10, 10, 76, "v10 (CS:GO, 76 bytes)"},
    {L::v10_lightmap, 10, 72, "v10 (SDK 2013 lightmapped, 72 bytes)"},
    {L::v11, 11, 80, "v11 (CS:GO, 80 bytes)"},
    {L::v11_mesa, 11, 80, "v11 (Black Mesa, 80 bytes)"},
    {L::v12_strata, 12, 80, "v12 (Strata, 80 bytes)"},
    {L::v13_strata, 13, 88, "v13 (Strata, 88 bytes)"},
};

const LayoutInfo& info(L l) {
    for (const LayoutInfo& i : kLayouts) {
        if (i.layout == l) return i;
    }
    return kLayouts[0];
}

bool is_lightmap(L l) {
    return l == L::v7_lightmap || l == L::v10_lightmap || l == L::v11_mesa;
}
bool has_cpu_gpu(L l) {
    return l == L::v8 || l == L::v9 || l == L::v10 || l == L::v11 || l == L::v12_strata ||
           l == L::v13_strata;
}

// Chooses the record layout from (version, record size), and the BSP version where Black
// Mesa and CS:GO share v11/80.
std::optional<L> resolve(std::uint16_t version, std::size_t size, std::int32_t bsp_version) {
    if (version == 11 && size == 80) return bsp_version == 20 ? L::v11_mesa : L::v11;
    for (const LayoutInfo& i : kLayouts) {
        if (i.version == version && i.size == size) return i.layout;
    }
    return std::nullopt;
}

// Layout used for a prop-less lump, where no record size can be measured.
std::optional<L> nominal(std::uint16_t version, std::int32_t bsp_version) {
    switch (version) {
        case 4:
            return L::v4;
        case 5:
            return L::v5;
        case 6:
            return L::v6;
        case 7:
            return L::v7;
        case 8:
            return L::v8;
        case 9:
            return L::v9;
        case 10:
            return bsp_version == 20 ? L::v10_lightmap : L::v10;
        case 11:
            return bsp_version == 20 ? L::v11_mesa : L::v11;
        case 12:
            return L::v12_strata;
        case 13:
            return L::v13_strata;
        default:
            return std::nullopt;
    }
}

template <class IO, class P>
void io_prop(IO& io, P& p, L l) {
    io.vec(p.m_Origin);
    io.vec(p.m_Angles);
    io.template num<std::uint16_t>(p.m_PropType);
    io.template num<std::uint16_t>(p.m_FirstLeaf);
    io.template num<std::uint16_t>(p.m_LeafCount);
    io.template num<std::uint8_t>(p.m_Solid);
    io.template num<std::uint8_t>(p.m_Flags);
    io.template num<std::int32_t>(p.m_Skin);
    io.template num<float>(p.m_FadeMinDist);
    io.template num<float>(p.m_FadeMaxDist);
    io.vec(p.m_LightingOrigin);
    if (l == L::v4) return;
    io.template num<float>(p.m_flForcedFadeScale);
    if (l == L::v5) return;
    if (l == L::v5_ship) {
        io.bytes(p.m_TargetName, sizeof(p.m_TargetName));
        return;
    }
    if (l == L::v6 || l == L::v7 || is_lightmap(l)) {
        io.template num<std::uint16_t>(p.m_nMinDXLevel);
        io.template num<std::uint16_t>(p.m_nMaxDXLevel);
    }
    if (has_cpu_gpu(l)) {
        io.template num<std::uint8_t>(p.m_nMinCPULevel);
        io.template num<std::uint8_t>(p.m_nMaxCPULevel);
        io.template num<std::uint8_t>(p.m_nMinGPULevel);
        io.template num<std::uint8_t>(p.m_nMaxGPULevel);
    }
    if (is_lightmap(l)) {
        io.template num<std::uint32_t>(p.m_Flags2013);
        io.template num<std::uint16_t>(p.m_nLightmapResolutionX);
        io.template num<std::uint16_t>(p.m_nLightmapResolutionY);
    }
    if (l == L::v7 || has_cpu_gpu(l) || l == L::v11_mesa) io.bytes(p.m_DiffuseModulation);
    if (has_cpu_gpu(l) && l != L::v8) {
        io.template num<std::uint8_t>(p.m_bDisableX360);
        io.bytes(p.m_Padding);
    }
    if (l == L::v10 || l == L::v11 || l == L::v12_strata || l == L::v13_strata ||
        l == L::v11_mesa) {
        io.template num<std::uint32_t>(p.m_FlagsEx);
    }
    if (l == L::v11 || l == L::v12_strata) io.template num<float>(p.m_flScale[0]);
    if (l == L::v13_strata) io.template nums<float>(p.m_flScale);
}

std::string sprp_path(std::string_view tail = {}) {
    return fmt::format("lump[35]/sprp{}{}", tail.empty() ? "" : "/", tail);
}

Diagnostic props_error(std::string code, std::string message, std::string path,
                       std::int64_t offset = -1) {
    return Diagnostic::error(std::move(code), std::move(message))
        .at_offset(offset)
        .with_path(std::move(path));
}

// Reads a count and checks that `item`-byte records of that many fit.
bool read_count(ByteReader& r, std::size_t item, std::string_view field, std::size_t& n) {
    const std::int32_t c = r.i32(field);
    if (!r.ok()) return false;
    if (c < 0) {
        r.fail("bsp.bad-count", fmt::format("negative {} {}", field, c));
        return false;
    }
    if (!r.check_count(static_cast<std::uint64_t>(c), item, field)) return false;
    n = static_cast<std::size_t>(c);
    return true;
}

std::uint64_t base_of(const GameLump& g) {
    return g.file_offset() >= 0 ? static_cast<std::uint64_t>(g.file_offset()) : 0;
}

}  // namespace

std::string_view describe(StaticPropLayout layout) {
    return info(layout).name;
}
std::size_t record_size(StaticPropLayout layout) {
    return info(layout).size;
}

std::string_view StaticProps::model_name(std::size_t i) const {
    if (i >= dict.size()) return {};
    const std::string_view s(dict[i].data(), dict[i].size());
    return s.substr(0, s.find('\0'));
}

Result<StaticProps> static_props(const Bsp& bsp) {
    StaticProps sp;
    const GameLump* g = bsp.find_game_lump(kStaticPropsId);
    if (!g) return sp;
    sp.version = g->version;
    ByteReader r(g->bytes(), bsp.endian(), base_of(*g));
    std::size_t n = 0;
    if (!read_count(r, 128, "dictionary count", n)) {
        return std::move(r.take_error().with_path(sprp_path("dict")));
    }
    sp.dict.resize(n);
    for (auto& name : sp.dict) {
        std::memcpy(name.data(), r.bytes(128, "name").data(), 128);
    }
    const std::size_t leaf_width = sp.version >= 12 ? 4 : 2;
    if (!read_count(r, leaf_width, "leaf count", n)) {
        return std::move(r.take_error().with_path(sprp_path("leaves")));
    }
    sp.leaves.resize(n);
    for (auto& leaf : sp.leaves) leaf = leaf_width == 4 ? r.u32("leaf") : r.u16("leaf");
    if (!read_count(r, 1, "prop count", n)) {
        return std::move(r.take_error().with_path(sprp_path("props")));
    }
    const std::size_t rest = r.remaining();
    std::optional<L> layout;
    if (n == 0) {
        layout = nominal(sp.version, bsp.version());
        if (rest != 0) {
            return props_error("bsp.sprp-layout",
                               fmt::format("{} bytes follow an empty static prop list", rest),
                               sprp_path("props"), static_cast<std::int64_t>(r.abs_pos()));
        }
    } else if (rest % n != 0) {
        return props_error(
            "bsp.sprp-layout",
            fmt::format("{} bytes of prop records do not divide into {} props", rest, n),
            sprp_path("props"), static_cast<std::int64_t>(r.abs_pos()));
    } else {
        layout = resolve(sp.version, rest / n, bsp.version());
    }
    if (!layout) {
        return props_error("bsp.sprp-layout",
                           fmt::format("no known static prop layout for version {} with {}-byte "
                                       "records",
                                       sp.version, n ? rest / n : 0),
                           sprp_path("props"), static_cast<std::int64_t>(r.abs_pos()));
    }
    sp.layout = *layout;
    sp.props.resize(n);
    const std::byte* p = r.data().data() + r.pos();
    for (StaticPropLump_t& prop : sp.props) {
        RecordReader rr(p, bsp.endian());
        io_prop(rr, prop, sp.layout);
        p += record_size(sp.layout);
    }
    return sp;
}

Result<Bytes> encode(const Bsp& bsp, const StaticProps& sp) {
    ByteWriter w(bsp.endian());
    w.i32(static_cast<std::int32_t>(sp.dict.size()));
    for (const auto& name : sp.dict) w.bytes(as_bytes(std::string_view(name.data(), name.size())));
    w.i32(static_cast<std::int32_t>(sp.leaves.size()));
    const bool wide = sp.version >= 12;
    for (std::size_t i = 0; i < sp.leaves.size(); ++i) {
        if (!wide && sp.leaves[i] > 0xFFFF) {
            return props_error("bsp.value-out-of-range", "leaf index does not fit 16 bits",
                               sprp_path(fmt::format("leaves[{}]", i)));
        }
        if (wide) {
            w.u32(sp.leaves[i]);
        } else {
            w.u16(static_cast<std::uint16_t>(sp.leaves[i]));
        }
    }
    w.i32(static_cast<std::int32_t>(sp.props.size()));
    const std::size_t size = record_size(sp.layout);
    const std::size_t start = w.size();
    w.zeros(size * sp.props.size());
    for (std::size_t i = 0; i < sp.props.size(); ++i) {
        RecordWriter rw(w.at(start + i * size), bsp.endian());
        io_prop(rw, sp.props[i], sp.layout);
        if (!rw.ok()) {
            return props_error(
                "bsp.value-out-of-range",
                fmt::format("prop {} holds a value that does not fit {}", i, describe(sp.layout)),
                sprp_path(fmt::format("prop[{}]", i)));
        }
    }
    return w.take();
}

namespace {

constexpr std::size_t kDetailRecord = 52;
constexpr std::size_t kSpriteRecord = 32;

template <class IO, class D>
void io_detail(IO& io, D& d) {
    io.vec(d.m_Origin);
    io.vec(d.m_Angles);
    io.template num<std::uint16_t>(d.m_DetailModel);
    io.template num<std::uint16_t>(d.m_Leaf);
    io.bytes(&d.m_Lighting, sizeof(ColorRGBExp32));
    io.template num<std::uint32_t>(d.m_LightStyles);
    io.template num<std::uint8_t>(d.m_LightStyleCount);
    io.template num<std::uint8_t>(d.m_SwayAmount);
    io.template num<std::uint8_t>(d.m_ShapeAngle);
    io.template num<std::uint8_t>(d.m_ShapeSize);
    io.template num<std::uint8_t>(d.m_Orientation);
    io.bytes(d.m_Padding2);
    io.template num<std::uint8_t>(d.m_Type);
    io.bytes(d.m_Padding3);
    io.template num<float>(d.m_flScale);
}

template <class IO, class S>
void io_sprite(IO& io, S& s) {
    io.template nums<float>(s.m_UL);
    io.template nums<float>(s.m_LR);
    io.template nums<float>(s.m_TexUL);
    io.template nums<float>(s.m_TexLR);
}

std::string dprp_path(std::string_view tail) {
    return fmt::format("lump[35]/dprp/{}", tail);
}

}  // namespace

Result<DetailProps> detail_props(const Bsp& bsp) {
    DetailProps dp;
    const GameLump* g = bsp.find_game_lump(kDetailPropsId);
    if (!g) return dp;
    dp.version = g->version;
    ByteReader r(g->bytes(), bsp.endian(), base_of(*g));
    std::size_t n = 0;
    if (!read_count(r, 128, "dictionary count", n)) {
        return std::move(r.take_error().with_path(dprp_path("dict")));
    }
    dp.dict.resize(n);
    for (auto& name : dp.dict) std::memcpy(name.data(), r.bytes(128, "name").data(), 128);
    if (dp.version != 4) {
        const ByteSpan rest = r.bytes(r.remaining(), "records");
        dp.rest.assign(rest.begin(), rest.end());
        // A count, then that many records of one size (after a sprite dictionary from v5 on).
        ByteReader t(rest, bsp.endian());
        if (dp.version > 4) {
            const std::int32_t sprites = t.i32("sprite count");
            if (!t.ok() || sprites < 0 || !t.skip(std::size_t(sprites) * kSpriteRecord, "sprites"))
                return dp;
        }
        const std::int32_t count = t.i32("prop count");
        if (t.ok() && count > 0 && t.remaining() % std::size_t(count) == 0 && t.remaining() > 0)
            dp.rest_count = std::size_t(count);
        else if (t.ok() && count == 0 && t.at_end())
            dp.rest_count = 0;
        return dp;
    }
    if (!read_count(r, kSpriteRecord, "sprite count", n)) {
        return std::move(r.take_error().with_path(dprp_path("sprites")));
    }
    dp.sprites.resize(n);
    for (auto& s : dp.sprites) {
        RecordReader rr(r.bytes(kSpriteRecord, "sprite").data(), bsp.endian());
        io_sprite(rr, s);
    }
    if (!read_count(r, kDetailRecord, "prop count", n)) {
        return std::move(r.take_error().with_path(dprp_path("props")));
    }
    dp.props.resize(n);
    for (auto& d : dp.props) {
        RecordReader rr(r.bytes(kDetailRecord, "prop").data(), bsp.endian());
        io_detail(rr, d);
    }
    if (!r.at_end()) {
        return props_error("bsp.dprp-layout",
                           fmt::format("{} bytes after the detail prop records", r.remaining()),
                           dprp_path("props"), static_cast<std::int64_t>(r.abs_pos()));
    }
    return dp;
}

Result<Bytes> encode(const Bsp& bsp, const DetailProps& dp) {
    ByteWriter w(bsp.endian());
    w.i32(static_cast<std::int32_t>(dp.dict.size()));
    for (const auto& name : dp.dict) w.bytes(as_bytes(std::string_view(name.data(), name.size())));
    if (dp.version != 4) {
        w.bytes(dp.rest);
        return w.take();
    }
    auto records = [&](auto& items, std::size_t size, auto io) {
        w.i32(static_cast<std::int32_t>(items.size()));
        const std::size_t start = w.size();
        w.zeros(size * items.size());
        for (std::size_t i = 0; i < items.size(); ++i) {
            RecordWriter rw(w.at(start + i * size), bsp.endian());
            io(rw, items[i]);
        }
    };
    records(dp.sprites, kSpriteRecord,
            [](RecordWriter& rw, const DetailSpriteDictLump_t& s) { io_sprite(rw, s); });
    records(dp.props, kDetailRecord,
            [](RecordWriter& rw, const DetailObjectLump_t& d) { io_detail(rw, d); });
    return w.take();
}

}  // namespace lk::bsp
