// Fuzz target for the keyvalues2 reader. Accepted text must write back byte-identical, and its
// conversion to binary must re-read.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "levelkit/dmx/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const lk::ByteSpan in(reinterpret_cast<const std::byte*>(data), size);
    auto doc = lk::dmx::read(in);
    if (!doc || !doc->header.is_kv2() || doc->container.gzip) return 0;
    auto out = lk::dmx::write(doc.value());
    if (!out || out->size() != size || std::memcmp(out->data(), data, size) != 0) std::abort();
    lk::dmx::Document bin = doc->clone();
    if (lk::dmx::convert(bin, {"binary", 9}).ok()) {
        auto bytes = lk::dmx::write(bin);
        if (bytes && !lk::dmx::read(bytes.value())) std::abort();
    }
    return 0;
}
