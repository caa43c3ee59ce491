// VMAP adapter: Source 2 Hammer maps. A vmap is a DMX file whose header names the format "vmap";
// it is read and written by the dmx module (byte-identical) and understood through vmap::Map.
#include <fmt/format.h>

#include "handlers.hpp"
#include "levelkit/convert/scene_vmap.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/vmf/instances.hpp"

namespace lk {

namespace {

class VmapDocument final : public Document {
public:
    // `map_` points into `doc_`: the document is heap-allocated and never moved after this.
    VmapDocument(dmx::Document doc, Blob source)
        : doc_(std::move(doc)), source_(std::move(source)) {}

    static Result<std::unique_ptr<VmapDocument>> make(dmx::Document doc, Blob source) {
        auto d = std::make_unique<VmapDocument>(std::move(doc), std::move(source));
        auto m = vmap::Map::open(d->doc_);
        if (!m) return std::move(m).error();
        d->map_ = std::move(m).value();
        if (!d->map_.root_is_hammer()) {
            d->read_diagnostics().add(Diagnostic::warning(
                "vmap.root-class",
                fmt::format("the root element is a {}; Hammer's is CMapRootElement",
                            d->doc_[d->doc_.root].type.str())));
        }
        return d;
    }

    std::string_view format() const override { return "vmap"; }

    Json info() const override {
        Json j = dmx_info(doc_);
        j["format"] = "vmap";
        std::size_t faces = 0;
        for (std::uint32_t i : map_.meshes) {
            if (auto v = vmap::view_mesh(doc_, map_.mesh_data(map_.nodes[i].element)))
                faces += v->face_count();
        }
        j["meshes"] = map_.meshes.size();
        j["faces"] = faces;
        j["entities"] = map_.entities.size();
        j["vmap_version"] = map_.version();
        return j;
    }

    Result<Bytes> write() const override { return dmx::write(doc_); }

    std::optional<Result<std::string>> dump_text() const override { return dmx::dump_text(doc_); }

    std::optional<std::uint32_t> line_of(std::size_t offset) const override {
        if (!doc_.header.is_kv2() || doc_.container.gzip) return std::nullopt;
        return LineMap(source_.text()).locate(offset).line;
    }

    // Every mesh: the first broken invariant names the mesh (nodeID) and what is wrong.
    void validate(Diagnostics& out) const override {
        for (const vmap::MeshReport& r : vmap::validate_meshes(map_)) {
            const std::string path = fmt::format("mesh[nodeID {}]", r.node_id);
            if (!r.view_error.empty()) {
                out.add(Diagnostic::error("vmap.invalid-mesh",
                                          fmt::format("mesh {}: {}", r.node_id, r.view_error))
                            .with_path(path));
                continue;
            }
            for (const vmap::MeshProblem& p : r.problems) {
                out.add(Diagnostic::error(
                            "vmap.invalid-mesh",
                            fmt::format("mesh {}: {}: {}", r.node_id, p.invariant, p.detail))
                            .with_path(path));
            }
        }
    }

    const dmx::Document& doc() const { return doc_; }
    const vmap::Map& map() const { return map_; }

private:
    dmx::Document doc_;
    Blob source_;
    vmap::Map map_;
};

// A vmap built by a converter (no source bytes).
class ConvertedVmap final : public Document {
public:
    explicit ConvertedVmap(dmx::Document doc) : doc_(std::move(doc)) {}
    std::string_view format() const override { return "vmap"; }
    Json info() const override {
        Json j = dmx_info(doc_);
        j["format"] = "vmap";
        return j;
    }
    Result<Bytes> write() const override { return dmx::write(doc_); }
    std::optional<Result<std::string>> dump_text() const override { return dmx::dump_text(doc_); }

private:
    dmx::Document doc_;
};

// The header line names the format; the dmx handler scores 100 for any DMX, so a vmap wins.
int sniff(ByteSpan data, std::string_view) {
    if (!dmx::looks_like_dmx(data)) return 0;
    const std::string_view head = as_text(data.first(std::min<std::size_t>(data.size(), 160)));
    const std::size_t end = head.find("-->");
    const std::string_view line = head.substr(0, end);
    return line.find(" format vmap ") != std::string_view::npos ? 110 : 0;
}

Result<std::unique_ptr<Document>> read(Blob data, const ReadOptions& opt) {
    dmx::ReadOptions ro;
    ro.source_name = opt.source_name;
    auto doc = dmx::read(data.bytes(), ro);
    if (!doc) return std::move(doc).error();
    auto v = VmapDocument::make(std::move(doc).value(), std::move(data));
    if (!v) return std::move(v).error();
    return std::unique_ptr<Document>(std::move(v).value());
}

Result<ConvertResult> vmap_to_vmap(const Document& in, const ConvertOptions& opt, Diagnostics&) {
    const auto* src = dynamic_cast<const VmapDocument*>(&in);
    if (!src) return Diagnostic::error("convert.internal", "input is not a vmap document");
    return convert_dmx(src->doc(), opt);
}

// Seed for element GUIDs: the same input path gives the same output bytes.
std::uint64_t seed_of(const ConvertOptions& opt) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (char c : opt.input_path.filename().string()) {
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    return h;
}

Result<ConvertResult> vmf_to_vmap(const Document& in, const ConvertOptions& opt,
                                  Diagnostics& diags) {
    const vmf::Document* src = vmf_source(in);
    if (!src) return Diagnostic::error("convert.internal", "input is not a VMF document");
    std::optional<dmx::Encoding> enc = dmx::Encoding{"binary", 9};
    if (!opt.encoding.empty()) {
        enc = dmx::Encoding::parse(opt.encoding);
        if (!enc) {
            return Diagnostic::error("convert.bad-option",
                                     "unknown --encoding '" + opt.encoding +
                                         "' (binary:9 default, keyvalues2:4 for text)");
        }
    }
    Json report;
    std::optional<vmf::Map> collapsed;
    if (opt.collapse_instances) {
        collapsed = src->map();
        const auto dir = opt.input_path.parent_path();
        const vmf::CollapseReport cr =
            vmf::collapse_instances(*collapsed, dir, vmf::filesystem_instance_loader(), diags);
        report["instances_collapsed"] = cr.instances;
        report["instances_unresolved"] = cr.unresolved;
    }
    const scene::Scene s = convert::vmf_to_scene(collapsed ? *collapsed : src->map(), diags);
    convert::SceneToVmapOptions so;
    so.seed = seed_of(opt);
    if (auto it = opt.extra.find("vmap.texture_size"); it != opt.extra.end()) {
        const auto v = parse_double(it->second);
        if (!v || !(*v > 0)) {
            return Diagnostic::error("convert.bad-option", "vmap.texture_size must be > 0");
        }
        so.default_texture_size = *v;
    }
    convert::SceneToVmapReport r;
    dmx::Document doc = convert::scene_to_vmap(s, diags, so, &r);
    if (enc->name != "binary" || enc->version != 9) LK_TRY(dmx::convert(doc, *enc));
    report["encoding"] = fmt::format("{} {}", enc->name, enc->version);
    report["meshes"] = r.meshes;
    report["faces"] = r.faces;
    report["brushes"] = r.brushes;
    report["brushes_skipped"] = r.brushes_skipped;
    report["displacements"] = r.displacements;
    report["entities"] = r.entities;
    report["outputs"] = r.outputs;
    report["outputs_unparsed"] = r.outputs_unparsed;
    report["prefabs"] = r.prefabs;
    report["groups"] = r.groups;
    report["hidden"] = r.hidden;
    report["cameras"] = r.cameras;
    report["lost"] = {{"cordon_boxes", r.cordon_boxes_dropped},
                      {"instance_variables", r.instance_variables_dropped}};
    ConvertResult out;
    out.document = std::make_unique<ConvertedVmap>(std::move(doc));
    out.report = std::move(report);
    return out;
}

Result<ConvertResult> vmap_to_vmf(const Document& in, const ConvertOptions&, Diagnostics& diags) {
    const auto* src = dynamic_cast<const VmapDocument*>(&in);
    if (!src) return Diagnostic::error("convert.internal", "input is not a vmap document");
    convert::VmapToSceneReport vr;
    const scene::Scene s = convert::vmap_to_scene(src->map(), diags, &vr);
    convert::SceneToVmfReport r;
    const vmf::Map m = convert::scene_to_vmf(s, diags, {}, &r);
    auto doc = make_vmf_document(m);
    if (!doc) return std::move(doc).error();
    ConvertResult out;
    out.document = std::move(doc).value();
    out.report["meshes"] = vr.meshes;
    out.report["brushes"] = r.meshes_as_brushes;
    out.report["meshes_not_brushes"] = r.meshes_skipped;
    out.report["meshes_not_brushes_ids"] = r.skipped_mesh_ids;
    out.report["meshes_unreadable_ids"] = vr.unreadable_meshes;
    out.report["entities"] = vr.entities;
    out.report["prefabs"] = vr.prefabs;
    return out;
}

}  // namespace

namespace handlers {

const FormatHandler vmap_format{
    "vmap",
    "Source 2 Hammer map (DMX binary or keyvalues2 with format vmap)",
    {".vmap", ".vmap.txt"},
    &sniff,
    &read,
};

const ConverterHandler vmap_to_vmap{
    "vmap", "vmap", "re-encode a vmap (--encoding binary:9 / keyvalues2:4)", &lk::vmap_to_vmap};
const ConverterHandler vmap_to_dmx{
    "vmap", "dmx", "re-encode a vmap as a .dmx file (--encoding, --format)", &lk::vmap_to_vmap};
const ConverterHandler vmf_to_vmap{
    "vmf", "vmap",
    "Source 1 map to Source 2 Hammer (--encoding, --collapse-instances, --set "
    "vmap.texture_size=N)",
    &lk::vmf_to_vmap};
const ConverterHandler vmap_to_vmf{
    "vmap", "vmf", "closed convex meshes to brushes, entities and outputs", &lk::vmap_to_vmf};

}  // namespace handlers

}  // namespace lk
