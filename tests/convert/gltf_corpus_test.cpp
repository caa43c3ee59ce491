// Every corpus map -> .glb (and a picture), checked three ways:
//  * read back with tinygltf (an independent reader): triangle count = Σ(corners - 2) over the
//    exported polygons, every vertex within 0.001 units of an exported polygon corner after
//    undoing scale and axes, the same bounding box, one glTF material per exported material;
//    for compiled maps, world UVs equal the engine's texinfo formula (computed here from the
//    lumps) within 1e-4;
//  * the Khronos glTF-Validator (npm gltf-validator, run by validate_gltf.js under node): no
//    errors; warnings and infos are counted by code and printed. Compiled maps and VMAPs are
//    also written quantised, with prop boxes and tool faces, as .gltf + .bin. Skipped with a
//    message when node or the validator is not installed (scripts/deps.sh installs both);
//  * a top-down picture with its overview numbers, written under the build directory
//    (gltf_corpus/<family>/), not into the source tree.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "convert/gltf_readback.hpp"
#include "convert/gltf_validator.hpp"
#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/convert/bsp_faces.hpp"
#include "levelkit/convert/bsp_scene.hpp"
#include "levelkit/convert/scene_gltf.hpp"
#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/convert/wmb_scene.hpp"
#include "levelkit/convert/wmp_scene.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/render/render.hpp"
#include "levelkit/scene/geometry.hpp"
#include "levelkit/vmap/vmap.hpp"
#include "levelkit/vmf/vmf.hpp"
#include "levelkit/wmb/wmb.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;
using namespace lk;

namespace {

struct Figures {
    std::size_t maps = 0, failed = 0, unreadable = 0, triangles = 0, vertices = 0, materials = 0,
                lights = 0, props = 0, skyboxes = 0, glb_bytes = 0, uv_checked = 0, pictures = 0;
    double max_vertex_error = 0, max_bbox_error = 0, max_uv_error = 0, max_far_error = 0;
    std::size_t far_vertices = 0, normals = 0, normals_along = 0;
    double seconds_export = 0, seconds_render = 0;
};

struct Key {
    std::int64_t x, y, z;
    bool operator==(const Key&) const = default;
};
struct KeyHash {
    std::size_t operator()(const Key& k) const {
        return std::size_t(k.x * 73856093 ^ k.y * 19349663 ^ k.z * 83492791);
    }
};
Key cell(const Vec3& p, double size) {
    return {std::int64_t(std::floor(p.x / size)), std::int64_t(std::floor(p.y / size)),
            std::int64_t(std::floor(p.z / size))};
}

// World UVs by the engine's formula, per (material, position on a 1/64 grid).
using UvTable =
    std::unordered_map<std::string,
                       std::unordered_map<Key, std::vector<std::array<double, 2>>, KeyHash>>;

UvTable engine_uvs(const bsp::Bsp& map) {
    UvTable out;
    auto faces = bsp::faces(map);
    auto verts = bsp::vertexes(map);
    auto edges = bsp::edges(map);
    auto surf = bsp::surfedges(map);
    auto ti = bsp::texinfo(map);
    auto td = bsp::texdata(map);
    auto names = bsp::texdata_strings(map);
    auto models = bsp::models(map);
    if (!faces || !verts || !edges || !surf || !ti || !td || !names || !models || models->empty())
        return out;
    const bsp::dmodel_t& world = (*models)[0];
    if (world.firstface < 0 || world.numfaces < 0 ||
        std::size_t(world.firstface) + std::size_t(world.numfaces) > faces->size())
        return out;
    for (std::int32_t f = world.firstface; f < world.firstface + world.numfaces; ++f) {
        const bsp::dface_t& face = (*faces)[std::size_t(f)];
        if (face.dispinfo >= 0 || face.texinfo < 0 || std::size_t(face.texinfo) >= ti->size())
            continue;
        if (face.firstedge < 0 ||
            std::size_t(face.firstedge) + std::size_t(std::max(face.numedges, 0)) > surf->size())
            continue;
        const bsp::texinfo_t& t = (*ti)[std::size_t(face.texinfo)];
        if (t.texdata < 0 || std::size_t(t.texdata) >= td->size()) continue;
        const bsp::dtexdata_t& d = (*td)[std::size_t(t.texdata)];
        if (d.nameStringTableID < 0 || std::size_t(d.nameStringTableID) >= names->names.size())
            continue;
        const std::string mat =
            convert::unpatch_material(names->names[std::size_t(d.nameStringTableID)]);
        const double w = d.width > 0 ? d.width : 512, h = d.height > 0 ? d.height : 512;
        for (std::int32_t k = 0; k < face.numedges; ++k) {
            const std::int32_t se = (*surf)[std::size_t(face.firstedge + k)];
            const std::size_t ei = se < 0 ? std::size_t(-std::int64_t(se)) : std::size_t(se);
            if (ei >= edges->size()) continue;
            const std::uint32_t vi = (*edges)[ei].v[se < 0 ? 1 : 0];
            if (vi >= verts->size()) continue;
            const Vec3 p = (*verts)[vi].to_vec3();
            const auto& s = t.textureVecsTexelsPerWorldUnits;
            const double u = (p.x * s[0][0] + p.y * s[0][1] + p.z * s[0][2] + s[0][3]) / w;
            const double v = (p.x * s[1][0] + p.y * s[1][1] + p.z * s[1][2] + s[1][3]) / h;
            out[mat][cell(p, 1.0 / 64)].push_back({u, v});
        }
    }
    return out;
}

class Checker {
public:
    // `variants`: also write each map with every option that changes the file's structure
    // (quantised, prop boxes, tool faces, .gltf + .bin) for the validator.
    explicit Checker(std::string family, bool variants = false)
        : family_(std::move(family)), variants_(variants) {
        dir_ = fs::path("gltf_corpus") / family_;
        fs::create_directories(dir_);
    }

    void unreadable(const fs::path& path, const std::string& why) {
        ++fig_.unreadable;
        std::printf("[%s] %s not read: %s\n", family_.c_str(), path.filename().c_str(),
                    why.c_str());
    }

    void check(const fs::path& path, const scene::Scene& s, const bsp::Bsp* map = nullptr,
               std::function<std::array<double, 2>(std::string_view)> sizes = {}) {
        SCOPED_TRACE(path.string());
        const std::string stem = path.filename().string();
        convert::GltfOptions opt;
        opt.name = stem;
        opt.texture_size_of = sizes;
        Diagnostics diags;
        const auto t0 = std::chrono::steady_clock::now();
        auto files = convert::scene_to_gltf(s, opt, diags);
        const auto t1 = std::chrono::steady_clock::now();
        fig_.seconds_export += std::chrono::duration<double>(t1 - t0).count();
        ++fig_.maps;
        ASSERT_TRUE(files) << files.error().to_string();
        const fs::path out = dir_ / (stem + ".glb");
        ASSERT_TRUE(convert::save_gltf(*files, out));
        written_.push_back(out);
        if (variants_) {
            convert::GltfOptions v = opt;
            v.quantize = v.prop_boxes = v.tools = true;
            v.binary = false;
            v.bin_name = stem + ".variant.bin";
            auto vf = convert::scene_to_gltf(s, v, diags);
            ASSERT_TRUE(vf) << vf.error().to_string();
            const fs::path vout = dir_ / (stem + ".variant.gltf");
            ASSERT_TRUE(convert::save_gltf(*vf, vout));
            written_.push_back(vout);
        }
        fig_.glb_bytes += files->glb.size();
        fig_.lights += files->report.lights;
        fig_.props += files->report.props;
        fig_.skyboxes += files->report.skybox;

        // What should be in it: the same surfaces, tool faces left out.
        scene::SurfaceOptions so;
        so.texture_size = sizes;
        const scene::Surfaces surf = scene::build_surfaces(s, so);
        std::size_t tris = 0;
        std::map<std::string, std::size_t> tris_by_mat;
        Aabb box;
        std::unordered_map<Key, std::vector<Vec3>, KeyHash> corners;
        for (std::size_t i = 0; i < surf.polygon_count(); ++i) {
            const std::string& m = surf.materials[surf.polygon_material[i]];
            if (scene::is_tool_material(m)) continue;
            const auto poly = surf.polygon(i);
            tris += poly.size() - 2;
            tris_by_mat[m] += poly.size() - 2;
            for (const Vec3& p : poly) {
                box.add(p);
                corners[cell(p, 1.0)].push_back(p);
            }
        }

        test::ReadBack rb;
        try {
            rb = test::read_glb(files->glb);
        } catch (const std::exception& e) {
            ADD_FAILURE() << e.what();
            ++fig_.failed;
            return;
        }
        EXPECT_EQ(rb.triangles.size(), tris);
        EXPECT_EQ(files->report.triangles, tris);
        EXPECT_EQ(rb.model.materials.size(), tris_by_mat.size());
        std::map<std::string, std::size_t> read_by_mat;
        Aabb read_box;
        double worst = 0;
        std::string worst_node;
        for (const auto& t : rb.triangles) {
            ++read_by_mat[t.material];
            // Normals face the way the winding does (a mirrored export would flip one of them).
            // Slivers (compiled faces carry collinear T-junction vertices) have no reliable
            // winding after float rounding: only triangles at least 1/100 as tall as long count.
            const Vec3 g = cross(t.p[1] - t.p[0], t.p[2] - t.p[0]);
            const double longest = std::max(
                {length(t.p[1] - t.p[0]), length(t.p[2] - t.p[1]), length(t.p[0] - t.p[2])});
            if (length(g) > 0.01 * longest * longest) {
                for (const Vec3& n : t.n) {
                    ++fig_.normals;
                    fig_.normals_along += dot(n, g) > 0;
                }
            }
            for (const Vec3& p : t.p) {
                read_box.add(p);
                double best = INFINITY;
                const Key c = cell(p, 1.0);
                auto search = [&](const Key& k) {
                    auto it = corners.find(k);
                    if (it == corners.end()) return;
                    for (const Vec3& q : it->second) best = std::min(best, distance(p, q));
                };
                // Neighbour cells matter only within 0.002 of a cell border.
                std::array<std::vector<std::int64_t>, 3> range;
                for (int k = 0; k < 3; ++k) {
                    const std::int64_t ck = k == 0 ? c.x : k == 1 ? c.y : c.z;
                    const double frac = p[k] - std::floor(p[k]);
                    range[std::size_t(k)].push_back(ck);
                    if (frac < 0.002) range[std::size_t(k)].push_back(ck - 1);
                    if (frac > 0.998) range[std::size_t(k)].push_back(ck + 1);
                }
                for (std::int64_t x : range[0])
                    for (std::int64_t y : range[1])
                        for (std::int64_t z : range[2]) search({x, y, z});
                // Float32 keeps 1/1000 unit within 16384 units of the node; farther out (only
                // single polygons wider than the export's 8192-unit chunks) one ulp is the bound.
                const double reach = t.reach[std::size_t(&p - t.p.data())];
                if (reach > 16384) {
                    ++fig_.far_vertices;
                    EXPECT_LE(best, reach * std::ldexp(1.0, -23) * std::sqrt(3.0));
                    fig_.max_far_error = std::max(fig_.max_far_error, best);
                    continue;
                }
                if (best > worst) worst_node = t.node;
                worst = std::max(worst, best);
            }
        }
        EXPECT_EQ(read_by_mat, tris_by_mat);
        EXPECT_LE(worst, 0.001);
        if (worst > 0.0005) {
            std::printf("[%s] %s: vertex error %.6f units in %s (bounds %.0f..%.0f)\n",
                        family_.c_str(), stem.c_str(), worst, worst_node.c_str(),
                        std::min({box.mins.x, box.mins.y, box.mins.z}),
                        std::max({box.maxs.x, box.maxs.y, box.maxs.z}));
        }
        fig_.max_vertex_error = std::max(fig_.max_vertex_error, worst);
        if (!box.empty()) {
            const double e =
                std::max({length(read_box.mins - box.mins), length(read_box.maxs - box.maxs)});
            EXPECT_LE(e, 0.001);
            fig_.max_bbox_error = std::max(fig_.max_bbox_error, e);
        }
        fig_.triangles += tris;
        fig_.vertices += files->report.vertices;
        fig_.materials += rb.model.materials.size();

        if (map) check_uvs(*map, rb);

        // A picture with its overview numbers.
        const auto r0 = std::chrono::steady_clock::now();
        render::RenderOptions ro;
        ro.size = 512;
        const render::Picture pic = render::render_surfaces(surf, sky_pieces(s, surf), ro);
        auto png = render::encode_png(pic.image);
        fig_.seconds_render +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
        ASSERT_TRUE(png);
        ASSERT_TRUE(write_file_atomic(dir_ / (stem + ".png"), *png));
        if (pic.overview) {
            ASSERT_TRUE(
                write_file_atomic(dir_ / (stem + ".txt"),
                                  render::overview_text(path.stem().string(), *pic.overview)));
        }
        ++fig_.pictures;
    }

    void finish() {
        std::printf(
            "[%s] %zu maps (%zu unreadable inputs), %zu failed to read back; %zu triangles, %zu "
            "vertices, "
            "%zu materials, %zu lights, %zu props, %zu 3D skyboxes; %.1f MB of .glb\n",
            family_.c_str(), fig_.maps, fig_.unreadable, fig_.failed, fig_.triangles, fig_.vertices,
            fig_.materials, fig_.lights, fig_.props, fig_.skyboxes, fig_.glb_bytes / 1048576.0);
        std::printf("[%s] max vertex error %.6f units, max bounding box error %.6f units",
                    family_.c_str(), fig_.max_vertex_error, fig_.max_bbox_error);
        if (fig_.far_vertices) {
            std::printf(
                " (%zu corners of polygons reaching beyond 16384 units from their node: "
                "max error %.6f units, within float32 precision)",
                fig_.far_vertices, fig_.max_far_error);
        }
        if (fig_.uv_checked)
            std::printf(", %zu world UVs checked against texinfo, max error %.2e", fig_.uv_checked,
                        fig_.max_uv_error);
        if (fig_.normals) {
            std::printf(
                "\n[%s] %zu of %zu corner normals (%.4f%%) on the front side of their "
                "triangle",
                family_.c_str(), fig_.normals_along, fig_.normals,
                100.0 * double(fig_.normals_along) / double(fig_.normals));
            EXPECT_GE(double(fig_.normals_along), 0.99 * double(fig_.normals));
        }
        std::printf("\n[%s] export %.2f s in all, %zu pictures %.2f s in all (-> %s)\n",
                    family_.c_str(), fig_.seconds_export, fig_.pictures, fig_.seconds_render,
                    fs::absolute(dir_).c_str());
        test::validate_gltf_files(written_, family_);
    }

private:
    static std::vector<bool> sky_pieces(const scene::Scene& s, const scene::Surfaces& surf) {
        auto sky = scene::find_skybox(s, surf);
        return sky ? sky->pieces : std::vector<bool>{};
    }

    void check_uvs(const bsp::Bsp& map, const test::ReadBack& rb) {
        const UvTable table = engine_uvs(map);
        std::size_t checked = 0;
        double worst = 0;
        for (const auto& t : rb.triangles) {
            if (t.node != "worldspawn" && t.node != "worldspawn (3D skybox)") continue;
            auto mt = table.find(t.material);
            if (mt == table.end()) continue;
            for (int k = 0; k < 3; ++k) {
                auto it = mt->second.find(cell(t.p[std::size_t(k)], 1.0 / 64));
                if (it == mt->second.end()) continue;  // a displacement's grid point
                double best = INFINITY;
                for (const auto& uv : it->second)
                    best = std::min(best, std::max(std::abs(uv[0] - t.uv[std::size_t(k)][0]),
                                                   std::abs(uv[1] - t.uv[std::size_t(k)][1])));
                worst = std::max(worst, best);
                ++checked;
            }
        }
        EXPECT_LE(worst, 1e-4);
        fig_.uv_checked += checked;
        fig_.max_uv_error = std::max(fig_.max_uv_error, worst);
    }

    std::string family_;
    bool variants_ = false;
    fs::path dir_;
    Figures fig_;
    std::vector<fs::path> written_;
};

}  // namespace

TEST(GltfCorpus, VmfMaps) {
    LK_REQUIRE_CORPUS();
    auto files = test::corpus_files("vmf", {".vmf"});
    for (auto& f : test::corpus_files("bsp/vmf", {".vmf"})) files.push_back(f);
    Checker c("vmf");
    for (const fs::path& p : files) {
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        Diagnostics d;
        auto map = vmf::read_map(*blob, d);
        if (!map) {
            c.unreadable(p, map.error().to_string());
            continue;
        }
        c.check(p, convert::vmf_to_scene(*map, d));
    }
    c.finish();
}

TEST(GltfCorpus, BspMaps) {
    LK_REQUIRE_CORPUS();
    Checker c("bsp", true);
    for (const fs::path& p : test::corpus_files("bsp", {".bsp"})) {
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto map = bsp::Bsp::read(*blob);
        if (!map) {
            c.unreadable(p, map.error().to_string());
            continue;
        }
        Diagnostics d;
        auto s = convert::bsp_faces_to_scene(*map, d);
        EXPECT_TRUE(s) << p << ": " << s.error().to_string();
        if (s) c.check(p, *s, &*map);
    }
    c.finish();
}

// `--brushes`: the decompiled brushes instead of the compiled faces.
TEST(GltfCorpus, BspMapsAsBrushes) {
    LK_REQUIRE_CORPUS();
    Checker c("bsp_brushes");
    for (const fs::path& p : test::corpus_files("bsp", {".bsp"})) {
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto map = bsp::Bsp::read(*blob);
        if (!map) {
            c.unreadable(p, map.error().to_string());
            continue;
        }
        Diagnostics d;
        auto s = convert::bsp_drawable_scene(*map, true, d);
        EXPECT_TRUE(s) << p << ": " << s.error().to_string();
        if (s) c.check(p, *s);  // the scene carries the texdata sizes
    }
    c.finish();
}

TEST(GltfCorpus, VmapMaps) {
    LK_REQUIRE_CORPUS();
    Checker c("vmap", true);
    // Every VMAP of the corpus in whatever encoding and name it has: binary .vmap, keyvalues2
    // .vmap.txt, and datamodel files whose header names the vmap format.
    for (const fs::path& p : test::corpus_files("dmx", {".vmap", ".vmap.txt", ".dmx"})) {
        auto bytes = read_file(p);
        ASSERT_TRUE(bytes);
        auto doc = dmx::read(*bytes);
        if (!doc) {
            c.unreadable(p, doc.error().to_string());
            continue;
        }
        if (doc->header.format != "vmap") continue;
        auto map = vmap::Map::open(*doc);
        if (!map) {
            c.unreadable(p, map.error().to_string());
            continue;
        }
        Diagnostics d;
        c.check(p, convert::vmap_to_scene(*map, d));
    }
    c.finish();
}

TEST(GltfCorpus, GamestudioMaps) {
    LK_REQUIRE_CORPUS();
    Checker c("wmp");
    for (const fs::path& p : test::corpus_files("wmp", {".wmp", ".$$m"})) {
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto f = wmp::read(*blob);
        if (!f) {
            c.unreadable(p, f.error().to_string());
            continue;
        }
        Diagnostics d;
        if (f->dialect == wmp::Dialect::a3) {
            c.check(p, convert::a3_to_scene(f->a3, d));
            continue;
        }
        auto s = convert::wmp_to_scene(f->level, d);
        EXPECT_TRUE(s) << p << ": " << s.error().to_string();
        if (s) c.check(p, *s);
    }
    c.finish();
}

// Compiled Gamestudio levels: the WMB's own polygons (blocks and WMB7 meshes) with its objects.
TEST(GltfCorpus, WmbLevels) {
    LK_REQUIRE_CORPUS();
    Checker c("wmb");
    for (const fs::path& p : test::corpus_files("wmp", {".wmb"})) {
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        Diagnostics d;
        auto f = wmb::read(*blob, d);
        if (!f) {
            c.unreadable(p, f.error().to_string());
            continue;
        }
        auto s = convert::wmb_to_scene(*f, d);
        EXPECT_TRUE(s) << p << ": " << s.error().to_string();
        if (s) c.check(p, *s);
    }
    c.finish();
}
