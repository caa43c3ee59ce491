// Fuzz target: the BSP header, lump table and layout, LZMA lumps, game lump directory, every
// typed view (via validate) and the writer.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace lk;
    bsp::ReadOptions opt;
    opt.max_decompressed = std::size_t{16} << 20;
    auto map = bsp::Bsp::read(
        Blob::copy_of(ByteSpan(reinterpret_cast<const std::byte*>(data), size)), nullptr, opt);
    if (!map) return 0;
    Diagnostics diags;
    bsp::validate(*map, diags);
    // Strata's overlay lump version 3 is kept whole: what was read writes back byte for byte.
    if (auto so = bsp::strata_overlays(*map)) {
        const ByteSpan lump = map->lump(bsp::LumpId::overlays).bytes();
        auto bytes = bsp::encode(*map, *so);
        if (!so->overlays.empty() || !so->faces.empty()) {
            if (!bytes || !std::equal(bytes->begin(), bytes->end(), lump.begin(), lump.end()))
                __builtin_trap();
        }
    }
    auto out = map->write();
    if (out) {
        // What we write must read back.
        auto again = bsp::Bsp::read(Blob::from_bytes(std::move(out).value()), nullptr, opt);
        if (!again) __builtin_trap();
    }
    return 0;
}
