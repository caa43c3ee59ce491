// Fuzz target: the pakfile ZIP reader, entry decompression (stored/deflate/LZMA) and writer.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "levelkit/bsp/pak.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace lk;
    auto pak =
        bsp::Pak::parse(Blob::copy_of(ByteSpan(reinterpret_cast<const std::byte*>(data), size)));
    if (!pak) return 0;
    for (const bsp::PakEntry& e : pak->entries()) {
        // Entries claiming more than 16 MiB are skipped to keep runs fast; the decoders
        // themselves only allocate what the data really expands to.
        if (e.size() <= (16u << 20)) (void)bsp::Pak::contents(e);
    }
    auto out = pak->write();
    if (out) {
        // An unchanged archive writes back byte-identical.
        if (out->size() != size || std::memcmp(out->data(), data, size) != 0) __builtin_trap();
        auto again = bsp::Pak::parse(Blob::from_bytes(std::move(out).value()));
        if (!again) __builtin_trap();
    }
    return 0;
}
