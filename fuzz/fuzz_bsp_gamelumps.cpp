// Fuzz target: the game lump directory and the static/detail prop parsers. The input becomes
// lump 35 of a minimal map; its first two bytes choose the byte order and BSP version.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/props.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace lk;
    if (size < 2) return 0;
    const Endian e = (data[0] & 1) ? Endian::big : Endian::little;
    const std::int32_t versions[] = {17, 19, 20, 21, 23, 25, 42, 43};
    const std::int32_t version = versions[data[1] % 8];
    const ByteSpan body(reinterpret_cast<const std::byte*>(data + 2), size - 2);
    constexpr std::size_t kHeader = 1036;
    ByteWriter w(e);
    w.text(e == Endian::big ? "PSBV" : "VBSP");
    w.i32(version);
    for (int i = 0; i < 64; ++i) {
        w.i32(i == 35 ? static_cast<std::int32_t>(kHeader) : 0);
        w.i32(i == 35 ? static_cast<std::int32_t>(body.size()) : 0);
        w.i32(0);
        w.u32(0);
    }
    w.i32(0);
    w.bytes(body);
    bsp::ReadOptions opt;
    opt.max_decompressed = std::size_t{16} << 20;
    auto map = bsp::Bsp::read(Blob::from_bytes(w.take()), nullptr, opt);
    if (!map) return 0;
    if (auto sp = bsp::static_props(*map)) {
        if (!bsp::encode(*map, *sp)) return 0;
    }
    if (auto dp = bsp::detail_props(*map)) {
        // Detail props are kept whole: what was read writes back byte for byte.
        auto bytes = bsp::encode(*map, *dp);
        const bsp::GameLump* g = map->find_game_lump(bsp::kDetailPropsId);
        if (!bytes ||
            (g && !std::equal(bytes->begin(), bytes->end(), g->bytes().begin(), g->bytes().end())))
            __builtin_trap();
    }
    (void)map->write();
    return 0;
}
