// PNG output through libspng (the encoder WMB textures use too), in memory.
#include <spng.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "levelkit/render/render.hpp"

namespace lk::render {

namespace {

Result<Bytes> encode(const Image& image, int level, int filters) {
    if (image.width <= 0 || image.height <= 0 ||
        image.rgb.size() != std::size_t(image.width) * std::size_t(image.height) * 3) {
        return Diagnostic::error("png.bad-image", "the image has no pixels or the wrong size");
    }
    std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(SPNG_CTX_ENCODER),
                                                       spng_ctx_free);
    if (!ctx) return Diagnostic::error("png.write", "libspng could not start an encoder");
    const auto failed = [](int err) {
        return Diagnostic::error("png.write", std::string("libspng: ") + spng_strerror(err));
    };
    spng_ihdr ihdr{};
    ihdr.width = static_cast<std::uint32_t>(image.width);
    ihdr.height = static_cast<std::uint32_t>(image.height);
    ihdr.bit_depth = 8;
    ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR;
    int err = spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
    if (!err) err = spng_set_option(ctx.get(), SPNG_IMG_COMPRESSION_LEVEL, level);
    if (!err) err = spng_set_option(ctx.get(), SPNG_FILTER_CHOICE, filters);
    if (!err) err = spng_set_ihdr(ctx.get(), &ihdr);
    if (!err) {
        err = spng_encode_image(ctx.get(), image.rgb.data(), image.rgb.size(), SPNG_FMT_PNG,
                                SPNG_ENCODE_FINALIZE);
    }
    if (err) return failed(err);
    std::size_t size = 0;
    void* buf = spng_get_png_buffer(ctx.get(), &size, &err);
    if (!buf || err) return failed(err);
    const auto* b = static_cast<const std::byte*>(buf);
    Bytes out(b, b + size);
    std::free(buf);
    return out;
}

}  // namespace

Result<Bytes> encode_png(const Image& image, bool smallest) {
    // Pictures are mostly flat colour: unfiltered rows at zlib's default level compress about as
    // well as adaptive filters (often better) in a third of the time. `smallest` (for files kept
    // in a repository) takes the smaller of both at the highest level.
    if (!smallest) return encode(image, 6, SPNG_DISABLE_FILTERING);
    auto a = encode(image, 9, SPNG_DISABLE_FILTERING);
    if (!a) return a;
    auto b = encode(image, 9, SPNG_FILTER_CHOICE_ALL);
    if (b && b->size() < a->size()) return b;
    return a;
}

}  // namespace lk::render
