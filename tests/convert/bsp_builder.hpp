// Builds small compiled maps in memory the way vbsp lays them out: planes in pairs, brushes with
// outward sides (bevels appended), models owning their brushes through a one-node tree, faces
// for the sides that show, texinfo from Hammer-style axes. Tests and fuzz seeds use it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/props.hpp"
#include "levelkit/core/geometry.hpp"

namespace lk::test {

class BspBuilder {
public:
    // Box side order used by box(): +x, -x, +y, -y, +z, -z.
    enum Side { px, nx, py, ny, pz, nz };

    std::string entities = "{\n\"classname\" \"worldspawn\"\n}\n";
    std::vector<bsp::dplane_t> planes;
    std::vector<bsp::dbrush_t> brushes;
    std::vector<bsp::dbrushside_t> sides;
    std::vector<bsp::dmodel_t> models;
    std::vector<bsp::dnode_t> nodes;
    std::vector<bsp::dleaf_t> leafs;
    std::vector<std::uint32_t> leafbrushes;
    std::vector<bsp::texinfo_t> texinfo;
    std::vector<bsp::dtexdata_t> texdata;
    std::vector<std::int32_t> string_table;
    std::string string_data;
    std::vector<bsp::dface_t> faces;
    std::vector<bsp::Vec3f> vertexes;
    std::vector<bsp::dedge_t> edges{bsp::dedge_t{}};  // edge 0 is never used (sign = direction)
    std::vector<std::int32_t> surfedges;
    std::vector<bsp::ddispinfo_t> dispinfo;
    std::vector<bsp::CDispVert> disp_verts;
    std::vector<bsp::CDispTri> disp_tris;
    std::vector<bsp::doverlay_t> overlays;
    std::vector<bsp::dcubemapsample_t> cubemaps;
    std::vector<bsp::dareaportal_t> areaportals;
    std::vector<bsp::Vec3f> clipportalverts;
    std::optional<bsp::Occlusion> occlusion;
    std::optional<bsp::StaticProps> static_props;
    std::optional<bsp::DetailProps> detail_props;
    // Layout: the BSP version and lump versions the lumps are written in (Strata: overlays
    // version 3 writes `strata_overlays`).
    std::int32_t version = 20;
    std::vector<std::pair<bsp::LumpId, std::int32_t>> lump_versions;
    std::optional<bsp::StrataOverlays> strata_overlays;

    // Index of the plane (vbsp keeps each plane next to its opposite).
    std::uint32_t plane(const Vec3& n, double d) {
        for (std::uint32_t i = 0; i < planes.size(); ++i) {
            if (near(planes[i].normal.to_vec3(), n, 1e-9) && std::abs(planes[i].dist - d) < 1e-9)
                return i;
        }
        planes.push_back({f3(n), float(d), 0});
        planes.push_back({f3(-n), float(-d), 0});
        return std::uint32_t(planes.size() - 2);
    }

    std::int32_t material(const std::string& name, int w = 512, int h = 512) {
        string_table.push_back(std::int32_t(string_data.size()));
        string_data += name;
        string_data += '\0';
        bsp::dtexdata_t t;
        t.nameStringTableID = std::int32_t(string_table.size() - 1);
        t.width = t.view_width = w;
        t.height = t.view_height = h;
        texdata.push_back(t);
        return std::int32_t(texdata.size() - 1);
    }

    // vbsp's texinfo for Hammer axes "[u su] scale_u" / "[v sv] scale_v" on an entity at origin.
    std::int32_t tex(std::int32_t mat, Vec3 u, double shift_u, double scale_u, Vec3 v,
                     double shift_v, double scale_v, std::int32_t flags = 0, double lightmap = 16,
                     Vec3 origin = {}) {
        bsp::texinfo_t t;
        const Vec3 tu = u / scale_u, tv = v / scale_v;
        for (int k = 0; k < 3; ++k) {
            t.textureVecsTexelsPerWorldUnits[0][k] = float(tu[k]);
            t.textureVecsTexelsPerWorldUnits[1][k] = float(tv[k]);
            t.lightmapVecsLuxelsPerWorldUnits[0][k] = float(u[k] / lightmap);
            t.lightmapVecsLuxelsPerWorldUnits[1][k] = float(v[k] / lightmap);
        }
        t.textureVecsTexelsPerWorldUnits[0][3] = float(shift_u + dot(origin, tu));
        t.textureVecsTexelsPerWorldUnits[1][3] = float(shift_v + dot(origin, tv));
        t.flags = flags;
        t.texdata = mat;
        texinfo.push_back(t);
        return std::int32_t(texinfo.size() - 1);
    }

    // An axis-aligned box brush; texinfo per side (px..nz). `bevel` appends a bevel side that
    // repeats the +x plane (the decompiler must skip it).
    std::int32_t box(const Vec3& mn, const Vec3& mx, std::int32_t contents,
                     const std::array<std::int32_t, 6>& tex, bool bevel = false) {
        bsp::dbrush_t b;
        b.firstside = std::int32_t(sides.size());
        b.contents = contents;
        const std::array<std::pair<Vec3, double>, 6> p{{{{1, 0, 0}, mx.x},
                                                        {{-1, 0, 0}, -mn.x},
                                                        {{0, 1, 0}, mx.y},
                                                        {{0, -1, 0}, -mn.y},
                                                        {{0, 0, 1}, mx.z},
                                                        {{0, 0, -1}, -mn.z}}};
        for (int k = 0; k < 6; ++k) {
            bsp::dbrushside_t s;
            s.planenum = plane(p[k].first, p[k].second);
            s.texinfo = tex[k];
            sides.push_back(s);
        }
        if (bevel) {
            bsp::dbrushside_t s;
            s.planenum = plane({1, 0, 0}, mx.x);
            s.texinfo = tex[0];
            s.bevel = 1;
            sides.push_back(s);
        }
        b.numsides = std::int32_t(sides.size()) - b.firstside;
        brushes.push_back(b);
        return std::int32_t(brushes.size() - 1);
    }

    // A brush from outward planes (unit normal, distance), all sides textured with `tex`;
    // `bevel[i]` sets side i's bevel flag.
    std::int32_t brush(std::int32_t contents, const std::vector<std::pair<Vec3, double>>& p,
                       std::int32_t tex, const std::vector<bool>& bevel = {}) {
        bsp::dbrush_t b;
        b.firstside = std::int32_t(sides.size());
        b.contents = contents;
        for (std::size_t k = 0; k < p.size(); ++k) {
            bsp::dbrushside_t s;
            s.planenum = plane(p[k].first, p[k].second);
            s.texinfo = tex;
            s.bevel = k < bevel.size() && bevel[k];
            sides.push_back(s);
        }
        b.numsides = std::int32_t(p.size());
        brushes.push_back(b);
        return std::int32_t(brushes.size() - 1);
    }

    // The polygon of side `k` of brush `b`, wound as vbsp winds faces.
    Winding polygon(std::int32_t b, int k) const {
        std::vector<std::optional<Plane>> pl;
        const bsp::dbrush_t& br = brushes[std::size_t(b)];
        for (int i = 0; i < br.numsides; ++i) {
            const bsp::dbrushside_t& s = sides[std::size_t(br.firstside + i)];
            if (s.bevel) continue;
            const bsp::dplane_t& p = planes[s.planenum];
            pl.push_back(Plane{p.normal.to_vec3(), p.dist});
        }
        BrushPolygons polys;
        build_brush_polygons(pl, {}, polys);
        const auto f = polys.face(std::size_t(k));
        return Winding(f.begin(), f.end());
    }

    // A face showing side `k` of brush `b` (texinfo and plane of the side).
    std::int32_t face(std::int32_t b, int k, std::int32_t disp = -1) {
        const bsp::dbrushside_t& s = sides[std::size_t(brushes[std::size_t(b)].firstside + k)];
        return face_from(polygon(b, k), s.planenum, s.texinfo, disp);
    }

    std::int32_t face_from(const Winding& w, std::uint32_t planenum, std::int32_t ti,
                           std::int32_t disp = -1) {
        bsp::dface_t f;
        f.planenum = planenum;
        f.side = std::uint8_t(planenum & 1);
        f.firstedge = std::int32_t(surfedges.size());
        f.numedges = std::int32_t(w.size());
        f.texinfo = ti;
        f.dispinfo = disp;
        f.origFace = -1;
        for (std::size_t i = 0; i < w.size(); ++i) {
            bsp::dedge_t e;
            e.v[0] = std::uint32_t(vertexes.size() + i);
            e.v[1] = std::uint32_t(vertexes.size() + (i + 1) % w.size());
            edges.push_back(e);
            surfedges.push_back(std::int32_t(edges.size() - 1));
        }
        for (const Vec3& p : w) vertexes.push_back(f3(p));
        faces.push_back(f);
        return std::int32_t(faces.size() - 1);
    }

    // A model owning `brush_list` through one node with two leaves, with the faces added since
    // `first_face`. Call for the world first.
    void model(const std::vector<std::int32_t>& brush_list, std::int32_t first_face,
               Vec3 origin = {}) {
        bsp::dmodel_t m;
        m.headnode = std::int32_t(nodes.size());
        m.firstface = first_face;
        m.numfaces = std::int32_t(faces.size()) - first_face;
        m.origin = f3(origin);
        Aabb box;
        bsp::dleaf_t solid, empty;
        solid.contents = 1;
        solid.firstleafbrush = std::uint32_t(leafbrushes.size());
        for (std::int32_t b : brush_list) {
            leafbrushes.push_back(std::uint32_t(b));
            const bsp::dbrush_t& br = brushes[std::size_t(b)];
            int real = 0;
            for (int k = 0; k < br.numsides; ++k)
                real += !sides[std::size_t(br.firstside + k)].bevel;
            for (int k = 0; k < real; ++k) {
                for (const Vec3& p : polygon(b, k)) box.add(p);
            }
        }
        solid.numleafbrushes = std::uint32_t(brush_list.size());
        if (!box.empty()) {
            m.mins = f3(box.mins);
            m.maxs = f3(box.maxs);
            for (int k = 0; k < 3; ++k) {
                solid.mins[k] = float(box.mins[k]);
                solid.maxs[k] = float(box.maxs[k]);
            }
        }
        empty.leafWaterDataID = solid.leafWaterDataID = -1;
        bsp::dnode_t n;
        n.planenum = 0;
        n.children[0] = -1 - std::int32_t(leafs.size());
        n.children[1] = -2 - std::int32_t(leafs.size());
        leafs.push_back(solid);
        leafs.push_back(empty);
        nodes.push_back(n);
        models.push_back(m);
    }

    Bytes write() const {
        bsp::Bsp b = bsp::Bsp::make_empty(version);
        using L = bsp::LumpId;
        for (const auto& [id, v] : lump_versions) b.set_lump_version(id, v);
        auto put = [&](L id, auto items) {
            auto bytes = bsp::encode(b, id, std::span(items));
            if (!bytes) throw std::runtime_error(bytes.error().to_string());
            if (!b.set_lump(id, Blob::from_bytes(std::move(bytes).value())))
                throw std::runtime_error("set_lump");
        };
        if (!bsp::replace_entities(b, entities)) throw std::runtime_error("entities");
        put(L::planes, planes);
        put(L::brushes, brushes);
        put(L::brushsides, sides);
        put(L::models, models);
        put(L::nodes, nodes);
        put(L::leafs, leafs);
        put(L::leafbrushes, leafbrushes);
        put(L::texinfo, texinfo);
        put(L::texdata, texdata);
        put(L::texdata_string_table, string_table);
        if (!b.set_lump(L::texdata_string_data, Blob::copy_of(string_data)))
            throw std::runtime_error("strings");
        put(L::faces, faces);
        put(L::vertexes, vertexes);
        put(L::edges, edges);
        put(L::surfedges, surfedges);
        if (!dispinfo.empty()) {
            put(L::dispinfo, dispinfo);
            put(L::disp_verts, disp_verts);
            put(L::disp_tris, disp_tris);
        }
        if (!overlays.empty()) put(L::overlays, overlays);
        if (strata_overlays) {
            b.set_lump_version(L::overlays, 3);
            auto bytes = bsp::encode(b, *strata_overlays);
            if (!bytes || !b.set_lump(L::overlays, Blob::from_bytes(std::move(bytes).value())))
                throw std::runtime_error("overlays");
        }
        if (!cubemaps.empty()) put(L::cubemaps, cubemaps);
        if (!areaportals.empty()) {
            put(L::areaportals, areaportals);
            put(L::clipportalverts, clipportalverts);
        }
        if (occlusion) {
            b.set_lump_version(L::occlusion, occlusion->version);
            auto bytes = bsp::encode(b, *occlusion);
            if (!bytes || !b.set_lump(L::occlusion, Blob::from_bytes(std::move(bytes).value())))
                throw std::runtime_error("occlusion");
        }
        if (static_props) {
            auto bytes = bsp::encode(b, *static_props);
            if (!bytes) throw std::runtime_error(bytes.error().to_string());
            b.set_game_lump(bsp::kStaticPropsId, static_props->version,
                            Blob::from_bytes(std::move(bytes).value()));
        }
        if (detail_props) {
            auto bytes = bsp::encode(b, *detail_props);
            if (!bytes) throw std::runtime_error(bytes.error().to_string());
            b.set_game_lump(bsp::kDetailPropsId, detail_props->version,
                            Blob::from_bytes(std::move(bytes).value()));
        }
        auto out = b.write();
        if (!out) throw std::runtime_error(out.error().to_string());
        return std::move(out).value();
    }

    static bsp::Vec3f f3(const Vec3& v) { return {float(v.x), float(v.y), float(v.z)}; }
};

}  // namespace lk::test
