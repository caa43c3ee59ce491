// PNG encoding (through Debian's libspng) shared by the picture writer and the WMB texture
// export: 8-bit RGB or RGBA pixels in memory to the bytes of a PNG file, with no time, text or
// gamma chunks, so the same pixels always give the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/result.hpp"

namespace lk {

struct PngSettings {
    int level = 6;         // zlib level, 0-9
    bool filtered = true;  // adaptive row filters (libspng's choice per row); false: none
};

// `pixels`: `height` rows of `width` pixels, top row first, `channels` (3: RGB, 4: RGBA) bytes
// each. Errors (`png.bad-image`) for an empty image, another channel count or a size that
// does not match, and (`png.encode`) for what libspng reports.
Result<Bytes> encode_png(std::span<const std::uint8_t> pixels, std::uint32_t width,
                         std::uint32_t height, unsigned channels, const PngSettings& settings = {});

}  // namespace lk
