// Texture sizes from a game's material files, so texture coordinates can be divided by the
// real number of texels per repeat (a VMF, a VMAP or a WMP level does not store them; a BSP's
// texdata does).
//
// Source 1: material "brick/wall01" -> <dir>/brick/wall01.vmt (or <dir>/materials/...), whose
// $basetexture names a VTF; the VTF header holds the width and height. A patch material
// (shader "patch") is followed through its "include". Without a $basetexture, a VTF of the
// material's own name is tried.
// Gamestudio: a texture name is looked up in the WAD2/WAD3 texture archives in <dir> (miptex
// headers) and as a loose image <dir>/<name>.{pcx,bmp,tga} (image headers).
// File names are matched case-insensitively (map files spell names in any case; a game's
// folders on Linux are usually lower case). Only headers are read.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/bytes.hpp"

namespace lk::convert {

// Width and height from an image or texture header; nullopt when the bytes are not one or the
// size is 0 or above 65536.
std::optional<std::array<int, 2>> vtf_size(ByteSpan data);
std::optional<std::array<int, 2>> pcx_size(ByteSpan data);
std::optional<std::array<int, 2>> bmp_size(ByteSpan data);
std::optional<std::array<int, 2>> tga_size(ByteSpan data);

// The texture a VMT draws: "$basetexture" of its shader block (also inside a patch's "insert" /
// "replace" blocks), and for a patch material its "include" target (nullopt where absent).
struct VmtInfo {
    std::optional<std::string> base_texture;
    std::optional<std::string> include;
};
std::optional<VmtInfo> parse_vmt(std::string_view text);

// Texture entries of a WAD2 or WAD3 archive: name (as stored, up to 16 bytes) and the miptex
// width and height. Entries whose data lies outside the file are left out; nullopt when the
// header is not WAD2/WAD3 or its directory does not fit.
struct WadTexture {
    std::string name;
    std::array<int, 2> size{};
};
std::optional<std::vector<WadTexture>> wad_textures(ByteSpan data);

// Looks up material sizes under one folder, caching what it found. Not thread-safe.
class TextureSizes {
public:
    explicit TextureSizes(std::filesystem::path dir);
    ~TextureSizes();
    TextureSizes(TextureSizes&&) noexcept;
    TextureSizes& operator=(TextureSizes&&) noexcept;

    // Texels per repeat (width, height), or nullopt when the material or its texture is not
    // found or unreadable.
    std::optional<std::array<double, 2>> size(std::string_view material);
    // For SurfaceOptions::texture_size: {0, 0} (= use the default) where nothing is found.
    // The function refers to this object, which must outlive it.
    std::function<std::array<double, 2>(std::string_view)> function();

    std::size_t found() const;
    std::size_t missing() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace lk::convert
