// Brush contents (dbrush_t::contents, dleaf_t::contents) and surface flags (texinfo_t::flags),
// with the values of the Source SDK's bspflags.h. Engine branches add bits of their own above
// these; readers keep every bit and only test the ones named here.
#pragma once

#include <cstdint>

namespace lk::bsp {

namespace contents {
inline constexpr std::int32_t empty = 0;
inline constexpr std::int32_t solid = 0x1;
inline constexpr std::int32_t window = 0x2;
inline constexpr std::int32_t aux = 0x4;
inline constexpr std::int32_t grate = 0x8;
inline constexpr std::int32_t slime = 0x10;
inline constexpr std::int32_t water = 0x20;
inline constexpr std::int32_t blocklos = 0x40;
inline constexpr std::int32_t opaque = 0x80;
inline constexpr std::int32_t testfogvolume = 0x100;
inline constexpr std::int32_t team1 = 0x800;
inline constexpr std::int32_t team2 = 0x1000;
inline constexpr std::int32_t ignore_nodraw_opaque = 0x2000;
inline constexpr std::int32_t moveable = 0x4000;
inline constexpr std::int32_t areaportal = 0x8000;
inline constexpr std::int32_t playerclip = 0x10000;
inline constexpr std::int32_t monsterclip = 0x20000;
inline constexpr std::int32_t current_0 = 0x40000;
inline constexpr std::int32_t current_90 = 0x80000;
inline constexpr std::int32_t current_180 = 0x100000;
inline constexpr std::int32_t current_270 = 0x200000;
inline constexpr std::int32_t current_up = 0x400000;
inline constexpr std::int32_t current_down = 0x800000;
inline constexpr std::int32_t origin = 0x1000000;  // removed by vbsp; never in a written map
inline constexpr std::int32_t monster = 0x2000000;
inline constexpr std::int32_t debris = 0x4000000;
inline constexpr std::int32_t detail = 0x8000000;        // func_detail and non-solid tool brushes
inline constexpr std::int32_t translucent = 0x10000000;  // some side's material is translucent
inline constexpr std::int32_t ladder = 0x20000000;
inline constexpr std::int32_t hitbox = 0x40000000;
}  // namespace contents

namespace surf {
inline constexpr std::int32_t light = 0x1;
inline constexpr std::int32_t sky2d = 0x2;
inline constexpr std::int32_t sky = 0x4;
inline constexpr std::int32_t warp = 0x8;
inline constexpr std::int32_t trans = 0x10;
inline constexpr std::int32_t noportal = 0x20;
inline constexpr std::int32_t trigger = 0x40;
inline constexpr std::int32_t nodraw = 0x80;
inline constexpr std::int32_t hint = 0x100;
inline constexpr std::int32_t skip = 0x200;
inline constexpr std::int32_t nolight = 0x400;
inline constexpr std::int32_t bumplight = 0x800;
inline constexpr std::int32_t noshadows = 0x1000;
inline constexpr std::int32_t nodecals = 0x2000;
inline constexpr std::int32_t nochop = 0x4000;
inline constexpr std::int32_t hitbox = 0x8000;
}  // namespace surf

}  // namespace lk::bsp
