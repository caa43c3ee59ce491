// Pictures (PNG): a scene consumer that draws a map from above or at an angle, with the
// overview text file (pos_x, pos_y, scale) beside a top view.
#include "handlers.hpp"
#include "levelkit/convert/model_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/render/render.hpp"

namespace lk {

namespace {

class PngDocument final : public Document {
public:
    explicit PngDocument(Bytes bytes) : bytes_(std::move(bytes)) {}
    std::string_view format() const override { return "png"; }
    Json info() const override { return Json{{"format", "png"}}; }
    Result<Bytes> write() const override { return bytes_; }

private:
    Bytes bytes_;
};

Result<ConvertResult> from_scene(const scene::Scene& s, const ConvertOptions& opt, Diagnostics&) {
    render::RenderOptions o;
    o.view =
        iequals(opt.options.text("view", "top"), "iso") ? render::View::iso : render::View::top;
    o.size = static_cast<int>(opt.options.integer("size").value_or(1024));
    o.tools = opt.options.flag("tools");
    o.skybox = opt.options.flag("skybox");
    const render::Picture pic = render::render_scene(s, o);
    LK_TRY_ASSIGN(Bytes png, render::encode_png(pic.image));
    ConvertResult r;
    r.report = {{"width", pic.image.width},
                {"height", pic.image.height},
                {"triangles", pic.triangles},
                {"view", o.view == render::View::iso ? "iso" : "top"}};
    if (pic.overview) {
        // The overview file games read beside a radar image: <name>.txt next to the PNG.
        std::filesystem::path txt = opt.output_path;
        txt.replace_extension(".txt");
        const std::string text =
            render::overview_text(opt.output_path.stem().string(), *pic.overview);
        const ByteSpan b = as_bytes(text);
        r.companions.push_back({txt, Bytes(b.begin(), b.end())});
        r.report["overview"] = {{"pos_x", pic.overview->pos_x},
                                {"pos_y", pic.overview->pos_y},
                                {"scale", pic.overview->scale}};
    }
    r.document = std::make_unique<PngDocument>(std::move(png));
    return r;
}

// A model is drawn as the scene of its meshes in their bind pose.
Result<ConvertResult> from_model(const model::Model& m, const ConvertOptions& opt,
                                 Diagnostics& diags) {
    return from_scene(convert::model_to_scene(m), opt, diags);
}

}  // namespace

namespace handlers {

namespace {
std::vector<OptionSpec> png_options() {
    return {{.name = "view",
             .type = OptionSpec::Type::text,
             .default_value = "top",
             .help = "picture: top (an overview, as radar images) or iso",
             .choices = {"top", "iso"}},
            {.name = "size",
             .type = OptionSpec::Type::integer,
             .default_value = "1024",
             .help = "picture: width in pixels",
             .min = 16,
             .max = 16384},
            {.name = "tools",
             .type = OptionSpec::Type::flag,
             .default_value = "0",
             .help = "drawn outputs: keep faces with tool materials (nodraw, "
                     "skip, hint, clip...)"},
            {.name = "skybox",
             .type = OptionSpec::Type::flag,
             .default_value = "0",
             .help = "picture: draw the 3D skybox too"}};
}
}  // namespace

const FormatHandler png{
    .name = "png",
    .description =
        "picture (written): a top-down overview (with its overview .txt) or an "
        "isometric view",
    .extensions = {".png"},
    .scene = {.from = from_scene, .from_options = png_options(), .draws = true},
    .model = {.from = from_model, .from_options = png_options(), .draws = true},
};

}  // namespace handlers

}  // namespace lk
