// Embedded textures and lightmaps of a WMB as pictures (PNG through Debian's libspng).
//
// Pixel formats (views.hpp): 8-bit palette indices take the colours of the file's palette list
// (grey levels when the file has none, reported); 16-bit textures are RGB565; 24/32-bit
// textures and lightmaps are stored B, G, R(, A) as Direct3D keeps them (inferred). DDS
// textures are embedded DDS files and are exported as they are.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/wmb/wmb.hpp"

namespace lk::wmb {

struct Image {
    std::uint32_t width = 0, height = 0;
    std::uint32_t channels = 3;        // 3 (RGB) or 4 (RGBA)
    std::vector<std::uint8_t> pixels;  // row-major, top row first
};

// Mip level 0 of texture `index` as RGB(A). Errors for DDS and unknown formats (whose bytes
// are not pictures) and for indices out of range. `warnings` gets a note when a palette
// texture has no palette to take its colours from.
Result<Image> texture_image(const Views& views, std::size_t index, Diagnostics* warnings = nullptr);
Image lightmap_image(const Lightmap& lm);

// A PNG file of `img` (deterministic: same pixels, same bytes).
Result<Bytes> encode_png(const Image& img);

struct ExportReport {
    std::vector<std::filesystem::path> files;  // in the order written
    std::size_t textures = 0, dds = 0, lightmaps = 0, terrain_lightmaps = 0;
    std::size_t skipped = 0;  // textures in unknown formats
};

// Writes every texture as `<name>.png` (`<name>.dds` for DDS textures), every lightmap page
// as `lightmap_<n>.png` and every terrain lightmap as `terrain_lightmap_<n>.png` into `dir`
// (created if missing), each atomically. Texture names are made safe for file systems
// (characters outside [A-Za-z0-9._-] become '_'); repeated names get `_<index>` appended.
Result<ExportReport> export_images(const File& file, const std::filesystem::path& dir,
                                   Diagnostics& warnings);

}  // namespace lk::wmb
