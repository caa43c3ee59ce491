// The conversion graph on real files: paths composed through the scene give valid outputs for
// every corpus map. Figures are printed per kind of input.
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "levelkit/any/document.hpp"
#include "levelkit/scene/geometry.hpp"
#include "support/corpus.hpp"

using namespace lk;

namespace {

std::vector<std::filesystem::path> gamestudio_levels() {
    return test::corpus_files("wmp", {".wmp", ".$$m"});
}

std::vector<std::filesystem::path> every_map() {
    std::vector<std::filesystem::path> out;
    for (auto v : {test::corpus_files("vmf", {".vmf"}), test::corpus_files("bsp", {".bsp", ".vmf"}),
                   test::corpus_files("dmx", {".vmap", ".vmap.txt"}), gamestudio_levels()}) {
        out.insert(out.end(), v.begin(), v.end());
    }
    return out;
}

std::string name_of(const std::filesystem::path& p) {
    return std::filesystem::relative(p, *test::corpus_dir()).string();
}

Result<std::unique_ptr<Document>> reread(const ConvertResult& r, const std::string& name) {
    auto bytes = r.document->write();
    if (!bytes) return std::move(bytes).error();
    ReadOptions ro;
    ro.source_name = name;
    return read_document(Blob::from_bytes(std::move(bytes).value()), ro);
}

}  // namespace

// Every corpus BSP and Gamestudio level converts to VMAP with every mesh valid, and with the
// entities of its VMF conversion: func_detail has no Source 2 entity (its brushes become world
// meshes, as Hammer's importer makes them), so it is the only class the VMAP does not list.
TEST(GraphCorpus, BspAndGamestudioToVmap) {
    LK_REQUIRE_CORPUS();
    auto files = test::corpus_files("bsp", {".bsp"});
    const auto levels = gamestudio_levels();
    files.insert(files.end(), levels.begin(), levels.end());
    ASSERT_FALSE(files.empty());
    std::size_t maps = 0, meshes = 0, invalid = 0, entities = 0;
    for (const auto& path : files) {
        const std::string name = name_of(path);
        auto in = read_document(path);
        ASSERT_TRUE(in) << name << ": " << in.error().to_string();
        Diagnostics d1, d2;
        auto vmap = convert_document(*in.value(), "vmap", {}, d1);
        ASSERT_TRUE(vmap) << name << ": " << vmap.error().to_string();
        auto vmf = convert_document(*in.value(), "vmf", {}, d2);
        ASSERT_TRUE(vmf) << name << ": " << vmf.error().to_string();
        auto out = reread(*vmap, name + ".vmap");
        ASSERT_TRUE(out) << name << ": " << out.error().to_string();
        Diagnostics v;
        out.value()->validate(v);
        std::size_t bad = 0;
        for (const Diagnostic& d : v.items()) bad += d.code == "vmap.invalid-mesh";
        EXPECT_EQ(bad, 0u) << name;
        invalid += bad;
        const Json vi = out.value()->info();
        meshes += vi["meshes"].get<std::size_t>();
        // The converted document itself (its meshes packed) tells the same, and prints.
        const Json ci = vmap->document->info();
        EXPECT_EQ(ci["elements"], vi["elements"]) << name;
        EXPECT_EQ(ci["attributes"], vi["attributes"]) << name;
        if (maps == 0) {
            auto text = vmap->document->dump_text();
            ASSERT_TRUE(text && text->ok()) << name;
            EXPECT_NE(text->value().find("CMapWorld"), std::string::npos) << name;
        }
        // The VMF conversion's entities, func_detail apart.
        auto vmf_doc = reread(*vmf, name + ".vmf");
        ASSERT_TRUE(vmf_doc) << name;
        std::size_t func_detail = 0;
        {
            const auto text = vmf->document->write();
            const std::string_view t(reinterpret_cast<const char*>(text->data()), text->size());
            for (std::size_t p = 0;
                 (p = t.find("\"classname\" \"func_detail\"", p)) != std::string_view::npos; ++p)
                ++func_detail;
        }
        const std::size_t vmf_entities = vmf_doc.value()->info()["entities"].get<std::size_t>();
        EXPECT_EQ(vi["entities"].get<std::size_t>() + func_detail, vmf_entities) << name;
        entities += vi["entities"].get<std::size_t>();
        ++maps;
    }
    std::printf(
        "[graph] %zu maps (BSP + Gamestudio) -> VMAP: %zu meshes, %zu invalid, %zu entities "
        "(equal to the VMF conversions' minus func_detail)\n",
        maps, meshes, invalid, entities);
    EXPECT_EQ(invalid, 0u);
}

// OBJ output of every corpus map re-reads with an independent reader (tinyobjloader) with the
// polygon count `levelkit geometry` reports for the same map.
TEST(GraphCorpus, EveryMapToObjRereads) {
    LK_REQUIRE_CORPUS();
    const auto files = every_map();
    ASSERT_FALSE(files.empty());
    std::size_t maps = 0, polygons = 0, mismatched = 0;
    for (const auto& path : files) {
        const std::string name = name_of(path);
        auto in = read_document(path);
        ASSERT_TRUE(in) << name << ": " << in.error().to_string();
        if (in.value()->format() == "dmx") continue;  // a DMX that is not a map
        Diagnostics d;
        ConvertOptions base;
        base.input_path = path;
        base.output_path = "map.obj";
        auto obj = convert_document(*in.value(), "obj", {}, d, base);
        ASSERT_TRUE(obj) << name << ": " << obj.error().to_string();
        ASSERT_EQ(obj->companions.size(), 1u);
        auto text = obj->document->write();
        ASSERT_TRUE(text);
        // What `levelkit geometry` counts.
        ConvertOptions go;
        go.input_path = path;
        go.for_display = true;
        auto sc = document_to_scene(*in.value(), go, d);
        ASSERT_TRUE(sc) << name;
        scene::SurfaceOptions so;
        so.skip_tool_materials = true;
        const std::size_t expected = scene::build_surfaces(*sc, so).polygon_count();

        const std::string obj_text(reinterpret_cast<const char*>(text->data()), text->size());
        const std::string mtl_text(reinterpret_cast<const char*>(obj->companions[0].bytes.data()),
                                   obj->companions[0].bytes.size());
        std::istringstream obj_stream(obj_text);
        std::istringstream mtl_stream(mtl_text);
        tinyobj::attrib_t attrib;
        std::vector<tinyobj::shape_t> shapes;
        std::vector<tinyobj::material_t> materials;
        std::string warn, err;
        tinyobj::MaterialStreamReader mtl_reader(mtl_stream);
        const bool ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, &obj_stream,
                                         &mtl_reader, /*triangulate=*/false);
        ASSERT_TRUE(ok) << name << ": " << err;
        EXPECT_TRUE(err.empty()) << name << ": " << err;
        std::size_t faces = 0;
        for (const auto& s : shapes) faces += s.mesh.num_face_vertices.size();
        EXPECT_EQ(faces, expected) << name;
        mismatched += faces != expected;
        polygons += faces;
        ++maps;
    }
    std::printf(
        "[graph] %zu maps -> OBJ, re-read by tinyobjloader: %zu polygons, %zu maps "
        "differ from `levelkit geometry`\n",
        maps, polygons, mismatched);
}
