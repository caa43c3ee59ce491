// Fuzz target: the header readers behind texture sizes (VTF, PCX, BMP, TGA, WAD2/WAD3
// directories, VMT text) on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "levelkit/convert/texture_sizes.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace lk;
    const ByteSpan bytes(reinterpret_cast<const std::byte*>(data), size);
    for (auto read : {convert::vtf_size, convert::pcx_size, convert::bmp_size, convert::tga_size}) {
        if (auto s = read(bytes); s && ((*s)[0] <= 0 || (*s)[1] <= 0)) __builtin_trap();
    }
    if (auto list = convert::wad_textures(bytes)) {
        for (const auto& t : *list) {
            if (t.name.size() > 16 || t.size[0] <= 0 || t.size[1] <= 0) __builtin_trap();
        }
    }
    (void)convert::parse_vmt(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
