// Internals of bsp_to_scene, shared by bsp_scene.cpp (entities and everything keyed off them)
// and bsp_brushes.cpp (brush geometry, texturing, displacements, faces mode).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/flags.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/map.hpp"
#include "levelkit/bsp/props.hpp"
#include "levelkit/convert/bsp_scene.hpp"
#include "levelkit/core/geometry.hpp"

namespace lk::convert::detail {

// An output of the entity lump as a scene output. A times-to-fire no int holds (it was
// clamped) keeps the value's text as the output's `unparsed`, with a warning at `path`.
inline scene::Output scene_output(const bsp::EntityOutput& o, std::string_view value,
                                  const std::string& path, Diagnostics& diags) {
    scene::Output out;
    out.output = std::string(o.output);
    if (!std::in_range<int>(o.times)) {
        out.unparsed = std::string(value);
        diags.add(Diagnostic::warning("convert.out-of-range",
                                      path + ": times to fire " + std::to_string(o.times) +
                                          " is out of the integer range: the output is kept "
                                          "as its text")
                      .with_path(path));
        return out;
    }
    out.target = std::string(o.target);
    out.input = std::string(o.input);
    out.param = std::string(o.parameter);
    out.delay = o.delay;
    out.times = std::max(-1, static_cast<int>(o.times));
    return out;
}

namespace contents = bsp::contents;
namespace surf = bsp::surf;

// A float from the map as the shortest decimal that reads back to it (0.1f gives 0.1, not
// 0.100000001490116), so written numbers look like the ones the mapper typed. The double
// overloads cut a value computed from floats back to float precision the same way.
double tidy(float f);
double tidy(double v);
Vec3 tidy(const Vec3& v);
inline Vec3 tidy(const bsp::Vec3f& v) {
    return {tidy(v.x), tidy(v.y), tidy(v.z)};
}

inline constexpr std::uint32_t kSyntheticSide = 0xFFFFFFFFu;

// One usable (non-bevel, clipped to a polygon) side of a compiled brush, in model space.
struct SideGeo {
    // Index into the brush side lump; kSyntheticSide for a side added to close a brush whose
    // own sides are missing.
    std::uint32_t brushside = 0;
    Plane plane;
    std::uint32_t first = 0, count = 0;  // polygon corners in Geometry::points
};

// What became of a brush side lump entry.
enum class SideFate : std::uint8_t {
    unused,     // not part of any brush
    kept,       // rebuilt as a side
    bevel,      // flagged as a bevel by the compiler
    redundant,  // its plane only touches the solid (a compiler-added plane without the flag)
    lost,       // a real side that could not be rebuilt (in lost_sides_)
};

// Model-space geometry of every brush in the lump.
struct Geometry {
    std::vector<Vec3> points;
    std::vector<SideGeo> sides;
    std::vector<std::uint32_t> brush_first;  // brush b's sides: [brush_first[b], brush_first[b+1])
    std::vector<Aabb> bounds;                // per brush, model space
    std::vector<std::uint8_t> side_visible;  // per brush side lump entry: a face shows it
    std::vector<SideFate> side_fate;         // per brush side lump entry
    // Faces lump index -> brush side lump indices the face lies on.
    std::vector<std::vector<std::uint32_t>> face_sides;

    std::span<const Vec3> polygon(const SideGeo& s) const {
        return {points.data() + s.first, s.count};
    }
};

// What a texinfo turns into on one side.
struct SideTexture {
    std::string material;
    std::int32_t texdata = -1;
    scene::TextureAxis u, v;
    double lightmap_scale = 16;
};

// Which of Hammer's default alignments a side's axes follow.
enum class Alignment : std::uint8_t { other, world, face, both };

class Decompiler {
public:
    Decompiler(const bsp::Bsp& bsp, Diagnostics& diags, const BspToSceneOptions& opt,
               BspToSceneReport& report)
        : bsp_(bsp), diags_(diags), opt_(opt), report_(report) {}

    Result<scene::Scene> run();

private:
    // --- bsp_brushes.cpp ---
    Result<void> load();
    void load_materials();
    void assign_brushes_to_models();
    void build_geometry();
    // The box the leaves holding brush `b` fill, within its model's bounds (closes brushes
    // whose sides are missing from the lump).
    std::optional<Aabb> closing_box(std::uint32_t b);
    void match_faces();
    // Brush `b` as a scene brush moved by `origin`; nullopt (reported) if it forms no valid
    // solid. `occluder_sides` marks sides to texture as occluders (others become nodraw).
    std::optional<scene::Brush> make_brush(
        std::uint32_t b, const Vec3& origin,
        const std::vector<std::uint8_t>* occluder_sides = nullptr);
    SideTexture texture(std::int32_t texinfo, const Vec3& normal, const Vec3& origin) const;
    // Texinfo facts the textures of sides without a face are read from, and the alignment
    // this map's mapper used by default.
    void study_textures();
    // Whether texinfo `ti` on a side facing `n` that shows no face is certainly its own (vbsp
    // re-points such sides at another texinfo when no face uses theirs).
    bool own_texinfo(std::int32_t ti, const Vec3& n) const;
    // The texture of side `i` of a brush whose texinfo may not be its own, from the brush's
    // other sides (`trusted` marks those whose texture is theirs).
    void rebuild_texture(std::size_t i, std::span<const Vec3> normals,
                         std::span<SideTexture> textures, std::span<const std::uint8_t> trusted,
                         std::span<const std::uint8_t> visible, std::int32_t ti,
                         const Vec3& origin) const;
    // Whether a face uses the texinfo vbsp makes of texture `t` (material `texdata`, `flags`)
    // on an entity at `origin`.
    bool on_a_face(std::int32_t texdata, std::int32_t flags, const SideTexture& t,
                   const Vec3& origin) const;
    std::optional<std::string> tool_material(std::int32_t contents, std::int32_t flags) const;
    // Faces lump polygon of face `f` in `faces`; false if its edges are out of range.
    bool face_polygon(const bsp::LumpView<bsp::dface_t>& faces, std::size_t f, Winding& out) const;
    std::optional<Plane> face_plane(const bsp::dface_t& face) const;
    // A brush from a planar polygon: the polygon's side plus walls and a back side `depth`
    // behind it (displacements and --faces).
    std::optional<scene::Brush> prism_brush(std::span<const Vec3> polygon, const Plane& plane,
                                            std::int32_t texinfo, double depth, const Vec3& origin);
    void add_displacements(std::vector<scene::Brush>& out);
    void add_face_brushes(int model, const Vec3& origin, std::vector<scene::Brush>& out);
    // Plane points for a side polygon (world space), snapped to whole units when exact.
    std::array<Vec3, 3> plane_points(std::span<const Vec3> polygon, const Plane& plane) const;
    // Drops sides that do not survive as faces (kept[i] = 0 for those); false if no valid
    // solid is left.
    bool finish_brush(scene::Brush& brush, std::uint32_t source_index, bool report_invalid,
                      std::vector<std::uint8_t>* kept = nullptr);

    // --- bsp_scene.cpp ---
    void entities(scene::Scene& s);
    void detail_entities(scene::Scene& s, const std::vector<std::uint32_t>& detail);
    // Per detail brush (in lump order): the run of brushes it shares a func_detail with at most.
    std::vector<std::uint32_t> detail_runs(const std::vector<std::uint32_t>& detail) const;
    void attach_areaportals(scene::Scene& s, std::vector<std::uint32_t> brushes);
    void attach_occluders(scene::Scene& s, const std::vector<std::uint32_t>& brushes);
    void attach_ladders(scene::Scene& s, std::vector<std::uint32_t>& world);
    void static_props(scene::Scene& s);
    void overlays(scene::Scene& s);
    void cubemaps(scene::Scene& s);
    void warn(std::string code, std::string message);
    // Records that real side `side` of brush `brush` cannot be rebuilt.
    void lose_side(std::uint32_t brush, std::uint32_t side, std::string reason);
    // Brushes nothing wrote, then one error per lost side (the report lists them all).
    void report_losses();
    std::vector<Plane> brush_planes(std::uint32_t b) const;  // model space, usable sides
    // A detail brush made detail by its tool materials alone (kept in the world).
    bool material_detail(std::uint32_t b) const;
    static double tidy_distance(double v);

public:
    const bsp::Bsp& bsp_;
    Diagnostics& diags_;
    const BspToSceneOptions& opt_;
    BspToSceneReport& report_;
    bsp::MapData l_;  // faces: the HDR faces when the map has only those
    Geometry g_;
    // Per texdata: the material name with vbsp's patches undone, and the cubemap a patched
    // name points at.
    std::vector<std::string> materials_;
    std::vector<std::optional<std::array<int, 3>>> material_cubemap_;
    std::vector<int> brush_model_;  // model index per brush, -1 if no model owns it
    std::vector<Aabb> leaf_boxes_;  // per brush, filled on first use by closing_box
    // Scene ids handed out: brush side lump index -> side id (0 = not written), dispinfo index
    // -> side id of its displaced side.
    std::vector<std::int64_t> side_id_;
    std::vector<std::int64_t> disp_side_id_;
    std::vector<std::int64_t> face_side_id_;  // --faces: faces lump index -> its brush's side id
    // Side id -> texdata it was textured from, its polygon centre and normal (cubemap side
    // lists).
    struct WrittenSide {
        std::int64_t id = 0;
        std::int32_t texdata = -1;
        Vec3 center;
        Vec3 normal;
    };
    std::vector<WrittenSide> written_sides_;
    // Overlay id -> targetname and hammerid, from info_overlay_accessor entities.
    std::map<std::int64_t, std::pair<std::string, std::int64_t>> overlay_names_;
    std::vector<std::pair<std::size_t, Aabb>> ladders_;  // func_ladder entity index, its box
    std::vector<BspToSceneReport::LostSide> lost_sides_;
    std::vector<std::uint32_t> bad_brush_sides_;  // brushes whose side range is outside the lump
    std::vector<std::int64_t> brush_solid_id_;    // per brush: the solid written for it, or 0
    std::string invalid_reason_;                  // why finish_brush last rejected a brush
    std::int64_t next_solid_id_ = 1;
    std::int64_t next_side_id_ = 1;
    std::size_t warnings_ = 0;
    bool multiblend_ = false;                    // the map has a displacement multiblend lump
    std::vector<std::uint8_t> texinfo_on_face_;  // per texinfo: some face uses it
    // (texdata, flags) -> the lowest texinfo a face uses with them.
    std::unordered_map<std::uint64_t, std::int32_t> first_on_face_;
    std::unordered_map<std::int32_t, std::vector<std::int32_t>> texinfos_on_face_;  // by texdata
    bool face_aligned_ = false;  // the map's sides default to face alignment
};

}  // namespace lk::convert::detail
