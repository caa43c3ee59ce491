// KeyValues tokenizer/parser in every dialect: parse must not crash, and whatever parses must
// write back to exactly the input bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "levelkit/kv/keyvalues.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (int mode = 0; mode < 3; ++mode) {
        lk::kv::ParseOptions opt =
            mode == 0 ? lk::kv::ParseOptions::vmf() : lk::kv::ParseOptions::keyvalues();
        opt.escapes = mode == 2;
        lk::Diagnostics warnings;
        auto doc = lk::kv::Document::parse(text, opt, &warnings);
        if (!doc) continue;
        if (doc->write() != text) std::abort();
        (void)doc->evaluated({"WIN32"});
    }
    return 0;
}
