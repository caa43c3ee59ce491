// SMD/VTA corpus round trips, and model files cut short or with flipped bytes: every failure is
// a located error (line:column, byte offset or a logical path), never a crash.
#include <gtest/gtest.h>

#include <cstdio>

#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/convert/smd_model.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"
#include "model/model_support.hpp"

namespace lk {
namespace {

std::vector<std::filesystem::path> smd_files() {
    return test::corpus_files("model", {".smd", ".vta"});
}

TEST(SmdCorpus, EveryFileReadsAndWritesBackTheSameContent) {
    LK_REQUIRE_CORPUS();
    const auto files = smd_files();
    ASSERT_FALSE(files.empty());
    std::size_t same = 0, identical = 0, converted = 0, bytes = 0;
    for (const auto& p : files) {
        SCOPED_TRACE(p.filename().string());
        auto data = read_file(p);
        ASSERT_TRUE(data.ok());
        const std::string_view text = as_text(*data);
        Diagnostics w;
        auto f = smd::read(text, w);
        ASSERT_TRUE(f.ok()) << f.error().to_string();
        const std::string out = smd::write(*f);
        auto g = smd::read(out, w);
        ASSERT_TRUE(g.ok()) << g.error().to_string();
        if (smd::same_content(*f, *g)) {
            ++same;
        } else {
            ADD_FAILURE() << "content changed";
        }
        identical += out == text;
        bytes += text.size();
        // Every reference or animation SMD converts to the neutral model.
        if (p.extension() == ".smd") {
            auto m = convert::smd_to_model(*f, nullptr, w);
            ASSERT_TRUE(m.ok()) << m.error().to_string();
            EXPECT_TRUE(model::check(*m).empty());
            ++converted;
        }
    }
    std::printf(
        "[smd corpus] %zu/%zu SMD/VTA files (%zu bytes) read and write back the same "
        "content (%zu byte-identical); %zu SMDs convert to the neutral model\n",
        same, files.size(), bytes, identical, converted);
}

bool located(const Diagnostic& d) {
    return d.has_line() || d.has_offset() || !d.path.empty();
}

// Cuts: every prefix for small files, evenly spaced ones (plus the first 256) for large ones.
std::vector<std::size_t> cuts(std::size_t size) {
    std::vector<std::size_t> out;
    if (size <= 4096) {
        for (std::size_t i = 0; i < size; ++i) out.push_back(i);
        return out;
    }
    for (std::size_t i = 0; i < 256; ++i) out.push_back(i);
    for (std::size_t k = 0; k < 512; ++k) out.push_back(256 + (size - 256) * k / 512);
    return out;
}

TEST(SmdCorpus, TruncationsAndByteFlipsGiveLocatedErrors) {
    LK_REQUIRE_CORPUS();
    std::size_t runs = 0, errors = 0;
    std::uint64_t rng = 0x5eed;
    for (const auto& p : smd_files()) {
        SCOPED_TRACE(p.filename().string());
        auto data = read_file(p);
        ASSERT_TRUE(data.ok());
        const std::string text(as_text(*data));
        auto check = [&](std::string_view t) {
            Diagnostics w;
            auto f = smd::read(t, w);
            ++runs;
            if (!f) {
                ++errors;
                EXPECT_TRUE(f.error().has_line()) << f.error().to_string();
                return;
            }
            for (const Diagnostic& d : w.items()) EXPECT_TRUE(located(d)) << d.to_string();
            (void)smd::write(*f);
            if (f->has_triangles || f->skeleton.size() > 1) {
                auto m = convert::smd_to_model(*f, nullptr, w);
                if (m) {
                    EXPECT_TRUE(model::check(*m).empty());
                }
            }
        };
        for (std::size_t n : cuts(text.size())) check(std::string_view(text).substr(0, n));
        for (int k = 0; k < 200; ++k) {
            std::string flipped = text;
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            const std::size_t at = (rng >> 16) % flipped.size();
            flipped[at] = static_cast<char>(flipped[at] ^ static_cast<char>(1 + (rng >> 40) % 255));
            check(flipped);
        }
    }
    std::printf(
        "[smd bad input] %zu truncated/flipped SMD/VTA texts: %zu errors, all with "
        "line:column\n",
        runs, errors);
}

TEST(DmxModelCorpus, TruncationsAndByteFlipsGiveLocatedErrors) {
    LK_REQUIRE_CORPUS();
    std::size_t runs = 0, read_errors = 0, model_errors = 0, validated = 0;
    std::uint64_t rng = 0xd31;
    for (const auto& f : test::model_corpus()) {
        if (f.doc.container.gzip || f.bytes.size() > 400000) continue;
        SCOPED_TRACE(f.path.filename().string());
        auto check = [&](ByteSpan b) {
            ++runs;
            auto doc = dmx::read(b);
            if (!doc) {
                ++read_errors;
                EXPECT_TRUE(located(doc.error())) << doc.error().to_string();
                return;
            }
            Diagnostics w;
            auto view = dmxmodel::Model::open(*doc, w);
            if (!view) {
                ++model_errors;
                EXPECT_TRUE(located(view.error())) << view.error().to_string();
                return;
            }
            Diagnostics v;
            dmxmodel::validate(*view, v);
            ++validated;
            for (const Diagnostic& d : v.items()) EXPECT_TRUE(located(d)) << d.to_string();
            (void)dmxmodel::stats(*view);
            auto m = convert::dmxmodel_to_model(*view, w);
            ASSERT_TRUE(m.ok());
            EXPECT_TRUE(model::check(*m).empty());
            Diagnostics sw;
            (void)convert::model_to_smd(*m, sw);
        };
        const ByteSpan all(f.bytes);
        const std::size_t step = std::max<std::size_t>(1, f.bytes.size() / 96);
        for (std::size_t n = 0; n < f.bytes.size(); n += step) check(all.first(n));
        for (int k = 0; k < 24; ++k) {
            Bytes flipped = f.bytes;
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            const std::size_t at = (rng >> 16) % flipped.size();
            flipped[at] ^= static_cast<std::byte>(1 + (rng >> 40) % 255);
            check(flipped);
        }
    }
    std::printf(
        "[dmxmodel bad input] %zu truncated/flipped model files: %zu read errors, %zu "
        "model errors, %zu validated and converted; every diagnostic located\n",
        runs, read_errors, model_errors, validated);
}

}  // namespace
}  // namespace lk
