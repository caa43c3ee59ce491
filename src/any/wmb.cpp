// WMB adapter: compiled Gamestudio levels (WMB1-7), lossless, with their scene step.
#include "levelkit/wmb/wmb.hpp"

#include <fmt/format.h>

#include "handlers.hpp"
#include "levelkit/any/wmb_tools.hpp"
#include "levelkit/convert/wmb_scene.hpp"
#include "levelkit/wmb/images.hpp"

namespace lk {

namespace {

class WmbDocument final : public Document {
public:
    explicit WmbDocument(wmb::File file) : file_(std::move(file)) {}

    std::string_view format() const override { return "wmb"; }
    Json info() const override {
        const wmb::Counts c = wmb::count(file_);
        Json j;
        j["format"] = "wmb";
        j["version"] = file_.version;
        j["lists"] = c.lists;
        j["faces"] = c.faces;
        j["blocks"] = c.blocks;
        j["triangles"] = c.triangles;
        j["entities"] = c.entities;
        j["lights"] = c.lights;
        j["sounds"] = c.sounds;
        j["paths"] = c.paths;
        j["regions"] = c.regions;
        j["textures"] = c.textures;
        j["lightmaps"] = c.lightmaps;
        j["materials"] = c.materials;
        return j;
    }
    Result<Bytes> write() const override { return wmb::write(file_); }
    void validate(Diagnostics& out) const override { wmb::validate(file_, out); }
    const wmb::File& file() const { return file_; }

private:
    wmb::File file_;
};

int sniff(ByteSpan data, std::string_view) {
    return wmb::is_wmb(data) ? 100 : 0;
}

Result<std::unique_ptr<Document>> read(Blob data, const ReadOptions&) {
    Diagnostics warnings;
    LK_TRY_ASSIGN(wmb::File f, wmb::read(std::move(data), warnings));
    auto doc = std::make_unique<WmbDocument>(std::move(f));
    doc->read_diagnostics().add_all(warnings);
    return std::unique_ptr<Document>(std::move(doc));
}

Result<scene::Scene> to_scene(const Document& in, const ConvertOptions& opt, Diagnostics& diags,
                              Json& j) {
    const auto* doc = dynamic_cast<const WmbDocument*>(&in);
    if (!doc) return Diagnostic::error("convert.internal", "input is not a WMB document");
    convert::WmbToSceneOptions o;
    o.scale = opt.options.number("wmp-scale").value_or(1.0);
    // Outputs without meshes (VMF) get the world as brushes rebuilt from the faces.
    o.brushes = !opt.meshes_ok || opt.options.flag("wmb-brushes");
    convert::WmbToSceneReport r;
    LK_TRY_ASSIGN(scene::Scene s, convert::wmb_to_scene(doc->file(), diags, o, &r));
    j["unit_scale"] = o.scale;
    j["meshes"] = r.meshes;
    j["faces"] = r.faces;
    j["triangles"] = r.triangles;
    j["joined_faces"] = r.joined_faces;
    j["split_faces"] = r.split_faces;
    j["dropped_faces"] = r.dropped_faces;
    j["entities"] = r.entities;
    j["unknown_objects"] = r.unknown_objects;
    if (o.brushes) j["brushes"] = r.brushes;
    return s;
}

}  // namespace

Result<WmbImagesReport> wmb_export_images(const Document& level, const std::filesystem::path& dir,
                                          Diagnostics& warnings) {
    const auto* doc = dynamic_cast<const WmbDocument*>(&level);
    if (!doc) {
        return Diagnostic::error("usage.not-wmb",
                                 fmt::format("a {} file has no embedded textures", level.format()));
    }
    LK_TRY_ASSIGN(wmb::ExportReport r, wmb::export_images(doc->file(), dir, warnings));
    WmbImagesReport out;
    out.files = std::move(r.files);
    out.textures = r.textures;
    out.dds = r.dds;
    out.lightmaps = r.lightmaps;
    out.terrain_lightmaps = r.terrain_lightmaps;
    out.skipped = r.skipped;
    return out;
}

namespace handlers {

const FormatHandler wmb{
    .name = "wmb",
    .description = "Gamestudio compiled level (WMB1-WMB7)",
    .extensions = {".wmb"},
    .sniff = sniff,
    .read = read,
    .views_input = true,
    .scene = {.to = to_scene,
              .to_options = {{.name = "wmp-scale",
                              .type = OptionSpec::Type::number,
                              .default_value = "1",
                              .help = "Gamestudio input: Hammer units per quant",
                              .aliases = {"scale"},
                              .min = 1e-9},
                             {.name = "wmb-brushes",
                              .type = OptionSpec::Type::flag,
                              .default_value = "0",
                              .help = "WMB input: rebuild the world as brushes (always for VMF "
                                      "output)"}}},
};

}  // namespace handlers

}  // namespace lk
