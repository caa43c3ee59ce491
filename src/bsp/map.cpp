#include "levelkit/bsp/map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

namespace lk::bsp {

namespace {

// Runs one view; strict parses stop at the first failure, lenient ones leave the target empty
// and record the lump as skipped.
class MapParser {
public:
    MapParser(MapData& m, Diagnostics* warnings, bool lenient)
        : m_(m), warnings_(warnings), lenient_(lenient) {}

    template <class T>
    void take(Result<T> r, T& out, int lump, std::string_view name) {
        if (r) {
            out = std::move(r).value();
            return;
        }
        if (!lenient_) {
            if (!failed_) failed_ = std::move(r).error();
            return;
        }
        Diagnostic why = std::move(r).error();
        if (warnings_) {
            Diagnostic w = why;
            w.severity = Severity::warning;
            w.code = "bsp.lump-skipped";
            w.message = fmt::format("{} could not be read and is skipped: {}", name, why.message);
            warnings_->add(std::move(w));
        }
        m_.skipped.push_back({lump, std::string(name), std::move(why)});
    }
    template <class T>
    void take(Result<T> r, T& out, LumpId id) {
        take(std::move(r), out, index_of(id), lump_name(index_of(id)));
    }
    bool failed() const { return failed_.has_value(); }
    Diagnostic error() && { return std::move(*failed_); }

private:
    MapData& m_;
    Diagnostics* warnings_;
    bool lenient_;
    std::optional<Diagnostic> failed_;
};

}  // namespace

const Diagnostic* MapData::skipped_error(LumpId id) const {
    for (const Skipped& s : skipped) {
        if (s.lump == index_of(id)) return &s.error;
    }
    return nullptr;
}

Result<MapData> parse_map(const Bsp& bsp, Diagnostics* warnings, const ParseOptions& opt) {
    MapData m;
    MapParser p(m, warnings, opt.lenient);
    using L = LumpId;
    p.take(entities(bsp, warnings), m.entities, L::entities);
    p.take(planes(bsp), m.planes, L::planes);
    p.take(vertexes(bsp), m.vertexes, L::vertexes);
    p.take(edges(bsp), m.edges, L::edges);
    p.take(surfedges(bsp), m.surfedges, L::surfedges);
    p.take(faces(bsp, L::faces), m.faces, L::faces);
    p.take(faces(bsp, L::originalfaces), m.original_faces, L::originalfaces);
    p.take(faces(bsp, L::faces_hdr), m.faces_hdr, L::faces_hdr);
    p.take(brushes(bsp), m.brushes, L::brushes);
    p.take(brushsides(bsp), m.brushsides, L::brushsides);
    p.take(models(bsp), m.models, L::models);
    p.take(nodes(bsp), m.nodes, L::nodes);
    p.take(leafs(bsp), m.leafs, L::leafs);
    p.take(leaffaces(bsp), m.leaffaces, L::leaffaces);
    p.take(leafbrushes(bsp), m.leafbrushes, L::leafbrushes);
    p.take(texinfo(bsp), m.texinfo, L::texinfo);
    p.take(texdata(bsp), m.texdata, L::texdata);
    p.take(texdata_strings(bsp), m.texdata_strings, L::texdata_string_table);
    p.take(visibility(bsp), m.visibility, L::visibility);
    p.take(dispinfo(bsp), m.dispinfo, L::dispinfo);
    p.take(disp_verts(bsp), m.disp_verts, L::disp_verts);
    p.take(disp_tris(bsp), m.disp_tris, L::disp_tris);
    if (bsp.version() == 25 && bsp.lump(L::overlays).version == 3) {
        p.take(strata_overlays(bsp), m.strata_overlays, L::overlays);
    } else {
        p.take(overlays(bsp), m.overlays, L::overlays);
    }
    p.take(water_overlays(bsp), m.water_overlays, L::wateroverlays);
    p.take(overlay_fades(bsp), m.overlay_fades, L::overlay_fades);
    p.take(cubemaps(bsp), m.cubemaps, L::cubemaps);
    p.take(areas(bsp), m.areas, L::areas);
    p.take(areaportals(bsp), m.areaportals, L::areaportals);
    p.take(clipportalverts(bsp), m.clipportalverts, L::clipportalverts);
    p.take(occlusion(bsp), m.occlusion, L::occlusion);
    p.take(worldlights(bsp, L::worldlights), m.worldlights, L::worldlights);
    p.take(worldlights(bsp, L::worldlights_hdr), m.worldlights_hdr, L::worldlights_hdr);
    p.take(static_props(bsp), m.static_props, index_of(L::game_lump), "sprp game lump");
    p.take(detail_props(bsp), m.detail_props, index_of(L::game_lump), "dprp game lump");
    p.take(pakfile(bsp), m.pak, L::pakfile);
    if (p.failed()) return std::move(p).error();
    return m;
}

namespace {
std::uint64_t pak_offset_as_read(const Bsp& bsp) {
    const auto& h = bsp.headers_as_read();
    return h.empty() ? 0 : static_cast<std::uint64_t>(h[index_of(LumpId::pakfile)].offset);
}
}  // namespace

Result<Pak> pakfile(const Bsp& bsp) {
    const Lump& lump = bsp.lump(LumpId::pakfile);
    if (lump.empty()) return Pak{};
    auto pak = Pak::parse(lump.data(), pak_offset_as_read(bsp));
    if (!pak) return std::move(std::move(pak).error().with_path("lump[40]"));
    return pak;
}

Result<void> set_pakfile(Bsp& bsp, const Pak& pak) {
    std::uint64_t at = pak_offset_as_read(bsp);
    LK_TRY_ASSIGN(Bytes bytes, pak.write(at));
    LK_TRY(bsp.set_lump(LumpId::pakfile, Blob::from_bytes(std::move(bytes))));
    if (!pak.offsets_relative_to_file()) return success();
    // The lump's final position is only known once the map is laid out; the archive's size
    // does not depend on it, so one re-encode settles it.
    LK_TRY_ASSIGN(Bytes written, bsp.write());
    LK_TRY_ASSIGN(Bsp relaid, Bsp::read(Blob::from_bytes(std::move(written))));
    at = pak_offset_as_read(relaid);
    LK_TRY_ASSIGN(bytes, pak.write(at));
    return bsp.set_lump(LumpId::pakfile, Blob::from_bytes(std::move(bytes)));
}

namespace {

class Checker {
public:
    explicit Checker(Diagnostics& out) : out_(out) {}

    // Reports items[i].field outside [0, limit).
    template <class T, class F>
    void index(std::span<const T> items, F field, std::size_t limit, int lump,
               std::string_view name, std::string_view target, bool allow_minus_one = false) {
        for (std::size_t i = 0; i < items.size(); ++i) {
            const auto v = static_cast<std::int64_t>(field(items[i]));
            if ((allow_minus_one && v == -1) || (v >= 0 && static_cast<std::uint64_t>(v) < limit)) {
                continue;
            }
            add(lump, i, name,
                fmt::format("{} {} is not a valid {} index (there are {})", name, v, target,
                            limit));
        }
    }
    // Reports items[i] ranges [first, first + count) outside [0, limit].
    template <class T, class F, class C>
    void range(std::span<const T> items, F first, C count, std::size_t limit, int lump,
               std::string_view name, std::string_view target) {
        for (std::size_t i = 0; i < items.size(); ++i) {
            const auto f = static_cast<std::int64_t>(first(items[i]));
            const auto c = static_cast<std::int64_t>(count(items[i]));
            if (f >= 0 && c >= 0 && static_cast<std::uint64_t>(f + c) <= limit) continue;
            add(lump, i, name,
                fmt::format("{} range [{}, {}+{}) exceeds the {} {}", name, f, f, c, limit,
                            target));
        }
    }

private:
    void add(int lump, std::size_t record, std::string_view field, std::string message) {
        // A corrupt lump would repeat the same error thousands of times; keep the first few.
        if (++per_lump_[lump] > kMaxPerLump) return;
        out_.add(Diagnostic::error("bsp.bad-reference",
                                   fmt::format("lump {} ({}): {}", lump, lump_name(lump), message))
                     .with_path(fmt::format("lump[{}]/record[{}]/{}", lump, record, field)));
    }
    static constexpr int kMaxPerLump = 20;
    Diagnostics& out_;
    std::array<int, kLumpCount> per_lump_{};
};

}  // namespace

void validate(const Bsp& bsp, Diagnostics& out) {
    auto m = parse_map(bsp, &out);
    if (!m) {
        out.add(std::move(m).error());
        return;
    }
    Checker c(out);
    const int brushes_i = index_of(LumpId::brushes), sides_i = index_of(LumpId::brushsides);
    c.range<dbrush_t>(
        m->brushes, [](const dbrush_t& b) { return b.firstside; },
        [](const dbrush_t& b) { return b.numsides; }, m->brushsides.size(), brushes_i, "firstside",
        "brush sides");
    c.index<dbrushside_t>(
        m->brushsides, [](const dbrushside_t& s) { return s.planenum; }, m->planes.size(), sides_i,
        "planenum", "plane");
    c.index<dbrushside_t>(
        m->brushsides, [](const dbrushside_t& s) { return s.texinfo; }, m->texinfo.size(), sides_i,
        "texinfo", "texinfo", true);
    for (LumpId which : {LumpId::faces, LumpId::originalfaces, LumpId::faces_hdr}) {
        const LumpView<dface_t>& f = which == LumpId::faces           ? m->faces
                                     : which == LumpId::originalfaces ? m->original_faces
                                                                      : m->faces_hdr;
        c.index<dface_t>(
            f, [](const dface_t& x) { return x.planenum; }, m->planes.size(), index_of(which),
            "planenum", "plane");
        // vbsp compacts texinfo after writing the original faces, whose indices go stale.
        if (which != LumpId::originalfaces) {
            c.index<dface_t>(
                f, [](const dface_t& x) { return x.texinfo; }, m->texinfo.size(), index_of(which),
                "texinfo", "texinfo", true);
        }
        c.range<dface_t>(
            f, [](const dface_t& x) { return x.firstedge; },
            [](const dface_t& x) { return x.numedges; }, m->surfedges.size(), index_of(which),
            "firstedge", "surfedges");
    }
    c.index<texinfo_t>(
        m->texinfo, [](const texinfo_t& t) { return t.texdata; }, m->texdata.size(),
        index_of(LumpId::texinfo), "texdata", "texdata", true);
    c.index<dtexdata_t>(
        m->texdata, [](const dtexdata_t& t) { return t.nameStringTableID; },
        m->texdata_strings.names.size(), index_of(LumpId::texdata), "nameStringTableID",
        "texture name");
    c.index<dedge_t>(
        m->edges, [](const dedge_t& e) { return std::max(e.v[0], e.v[1]); }, m->vertexes.size(),
        index_of(LumpId::edges), "v", "vertex");
    c.index<std::int32_t>(
        m->surfedges, [](std::int32_t s) { return s < 0 ? -static_cast<std::int64_t>(s) : s; },
        m->edges.size(), index_of(LumpId::surfedges), "edge", "edge");
    c.range<dleaf_t>(
        m->leafs, [](const dleaf_t& l) { return l.firstleafbrush; },
        [](const dleaf_t& l) { return l.numleafbrushes; }, m->leafbrushes.size(),
        index_of(LumpId::leafs), "firstleafbrush", "leaf brushes");
    c.range<dleaf_t>(
        m->leafs, [](const dleaf_t& l) { return l.firstleafface; },
        [](const dleaf_t& l) { return l.numleaffaces; }, m->leaffaces.size(),
        index_of(LumpId::leafs), "firstleafface", "leaf faces");
    c.index<std::uint32_t>(
        m->leafbrushes, [](std::uint32_t b) { return b; }, m->brushes.size(),
        index_of(LumpId::leafbrushes), "brush", "brush");
    c.index<dnode_t>(
        m->nodes, [](const dnode_t& n) { return n.planenum; }, m->planes.size(),
        index_of(LumpId::nodes), "planenum", "plane");
    // Console builds drop the LDR faces and keep only the HDR ones.
    c.index<ddispinfo_t>(
        m->dispinfo, [](const ddispinfo_t& d) { return d.m_iMapFace; },
        std::max(m->faces.size(), m->faces_hdr.size()), index_of(LumpId::dispinfo), "m_iMapFace",
        "face");
    c.range<ddispinfo_t>(
        m->dispinfo, [](const ddispinfo_t& d) { return d.m_iDispVertStart; },
        [](const ddispinfo_t& d) { return d.power >= 0 && d.power <= 16 ? d.vertex_count() : -1; },
        m->disp_verts.size(), index_of(LumpId::dispinfo), "m_iDispVertStart",
        "displacement vertices");
    const int game = index_of(LumpId::game_lump);
    const StaticProps& sp = m->static_props;
    c.index<StaticPropLump_t>(
        sp.props, [](const StaticPropLump_t& p) { return p.m_PropType; }, sp.dict.size(), game,
        "sprp/m_PropType", "static prop model");
    c.range<StaticPropLump_t>(
        sp.props, [](const StaticPropLump_t& p) { return p.m_FirstLeaf; },
        [](const StaticPropLump_t& p) { return p.m_LeafCount; }, sp.leaves.size(), game,
        "sprp/m_FirstLeaf", "static prop leaves");
    c.index<std::uint32_t>(
        sp.leaves, [](std::uint32_t l) { return l; }, m->leafs.size(), game, "sprp/leaves", "leaf");
}

}  // namespace lk::bsp
