#include "levelkit/wmb/images.hpp"

#include <fmt/format.h>

#include <set>

#include "levelkit/core/file.hpp"
#include "levelkit/core/png.hpp"
#include "levelkit/core/text.hpp"

namespace lk::wmb {

namespace {

std::uint8_t expand5(unsigned v) {
    return static_cast<std::uint8_t>((v << 3) | (v >> 2));
}
std::uint8_t expand6(unsigned v) {
    return static_cast<std::uint8_t>((v << 2) | (v >> 4));
}

std::string safe_name(std::string_view name) {
    std::string out;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        out.push_back(ok ? c : '_');
    }
    if (out.empty() || out == "." || out == "..") out = "texture";
    return out;
}

}  // namespace

Result<Image> texture_image(const Views& views, std::size_t index, Diagnostics* warnings) {
    const std::string path =
        list_path(index_of(ListId::textures)) + "/texture[" + std::to_string(index) + "]";
    if (index >= views.textures.size()) {
        return Diagnostic::error("wmb.no-texture", fmt::format("no texture {}", index))
            .with_path(path);
    }
    const Texture& t = views.textures[index];
    if (t.format == PixelFormat::dds || t.format == PixelFormat::unknown) {
        return Diagnostic::error("wmb.not-a-picture",
                                 fmt::format("texture '{}' is {}, not pixels", printable(t.name),
                                             to_string(t.format)))
            .with_path(path);
    }
    Image img;
    img.width = t.width;
    img.height = t.height;
    img.channels = t.format == PixelFormat::rgba8888 ? 4 : 3;
    const std::size_t n = std::size_t{t.width} * t.height;
    const std::byte* p = t.mips[0].data();
    const std::size_t bpp = t.format == PixelFormat::pal8     ? 1
                            : t.format == PixelFormat::rgb565 ? 2
                            : t.format == PixelFormat::rgb888 ? 3
                                                              : 4;
    if (t.mips[0].size() < n * bpp) {
        return Diagnostic::error("wmb.bad-texture", "texture pixels are missing").with_path(path);
    }
    img.pixels.resize(n * img.channels);
    std::uint8_t* o = img.pixels.data();
    auto byte = [&](std::size_t i) { return std::to_integer<std::uint8_t>(p[i]); };
    switch (t.format) {
        case PixelFormat::pal8: {
            const bool have = views.palette.has_value();
            if (!have && warnings) {
                warnings->add(Diagnostic::note("wmb.no-palette",
                                               fmt::format("texture '{}' has palette indices but "
                                                           "the file has no palette; written as "
                                                           "grey levels",
                                                           printable(t.name)))
                                  .with_path(path));
            }
            for (std::size_t i = 0; i < n; ++i, o += 3) {
                const std::uint8_t c = byte(i);
                if (have) {
                    const auto& pal = views.palette->colors;
                    o[0] = pal[3u * c], o[1] = pal[3u * c + 1], o[2] = pal[3u * c + 2];
                } else {
                    o[0] = o[1] = o[2] = c;
                }
            }
            break;
        }
        case PixelFormat::rgb565:
            for (std::size_t i = 0; i < n; ++i, o += 3) {
                const unsigned v = load<std::uint16_t>(p + 2 * i, Endian::little);
                o[0] = expand5((v >> 11) & 31u);
                o[1] = expand6((v >> 5) & 63u);
                o[2] = expand5(v & 31u);
            }
            break;
        case PixelFormat::rgb888:
            for (std::size_t i = 0; i < n; ++i, o += 3) {
                o[0] = byte(3 * i + 2), o[1] = byte(3 * i + 1), o[2] = byte(3 * i);
            }
            break;
        case PixelFormat::rgba8888:
            for (std::size_t i = 0; i < n; ++i, o += 4) {
                o[0] = byte(4 * i + 2), o[1] = byte(4 * i + 1), o[2] = byte(4 * i);
                o[3] = byte(4 * i + 3);
            }
            break;
        default:
            break;
    }
    return img;
}

Image lightmap_image(const Lightmap& lm) {
    Image img;
    img.width = lm.width;
    img.height = lm.height;
    img.channels = 3;
    const std::size_t n = std::min(std::size_t{lm.width} * lm.height, lm.pixels.size() / 3);
    img.pixels.resize(std::size_t{lm.width} * lm.height * 3);
    for (std::size_t i = 0; i < n; ++i) {
        img.pixels[3 * i] = std::to_integer<std::uint8_t>(lm.pixels[3 * i + 2]);
        img.pixels[3 * i + 1] = std::to_integer<std::uint8_t>(lm.pixels[3 * i + 1]);
        img.pixels[3 * i + 2] = std::to_integer<std::uint8_t>(lm.pixels[3 * i]);
    }
    return img;
}

Result<Bytes> encode_png(const Image& img) {
    // libspng's defaults: zlib level 6, adaptive row filters (textures are not flat colour).
    return lk::encode_png(img.pixels, img.width, img.height, img.channels);
}

Result<ExportReport> export_images(const File& file, const std::filesystem::path& dir,
                                   Diagnostics& warnings) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        return Diagnostic::error("io.mkdir",
                                 fmt::format("cannot create {}: {}", dir.string(), ec.message()))
            .in_file(dir.string());
    }
    ExportReport rep;
    std::set<std::string> used;
    auto write = [&](const std::string& name, ByteSpan data) -> Result<void> {
        const std::filesystem::path p = dir / name;
        LK_TRY(write_file_atomic(p, data));
        rep.files.push_back(p);
        return success();
    };
    const Views& v = file.views;
    for (std::size_t i = 0; i < v.textures.size(); ++i) {
        const Texture& t = v.textures[i];
        std::string base = safe_name(t.name);
        const std::string ext = t.format == PixelFormat::dds ? ".dds" : ".png";
        if (!used.insert(to_lower(base + ext)).second) {
            base += "_" + std::to_string(i);
            used.insert(to_lower(base + ext));
        }
        if (t.format == PixelFormat::dds) {
            LK_TRY(write(base + ext, t.mips[0]));
            ++rep.dds;
            continue;
        }
        auto img = texture_image(v, i, &warnings);
        if (!img) {
            ++rep.skipped;
            Diagnostic d = std::move(img).error();
            d.severity = Severity::warning;
            warnings.add(std::move(d));
            continue;
        }
        LK_TRY_ASSIGN(Bytes png, encode_png(*img));
        LK_TRY(write(base + ext, png));
        ++rep.textures;
    }
    for (std::size_t i = 0; i < v.lightmaps.size(); ++i) {
        LK_TRY_ASSIGN(Bytes png, encode_png(lightmap_image(v.lightmaps[i])));
        LK_TRY(write(fmt::format("lightmap_{}.png", i), png));
        ++rep.lightmaps;
    }
    for (std::size_t i = 0; i < v.terrain_lightmaps.size(); ++i) {
        const Lightmap& lm = v.terrain_lightmaps[i];
        if (lm.width == 0 || lm.height == 0) continue;
        LK_TRY_ASSIGN(Bytes png, encode_png(lightmap_image(lm)));
        LK_TRY(write(fmt::format("terrain_lightmap_{}.png", i), png));
        ++rep.terrain_lightmaps;
    }
    return rep;
}

}  // namespace lk::wmb
