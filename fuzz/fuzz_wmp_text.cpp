// WMP2 text, `$$M` and A3 readers: no input may crash them, whatever reads must write back to
// exactly the input bytes, and resolution / conversion of a read level must not crash.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "levelkit/core/file.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"

namespace {

void same_or_abort(const lk::Result<std::string>& out, const std::uint8_t* data, std::size_t size) {
    if (!out || out->size() != size || (size && std::memcmp(out->data(), data, size) != 0)) {
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const lk::ByteSpan bytes(reinterpret_cast<const std::byte*>(data), size);
    if (auto lv = lk::wmp::read_wmp2(lk::Blob::copy_of(bytes))) {
        same_or_abort(lk::wmp::write_text(lv.value()), data, size);
        lk::Diagnostics d;
        lk::wmp::validate(lv.value(), d);
        (void)lk::wmp::resolve(lv.value());
        if (auto bin = lk::wmp::convert(lv.value(), lk::wmp::Dialect::wmpb)) {
            (void)lk::wmp::write_wmpb(bin.value());
        }
    }
    if (auto lv = lk::wmp::read_mm(lk::Blob::copy_of(bytes))) {
        same_or_abort(lk::wmp::write_text(lv.value()), data, size);
    }
    if (auto a3 = lk::wmp::read_a3(lk::Blob::copy_of(bytes))) {
        same_or_abort(lk::wmp::write_a3(a3.value()), data, size);
    }
    return 0;
}
