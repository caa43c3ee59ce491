// Every real vmap in the corpus: reads as a map, writes back byte-identical, and every mesh
// passes the half-edge validator.
#include <gtest/gtest.h>

#include <cstdio>

#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/vmap/vmap.hpp"
#include "support/corpus.hpp"

namespace lk::vmap {
namespace {

std::vector<std::filesystem::path> vmap_files() {
    std::vector<std::filesystem::path> out;
    for (const auto& f : test::corpus_files("dmx", {".vmap", ".vmap.txt", ".dmx"})) {
        auto blob = Blob::map_file(f);
        if (!blob) continue;
        const std::string_view head(reinterpret_cast<const char*>(blob->bytes().data()),
                                    std::min<std::size_t>(blob->bytes().size(), 200));
        if (head.find(" format vmap ") != std::string_view::npos) out.push_back(f);
    }
    return out;
}

TEST(VmapCorpus, ReadsRoundTripsAndEveryMeshIsValid) {
    LK_REQUIRE_CORPUS();
    const auto files = vmap_files();
    ASSERT_FALSE(files.empty());
    std::size_t maps = 0, identical = 0, meshes = 0, valid = 0, faces = 0, entities = 0;
    for (const auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob.ok());
        auto doc = dmx::read(blob->bytes());
        ASSERT_TRUE(doc.ok()) << doc.error().to_string();
        auto map = Map::open(*doc);
        ASSERT_TRUE(map.ok()) << map.error().to_string();
        ++maps;
        auto out = dmx::write(*doc);
        ASSERT_TRUE(out.ok());
        const ByteSpan a = blob->bytes();
        if (std::equal(a.begin(), a.end(), out->begin(), out->end())) {
            ++identical;
        } else {
            ADD_FAILURE() << "round trip differs";
        }
        entities += map->entities.size();
        for (std::uint32_t i : map->meshes) {
            ++meshes;
            auto v = view_mesh(*doc, map->mesh_data(map->nodes[i].element));
            ASSERT_TRUE(v.ok()) << v.error().to_string();
            faces += v->face_count();
            const auto problems = validate_mesh(*v);
            if (problems.empty()) {
                ++valid;
            } else {
                ADD_FAILURE() << "mesh node " << map->node_id(map->nodes[i].element) << ": "
                              << problems.front().invariant << ": " << problems.front().detail;
            }
        }
    }
    std::printf(
        "[vmap corpus] %zu/%zu maps read, %zu byte-identical; %zu/%zu meshes valid "
        "(%zu faces); %zu entities\n",
        maps, files.size(), identical, valid, meshes, faces, entities);
}

}  // namespace
}  // namespace lk::vmap
