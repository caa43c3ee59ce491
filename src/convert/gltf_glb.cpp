#include "gltf_glb.hpp"

#include <cstdint>
#include <cstring>

namespace lk::convert::detail {

Bytes pack_glb(std::string json, Bytes bin) {
    while (json.size() % 4) json.push_back(' ');
    while (bin.size() % 4) bin.push_back(std::byte{0});
    const std::size_t total = 12 + 8 + json.size() + (bin.empty() ? 0 : 8 + bin.size());
    Bytes g(total);
    std::size_t at = 0;
    auto u32 = [&](std::uint32_t v) {
        for (int i = 0; i < 4; ++i) g[at++] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
    };
    u32(0x46546C67);  // "glTF"
    u32(2);
    u32(static_cast<std::uint32_t>(total));
    u32(static_cast<std::uint32_t>(json.size()));
    u32(0x4E4F534A);  // "JSON"
    std::memcpy(g.data() + at, json.data(), json.size());
    at += json.size();
    if (!bin.empty()) {
        u32(static_cast<std::uint32_t>(bin.size()));
        u32(0x004E4942);  // "BIN\0"
        std::memcpy(g.data() + at, bin.data(), bin.size());
    }
    return g;
}

}  // namespace lk::convert::detail
