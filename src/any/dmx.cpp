// DMX adapter: every Valve datamodel file (.dmx models, .vmap maps, .pcf particles, .vtex ...)
// is format "dmx"; the encoding comes from the file's header.
#include "levelkit/dmx/io.hpp"

#include <fmt/format.h>

#include "handlers.hpp"
#include "levelkit/core/text.hpp"

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

class DmxDocument final : public Document {
public:
    DmxDocument(dmx::Document doc, Blob source)
        : doc_(std::move(doc)), source_(std::move(source)) {}

    std::string_view format() const override { return "dmx"; }

    Json info() const override { return dmx_info(doc_); }

    Result<Bytes> write() const override { return dmx::write(doc_); }

    std::optional<Result<std::string>> dump_text() const override { return dmx::dump_text(doc_); }

    std::optional<std::uint32_t> line_of(std::size_t offset) const override {
        if (!doc_.header.is_kv2() || doc_.container.gzip) return std::nullopt;
        return LineMap(source_.text()).locate(offset).line;
    }

    void validate(Diagnostics& out) const override {
        if (!doc_.valid(doc_.root) && doc_.size() > 0) {
            out.add(Diagnostic::error("dmx.no-root", "the document has no root element"));
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

Result<ConvertResult> convert(const Document& in, const ConvertOptions& opt, Diagnostics&) {
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
        const auto colon = format.rfind(':');
        const auto v = colon == std::string::npos
                           ? std::nullopt
                           : parse_int(std::string_view(format).substr(colon + 1));
        if (colon == 0 || !v || *v < 0 || *v > INT32_MAX) {
            return Diagnostic::error("option.bad-value",
                                     "--format expects NAME:VERSION, e.g. vmap:29")
                .with_path("format");
        }
        co.format = std::make_pair(format.substr(0, colon), static_cast<int>(*v));
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

namespace handlers {

const FormatHandler dmx_format{
    .name = "dmx",
    .description =
        "Valve datamodel: DMX models, VMAP maps, PCF particles, vtex (binary 1-9, keyvalues2)",
    .extensions = {".dmx", ".pcf", ".vtex", ".dmx.gz", ".dmx.txt", ".pcf.txt"},
    .sniff = &sniff,
    .read = &read,
};

const ConverterHandler dmx_to_dmx{
    .from = "dmx",
    .to = "dmx",
    .description = "re-encode a DMX file",
    .run = &convert,
    .options = dmx_options(),
};

}  // namespace handlers

}  // namespace lk
