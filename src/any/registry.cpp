#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "handlers.hpp"
#include "levelkit/core/memory.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/model/model.hpp"

namespace lk {

const std::vector<const FormatHandler*>& all_formats() {
    static const std::vector<const FormatHandler*> list = {
        // One line per format; detection asks each and keeps the most certain. Inputs first,
        // then formats levelkit only writes.
        &handlers::vmf,   &handlers::bsp,  &handlers::vmap_format, &handlers::wmp,
        &handlers::wmp_m, &handlers::wmb,  &handlers::dmx_format,  &handlers::smd,
        &handlers::obj,   &handlers::gltf, &handlers::png,
    };
    return list;
}

const std::vector<const ConverterHandler*>& all_converters() {
    static const std::vector<const ConverterHandler*> list = {
        // Hand-written paths only; every other pair is composed through a neutral form.
        &handlers::vmf_to_vmf,   &handlers::dmx_to_dmx,  &handlers::bsp_to_bsp,
        &handlers::vmap_to_vmap, &handlers::vmap_to_dmx, &handlers::wmp_to_wmp,
        &handlers::wmp_to_wmp_m,
    };
    return list;
}

void report_model(const model::Model& m, Json& report) {
    std::size_t shapes = 0;
    for (const model::Mesh& mesh : m.meshes) shapes += mesh.shapes.size();
    report["meshes"] = m.meshes.size();
    report["nodes"] = m.nodes.size();
    report["shapes"] = shapes;
    report["clips"] = m.clips.size();
}

const FormatHandler* find_format(std::string_view name) {
    for (const FormatHandler* f : all_formats()) {
        if (f->name == name) return f;
    }
    return nullptr;
}

const ConverterHandler* find_converter(std::string_view from, std::string_view to) {
    for (const ConverterHandler* c : all_converters()) {
        if (c->from == from && c->to == to) return c;
    }
    return nullptr;
}

const FormatHandler* detect_format(ByteSpan data, std::string_view filename) {
    const FormatHandler* best = nullptr;
    int best_score = 0;
    for (const FormatHandler* f : all_formats()) {
        const int s = f->sniff ? f->sniff(data, filename) : 0;
        if (s > best_score) {
            best = f;
            best_score = s;
        }
    }
    return best;
}

const FormatHandler* format_for_extension(const std::filesystem::path& path) {
    const std::string name = path.filename().string();
    // The longest matching extension wins (".vmap.txt" over ".txt").
    const FormatHandler* best = nullptr;
    std::size_t best_len = 0;
    for (const FormatHandler* f : all_formats()) {
        for (std::string_view ext : f->extensions) {
            if (ext.size() > best_len && iends_with(name, ext)) {
                best = f;
                best_len = ext.size();
            }
        }
    }
    return best;
}

Result<std::unique_ptr<Document>> read_document(Blob data, const ReadOptions& opt) {
    const FormatHandler* f = detect_format(data.bytes(), opt.source_name);
    if (!f || !f->read) {
        return Diagnostic::error("format.unknown", "unrecognised file format")
            .in_file(opt.source_name);
    }
    auto doc = f->read(std::move(data), opt);
    if (!doc) {
        Diagnostic d = std::move(doc).error();
        if (d.file.empty()) d.file = opt.source_name;
        return d;
    }
    doc.value()->read_diagnostics().set_file(opt.source_name);
    return doc;
}

namespace {
// How a file named on a command line is read.
ReadOptions file_read_options(const std::filesystem::path& path, bool lossless, unsigned threads) {
    ReadOptions opt;
    opt.source_name = path.string();
    opt.base_dir = path.parent_path();
    opt.lossless = lossless;
    opt.threads = threads;
    return opt;
}
}  // namespace

Result<std::unique_ptr<Document>> read_document(const std::filesystem::path& path, bool lossless,
                                                unsigned threads) {
    auto blob = Blob::map_file(path);
    if (!blob) return std::move(blob).error();
    return read_document(std::move(blob).value(), file_read_options(path, lossless, threads));
}

Result<Json> file_info(const std::filesystem::path& path, unsigned threads) {
    auto blob = Blob::map_file(path);
    if (!blob) return std::move(blob).error();
    const ReadOptions opt = file_read_options(path, false, threads);
    const FormatHandler* f = detect_format(blob->bytes(), opt.source_name);
    if (f && f->read && f->summarize) {
        auto info = f->summarize(std::move(blob).value(), opt);
        if (!info) {
            Diagnostic d = std::move(info).error();
            if (d.file.empty()) d.file = opt.source_name;
            return d;
        }
        return info;
    }
    auto doc = read_document(std::move(blob).value(), opt);
    if (!doc) return std::move(doc).error();
    return doc.value()->info();
}

// --- the graph ------------------------------------------------------------------------------

std::optional<ConversionPath> find_path(const FormatHandler& from, const FormatHandler& to) {
    ConversionPath p;
    p.from = &from;
    p.to = &to;
    if (!from.read) return std::nullopt;
    if (const ConverterHandler* c = find_converter(from.name, to.name)) {
        p.via = ConversionPath::Via::direct;
        p.direct = c;
        return p;
    }
    if (&from == &to) {
        p.via = ConversionPath::Via::same;
        return p;
    }
    if (from.scene.to && to.scene.from) {
        p.via = ConversionPath::Via::scene;
        return p;
    }
    if (from.model.to && to.model.from) {
        p.via = ConversionPath::Via::model;
        return p;
    }
    return std::nullopt;
}

std::vector<ConversionPath> all_paths() {
    std::vector<ConversionPath> out;
    for (const FormatHandler* a : all_formats()) {
        for (const FormatHandler* b : all_formats()) {
            if (auto p = find_path(*a, *b)) out.push_back(*p);
        }
    }
    return out;
}

std::vector<const OptionSpec*> ConversionPath::options() const {
    std::vector<const OptionSpec*> out;
    auto add = [&](const std::vector<OptionSpec>& specs) {
        for (const OptionSpec& s : specs) {
            const bool dup = std::any_of(out.begin(), out.end(),
                                         [&](const OptionSpec* o) { return o->name == s.name; });
            if (!dup) out.push_back(&s);
        }
    };
    switch (via) {
        case Via::same:
            break;
        case Via::direct:
            add(direct->options);
            break;
        case Via::scene:
            add(from->scene.to_options);
            add(to->scene.from_options);
            break;
        case Via::model:
            add(from->model.to_options);
            add(to->model.from_options);
            break;
    }
    return out;
}

std::string ConversionPath::describe() const {
    switch (via) {
        case Via::same:
            return fmt::format("{} -> {} (written back as read)", from->name, to->name);
        case Via::direct:
            return fmt::format("{} -> {} ({})", from->name, to->name, direct->description);
        case Via::scene:
            return fmt::format("{} -> scene -> {}", from->name, to->name);
        case Via::model:
            return fmt::format("{} -> model -> {}", from->name, to->name);
    }
    return {};
}

namespace {

// A document that writes given bytes (the input of a "same" path, written back as read).
class BytesDocument final : public Document {
public:
    BytesDocument(std::string_view format, Bytes bytes)
        : format_(format), bytes_(std::move(bytes)) {}
    std::string_view format() const override { return format_; }
    Json info() const override { return Json{{"format", format_}}; }
    Result<Bytes> write() const override { return bytes_; }

private:
    std::string format_;
    Bytes bytes_;
};

template <class Neutral>
Result<ConvertResult> compose(const NeutralSteps<Neutral>& in_steps,
                              const NeutralSteps<Neutral>& out_steps, std::string_view out_name,
                              const Document& in, const ConvertOptions& opt, Diagnostics& diags) {
    Json report = Json::object();
    opt.progress("convert", 0.1);
    ConvertOptions in_opt = opt;
    in_opt.for_display = out_steps.draws;
    in_opt.meshes_ok = out_steps.meshes;
    // An input the caller gives up goes to `to_spent` or is freed once converted; `in` is not
    // used after this.
    std::unique_ptr<Document> owned;
    if (in_steps.to_spent && opt.take_input) owned = opt.take_input();
    auto neutral = owned ? in_steps.to_spent(std::move(owned), in_opt, diags, report)
                         : in_steps.to(in, in_opt, diags, report);
    if (!neutral) return std::move(neutral).error();
    if (opt.take_input) {
        opt.take_input();
        // A large input was read on several threads: what it held is free but kept by their
        // malloc arenas, which the output (built on this thread) cannot use. Hand it back.
        std::error_code ec;
        if (opt.give_back_memory &&
            std::filesystem::file_size(opt.input_path, ec) >= (std::size_t{1} << 20) && !ec) {
            give_back_free_heap();
        }
    }
    if (opt.progress.cancelled()) return Progress::cancelled_error();
    opt.progress("convert", 0.5);
    auto out = out_steps.from_spent ? out_steps.from_spent(std::move(neutral).value(), opt, diags)
                                    : out_steps.from(neutral.value(), opt, diags);
    if (!out) return std::move(out).error();
    // The consumer's report sits under the output format's name, next to the producer's keys.
    if (!out->report.is_null() && !(out->report.is_object() && out->report.empty())) {
        report[std::string(out_name)] = std::move(out->report);
    }
    out->report = std::move(report);
    return std::move(out).value();
}

}  // namespace

Result<ConvertResult> run_path(const ConversionPath& path, const Document& in,
                               const ConvertOptions& opt, Diagnostics& diags) {
    switch (path.via) {
        case ConversionPath::Via::same: {
            auto bytes = in.write();
            if (!bytes) return std::move(bytes).error();
            ConvertResult r;
            r.document = std::make_unique<BytesDocument>(path.to->name, std::move(bytes).value());
            return r;
        }
        case ConversionPath::Via::direct:
            return path.direct->run(in, opt, diags);
        case ConversionPath::Via::scene:
            return compose(path.from->scene, path.to->scene, path.to->name, in, opt, diags);
        case ConversionPath::Via::model:
            return compose(path.from->model, path.to->model, path.to->name, in, opt, diags);
    }
    return Diagnostic::error("convert.internal", "unknown conversion path");
}

Result<scene::Scene> document_to_scene(const Document& doc, const ConvertOptions& given,
                                       Diagnostics& diags, Json* report) {
    const FormatHandler* f = find_format(doc.format());
    if (!f || !f->scene.to) {
        return Diagnostic::error("convert.unsupported",
                                 fmt::format("{} files are not maps", doc.format()));
    }
    std::vector<const OptionSpec*> schema;
    for (const OptionSpec& s : f->scene.to_options) schema.push_back(&s);
    LK_TRY_ASSIGN(Options checked, check_options(given.options, schema, f->name));
    ConvertOptions opt = given;
    opt.options = std::move(checked);
    Json local;
    return f->scene.to(doc, opt, diags, report ? *report : local);
}

Result<ConvertResult> convert_document(const Document& in, std::string_view to,
                                       const Options& options, Diagnostics& diags,
                                       const ConvertOptions& base) {
    const FormatHandler* from = find_format(in.format());
    const FormatHandler* out = find_format(to);
    const auto path = from && out ? find_path(*from, *out) : std::nullopt;
    if (!path) {
        return Diagnostic::error("convert.unsupported",
                                 fmt::format("no conversion from {} to {}", in.format(), to));
    }
    LK_TRY_ASSIGN(Options checked,
                  check_options(options, path->options(), fmt::format("{} -> {}", from->name, to)));
    ConvertOptions opt = base;
    opt.options = std::move(checked);
    return run_path(*path, in, opt, diags);
}

}  // namespace lk
