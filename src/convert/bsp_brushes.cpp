// bsp_to_scene, geometry half: reading the lumps, which model owns which brush, brush side
// polygons, which sides a face shows, texturing, displacements and --faces brushes.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "bsp_decompiler.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/text.hpp"

namespace lk::convert {

namespace {

// "_12_-40_96" at the end of `s`: strips it and returns the three numbers.
bool strip_cubemap_suffix(std::string_view& s, std::array<int, 3>& out) {
    std::string_view rest = s;
    for (int i = 2; i >= 0; --i) {
        const std::size_t us = rest.rfind('_');
        if (us == std::string_view::npos) return false;
        const std::string_view num = rest.substr(us + 1);
        const auto v = parse_int(num);
        if (num.empty() || !v || *v < INT32_MIN || *v > INT32_MAX || num[0] == '+') return false;
        out[static_cast<std::size_t>(i)] = static_cast<int>(*v);
        rest = rest.substr(0, us);
    }
    if (rest.empty()) return false;
    s = rest;
    return true;
}

// "_depth_<n>" (vbsp's per-depth water material copies).
bool strip_depth_suffix(std::string_view& s) {
    const std::size_t us = s.rfind('_');
    if (us == std::string_view::npos || !parse_int(s.substr(us + 1))) return false;
    const std::string_view head = s.substr(0, us);
    if (!iends_with(head, "_depth") || head.size() == 6) return false;
    s = head.substr(0, head.size() - 6);
    return true;
}

// "maps/<folder>/" at the start of `s` (folder = map_name unless that is empty).
bool strip_maps_prefix(std::string_view& s, std::string_view map_name) {
    if (!istarts_with(s, "maps/")) return false;
    const std::string_view rest = s.substr(5);
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 >= rest.size()) return false;
    if (!map_name.empty() && !iequals(rest.substr(0, slash), map_name)) return false;
    s = rest.substr(slash + 1);
    return true;
}

}  // namespace

std::string unpatch_material(std::string_view name, std::string_view map_name,
                             std::array<int, 3>* cubemap) {
    std::string_view s = name;
    if (!strip_maps_prefix(s, map_name)) return std::string(name);
    // Only names vbsp made: inside a map folder and ending in one of its suffixes.
    bool patched = false, have_cubemap = false;
    for (int round = 0; round < 8; ++round) {
        std::array<int, 3> c{};
        if (strip_cubemap_suffix(s, c)) {
            if (cubemap && !have_cubemap) *cubemap = c;
            have_cubemap = patched = true;
        } else if (iends_with(s, "_wvt_patch") && s.size() > 10) {
            s.remove_suffix(10);
            patched = true;
        } else if (strip_depth_suffix(s)) {
            patched = true;
        } else if (!(patched && strip_maps_prefix(s, map_name))) {
            break;
        }
    }
    return patched ? std::string(s) : std::string(name);
}

namespace detail {

double tidy(float f) {
    if (!std::isfinite(f)) return 0;
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, f);
    return parse_double(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf))).value_or(f);
}
double tidy(double v) {
    if (!std::isfinite(v) || std::abs(v) > 1e30) return 0;
    return tidy(static_cast<float>(v));
}
Vec3 tidy(const Vec3& v) {
    return {tidy(v.x), tidy(v.y), tidy(v.z)};
}

namespace {

double round_to(double v, double step) {
    return std::round(v / step) * step;
}

// Hammer's world-aligned axes for a face normal.
std::pair<Vec3, Vec3> world_axes(const Vec3& n) {
    const double ax = std::abs(n.x), ay = std::abs(n.y), az = std::abs(n.z);
    if (az >= ax && az >= ay) return {{1, 0, 0}, {0, -1, 0}};
    if (ax >= ay) return {{0, 1, 0}, {0, 0, -1}};
    return {{1, 0, 0}, {0, 0, -1}};
}

// Hammer's face-aligned axes: v runs down the face (world -y on level faces), u = n x v, so
// the texture reads unmirrored from the front; world alignment mirrors it on faces looking
// along -x, +y and -z.
std::pair<Vec3, Vec3> face_axes(const Vec3& n) {
    Vec3 v = Vec3{0, 0, -1} - n * -n.z;
    if (length(v) < 1e-3) v = Vec3{0, -1, 0} - n * -n.y;
    v = normalize(v);
    return {normalize(cross(n, v)), v};
}

Alignment alignment_of(const SideTexture& t, const Vec3& n) {
    const Vec3 u = normalize(t.u.axis * (t.u.scale < 0 ? -1.0 : 1.0));
    const Vec3 v = normalize(t.v.axis * (t.v.scale < 0 ? -1.0 : 1.0));
    const auto [wu, wv] = world_axes(n);
    const auto [fu, fv] = face_axes(n);
    const bool w = near(u, wu, 1e-3) && near(v, wv, 1e-3);
    const bool f = near(u, fu, 1e-3) && near(v, fv, 1e-3);
    return w && f ? Alignment::both : w ? Alignment::world : f ? Alignment::face : Alignment::other;
}

std::uint64_t texdata_flags_key(std::int32_t texdata, std::int32_t flags) {
    return (std::uint64_t{static_cast<std::uint32_t>(texdata)} << 32) |
           static_cast<std::uint32_t>(flags);
}

constexpr double kHuge = 1 << 20;  // polygons reaching this far belong to an open brush

std::uint64_t side_key(std::uint32_t planenum, std::int32_t texinfo) {
    return (std::uint64_t{planenum} << 32) | static_cast<std::uint32_t>(texinfo);
}

}  // namespace

void Decompiler::warn(std::string code, std::string message) {
    // A damaged map could produce one warning per brush; the report has the totals.
    constexpr std::size_t kMaxWarnings = 50;
    if (++warnings_ == kMaxWarnings + 1) {
        diags_.add(Diagnostic::warning(
            "convert.more-warnings", "further decompiler warnings are left out (see the report)"));
    }
    if (warnings_ <= kMaxWarnings)
        diags_.add(Diagnostic::warning(std::move(code), std::move(message)));
}

Result<void> Decompiler::load() {
    bsp::ParseOptions po;
    po.lenient = true;
    LK_TRY_ASSIGN(l_, bsp::parse_map(bsp_, &diags_, po));
    using bsp::LumpId;
    // Brushes are rebuilt from these; without any of them there is nothing to decompile.
    for (const LumpId id : {LumpId::entities, LumpId::planes, LumpId::brushes, LumpId::brushsides,
                            LumpId::models, LumpId::nodes, LumpId::leafs, LumpId::leafbrushes,
                            LumpId::texinfo, LumpId::texdata, LumpId::texdata_string_table}) {
        if (const Diagnostic* e = l_.skipped_error(id)) return *e;
    }
    for (const bsp::MapData::Skipped& s : l_.skipped) report_.unreadable_lumps.push_back(s.name);
    // Maps compiled for HDR only (console builds) keep their faces in the HDR lump.
    if (l_.faces.empty()) l_.faces = l_.faces_hdr;
    multiblend_ = !bsp_.lump(LumpId::disp_multiblend).empty();
    return success();
}

void Decompiler::load_materials() {
    const std::size_t n = l_.texdata.size();
    materials_.assign(n, {});
    material_cubemap_.assign(n, std::nullopt);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int32_t sid = l_.texdata[i].nameStringTableID;
        if (sid < 0 || static_cast<std::size_t>(sid) >= l_.texdata_strings.names.size()) {
            materials_[i] = "TOOLS/TOOLSNODRAW";
            warn("convert.bad-texdata-name",
                 fmt::format("texdata {} names string {}, which does not exist", i, sid));
            continue;
        }
        const std::string_view name = l_.texdata_strings.names[static_cast<std::size_t>(sid)];
        std::array<int, 3> cm{};
        cm[0] = INT32_MIN;
        materials_[i] = unpatch_material(name, opt_.map_name, &cm);
        if (materials_[i] != name) ++report_.recovered.unpatched_materials;
        if (cm[0] != INT32_MIN) material_cubemap_[i] = cm;
    }
}

void Decompiler::assign_brushes_to_models() {
    const std::size_t nb = l_.brushes.size();
    brush_model_.assign(nb, -1);
    std::vector<std::uint32_t> node_seen(l_.nodes.size(), 0), leaf_seen(l_.leafs.size(), 0);
    std::vector<std::int64_t> stack;
    std::vector<std::pair<std::int64_t, std::int64_t>> range(l_.models.size(), {INT64_MAX, -1});
    for (std::size_t m = 0; m < l_.models.size(); ++m) {
        const auto stamp = static_cast<std::uint32_t>(m + 1);
        auto& [lo, hi] = range[m];
        stack.assign(1, l_.models[m].headnode);
        while (!stack.empty()) {
            const std::int64_t n = stack.back();
            stack.pop_back();
            if (n >= 0) {
                if (static_cast<std::uint64_t>(n) >= l_.nodes.size() || node_seen[n] == stamp)
                    continue;
                node_seen[n] = stamp;
                stack.push_back(l_.nodes[n].children[0]);
                stack.push_back(l_.nodes[n].children[1]);
                continue;
            }
            const std::int64_t leaf = -1 - n;
            if (static_cast<std::uint64_t>(leaf) >= l_.leafs.size() || leaf_seen[leaf] == stamp)
                continue;
            leaf_seen[leaf] = stamp;
            const bsp::dleaf_t& lf = l_.leafs[leaf];
            const std::uint64_t end = std::uint64_t{lf.firstleafbrush} + lf.numleafbrushes;
            for (std::uint64_t k = lf.firstleafbrush; k < end && k < l_.leafbrushes.size(); ++k) {
                const std::uint32_t b = l_.leafbrushes[k];
                if (b >= nb) continue;
                lo = std::min<std::int64_t>(lo, b);
                hi = std::max<std::int64_t>(hi, b);
            }
        }
    }
    // vbsp writes the world's brushes first (func_detail, areaportals and ladders moved into it),
    // then each brush entity's in entity order; a model owns the whole range its tree touches,
    // which also recovers brushes that ended up in no leaf.
    if (!range.empty()) {
        for (std::int64_t b = 0; b <= range[0].second; ++b) brush_model_[b] = 0;
    }
    for (std::size_t m = 1; m < range.size(); ++m) {
        for (std::int64_t b = range[m].first; b <= range[m].second; ++b) {
            if (brush_model_[b] < 0) brush_model_[b] = static_cast<int>(m);
        }
    }
}

std::optional<Aabb> Decompiler::closing_box(std::uint32_t b) {
    if (leaf_boxes_.empty()) {
        // Every leaf a brush reaches lies inside it, so their union bounds the brush.
        leaf_boxes_.assign(l_.brushes.size(), Aabb{});
        for (const bsp::dleaf_t& lf : l_.leafs) {
            const std::uint64_t end = std::uint64_t{lf.firstleafbrush} + lf.numleafbrushes;
            for (std::uint64_t k = lf.firstleafbrush; k < end && k < l_.leafbrushes.size(); ++k) {
                const std::uint32_t lb = l_.leafbrushes[k];
                if (lb >= leaf_boxes_.size()) continue;
                leaf_boxes_[lb].add(Vec3{lf.mins[0], lf.mins[1], lf.mins[2]});
                leaf_boxes_[lb].add(Vec3{lf.maxs[0], lf.maxs[1], lf.maxs[2]});
            }
        }
    }
    Aabb box = leaf_boxes_[b];
    const int m = brush_model_[b] < 0 ? 0 : brush_model_[b];
    if (static_cast<std::size_t>(m) < l_.models.size()) {
        const bsp::dmodel_t& md = l_.models[static_cast<std::size_t>(m)];
        for (int k = 0; k < 3; ++k) {
            box.mins[k] = std::max(box.mins[k], double{md.mins.to_vec3()[k]});
            box.maxs[k] = std::min(box.maxs[k], double{md.maxs.to_vec3()[k]});
        }
    }
    if (box.empty() || !(box.size().x > 0 && box.size().y > 0 && box.size().z > 0))
        return std::nullopt;
    return box;
}

namespace {

// Longest distance across `poly` perpendicular to its longest edge: how wide the polygon is.
double polygon_width(std::span<const Vec3> poly) {
    double longest = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < poly.size(); ++i) {
        const double len = distance(poly[i], poly[(i + 1) % poly.size()]);
        if (len > longest) {
            longest = len;
            at = i;
        }
    }
    if (longest <= 0) return 0;
    const Vec3 a = poly[at], dir = (poly[(at + 1) % poly.size()] - a) / longest;
    double width = 0;
    for (const Vec3& p : poly) width = std::max(width, length(cross(p - a, dir)));
    return width;
}

}  // namespace

void Decompiler::lose_side(std::uint32_t brush, std::uint32_t side, std::string reason) {
    g_.side_fate[side] = SideFate::lost;
    BspToSceneReport::LostSide lost;
    lost.brush = brush;
    lost.brush_side = side;
    lost.reason = std::move(reason);
    lost_sides_.push_back(std::move(lost));
}

void Decompiler::build_geometry() {
    const std::size_t nb = l_.brushes.size();
    g_.brush_first.reserve(nb + 1);
    g_.bounds.reserve(nb);
    g_.side_visible.assign(l_.brushsides.size(), 0);
    g_.side_fate.assign(l_.brushsides.size(), SideFate::unused);
    std::vector<std::optional<Plane>> planes;
    std::vector<std::uint32_t> index;
    BrushPolygons polys, without;
    std::size_t bad_refs = 0;
    auto center_of = [](const std::vector<std::optional<Plane>>& pl) {
        Vec3 center;
        std::size_t n = 0;
        for (const auto& p : pl) {
            if (!p) continue;
            center += p->normal * p->dist;
            ++n;
        }
        return n ? center / static_cast<double>(n) : center;
    };
    auto clip = [&] {
        build_brush_polygons(planes, center_of(planes), polys);
        for (const BrushFaceProblem& p : polys.problems) {
            if (p.problem == BrushProblem::open) return false;
        }
        return true;
    };
    // True when side i's plane cuts nothing off the solid the other sides bound: every corner
    // of that solid lies behind it or within kTouch of it. vbsp appends such planes (axial
    // planes at the brush bounds when it writes brushes, edge bevels) and Hammer never keeps
    // a side without a face, so they are not sides of the source brush.
    constexpr double kTouch = 0.01;
    auto redundant = [&](std::size_t i) {
        std::optional<Plane> keep = planes[i];
        planes[i].reset();
        build_brush_polygons(planes, center_of(planes), without);
        planes[i] = keep;
        for (const BrushFaceProblem& p : without.problems) {
            if (p.problem == BrushProblem::open) return false;
        }
        for (const Vec3& p : without.points) {
            if (keep->distance_to(p) > kTouch) return false;
        }
        return !without.points.empty();
    };
    for (std::size_t b = 0; b < nb; ++b) {
        const auto bi = static_cast<std::uint32_t>(b);
        g_.brush_first.push_back(static_cast<std::uint32_t>(g_.sides.size()));
        Aabb box;
        const bsp::dbrush_t& br = l_.brushes[b];
        const std::int64_t first = br.firstside, count = br.numsides;
        if (first < 0 || count < 0 ||
            static_cast<std::uint64_t>(first + count) > l_.brushsides.size()) {
            ++bad_refs;
            bad_brush_sides_.push_back(bi);
            g_.bounds.push_back(box);
            continue;
        }
        planes.clear();
        index.clear();
        for (std::int64_t s = first; s < first + count; ++s) {
            const auto si = static_cast<std::uint32_t>(s);
            const bsp::dbrushside_t& side = l_.brushsides[si];
            if (side.bevel & 1) {
                g_.side_fate[si] = SideFate::bevel;
                continue;
            }
            if (side.planenum >= l_.planes.size()) {
                ++bad_refs;
                lose_side(bi, si,
                          fmt::format("its plane {} is outside the plane lump", side.planenum));
                continue;
            }
            const bsp::dplane_t& p = l_.planes[side.planenum];
            const Vec3 n = normalize(p.normal.to_vec3());
            if (n == Vec3{} || !std::isfinite(p.dist)) {
                lose_side(bi, si, fmt::format("its plane {} has no direction", side.planenum));
                continue;
            }
            planes.push_back(Plane{n, p.dist});
            index.push_back(si);
        }
        // A plane used twice in one brush is a placeholder (Dota 2's Source 1 compiler zeroes
        // the plane of sides it dropped); none of its copies is the real side.
        bool damaged = false;
        for (std::size_t i = 0; i < index.size(); ++i) {
            bool repeated = false;
            const std::uint32_t pn = l_.brushsides[index[i]].planenum;
            for (std::size_t j = 0; j < index.size(); ++j) {
                repeated |= j != i && l_.brushsides[index[j]].planenum == pn;
            }
            if (repeated) planes[i].reset();
            damaged |= repeated;
        }
        if (damaged) {
            for (std::size_t i = index.size(); i-- > 0;) {
                if (planes[i]) continue;
                lose_side(bi, index[i],
                          fmt::format("its plane {} is repeated by another side of the brush (a "
                                      "placeholder for a side the compiler dropped)",
                                      l_.brushsides[index[i]].planenum));
                planes.erase(planes.begin() + static_cast<std::ptrdiff_t>(i));
                index.erase(index.begin() + static_cast<std::ptrdiff_t>(i));
            }
        }
        if (!clip() || damaged) {
            // Sides are missing: close the brush with the box its leaves fill.
            if (auto cb = closing_box(bi)) {
                for (int k = 0; k < 3; ++k) {
                    Vec3 n;
                    n[k] = 1;
                    planes.push_back(Plane{n, cb->maxs[k]});
                    planes.push_back(Plane{-n, -cb->mins[k]});
                    index.push_back(kSyntheticSide);
                    index.push_back(kSyntheticSide);
                }
                clip();
                ++report_.recovered.closed_brushes;
            }
        }
        // Sides that add nothing to the solid go first (they would leave slivers below).
        bool dropped = false;
        for (std::size_t i = 0; i < polys.face_count(); ++i) {
            if (index[i] == kSyntheticSide) continue;
            const auto face = polys.face(i);
            if (face.size() >= 3 && polygon_width(face) >= kTouch) continue;
            if (!redundant(i)) continue;
            g_.side_fate[index[i]] = SideFate::redundant;
            planes[i].reset();
            dropped = true;
        }
        if (dropped) {
            for (std::size_t i = index.size(); i-- > 0;) {
                if (planes[i]) continue;
                planes.erase(planes.begin() + static_cast<std::ptrdiff_t>(i));
                index.erase(index.begin() + static_cast<std::ptrdiff_t>(i));
            }
            clip();
        }
        for (std::size_t i = 0; i < polys.face_count(); ++i) {
            const auto face = polys.face(i);
            const bool synthetic = index[i] == kSyntheticSide;
            if (face.size() < 3 || winding_area(face) < 1e-6) {
                if (!synthetic) lose_side(bi, index[i], "its plane leaves no face on the brush");
                continue;
            }
            bool huge = false;
            for (const Vec3& p : face) {
                huge |= std::abs(p.x) > kHuge || std::abs(p.y) > kHuge || std::abs(p.z) > kHuge;
            }
            if (huge) {
                if (!synthetic) {
                    lose_side(bi, index[i],
                              "the brush is open (sides are missing) and this side's face has "
                              "no bounds");
                }
                continue;
            }
            if (!synthetic) g_.side_fate[index[i]] = SideFate::kept;
            SideGeo sg;
            sg.brushside = index[i];
            sg.plane = *planes[i];
            sg.first = static_cast<std::uint32_t>(g_.points.size());
            sg.count = static_cast<std::uint32_t>(face.size());
            g_.points.insert(g_.points.end(), face.begin(), face.end());
            for (const Vec3& p : face) box.add(p);
            g_.sides.push_back(sg);
        }
        g_.bounds.push_back(box);
    }
    g_.brush_first.push_back(static_cast<std::uint32_t>(g_.sides.size()));
    if (bad_refs) {
        warn("convert.bad-brush-sides",
             fmt::format("{} brush or brush side references point outside their lumps", bad_refs));
    }
}

bool Decompiler::face_polygon(const bsp::LumpView<bsp::dface_t>& faces, std::size_t f,
                              Winding& out) const {
    out.clear();
    if (f >= faces.size()) return false;
    const bsp::dface_t& face = faces[f];
    const std::int64_t first = face.firstedge, count = face.numedges;
    if (count < 3 || first < 0 || static_cast<std::uint64_t>(first + count) > l_.surfedges.size())
        return false;
    for (std::int64_t k = first; k < first + count; ++k) {
        const std::int64_t se = l_.surfedges[static_cast<std::size_t>(k)];
        const std::uint64_t e = static_cast<std::uint64_t>(se < 0 ? -se : se);
        if (e >= l_.edges.size()) return false;
        const std::uint32_t v = l_.edges[e].v[se < 0 ? 1 : 0];
        if (v >= l_.vertexes.size()) return false;
        out.push_back(l_.vertexes[v].to_vec3());
    }
    return true;
}

std::optional<Plane> Decompiler::face_plane(const bsp::dface_t& face) const {
    if (face.planenum >= l_.planes.size()) return std::nullopt;
    const bsp::dplane_t& p = l_.planes[face.planenum];
    const Plane pl{normalize(p.normal.to_vec3()), p.dist};
    // planenum is the face's own plane; `side` only repeats its parity (planes come in pairs).
    if (pl.normal == Vec3{}) return std::nullopt;
    return pl;
}

void Decompiler::match_faces() {
    g_.face_sides.assign(l_.faces.size(), {});
    if (l_.faces.empty() || l_.surfedges.empty()) {
        // Without faces nothing tells hidden sides apart: keep every side's own material.
        std::fill(g_.side_visible.begin(), g_.side_visible.end(), 1);
        return;
    }
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_key;
    by_key.reserve(g_.sides.size());
    std::vector<Aabb> side_box(g_.sides.size());
    for (std::size_t i = 0; i < g_.sides.size(); ++i) {
        if (g_.sides[i].brushside == kSyntheticSide) continue;
        const bsp::dbrushside_t& bs = l_.brushsides[g_.sides[i].brushside];
        by_key[side_key(bs.planenum, bs.texinfo)].push_back(static_cast<std::uint32_t>(i));
        for (const Vec3& p : g_.polygon(g_.sides[i])) side_box[i].add(p);
    }
    Winding poly;
    for (std::size_t f = 0; f < l_.faces.size(); ++f) {
        const bsp::dface_t& face = l_.faces[f];
        if (face.dispinfo >= 0 || !face_polygon(l_.faces, f, poly)) continue;
        const auto it = by_key.find(side_key(face.planenum, face.texinfo));
        if (it == by_key.end()) continue;
        Aabb fb;
        for (const Vec3& p : poly) fb.add(p);
        for (const std::uint32_t si : it->second) {
            if (!fb.overlaps(side_box[si], 0.1)) continue;
            if (convex_overlap_area(poly, g_.polygon(g_.sides[si]), 0.01) <= 0.01) continue;
            const std::uint32_t bs = g_.sides[si].brushside;
            g_.side_visible[bs] = 1;
            g_.face_sides[f].push_back(bs);
        }
    }
}

SideTexture Decompiler::texture(std::int32_t ti, const Vec3& normal, const Vec3& origin) const {
    SideTexture t;
    auto [du, dv] = world_axes(normal);
    t.u = {du, 0, 0.25};
    t.v = {dv, 0, 0.25};
    if (ti < 0 || static_cast<std::size_t>(ti) >= l_.texinfo.size()) {
        t.material = "TOOLS/TOOLSNODRAW";
        return t;
    }
    const bsp::texinfo_t& info = l_.texinfo[static_cast<std::size_t>(ti)];
    double width = 0, height = 0;
    if (info.texdata >= 0 && static_cast<std::size_t>(info.texdata) < materials_.size()) {
        t.material = materials_[static_cast<std::size_t>(info.texdata)];
        t.texdata = info.texdata;
        width = l_.texdata[static_cast<std::size_t>(info.texdata)].width;
        height = l_.texdata[static_cast<std::size_t>(info.texdata)].height;
    } else {
        t.material = "TOOLS/TOOLSNODRAW";
    }
    const auto& tv = info.textureVecsTexelsPerWorldUnits;
    const Vec3 su{tv[0][0], tv[0][1], tv[0][2]}, sv{tv[1][0], tv[1][1], tv[1][2]};
    const double lu = length(su), lv = length(sv);
    // vbsp: texVec = axis / scale, w = shift + origin . texVec.
    if (lu > 1e-9 && lv > 1e-9 && std::isfinite(lu) && std::isfinite(lv)) {
        const Vec3 au = su / lu, av = sv / lv;
        // Axes lying in the face's plane would smear the texture; Hammer would realign them.
        if (std::abs(dot(normal, normalize(cross(au, av)))) >= 0.02) {
            const bool moved = origin != Vec3{};
            auto shift = [&](float w, const Vec3& s, double size) {
                if (!moved) return tidy(w);
                // vbsp added origin . texVec to the shift in single precision: the shift is
                // only known to a few float steps of that sum, so a whole number within them
                // is what the mapper had.
                const double sum = std::abs(double(w)) + std::abs(origin.x * s.x) +
                                   std::abs(origin.y * s.y) + std::abs(origin.z * s.z);
                const double err = 4 * sum * std::numeric_limits<float>::epsilon();
                double v = static_cast<double>(w) - dot(origin, s);
                if (size > 0 && std::abs(v) >= size) v = std::fmod(v, size);
                if (std::abs(v - std::round(v)) <= err) return std::round(v) + 0.0;
                return round_to(v, 1e-3);
            };
            t.u = {tidy(au), shift(tv[0][3], su, width), tidy(1 / lu)};
            t.v = {tidy(av), shift(tv[1][3], sv, height), tidy(1 / lv)};
        }
    }
    const auto& lm = info.lightmapVecsLuxelsPerWorldUnits;
    const double ls =
        (length(Vec3{lm[0][0], lm[0][1], lm[0][2]}) + length(Vec3{lm[1][0], lm[1][1], lm[1][2]})) /
        2;
    if (ls > 1e-3 && std::isfinite(ls)) t.lightmap_scale = std::max(1.0, std::round(1 / ls));
    return t;
}

void Decompiler::study_textures() {
    const std::size_t nt = l_.texinfo.size();
    texinfo_on_face_.assign(nt, 0);
    for (const bsp::dface_t& f : l_.faces) {
        if (f.texinfo >= 0 && static_cast<std::size_t>(f.texinfo) < nt)
            texinfo_on_face_[static_cast<std::size_t>(f.texinfo)] = 1;
    }
    for (std::size_t i = 0; i < nt; ++i) {
        if (!texinfo_on_face_[i]) continue;
        const bsp::texinfo_t& t = l_.texinfo[i];
        first_on_face_.emplace(texdata_flags_key(t.texdata, t.flags), static_cast<std::int32_t>(i));
        texinfos_on_face_[t.texdata].push_back(static_cast<std::int32_t>(i));
    }
    // The alignment Hammer gave new faces, from sides whose texture is certainly theirs; sides
    // no one looks at keep it best (visible ones get re-aligned).
    std::size_t votes[2][2] = {};  // [hidden, visible][world, face]
    for (const SideGeo& sg : g_.sides) {
        if (sg.brushside == kSyntheticSide) continue;
        const std::int32_t ti = l_.brushsides[sg.brushside].texinfo;
        if (ti < 0 || static_cast<std::size_t>(ti) >= nt) continue;
        if (l_.texinfo[static_cast<std::size_t>(ti)].flags & surf::nodraw) continue;
        const bool visible = g_.side_visible[sg.brushside] != 0;
        if (!visible && !own_texinfo(ti, sg.plane.normal)) continue;
        const Alignment a = alignment_of(texture(ti, sg.plane.normal, {}), sg.plane.normal);
        if (a == Alignment::world || a == Alignment::face) ++votes[visible][a == Alignment::face];
    }
    const auto& v = votes[0][0] + votes[0][1] ? votes[0] : votes[1];
    face_aligned_ = v[1] > v[0];
}

bool Decompiler::own_texinfo(std::int32_t ti, const Vec3& n) const {
    if (ti < 0 || static_cast<std::size_t>(ti) >= l_.texinfo.size()) return false;
    const bsp::texinfo_t& t = l_.texinfo[static_cast<std::size_t>(ti)];
    const auto& tv = t.textureVecsTexelsPerWorldUnits;
    const Vec3 u = normalize(Vec3{tv[0][0], tv[0][1], tv[0][2]});
    const Vec3 v = normalize(Vec3{tv[1][0], tv[1][1], tv[1][2]});
    // Axes that do not span the face cannot have been made for it.
    if (std::abs(dot(n, normalize(cross(u, v)))) < 0.02) return false;
    // vbsp only re-points a side at a texinfo faces use, and at the lowest such texinfo with
    // the side's flags and surface properties; one with a lower sibling of the same material
    // and flags (so the same properties) on a face was never picked.
    if (!texinfo_on_face_[static_cast<std::size_t>(ti)]) return true;
    const auto it = first_on_face_.find(texdata_flags_key(t.texdata, t.flags));
    return it != first_on_face_.end() && it->second < ti;
}

bool Decompiler::on_a_face(std::int32_t texdata, std::int32_t flags, const SideTexture& t,
                           const Vec3& origin) const {
    const auto it = texinfos_on_face_.find(texdata);
    if (it == texinfos_on_face_.end()) return false;
    for (const std::int32_t ti : it->second) {
        const bsp::texinfo_t& info = l_.texinfo[static_cast<std::size_t>(ti)];
        if (info.flags != flags) continue;
        bool same = true;
        for (int k = 0; k < 2 && same; ++k) {
            const scene::TextureAxis& a = k == 0 ? t.u : t.v;
            const auto& tv = info.textureVecsTexelsPerWorldUnits[k];
            const Vec3 vec = a.axis / a.scale;
            same = near(Vec3{tv[0], tv[1], tv[2]}, vec, 1e-3 * std::max(1.0, length(vec))) &&
                   std::abs(double(tv[3]) - (a.shift + dot(origin, vec))) < 0.01;
        }
        if (same) return true;
    }
    return false;
}

void Decompiler::rebuild_texture(std::size_t i, std::span<const Vec3> normals,
                                 std::span<SideTexture> textures,
                                 std::span<const std::uint8_t> trusted,
                                 std::span<const std::uint8_t> visible, std::int32_t ti,
                                 const Vec3& origin) const {
    SideTexture& t = textures[i];
    const Vec3& n = normals[i];
    const bsp::texinfo_t* info = ti >= 0 && static_cast<std::size_t>(ti) < l_.texinfo.size()
                                     ? &l_.texinfo[static_cast<std::size_t>(ti)]
                                     : nullptr;
    // Material: the one the brush shows elsewhere, if vbsp could have re-pointed a side of it
    // at this texinfo (the same flags, and no texinfo of that material with those flags on a
    // face before this one).
    if (info) {
        std::int32_t best = -1;
        std::size_t best_count = 0;
        for (std::size_t j = 0; j < textures.size(); ++j) {
            if (!visible[j] || textures[j].texdata < 0 || textures[j].texdata == t.texdata)
                continue;
            const auto it =
                first_on_face_.find(texdata_flags_key(textures[j].texdata, info->flags));
            if (it == first_on_face_.end() || it->second < ti) continue;
            std::size_t count = 0;
            for (std::size_t k = 0; k < textures.size(); ++k)
                count += visible[k] && textures[k].texdata == textures[j].texdata;
            if (count > best_count) {
                best_count = count;
                best = textures[j].texdata;
            }
        }
        if (best >= 0) {
            t.texdata = best;
            t.material = materials_[static_cast<std::size_t>(best)];
        }
    }
    // Axes: the texinfo's own while they span the face (texture() has put defaults in place of
    // ones that do not).
    if (info) {
        const auto& tv = info->textureVecsTexelsPerWorldUnits;
        if (std::abs(dot(n, normalize(cross(Vec3{tv[0][0], tv[0][1], tv[0][2]},
                                            Vec3{tv[1][0], tv[1][1], tv[1][2]})))) >= 0.02)
            return;
    }
    // Otherwise Hammer's default alignment, unshifted, with the scale of a sibling of the same
    // material textured along the same axis (shifts are per-face work; scales follow the
    // material across a brush). A texture whose texinfo a face uses would have kept the side
    // its own texinfo, so an alignment giving one is ruled out.
    auto rebuild = [&](SideTexture& out, const std::pair<Vec3, Vec3>& dirs) {
        for (int k = 0; k < 2; ++k) {
            scene::TextureAxis& axis = k == 0 ? out.u : out.v;
            const Vec3& dir = k == 0 ? dirs.first : dirs.second;
            axis.axis = dir;
            axis.shift = 0;
            axis.scale = 0.25;
            bool found = false;
            for (std::size_t j = 0; j < textures.size() && !found; ++j) {
                if (j == i || !trusted[j] || textures[j].texdata != out.texdata) continue;
                for (const scene::TextureAxis* a : {&textures[j].u, &textures[j].v}) {
                    const Vec3 d = normalize(a->axis);
                    const double c = dot(d, dir);
                    if (std::abs(std::abs(c) - 1) > 1e-3) continue;
                    axis.scale = a->scale;
                    found = true;
                    break;
                }
            }
            if (found) continue;
            // No sibling along it: the usual scale of the material on this brush.
            for (std::size_t j = 0; j < textures.size(); ++j) {
                if (j == i || !trusted[j] || textures[j].texdata != out.texdata) continue;
                axis.scale = k == 0 ? textures[j].u.scale : textures[j].v.scale;
                break;
            }
        }
    };
    SideTexture world = t, face = t;
    rebuild(world, world_axes(n));
    rebuild(face, face_axes(n));
    const std::int32_t flags = info ? info->flags : 0;
    const bool world_ruled_out = on_a_face(t.texdata, flags, world, origin);
    const bool face_ruled_out = on_a_face(t.texdata, flags, face, origin);
    const bool use_face = world_ruled_out != face_ruled_out ? world_ruled_out : face_aligned_;
    t = use_face ? face : world;
}

std::optional<std::string> Decompiler::tool_material(std::int32_t c, std::int32_t flags) const {
    using namespace contents;
    // Clip brushes share one texinfo in most games, so their contents decide.
    if (c & areaportal) return "TOOLS/TOOLSAREAPORTAL";
    if ((c & playerclip) && (c & monsterclip)) return "TOOLS/TOOLSCLIP";
    if (c & playerclip) return "TOOLS/TOOLSPLAYERCLIP";
    if (c & monsterclip) return "TOOLS/TOOLSNPCCLIP";
    if (flags & surf::sky2d) return "TOOLS/TOOLSSKYBOX2D";
    if (flags & surf::sky) return "TOOLS/TOOLSSKYBOX";
    if (flags & surf::hint) return "TOOLS/TOOLSHINT";
    if (flags & surf::skip) return "TOOLS/TOOLSSKIP";
    if (flags & surf::trigger) return "TOOLS/TOOLSTRIGGER";
    if (!(flags & surf::nodraw)) return std::nullopt;
    if (!(c & solid)) {
        if ((c & ladder) && (c & grate)) return "TOOLS/TOOLSINVISIBLELADDER";
        if (c & blocklos) return "TOOLS/TOOLSBLOCK_LOS";
        if (c & opaque) return "TOOLS/TOOLSBLOCKLIGHT";
        if (c & window) return "TOOLS/TOOLSBLOCKBULLETS";
        if (c & grate) return "TOOLS/TOOLSINVISIBLE";
    }
    return "TOOLS/TOOLSNODRAW";
}

std::array<Vec3, 3> Decompiler::plane_points(std::span<const Vec3> poly, const Plane& plane) const {
    // Mappers work on a grid: corners that sit on one and give back the compiled plane (to float
    // precision) are what the original file had.
    thread_local std::vector<Vec3> snapped;
    const double dist_tol = std::max(1e-3, std::abs(plane.dist) * 1e-6);
    for (const double grid : {1.0, 0.5, 0.25, 0.125}) {
        snapped.clear();
        for (const Vec3& p : poly) {
            const Vec3 r{round_to(p.x, grid), round_to(p.y, grid), round_to(p.z, grid)};
            if (near(p, r, 0.002)) snapped.push_back(r);
        }
        if (snapped.size() < 3) continue;
        const auto pts = plane_points_on_face(snapped);
        if (!pts) continue;
        const auto pl = Plane::from_points((*pts)[0], (*pts)[1], (*pts)[2]);
        if (pl && near(pl->normal, plane.normal, 1e-6) &&
            std::abs(pl->dist - plane.dist) < dist_tol)
            return *pts;
    }
    if (auto pts = plane_points_on_face(poly)) return *pts;
    return plane_points_on_plane(plane, winding_center(poly));
}

bool Decompiler::finish_brush(scene::Brush& brush, std::uint32_t source, bool report_invalid,
                              std::vector<std::uint8_t>* kept) {
    if (kept) kept->assign(brush.sides.size(), 1);
    thread_local std::vector<std::optional<Plane>> planes;
    thread_local BrushPolygons polys;
    auto check = [&] {
        planes.clear();
        Vec3 center;
        for (const scene::BrushSide& s : brush.sides) {
            const auto& p = *s.points;
            planes.push_back(Plane::from_points(p[0], p[1], p[2]));
            center += p[0] + p[1] + p[2];
        }
        if (!brush.sides.empty()) center = center / (3.0 * static_cast<double>(brush.sides.size()));
        build_brush_polygons(planes, center, polys);
        return polys.valid();
    };
    if (check()) return true;
    // Sides that do not touch the solid (or repeat another) can go; anything else is fatal.
    std::vector<std::uint8_t> drop(brush.sides.size(), 0);
    bool fixable = true;
    for (const BrushFaceProblem& p : polys.problems) {
        if (p.problem == BrushProblem::side_no_face || p.problem == BrushProblem::duplicate_plane ||
            p.problem == BrushProblem::degenerate_plane) {
            if (p.side < drop.size()) drop[p.side] = 1;
        } else {
            fixable = false;
        }
    }
    const auto dropped = static_cast<std::size_t>(std::count(drop.begin(), drop.end(), 1));
    if (fixable && dropped && brush.sides.size() - dropped >= 4) {
        std::size_t k = 0;
        std::erase_if(brush.sides, [&](const scene::BrushSide&) { return drop[k++] != 0; });
        if (kept) {
            for (std::size_t i = 0; i < drop.size(); ++i) (*kept)[i] = !drop[i];
        }
        if (check()) return true;
    }
    if (report_invalid) {
        ++report_.lost.invalid_brushes;
        const BrushFaceProblem& p = polys.problems.front();
        invalid_reason_ = fmt::format("the brush forms no valid solid ({})", to_string(p.problem));
        warn("convert.invalid-brush",
             fmt::format("brush {} forms no valid solid ({}) and is left out", source,
                         to_string(p.problem)));
    }
    return false;
}

std::optional<scene::Brush> Decompiler::make_brush(std::uint32_t b, const Vec3& origin,
                                                   const std::vector<std::uint8_t>* occluder) {
    const bsp::dbrush_t& br = l_.brushes[b];
    const std::uint32_t first = g_.brush_first[b], last = g_.brush_first[b + 1];
    scene::Brush out;
    std::vector<std::uint32_t> source;  // brush side lump index per scene side
    std::vector<Vec3> centers;
    std::vector<std::int32_t> texdatas;  // per scene side: the texdata its material came from
    thread_local Winding world;
    // Textures first: sides without a face may take theirs from the brush's other sides.
    thread_local std::vector<SideTexture> textures;
    thread_local std::vector<Vec3> normals;
    thread_local std::vector<std::uint8_t> trusted, shown;
    textures.clear();
    normals.clear();
    trusted.clear();
    shown.clear();
    for (std::uint32_t i = first; i < last; ++i) {
        const SideGeo& sg = g_.sides[i];
        const bool real = sg.brushside != kSyntheticSide;
        const std::int32_t ti = real ? l_.brushsides[sg.brushside].texinfo : -1;
        const bool visible = real && g_.side_visible[sg.brushside] != 0;
        textures.push_back(texture(ti, sg.plane.normal, origin));
        normals.push_back(sg.plane.normal);
        shown.push_back(visible);
        trusted.push_back(visible || (real && own_texinfo(ti, sg.plane.normal)));
    }
    for (std::uint32_t i = first; i < last; ++i) {
        const SideGeo& sg = g_.sides[i];
        if (trusted[i - first] || sg.brushside == kSyntheticSide) continue;
        rebuild_texture(i - first, normals, textures, trusted, shown,
                        l_.brushsides[sg.brushside].texinfo, origin);
    }
    for (std::uint32_t i = first; i < last; ++i) {
        const SideGeo& sg = g_.sides[i];
        const bool real = sg.brushside != kSyntheticSide;
        const std::int32_t ti = real ? l_.brushsides[sg.brushside].texinfo : -1;
        world.assign(g_.polygon(sg).begin(), g_.polygon(sg).end());
        for (Vec3& p : world) p += origin;
        scene::BrushSide side;
        side.plane = {sg.plane.normal, sg.plane.dist + dot(sg.plane.normal, origin)};
        side.points = plane_points(world, side.plane);
        SideTexture t = textures[i - first];
        const bool visible = shown[i - first] != 0;
        if (occluder) {
            t.material = (*occluder)[i - first] ? "TOOLS/TOOLSOCCLUDER" : "TOOLS/TOOLSNODRAW";
        } else if (!visible) {
            const std::int32_t flags = ti >= 0 && static_cast<std::size_t>(ti) < l_.texinfo.size()
                                           ? l_.texinfo[static_cast<std::size_t>(ti)].flags
                                           : surf::nodraw;
            if (auto tool = tool_material(br.contents, flags)) {
                t.material = std::move(*tool);
                ++report_.recovered.tool_sides;
            }
        }
        side.material = std::move(t.material);
        side.u = t.u;
        side.v = t.v;
        side.lightmap_scale = t.lightmap_scale;
        out.sides.push_back(std::move(side));
        source.push_back(sg.brushside);
        texdatas.push_back(t.texdata);
        centers.push_back(winding_center(world));
    }
    std::vector<std::uint8_t> kept;
    if (!finish_brush(out, b, true, &kept)) {
        for (const std::uint32_t si : source) {
            if (si != kSyntheticSide) lose_side(b, si, invalid_reason_);
        }
        return std::nullopt;
    }
    out.id = next_solid_id_++;
    brush_solid_id_[b] = out.id;
    std::size_t k = 0;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        if (!kept[i]) {
            if (source[i] != kSyntheticSide) {
                lose_side(b, source[i],
                          "it touches the brush only at an edge or corner once its plane is "
                          "written as three points");
            }
            continue;
        }
        scene::BrushSide& s = out.sides[k++];
        s.id = next_side_id_++;
        if (source[i] == kSyntheticSide) continue;
        ++report_.recovered.lump_sides;
        side_id_[source[i]] = s.id;
        written_sides_.push_back({s.id, texdatas[i], centers[i], s.plane.normal});
        report_.recovered.visible_sides += g_.side_visible[source[i]];
    }
    report_.recovered.sides += out.sides.size();
    return out;
}

std::optional<scene::Brush> Decompiler::prism_brush(std::span<const Vec3> polygon,
                                                    const Plane& plane, std::int32_t texinfo,
                                                    double depth, const Vec3& origin) {
    // Corners on a straight edge (t-junction fixes) would give repeated wall planes.
    Winding w(polygon.begin(), polygon.end());
    remove_duplicate_points(w, 0.01);
    for (std::size_t i = 0; w.size() >= 3 && i < w.size();) {
        const Vec3& a = w[(i + w.size() - 1) % w.size()];
        const Vec3& c = w[(i + 1) % w.size()];
        if (length(cross(w[i] - a, c - w[i])) < 1e-6 * distance(a, c)) {
            w.erase(w.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
            ++i;
        }
    }
    if (w.size() < 3) return std::nullopt;
    for (Vec3& p : w) p += origin;
    const Plane top{plane.normal, plane.dist + dot(plane.normal, origin)};
    const Vec3 c = winding_center(w);
    std::vector<std::optional<Plane>> planes{top};
    for (std::size_t i = 0; i < w.size(); ++i) {
        Vec3 n = normalize(cross(w[(i + 1) % w.size()] - w[i], top.normal));
        if (n == Vec3{}) continue;
        if (dot(n, c - w[i]) > 0) n = -n;
        planes.push_back(Plane{n, dot(n, w[i])});
    }
    planes.push_back(Plane{-top.normal, -(top.dist - depth)});
    BrushPolygons polys;
    build_brush_polygons(planes, c - top.normal * (depth / 2), polys);
    scene::Brush out;
    for (std::size_t i = 0; i < planes.size(); ++i) {
        scene::BrushSide side;
        side.plane = *planes[i];
        const auto face = i < polys.face_count() ? polys.face(i) : std::span<const Vec3>{};
        side.points = face.size() >= 3 ? plane_points(face, side.plane)
                                       : plane_points_on_plane(side.plane, c);
        SideTexture t = i == 0 ? texture(texinfo, side.plane.normal, origin)
                               : texture(-1, side.plane.normal, origin);
        side.material = std::move(t.material);
        side.u = t.u;
        side.v = t.v;
        side.lightmap_scale = t.lightmap_scale;
        out.sides.push_back(std::move(side));
    }
    // The polygon's own side must survive: it is the one that carries texture and displacement.
    std::vector<std::uint8_t> kept;
    if (!finish_brush(out, 0, false, &kept) || !kept[0]) return std::nullopt;
    out.id = next_solid_id_++;
    for (scene::BrushSide& s : out.sides) s.id = next_side_id_++;
    report_.recovered.sides += out.sides.size();
    return out;
}

void Decompiler::add_displacements(std::vector<scene::Brush>& out) {
    Winding poly;
    for (std::size_t i = 0; i < l_.dispinfo.size(); ++i) {
        const bsp::ddispinfo_t& d = l_.dispinfo[i];
        const std::size_t f = d.m_iMapFace;
        const auto skip = [&](std::string_view why) {
            BspToSceneReport::LostSide lost;
            lost.dispinfo = static_cast<std::int64_t>(i);
            lost.reason = fmt::format("the displacement is left out: {}", why);
            lost_sides_.push_back(std::move(lost));
        };
        if (f >= l_.faces.size() || !face_polygon(l_.faces, f, poly)) {
            skip("its face is missing");
            continue;
        }
        if (poly.size() != 4) {
            skip("its face is not a quad");
            continue;
        }
        const auto plane = face_plane(l_.faces[f]);
        if (!plane || d.power < 1 || d.power > 4) {
            skip(plane ? "bad power" : "bad plane");
            continue;
        }
        const auto nv = static_cast<std::size_t>(d.vertex_count());
        const auto nt = static_cast<std::size_t>(d.triangle_count());
        if (d.m_iDispVertStart < 0 ||
            static_cast<std::size_t>(d.m_iDispVertStart) + nv > l_.disp_verts.size()) {
            skip("its vertices are missing");
            continue;
        }
        const bool tags = d.m_iDispTriStart >= 0 &&
                          static_cast<std::size_t>(d.m_iDispTriStart) + nt <= l_.disp_tris.size();
        auto brush = prism_brush(poly, *plane, l_.faces[f].texinfo, 8, {});
        if (!brush) {
            skip("its face forms no brush");
            continue;
        }
        scene::Displacement disp;
        disp.power = d.power;
        disp.start_position = tidy(d.startPosition.to_vec3());
        disp.normals.reserve(nv);
        for (std::size_t k = 0; k < nv; ++k) {
            const bsp::CDispVert& v =
                l_.disp_verts[static_cast<std::size_t>(d.m_iDispVertStart) + k];
            disp.normals.push_back(tidy(v.m_vVector.to_vec3()));
            disp.distances.push_back(tidy(v.m_flDist));
            disp.alphas.push_back(tidy(v.m_flAlpha));
        }
        disp.offset_normals.assign(nv, tidy(plane->normal));
        if (tags) {
            for (std::size_t k = 0; k < nt; ++k) {
                disp.triangle_tags.push_back(
                    l_.disp_tris[static_cast<std::size_t>(d.m_iDispTriStart) + k].m_uiTags);
            }
        }
        for (const std::uint32_t a : d.m_AllowedVerts) {
            disp.allowed_verts.push_back(static_cast<std::int32_t>(a));
        }
        scene::BrushSide& top = brush->sides.front();
        top.displacement = std::move(disp);
        disp_side_id_[i] = top.id;
        const std::int32_t ti = l_.faces[f].texinfo;
        written_sides_.push_back({top.id,
                                  ti >= 0 && static_cast<std::size_t>(ti) < l_.texinfo.size()
                                      ? l_.texinfo[static_cast<std::size_t>(ti)].texdata
                                      : -1,
                                  winding_center(poly), plane->normal});
        ++report_.recovered.displacements;
        ++report_.recovered.visible_sides;
        out.push_back(std::move(*brush));
    }
}

void Decompiler::add_face_brushes(int model, const Vec3& origin, std::vector<scene::Brush>& out) {
    if (model < 0 || static_cast<std::size_t>(model) >= l_.models.size()) return;
    const bsp::dmodel_t& m = l_.models[static_cast<std::size_t>(model)];
    const std::int64_t first = m.firstface, count = m.numfaces;
    if (first < 0 || count < 0 || static_cast<std::uint64_t>(first + count) > l_.faces.size())
        return;
    face_side_id_.resize(l_.faces.size(), 0);
    std::unordered_map<std::int32_t, std::int64_t> done;  // original face -> side id
    Winding poly;
    for (std::int64_t fi = first; fi < first + count; ++fi) {
        const auto f = static_cast<std::size_t>(fi);
        const bsp::dface_t& face = l_.faces[f];
        if (face.dispinfo >= 0) continue;
        // Prefer the face before vbsp split it; split pieces share its brush.
        const bool has_orig = face.origFace >= 0 &&
                              static_cast<std::size_t>(face.origFace) < l_.original_faces.size();
        if (has_orig) {
            if (auto it = done.find(face.origFace); it != done.end()) {
                face_side_id_[f] = it->second;
                continue;
            }
        }
        const auto& lump = has_orig ? l_.original_faces : l_.faces;
        const std::size_t src = has_orig ? static_cast<std::size_t>(face.origFace) : f;
        const auto plane = face_plane(lump[src]);
        if (!plane || !face_polygon(lump, src, poly)) continue;
        auto brush = prism_brush(poly, *plane, lump[src].texinfo, 1, origin);
        if (!brush) continue;
        const scene::BrushSide& top = brush->sides.front();
        face_side_id_[f] = top.id;
        const std::int32_t ti = lump[src].texinfo;
        written_sides_.push_back({top.id,
                                  ti >= 0 && static_cast<std::size_t>(ti) < l_.texinfo.size()
                                      ? l_.texinfo[static_cast<std::size_t>(ti)].texdata
                                      : -1,
                                  winding_center(poly) + origin, top.plane.normal});
        if (has_orig) done.emplace(face.origFace, brush->sides.front().id);
        ++report_.recovered.face_brushes;
        ++report_.recovered.visible_sides;
        out.push_back(std::move(*brush));
    }
}

}  // namespace detail

}  // namespace lk::convert
