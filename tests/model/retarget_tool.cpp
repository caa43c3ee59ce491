// Test helper for the dmxinfo oracle: converts every DMX model given to the neutral model and
// writes it back as binary 5 / model 18, binary 9 / model 22 and binary 2 / model 1 into OUT_DIR
// (<stem>.b5m18.dmx ...), converted in place by dmxmodel::retarget (<stem>.inplace.b5m18.dmx),
// and written from the model read back from its glTF (<stem>.gltf.b5m18.dmx).
// Prints one line per written file; exit 1 if any conversion failed.
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/convert/model_gltf.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/dmx/io.hpp"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OUT_DIR MODEL.dmx...\n", argv[0]);
        return 3;
    }
    const std::filesystem::path out_dir = argv[1];
    const std::pair<const char*, lk::dmxmodel::Target> targets[] = {
        {"b5m18", lk::dmxmodel::Target::source1()},
        {"b9m22", lk::dmxmodel::Target::source2()},
        {"b2m1", lk::dmxmodel::Target::source1_legacy()},
    };
    int failed = 0;
    for (int i = 2; i < argc; ++i) {
        const std::filesystem::path in = argv[i];
        auto bytes = lk::read_file(in);
        auto doc = bytes ? lk::dmx::read(*bytes) : lk::Result<lk::dmx::Document>(bytes.error());
        if (!doc || doc->header.format != "model") continue;
        lk::Diagnostics w;
        auto m = lk::convert::dmx_to_model(*doc, w);
        if (!m) {
            std::printf("failed %s: %s\n", in.filename().c_str(), m.error().to_string().c_str());
            ++failed;
            continue;
        }
        // "Datamodel.NET" sits inside some corpus names: cut the extensions, not at the first dot.
        std::string stem = in.filename().string();
        for (const char* ext : {".gz", ".dmx"}) {
            if (stem.size() > std::strlen(ext) && stem.ends_with(ext)) {
                stem.resize(stem.size() - std::strlen(ext));
            }
        }
        for (const auto& [tag, target] : targets) {
            auto out = lk::convert::model_to_dmx(*m, target, w);
            auto data = out ? lk::dmx::write(*out) : lk::Result<lk::Bytes>(out.error());
            const auto path = out_dir / (stem + "." + tag + ".dmx");
            if (!data || !lk::write_file_atomic(path, *data)) {
                std::printf("failed %s -> %s\n", in.filename().c_str(), tag);
                ++failed;
                continue;
            }
            std::printf("wrote %s\n", path.filename().c_str());
            // The same target by converting the original document in place.
            lk::dmx::Document copy = doc->clone();
            auto r = lk::dmxmodel::retarget(copy, target, w);
            auto in_place = r ? lk::dmx::write(copy) : lk::Result<lk::Bytes>(r.error());
            const auto path2 = out_dir / (stem + ".inplace." + tag + ".dmx");
            if (!in_place || !lk::write_file_atomic(path2, *in_place)) {
                std::printf("failed %s -> in place %s\n", in.filename().c_str(), tag);
                ++failed;
                continue;
            }
            std::printf("wrote %s\n", path2.filename().c_str());
            // The same target from the model that went to glTF and back.
            auto glb = lk::convert::model_to_gltf(*m, {}, w);
            auto back = glb ? lk::convert::gltf_to_model(glb->glb, {}, w)
                            : lk::Result<lk::model::Model>(glb.error());
            auto via = back ? lk::convert::model_to_dmx(*back, target, w)
                            : lk::Result<lk::dmx::Document>(back.error());
            auto via_data = via ? lk::dmx::write(*via) : lk::Result<lk::Bytes>(via.error());
            const auto path3 = out_dir / (stem + ".gltf." + tag + ".dmx");
            if (!via_data || !lk::write_file_atomic(path3, *via_data)) {
                std::printf("failed %s -> glTF -> %s\n", in.filename().c_str(), tag);
                ++failed;
                continue;
            }
            std::printf("wrote %s\n", path3.filename().c_str());
        }
    }
    return failed ? 1 : 0;
}
