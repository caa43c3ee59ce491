// WMP2 text, `$$M` and A3 readers: no input may crash them, whatever reads must write back to
// exactly the input bytes, the lexer's record runs must read what its general path reads (the
// same error, or the same level to the bit with every token at the same place), and resolution
// / conversion of a read level must not crash.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "../tests/wmp/runs_compare.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"

namespace {

void same_or_abort(const lk::Result<std::string>& out, const std::uint8_t* data, std::size_t size) {
    if (!out || out->size() != size || (size && std::memcmp(out->data(), data, size) != 0)) {
        std::abort();
    }
}

// The same text read with the record runs off: what `read` gave, or the same error.
template <class Read>
void same_without_runs(const lk::Result<lk::wmp::Level>& got, Read read) {
    const auto general = read({.record_runs = false});
    if (got.ok() != general.ok()) std::abort();
    if (!got.ok()) {
        if (got.error().to_string() != general.error().to_string()) std::abort();
        return;
    }
    if (!lk::wmp::test::runs_difference(got.value(), general.value(), true).empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const lk::ByteSpan bytes(reinterpret_cast<const std::byte*>(data), size);
    const auto wmp2 = [&](const lk::wmp::ReadOptions& o) {
        return lk::wmp::read_wmp2(lk::Blob::copy_of(bytes), nullptr, o);
    };
    const auto mm = [&](const lk::wmp::ReadOptions& o) {
        return lk::wmp::read_mm(lk::Blob::copy_of(bytes), nullptr, o);
    };
    if (const auto lv = wmp2({}); same_without_runs(lv, wmp2), lv.ok()) {
        same_or_abort(lk::wmp::write_text(lv.value()), data, size);
        lk::Diagnostics d;
        lk::wmp::validate(lv.value(), d);
        (void)lk::wmp::resolve(lv.value());
        if (auto bin = lk::wmp::convert(lv.value(), lk::wmp::Dialect::wmpb)) {
            (void)lk::wmp::write_wmpb(bin.value());
        }
    }
    if (const auto lv = mm({}); same_without_runs(lv, mm), lv.ok()) {
        same_or_abort(lk::wmp::write_text(lv.value()), data, size);
    }
    if (auto a3 = lk::wmp::read_a3(lk::Blob::copy_of(bytes))) {
        same_or_abort(lk::wmp::write_a3(a3.value()), data, size);
    }
    return 0;
}
