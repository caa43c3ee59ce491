// SMD / VTA (Studiomdl Data): model text files, read and written through the neutral model. A
// reference SMD picks up the VTA of the same name beside it; a model written as SMD gives the
// reference SMD, its VTA and one animation SMD per clip (as Blender Source Tools names them).
#include "levelkit/smd/smd.hpp"

#include <fmt/format.h>

#include "handlers.hpp"
#include "levelkit/convert/smd_model.hpp"
#include "levelkit/core/text.hpp"

namespace lk {

namespace {

class SmdDocument final : public Document {
public:
    explicit SmdDocument(smd::File f) : f_(std::move(f)) {}
    std::string_view format() const override { return "smd"; }
    Json info() const override {
        Json j;
        j["format"] = "smd";
        j["version"] = f_.version;
        j["nodes"] = f_.nodes.size();
        j["frames"] = f_.skeleton.size();
        j["triangles"] = f_.triangles.size();
        j["materials"] = f_.materials.size();
        j["vertex_animation_frames"] = f_.vertex_animation.size();
        return j;
    }
    // SMD keeps content, not spelling: the text is written in studiomdl's layout.
    Result<Bytes> write() const override {
        const std::string text = smd::write(f_);
        const ByteSpan b = as_bytes(text);
        return Bytes(b.begin(), b.end());
    }
    Result<void> write_to(ByteSink& out) const override { return smd::write_to(f_, out); }
    const smd::File& file() const { return f_; }

private:
    smd::File f_;
};

// "version 1" as the first statement, after // comments.
int sniff(ByteSpan data, std::string_view filename) {
    std::string_view t = as_text(data.first(std::min<std::size_t>(data.size(), 4096)));
    for (;;) {
        const std::size_t b = t.find_first_not_of(" \t\r\n");
        if (b == std::string_view::npos) return 0;
        t.remove_prefix(b);
        if (t.substr(0, 2) != "//" && t.substr(0, 1) != "#" && t.substr(0, 1) != ";") break;
        const std::size_t e = t.find('\n');
        if (e == std::string_view::npos) return 0;
        t.remove_prefix(e);
    }
    if (t.size() < 8 || !iequals(t.substr(0, 7), "version")) return 0;
    return iends_with(filename, ".smd") || iends_with(filename, ".vta") ? 90 : 60;
}

Result<std::unique_ptr<Document>> read(Blob data, const ReadOptions& opt) {
    Diagnostics warnings;
    smd::ReadOptions ro;
    ro.source_name = opt.source_name;
    LK_TRY_ASSIGN(smd::File f, smd::read(data.text(), warnings, ro));
    auto doc = std::make_unique<SmdDocument>(std::move(f));
    doc->read_diagnostics().add_all(warnings);
    return std::unique_ptr<Document>(std::move(doc));
}

Result<model::Model> to_model(const Document& in, const ConvertOptions& opt, Diagnostics& diags,
                              Json& report) {
    const auto* src = dynamic_cast<const SmdDocument*>(&in);
    if (!src) return Diagnostic::error("convert.internal", "input is not an SMD document");
    convert::SmdToModelOptions o;
    o.name = opt.input_path.empty() ? "model" : opt.input_path.stem().string();
    if (auto fr = opt.options.number("frame-rate")) o.frame_rate = *fr;
    // The reference's shapes live in a VTA of the same name beside it.
    std::optional<smd::File> vta;
    if (src->file().has_triangles && !opt.input_path.empty()) {
        std::filesystem::path p = opt.input_path;
        p.replace_extension(".vta");
        std::error_code ec;
        if (std::filesystem::is_regular_file(p, ec)) {
            auto text = read_file(p);
            if (!text) return std::move(text).error();
            smd::ReadOptions ro;
            ro.source_name = p.string();
            auto f = smd::read(as_text(*text), diags, ro);
            if (!f) return std::move(f).error();
            vta = std::move(f).value();
            report["vta"] = p.filename().string();
        }
    }
    LK_TRY_ASSIGN(model::Model m,
                  convert::smd_to_model(src->file(), vta ? &*vta : nullptr, diags, o));
    report_model(m, report);
    return m;
}

Result<ConvertResult> from_model(const model::Model& m, const ConvertOptions& opt,
                                 Diagnostics& diags) {
    convert::ModelToSmdOptions o;
    o.base_name = opt.output_path.stem().string();
    LK_TRY_ASSIGN(std::vector<convert::SmdOutput> files, convert::model_to_smd(m, diags, o));
    if (files.empty()) {
        return Diagnostic::error("convert.empty", "the model has neither meshes nor clips");
    }
    // The reference SMD (model_to_smd's first file when there is one) is the output itself; the
    // VTA and animations sit beside it. A model of clips only has no reference: its first
    // animation is the output, written there and not in anims/. The output stays a file, not
    // text: the caller writes it once.
    ConvertResult r;
    const std::filesystem::path dir = opt.output_path.parent_path();
    Json written = Json::array();
    written.push_back(iequals(files[0].file_name, o.base_name + ".smd")
                          ? files[0].file_name
                          : opt.output_path.filename().string());
    r.document = std::make_unique<SmdDocument>(std::move(files[0].file));
    for (std::size_t i = 1; i < files.size(); ++i) {
        written.push_back(files[i].file_name);
        const std::string text = smd::write(files[i].file);
        const ByteSpan b = as_bytes(text);
        r.companions.push_back({dir / files[i].file_name, Bytes(b.begin(), b.end())});
    }
    r.report["files"] = std::move(written);
    return r;
}

}  // namespace

namespace handlers {

const FormatHandler smd{
    .name = "smd",
    .description = "Studiomdl Data: reference and animation SMD, VTA shapes",
    .extensions = {".smd", ".vta"},
    .sniff = sniff,
    .read = read,
    .model = {.to = to_model,
              .to_options = {{.name = "frame-rate",
                              .type = OptionSpec::Type::number,
                              .default_value = "30",
                              .help = "SMD input: frames per second of animations (SMD has none)",
                              .min = 1e-6}},
              .from = from_model},
};

}  // namespace handlers

}  // namespace lk
