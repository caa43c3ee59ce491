// VMF adapter: the lossless tree for write(), the typed map for info/validate/convert.
#include "levelkit/vmf/vmf.hpp"
#include "handlers.hpp"
#include "levelkit/vmf/geometry.hpp"

namespace lk {

namespace {

class VmfDocument final : public Document {
public:
    explicit VmfDocument(vmf::Document doc) : doc_(std::move(doc)) {
        read_diagnostics().add_all(doc_.diagnostics());
    }

    std::string_view format() const override { return "vmf"; }

    Json info() const override {
        const vmf::Map& m = doc_.map();
        const vmf::Stats s = vmf::stats(m);
        Json j;
        j["format"] = "vmf";
        j["editorversion"] = find_int(m.versioninfo, "editorversion");
        j["editorbuild"] = m.editor_build();
        j["mapversion"] = m.map_version();
        j["formatversion"] = find_int(m.versioninfo, "formatversion");
        j["solids"] = s.solids;
        j["sides"] = s.sides;
        j["entities"] = s.entities;
        j["displacements"] = s.displacements;
        j["overlays"] = s.overlays;
        j["instances"] = s.instances;
        j["visgroups"] = s.visgroups;
        j["cameras"] = s.cameras;
        j["connections"] = s.connections;
        j["hidden"] = s.hidden;
        j["line_ending"] = doc_.tree().eol() == "\r\n" ? "crlf" : "lf";
        j["decompiled"] = !m.has_versioninfo;
        return j;
    }

    Result<Bytes> write() const override {
        const std::string text = doc_.write();
        const ByteSpan b = as_bytes(text);
        return Bytes(b.begin(), b.end());
    }

    void validate(Diagnostics& out) const override { vmf::validate(doc_.map(), out, &doc_.tree()); }

    std::optional<std::uint32_t> line_of(std::size_t offset) const override {
        return doc_.tree().locate(offset).line;
    }

    const vmf::Document& vmf() const { return doc_; }

private:
    static Json find_int(const std::vector<vmf::KeyValue>& kvs, std::string_view key) {
        const std::string* v = vmf::find_key(kvs, key);
        if (!v) return nullptr;
        if (auto i = parse_int(trim(*v))) return *i;
        return *v;
    }

    vmf::Document doc_;
};

// Hammer's top-level block names; decompiled maps start at "world".
int sniff_vmf(ByteSpan data, std::string_view filename) {
    std::string_view t = as_text(data.first(std::min<std::size_t>(data.size(), 4096)));
    if (t.substr(0, 3) == "\xEF\xBB\xBF") t.remove_prefix(3);
    for (;;) {
        const std::size_t b = t.find_first_not_of(" \t\r\n");
        if (b == std::string_view::npos) {
            t = {};
            break;
        }
        t.remove_prefix(b);
        if (t.substr(0, 2) != "//") break;
        const std::size_t e = t.find('\n');
        t = e == std::string_view::npos ? std::string_view{} : t.substr(e);
    }
    if (!t.empty() && t[0] == '"') t.remove_prefix(1);
    const std::size_t e = t.find_first_of(" \t\r\n\"{");
    const std::string_view word = t.substr(0, e);
    for (std::string_view k : {"versioninfo", "visgroups", "viewsettings", "world", "entity",
                               "cameras", "cordon", "cordons"}) {
        if (iequals(word, k)) return 90;
    }
    return iends_with(filename, ".vmf") ? 30 : 0;
}

Result<std::unique_ptr<Document>> read_vmf(Blob data, const ReadOptions&) {
    auto doc = vmf::Document::read(std::move(data));
    if (!doc) return std::move(doc).error();
    return std::unique_ptr<Document>(std::make_unique<VmfDocument>(std::move(doc).value()));
}

Result<ConvertResult> vmf_to_vmf(const Document& in, const ConvertOptions&, Diagnostics&) {
    const auto& src = static_cast<const VmfDocument&>(in).vmf();
    vmf::WriteOptions wo;
    wo.eol = std::string(src.tree().eol());
    auto out = vmf::Document::read(vmf::write(src.map(), wo));
    if (!out) return std::move(out).error();
    ConvertResult r;
    r.document = std::make_unique<VmfDocument>(std::move(out).value());
    return r;
}

}  // namespace

namespace handlers {

const FormatHandler vmf{
    "vmf", "Hammer map source (KeyValues text)", {".vmf", ".vmx"}, sniff_vmf, read_vmf};
const ConverterHandler vmf_to_vmf_converter{"vmf", "vmf", "normalised rewrite in Hammer's layout",
                                            vmf_to_vmf};

}  // namespace handlers

}  // namespace lk
