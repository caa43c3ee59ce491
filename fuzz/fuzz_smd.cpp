// SMD/VTA reading: no crash on any input; what reads writes back (shortest number spelling) and
// reads again to the same content; the neutral model made from it is consistent and converts
// back to SMD.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "levelkit/convert/smd_model.hpp"
#include "levelkit/smd/smd.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    lk::Diagnostics w;
    auto f = lk::smd::read(text, w);
    if (!f) {
        if (!f.error().has_line()) std::abort();
        return 0;
    }
    lk::smd::WriteOptions exact;
    exact.decimals = -1;
    auto again = lk::smd::read(lk::smd::write(*f, exact), w);
    if (!again || !lk::smd::same_content(*f, *again)) std::abort();
    auto m = lk::convert::smd_to_model(*f, f->has_vertex_animation ? &*f : nullptr, w);
    if (!m) return 0;
    if (!lk::model::check(*m).empty()) std::abort();
    // Frame numbers far apart make a clip too long to write every frame of: that, and only
    // that, may fail. The sampling is the same code at every length; a bound far below the
    // library's (2^22 node-frames, seconds of work under ASan) keeps every input cheap.
    lk::convert::ModelToSmdOptions opt;
    opt.max_node_frames = std::uint64_t{1} << 16;
    auto out = lk::convert::model_to_smd(*m, w, opt);
    if (!out) {
        if (out.error().code != "model.clip-too-long") std::abort();
        return 0;
    }
    for (const auto& o : *out) (void)lk::smd::write(o.file);
    return 0;
}
