// OBJ: an output-only format, the scene's drawable polygons with materials in an .mtl beside it.
#include "handlers.hpp"
#include "levelkit/convert/model_scene.hpp"
#include "levelkit/convert/scene_obj.hpp"

namespace lk {

namespace {

class ObjDocument final : public Document {
public:
    explicit ObjDocument(std::string text) : text_(std::move(text)) {}
    std::string_view format() const override { return "obj"; }
    Json info() const override { return Json{{"format", "obj"}}; }
    Result<Bytes> write() const override {
        const ByteSpan b = as_bytes(text_);
        return Bytes(b.begin(), b.end());
    }

private:
    std::string text_;
};

Result<ConvertResult> from_scene(const scene::Scene& s, const ConvertOptions& opt, Diagnostics&) {
    convert::SceneToObjOptions o;
    o.surfaces.skip_tool_materials = !opt.options.flag("tools");
    o.surfaces.default_texture_size = opt.options.number("texture-size").value_or(512);
    o.scale = opt.options.number("scale").value_or(1);
    o.z_up = opt.options.flag("z-up");
    const std::filesystem::path mtl =
        opt.output_path.empty() ? std::filesystem::path("map.mtl")
                                : std::filesystem::path(opt.output_path).replace_extension(".mtl");
    o.mtl_name = mtl.filename().string();
    convert::ObjFiles files = convert::scene_to_obj(s, o);
    ConvertResult r;
    r.report["objects"] = files.objects;
    r.report["polygons"] = files.polygons;
    r.report["vertices"] = files.vertices;
    r.report["materials"] = files.materials;
    const ByteSpan m = as_bytes(files.mtl);
    r.companions.push_back({mtl, Bytes(m.begin(), m.end())});
    r.document = std::make_unique<ObjDocument>(std::move(files.obj));
    return r;
}

// A model is drawn as the scene of its meshes in their bind pose.
Result<ConvertResult> from_model(const model::Model& m, const ConvertOptions& opt,
                                 Diagnostics& diags) {
    return from_scene(convert::model_to_scene(m), opt, diags);
}

}  // namespace

std::vector<OptionSpec> drawing_options() {
    using T = OptionSpec::Type;
    return {
        {.name = "tools",
         .type = T::flag,
         .default_value = "0",
         .help = "drawn outputs: keep faces with tool materials (nodraw, skip, hint, clip...)"},
        {.name = "texture-size",
         .type = T::number,
         .default_value = "512",
         .help = "texels per texture repeat where a material's size is unknown",
         .min = 1e-9},
    };
}

namespace handlers {

namespace {
std::vector<OptionSpec> obj_options() {
    std::vector<OptionSpec> o = drawing_options();
    o.push_back({.name = "scale",
                 .type = OptionSpec::Type::number,
                 .default_value = "1",
                 .help = "OBJ output: output units per map unit",
                 .min = 1e-12});
    o.push_back({.name = "z-up",
                 .type = OptionSpec::Type::flag,
                 .default_value = "0",
                 .help = "OBJ output: keep the map's Z-up axes (default: Y up, as OBJ readers "
                         "expect)"});
    return o;
}
}  // namespace

const FormatHandler obj{
    .name = "obj",
    .description =
        "Wavefront OBJ + MTL (written only): drawable polygons, one object per brush "
        "or mesh",
    .extensions = {".obj"},
    .scene = {.from = from_scene, .from_options = obj_options(), .draws = true},
    .model = {.from = from_model, .from_options = obj_options(), .draws = true},
};

}  // namespace handlers

}  // namespace lk
