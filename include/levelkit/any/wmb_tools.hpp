// Format-erased tools for compiled Gamestudio levels (WMB): the `levelkit wmb` commands and the
// Python package.
#pragma once

#include <filesystem>
#include <vector>

#include "levelkit/any/document.hpp"

namespace lk {

struct WmbImagesReport {
    std::vector<std::filesystem::path> files;  // in the order written
    std::size_t textures = 0, dds = 0, lightmaps = 0, terrain_lightmaps = 0, skipped = 0;
};

// Writes a WMB's embedded textures (`<name>.png`, DDS textures as `<name>.dds`) and lightmaps
// (`lightmap_<n>.png`) into `dir`, each atomically. "usage.not-wmb" for other documents.
Result<WmbImagesReport> wmb_export_images(const Document& level, const std::filesystem::path& dir,
                                          Diagnostics& warnings);

}  // namespace lk
