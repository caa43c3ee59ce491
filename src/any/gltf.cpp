// glTF 2.0 (.glb, or .gltf with a .bin beside it): a scene consumer that draws maps.
#include <cstring>

#include "handlers.hpp"
#include "levelkit/convert/model_gltf.hpp"
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
    ByteSpan bytes() const { return bytes_; }

private:
    Bytes bytes_;
};

// The written glTF: a .glb alone, or a .gltf whose buffer goes to `bin` beside it.
void output(ConvertResult& r, bool binary, Bytes glb, std::string_view json,
            const std::filesystem::path& bin, Bytes bin_bytes) {
    if (binary) {
        r.document = std::make_unique<GltfDocument>(std::move(glb));
    } else {
        const ByteSpan j = as_bytes(json);
        r.document = std::make_unique<GltfDocument>(Bytes(j.begin(), j.end()));
        r.companions.push_back({bin, std::move(bin_bytes)});
    }
}

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
    output(r, files.binary, std::move(files.glb), files.json, bin, std::move(files.bin));
    return r;
}

Result<ConvertResult> from_model(const model::Model& m, const ConvertOptions& opt,
                                 Diagnostics& diags) {
    convert::ModelGltfOptions o;
    o.scale = opt.options.number("scale").value_or(0.0254);
    o.binary = !iends_with(opt.output_path.filename().string(), ".gltf");
    std::filesystem::path bin = opt.output_path;
    bin.replace_extension(".bin");
    o.bin_name = bin.filename().string();
    LK_TRY_ASSIGN(convert::ModelGltfFiles files, convert::model_to_gltf(m, o, diags));
    ConvertResult r;
    const convert::ModelGltfReport& g = files.report;
    r.report = {{"meshes", g.meshes},
                {"primitives", g.primitives},
                {"vertices", g.vertices},
                {"triangles", g.triangles},
                {"materials", g.materials},
                {"joints", g.joints},
                {"morph_targets", g.morph_targets},
                {"sparse_targets", g.sparse_targets},
                {"animations", g.animations},
                {"influences_reduced", g.influences_reduced},
                {"unweighted_vertices", g.unweighted_vertices}};
    output(r, files.binary, std::move(files.glb), files.json, bin, std::move(files.bin));
    return r;
}

// A .glb by its magic; a .gltf is JSON with an "asset" object near the start.
int sniff(ByteSpan data, std::string_view filename) {
    if (data.size() >= 12 && std::memcmp(data.data(), "glTF", 4) == 0) return 100;
    const std::string_view t = as_text(data.first(std::min<std::size_t>(data.size(), 4096)));
    const std::size_t b = t.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos || t[b] != '{' || t.find("\"asset\"") == std::string_view::npos)
        return 0;
    return iends_with(filename, ".gltf") ? 90 : 40;
}

Result<std::unique_ptr<Document>> read(Blob data, const ReadOptions&) {
    const ByteSpan b = data.bytes();
    return std::unique_ptr<Document>(std::make_unique<GltfDocument>(Bytes(b.begin(), b.end())));
}

Result<model::Model> to_model(const Document& in, const ConvertOptions& opt, Diagnostics& diags,
                              Json& report) {
    const auto* src = dynamic_cast<const GltfDocument*>(&in);
    if (!src) return Diagnostic::error("convert.internal", "input is not a glTF document");
    convert::GltfModelOptions o;
    o.scale = opt.options.number("gltf-scale").value_or(0.0254);
    o.frame_rate = opt.options.number("frame-rate").value_or(0);
    if (!opt.input_path.empty()) {
        o.name = opt.input_path.stem().string();
        o.base_dir = std::filesystem::absolute(opt.input_path).parent_path().string();
    }
    LK_TRY_ASSIGN(model::Model m, convert::gltf_to_model(src->bytes(), o, diags));
    report_model(m, report);
    return m;
}

std::vector<OptionSpec> model_to_options() {
    // Not "scale": that is the output's option (OBJ: output units per unit; glTF: metres).
    return {{.name = "gltf-scale",
             .type = OptionSpec::Type::number,
             .default_value = "0.0254",
             .help = "glTF input from other tools: metres per model unit written (1 inch); "
                     "levelkit's own files keep theirs",
             .min = 1e-12},
            {.name = "frame-rate",
             .type = OptionSpec::Type::number,
             .default_value = "0",
             .help = "glTF input: frames per second of animations without one (0: the rate "
                     "whose frames the keys sit on, 24, 25, 30, 60 ..., else 30)",
             .min = 0}};
}

std::vector<OptionSpec> model_options() {
    return {{.name = "scale",
             .type = OptionSpec::Type::number,
             .default_value = "0.0254",
             .help = "glTF: metres per map or model unit (1 inch)",
             .min = 1e-12}};
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
        "glTF 2.0: .glb, or .gltf with a .bin; maps written (a node per entity, a material "
        "per map material), models read and written (skins, morph targets, animations)",
    .extensions = {".glb", ".gltf"},
    .sniff = sniff,
    .read = read,
    .scene = {.from = from_scene, .from_options = gltf_options(), .draws = true},
    .model = {.to = to_model,
              .to_options = model_to_options(),
              .from = from_model,
              .from_options = model_options()},
};

}  // namespace handlers

}  // namespace lk
