// A picture as PNG bytes (the encoder is core's, shared with the WMB texture export).
#include "levelkit/core/png.hpp"
#include "levelkit/render/render.hpp"

namespace lk::render {

Result<Bytes> encode_png(const Image& image, bool smallest) {
    if (image.width <= 0 || image.height <= 0) {
        return Diagnostic::error("png.bad-image", "the image has no pixels");
    }
    const auto w = static_cast<std::uint32_t>(image.width);
    const auto h = static_cast<std::uint32_t>(image.height);
    // Pictures are mostly flat colour: unfiltered rows at zlib's default level compress about as
    // well as adaptive filters (often better) in a third of the time. `smallest` (for files kept
    // in a repository) takes the smaller of both at the highest level.
    if (!smallest) return lk::encode_png(image.rgb, w, h, 3, {.level = 6, .filtered = false});
    auto a = lk::encode_png(image.rgb, w, h, 3, {.level = 9, .filtered = false});
    if (!a) return a;
    auto b = lk::encode_png(image.rgb, w, h, 3, {.level = 9, .filtered = true});
    if (b && b->size() < a->size()) return b;
    return a;
}

}  // namespace lk::render
