// Static props ("sprp") and detail props ("dprp") game lumps.
//
// The static prop record changed many times, and several engine branches reused a version
// number for different records. The layout is therefore chosen from the lump version and the
// record size ((lump size - header) / prop count), plus the BSP version where one pair is
// shared (v11 with 80-byte records: Black Mesa on BSP v20, CS:GO otherwise). Unknown pairs are
// errors, never guesses:
//
//   version  bytes  layout
//   4        56     v4 (HL2)
//   5        60     v5 (adds m_flForcedFadeScale)
//   5        188    v5 with a 128-byte targetname (The Ship, Bloody Good Time)
//   6        64     v6 (adds DX levels)
//   7        68     v7 (L4D: adds diffuse modulation)
//   7        72     v7* = SDK 2013 lightmapped props (v6 + 32-bit flags + lightmap size)
//   8        68     v8 (CPU/GPU levels replace DX levels)
//   9        72     v9 (adds disable-on-X360)
//   10       76     v10 (CS:GO: adds m_FlagsEx)
//   10       72     v10 SDK 2013 (TF2): same record as v7*
//   11       80     v11 CS:GO (adds uniform scale) / Black Mesa (v7* + modulation + flags)
//   12       80     Strata v12 (v11 record, 32-bit leaf list)
//   13       88     Strata v13 (three scale floats)
//
// Padding and unused bytes are kept, so encode(decode(lump)) reproduces the lump exactly.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/lumps.hpp"

namespace lk::bsp {

enum class StaticPropLayout : std::uint8_t {
    v4,
    v5,
    v5_ship,
    v6,
    v7,
    v7_lightmap,
    v8,
    v9,
    v10,
    v10_lightmap,
    v11,
    v11_mesa,
    v12_strata,
    v13_strata,
};

// "v10 (SDK 2013, 72 bytes)" and the like.
std::string_view describe(StaticPropLayout layout);
std::size_t record_size(StaticPropLayout layout);

// Every field any layout has; fields a layout lacks stay at their defaults.
struct StaticPropLump_t {
    Vec3f m_Origin;
    Vec3f m_Angles;                 // pitch, yaw, roll in degrees
    std::uint16_t m_PropType = 0;   // index into the model dictionary
    std::uint16_t m_FirstLeaf = 0;  // into the leaf list
    std::uint16_t m_LeafCount = 0;
    std::uint8_t m_Solid = 0;
    std::uint8_t m_Flags = 0;  // unused (left over) in the lightmap layouts
    std::int32_t m_Skin = 0;
    float m_FadeMinDist = 0;
    float m_FadeMaxDist = 0;
    Vec3f m_LightingOrigin;
    float m_flForcedFadeScale = 1;    // v5+
    std::uint16_t m_nMinDXLevel = 0;  // v6, v7, lightmap layouts
    std::uint16_t m_nMaxDXLevel = 0;
    std::uint8_t m_nMinCPULevel = 0;  // v8+
    std::uint8_t m_nMaxCPULevel = 0;
    std::uint8_t m_nMinGPULevel = 0;
    std::uint8_t m_nMaxGPULevel = 0;
    std::uint8_t m_DiffuseModulation[4] = {255, 255, 255, 255};  // v7+, Black Mesa
    std::uint8_t m_bDisableX360 = 0;                             // v9+ (not the lightmap layouts)
    std::uint8_t m_Padding[3] = {0, 0, 0};
    std::uint32_t m_FlagsEx = 0;               // v10+ and Black Mesa
    std::uint32_t m_Flags2013 = 0;             // lightmap layouts: the 32-bit flags
    std::uint16_t m_nLightmapResolutionX = 0;  // lightmap layouts
    std::uint16_t m_nLightmapResolutionY = 0;
    float m_flScale[3] = {1, 1, 1};  // v11/v12 store [0] only; v13 all three
    char m_TargetName[128] = {};     // v5 (The Ship)
};

struct StaticProps {
    std::uint16_t version = 0;  // the game lump version
    StaticPropLayout layout = StaticPropLayout::v5;
    // Model dictionary entries (StaticPropDictLump_t), 128 bytes each, kept whole.
    std::vector<std::array<char, 128>> dict;
    std::vector<std::uint32_t> leaves;  // StaticPropLeafLump_t (uint16 before Strata v12)
    std::vector<StaticPropLump_t> props;

    // The model path of dictionary entry `i` (up to its NUL).
    std::string_view model_name(std::size_t i) const;
};

// Parses the "sprp" game lump (an empty StaticProps if the map has none).
Result<StaticProps> static_props(const Bsp& bsp);
// Game lump bytes in `sp.layout` with the map's byte order.
Result<Bytes> encode(const Bsp& bsp, const StaticProps& sp);

struct DetailObjectLump_t {
    Vec3f m_Origin;
    Vec3f m_Angles;
    std::uint16_t m_DetailModel = 0;  // model dictionary or sprite dictionary index
    std::uint16_t m_Leaf = 0;
    ColorRGBExp32 m_Lighting;
    std::uint32_t m_LightStyles = 0;
    std::uint8_t m_LightStyleCount = 0;
    std::uint8_t m_SwayAmount = 0;
    std::uint8_t m_ShapeAngle = 0;
    std::uint8_t m_ShapeSize = 0;
    std::uint8_t m_Orientation = 0;
    std::uint8_t m_Padding2[3] = {0, 0, 0};
    std::uint8_t m_Type = 0;  // 0 model, 1 sprite, 2/3 shapes
    std::uint8_t m_Padding3[3] = {0, 0, 0};
    float m_flScale = 0;
};

struct DetailSpriteDictLump_t {
    float m_UL[2] = {0, 0};
    float m_LR[2] = {0, 0};
    float m_TexUL[2] = {0, 0};
    float m_TexLR[2] = {0, 0};
};

struct DetailProps {
    std::uint16_t version = 0;
    std::vector<std::array<char, 128>> dict;  // every version starts with the model names
    std::vector<DetailSpriteDictLump_t> sprites;
    std::vector<DetailObjectLump_t> props;
    // Versions other than 4 (no published record layout; SDK 2013 ignores older ones): the
    // bytes after the dictionary, kept as they are, and the record count they state when they
    // are a count followed by that many records of one size (before version 4 directly,
    // later after a version-4 sprite dictionary).
    Bytes rest;
    std::optional<std::size_t> rest_count;

    std::size_t count() const { return version == 4 ? props.size() : rest_count.value_or(0); }
};

// Parses the "dprp" game lump (an empty DetailProps if absent): version 4 record by record,
// other versions as the dictionary and the bytes after it.
Result<DetailProps> detail_props(const Bsp& bsp);
Result<Bytes> encode(const Bsp& bsp, const DetailProps& dp);

inline constexpr std::uint32_t kStaticPropsId = fourcc("sprp");
inline constexpr std::uint32_t kDetailPropsId = fourcc("dprp");

}  // namespace lk::bsp
