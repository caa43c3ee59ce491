// WMPB reader: no input may crash it, whatever reads must write back to exactly the input
// bytes, and resolving or converting the level to text must not crash.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "levelkit/core/file.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const lk::ByteSpan bytes(reinterpret_cast<const std::byte*>(data), size);
    auto lv = lk::wmp::read_wmpb(lk::Blob::copy_of(bytes));
    if (!lv) return 0;
    auto out = lk::wmp::write_wmpb(lv.value());
    if (!out || out->size() != size || std::memcmp(out->data(), data, size) != 0) std::abort();
    lk::Diagnostics d;
    lk::wmp::validate(lv.value(), d);
    (void)lk::wmp::resolve(lv.value());
    if (auto text = lk::wmp::convert(lv.value(), lk::wmp::Dialect::wmp2_a6)) {
        (void)lk::wmp::write_text(text.value());
    }
    return 0;
}
