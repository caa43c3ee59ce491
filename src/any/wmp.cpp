// Gamestudio adapters: "wmp" (WMP2 text, WMPB, A3) and "wmp_m" (`$$M`), the wmp -> wmp_m
// converter (group resolution) and wmp -> wmp (text <-> WMPB with --encoding).
#include "levelkit/wmp/wmp.hpp"
#include "handlers.hpp"
#include "levelkit/convert/scene_wmp.hpp"
#include "levelkit/convert/wmp_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/wmp/resolve.hpp"

namespace lk {

namespace {

Json level_counts(const wmp::Level& lv) {
    Json j;
    j["blocks"] = lv.blocks.size();
    j["faces"] = lv.face_count();
    j["objects"] = lv.dialect == wmp::Dialect::mm ? 0 : lv.objects.size();
    j["groups"] = lv.dialect == wmp::Dialect::mm ? 0 : lv.count(wmp::Kind::group);
    j["entities"] = lv.entity_count();
    j["levels"] = lv.levels.size();
    j["models"] = lv.models.size();
    j["lights"] = lv.lights.size();
    j["starts"] = lv.starts.size();
    j["sounds"] = lv.sounds.size();
    j["paths"] = lv.paths.size();
    j["regions"] = lv.regions.size();
    // Terrain, sprites and map entities are models told apart by their file.
    std::size_t by_type[5] = {};
    for (const wmp::Model& m : lv.models) ++by_type[static_cast<int>(wmp::model_file_type(m.file))];
    Json t;
    t["mdl"] = by_type[static_cast<int>(wmp::ModelFileType::mdl)];
    t["map_entity"] = by_type[static_cast<int>(wmp::ModelFileType::wmb)];
    t["terrain"] = by_type[static_cast<int>(wmp::ModelFileType::hmp)];
    t["sprite"] = by_type[static_cast<int>(wmp::ModelFileType::sprite)] +
                  by_type[static_cast<int>(wmp::ModelFileType::dds_sprite)];
    j["model_files"] = t;
    return j;
}

class WmpDocument final : public Document {
public:
    WmpDocument(wmp::File file, Blob source) : file_(std::move(file)), source_(std::move(source)) {}

    std::string_view format() const override {
        return file_.dialect == wmp::Dialect::mm ? "wmp_m" : "wmp";
    }

    Json info() const override {
        Json j;
        j["format"] = format();
        j["variant"] = wmp::to_string(file_.dialect);
        if (file_.dialect == wmp::Dialect::a3) {
            const wmp::A3Level& a = file_.a3;
            j["version"] = nullptr;
            j["editor"] = a.editor;
            j["blocks"] = 0;
            j["faces"] = 0;
            j["objects"] = 0;
            j["entities"] =
                a.things.size() + a.actors.size() + a.player_starts.size() + a.ways.size();
            j["vertices"] = a.vertices.size();
            j["regions"] = a.regions.size();
            j["walls"] = a.walls.size();
            j["things"] = a.things.size();
            j["actors"] = a.actors.size();
            j["player_starts"] = a.player_starts.size();
            j["ways"] = a.ways.size();
            return j;
        }
        const wmp::Level& lv = file_.level;
        const wmp::Header& h = lv.header;
        if (h.version) {
            j["version"] = *h.version;
        } else {
            j["version"] = nullptr;
        }
        j["editor"] = lv.dialect == wmp::Dialect::wmpb
                          ? h.wmpb_banner.substr(0, h.wmpb_banner.find('\n'))
                      : lv.dialect == wmp::Dialect::mm ? h.mm_banner.value_or("")
                                                       : h.editor.value_or("");
        const Json counts = level_counts(lv);
        for (auto& [k, v] : counts.items()) j[k] = v;
        return j;
    }

    Result<Bytes> write() const override { return wmp::write(file_); }

    void validate(Diagnostics& out) const override {
        if (file_.dialect != wmp::Dialect::a3) wmp::validate(file_.level, out);
    }

    std::optional<Result<std::string>> dump_text() const override {
        if (file_.dialect == wmp::Dialect::a3) return Result<std::string>(wmp::write_a3(file_.a3));
        if (file_.dialect != wmp::Dialect::wmpb) return wmp::write_text(file_.level);
        auto text = wmp::convert(file_.level, wmp::Dialect::wmp2_a6);
        if (!text) return Result<std::string>(std::move(text).error());
        return wmp::write_text(text.value());
    }

    std::optional<std::uint32_t> line_of(std::size_t offset) const override {
        if (file_.dialect == wmp::Dialect::wmpb) return std::nullopt;
        return LineMap(source_.text()).locate(offset).line;
    }

    const wmp::File& file() const { return file_; }

private:
    wmp::File file_;
    Blob source_;
};

int sniff_wmp(ByteSpan data, std::string_view filename) {
    const auto d = wmp::detect(data.first(std::min<std::size_t>(data.size(), 4096)));
    if (d && *d != wmp::Dialect::mm) return 90;
    return !d && iends_with(filename, ".wmp") ? 10 : 0;
}

int sniff_wmp_m(ByteSpan data, std::string_view) {
    const auto d = wmp::detect(data.first(std::min<std::size_t>(data.size(), 4096)));
    return d == wmp::Dialect::mm ? 90 : 0;
}

Result<std::unique_ptr<Document>> read_wmp(Blob data, const ReadOptions&) {
    Diagnostics warnings;
    auto f = wmp::read(data, warnings);
    if (!f) return std::move(f).error();
    auto doc = std::make_unique<WmpDocument>(std::move(f).value(), std::move(data));
    doc->read_diagnostics().add_all(warnings);
    return std::unique_ptr<Document>(std::move(doc));
}

const wmp::Level* level_of(const Document& in, Diagnostics&) {
    const auto& doc = static_cast<const WmpDocument&>(in);
    if (doc.file().dialect == wmp::Dialect::a3) return nullptr;
    return &doc.file().level;
}

Result<ConvertResult> wmp_to_wmp_m(const Document& in, const ConvertOptions& opt,
                                   Diagnostics& diags) {
    const wmp::Level* lv = level_of(in, diags);
    if (!lv) {
        return Diagnostic::error("convert.unsupported",
                                 "A3 levels have no blocks or groups to resolve into a $$M");
    }
    wmp::ResolveOptions ro;
    const std::filesystem::path& name = opt.output_path.empty() ? opt.input_path : opt.output_path;
    if (!name.empty()) ro.wad = name.stem().string() + ".$$w";
    Diagnostics notes;
    auto out = wmp::resolve(*lv, ro, &notes);
    if (!out) return std::move(out).error();
    Json report;
    report["blocks"] = out->blocks.size();
    report["faces"] = out->face_count();
    report["entities"] = out->entity_count();
    report["skipped_blocks"] = notes.count(Severity::warning);
    diags.add_all(notes);
    ConvertResult r;
    wmp::File f;
    f.dialect = wmp::Dialect::mm;
    f.level = std::move(out).value();
    r.document = std::make_unique<WmpDocument>(std::move(f), Blob{});
    r.report = std::move(report);
    return r;
}

Result<ConvertResult> wmp_to_wmp(const Document& in, const ConvertOptions& opt, Diagnostics&) {
    const auto& doc = static_cast<const WmpDocument&>(in);
    std::string enc = to_lower(opt.options.text("encoding"));
    ConvertResult r;
    wmp::File f = doc.file();
    if (enc.empty() || enc == "keep") {
        r.document = std::make_unique<WmpDocument>(std::move(f), Blob{});
        return r;
    }
    wmp::Dialect target;
    if (enc == "text" || enc == "wmp2" || enc == "710") {
        target = wmp::Dialect::wmp2_a6;
    } else if (enc == "wmpb" || enc == "binary") {
        target = wmp::Dialect::wmpb;
    } else {
        return Diagnostic::error("convert.bad-encoding",
                                 "WMP encodings are 'text' (WMP2 version 710) and 'wmpb'");
    }
    if (f.dialect == wmp::Dialect::a3) {
        return Diagnostic::error("convert.unsupported", "A3 levels cannot be re-encoded");
    }
    auto out = wmp::convert(f.level, target);
    if (!out) return std::move(out).error();
    if (target == wmp::Dialect::wmp2_a6) {
        for (wmp::LevelInfo& li : out->levels) {
            if (li.wad == "level.$$w" && !opt.output_path.empty()) {
                li.wad = opt.output_path.stem().string() + ".$$w";
            }
        }
    }
    f.dialect = target;
    f.level = std::move(out).value();
    r.report["encoding"] = std::string(wmp::to_string(target));
    r.document = std::make_unique<WmpDocument>(std::move(f), Blob{});
    return r;
}

// Blocks become brushes, entities their nearest Source classes (see convert/wmp_scene.hpp).
Result<scene::Scene> to_scene(const Document& in, const ConvertOptions& opt, Diagnostics& diags,
                              Json& j) {
    const auto& doc = static_cast<const WmpDocument&>(in);
    convert::WmpToSceneOptions so;
    so.scale = opt.options.number("wmp-scale").value_or(1.0);
    convert::WmpToSceneReport rep;
    scene::Scene sc;
    if (doc.file().dialect == wmp::Dialect::a3) {
        sc = convert::a3_to_scene(doc.file().a3, diags, so, &rep);
    } else {
        auto r = convert::wmp_to_scene(doc.file().level, diags, so, &rep);
        if (!r) return std::move(r).error();
        sc = std::move(r).value();
    }
    j["unit_scale"] = so.scale;
    j["blocks"] = rep.blocks;
    j["brushes"] = rep.brushes;
    j["sides"] = rep.sides;
    j["merged_faces"] = rep.merged_faces;
    j["degenerate_faces"] = rep.degenerate_faces;
    j["entities"] = rep.entities;
    Json rejected = Json::array();
    for (const auto& x : rep.rejected)
        rejected.push_back({{"block", x.block}, {"reason", x.reason}});
    j["blocks_not_brushes"] = std::move(rejected);
    return sc;
}

// Brushes become blocks, meshes closed convex (or capped, or thin) blocks, entities come back from
// their wmp_* keys (see convert/scene_wmp.hpp). Written as WMP2 text, as WED reopens it.
Result<ConvertResult> from_scene(const scene::Scene& s, const ConvertOptions& opt,
                                 Diagnostics& diags) {
    convert::SceneToWmpOptions o;
    o.scale = opt.options.number("wmp-scale").value_or(1.0);
    if (!opt.output_path.empty()) o.wad = opt.output_path.stem().string() + ".$$w";
    convert::SceneToWmpReport r;
    LK_TRY_ASSIGN(wmp::Level level, convert::scene_to_wmp(s, diags, o, &r));
    ConvertResult out;
    Json& j = out.report;
    j["brush_blocks"] = r.brush_blocks;
    j["solid_blocks"] = r.solid_blocks;
    j["capped_blocks"] = r.capped_blocks;
    j["thin_blocks"] = r.thin_blocks;
    j["merged_faces"] = r.merged_faces;
    j["split_faces"] = r.split_faces;
    j["dropped_faces"] = r.dropped_faces;
    j["invalid_brushes"] = r.invalid_brushes;
    j["entities"] = r.entities;
    j["skipped_entities"] = r.skipped_entities;
    wmp::File f;
    f.dialect = level.dialect;
    f.level = std::move(level);
    out.document = std::make_unique<WmpDocument>(std::move(f), Blob{});
    return out;
}

std::vector<OptionSpec> to_scene_options() {
    return {{.name = "wmp-scale",
             .type = OptionSpec::Type::number,
             .default_value = "1",
             .help = "Gamestudio input: Hammer units per quant",
             .aliases = {"scale"},
             .min = 1e-9}};
}

}  // namespace

namespace handlers {

const FormatHandler wmp{
    .name = "wmp",
    .description = "Gamestudio level: WMP2 text (A4-A8), WMPB binary, A3 WMP",
    .extensions = {".wmp"},
    .sniff = sniff_wmp,
    .read = read_wmp,
    .scene = {.to = to_scene,
              .to_options = to_scene_options(),
              .from = from_scene,
              .from_options = to_scene_options()},
};
const FormatHandler wmp_m{
    .name = "wmp_m",
    .description = "Gamestudio $$M (WED's resolved level for the map compiler)",
    .extensions = {".$$m"},
    .sniff = sniff_wmp_m,
    .read = read_wmp,
    .scene = {.to = to_scene, .to_options = to_scene_options()},
};
const ConverterHandler wmp_to_wmp_m{
    .from = "wmp",
    .to = "wmp_m",
    .description = "group resolution (what WED does before compiling)",
    .run = lk::wmp_to_wmp_m,
};
const ConverterHandler wmp_to_wmp{
    .from = "wmp",
    .to = "wmp",
    .description = "re-encode a level",
    .run = lk::wmp_to_wmp,
    .options = {{.name = "encoding",
                 .type = OptionSpec::Type::text,
                 .help = "WMP output encoding: text (WMP2 version 710) or wmpb (default: keep)",
                 .choices = {"keep", "text", "wmp2", "710", "wmpb", "binary"}}},
};

}  // namespace handlers

}  // namespace lk
