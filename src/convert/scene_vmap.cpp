#include "levelkit/convert/scene_vmap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "levelkit/core/text.hpp"
#include "levelkit/scene/geometry.hpp"

namespace lk::convert {

std::string vmat_path(std::string_view vmt) {
    std::string m = to_lower(vmt);
    std::replace(m.begin(), m.end(), '\\', '/');
    if (iends_with(m, ".vmt")) m.resize(m.size() - 4);
    if (m.rfind("materials/", 0) != 0) m.insert(0, "materials/");
    return m + ".vmat";
}

std::string vmt_material(std::string_view vmat) {
    std::string_view m = vmat;
    if (!iends_with(m, ".vmat")) return std::string(vmat);
    m.remove_suffix(5);
    if (m.size() > 10 && iequals(m.substr(0, 10), "materials/")) m.remove_prefix(10);
    return std::string(m);
}

namespace {

using vmap::ElementRef;

dmx::Vector3 f3(const Vec3& v) {
    return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

// Welds points closer than `eps` (brushes have a few dozen corners, so a scan is cheapest).
std::uint32_t weld(std::vector<Vec3>& points, const Vec3& p, double eps) {
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (near(points[i], p, eps)) return static_cast<std::uint32_t>(i);
    }
    points.push_back(p);
    return static_cast<std::uint32_t>(points.size() - 1);
}

// Per-face texture data in the order Hammer writes the face streams.
struct FaceTexture {
    std::uint32_t material = 0;
    const scene::TextureAxis* u = nullptr;
    const scene::TextureAxis* v = nullptr;
    Vec3 normal;
};

class VmapWriter {
public:
    // `spend`: the same scene when the caller gives it up; its brushes, meshes and entities are
    // then freed as they are converted, and their memory goes to the output.
    VmapWriter(const scene::Scene& s, scene::Scene* spend, Diagnostics& diags,
               const SceneToVmapOptions& opt, SceneToVmapReport& report)
        : s_(s), spend_(spend), diags_(diags), opt_(opt), r_(report), b_(opt.seed, opt.build) {
        b_.pack_meshes(opt.packed);
    }

    dmx::Document run() {
        std::vector<std::pair<std::string, std::string>> world_props;
        for (const scene::KeyValue& kv : s_.world.keys) {
            if (!iequals(kv.key, "id")) world_props.emplace_back(kv.key, kv.value);
        }
        b_.set_world_properties(world_props);
        {
            // Room for what the map will hold, so that the element list is not copied as it
            // grows (a copy doubles its memory for a moment): a mesh is a node, its polygon
            // mesh, four data arrays, a subdivision element and eleven streams (twelve for a
            // displacement: mesh_data below); an entity a node, its properties and plug list.
            // Room reserved and never used costs address space, not memory. Only brushes that
            // can be solid (4 sides or more) and meshes with faces count: a hostile map of a
            // million empty solids must not reserve 3 KB each for elements it never makes.
            const auto solid = [](const auto& brushes, const auto& meshes) {
                std::size_t n = 0;
                for (const scene::Brush& b : brushes) n += b.sides.size() >= 4;
                for (const scene::Mesh& m : meshes) n += !m.faces.empty();
                return n;
            };
            std::size_t meshes = solid(s_.world.brushes, s_.world.meshes), entities = 0;
            for (const scene::Entity& e : s_.entities) {
                meshes += solid(e.brushes, e.meshes);
                entities += 1 + e.outputs.size();
            }
            if (opt_.packed) {
                // A packed mesh (one per displaced side of a brush with displacements),
                // entity without brushes or prefab leaves one placeholder; the rest as above, plus
                // groups, visgroups (set and data) and cameras.
                const auto placed = [](const auto& bs, const auto& ms) {
                    std::size_t n = 0;
                    for (const scene::Brush& b : bs) {
                        std::size_t d = 0;
                        for (const scene::BrushSide& sd : b.sides) d += sd.displacement ? 1 : 0;
                        n += d > 0 ? d : b.sides.size() >= 4;
                    }
                    for (const scene::Mesh& m : ms) n += !m.faces.empty();
                    return n;
                };
                std::size_t packs = placed(s_.world.brushes, s_.world.meshes), others = 16;
                for (const scene::Entity& e : s_.entities) {
                    const std::size_t n = placed(e.brushes, e.meshes);
                    const bool leaf = e.brushes.empty() && e.meshes.empty();
                    packs += n + (leaf ? 1 : 0);
                    others += leaf ? 0 : 3 + e.outputs.size();
                }
                std::function<std::size_t(const std::vector<scene::Visgroup>&)> sets =
                    [&](const std::vector<scene::Visgroup>& gs) {
                        std::size_t n = 0;
                        for (const scene::Visgroup& g : gs) n += 2 + sets(g.children);
                        return n;
                    };
                others += s_.groups.size() + sets(s_.visgroups) + s_.cameras.size();
                opt_.packed->reserve(opt_.packed->size() + packs);
                b_.doc().reserve(b_.doc().size() + packs + others);
            } else {
                b_.doc().reserve(b_.doc().size() + 19 * meshes + 3 * entities);
            }
        }
        for (const scene::Visgroup& g : s_.visgroups) add_visgroup(ElementRef::null(), g);
        each(s_.world.brushes, spend_ ? &spend_->world.brushes : nullptr,
             [&](const scene::Brush& b) { add_brush(parent_of(b.editor), b); });
        each(s_.world.meshes, spend_ ? &spend_->world.meshes : nullptr,
             [&](const scene::Mesh& m) { add_scene_mesh(parent_of(m.editor), m); });
        each(s_.entities, spend_ ? &spend_->entities : nullptr,
             [&](const scene::Entity& e) { add_entity(e); });
        if (!s_.cameras.empty()) {
            const auto active = s_.active_camera >= 0 && static_cast<std::size_t>(
                                                             s_.active_camera) < s_.cameras.size()
                                    ? static_cast<std::size_t>(s_.active_camera)
                                    : 0;
            b_.set_default_camera(s_.cameras[active].position, s_.cameras[active].look);
            for (const scene::Camera& c : s_.cameras) b_.add_camera(c.position, c.look);
            b_.set_active_camera(s_.active_camera);
            r_.cameras = s_.cameras.size();
        }
        b_.set_cordoning(s_.cordons_active);
        for (const scene::Cordon& c : s_.cordons) r_.cordon_boxes_dropped += c.boxes.size();
        return b_.finish();
    }

private:
    // Converts `items` in order. `spend` (the same vector, when the scene is given up): each
    // item is freed once converted, and once the converted ones are half the vector or more
    // they are dropped from it, so that the vector's own memory is returned as well.
    template <class T, class F>
    static void each(const std::vector<T>& items, std::vector<T>* spend, F&& convert) {
        std::size_t i = 0;
        while (i < items.size()) {
            convert(items[i]);
            if (spend) (*spend)[i] = {};
            ++i;
            if (spend && i >= 256 && 2 * i >= items.size()) {
                spend->erase(spend->begin(), spend->begin() + static_cast<std::ptrdiff_t>(i));
                spend->shrink_to_fit();
                i = 0;
            }
        }
    }

    // --- organisation ---

    void add_visgroup(ElementRef parent, const scene::Visgroup& g) {
        const ElementRef set = b_.add_selection_set(parent, g.name);
        visgroups_.emplace(g.id, set);
        for (const scene::Visgroup& c : g.children) add_visgroup(set, c);
    }

    ElementRef group_node(std::int64_t id, int depth = 0) {
        if (auto it = groups_.find(id); it != groups_.end()) return it->second;
        const scene::Group* g = nullptr;
        for (const scene::Group& x : s_.groups) {
            if (x.id == id) g = &x;
        }
        if (!g) return b_.world();
        // Groups nest through their own editor info; a cycle or a runaway chain ends at the world.
        const ElementRef parent = g->editor.group && *g->editor.group != id && depth < 64
                                      ? group_node(*g->editor.group, depth + 1)
                                      : b_.world();
        const ElementRef n = b_.add_group(parent);
        ++r_.groups;
        groups_.emplace(id, n);
        return n;
    }

    ElementRef parent_of(const scene::EditorInfo& e) {
        return e.group ? group_node(*e.group) : b_.world();
    }

    void organise(ElementRef node, const scene::EditorInfo& e) {
        if (e.hidden) {
            b_.hide(node);
            ++r_.hidden;
        }
        for (std::int64_t v : e.visgroups) {
            if (auto it = visgroups_.find(v); it != visgroups_.end()) b_.select(it->second, node);
        }
    }

    // --- geometry ---

    std::array<double, 2> texture_size(const std::string& material) {
        if (opt_.texture_size) {
            const auto s = opt_.texture_size(material);
            if (s[0] > 0 && s[1] > 0) return s;
        }
        return {opt_.default_texture_size, opt_.default_texture_size};
    }

    static double texel(const Vec3& p, const scene::TextureAxis& a) {
        const double scale = a.scale != 0 ? a.scale : 1;  // Hammer treats 0 as unusable
        return dot(p, a.axis) / scale + a.shift;
    }

    // Fills Hammer's stream set for `poly`/`topo`: positions per vertex, texcoord/normal/tangent
    // per corner (texcoords from `uv_points`, the undisplaced positions of each corner), texture
    // axes and material per face. `alphas` (per corner, 0..255) adds a paint blend stream.
    vmap::MeshData mesh_data(const vmap::Polygons& poly, vmap::Topology topo,
                             const std::vector<FaceTexture>& faces,
                             const std::vector<std::string>& materials,
                             const std::vector<Vec3>& uv_points,
                             const std::vector<double>* alphas) {
        vmap::MeshData m;
        const std::size_t nh = topo.edge_vertex.size(), nf = faces.size();
        std::vector<dmx::Vector3> pos;
        pos.reserve(poly.positions.size());
        for (const Vec3& p : poly.positions) pos.push_back(f3(p));
        std::vector<dmx::Vector2> uv(nh);
        std::vector<dmx::Vector3> nrm(nh);
        std::vector<dmx::Vector4> tan(nh);
        std::vector<dmx::Vector4> blend;
        if (alphas) blend.resize(nh);
        std::vector<std::array<double, 2>> sizes(materials.size());
        for (std::size_t i = 0; i < materials.size(); ++i) sizes[i] = texture_size(materials[i]);
        for (std::size_t f = 0; f < nf; ++f) {
            const FaceTexture& ft = faces[f];
            const auto size = sizes[ft.material];
            // Tangent: the U axis in the face plane; w says whether V runs along N x T.
            const Vec3 t = normalize(ft.u->axis - ft.normal * dot(ft.u->axis, ft.normal));
            const float w = dot(cross(ft.normal, t), ft.v->axis) < 0 ? -1.0f : 1.0f;
            for (std::uint32_t c = poly.face_begin[f]; c < poly.face_begin[f + 1]; ++c) {
                const auto h = static_cast<std::size_t>(topo.corner_edge[c]);
                const Vec3& p = uv_points[c];
                uv[h] = {static_cast<float>(texel(p, *ft.u) / size[0]),
                         static_cast<float>(texel(p, *ft.v) / size[1])};
                nrm[h] = f3(ft.normal);
                tan[h] = {static_cast<float>(t.x), static_cast<float>(t.y), static_cast<float>(t.z),
                          w};
                if (alphas) blend[h] = {static_cast<float>((*alphas)[c] / 255.0), 0, 0, 0};
            }
        }
        std::vector<dmx::Vector2> scale(nf);
        std::vector<dmx::Vector4> axis_u(nf), axis_v(nf);
        std::vector<std::int32_t> material(nf), zeros(nf, 0);
        for (std::size_t f = 0; f < nf; ++f) {
            const FaceTexture& ft = faces[f];
            scale[f] = {static_cast<float>(ft.u->scale), static_cast<float>(ft.v->scale)};
            axis_u[f] = {static_cast<float>(ft.u->axis.x), static_cast<float>(ft.u->axis.y),
                         static_cast<float>(ft.u->axis.z), static_cast<float>(ft.u->shift)};
            axis_v[f] = {static_cast<float>(ft.v->axis.x), static_cast<float>(ft.v->axis.y),
                         static_cast<float>(ft.v->axis.z), static_cast<float>(ft.v->shift)};
            material[f] = static_cast<std::int32_t>(ft.material);
        }
        // dataStateFlags as in Hammer-saved files (s1i_box_kv2_vmap29.vmap.txt).
        m.vertex_streams.push_back({"position:0", 3, std::move(pos)});
        m.face_vertex_streams.push_back({"texcoord:0", 1, std::move(uv)});
        m.face_vertex_streams.push_back({"normal:0", 1, std::move(nrm)});
        m.face_vertex_streams.push_back({"tangent:0", 1, std::move(tan)});
        if (alphas) {
            vmap::StreamData s{"VertexPaintBlendParams:0", 1, std::move(blend)};
            s.standard = false;
            s.buffer_location = 1;
            m.face_vertex_streams.push_back(std::move(s));
        }
        m.edge_streams.push_back({"flags:0", 3, std::vector<std::int32_t>(topo.edge_count(), 0)});
        m.face_streams.push_back({"textureScale:0", 0, std::move(scale)});
        m.face_streams.push_back({"textureAxisU:0", 0, std::move(axis_u)});
        m.face_streams.push_back({"textureAxisV:0", 0, std::move(axis_v)});
        m.face_streams.push_back({"materialindex:0", 8, std::move(material)});
        m.face_streams.push_back({"flags:0", 3, zeros});
        m.face_streams.push_back({"lightmapScaleBias:0", 1, std::move(zeros)});
        m.materials = materials;
        m.topology = std::move(topo);
        return m;
    }

    ElementRef emit(ElementRef parent, vmap::MeshData m, const scene::EditorInfo& editor) {
        r_.faces += m.topology.face_edge.size();
        ++r_.meshes;
        const ElementRef n = b_.add_mesh(parent, std::move(m));
        organise(n, editor);
        return n;
    }

    std::uint32_t material_index(std::vector<std::string>& materials, const std::string& vmt) {
        // Faces of a brush mostly share a material: the path of the last one is kept.
        if (!have_last_ || vmt != last_vmt_) {
            last_vmt_ = vmt;
            last_vmat_ = vmat_path(vmt);
            have_last_ = true;
        }
        const std::string& p = last_vmat_;
        for (std::size_t i = 0; i < materials.size(); ++i) {
            if (materials[i] == p) return static_cast<std::uint32_t>(i);
        }
        materials.push_back(p);
        return static_cast<std::uint32_t>(materials.size() - 1);
    }

    void skip_brush(const scene::Brush& br, std::string_view why) {
        ++r_.brushes_skipped;
        diags_.add(Diagnostic::warning("convert.brush-skipped",
                                       fmt::format("brush {} not converted: {}", br.id, why)));
    }

    void add_brush(ElementRef parent, const scene::Brush& br) {
        ++r_.brushes;
        scene::brush_polygons(br, polys_);
        // A duplicated side or one that touches the brush in no area leaves the rest closed, as
        // VBSP compiles it; other problems mean there is no solid to mesh.
        for (const BrushFaceProblem& p : polys_.problems) {
            if (p.problem != BrushProblem::duplicate_plane &&
                p.problem != BrushProblem::side_no_face) {
                return skip_brush(br, to_string(p.problem));
            }
        }
        bool has_disp = false;
        for (const scene::BrushSide& sd : br.sides) has_disp |= static_cast<bool>(sd.displacement);
        if (has_disp) return add_displacements(parent, br);

        vmap::Polygons poly;
        std::vector<FaceTexture> faces;
        std::vector<std::string> materials;
        std::vector<Vec3> uv_points;
        for (std::size_t i = 0; i < polys_.face_count(); ++i) {
            const auto face = polys_.face(i);
            if (face.size() < 3) continue;
            const std::size_t first = poly.corners.size();
            // VMF windings are clockwise seen from outside; Hammer's face loops run the other way.
            for (std::size_t k = face.size(); k-- > 0;) {
                const std::uint32_t v = weld(poly.positions, face[k], 1e-4);
                if (poly.corners.size() > first && poly.corners.back() == v) continue;
                poly.corners.push_back(v);
                uv_points.push_back(face[k]);
            }
            if (poly.corners.size() - first > 1 && poly.corners.back() == poly.corners[first]) {
                poly.corners.pop_back();
                uv_points.pop_back();
            }
            if (poly.corners.size() - first < 3) {
                poly.corners.resize(first);
                uv_points.resize(first);
                continue;
            }
            if (poly.face_begin.empty()) poly.face_begin.push_back(0);
            poly.face_begin.push_back(static_cast<std::uint32_t>(poly.corners.size()));
            const scene::BrushSide& sd = br.sides[i];
            faces.push_back(
                {material_index(materials, sd.material), &sd.u, &sd.v, sd.plane.normal});
        }
        auto topo = vmap::build_topology(poly);
        if (!topo) return skip_brush(br, topo.error().message);
        for (std::int32_t f : topo->edge_face) {
            if (f < 0) return skip_brush(br, "its faces do not close");
        }
        emit(parent, mesh_data(poly, std::move(topo).value(), faces, materials, uv_points, nullptr),
             br.editor);
    }

    void add_displacements(ElementRef parent, const scene::Brush& br) {
        for (std::size_t i = 0; i < br.sides.size() && i < polys_.face_count(); ++i) {
            const scene::BrushSide& sd = br.sides[i];
            if (!sd.displacement) continue;
            const auto face = polys_.face(i);
            const scene::Displacement& d = *sd.displacement;
            auto grid = scene::displacement_grid(sd, face);
            const auto flat = scene::flat_displacement_grid(sd, face);
            if (!grid || !flat || d.power < 2) {
                skip_brush(br, fmt::format("side {} has an unusable displacement", sd.id));
                continue;
            }
            const int size = d.grid_size();
            const auto tris = displacement_triangles(d.power);
            // Orientation from the flat grid: Hammer wants counter-clockwise around the face's
            // outward normal.
            const auto& t0 = tris.front();
            const bool flip =
                dot(cross((*flat)[t0[1]] - (*flat)[t0[0]], (*flat)[t0[2]] - (*flat)[t0[0]]),
                    sd.plane.normal) < 0;
            vmap::Polygons poly;
            poly.positions = std::move(*grid);
            poly.face_begin.push_back(0);
            std::vector<Vec3> uv_points;
            std::vector<double> alphas;
            const bool has_alpha = d.alphas.size() == static_cast<std::size_t>(size * size);
            for (const auto& t : tris) {
                const std::array<std::uint32_t, 3> c =
                    flip ? std::array<std::uint32_t, 3>{t[0], t[2], t[1]} : t;
                for (std::uint32_t v : c) {
                    poly.corners.push_back(v);
                    uv_points.push_back((*flat)[v]);
                    alphas.push_back(has_alpha ? d.alphas[v] : 0.0);
                }
                poly.face_begin.push_back(static_cast<std::uint32_t>(poly.corners.size()));
            }
            auto topo = vmap::build_topology(poly);
            if (!topo) {
                skip_brush(br, topo.error().message);
                continue;
            }
            std::vector<std::string> materials{vmat_path(sd.material)};
            std::vector<FaceTexture> faces(tris.size(), {0, &sd.u, &sd.v, sd.plane.normal});
            ++r_.displacements;
            emit(parent,
                 mesh_data(poly, std::move(topo).value(), faces, materials, uv_points,
                           has_alpha ? &alphas : nullptr),
                 br.editor);
        }
    }

    // Meshes already in the scene (from another Source 2 map): faces as they are.
    void add_scene_mesh(ElementRef parent, const scene::Mesh& m) {
        vmap::Polygons poly;
        poly.positions = m.positions;
        poly.corners = m.face_vertices;
        poly.face_begin.push_back(0);
        std::vector<FaceTexture> faces;
        std::vector<std::string> materials;
        for (const std::string& mat : m.materials) materials.push_back(vmat_path(mat));
        std::vector<Vec3> uv_points;
        for (std::uint32_t v : m.face_vertices) {
            uv_points.push_back(v < m.positions.size() ? m.positions[v] : Vec3{});
        }
        for (const scene::Mesh::Face& f : m.faces) {
            poly.face_begin.push_back(f.first + f.count);
            const auto pts = std::span(uv_points).subspan(f.first, f.count);
            faces.push_back({f.material < materials.size() ? f.material : 0, &f.u, &f.v,
                             normalize(winding_area_vector(pts))});
        }
        if (materials.empty()) materials.push_back(vmat_path("dev/dev_blendmeasure"));
        auto topo = vmap::build_topology(poly);
        if (!topo) {
            ++r_.brushes_skipped;
            diags_.add(Diagnostic::warning(
                "convert.mesh-skipped",
                fmt::format("mesh {} not converted: {}", m.id, topo.error().message)));
            return;
        }
        emit(parent, mesh_data(poly, std::move(topo).value(), faces, materials, uv_points, nullptr),
             m.editor);
    }

    // --- entities ---

    static vmap::Transform entity_transform(const scene::Entity& e) {
        vmap::Transform t;
        if (auto o = e.origin()) t.origin = *o;
        if (auto a = e.angles()) t.angles = *a;
        return t;
    }

    void add_prefab(const scene::Entity& e) {
        // A func_instance refers to a VMF; its converted map sits beside it as a .vmap.
        std::string file(e.get("file"));
        std::replace(file.begin(), file.end(), '\\', '/');
        if (iends_with(file, ".vmf")) file.resize(file.size() - 4);
        if (!file.empty() && !iends_with(file, ".vmap")) file += ".vmap";
        if (!file.empty() && file.rfind("maps/", 0) != 0) file.insert(0, "maps/");
        const auto fixup = parse_int(e.get("fixup_style", "0")).value_or(0);
        vmap::PrefabData p;
        p.transform = entity_transform(e);
        p.target_map = file;
        p.target_name = std::string(e.get("targetname"));
        p.fixup_names = fixup != 2;
        for (const scene::KeyValue& kv : e.keys) {
            if (istarts_with(kv.key, "replace")) ++r_.instance_variables_dropped;
        }
        const ElementRef n = b_.add_prefab(parent_of(e.editor), p);
        organise(n, e.editor);
        ++r_.prefabs;
    }

    void add_entity(const scene::Entity& e) {
        const std::string_view cls = e.classname();
        if (iequals(cls, "func_detail")) {
            // Detail brushes are plain world geometry in Source 2.
            for (const scene::Brush& br : e.brushes) add_brush(parent_of(e.editor), br);
            return;
        }
        if (iequals(cls, "func_instance")) return add_prefab(e);
        vmap::EntityData d;
        d.transform = entity_transform(e);
        if (!cls.empty()) d.properties.emplace_back("classname", std::string(cls));
        for (const scene::KeyValue& kv : e.keys) {
            if (iequals(kv.key, "classname") || iequals(kv.key, "origin") ||
                iequals(kv.key, "angles") || iequals(kv.key, "id"))
                continue;
            d.properties.emplace_back(kv.key, kv.value);
        }
        for (const scene::Output& o : e.outputs) {
            ++r_.outputs;
            if (o.unparsed) {
                // Kept whole in targetName so the text survives for a mapper to fix.
                ++r_.outputs_unparsed;
                diags_.add(Diagnostic::warning(
                    "convert.output-unparsed",
                    fmt::format("entity {} ({}): output '{}' has no target/input fields; its "
                                "text '{}' is kept as the target name",
                                e.id, cls, o.output, *o.unparsed)));
                d.outputs.push_back({o.output, *o.unparsed, {}, {}, 0.0f, -1});
                continue;
            }
            d.outputs.push_back(
                {o.output, o.target, o.input, o.param, static_cast<float>(o.delay), o.times});
        }
        const ElementRef n =
            b_.add_entity(parent_of(e.editor), d, e.brushes.empty() && e.meshes.empty());
        ++r_.entities;
        organise(n, e.editor);
        for (const scene::Brush& br : e.brushes) add_brush(n, br);
        for (const scene::Mesh& m : e.meshes) add_scene_mesh(n, m);
    }

    const scene::Scene& s_;
    scene::Scene* spend_;
    Diagnostics& diags_;
    const SceneToVmapOptions& opt_;
    SceneToVmapReport& r_;
    vmap::MapBuilder b_;
    std::string last_vmt_, last_vmat_;  // material_index's last path
    bool have_last_ = false;
    std::unordered_map<std::int64_t, ElementRef> groups_, visgroups_;
    BrushPolygons polys_;
};

}  // namespace

dmx::Document scene_to_vmap(const scene::Scene& s, Diagnostics& diags,
                            const SceneToVmapOptions& opt, SceneToVmapReport* report) {
    SceneToVmapReport local;
    return VmapWriter(s, nullptr, diags, opt, report ? *report : local).run();
}

dmx::Document scene_to_vmap(scene::Scene&& s, Diagnostics& diags, const SceneToVmapOptions& opt,
                            SceneToVmapReport* report) {
    SceneToVmapReport local;
    dmx::Document doc = VmapWriter(s, &s, diags, opt, report ? *report : local).run();
    s = {};
    return doc;
}

// --- vmap -> scene ---------------------------------------------------------------------------

namespace {

std::string vec_text(const Vec3& v) {
    return fmt::format("{:g} {:g} {:g}", v.x, v.y, v.z);
}

scene::TextureAxis axis_of(std::span<const dmx::Vector4> axes, std::span<const dmx::Vector2> scales,
                           std::size_t row, int which) {
    scene::TextureAxis a;
    if (row < axes.size()) {
        const dmx::Vector4& x = axes[row];
        a.axis = {x.x, x.y, x.z};
        a.shift = x.w;
    }
    if (row < scales.size()) a.scale = which == 0 ? scales[row].x : scales[row].y;
    return a;
}

std::optional<scene::Mesh> read_mesh(const vmap::Map& map, ElementRef node,
                                     const vmap::MeshView& m) {
    scene::Mesh out;
    const vmap::Transform t = map.transform(node);
    const auto pos = m.vertices.get<dmx::Vector3>("position:0");
    const auto uv = m.face_vertices.get<dmx::Vector2>("texcoord:0");
    // The blend weight a displacement's alpha became (scene colours carry it in alpha, as
    // scene::build_surfaces does for displacements).
    const auto blend = m.face_vertices.get<dmx::Vector4>("VertexPaintBlendParams:0");
    const auto axis_u = m.faces.get<dmx::Vector4>("textureAxisU:0");
    const auto axis_v = m.faces.get<dmx::Vector4>("textureAxisV:0");
    const auto scales = m.faces.get<dmx::Vector2>("textureScale:0");
    const auto mat = m.faces.get<std::int32_t>("materialindex:0");
    const Mat3 rot = angle_matrix(t.angles);
    out.positions.reserve(m.vertex_count());
    for (std::size_t v = 0; v < m.vertex_count(); ++v) {
        const auto row = static_cast<std::size_t>(m.vertex_data[v]);
        const dmx::Vector3 p = row < pos.size() ? pos[row] : dmx::Vector3{};
        out.positions.push_back(t.apply({p.x, p.y, p.z}));
    }
    for (const std::string& s : m.materials) out.materials.push_back(vmt_material(s));
    std::vector<vmap::Corner> corners;
    for (std::size_t f = 0; f < m.face_count(); ++f) {
        if (!vmap::face_corners(m, f, corners)) return std::nullopt;
        scene::Mesh::Face face;
        face.first = static_cast<std::uint32_t>(out.face_vertices.size());
        face.count = static_cast<std::uint32_t>(corners.size());
        const auto row = static_cast<std::size_t>(m.face_data[f]);
        face.material =
            row < mat.size() && mat[row] >= 0 ? static_cast<std::uint32_t>(mat[row]) : 0;
        face.u = axis_of(axis_u, scales, row, 0);
        face.v = axis_of(axis_v, scales, row, 1);
        // Axes and shifts are defined in world space; a rotated or moved node carries them along.
        if (!t.is_identity()) {
            for (scene::TextureAxis* a : {&face.u, &face.v}) {
                const Vec3 w = rot * a->axis;
                a->shift -= dot(t.origin, w) / (a->scale != 0 ? a->scale : 1);
                a->axis = w;
            }
        }
        out.faces.push_back(face);
        for (const vmap::Corner& c : corners) {
            out.face_vertices.push_back(static_cast<std::uint32_t>(c.vertex));
            const auto r =
                static_cast<std::size_t>(m.edge_vertex_data[static_cast<std::size_t>(c.half_edge)]);
            const dmx::Vector2 tc = r < uv.size() ? uv[r] : dmx::Vector2{};
            out.uvs.push_back({tc.x, tc.y});
            if (!blend.empty()) out.colors.push_back({1, 1, 1, r < blend.size() ? blend[r].x : 0});
        }
    }
    out.id = map.node_id(node);
    return out;
}

}  // namespace

scene::Scene vmap_to_scene(const vmap::Map& map, Diagnostics& diags, VmapToSceneReport* report) {
    VmapToSceneReport local;
    VmapToSceneReport& r = report ? *report : local;
    scene::Scene s;
    s.source_format = "vmap";
    for (const auto& [k, v] : map.properties(map.world))
        s.world.keys.push_back({std::string(k), std::string(v)});
    if (s.world.classname().empty()) s.world.set("classname", "worldspawn");
    // Map node index -> scene entity (-1 = world).
    std::vector<std::int32_t> owner(map.nodes.size(), -1);
    for (std::size_t i = 0; i < map.nodes.size(); ++i) {
        const vmap::Node& n = map.nodes[i];
        const std::int32_t parent_owner =
            n.parent >= 0 ? owner[static_cast<std::size_t>(n.parent)] : -1;
        owner[i] = parent_owner;
        if (n.kind == vmap::NodeKind::entity || n.kind == vmap::NodeKind::prefab) {
            scene::Entity e;
            e.id = map.node_id(n.element);
            const vmap::Transform t = map.transform(n.element);
            if (n.kind == vmap::NodeKind::entity) {
                for (const auto& [k, v] : map.properties(n.element)) {
                    e.keys.push_back({std::string(k), std::string(v)});
                }
                for (const vmap::Connection& c : map.connections(n.element)) {
                    scene::Output o;
                    o.output = c.output;
                    o.target = c.target;
                    o.input = c.input;
                    o.param = c.param;
                    o.delay = c.delay;
                    o.times = c.times;
                    e.outputs.push_back(std::move(o));
                }
                ++r.entities;
            } else {
                // A prefab is Source 1's func_instance.
                const dmx::Element& p = map.element(n);
                const auto* path = p.get<std::string>("targetMapPath");
                std::string file = path ? *path : std::string();
                if (file.rfind("maps/", 0) == 0) file.erase(0, 5);
                if (iends_with(file, ".vmap")) file.replace(file.size() - 5, 5, ".vmf");
                e.keys.push_back({"classname", "func_instance"});
                if (const auto* tn = p.get<std::string>("targetName"); tn && !tn->empty())
                    e.keys.push_back({"targetname", *tn});
                e.keys.push_back({"file", file});
                e.keys.push_back(
                    {"fixup_style", p.get_or<bool>("fixupEntityNames", true) ? "0" : "2"});
                ++r.prefabs;
            }
            e.set("origin", vec_text(t.origin));
            if (t.angles != Vec3{}) e.set("angles", vec_text(t.angles));
            owner[i] = static_cast<std::int32_t>(s.entities.size());
            s.entities.push_back(std::move(e));
        } else if (n.kind == vmap::NodeKind::mesh) {
            ++r.meshes;
            const ElementRef md = map.mesh_data(n.element);
            auto view =
                md.is_null()
                    ? Result<vmap::MeshView>(Diagnostic::error("vmap.no-mesh", "no meshData"))
                    : vmap::view_mesh(map.doc(), md);
            std::optional<scene::Mesh> mesh;
            if (view && vmap::validate_mesh(*view, 1).empty())
                mesh = read_mesh(map, n.element, *view);
            if (!mesh) {
                r.unreadable_meshes.push_back(map.node_id(n.element));
                diags.add(Diagnostic::warning(
                    "convert.mesh-unreadable",
                    fmt::format("mesh node {} has invalid topology and was skipped",
                                map.node_id(n.element))));
                continue;
            }
            scene::Entity& holder =
                owner[i] >= 0 ? s.entities[static_cast<std::size_t>(owner[i])] : s.world;
            holder.meshes.push_back(std::move(*mesh));
        }
    }
    // Cameras.
    if (const dmx::Element* cams = map.doc().get(map.cameras)) {
        if (const auto* list = cams->get<std::vector<ElementRef>>("cameras")) {
            for (ElementRef c : *list) {
                const dmx::Element* e = map.doc().get(c);
                if (!e) continue;
                const auto* p = e->get<dmx::Vector3>("position");
                const auto* l = e->get<dmx::Vector3>("lookat");
                s.cameras.push_back(
                    {p ? Vec3{p->x, p->y, p->z} : Vec3{}, l ? Vec3{l->x, l->y, l->z} : Vec3{}});
            }
        }
        s.active_camera = cams->get_or<std::int32_t>("activecamera", -1);
    }
    if (const dmx::Element* root = map.doc().get(map.root)) {
        s.cordons_active = root->get_or<bool>("m_bIsCordoning", false);
    }
    return s;
}

}  // namespace lk::convert
