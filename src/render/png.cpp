// PNG output through libpng, in memory.
#include <png.h>

#include <csetjmp>
#include <cstring>

#include "levelkit/render/render.hpp"

namespace lk::render {

namespace {

void append(png_structp png, png_bytep data, png_size_t n) {
    auto* out = static_cast<Bytes*>(png_get_io_ptr(png));
    const auto* p = reinterpret_cast<const std::byte*>(data);
    out->insert(out->end(), p, p + n);
}

void flush(png_structp) {}

}  // namespace

namespace {

Result<Bytes> encode(const Image& image, int level, int filters) {
    if (image.width <= 0 || image.height <= 0 ||
        image.rgb.size() != std::size_t(image.width) * std::size_t(image.height) * 3) {
        return Diagnostic::error("png.bad-image", "the image has no pixels or the wrong size");
    }
    Bytes out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    if (!png) return Diagnostic::error("png.write", "libpng could not start");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        return Diagnostic::error("png.write", "libpng could not start");
    }
    // libpng reports errors by longjmp; nothing with a destructor lives between here and the
    // calls that may jump, except `out`, which was constructed before setjmp.
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return Diagnostic::error("png.write", "libpng failed to encode the image");
    }
    png_set_write_fn(png, &out, append, flush);
    png_set_IHDR(png, info, png_uint_32(image.width), png_uint_32(image.height), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_set_filter(png, 0, filters);
    png_write_info(png, info);
    for (int y = 0; y < image.height; ++y) {
        png_write_row(png,
                      const_cast<png_bytep>(image.rgb.data() + std::size_t(y) * image.width * 3));
    }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

}  // namespace

Result<Bytes> encode_png(const Image& image, bool smallest) {
    // Pictures are mostly flat colour: unfiltered rows at zlib's default level compress about as
    // well as libpng's adaptive filters (often better) in a third of the time. `smallest` (for
    // files kept in a repository) takes the smaller of both at the highest level.
    if (!smallest) return encode(image, 6, PNG_FILTER_NONE);
    auto a = encode(image, 9, PNG_FILTER_NONE);
    if (!a) return a;
    auto b = encode(image, 9, PNG_ALL_FILTERS);
    if (b && b->size() < a->size()) return b;
    return a;
}

}  // namespace lk::render
