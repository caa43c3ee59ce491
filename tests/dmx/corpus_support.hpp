// The DMX files of the shared corpus: everything under corpus/dmx that carries a DMX header
// (maps, models, particles, textures, text exports) and the .dmx / .dmx.gz models.
#pragma once

#include <filesystem>
#include <vector>

#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"
#include "support/corpus.hpp"

namespace lk::test {

inline std::vector<std::filesystem::path> dmx_corpus_files() {
    std::vector<std::filesystem::path> out;
    for (auto& p : corpus_files("dmx", {".dmx", ".vmap", ".pcf", ".txt", ".vtex", ".dmx.gz"})) {
        out.push_back(p);
    }
    for (auto& p : corpus_files("model", {".dmx", ".dmx.gz"})) out.push_back(p);
    return out;
}

}  // namespace lk::test
