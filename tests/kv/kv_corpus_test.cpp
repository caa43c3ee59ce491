// Every corpus VMF parses as KeyValues and writes back byte-identical.
#include <gtest/gtest.h>

#include "levelkit/core/file.hpp"
#include "levelkit/kv/keyvalues.hpp"
#include "support/corpus.hpp"

using namespace lk;

TEST(KeyValuesCorpus, EveryVmfRoundTripsByteIdentical) {
    LK_REQUIRE_CORPUS();
    auto files = test::corpus_files("vmf", {".vmf"});
    auto more = test::corpus_files("bsp/vmf", {".vmf"});
    files.insert(files.end(), more.begin(), more.end());
    ASSERT_FALSE(files.empty());
    std::size_t identical = 0, failed = 0, bytes = 0, nodes = 0;
    for (const auto& f : files) {
        auto blob = Blob::map_file(f);
        ASSERT_TRUE(blob) << f;
        auto doc = kv::Document::parse(blob.value());
        if (!doc) {
            // The corpus has one deliberately malformed file; it must fail with a location.
            ++failed;
            EXPECT_TRUE(doc.error().has_line()) << doc.error().to_string();
            std::printf("  parse error (expected only for malformed files): %s: %s\n",
                        f.filename().c_str(), doc.error().to_string().c_str());
            continue;
        }
        bytes += blob->size();
        nodes += doc->node_count();
        const std::string out = doc->write();
        if (out == blob->text()) {
            ++identical;
        } else {
            ADD_FAILURE() << f << " differs";
        }
    }
    std::printf(
        "KeyValues corpus: %zu files, %zu identical, %zu parse errors, %.1f MB, %zu nodes\n",
        files.size(), identical, failed, bytes / 1e6, nodes);
    EXPECT_LE(failed, 1u);
}
