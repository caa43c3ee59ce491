#include "levelkit/convert/bsp_faces.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "bsp_decompiler.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/props.hpp"
#include "levelkit/convert/bsp_scene.hpp"
#include "levelkit/core/bytes.hpp"
#include "levelkit/core/text.hpp"

namespace lk::convert {

namespace {

std::string num(double v) {
    return format_double(v);
}
std::string vec(const bsp::Vec3f& v) {
    return num(v.x) + " " + num(v.y) + " " + num(v.z);
}

class FaceBuilder {
public:
    FaceBuilder(const bsp::Bsp& map, Diagnostics& diags, const BspFacesOptions& opt,
                BspFacesReport& rep)
        : map_(map), diags_(diags), opt_(opt), rep_(rep) {}

    Result<scene::Scene> run();

private:
    template <class T>
    Result<void> need(Result<T> r, T& out) {
        if (!r) return std::move(r).error();
        out = std::move(r).value();
        return success();
    }
    template <class T>
    void want(Result<T> r, T& out, std::string_view what) {
        if (r) {
            out = std::move(r).value();
            return;
        }
        diags_.add(Diagnostic::warning("bsp-faces.lump-skipped",
                                       fmt::format("{} are not drawn: {}", what, r.error().message))
                       .with_path(r.error().path));
    }
    void warn_face(std::size_t f, std::string msg) {
        ++rep_.faces_skipped;
        if (warned_++ < 20) {
            diags_.add(Diagnostic::warning("bsp-faces.bad-face", std::move(msg))
                           .with_path(fmt::format("lump[7]/face[{}]", f)));
        }
    }

    void load_vertex_normals();
    void load_areas();
    int leaf_of(const Vec3& p) const;
    int area_of(const Vec3& centre, const Vec3& normal) const;
    void material_of(std::int32_t texinfo, scene::Mesh& mesh, std::uint32_t& mat,
                     const bsp::texinfo_t*& ti, std::array<double, 2>& size);
    bool face_corners(std::size_t f, std::vector<std::uint32_t>& out);
    void add_face(std::size_t f, const Vec3& origin, scene::Mesh& mesh);
    void add_displacement(std::size_t f, const bsp::dface_t& face, std::span<const Vec3> corners,
                          const Vec3& normal, const Vec3& origin, scene::Mesh& mesh);
    void entities(scene::Scene& s);
    void static_props(scene::Scene& s);

    const bsp::Bsp& map_;
    Diagnostics& diags_;
    const BspFacesOptions& opt_;
    BspFacesReport& rep_;
    std::size_t warned_ = 0;

    bsp::LumpView<bsp::dvertex_t> vertexes_;
    bsp::LumpView<bsp::dedge_t> edges_;
    bsp::LumpView<std::int32_t> surfedges_;
    bsp::LumpView<bsp::dface_t> faces_;
    bsp::LumpView<bsp::texinfo_t> texinfo_;
    bsp::LumpView<bsp::dtexdata_t> texdata_;
    bsp::TexdataStrings strings_;
    bsp::LumpView<bsp::dmodel_t> models_;
    bsp::LumpView<bsp::dplane_t> planes_;
    bsp::LumpView<bsp::ddispinfo_t> dispinfo_;
    bsp::LumpView<bsp::CDispVert> disp_verts_;
    bsp::LumpView<bsp::dnode_t> nodes_;
    bsp::LumpView<bsp::dleaf_t> leafs_;
    bool areas_ = false;

    // Vertex normals: per face, the index of its first entry in normal_index_ (or -1).
    std::vector<Vec3> normals_;
    std::vector<std::uint16_t> normal_index_;
    std::vector<std::int64_t> face_normal_start_;

    // Per texdata: the mesh-local material index (reset per mesh) and names.
    std::vector<std::string> texdata_names_;
    std::vector<std::int32_t> mesh_material_;
    std::vector<std::int32_t> touched_materials_;
    // Per BSP vertex: its position index in the mesh being built.
    std::vector<std::uint32_t> mesh_vertex_;
    std::vector<std::uint32_t> touched_vertices_;
    std::vector<std::uint32_t> corners_;
    std::vector<Vec3> points_;
};

void FaceBuilder::load_vertex_normals() {
    // LUMP_VERTNORMALS holds normals, LUMP_VERTNORMALINDICES one uint16 per face corner, faces
    // in lump order. vbsp writes entries for every face; accept the lumps only when their
    // count is exactly that.
    const bsp::Lump& nl = map_.lump(bsp::LumpId::vertnormals);
    const bsp::Lump& il = map_.lump(bsp::LumpId::vertnormalindices);
    if (nl.empty() || il.empty() || nl.size() % 12 || il.size() % 2) return;
    std::uint64_t total = 0;
    for (const bsp::dface_t& f : faces_) total += f.numedges > 0 ? std::uint64_t(f.numedges) : 0;
    if (total != il.size() / 2) return;
    ByteReader nr(nl.bytes(), map_.endian());
    normals_.resize(nl.size() / 12);
    for (Vec3& n : normals_) {
        const float x = nr.f32("normal"), y = nr.f32("normal"), z = nr.f32("normal");
        n = {x, y, z};
    }
    ByteReader ir(il.bytes(), map_.endian());
    normal_index_.resize(il.size() / 2);
    for (std::uint16_t& i : normal_index_) {
        i = ir.u16("index");
        if (i >= normals_.size()) {
            normals_.clear();
            normal_index_.clear();
            return;
        }
    }
    face_normal_start_.resize(faces_.size());
    std::int64_t at = 0;
    for (std::size_t f = 0; f < faces_.size(); ++f) {
        face_normal_start_[f] = at;
        at += std::max(faces_[f].numedges, 0);
    }
    rep_.vertex_normals = true;
}

void FaceBuilder::load_areas() {
    auto n = bsp::nodes(map_);
    auto l = bsp::leafs(map_);
    if (!n || !l || planes_.empty() || models_.empty()) return;
    nodes_ = std::move(n).value();
    leafs_ = std::move(l).value();
    areas_ = !nodes_.empty() && !leafs_.empty();
}

int FaceBuilder::leaf_of(const Vec3& p) const {
    std::int64_t node = models_[0].headnode;
    // A malformed tree may loop: never walk more steps than there are nodes.
    for (std::size_t steps = 0; steps <= nodes_.size(); ++steps) {
        if (node < 0) {
            const std::int64_t leaf = -node - 1;
            return leaf < std::int64_t(leafs_.size()) ? int(leaf) : -1;
        }
        if (node >= std::int64_t(nodes_.size())) return -1;
        const bsp::dnode_t& nd = nodes_[std::size_t(node)];
        if (nd.planenum < 0 || std::size_t(nd.planenum) >= planes_.size()) return -1;
        const bsp::dplane_t& pl = planes_[std::size_t(nd.planenum)];
        const double d = dot(p, pl.normal.to_vec3()) - pl.dist;
        node = nd.children[d >= 0 ? 0 : 1];
    }
    return -1;
}

int FaceBuilder::area_of(const Vec3& centre, const Vec3& normal) const {
    if (!areas_) return 0;
    // The area of the open leaf in front of the face. A point just in front may still be in
    // solid (a displacement's buried base face, a face partly covered by another brush): step
    // further out before giving up.
    for (double d : {0.5, 2.0, 8.0, 32.0}) {
        const int leaf = leaf_of(centre + normal * d);
        if (leaf >= 0 && !(leafs_[std::size_t(leaf)].contents & 1))
            return leafs_[std::size_t(leaf)].area;
    }
    return 0;
}

bool FaceBuilder::face_corners(std::size_t f, std::vector<std::uint32_t>& out) {
    out.clear();
    const bsp::dface_t& face = faces_[f];
    if (face.numedges < 3 || face.firstedge < 0 ||
        std::uint64_t(face.firstedge) + std::uint64_t(face.numedges) > surfedges_.size()) {
        warn_face(f, fmt::format("face {} has {} edges from {}, outside the {} surfedges", f,
                                 face.numedges, face.firstedge, surfedges_.size()));
        return false;
    }
    for (std::int32_t k = 0; k < face.numedges; ++k) {
        const std::int32_t se = surfedges_[std::size_t(face.firstedge + k)];
        // A negative surfedge walks its edge backwards.
        const std::uint64_t e = se < 0 ? std::uint64_t(-std::int64_t(se)) : std::uint64_t(se);
        if (e >= edges_.size()) {
            warn_face(f, fmt::format("face {} names edge {} of {}", f, e, edges_.size()));
            return false;
        }
        const std::uint32_t v = edges_[e].v[se < 0 ? 1 : 0];
        if (v >= vertexes_.size()) {
            warn_face(f, fmt::format("face {} names vertex {} of {}", f, v, vertexes_.size()));
            return false;
        }
        out.push_back(v);
    }
    return true;
}

void FaceBuilder::material_of(std::int32_t texinfo, scene::Mesh& mesh, std::uint32_t& mat,
                              const bsp::texinfo_t*& ti, std::array<double, 2>& size) {
    ti = texinfo >= 0 && std::size_t(texinfo) < texinfo_.size() ? &texinfo_[std::size_t(texinfo)]
                                                                : nullptr;
    const std::int32_t td = ti ? ti->texdata : -1;
    size = {opt_.default_texture_size, opt_.default_texture_size};
    if (td < 0 || std::size_t(td) >= texdata_.size()) {
        // No texdata: an unnamed material.
        auto it = std::find(mesh.materials.begin(), mesh.materials.end(), std::string());
        if (it == mesh.materials.end()) {
            mesh.materials.emplace_back();
            it = mesh.materials.end() - 1;
        }
        mat = std::uint32_t(it - mesh.materials.begin());
        return;
    }
    const bsp::dtexdata_t& t = texdata_[std::size_t(td)];
    if (t.width > 0) size[0] = t.width;
    if (t.height > 0) size[1] = t.height;
    std::int32_t& local = mesh_material_[std::size_t(td)];
    if (local < 0) {
        local = std::int32_t(mesh.materials.size());
        mesh.materials.push_back(texdata_names_[std::size_t(td)]);
        touched_materials_.push_back(td);
    }
    mat = std::uint32_t(local);
}

void FaceBuilder::add_face(std::size_t f, const Vec3& origin, scene::Mesh& mesh) {
    const bsp::dface_t& face = faces_[f];
    if (!face_corners(f, corners_)) return;
    points_.clear();
    for (std::uint32_t v : corners_) points_.push_back(vertexes_[v].to_vec3());
    // The face's front normal. planenum already names the plane facing the face's way (vbsp
    // keeps planes in opposite pairs; `side` is just its parity). The lump winds faces clockwise
    // seen from the front.
    Vec3 normal;
    if (face.planenum < planes_.size()) normal = planes_[face.planenum].normal.to_vec3();
    const Vec3 area = winding_area_vector(points_);
    if (face.dispinfo < 0 && !(length(area) > 1e-9)) {
        // vbsp leaves faces without area behind (collapsed slivers); nothing to draw.
        ++rep_.degenerate_faces;
        return;
    }
    if (normal == Vec3{}) normal = -normalize(area);
    const bool reverse = dot(area, normal) < 0;

    std::uint32_t mat = 0;
    const bsp::texinfo_t* ti = nullptr;
    std::array<double, 2> size{};
    material_of(face.texinfo, mesh, mat, ti, size);

    if (face.dispinfo >= 0) {
        if (corners_.size() == 4 && std::size_t(face.dispinfo) < dispinfo_.size()) {
            add_displacement(f, face, points_, normal, origin, mesh);
        } else {
            warn_face(f, fmt::format("displacement face {} has {} corners or dispinfo {} of {}", f,
                                     corners_.size(), face.dispinfo, dispinfo_.size()));
        }
        return;
    }

    scene::Mesh::Face out;
    out.first = std::uint32_t(mesh.face_vertices.size());
    out.count = std::uint32_t(corners_.size());
    out.material = mat;
    const bool normals = rep_.vertex_normals;
    const std::size_t n = corners_.size();
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t src = reverse ? n - 1 - k : k;
        const std::uint32_t v = corners_[src];
        std::uint32_t& local = mesh_vertex_[v];
        if (local == UINT32_MAX) {
            local = std::uint32_t(mesh.positions.size());
            mesh.positions.push_back(points_[src] + origin);
            touched_vertices_.push_back(v);
        }
        mesh.face_vertices.push_back(local);
        // Texture coordinates are taken on the model-space position (the texinfo of an entity
        // brush includes its origin).
        const Vec3& p = points_[src];
        std::array<double, 2> uv{0, 0};
        if (ti) {
            const auto& s = ti->textureVecsTexelsPerWorldUnits;
            uv[0] = (p.x * s[0][0] + p.y * s[0][1] + p.z * s[0][2] + s[0][3]) / size[0];
            uv[1] = (p.x * s[1][0] + p.y * s[1][1] + p.z * s[1][2] + s[1][3]) / size[1];
        }
        mesh.uvs.push_back(uv);
        Vec3 vn = normal;
        if (normals) vn = normals_[normal_index_[std::size_t(face_normal_start_[f]) + src]];
        mesh.normals.push_back(vn);
        if (!mesh.colors.empty()) mesh.colors.push_back({1, 1, 1, 1});
    }
    mesh.faces.push_back(out);
    ++rep_.faces;
}

void FaceBuilder::add_displacement(std::size_t f, const bsp::dface_t& face,
                                   std::span<const Vec3> corners, const Vec3& normal,
                                   const Vec3& origin, scene::Mesh& mesh) {
    const bsp::ddispinfo_t& d = dispinfo_[std::size_t(face.dispinfo)];
    if (d.power < 0 || d.power > 4) {
        warn_face(f, fmt::format("displacement {} has power {}", face.dispinfo, d.power));
        return;
    }
    const std::size_t count = std::size_t(d.vertex_count());
    if (d.m_iDispVertStart < 0 || std::uint64_t(d.m_iDispVertStart) + count > disp_verts_.size()) {
        warn_face(f, fmt::format("displacement {} names vertices {}..{} of {}", face.dispinfo,
                                 d.m_iDispVertStart, std::uint64_t(d.m_iDispVertStart) + count,
                                 disp_verts_.size()));
        return;
    }
    std::vector<Vec3> dirs(count);
    std::vector<double> dists(count);
    for (std::size_t i = 0; i < count; ++i) {
        const bsp::CDispVert& v = disp_verts_[std::size_t(d.m_iDispVertStart) + i];
        dirs[i] = v.m_vVector.to_vec3();
        dists[i] = v.m_flDist;
    }
    DisplacementFields fields{d.power, d.startPosition.to_vec3(), 0, dirs, dists, {}};
    const auto grid = lk::displacement_grid(fields, corners, normal);
    fields.normals = {};
    fields.distances = {};
    const auto flat = lk::displacement_grid(fields, corners, normal);
    if (!grid || !flat) {
        warn_face(f, fmt::format("displacement {} has no grid", face.dispinfo));
        return;
    }
    std::uint32_t mat = 0;
    const bsp::texinfo_t* ti = nullptr;
    std::array<double, 2> size{};
    material_of(face.texinfo, mesh, mat, ti, size);
    const auto tris = displacement_triangles(d.power);
    const auto& t0 = tris.front();
    const bool flip =
        dot(cross((*flat)[t0[1]] - (*flat)[t0[0]], (*flat)[t0[2]] - (*flat)[t0[0]]), normal) < 0;
    std::vector<Vec3> vn(count);
    for (const auto& t : tris) {
        Vec3 n = cross((*grid)[t[1]] - (*grid)[t[0]], (*grid)[t[2]] - (*grid)[t[0]]);
        if (flip) n = -n;
        for (std::uint32_t v : t) vn[v] += n;
    }
    const std::uint32_t base = std::uint32_t(mesh.positions.size());
    for (std::size_t i = 0; i < count; ++i) mesh.positions.push_back((*grid)[i] + origin);
    if (mesh.colors.size() < mesh.uvs.size()) mesh.colors.resize(mesh.uvs.size(), {1, 1, 1, 1});
    for (const auto& t : tris) {
        scene::Mesh::Face out;
        out.first = std::uint32_t(mesh.face_vertices.size());
        out.count = 3;
        out.material = mat;
        const std::array<std::uint32_t, 3> c =
            flip ? std::array<std::uint32_t, 3>{t[0], t[2], t[1]} : t;
        for (std::uint32_t v : c) {
            mesh.face_vertices.push_back(base + v);
            const Vec3& p = (*flat)[v];
            std::array<double, 2> uv{0, 0};
            if (ti) {
                const auto& s = ti->textureVecsTexelsPerWorldUnits;
                uv[0] = (p.x * s[0][0] + p.y * s[0][1] + p.z * s[0][2] + s[0][3]) / size[0];
                uv[1] = (p.x * s[1][0] + p.y * s[1][1] + p.z * s[1][2] + s[1][3]) / size[1];
            }
            mesh.uvs.push_back(uv);
            const Vec3 n = normalize(vn[v]);
            mesh.normals.push_back(n == Vec3{} ? normal : n);
            const double alpha = disp_verts_[std::size_t(d.m_iDispVertStart) + v].m_flAlpha / 255.0;
            mesh.colors.push_back({1, 1, 1, std::clamp(alpha, 0.0, 1.0)});
        }
        mesh.faces.push_back(out);
    }
    ++rep_.displacements;
}

void FaceBuilder::entities(scene::Scene& s) {
    Diagnostics warnings;
    auto lump = bsp::entities(map_, &warnings);
    diags_.add_all(warnings);
    if (!lump) return;
    if (lump->separator() != bsp::OutputSeparator::none)
        s.output_separator = lump->separator() == bsp::OutputSeparator::esc ? '\x1b' : ',';
    std::size_t entity_index = 0;
    for (const kv::Node& node : lump->entities()) {
        ++entity_index;
        scene::Entity e;
        for (const kv::Node& kv : node) {
            if (!kv.is_value()) continue;
            if (auto o = bsp::EntityLump::parse_output(kv.key(), kv.value())) {
                e.outputs.push_back(detail::scene_output(
                    *o, kv.value(),
                    fmt::format("lump[0]/entity[{}]/{}", entity_index - 1, kv.key()), diags_));
                continue;
            }
            e.keys.push_back({std::string(kv.key()), std::string(kv.value())});
        }
        if (auto id = parse_int(trim(e.get("hammerid")))) e.id = *id;
        if (iequals(e.classname(), "worldspawn")) {
            s.world.keys = std::move(e.keys);
            s.world.outputs = std::move(e.outputs);
            continue;
        }
        s.entities.push_back(std::move(e));
        ++rep_.entities;
    }
}

void FaceBuilder::static_props(scene::Scene& s) {
    if (!opt_.static_props) return;
    bsp::StaticProps sp;
    want(bsp::static_props(map_), sp, "static props");
    using L = bsp::StaticPropLayout;
    for (std::size_t i = 0; i < sp.props.size(); ++i) {
        const bsp::StaticPropLump_t& p = sp.props[i];
        if (p.m_PropType >= sp.dict.size()) continue;
        scene::Entity e;
        e.set("classname", "prop_static");
        e.set("origin", vec(p.m_Origin));
        e.set("angles", vec(p.m_Angles));
        e.set("model", std::string(sp.model_name(p.m_PropType)));
        e.set("skin", std::to_string(p.m_Skin));
        e.set("solid", std::to_string(p.m_Solid));
        if (sp.layout == L::v11 || sp.layout == L::v12_strata)
            e.set("uniformscale", num(p.m_flScale[0]));
        if (sp.layout == L::v13_strata) {
            e.set("modelscale",
                  num(p.m_flScale[0]) + " " + num(p.m_flScale[1]) + " " + num(p.m_flScale[2]));
        }
        s.entities.push_back(std::move(e));
        ++rep_.static_props;
    }
}

Result<scene::Scene> FaceBuilder::run() {
    LK_TRY(need(bsp::vertexes(map_), vertexes_));
    LK_TRY(need(bsp::edges(map_), edges_));
    LK_TRY(need(bsp::surfedges(map_), surfedges_));
    LK_TRY(need(bsp::faces(map_), faces_));
    LK_TRY(need(bsp::texinfo(map_), texinfo_));
    LK_TRY(need(bsp::texdata(map_), texdata_));
    LK_TRY(need(bsp::texdata_strings(map_), strings_));
    LK_TRY(need(bsp::models(map_), models_));
    want(bsp::planes(map_), planes_, "face normals and areas");
    if (!map_.lump(bsp::LumpId::dispinfo).empty()) {
        want(bsp::dispinfo(map_), dispinfo_, "displacements");
        want(bsp::disp_verts(map_), disp_verts_, "displacements");
    }
    load_vertex_normals();
    load_areas();

    texdata_names_.resize(texdata_.size());
    for (std::size_t i = 0; i < texdata_.size(); ++i) {
        const std::int32_t id = texdata_[i].nameStringTableID;
        std::string name;
        if (id >= 0 && std::size_t(id) < strings_.names.size())
            name = std::string(strings_.names[std::size_t(id)]);
        texdata_names_[i] = opt_.unpatch_materials ? unpatch_material(name) : name;
    }
    mesh_material_.assign(texdata_.size(), -1);
    mesh_vertex_.assign(vertexes_.size(), UINT32_MAX);

    scene::Scene s;
    s.source_format = "bsp";
    entities(s);
    if (s.world.get("classname").empty())
        s.world.keys.insert(s.world.keys.begin(), {"classname", "worldspawn"});
    auto finish_mesh = [&](scene::Mesh& mesh) {
        for (std::int32_t td : touched_materials_) mesh_material_[std::size_t(td)] = -1;
        touched_materials_.clear();
        for (std::uint32_t v : touched_vertices_) mesh_vertex_[v] = UINT32_MAX;
        touched_vertices_.clear();
        if (!mesh.colors.empty() && mesh.colors.size() < mesh.uvs.size())
            mesh.colors.resize(mesh.uvs.size(), {1, 1, 1, 1});
    };
    auto faces_of = [&](std::uint32_t m) -> std::pair<std::size_t, std::size_t> {
        const bsp::dmodel_t& md = models_[m];
        if (md.firstface < 0 || md.numfaces < 0 ||
            std::uint64_t(md.firstface) + std::uint64_t(md.numfaces) > faces_.size()) {
            diags_.add(Diagnostic::warning("bsp-faces.bad-model",
                                           fmt::format("model {} names faces {}+{} of {}", m,
                                                       md.firstface, md.numfaces, faces_.size()))
                           .with_path(fmt::format("lump[14]/model[{}]", m)));
            return {0, 0};
        }
        return {std::size_t(md.firstface), std::size_t(md.firstface) + std::size_t(md.numfaces)};
    };
    rep_.models = models_.size();

    // The world, one mesh per area (ordered by area number).
    if (!models_.empty()) {
        const auto [first, last] = faces_of(0);
        std::map<int, std::vector<std::size_t>> by_area;
        for (std::size_t f = first; f < last; ++f) {
            int area = 0;
            if (areas_ && face_corners(f, corners_)) {
                Vec3 c;
                for (std::uint32_t v : corners_) c += vertexes_[v].to_vec3();
                c = c / double(corners_.size());
                const bsp::dface_t& face = faces_[f];
                const Vec3 n = face.planenum < planes_.size()
                                   ? planes_[face.planenum].normal.to_vec3()
                                   : Vec3{0, 0, 1};
                area = area_of(c, n);
            } else if (areas_) {
                continue;  // warned by face_corners; add_face would warn again
            }
            by_area[area].push_back(f);
        }
        for (const auto& [area, list] : by_area) {
            scene::Mesh mesh;
            mesh.id = area;
            for (std::size_t f : list) add_face(f, {}, mesh);
            finish_mesh(mesh);
            if (!mesh.faces.empty()) {
                s.world.meshes.push_back(std::move(mesh));
                ++rep_.meshes;
            }
        }
    }
    // Brush entities.
    for (scene::Entity& e : s.entities) {
        const std::string_view model = e.get("model");
        if (model.size() < 2 || model[0] != '*') continue;
        auto m = parse_int(model.substr(1));
        if (!m || *m <= 0 || std::uint64_t(*m) >= models_.size()) continue;
        const Vec3 origin = e.origin().value_or(Vec3{});
        const auto [first, last] = faces_of(std::uint32_t(*m));
        scene::Mesh mesh;
        mesh.id = *m;
        for (std::size_t f = first; f < last; ++f) add_face(f, origin, mesh);
        finish_mesh(mesh);
        ++rep_.brush_entities;
        if (!mesh.faces.empty()) {
            e.meshes.push_back(std::move(mesh));
            ++rep_.meshes;
        }
    }
    static_props(s);
    if (rep_.faces_skipped > warned_) {
        diags_.add(
            Diagnostic::warning("bsp-faces.bad-face",
                                fmt::format("{} faces in all are not drawn", rep_.faces_skipped)));
    }
    return s;
}

}  // namespace

Result<scene::Scene> bsp_faces_to_scene(const bsp::Bsp& map, Diagnostics& diags,
                                        const BspFacesOptions& opt, BspFacesReport* report) {
    BspFacesReport local;
    BspFacesReport& r = report ? *report : local;
    r = {};
    return FaceBuilder(map, diags, opt, r).run();
}

std::map<std::string, std::array<double, 2>> bsp_texture_sizes(const bsp::Bsp& map) {
    std::map<std::string, std::array<double, 2>> sizes;
    auto td = bsp::texdata(map);
    auto names = bsp::texdata_strings(map);
    if (!td || !names) return sizes;
    for (const bsp::dtexdata_t& t : *td) {
        if (t.nameStringTableID < 0 || std::size_t(t.nameStringTableID) >= names->names.size() ||
            t.width <= 0 || t.height <= 0)
            continue;
        const std::string_view name = names->names[std::size_t(t.nameStringTableID)];
        const std::array<double, 2> size{double(t.width), double(t.height)};
        sizes.try_emplace(to_lower(name), size);
        sizes.try_emplace(to_lower(unpatch_material(name)), size);
    }
    return sizes;
}

Result<scene::Scene> bsp_drawable_scene(const bsp::Bsp& map, bool brushes, Diagnostics& diags) {
    auto s = brushes ? bsp_to_scene(map, diags) : bsp_faces_to_scene(map, diags);
    if (s) s->texture_sizes = bsp_texture_sizes(map);
    return s;
}

}  // namespace lk::convert
