// Everything typed in a map at once: the views a decompiler or converter works from.
//
// parse_map() runs every typed view (lumps.hpp, props.hpp, entities.hpp, the pakfile
// directory). Strict (the default), it fails on the first lump that does not parse, naming it.
// Lenient, a lump that does not parse is left empty and listed in MapData::skipped with the
// reason (and a warning when `warnings` is given), so a converter can work from the rest and
// decide for itself which lumps it cannot do without. validate() goes further and checks the
// references between lumps (indices in range), reporting every problem.
#pragma once

#include <string>
#include <vector>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/pak.hpp"
#include "levelkit/bsp/props.hpp"

namespace lk::bsp {

struct MapData {
    EntityLump entities;
    LumpView<dplane_t> planes;
    LumpView<dvertex_t> vertexes;
    LumpView<dedge_t> edges;
    LumpView<std::int32_t> surfedges;
    LumpView<dface_t> faces;
    LumpView<dface_t> original_faces;
    LumpView<dface_t> faces_hdr;
    LumpView<dbrush_t> brushes;
    LumpView<dbrushside_t> brushsides;
    LumpView<dmodel_t> models;
    LumpView<dnode_t> nodes;
    LumpView<dleaf_t> leafs;
    LumpView<std::uint32_t> leaffaces;
    LumpView<std::uint32_t> leafbrushes;
    LumpView<texinfo_t> texinfo;
    LumpView<dtexdata_t> texdata;
    TexdataStrings texdata_strings;
    Visibility visibility;
    LumpView<ddispinfo_t> dispinfo;
    LumpView<CDispVert> disp_verts;
    LumpView<CDispTri> disp_tris;
    LumpView<doverlay_t> overlays;
    StrataOverlays strata_overlays;  // instead of `overlays` in Strata overlay lumps version 3
    LumpView<dwateroverlay_t> water_overlays;
    LumpView<doverlayfade_t> overlay_fades;
    LumpView<dcubemapsample_t> cubemaps;
    LumpView<darea_t> areas;
    LumpView<dareaportal_t> areaportals;
    LumpView<Vec3f> clipportalverts;
    Occlusion occlusion;
    LumpView<dworldlight_t> worldlights;
    LumpView<dworldlight_t> worldlights_hdr;
    StaticProps static_props;
    DetailProps detail_props;
    Pak pak;

    // Lumps a lenient parse left empty because they did not parse.
    struct Skipped {
        int lump = -1;     // lump index (game lumps: LumpId::game_lump)
        std::string name;  // "faces", "sprp game lump", "pakfile", ...
        Diagnostic error;  // why, with the lump's offset and path
    };
    std::vector<Skipped> skipped;
    // The error that made a lenient parse skip lump `id`, if it did.
    const Diagnostic* skipped_error(LumpId id) const;
};

struct ParseOptions {
    bool lenient = false;
};

Result<MapData> parse_map(const Bsp& bsp, Diagnostics* warnings = nullptr,
                          const ParseOptions& opt = {});

// Parses every typed view and checks cross-lump references; adds an error per problem found.
void validate(const Bsp& bsp, Diagnostics& out);

// The pakfile lump as an archive (empty if the map has none).
Result<Pak> pakfile(const Bsp& bsp);
// Stores `pak` as the pakfile lump. Archives with file-relative offsets are re-based to where
// the lump lands in the written map.
Result<void> set_pakfile(Bsp& bsp, const Pak& pak);

}  // namespace lk::bsp
