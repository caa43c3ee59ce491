// Typed views of BSP lumps, with the Source SDK's struct and field names.
//
// Each view is an array of one normalised struct per lump kind. Where engine branches widened
// fields (Strata Source v25: 32-bit indices, float node/leaf bounds) the struct uses the wider
// type, so callers handle one layout for every supported version; the original width is
// restored on encode, which fails with a diagnostic if a value no longer fits.
//
// Views borrow the map's bytes without copying when the on-disk records have exactly the
// struct's layout and byte order (little-endian files on little-endian hosts, standard
// layouts); otherwise they own a decoded copy. Either way a view keeps its bytes alive.
//
// Layouts are chosen from the BSP version, the lump version and the record size, never guessed:
// a lump whose size does not fit the chosen record, or a version without a known layout, is an
// error naming the lump. Typed views cover BSP versions 17-29 (v17: Vampire: The Masquerade -
// Bloodlines and Half-Life 2 beta records), 42 (Desolation) and 43 (VitaminSource); Strata's
// overlay lump version 3 is not an array of records and has its own view (strata_overlays).
//
// encode_* functions turn a view (or an edited vector) back into lump bytes in the map's own
// layout; encode(decode(lump)) reproduces the lump exactly, padding bytes included.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/core/geometry.hpp"

namespace lk::bsp {

struct Vec3f {
    float x = 0, y = 0, z = 0;
    Vec3 to_vec3() const { return {x, y, z}; }
    bool operator==(const Vec3f&) const = default;
};

// Lighting sample: RGB mantissas and a shared power-of-two exponent.
struct ColorRGBExp32 {
    std::uint8_t r = 0, g = 0, b = 0;
    std::int8_t exponent = 0;
    bool operator==(const ColorRGBExp32&) const = default;
};

struct CompressedLightCube {
    ColorRGBExp32 m_Color[6];
    bool operator==(const CompressedLightCube&) const = default;
};

namespace detail {
struct ViewAccess;
}

// An array view of one lump's records (see the header comment for ownership).
template <class T>
class LumpView {
public:
    LumpView() = default;
    // A view that owns `items` (for records built or edited in memory).
    static LumpView own(std::vector<T> items) {
        LumpView v;
        auto owned = std::make_shared<const std::vector<T>>(std::move(items));
        v.span_ = {owned->data(), owned->size()};
        v.owned_ = std::move(owned);
        return v;
    }

    std::span<const T> span() const { return span_; }
    operator std::span<const T>() const { return span_; }  // NOLINT(implicit)
    std::size_t size() const { return span_.size(); }
    bool empty() const { return span_.empty(); }
    const T& operator[](std::size_t i) const { return span_[i]; }
    const T* begin() const { return span_.data(); }
    const T* end() const { return span_.data() + span_.size(); }
    // True when the view aliases the map's bytes instead of a decoded copy.
    bool borrowed() const { return !owned_; }

private:
    friend struct detail::ViewAccess;
    // Only for bytes already checked to be aligned whole records in native byte order.
    static LumpView borrow(Blob bytes) {
        LumpView v;
        v.span_ = {reinterpret_cast<const T*>(bytes.bytes().data()), bytes.size() / sizeof(T)};
        v.blob_ = std::move(bytes);
        return v;
    }

    std::span<const T> span_;
    Blob blob_;
    std::shared_ptr<const std::vector<T>> owned_;
};

// --- geometry ----------------------------------------------------------------------------

struct dplane_t {
    Vec3f normal;
    float dist = 0;
    std::int32_t type = 0;  // PLANE_X .. PLANE_ANYZ
};

using dvertex_t = Vec3f;

struct dedge_t {
    std::uint32_t v[2] = {0, 0};  // vertex indices (uint16 on disk before Strata)
};

struct dface_t {
    // BSP v17 only: the average colour of each lightmap style (4 in Half-Life 2 beta maps, 8 in
    // Vampire: The Masquerade - Bloodlines).
    ColorRGBExp32 m_AvgLightColor[8];
    std::uint32_t planenum = 0;
    std::uint8_t side = 0;  // faces opposite to the node's plane direction
    std::uint8_t onNode = 0;
    std::uint8_t padding[2] = {0, 0};  // Strata only
    std::int32_t firstedge = 0;        // into surfedges
    std::int32_t numedges = 0;
    std::int32_t texinfo = 0;
    std::int32_t dispinfo = 0;  // -1 if not a displacement
    std::int32_t surfaceFogVolumeID = 0;
    std::uint8_t styles[8] = {};  // 4 except in Bloodlines
    std::uint8_t day[8] = {};     // Bloodlines: its day/night lightmap styles
    std::uint8_t night[8] = {};
    std::uint8_t vitamin_flags = 0;  // VitaminSource (v43) only, with three padding bytes
    std::uint8_t vitamin_padding[3] = {0, 0, 0};
    std::int32_t lightofs = 0;
    float area = 0;
    std::int32_t m_LightmapTextureMinsInLuxels[2] = {0, 0};
    std::int32_t m_LightmapTextureSizeInLuxels[2] = {0, 0};
    std::int32_t origFace = 0;
    std::uint32_t m_NumPrims = 0;  // top bit disables dynamic shadows (standard layout)
    std::uint32_t firstPrimID = 0;
    std::uint32_t smoothingGroups = 0;

    std::uint32_t num_prims() const { return m_NumPrims & 0x7FFF; }
};

struct dbrush_t {
    std::int32_t firstside = 0;
    std::int32_t numsides = 0;
    std::int32_t contents = 0;
};

struct dbrushside_t {
    std::uint32_t planenum = 0;  // facing out of the brush
    std::int32_t texinfo = 0;
    std::int32_t dispinfo = 0;
    // The field's first byte on disk is the bevel flag (a compiler-added side), the second one
    // CS:GO's "thin" flag. SDK 2013 declares one little-endian short, whose first byte is the
    // same flag; big-endian console maps store the two bytes, so reading a short would move
    // the flag into the high byte.
    std::uint8_t bevel = 0;
    std::uint8_t thin = 0;
    std::uint8_t padding[2] = {0, 0};  // Strata only
};

struct dmodel_t {
    Vec3f mins, maxs;
    Vec3f origin;
    std::int32_t headnode = 0;
    std::int32_t firstface = 0, numfaces = 0;
};

// --- BSP tree ------------------------------------------------------------------------------

struct dnode_t {
    std::int32_t planenum = 0;
    std::int32_t children[2] = {0, 0};  // negative numbers are -(leafs + 1)
    double mins[3] = {0, 0, 0};         // int16 on disk (float in Strata, int32 in VitaminSource)
    double maxs[3] = {0, 0, 0};
    std::uint32_t firstface = 0;
    std::uint32_t numfaces = 0;
    std::int16_t area = 0;
    std::uint8_t padding[2] = {0, 0};
};

struct dleaf_t {
    std::int32_t contents = 0;
    std::int32_t cluster = 0;
    std::int32_t area = 0;       // unpacked from the area:9 / flags:7 bitfield
    std::int32_t flags = 0;      // LEAF_FLAGS_*
    double mins[3] = {0, 0, 0};  // as dnode_t
    double maxs[3] = {0, 0, 0};
    std::uint32_t firstleafface = 0;
    std::uint32_t numleaffaces = 0;
    std::uint32_t firstleafbrush = 0;
    std::uint32_t numleafbrushes = 0;
    std::int32_t leafWaterDataID = 0;       // -1 when not in water
    CompressedLightCube m_AmbientLighting;  // lump version 0 only
    std::uint8_t padding[2] = {0, 0};
};

// --- textures ------------------------------------------------------------------------------

struct texinfo_t {
    float textureVecsTexelsPerWorldUnits[2][4] = {};   // [s/t][xyz offset]
    float lightmapVecsLuxelsPerWorldUnits[2][4] = {};  // [s/t][xyz offset]
    std::int32_t flags = 0;                            // SURF_*
    std::int32_t texdata = 0;
};

struct dtexdata_t {
    Vec3f reflectivity;
    std::int32_t nameStringTableID = 0;
    std::int32_t width = 0, height = 0;
    std::int32_t view_width = 0, view_height = 0;  // not stored by VitaminSource (v43)
};

// Material names: TEXDATA_STRING_TABLE offsets resolved into TEXDATA_STRING_DATA.
struct TexdataStrings {
    std::vector<std::int32_t> table;      // byte offsets into the string data
    std::vector<std::string_view> names;  // names[i] is table[i]'s string (views into `data`)
    Blob data;
};

// --- displacements -------------------------------------------------------------------------

struct CDispSubNeighbor {
    std::uint32_t m_iNeighbor = 0xFFFF;  // index into dispinfo, 0xFFFF (Strata: 0xFFFFFFFF): none
    std::uint8_t m_NeighborOrientation = 0;
    std::uint8_t m_Span = 0;
    std::uint8_t m_NeighborSpan = 0;
    std::uint8_t padding = 0;
};

struct CDispNeighbor {
    CDispSubNeighbor m_SubNeighbors[2];
};

struct CDispCornerNeighbors {
    std::uint32_t m_Neighbors[4] = {0, 0, 0, 0};  // uint16 on disk before Strata
    std::uint8_t m_nNeighbors = 0;
    std::uint8_t padding[3] = {0, 0, 0};  // one byte before Strata
};

struct ddispinfo_t {
    Vec3f startPosition;
    std::int32_t m_iDispVertStart = 0;
    std::int32_t m_iDispTriStart = 0;
    std::int32_t power = 0;  // (2^power + 1)^2 vertices
    std::int32_t minTess = 0;
    float smoothingAngle = 0;
    std::int32_t contents = 0;
    std::uint32_t m_iMapFace = 0;  // uint16 and two padding bytes before Strata
    std::uint8_t padding[2] = {0, 0};
    std::int32_t m_iLightmapAlphaStart = 0;
    std::int32_t m_iLightmapSamplePositionStart = 0;
    CDispNeighbor m_EdgeNeighbors[4];
    CDispCornerNeighbors m_CornerNeighbors[4];
    std::uint32_t m_AllowedVerts[10] = {};
    // Words of unknown meaning in BSP v22 (one, after m_iLightmapSamplePositionStart) and v23
    // (Dota 2 beta: one after contents, one after m_iLightmapSamplePositionStart).
    std::int32_t unknown[2] = {0, 0};

    // -1 for a power no grid can have (negative, or so large the count would overflow); files
    // hold any int32 here, and the engine uses 2..4.
    std::int64_t vertex_count() const {
        if (power < 0 || power > 30) return -1;
        const std::int64_t side = (std::int64_t{1} << power) + 1;
        return side * side;
    }
    std::int64_t triangle_count() const {
        if (power < 0 || power > 30) return -1;
        const std::int64_t side = std::int64_t{1} << power;
        return 2 * side * side;
    }
};

struct CDispVert {
    Vec3f m_vVector;
    float m_flDist = 0;
    float m_flAlpha = 0;
};

struct CDispTri {
    std::uint16_t m_uiTags = 0;
};

// --- overlays, cubemaps, areas, occluders, lights -------------------------------------------

template <int FaceCount>
struct doverlay_base_t {
    std::int64_t nId = 0;  // uint32 in Strata maps, int32 before
    std::int32_t nTexInfo = 0;
    std::uint32_t m_nFaceCountAndRenderOrder = 0;  // count in the low 14 bits, order above
    std::int32_t aFaces[FaceCount] = {};
    float flU[2] = {0, 0};
    float flV[2] = {0, 0};
    Vec3f vecUVPoints[4];  // z of the first three hold basis U; z of the 4th flips basis V
    Vec3f vecOrigin;
    Vec3f vecBasisNormal;
    std::uint8_t tint[4] = {255, 255, 255, 255};  // Strata overlay lump version 2

    std::uint32_t GetFaceCount() const { return m_nFaceCountAndRenderOrder & 0x3FFF; }
    std::uint32_t GetRenderOrder() const { return m_nFaceCountAndRenderOrder >> 14; }
};
using doverlay_t = doverlay_base_t<64>;
using dwateroverlay_t = doverlay_base_t<256>;

// Strata overlay lump version 3: the face lists of all overlays in one array, then one record
// per overlay naming its slice of that array (no 64-face limit).
struct doverlay_v3_t {
    std::int32_t nId = 0;
    std::uint32_t nTexInfo = 0;
    std::uint16_t flags = 0;  // kBasisVFlipped, kColorVarTint
    std::uint16_t renderOrder = 0;
    std::int32_t faceOffset = 0, faceCount = 0;  // into StrataOverlays::faces
    float flU[2] = {0, 0};
    float flV[2] = {0, 0};
    float uv[4][2] = {};  // the four corner handles in the overlay's plane
    Vec3f basisU, origin, basisNormal;
    std::uint8_t tint[4] = {255, 255, 255, 255};  // rgb: a colour variable with kColorVarTint

    static constexpr std::uint16_t kBasisVFlipped = 1, kColorVarTint = 2;
};

struct StrataOverlays {
    std::vector<std::uint32_t> faces;
    std::vector<doverlay_v3_t> overlays;
};

struct doverlayfade_t {
    float flFadeDistMinSq = 0;
    float flFadeDistMaxSq = 0;
};

struct dcubemapsample_t {
    std::int32_t origin[3] = {0, 0, 0};
    std::uint8_t size = 0;  // 0 = default, else 1 << (size - 1)
    std::uint8_t padding[3] = {0, 0, 0};
};

struct darea_t {
    std::int32_t numareaportals = 0;
    std::int32_t firstareaportal = 0;
};

struct dareaportal_t {
    std::uint32_t m_PortalKey = 0;  // matches func_areaportal "portalnumber"
    std::uint32_t otherarea = 0;
    std::uint32_t m_FirstClipPortalVert = 0;
    std::uint32_t m_nClipPortalVerts = 0;
    std::int32_t planenum = 0;
};

struct doccluderdata_t {
    std::int32_t flags = 0;
    std::int32_t firstpoly = 0;
    std::int32_t polycount = 0;
    Vec3f mins, maxs;
    std::int32_t area = 0;  // occlusion lump version 2 and later
};

struct doccluderpolydata_t {
    std::int32_t firstvertexindex = 0;
    std::int32_t vertexcount = 0;
    std::int32_t planenum = 0;
};

struct Occlusion {
    std::int32_t version = 0;
    std::vector<doccluderdata_t> occluders;
    std::vector<doccluderpolydata_t> polys;
    std::vector<std::int32_t> vertex_indices;
};

struct dworldlight_t {
    Vec3f origin;
    Vec3f intensity;
    Vec3f normal;
    Vec3f shadow_cast_offset;  // worldlights lump version 1 (CS:GO-era) only
    std::int32_t cluster = 0;
    std::int32_t type = 0;  // emittype_t
    std::int32_t style = 0;
    float stopdot = 0, stopdot2 = 0;
    float exponent = 0;
    float radius = 0;
    float constant_attn = 0, linear_attn = 0, quadratic_attn = 0;
    std::int32_t flags = 0;
    std::int32_t texinfo = 0;
    std::int32_t owner = 0;
};

// --- visibility ------------------------------------------------------------------------------

struct Visibility {
    static constexpr int kPvs = 0;
    static constexpr int kPas = 1;

    std::int32_t numclusters = 0;
    std::vector<std::array<std::int32_t, 2>> bitofs;  // byte offsets of each cluster's PVS/PAS
    Blob data;                                        // the whole lump

    // Run-length decompresses one cluster's visible (kPvs) or audible (kPas) set into
    // (numclusters + 7) / 8 bytes, one bit per cluster.
    Result<Bytes> decompress(std::int32_t cluster, int which) const;
};

// --- access --------------------------------------------------------------------------------

Result<LumpView<dplane_t>> planes(const Bsp& bsp);
Result<LumpView<dvertex_t>> vertexes(const Bsp& bsp);
Result<LumpView<dedge_t>> edges(const Bsp& bsp);
Result<LumpView<std::int32_t>> surfedges(const Bsp& bsp);
// `which` is LumpId::faces, LumpId::originalfaces or LumpId::faces_hdr.
Result<LumpView<dface_t>> faces(const Bsp& bsp, LumpId which = LumpId::faces);
Result<LumpView<dbrush_t>> brushes(const Bsp& bsp);
Result<LumpView<dbrushside_t>> brushsides(const Bsp& bsp);
Result<LumpView<dmodel_t>> models(const Bsp& bsp);
Result<LumpView<dnode_t>> nodes(const Bsp& bsp);
Result<LumpView<dleaf_t>> leafs(const Bsp& bsp);
Result<LumpView<std::uint32_t>> leaffaces(const Bsp& bsp);
Result<LumpView<std::uint32_t>> leafbrushes(const Bsp& bsp);
Result<LumpView<texinfo_t>> texinfo(const Bsp& bsp);
Result<LumpView<dtexdata_t>> texdata(const Bsp& bsp);
Result<TexdataStrings> texdata_strings(const Bsp& bsp);
Result<LumpView<ddispinfo_t>> dispinfo(const Bsp& bsp);
Result<LumpView<CDispVert>> disp_verts(const Bsp& bsp);
Result<LumpView<CDispTri>> disp_tris(const Bsp& bsp);
// Overlays stored as records (every layout but Strata's lump version 3, an error here).
Result<LumpView<doverlay_t>> overlays(const Bsp& bsp);
// Strata's overlay lump version 3 (empty for any other overlay lump).
Result<StrataOverlays> strata_overlays(const Bsp& bsp);
Result<LumpView<dwateroverlay_t>> water_overlays(const Bsp& bsp);
Result<LumpView<doverlayfade_t>> overlay_fades(const Bsp& bsp);
Result<LumpView<dcubemapsample_t>> cubemaps(const Bsp& bsp);
Result<LumpView<darea_t>> areas(const Bsp& bsp);
Result<LumpView<dareaportal_t>> areaportals(const Bsp& bsp);
Result<LumpView<Vec3f>> clipportalverts(const Bsp& bsp);
Result<Occlusion> occlusion(const Bsp& bsp);
// `which` is LumpId::worldlights or LumpId::worldlights_hdr.
Result<LumpView<dworldlight_t>> worldlights(const Bsp& bsp, LumpId which = LumpId::worldlights);
Result<Visibility> visibility(const Bsp& bsp);

// Encoders: lump bytes for `which` in `bsp`'s layout (its version and that lump's version).
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dplane_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const Vec3f> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dedge_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const std::int32_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const std::uint32_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dface_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dbrush_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dbrushside_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dmodel_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dnode_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dleaf_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const texinfo_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dtexdata_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const ddispinfo_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const CDispVert> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const CDispTri> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const doverlay_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dwateroverlay_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const doverlayfade_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dcubemapsample_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const darea_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dareaportal_t> items);
Result<Bytes> encode(const Bsp& bsp, LumpId which, std::span<const dworldlight_t> items);
Result<Bytes> encode(const Bsp& bsp, const Occlusion& occlusion);
Result<Bytes> encode(const Bsp& bsp, const StrataOverlays& overlays);

}  // namespace lk::bsp
