// Adapter: Source BSP maps for the format-erased API (info/roundtrip/validate/convert).
#include "levelkit/bsp/bsp.hpp"
#include "handlers.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/map.hpp"
#include "levelkit/bsp/pak.hpp"
#include "levelkit/bsp/props.hpp"

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
    count("detail_props", detail_props(map_), [](const DetailProps& d) { return d.props.size(); });
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
    LK_TRY_ASSIGN(bsp::Bsp map, bsp::Bsp::read(std::move(data), &warnings));
    auto doc = std::make_unique<BspDocument>(std::move(map));
    doc->read_diagnostics().add_all(warnings);
    return std::unique_ptr<Document>(std::move(doc));
}

Result<ConvertResult> convert(const Document& in, const ConvertOptions& opt, Diagnostics&) {
    if (opt.compress && opt.decompress) {
        return Diagnostic::error("convert.bad-options",
                                 "--compress and --decompress cannot be combined");
    }
    bsp::Bsp map = static_cast<const BspDocument&>(in).map();
    Json report = Json::object();
    if (opt.entities_file) {
        auto text = read_file(*opt.entities_file);
        if (!text) return std::move(text).error();
        const std::string_view s(reinterpret_cast<const char*>(text->data()), text->size());
        auto replaced = bsp::replace_entities(map, s);
        if (!replaced)
            return std::move(std::move(replaced).error().in_file(opt.entities_file->string()));
        auto ents = bsp::entities(map);
        report["entities"] = ents ? Json(ents->size()) : Json(nullptr);
    }
    if (opt.compress || opt.decompress) {
        LK_TRY(map.repack(opt.compress ? bsp::Compression::lzma : bsp::Compression::none));
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

}  // namespace

namespace handlers {

const FormatHandler bsp = {
    "bsp", "Source engine compiled map (VBSP, little- and big-endian)", {".bsp"}, sniff, read};

const ConverterHandler bsp_to_bsp = {
    "bsp", "bsp",
    "Rewrite a map: LZMA-(de)compress lumps (--compress/--decompress), replace the "
    "entity lump (--entities file)",
    convert};

}  // namespace handlers

}  // namespace lk
