// DMX adapter: every Valve datamodel file (.dmx models, .vmap maps, .pcf particles, .vtex ...)
// is format "dmx"; the encoding comes from the file's header.
#include "levelkit/dmx/io.hpp"

#include <fmt/format.h>

#include "handlers.hpp"
#include "levelkit/convert/dmxmodel_model.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"

namespace lk {

Json dmx_info(const dmx::Document& doc) {
    std::size_t elements = 0, externals = 0, attributes = 0;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const dmx::Element& e = doc.elements()[i];
        if (e.external()) {
            ++externals;
            continue;
        }
        ++elements;
        if (static_cast<std::int32_t>(i) != doc.prefix.index) attributes += e.attributes.size();
    }
    Json j;
    j["format"] = "dmx";
    j["encoding"] = doc.header.encoding;
    j["encoding_version"] = doc.header.encoding_version;
    j["format_name"] = doc.header.format;
    j["format_version"] = doc.header.format_version;
    j["elements"] = elements;
    j["attributes"] = attributes;
    j["prefix_attributes"] = doc.prefix_attributes().size();
    if (externals) j["external_elements"] = externals;
    if (const dmx::Element* root = doc.get(doc.root)) j["root_class"] = root->type.str();
    if (doc.container.gzip) j["compression"] = "gzip";
    return j;
}

namespace {

// "NAME:VERSION" (--format vmap:29, model:22); nullopt when malformed.
std::optional<std::pair<std::string, int>> format_spec(std::string_view text) {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    const auto v = parse_int(text.substr(colon + 1));
    if (!v || *v < 0 || *v > INT32_MAX) return std::nullopt;
    return std::make_pair(std::string(text.substr(0, colon)), static_cast<int>(*v));
}

class DmxDocument final : public Document {
public:
    DmxDocument(dmx::Document doc, Blob source)
        : doc_(std::move(doc)), source_(std::move(source)) {}

    std::string_view format() const override { return "dmx"; }

    Json info() const override {
        Json j = dmx_info(doc_);
        // A model's figures, when the datamodel is one (DmeModel under the root).
        Diagnostics ignored;
        if (auto m = dmxmodel::open(doc_, ignored)) {
            const dmxmodel::Stats s = dmxmodel::stats(*m);
            j["model"] = {{"version", s.version},     {"meshes", s.meshes},
                          {"vertices", s.vertices},   {"faces", s.faces},
                          {"materials", s.materials}, {"joints", s.joints},
                          {"shapes", s.shapes},       {"controllers", s.controllers},
                          {"clips", s.clips},         {"frames", s.frames}};
        }
        return j;
    }

    Result<Bytes> write() const override { return dmx::write(doc_); }
    Result<void> write_to(ByteSink& out) const override { return dmx::write_to(doc_, out); }

    std::optional<Result<std::string>> dump_text() const override { return dmx::dump_text(doc_); }

    std::optional<std::uint32_t> line_of(std::size_t offset) const override {
        if (!doc_.header.is_kv2() || doc_.container.gzip) return std::nullopt;
        return LineMap(source_.text()).locate(offset).line;
    }

    void validate(Diagnostics& out) const override {
        if (!doc_.valid(doc_.root) && doc_.size() > 0) {
            out.add(Diagnostic::error("dmx.no-root", "the document has no root element"));
        }
        // Models: what studiomdl and ModelDoc expect of them.
        Diagnostics warnings;
        if (auto m = dmxmodel::open(doc_, warnings)) {
            out.add_all(warnings);
            dmxmodel::validate(*m, out);
        }
    }

    const dmx::Document& doc() const { return doc_; }
    dmx::WriteOptions write_options;

private:
    dmx::Document doc_;
    Blob source_;
};

class ConvertedDmx final : public Document {
public:
    ConvertedDmx(dmx::Document doc, dmx::WriteOptions wo) : doc_(std::move(doc)), wo_(wo) {}
    std::string_view format() const override { return "dmx"; }
    Json info() const override { return dmx_info(doc_); }
    Result<Bytes> write() const override { return dmx::write(doc_, wo_); }
    Result<void> write_to(ByteSink& out) const override { return dmx::write_to(doc_, out, wo_); }
    std::optional<Result<std::string>> dump_text() const override { return dmx::dump_text(doc_); }

private:
    dmx::Document doc_;
    dmx::WriteOptions wo_;
};

int sniff(ByteSpan data, std::string_view) {
    return dmx::looks_like_dmx(data) ? 100 : 0;
}

Result<std::unique_ptr<Document>> read(Blob data, const ReadOptions& opt) {
    dmx::ReadOptions ro;
    ro.source_name = opt.source_name;
    Diagnostics warnings;
    auto doc = dmx::read(data.bytes(), warnings, ro);
    if (!doc) return std::move(doc).error();
    auto out = std::make_unique<DmxDocument>(std::move(doc).value(), std::move(data));
    out->read_diagnostics().add_all(warnings);
    return std::unique_ptr<Document>(std::move(out));
}

Result<ConvertResult> reencode(const Document& in, const ConvertOptions& opt, Diagnostics&) {
    const auto* src = dynamic_cast<const DmxDocument*>(&in);
    if (!src) return Diagnostic::error("convert.internal", "input is not a DMX document");
    return convert_dmx(src->doc(), opt);
}

}  // namespace

Result<ConvertResult> convert_dmx(const dmx::Document& in, const ConvertOptions& opt) {
    dmx::Document doc = in.clone();
    dmx::ConvertOptions co;
    co.coerce_integers = opt.options.flag("dmx-coerce-integers");
    co.demote_prefix = opt.options.flag("dmx-demote-prefix");
    const std::string format = opt.options.text("format");
    if (!format.empty()) {
        co.format = format_spec(format);
        if (!co.format) {
            return Diagnostic::error("option.bad-value",
                                     "--format expects NAME:VERSION, e.g. vmap:29")
                .with_path("format");
        }
    }
    // A model given a new model version: convert its version-dependent parts too (joint index
    // space, time units, field names, axis system), not only the header.
    if (co.format && co.format->first == "model" && doc.header.format == "model" &&
        co.format->second != doc.header.format_version) {
        dmxmodel::Target t{doc.header.encoding, doc.header.encoding_version, co.format->second};
        if (auto e = dmx::Encoding::parse(opt.options.text("encoding"))) {
            t.encoding = e->name;
            t.encoding_version = e->version;
        }
        Diagnostics warnings;
        LK_TRY(dmxmodel::retarget(doc, t, warnings));
        ConvertResult r;
        r.report["encoding"] = fmt::format("{} {}", t.encoding, t.encoding_version);
        r.report["model_version"] = t.format_version;
        r.report["warnings"] = warnings.size();
        dmx::WriteOptions wo;
        wo.layout_hints = opt.options.flag("dmx-layout-hints");
        doc.container.gzip = iends_with(opt.output_path.filename().string(), ".gz");
        r.document = std::make_unique<ConvertedDmx>(std::move(doc), wo);
        return r;
    }
    std::string encoding;
    const std::string wanted = opt.options.text("encoding");
    if (!wanted.empty()) {
        auto e = dmx::Encoding::parse(wanted);
        if (!e) {
            return Diagnostic::error("option.bad-value",
                                     "unknown --encoding '" + wanted +
                                         "' (binary:1-9, keyvalues2:1-4, keyvalues2_flat:N, "
                                         "keyvalues2_noids:N)")
                .with_path("encoding");
        }
        LK_TRY(dmx::convert(doc, *e, co));
        encoding = fmt::format("{} {}", e->name, e->version);
    } else if (co.format) {
        if (doc.header.legacy) {
            return Diagnostic::error("convert.bad-option",
                                     "a legacy DMXVersion header has no format name: give "
                                     "--encoding too");
        }
        // Same encoding: only the format changes.
        doc.header.format = co.format->first;
        doc.header.format_version = co.format->second;
        doc.header.text.clear();
    }
    doc.container.gzip = iends_with(opt.output_path.filename().string(), ".gz");
    dmx::WriteOptions wo;
    wo.layout_hints = opt.options.flag("dmx-layout-hints");
    ConvertResult r;
    if (!encoding.empty()) r.report["encoding"] = encoding;
    r.document = std::make_unique<ConvertedDmx>(std::move(doc), wo);
    return r;
}

std::vector<OptionSpec> dmx_options() {
    using T = OptionSpec::Type;
    return {
        {.name = "encoding",
         .type = T::text,
         .help = "DMX output encoding: binary:1-9, keyvalues2:1-4, keyvalues2_flat:N, "
                 "keyvalues2_noids:N (default: keep)"},
        {.name = "format",
         .type = T::text,
         .help = "DMX output format NAME:VERSION, e.g. vmap:29 (default: keep)"},
        {.name = "dmx-coerce-integers",
         .type = T::flag,
         .default_value = "0",
         .help = "DMX output: store uint64/uint8 values as int where the encoding lacks them",
         .aliases = {"dmx.coerce_integers"}},
        {.name = "dmx-demote-prefix",
         .type = T::flag,
         .default_value = "0",
         .help = "DMX output: turn prefix attributes into root attributes for old encodings",
         .aliases = {"dmx.demote_prefix"}},
        {.name = "dmx-layout-hints",
         .type = T::flag,
         .default_value = "1",
         .help = "keyvalues2 output: write the // levelkit-binary layout comment",
         .aliases = {"dmx.layout_hints"}},
    };
}

namespace {

Result<model::Model> to_model(const Document& in, const ConvertOptions&, Diagnostics& diags,
                              Json& report) {
    const auto* src = dynamic_cast<const DmxDocument*>(&in);
    if (!src) return Diagnostic::error("convert.internal", "input is not a DMX document");
    LK_TRY_ASSIGN(model::Model m, convert::dmx_to_model(src->doc(), diags));
    report_model(m, report);
    return m;
}

Result<ConvertResult> from_model(const model::Model& m, const ConvertOptions& opt,
                                 Diagnostics& diags) {
    auto target = dmxmodel::Target::parse(opt.options.text("target", "source1"));
    if (!target) {
        return Diagnostic::error("option.bad-value",
                                 "--target is source1, source1-legacy or source2")
            .with_path("target");
    }
    // --format model:N and --encoding NAME:V refine the target.
    const std::string format = opt.options.text("format");
    if (!format.empty()) {
        const auto spec = format_spec(format);
        if (!spec || spec->first != "model" || spec->second < 1 || spec->second > 100) {
            return Diagnostic::error("option.bad-value",
                                     "a model's --format is model:VERSION, e.g. model:22")
                .with_path("format");
        }
        target->format_version = spec->second;
    }
    if (const std::string enc = opt.options.text("encoding"); !enc.empty()) {
        auto e = dmx::Encoding::parse(enc);
        if (!e) {
            return Diagnostic::error("option.bad-value", "unknown --encoding '" + enc + "'")
                .with_path("encoding");
        }
        target->encoding = e->name;
        target->encoding_version = e->version;
    }
    convert::ModelToDmxOptions mo;
    mo.scene_name = opt.input_path.empty() ? "Scene" : opt.input_path.stem().string();
    LK_TRY_ASSIGN(dmx::Document doc, convert::model_to_dmx(m, *target, diags, mo));
    ConvertResult r;
    r.report["encoding"] = fmt::format("{} {}", target->encoding, target->encoding_version);
    r.report["model_version"] = target->format_version;
    dmx::WriteOptions wo;
    wo.layout_hints = false;
    r.document = std::make_unique<ConvertedDmx>(std::move(doc), wo);
    return r;
}

std::vector<OptionSpec> from_model_options() {
    using T = OptionSpec::Type;
    return {
        {.name = "target",
         .type = T::text,
         .default_value = "source1",
         .help = "DMX model output: source1 (binary 5 / model 18), source1-legacy (binary 2 / "
                 "model 1) or source2 (binary 9 / model 22)",
         .choices = {"source1", "source1-legacy", "source2"}},
        {.name = "encoding",
         .type = T::text,
         .help = "DMX output encoding: binary:1-9, keyvalues2:1-4 (default: the target's)"},
        {.name = "format",
         .type = T::text,
         .help = "DMX output format NAME:VERSION, e.g. model:22 (default: the target's)"},
    };
}

}  // namespace

namespace handlers {

const FormatHandler dmx_format{
    .name = "dmx",
    .description =
        "Valve datamodel: DMX models, VMAP maps, PCF particles, vtex (binary 1-9, keyvalues2)",
    .extensions = {".dmx", ".pcf", ".vtex", ".dmx.gz", ".dmx.txt", ".pcf.txt"},
    .sniff = &sniff,
    .read = &read,
    .model = {.to = to_model, .from = from_model, .from_options = from_model_options()},
};

const ConverterHandler dmx_to_dmx{
    .from = "dmx",
    .to = "dmx",
    .description = "re-encode a DMX file",
    .run = &reencode,
    .options = dmx_options(),
};

}  // namespace handlers

}  // namespace lk
