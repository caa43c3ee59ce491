// VMF adapter: the lossless tree for write(), the typed map for info/validate/convert; the
// scene steps (VMF -> scene, scene -> VMF) and the normalised rewrite.
#include "levelkit/vmf/vmf.hpp"

#include "handlers.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/instances.hpp"

namespace lk {

namespace {

Json find_int(const std::vector<vmf::KeyValue>& kvs, std::string_view key) {
    const std::string* v = vmf::find_key(kvs, key);
    if (!v) return nullptr;
    if (auto i = parse_int(trim(*v))) return *i;
    return *v;
}

// `s`: the counts of the whole map (a summary's `m` has no solids and entities).
Json map_info(const vmf::Map& m, const vmf::Stats& s, std::string_view eol) {
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
    j["line_ending"] = eol == "\r\n" ? "crlf" : "lf";
    j["decompiled"] = !m.has_versioninfo;
    return j;
}

// The line ending of a VMF's text: that of its first line.
std::string_view line_ending(std::string_view text) {
    const std::size_t nl = text.find('\n');
    return nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r' ? "\r\n" : "\n";
}

// Every VMF document gives its typed map and its line ending; read ones also keep the
// lossless tree.
class VmfLike : public Document {
public:
    std::string_view format() const override { return "vmf"; }
    virtual const vmf::Map& map() const = 0;
    // The map, for a conversion that takes the document over and frees it as it goes.
    virtual vmf::Map& spend_map() = 0;
    virtual std::string_view eol() const = 0;
    Json info() const final { return map_info(map(), vmf::stats(map()), eol()); }
};

class VmfDocument final : public VmfLike {
public:
    explicit VmfDocument(vmf::Document doc) : doc_(std::move(doc)) {}

    Result<Bytes> write() const override {
        const std::string text = doc_.write();
        const ByteSpan b = as_bytes(text);
        return Bytes(b.begin(), b.end());
    }

    void validate(Diagnostics& out) const override { vmf::validate(doc_.map(), out, &doc_.tree()); }

    std::optional<std::uint32_t> line_of(std::size_t offset) const override {
        return doc_.tree().locate(offset).line;
    }

    const vmf::Map& map() const override { return doc_.map(); }
    vmf::Map& spend_map() override { return doc_.map(); }
    std::string_view eol() const override { return doc_.tree().eol(); }

private:
    vmf::Document doc_;
};

// A VMF read for looking at or converting (ReadOptions::lossless off): the typed map from the
// streaming reader, no text tree. Writing it gives the input's bytes, which is what the lossless
// tree would write.
class StreamedVmf final : public VmfLike {
public:
    StreamedVmf(Blob source, vmf::Map map) : source_(std::move(source)), map_(std::move(map)) {
        eol_ = line_ending(source_.text());
    }

    Result<Bytes> write() const override {
        const ByteSpan b = source_.bytes();
        return Bytes(b.begin(), b.end());
    }
    void validate(Diagnostics& out) const override { vmf::validate(map_, out); }
    std::optional<std::uint32_t> line_of(std::size_t offset) const override {
        if (!lines_) lines_ = std::make_unique<LineMap>(source_.text());
        return lines_->locate(offset).line;
    }
    const vmf::Map& map() const override { return map_; }
    vmf::Map& spend_map() override { return map_; }
    std::string_view eol() const override { return eol_; }

private:
    Blob source_;
    vmf::Map map_;
    std::string eol_;
    mutable std::unique_ptr<LineMap> lines_;  // built on first use
};

// A map built by a conversion: written from the typed model in Hammer's layout.
class ConvertedVmf final : public VmfLike {
public:
    ConvertedVmf(vmf::Map map, std::string eol) : map_(std::move(map)), eol_(std::move(eol)) {}

    Result<Bytes> write() const override {
        const std::string text = vmf::write(map_, {eol_});
        const ByteSpan b = as_bytes(text);
        return Bytes(b.begin(), b.end());
    }
    void validate(Diagnostics& out) const override { vmf::validate(map_, out); }
    const vmf::Map& map() const override { return map_; }
    vmf::Map& spend_map() override { return map_; }
    std::string_view eol() const override { return eol_; }

private:
    vmf::Map map_;
    std::string eol_;
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

Result<std::unique_ptr<Document>> read_vmf(Blob data, const ReadOptions& opt) {
    Diagnostics warnings;
    if (!opt.lossless) {
        vmf::ReadOptions ro;
        ro.threads = opt.threads;
        auto map = vmf::read_map(data, warnings, ro);
        if (!map) return std::move(map).error();
        auto out = std::make_unique<StreamedVmf>(std::move(data), std::move(map).value());
        out->read_diagnostics().add_all(warnings);
        return std::unique_ptr<Document>(std::move(out));
    }
    auto doc = vmf::read(std::move(data), warnings);
    if (!doc) return std::move(doc).error();
    auto out = std::make_unique<VmfDocument>(std::move(doc).value());
    out->read_diagnostics().add_all(warnings);
    return std::unique_ptr<Document>(std::move(out));
}

// info() of the StreamedVmf read_vmf makes, without its solids and entities.
Result<Json> summarize_vmf(Blob data, const ReadOptions& opt) {
    Diagnostics warnings;
    vmf::ReadOptions ro;
    ro.threads = opt.threads;
    auto s = vmf::summarize(data, warnings, ro);
    if (!s) return std::move(s).error();
    return map_info(s->head, s->stats, line_ending(data.text()));
}

Result<ConvertResult> vmf_to_vmf(const Document& in, const ConvertOptions&, Diagnostics&) {
    const auto* src = dynamic_cast<const VmfLike*>(&in);
    if (!src) return Diagnostic::error("convert.internal", "input is not a VMF document");
    ConvertResult r;
    r.document = std::make_unique<ConvertedVmf>(src->map(), std::string(src->eol()));
    return r;
}

Result<scene::Scene> to_scene(const Document& in, const ConvertOptions& opt, Diagnostics& diags,
                              Json& report) {
    const vmf::Map* map = vmf_map(in);
    if (!map) return Diagnostic::error("convert.internal", "input is not a VMF document");
    if (!opt.options.flag("collapse-instances")) return convert::vmf_to_scene(*map, diags);
    vmf::Map collapsed = *map;
    const vmf::CollapseReport cr = vmf::collapse_instances(
        collapsed, opt.input_path.parent_path(), vmf::filesystem_instance_loader(), diags);
    report["instances_collapsed"] = cr.instances;
    report["instances_unresolved"] = cr.unresolved;
    return convert::vmf_to_scene(collapsed, diags);
}

// The same for an input the caller gives up: its solids and entities are freed as they convert.
Result<scene::Scene> to_spent_scene(std::unique_ptr<Document> in, const ConvertOptions& opt,
                                    Diagnostics& diags, Json& report) {
    auto* v = dynamic_cast<VmfLike*>(in.get());
    if (!v || opt.options.flag("collapse-instances")) return to_scene(*in, opt, diags, report);
    return convert::vmf_to_scene(std::move(v->spend_map()), diags);
}

Result<ConvertResult> from_scene(const scene::Scene& s, const ConvertOptions& opt,
                                 Diagnostics& diags) {
    convert::SceneToVmfReport r;
    vmf::Map m = convert::scene_to_vmf(s, diags, {}, &r);
    ConvertResult out;
    out.document = std::make_unique<ConvertedVmf>(
        std::move(m), iequals(opt.options.text("eol", "crlf"), "lf") ? "\n" : "\r\n");
    Json& j = out.report;
    j["solids"] = r.solids;
    j["renumbered_ids"] = r.renumbered_ids;
    j["sides_with_computed_points"] = r.sides_with_computed_points;
    j["meshes_as_brushes"] = r.meshes_as_brushes;
    j["displacements"] = r.displacements_recovered;
    j["displacement_meshes"] = r.displacement_meshes;
    j["meshes_not_brushes"] = r.meshes_skipped;
    j["meshes_not_brushes_ids"] = r.skipped_mesh_ids;
    j["faces_not_converted"] = r.faces_skipped;
    j["outputs_unparsed"] = r.outputs_unparsed;
    return out;
}

}  // namespace

const vmf::Map* vmf_map(const Document& doc) {
    const auto* v = dynamic_cast<const VmfLike*>(&doc);
    return v ? &v->map() : nullptr;
}

namespace handlers {

const FormatHandler vmf{
    .name = "vmf",
    .description = "Hammer map source (KeyValues text)",
    .extensions = {".vmf", ".vmx"},
    .sniff = sniff_vmf,
    .read = read_vmf,
    .summarize = summarize_vmf,
    .scene = {.to = to_scene,
              .to_spent = to_spent_scene,
              .to_options = {{.name = "collapse-instances",
                              .type = OptionSpec::Type::flag,
                              .default_value = "0",
                              .help = "VMF input: merge func_instance maps into the output"}},
              .from = from_scene,
              .from_options = {{.name = "eol",
                                .type = OptionSpec::Type::text,
                                .default_value = "crlf",
                                .help = "VMF output line endings: crlf (as Hammer writes) or lf",
                                .choices = {"crlf", "lf"}}},
              .meshes = false},
};

const ConverterHandler vmf_to_vmf{
    .from = "vmf",
    .to = "vmf",
    .description = "normalised rewrite in Hammer's layout",
    .run = lk::vmf_to_vmf,
};

}  // namespace handlers

}  // namespace lk
