// Pictures of maps without a GPU: a top-down overview (as the radar images games ship) and an
// isometric view of a scene's surfaces (scene::build_surfaces), drawn by a small z-buffer
// rasteriser on the CPU and written as PNG (libspng).
//
// Each material has a stable colour (scene::material_color), shaded by the surface normal
// against a fixed light; the overview also darkens lower surfaces, so floors read apart from
// the ground below them. Back faces are not drawn: looking down on a Source map shows its
// floors, because ceilings face down and the outside of its roofs is usually nodraw (tool
// materials are left out unless `tools`). The 3D skybox (scene::find_skybox) is left out unless
// `skybox`, so the picture frames the playable map.
//
// Rasterisation is exact and single-threaded: 8-bit subpixel fixed-point edge functions with a
// top-left fill rule, so the same scene and options give the same PNG bytes on every run.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/scene/geometry.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk::render {

enum class View : std::uint8_t { top, iso };

struct RenderOptions {
    View view = View::top;
    int size = 1024;  // width in pixels (the overview is square)
    // Samples per pixel along each axis (2 = 4 samples), averaged: smooth edges.
    int supersample = 2;
    bool tools = false;   // draw tool materials too
    bool skybox = false;  // draw the 3D skybox too
    std::array<std::uint8_t, 3> background{24, 26, 30};
    double margin = 0.02;  // share of the image left free on each side
};

// The overview's place in the map, as Counter-Strike's overview text files give it: the world
// coordinates of the image's top-left corner and world units per pixel of a 1024-pixel image.
struct Overview {
    double pos_x = 0, pos_y = 0, scale = 1;
    int size = 1024;  // the picture's width and height in pixels
};

struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb;  // row-major, top row first
};

struct Picture {
    Image image;
    std::optional<Overview> overview;  // for View::top
    std::size_t triangles = 0;         // triangles drawn (after culling)
};

// Draws the scene. An empty scene gives a picture of the background.
Picture render_scene(const scene::Scene& s, const RenderOptions& opt = {});
// The same from surfaces built by the caller (tool faces are left out here unless opt.tools;
// `skybox_pieces` marks pieces to leave out, may be empty).
Picture render_surfaces(const scene::Surfaces& surfaces, const std::vector<bool>& skybox_pieces,
                        const RenderOptions& opt = {});

// PNG bytes of an image (8-bit RGB, no time or text chunks: deterministic). `smallest` spends
// several times longer for a somewhat smaller file.
Result<Bytes> encode_png(const Image& image, bool smallest = false);

// The overview text file for `map_name`:
//   "<map_name>" { "material" "overviews/<map_name>" "pos_x" ... "pos_y" ... "scale" ... }
std::string overview_text(std::string_view map_name, const Overview& o);

}  // namespace lk::render
