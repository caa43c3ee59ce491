// Corpus checks for VMF: byte-identical round trip, typed model preserved by the normalised
// rewrite, and computed brush polygons against Hammer++'s stored exact vertices.
#include <gtest/gtest.h>

#include <cmath>

#include "levelkit/core/file.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"
#include "support/corpus.hpp"
#include "support/vmf_origins.hpp"
#include "support/vmf_summary.hpp"

using namespace lk;

namespace {

std::vector<std::filesystem::path> all_vmfs() {
    auto files = test::corpus_files("vmf", {".vmf"});
    auto more = test::corpus_files("bsp/vmf", {".vmf"});
    files.insert(files.end(), more.begin(), more.end());
    return files;
}

// Largest distance from a point of `a` to its nearest point in `b`.
double one_way(std::span<const Vec3> a, std::span<const Vec3> b) {
    double worst = 0;
    for (const Vec3& p : a) {
        double best = INFINITY;
        for (const Vec3& q : b) best = std::min(best, distance(p, q));
        worst = std::max(worst, best);
    }
    return worst;
}

}  // namespace

TEST(VmfCorpus, RoundTripAndTypedModelSurviveRewrite) {
    LK_REQUIRE_CORPUS();
    const auto files = all_vmfs();
    ASSERT_FALSE(files.empty());
    std::size_t identical = 0, typed_equal = 0;
    for (const auto& f : files) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob);
        auto doc = vmf::Document::read(blob.value());
        ASSERT_TRUE(doc) << doc.error().to_string();
        if (doc->write() == blob->text()) {
            ++identical;
        } else {
            ADD_FAILURE() << f << ": round trip differs";
        }
        // The typed model re-read from its own normalised rewrite equals the first.
        auto again = vmf::Document::read(vmf::write(doc->map()));
        ASSERT_TRUE(again) << f;
        if (again->map() == doc->map()) {
            ++typed_equal;
        } else {
            ADD_FAILURE() << f << ": typed model changed by the normalised rewrite";
        }
    }
    std::printf("VMF corpus: %zu files, %zu byte-identical, %zu typed-equal after rewrite\n",
                files.size(), identical, typed_equal);
}

// vmf::write renders the typed model straight to text; it must be byte for byte what the
// canonical kv tree of vmf::to_tree writes, with either line ending.
TEST(VmfCorpus, DirectWriteEqualsTreeWrite) {
    LK_REQUIRE_CORPUS();
    std::size_t files = 0, equal = 0;
    for (const auto& f : all_vmfs()) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob);
        auto doc = vmf::Document::read(blob.value());
        ASSERT_TRUE(doc) << doc.error().to_string();
        ++files;
        bool same = true;
        for (const char* eol : {"\n", "\r\n"}) {
            if (vmf::write(doc->map(), {eol}) != vmf::to_tree(doc->map(), {eol}).write()) {
                ADD_FAILURE() << f << ": direct write differs from the tree's (eol "
                              << (eol[1] ? "CRLF" : "LF") << ")";
                same = false;
            }
        }
        if (same) ++equal;
    }
    std::printf("VMF corpus: %zu files, %zu with direct write == tree write\n", files, equal);
}

TEST(VmfCorpus, ComputedPolygonsMatchHammerPlusPlusVertices) {
    LK_REQUIRE_CORPUS();
    std::size_t sides = 0, within = 0, count_mismatch = 0;
    double worst = 0;
    std::string worst_where;
    BrushPolygons polys;
    for (const auto& f : all_vmfs()) {
        auto doc = vmf::Document::read(Blob::map_file(f).value());
        ASSERT_TRUE(doc);
        auto check_entity = [&](const vmf::Entity& e) {
            for (const vmf::Solid& s : e.solids) {
                vmf::solid_polygons(s, polys);
                if (!polys.valid()) continue;
                for (std::size_t i = 0; i < s.sides.size(); ++i) {
                    const auto& stored = s.sides[i].vertices_plus;
                    if (stored.empty()) continue;
                    ++sides;
                    auto face = polys.face(i);
                    const double d = std::max(one_way(stored, face), one_way(face, stored));
                    if (face.size() != stored.size()) ++count_mismatch;
                    if (d <= 0.05 && face.size() == stored.size()) {
                        ++within;
                    } else if (d > worst) {
                        worst = d;
                        worst_where =
                            f.filename().string() + " side " + std::to_string(s.sides[i].id);
                    }
                }
            }
        };
        check_entity(doc->map().world);
        for (const auto& e : doc->map().entities) check_entity(e);
    }
    ASSERT_GT(sides, 0u);
    const double ratio = static_cast<double>(within) / static_cast<double>(sides);
    std::printf(
        "vertices_plus: %zu sides, %zu within 0.05 (%.4f%%), %zu with a different "
        "vertex count, largest deviation %.4f (%s)\n",
        sides, within, 100 * ratio, count_mismatch, worst, worst_where.c_str());
    EXPECT_GE(ratio, 0.999);
}

TEST(VmfCorpus, StreamingReaderEqualsTreeReader) {
    LK_REQUIRE_CORPUS();
    std::size_t equal = 0, files = 0, threaded_equal = 0;
    for (const auto& f : all_vmfs()) {
        auto blob = Blob::map_file(f).value();
        auto doc = vmf::Document::read(blob);
        ASSERT_TRUE(doc);
        Diagnostics d;
        auto map = vmf::read_map(blob, d);
        ASSERT_TRUE(map) << f;
        ++files;
        if (map.value() == doc->map()) {
            ++equal;
        } else {
            ADD_FAILURE() << f << ": streaming and tree readers disagree";
        }
        EXPECT_EQ(d.size(), doc->diagnostics().size()) << f;
        // Threaded: cut into up to 3 pieces whatever the size; same model, same diagnostics.
        vmf::ReadOptions opt;
        opt.threads = 3;
        opt.min_piece_bytes = 1;
        Diagnostics td;
        auto threaded = vmf::read_map(blob, td, opt);
        ASSERT_TRUE(threaded) << f;
        if (threaded.value() == map.value()) ++threaded_equal;
        EXPECT_TRUE(threaded.value() == map.value()) << f << ": threaded read differs";
        ASSERT_EQ(td.size(), d.size()) << f;
        for (std::size_t i = 0; i < d.size(); ++i) {
            EXPECT_EQ(td.items()[i].to_string(), d.items()[i].to_string()) << f;
            EXPECT_EQ(td.items()[i].offset, d.items()[i].offset) << f;
        }
    }
    std::printf(
        "streaming typed reader: %zu/%zu files equal to the tree reader, threaded read "
        "equal: %zu\n",
        equal, files, threaded_equal);
    EXPECT_EQ(threaded_equal, files);
}

// What `levelkit info` reads: a summary, counted piece by piece, is the model's, on every
// corpus map cut as a large one is (forced: most corpus maps are under the summary's pieces),
// and as summarize cuts it by default.
TEST(VmfCorpus, SummaryIsThatOfTheModel) {
    LK_REQUIRE_CORPUS();
    std::size_t files = 0, cut = 0;
    for (const auto& f : all_vmfs()) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob);
        vmf::ReadOptions forced;
        forced.threads = 2;
        forced.pieces = 7;
        forced.min_piece_bytes = 1;
        EXPECT_EQ(test::summary_mismatch(blob.value(), forced), "") << f;
        EXPECT_EQ(test::summary_mismatch(blob.value(), {}), "") << f;
        ++files;
        if (blob->size() >= (std::size_t{1} << 17)) ++cut;  // two pieces of 64 KiB
    }
    std::printf("summaries equal to the model's counts: %zu maps (%zu cut by default)\n", files,
                cut);
    EXPECT_GT(files, 0u);
}

// read_map's light tokenizer and the full KeyValues parser give the same model, origins and
// diagnostics on every corpus map, read whole and in pieces on several threads, and the model is
// the one the lossless reader builds.
TEST(VmfCorpus, LightTokenizerEqualsFullParser) {
    LK_REQUIRE_CORPUS();
    std::size_t files = 0, diagnostics = 0;
    for (const auto& f : all_vmfs()) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob);
        auto doc = vmf::Document::read(blob.value());
        ASSERT_TRUE(doc) << f;
        for (unsigned threads : {1u, 2u}) {
            vmf::ReadOptions full, light;
            full.threads = light.threads = threads;
            full.light_tokenizer = false;
            Diagnostics fd, ld;
            auto a = vmf::read_map(blob.value(), fd, full);
            auto b = vmf::read_map(blob.value(), ld, light);
            ASSERT_TRUE(a && b) << f;
            EXPECT_TRUE(a.value() == b.value()) << f;
            EXPECT_TRUE(b.value() == doc->map()) << f;
            EXPECT_EQ(test::vmf_origins(a.value()), test::vmf_origins(b.value())) << f;
            ASSERT_EQ(fd.size(), ld.size()) << f;
            for (std::size_t i = 0; i < fd.size(); ++i) {
                EXPECT_EQ(fd.items()[i].to_string(), ld.items()[i].to_string()) << f;
                EXPECT_EQ(fd.items()[i].offset, ld.items()[i].offset) << f;
            }
            diagnostics += fd.size();
        }
        ++files;
    }
    std::printf(
        "VMF corpus: %zu files read alike by both tokenizers and the lossless reader (%zu "
        "diagnostics)\n",
        files, diagnostics);
}
