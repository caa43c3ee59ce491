// DMX adapter: every Valve datamodel file (.dmx models, .vmap maps, .pcf particles, .vtex ...)
// is format "dmx"; the encoding comes from the file's header.
#include "levelkit/dmx/io.hpp"

#include <fmt/format.h>

#include "handlers.hpp"
#include "levelkit/core/text.hpp"

namespace lk {

namespace {

class DmxDocument final : public Document {
  public:
    DmxDocument(dmx::Document doc, Blob source)
        : doc_(std::move(doc)), source_(std::move(source)) {}

    std::string_view format() const override { return "dmx"; }

    Json info() const override {
        std::size_t elements = 0, externals = 0, attributes = 0;
        for (std::size_t i = 0; i < doc_.size(); ++i) {
            const dmx::Element& e = doc_.elements()[i];
            if (e.external()) {
                ++externals;
                continue;
            }
            ++elements;
            if (static_cast<std::int32_t>(i) != doc_.prefix.index)
                attributes += e.attributes.size();
        }
        Json j;
        j["format"] = "dmx";
        j["encoding"] = doc_.header.encoding;
        j["encoding_version"] = doc_.header.encoding_version;
        j["format_name"] = doc_.header.format;
        j["format_version"] = doc_.header.format_version;
        j["elements"] = elements;
        j["attributes"] = attributes;
        j["prefix_attributes"] = doc_.prefix_attributes().size();
        if (externals) j["external_elements"] = externals;
        if (const dmx::Element* root = doc_.get(doc_.root)) j["root_class"] = root->type.str();
        if (doc_.container.gzip) j["compression"] = "gzip";
        return j;
    }

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
    Json info() const override { return DmxDocument(doc_.clone(), Blob()).info(); }
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
    auto doc = dmx::read(data.bytes(), ro);
    if (!doc) return std::move(doc).error();
    return std::unique_ptr<Document>(
        std::make_unique<DmxDocument>(std::move(doc).value(), std::move(data)));
}

bool flag(const ConvertOptions& opt, const std::string& key) {
    auto it = opt.extra.find(key);
    return it != opt.extra.end() && it->second != "0" && it->second != "false";
}

Result<ConvertResult> convert(const Document& in, const ConvertOptions& opt, Diagnostics&) {
    const auto* src = dynamic_cast<const DmxDocument*>(&in);
    if (!src) return Diagnostic::error("convert.internal", "input is not a DMX document");
    dmx::Document doc = src->doc().clone();
    dmx::ConvertOptions co;
    co.coerce_integers = flag(opt, "dmx.coerce_integers");
    co.demote_prefix = flag(opt, "dmx.demote_prefix");
    if (!opt.dmx_format.empty()) {
        const auto colon = opt.dmx_format.rfind(':');
        const auto v = colon == std::string::npos
                           ? std::nullopt
                           : parse_int(std::string_view(opt.dmx_format).substr(colon + 1));
        if (colon == 0 || !v || *v < 0 || *v > INT32_MAX) {
            return Diagnostic::error("convert.bad-option",
                                     "--format expects NAME:VERSION, e.g. vmap:29");
        }
        co.format = std::make_pair(opt.dmx_format.substr(0, colon), static_cast<int>(*v));
    }
    std::string encoding;
    if (!opt.encoding.empty()) {
        auto e = dmx::Encoding::parse(opt.encoding);
        if (!e) {
            return Diagnostic::error("convert.bad-option",
                                     "unknown --encoding '" + opt.encoding +
                                         "' (binary:1-9, keyvalues2:1-4, keyvalues2_flat:N, "
                                         "keyvalues2_noids:N)");
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
    wo.layout_hints = !opt.extra.count("dmx.layout_hints") || flag(opt, "dmx.layout_hints");
    ConvertResult r;
    if (!encoding.empty()) r.report["encoding"] = encoding;
    r.document = std::make_unique<ConvertedDmx>(std::move(doc), wo);
    return r;
}

}  // namespace

namespace handlers {

const FormatHandler dmx_format{
    "dmx",
    "Valve datamodel: DMX models, VMAP maps, PCF particles, vtex (binary 1-9, keyvalues2)",
    {".dmx", ".vmap", ".pcf", ".vtex", ".dmx.gz", ".dmx.txt", ".vmap.txt", ".pcf.txt"},
    &sniff,
    &read,
};

const ConverterHandler dmx_to_dmx{
    "dmx",
    "dmx",
    "re-encode a DMX file (--encoding binary:9 / keyvalues2:4 ..., --format NAME:VER)",
    &convert,
};

}  // namespace handlers

}  // namespace lk
