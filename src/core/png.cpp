// PNG encoding through libspng, in memory.
#include "levelkit/core/png.hpp"

#include <fmt/format.h>
#include <spng.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace lk {

Result<Bytes> encode_png(std::span<const std::uint8_t> pixels, std::uint32_t width,
                         std::uint32_t height, unsigned channels, const PngSettings& settings) {
    const std::size_t row = std::size_t{channels} * width;
    if (width == 0 || height == 0 || (channels != 3 && channels != 4) || pixels.size() % row != 0 ||
        pixels.size() / row != height) {
        return Diagnostic::error("png.bad-image",
                                 fmt::format("cannot encode a {}x{} image with {} channels and "
                                             "{} bytes",
                                             width, height, channels, pixels.size()));
    }
    std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(SPNG_CTX_ENCODER),
                                                       spng_ctx_free);
    if (!ctx) return Diagnostic::error("png.encode", "libspng could not start an encoder");
    spng_ihdr ihdr{};
    ihdr.width = width;
    ihdr.height = height;
    ihdr.bit_depth = 8;
    ihdr.color_type = channels == 4 ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA : SPNG_COLOR_TYPE_TRUECOLOR;
    int err = spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1);
    if (!err) err = spng_set_option(ctx.get(), SPNG_IMG_COMPRESSION_LEVEL, settings.level);
    if (!err) {
        err = spng_set_option(ctx.get(), SPNG_FILTER_CHOICE,
                              settings.filtered ? SPNG_FILTER_CHOICE_ALL : SPNG_DISABLE_FILTERING);
    }
    if (!err) err = spng_set_ihdr(ctx.get(), &ihdr);
    if (!err) {
        err = spng_encode_image(ctx.get(), pixels.data(), pixels.size(), SPNG_FMT_PNG,
                                SPNG_ENCODE_FINALIZE);
    }
    std::size_t size = 0;
    void* buf = err ? nullptr : spng_get_png_buffer(ctx.get(), &size, &err);
    if (!buf || err) {
        std::free(buf);
        return Diagnostic::error("png.encode", std::string("libspng: ") + spng_strerror(err));
    }
    const auto* b = static_cast<const std::byte*>(buf);
    Bytes out(b, b + size);
    std::free(buf);
    return out;
}

}  // namespace lk
