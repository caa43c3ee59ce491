// The format-erased adapter: detection, the `info --json` contract keys, lossless write and the
// bsp -> bsp converter.
#include <gtest/gtest.h>

#include "levelkit/any/document.hpp"
#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/lumps.hpp"

using namespace lk;

namespace {

Bytes tiny_map() {
    bsp::Bsp b = bsp::Bsp::make_empty(20);
    EXPECT_TRUE(bsp::replace_entities(b, "{\n\"classname\" \"worldspawn\"\n}\n"));
    ByteWriter planes;
    for (float f : {0.f, 0.f, 1.f, 0.f}) planes.f32(f);
    planes.i32(2);
    EXPECT_TRUE(b.set_lump(bsp::LumpId::planes, Blob::from_bytes(planes.take())));
    EXPECT_TRUE(b.set_lump(bsp::LumpId::lighting, Blob::copy_of(std::string(2048, '\0'))));
    auto out = b.write();
    EXPECT_TRUE(out);
    return out ? std::move(out).value() : Bytes{};
}

std::unique_ptr<Document> read_document_ok(const Bytes& bytes) {
    lk::ReadOptions opt;
    opt.source_name = "tiny.bsp";
    auto doc = read_document(Blob::copy_of(bytes), opt);
    EXPECT_TRUE(doc) << (doc ? "" : doc.error().to_string());
    return doc ? std::move(doc).value() : nullptr;
}

}  // namespace

TEST(AnyBsp, InfoHasTheContractKeys) {
    const Bytes bytes = tiny_map();
    auto doc = read_document_ok(bytes);
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->format(), "bsp");
    const Json j = doc->info();
    for (const char* key : {"format",
                            "version",
                            "endian",
                            "map_revision",
                            "lumps",
                            "entities",
                            "planes",
                            "brushes",
                            "brushsides",
                            "faces",
                            "original_faces",
                            "models",
                            "texinfo",
                            "texdata",
                            "displacements",
                            "overlays",
                            "cubemaps",
                            "static_props",
                            "static_prop_version",
                            "static_prop_models",
                            "detail_props",
                            "pak_entries",
                            "game_lumps"}) {
        EXPECT_TRUE(j.contains(key)) << key;
    }
    EXPECT_EQ(j["format"], "bsp");
    EXPECT_EQ(j["endian"], "little");
    EXPECT_EQ(j["entities"], 1);
    EXPECT_EQ(j["planes"], 1);
    ASSERT_EQ(j["lumps"].size(), 64u);
    EXPECT_EQ(j["lumps"][1]["length"], 20);
    EXPECT_EQ(j["lumps"][0]["offset"], 1036);  // 30 bytes of entities, padded to 32
    EXPECT_EQ(j["lumps"][1]["offset"], 1068);
    EXPECT_EQ(j["lumps"][8]["compressed"], false);
    auto w = doc->write();
    ASSERT_TRUE(w);
    EXPECT_EQ(*w, bytes);
}

TEST(AnyBsp, ConverterCompressesDecompressesAndReplacesEntities) {
    auto doc = read_document_ok(tiny_map());
    ASSERT_TRUE(doc);
    Options opt;
    opt.set("compress", "1");
    Diagnostics diags;
    auto packed = convert_document(*doc, "bsp", opt, diags);
    ASSERT_TRUE(packed) << packed.error().to_string();
    EXPECT_EQ(packed->report["compressed_lumps"], 1);  // only the 2 KiB of lighting shrinks
    auto packed_doc = read_document_ok(*packed->document->write());
    ASSERT_TRUE(packed_doc);
    EXPECT_EQ(packed_doc->info()["lumps"][8]["compressed"], true);

    opt.set("compress", "0");
    opt.set("decompress", "1");
    auto plain = convert_document(*packed_doc, "bsp", opt, diags);
    ASSERT_TRUE(plain);
    auto plain_doc = read_document_ok(*plain->document->write());
    EXPECT_EQ(plain_doc->info()["lumps"][8]["compressed"], false);
    EXPECT_EQ(plain_doc->info()["lumps"][8]["length"], 2048);

    opt.set("compress", "1");
    EXPECT_FALSE(convert_document(*doc, "bsp", opt, diags));  // both flags at once
}
