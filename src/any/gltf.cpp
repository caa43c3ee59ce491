// glTF 2.0 (.glb, or .gltf with a .bin beside it): a scene consumer that draws maps.
#include "handlers.hpp"
#include "levelkit/convert/scene_gltf.hpp"
#include "levelkit/core/text.hpp"

namespace lk {

namespace {

class GltfDocument final : public Document {
public:
    explicit GltfDocument(Bytes bytes) : bytes_(std::move(bytes)) {}
    std::string_view format() const override { return "gltf"; }
    Json info() const override { return Json{{"format", "gltf"}}; }
    Result<Bytes> write() const override { return bytes_; }

private:
    Bytes bytes_;
};

Result<ConvertResult> from_scene(const scene::Scene& s, const ConvertOptions& opt,
                                 Diagnostics& diags) {
    convert::GltfOptions o;
    o.scale = opt.options.number("scale").value_or(0.0254);
    o.texture_size = opt.options.number("texture-size").value_or(512);
    o.materials_dir = opt.options.text("materials");
    o.tools = opt.options.flag("tools");
    o.prop_boxes = opt.options.flag("prop-boxes");
    o.quantize = opt.options.flag("quantize");
    o.lights = !opt.options.flag("no-lights");
    o.binary = !iends_with(opt.output_path.filename().string(), ".gltf");
    std::filesystem::path bin = opt.output_path;
    bin.replace_extension(".bin");
    o.bin_name = bin.filename().string();
    o.name = opt.input_path.stem().string();
    LK_TRY_ASSIGN(convert::GltfFiles files, convert::scene_to_gltf(s, o, diags));
    ConvertResult r;
    const convert::GltfReport& g = files.report;
    r.report = {{"nodes", g.nodes},
                {"meshes", g.meshes},
                {"primitives", g.primitives},
                {"materials", g.materials},
                {"lights", g.lights},
                {"props", g.props},
                {"polygons", g.polygons},
                {"triangles", g.triangles},
                {"vertices", g.vertices},
                {"tool_faces_skipped", g.tool_faces_skipped},
                {"skipped_brushes", g.skipped_brushes},
                {"skybox", g.skybox}};
    if (!o.materials_dir.empty()) {
        r.report["textures_sized"] = g.textures_sized;
        r.report["textures_unsized"] = g.textures_unsized;
    }
    if (files.binary) {
        r.document = std::make_unique<GltfDocument>(std::move(files.glb));
    } else {
        const ByteSpan j = as_bytes(files.json);
        r.document = std::make_unique<GltfDocument>(Bytes(j.begin(), j.end()));
        r.companions.push_back({bin, std::move(files.bin)});
    }
    return r;
}

std::vector<OptionSpec> gltf_options() {
    using T = OptionSpec::Type;
    std::vector<OptionSpec> o = drawing_options();
    o.push_back({.name = "scale",
                 .type = T::number,
                 .default_value = "0.0254",
                 .help = "glTF output: metres per map unit (1 inch)",
                 .min = 1e-12});
    o.push_back({.name = "materials",
                 .type = T::path,
                 .help = "drawn outputs: a game's materials folder (or one holding WADs/PCX/BMP/"
                         "TGA) to read texture sizes from"});
    o.push_back({.name = "prop-boxes",
                 .type = T::flag,
                 .default_value = "0",
                 .help = "glTF output: a placeholder box on every prop"});
    o.push_back({.name = "quantize",
                 .type = T::flag,
                 .default_value = "0",
                 .help = "glTF output: 16-bit positions, 8-bit normals (KHR_mesh_quantization)"});
    o.push_back({.name = "no-lights",
                 .type = T::flag,
                 .default_value = "0",
                 .help = "glTF output: no KHR_lights_punctual lights"});
    return o;
}

}  // namespace

namespace handlers {

const FormatHandler gltf{
    .name = "gltf",
    .description =
        "glTF 2.0 (written): .glb, or .gltf with a .bin; a node per entity, a material "
        "per map material",
    .extensions = {".glb", ".gltf"},
    .scene = {.from = from_scene, .from_options = gltf_options(), .draws = true},
};

}  // namespace handlers

}  // namespace lk
