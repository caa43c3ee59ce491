// Fuzz target for the binary DMX reader (any version, gzip included). Input the reader accepts
// must write back byte-identical: the lossless guarantee is checked, not just "no crash".
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "levelkit/dmx/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const lk::ByteSpan in(reinterpret_cast<const std::byte*>(data), size);
    auto doc = lk::dmx::read(in);
    if (!doc || !doc->header.is_binary()) return 0;
    auto out = lk::dmx::write(doc.value());
    if (!out || out->size() != size || std::memcmp(out->data(), data, size) != 0) std::abort();
    (void)lk::dmx::dump_text(doc.value());
    return 0;
}
