// core's PNG encoder: what it writes decodes (with libspng's decoder) to the pixels it was
// given, for RGB and RGBA, filtered or not; the same pixels give the same bytes; bad images
// are errors, never a file.
#include <gtest/gtest.h>
#include <spng.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "levelkit/core/png.hpp"

namespace {

struct Decoded {
    std::uint32_t width = 0, height = 0;
    std::uint8_t color_type = 0;
    std::vector<std::uint8_t> pixels;
};

Decoded decode(const lk::Bytes& png, bool alpha) {
    Decoded d;
    std::unique_ptr<spng_ctx, void (*)(spng_ctx*)> ctx(spng_ctx_new(0), spng_ctx_free);
    EXPECT_EQ(spng_set_png_buffer(ctx.get(), png.data(), png.size()), 0);
    spng_ihdr ihdr{};
    EXPECT_EQ(spng_get_ihdr(ctx.get(), &ihdr), 0);
    d.width = ihdr.width;
    d.height = ihdr.height;
    d.color_type = ihdr.color_type;
    const int fmt = alpha ? SPNG_FMT_RGBA8 : SPNG_FMT_RGB8;
    std::size_t size = 0;
    EXPECT_EQ(spng_decoded_image_size(ctx.get(), fmt, &size), 0);
    d.pixels.resize(size);
    EXPECT_EQ(spng_decode_image(ctx.get(), d.pixels.data(), size, fmt, 0), 0);
    return d;
}

std::vector<std::uint8_t> gradient(std::uint32_t w, std::uint32_t h, unsigned channels) {
    std::vector<std::uint8_t> px(std::size_t{w} * h * channels);
    for (std::size_t i = 0; i < px.size(); ++i) px[i] = static_cast<std::uint8_t>(i * 7 + i / 13);
    return px;
}

}  // namespace

TEST(Png, WhatIsWrittenDecodesToThePixelsGiven) {
    for (unsigned channels : {3u, 4u}) {
        for (bool filtered : {false, true}) {
            for (int level : {0, 6, 9}) {
                const auto px = gradient(37, 11, channels);
                auto png = lk::encode_png(px, 37, 11, channels, {level, filtered});
                ASSERT_TRUE(png) << png.error().message;
                const Decoded d = decode(*png, channels == 4);
                EXPECT_EQ(d.width, 37u);
                EXPECT_EQ(d.height, 11u);
                EXPECT_EQ(d.color_type, channels == 4 ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA
                                                      : SPNG_COLOR_TYPE_TRUECOLOR);
                EXPECT_EQ(d.pixels, px) << channels << " channels, level " << level;
                auto again = lk::encode_png(px, 37, 11, channels, {level, filtered});
                ASSERT_TRUE(again);
                EXPECT_EQ(*again, *png);
            }
        }
    }
}

TEST(Png, SettingsChangeTheBytesNotThePixels) {
    const auto px = gradient(64, 64, 3);
    auto plain = lk::encode_png(px, 64, 64, 3, {0, false});
    auto packed = lk::encode_png(px, 64, 64, 3, {9, true});
    ASSERT_TRUE(plain);
    ASSERT_TRUE(packed);
    EXPECT_LT(packed->size(), plain->size());
    EXPECT_EQ(decode(*packed, false).pixels, decode(*plain, false).pixels);
}

TEST(Png, BadImagesAreErrors) {
    const std::vector<std::uint8_t> px(16);
    struct Case {
        std::uint32_t w, h;
        unsigned channels;
        std::size_t bytes;
    };
    for (const Case c :
         {Case{0, 1, 3, 0}, Case{1, 0, 3, 0}, Case{2, 2, 2, 8}, Case{2, 2, 3, 11},
          Case{2, 2, 3, 13}, Case{2, 1, 4, 12}, Case{0xFFFFFFFF, 0xFFFFFFFF, 4, 12}}) {
        auto png =
            lk::encode_png(std::span(px).first(std::min(c.bytes, px.size())), c.w, c.h, c.channels);
        ASSERT_FALSE(png) << c.w << "x" << c.h;
        EXPECT_EQ(png.error().code, "png.bad-image");
    }
    // A zlib level out of range is libspng's to refuse.
    auto png = lk::encode_png(std::span(px).first(12), 2, 2, 3, {42, false});
    ASSERT_FALSE(png);
    EXPECT_EQ(png.error().code, "png.encode");
}
