// Adapter: Source BSP maps for the format-erased API (info/roundtrip/validate/convert).
#include "levelkit/bsp/bsp.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "handlers.hpp"
#include "levelkit/any/bsp_tools.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/map.hpp"
#include "levelkit/bsp/pak.hpp"
#include "levelkit/bsp/props.hpp"
#include "levelkit/convert/bsp_faces.hpp"
#include "levelkit/convert/bsp_scene.hpp"

namespace lk {

namespace {

class BspDocument : public Document {
public:
    explicit BspDocument(bsp::Bsp map) : map_(std::move(map)) {}

    std::string_view format() const override { return "bsp"; }
    Json info() const override;
    Result<Bytes> write() const override { return map_.write(); }
    void validate(Diagnostics& out) const override { bsp::validate(map_, out); }
    // The entity lump's text, as `levelkit bsp entities` prints it.
    std::optional<Result<std::string>> dump_text() const override {
        const std::string_view all = map_.lump(bsp::LumpId::entities).data().text();
        return Result<std::string>(std::string(all.substr(0, all.find('\0'))));
    }

    const bsp::Bsp& map() const { return map_; }

private:
    bsp::Bsp map_;
};

std::string_view layout_name(bsp::HeaderLayout l) {
    switch (l) {
        case bsp::HeaderLayout::standard:
            return "standard";
        case bsp::HeaderLayout::l4d2:
            return "l4d2";
        case bsp::HeaderLayout::contagion:
            return "contagion";
    }
    return "standard";
}

Json BspDocument::info() const {
    using namespace lk::bsp;
    Json j;
    j["format"] = "bsp";
    j["version"] = map_.version();
    j["endian"] = map_.endian() == Endian::big ? "big" : "little";
    j["map_revision"] = map_.map_revision();
    j["magic"] = std::string(map_.magic().data(), 4);
    j["header_layout"] = layout_name(map_.header_layout());
    Json lumps = Json::array();
    const auto& headers = map_.headers_as_read();
    for (int i = 0; i < kLumpCount; ++i) {
        const LumpHeader& h = headers[static_cast<std::size_t>(i)];
        Json l;
        l["index"] = i;
        l["offset"] = h.offset;
        l["length"] = h.length;
        l["version"] = h.version;
        l["compressed"] = map_.lump(i).compression() == Compression::lzma;
        lumps.push_back(std::move(l));
    }
    j["lumps"] = std::move(lumps);

    Json problems = Json::array();
    // A count whose lump does not parse is null, and the reason is listed under "problems".
    auto count = [&](const char* key, auto&& result, auto&& size_of) {
        if (result) {
            j[key] = size_of(*result);
        } else {
            j[key] = nullptr;
            problems.push_back(result.error().to_string());
        }
    };
    auto size = [](const auto& v) { return v.size(); };
    count("entities", entities(map_), size);
    count("planes", planes(map_), size);
    count("brushes", brushes(map_), size);
    count("brushsides", brushsides(map_), size);
    count("faces", faces(map_, LumpId::faces), size);
    count("original_faces", faces(map_, LumpId::originalfaces), size);
    count("models", models(map_), size);
    count("texinfo", texinfo(map_), size);
    count("texdata", texdata(map_), size);
    count("displacements", dispinfo(map_), size);
    count("overlays", overlays(map_), size);
    count("cubemaps", cubemaps(map_), size);
    auto sp = static_props(map_);
    count("static_props", sp, [](const StaticProps& s) { return s.props.size(); });
    if (sp && map_.find_game_lump(kStaticPropsId)) {
        j["static_prop_version"] = sp->version;
        j["static_prop_layout"] = describe(sp->layout);
        j["static_prop_models"] = sp->dict.size();
    } else {
        j["static_prop_version"] = nullptr;
        j["static_prop_models"] = sp ? Json(0) : Json(nullptr);
    }
    count("detail_props", detail_props(map_), [](const DetailProps& d) { return d.count(); });
    const Lump& pak = map_.lump(LumpId::pakfile);
    if (pak.empty()) {
        j["pak_entries"] = 0;
    } else {
        count("pak_entries", Pak::parse(pak.data(), static_cast<std::uint64_t>(headers[40].offset)),
              [](const Pak& p) { return p.entries().size(); });
    }
    j["game_lumps"] = map_.game_lumps().size();
    Json ids = Json::array();
    for (const GameLump& g : map_.game_lumps()) ids.push_back(g.id_string());
    j["game_lump_ids"] = std::move(ids);
    if (!problems.empty()) j["problems"] = std::move(problems);
    return j;
}

int sniff(ByteSpan data, std::string_view) {
    if (data.size() < 8) return 0;
    const std::string_view magic(reinterpret_cast<const char*>(data.data()), 4);
    return magic == "VBSP" || magic == "PSBV" || magic == "FART" ? 100 : 0;
}

Result<std::unique_ptr<Document>> read(Blob data, const ReadOptions&) {
    Diagnostics warnings;
    LK_TRY_ASSIGN(bsp::Bsp map, bsp::read(std::move(data), warnings));
    auto doc = std::make_unique<BspDocument>(std::move(map));
    doc->read_diagnostics().add_all(warnings);
    return std::unique_ptr<Document>(std::move(doc));
}

Result<ConvertResult> rewrite_bsp(const Document& in, const ConvertOptions& opt, Diagnostics&) {
    const bool compress = opt.options.flag("compress");
    const bool decompress = opt.options.flag("decompress");
    const std::string entities_file = opt.options.text("entities");
    if (compress && decompress) {
        return Diagnostic::error("convert.bad-options",
                                 "--compress and --decompress cannot be combined");
    }
    bsp::Bsp map = static_cast<const BspDocument&>(in).map();
    Json report = Json::object();
    if (!entities_file.empty()) {
        auto text = read_file(entities_file);
        if (!text) return std::move(text).error();
        const std::string_view s(reinterpret_cast<const char*>(text->data()), text->size());
        auto replaced = bsp::replace_entities(map, s);
        if (!replaced) return std::move(std::move(replaced).error().in_file(entities_file));
        auto ents = bsp::entities(map);
        report["entities"] = ents ? Json(ents->size()) : Json(nullptr);
    }
    if (compress || decompress) {
        LK_TRY(map.repack(compress ? bsp::Compression::lzma : bsp::Compression::none));
        std::size_t lumps = 0, game_lumps = 0;
        for (int i = 0; i < bsp::kLumpCount; ++i) {
            if (map.lump(i).compression() == bsp::Compression::lzma) ++lumps;
        }
        for (const bsp::GameLump& g : map.game_lumps()) {
            if (g.compressed()) ++game_lumps;
        }
        report["compressed_lumps"] = lumps;
        report["compressed_game_lumps"] = game_lumps;
    }
    ConvertResult r;
    r.document = std::make_unique<BspDocument>(std::move(map));
    r.report = std::move(report);
    return r;
}

Json report_json(const convert::BspToSceneReport& r, bool faces_mode) {
    const auto& a = r.recovered;
    const auto& l = r.lost;
    Json j;
    j["mode"] = faces_mode ? "faces" : "brushes";
    Json rec;
    rec["world_brushes"] = a.world_brushes;
    rec["detail_brushes"] = a.detail_brushes;
    rec["func_detail"] = a.func_detail;
    rec["entity_brushes"] = a.entity_brushes;
    rec["areaportal_brushes"] = a.areaportal_brushes;
    rec["occluder_brushes"] = a.occluder_brushes;
    rec["ladder_brushes"] = a.ladder_brushes;
    rec["closed_brushes"] = a.closed_brushes;
    rec["displacements"] = a.displacements;
    rec["face_brushes"] = a.face_brushes;
    rec["sides"] = a.sides;
    rec["lump_sides"] = a.lump_sides;
    rec["visible_sides"] = a.visible_sides;
    rec["tool_textured_sides"] = a.tool_sides;
    rec["unpatched_materials"] = a.unpatched_materials;
    rec["entities"] = a.entities;
    rec["brush_entities"] = a.brush_entities;
    rec["outputs"] = a.outputs;
    rec["static_props"] = a.static_props;
    rec["lighting_origins"] = a.lighting_origins;
    rec["overlays"] = a.overlays;
    rec["cubemaps"] = a.cubemaps;
    rec["cubemap_sides"] = a.cubemap_sides;
    rec["areaportals"] = a.areaportals;
    rec["occluders"] = a.occluders;
    rec["ladders"] = a.ladders;
    j["recovered"] = std::move(rec);
    Json lost;
    lost["invalid_brushes"] = l.invalid_brushes;
    lost["dropped_sides"] = l.dropped_sides;
    lost["unowned_brushes"] = l.unowned_brushes;
    lost["areaportals_unmatched"] = l.areaportals_unmatched;
    lost["occluders_unmatched"] = l.occluders_unmatched;
    lost["overlays_skipped"] = l.overlays_skipped;
    lost["overlays_without_sides"] = l.overlay_sides_unmapped;
    lost["water_overlays"] = l.water_overlays;
    lost["static_props_skipped"] = l.static_props_skipped;
    lost["detail_props"] = l.detail_props;
    lost["world_lights"] = l.worldlights;
    lost["compiler_entities"] = l.compiler_entities;
    lost["displacement_multiblend"] = l.displacement_multiblend;
    lost["cubemap_sides"] = l.cubemap_sides;
    lost["visibility"] = l.visibility;
    lost["unreadable_lumps"] = r.unreadable_lumps;
    Json lost_sides = Json::array();
    for (const auto& s : r.lost_sides) {
        Json e;
        if (s.brush >= 0) e["brush"] = s.brush;
        if (s.brush_side >= 0) e["brush_side"] = s.brush_side;
        if (s.dispinfo >= 0) e["dispinfo"] = s.dispinfo;
        if (s.solid_id) e["solid_id"] = s.solid_id;
        e["reason"] = s.reason;
        lost_sides.push_back(std::move(e));
    }
    lost["lost_sides"] = std::move(lost_sides);
    // Never in a compiled map at all.
    lost["editor_state"] = Json::array({"visgroups", "groups", "hidden objects", "cameras",
                                        "instances (collapsed by vbsp)", "func_viscluster"});
    j["not_recovered"] = std::move(lost);
    // Brush lump sides that were never sides of the source brushes.
    j["skipped"] = {{"bevel_sides", r.skipped.bevel_sides},
                    {"redundant_sides", r.skipped.redundant_sides}};
    return j;
}

Result<scene::Scene> to_scene(const Document& in, const ConvertOptions& opt, Diagnostics& diags,
                              Json& report) {
    const bsp::Bsp* map = handlers::as_bsp(in);
    if (!map) return Diagnostic::error("convert.internal", "the input is not a BSP map");
    if (opt.for_display && !opt.options.flag("brushes")) {
        // What the game draws: the compiled faces and displacements.
        convert::BspFacesReport fr;
        LK_TRY_ASSIGN(
            scene::Scene s,
            convert::bsp_faces_to_scene(
                *map, diags,
                convert::BspFacesOptions{.static_props = !opt.options.flag("no-props")}, &fr));
        s.texture_sizes = convert::bsp_texture_sizes(*map);
        report["mode"] = "faces";
        report["faces"] = fr.faces;
        report["displacements"] = fr.displacements;
        report["entities"] = fr.entities;
        report["static_props"] = fr.static_props;
        return s;
    }
    convert::BspToSceneOptions o;
    o.merge_detail = !opt.options.flag("no-detail-merge");
    o.faces_mode = opt.options.flag("faces");
    o.static_props = !opt.options.flag("no-props");
    o.overlays = !opt.options.flag("no-overlays");
    convert::BspToSceneReport rep;
    LK_TRY_ASSIGN(scene::Scene s, convert::bsp_to_scene(*map, diags, o, &rep));
    s.texture_sizes = convert::bsp_texture_sizes(*map);
    report = report_json(rep, o.faces_mode);
    return s;
}

}  // namespace

namespace handlers {

const FormatHandler bsp = {
    .name = "bsp",
    .description = "Source engine compiled map (VBSP, little- and big-endian)",
    .extensions = {".bsp"},
    .sniff = sniff,
    .read = read,
    .views_input = true,
    .scene = {.to = to_scene,
              .to_options =
                  {
                      {.name = "no-detail-merge",
                       .type = OptionSpec::Type::flag,
                       .default_value = "0",
                       .help = "BSP input: keep each detail brush as its own func_detail"},
                      {.name = "faces",
                       .type = OptionSpec::Type::flag,
                       .default_value = "0",
                       .help = "BSP input: one thin brush per original face (stripped maps)"},
                      {.name = "no-props",
                       .type = OptionSpec::Type::flag,
                       .default_value = "0",
                       .help = "BSP input: skip static props"},
                      {.name = "no-overlays",
                       .type = OptionSpec::Type::flag,
                       .default_value = "0",
                       .help = "BSP input: skip overlays"},
                      {.name = "brushes",
                       .type = OptionSpec::Type::flag,
                       .default_value = "0",
                       .help = "BSP input to a drawn output (glTF, OBJ, picture): the "
                               "decompiled brushes instead of the compiled faces"},
                  }},
};

const ConverterHandler bsp_to_bsp = {
    .from = "bsp",
    .to = "bsp",
    .description = "rewrite a map: LZMA-(de)compress lumps, replace the entity lump",
    .run = rewrite_bsp,
    .options = {{.name = "compress",
                 .type = OptionSpec::Type::flag,
                 .default_value = "0",
                 .help = "BSP output: LZMA-compress every lump"},
                {.name = "decompress",
                 .type = OptionSpec::Type::flag,
                 .default_value = "0",
                 .help = "BSP output: store every lump uncompressed"},
                {.name = "entities",
                 .type = OptionSpec::Type::path,
                 .help = "BSP output: replace the entity lump with this text file"}},
};

}  // namespace handlers

}  // namespace lk

namespace lk::handlers {

const bsp::Bsp* as_bsp(const Document& doc) {
    const auto* d = dynamic_cast<const BspDocument*>(&doc);
    return d ? &d->map() : nullptr;
}

}  // namespace lk::handlers

namespace lk {

namespace {

Result<const bsp::Bsp*> bsp_of(const Document& doc) {
    const bsp::Bsp* map = handlers::as_bsp(doc);
    if (!map) {
        return Diagnostic::error("usage.not-bsp",
                                 fmt::format("a {} file has no pakfile", doc.format()));
    }
    return map;
}

}  // namespace

Result<std::vector<PakListing>> pak_list(const Document& doc) {
    LK_TRY_ASSIGN(const bsp::Bsp* map, bsp_of(doc));
    LK_TRY_ASSIGN(bsp::Pak pak, bsp::pakfile(*map));
    std::vector<PakListing> out;
    out.reserve(pak.entries().size());
    for (const bsp::PakEntry& e : pak.entries()) {
        out.push_back({e.name(), e.size(), e.central.compressed_size,
                       std::string(bsp::method_name(e.method())), e.central.crc32});
    }
    return out;
}

Result<Bytes> pak_read(const Document& doc, std::string_view name) {
    LK_TRY_ASSIGN(const bsp::Bsp* map, bsp_of(doc));
    LK_TRY_ASSIGN(bsp::Pak pak, bsp::pakfile(*map));
    const bsp::PakEntry* e = pak.find(name);
    if (!e) return Diagnostic::error("pak.no-entry", fmt::format("no pakfile entry {}", name));
    return bsp::Pak::contents(*e);
}

Result<std::unique_ptr<Document>> pak_edit(const Document& doc,
                                           std::span<const PakChange> changes) {
    LK_TRY_ASSIGN(const bsp::Bsp* src, bsp_of(doc));
    bsp::Bsp map = *src;
    LK_TRY_ASSIGN(bsp::Pak pak, bsp::pakfile(map));
    for (const PakChange& c : changes) {
        std::string name = c.name;
        std::replace(name.begin(), name.end(), '\\', '/');
        if (!bsp::safe_entry_name(name)) {
            return Diagnostic::error("usage.unsafe-name",
                                     "entry names must be relative paths without '..': " + name);
        }
        if (c.kind == PakChange::Kind::remove) {
            if (!pak.remove(name)) {
                return Diagnostic::error("pak.no-entry", "no pakfile entry " + name);
            }
            continue;
        }
        const auto method = bsp::parse_method(c.method);
        if (!method) {
            return Diagnostic::error(
                "usage.bad-method",
                "pakfile methods are stored, deflate and lzma, not " + c.method);
        }
        LK_TRY(pak.put(name, c.data, *method));
    }
    LK_TRY(bsp::set_pakfile(map, pak));
    return std::unique_ptr<Document>(std::make_unique<BspDocument>(std::move(map)));
}

bool safe_pak_name(std::string_view name) {
    return bsp::safe_entry_name(name);
}

}  // namespace lk
