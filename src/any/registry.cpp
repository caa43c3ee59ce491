#include <algorithm>

#include "handlers.hpp"
#include "levelkit/core/text.hpp"

namespace lk {

const std::vector<const FormatHandler*>& all_formats() {
    static const std::vector<const FormatHandler*> list = {
        // One line per format; detection asks each and keeps the most certain.
        &handlers::vmf,         &handlers::dmx_format, &handlers::bsp,
        &handlers::vmap_format, &handlers::wmp,        &handlers::wmp_m,
    };
    return list;
}

const std::vector<const ConverterHandler*>& all_converters() {
    static const std::vector<const ConverterHandler*> list = {
        // One line per (from, to) pair.
        &handlers::vmf_to_vmf_converter,
        &handlers::dmx_to_dmx,
        &handlers::bsp_to_bsp,
        &handlers::vmap_to_vmap,
        &handlers::vmap_to_dmx,
        &handlers::vmf_to_vmap,
        &handlers::vmap_to_vmf,
        &handlers::bsp_to_vmf,
        &handlers::wmp_to_wmp_m_converter,
        &handlers::wmp_to_wmp_converter,
        &handlers::wmp_to_vmf_converter,
        &handlers::wmp_m_to_vmf_converter,
    };
    return list;
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
    for (const FormatHandler* f : all_formats()) {
        for (std::string_view ext : f->extensions) {
            if (iends_with(name, ext)) return f;
        }
    }
    return nullptr;
}

Result<std::unique_ptr<Document>> read_document(Blob data, const ReadOptions& opt) {
    const FormatHandler* f = detect_format(data.bytes(), opt.source_name);
    if (!f) {
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

Result<std::unique_ptr<Document>> read_document(const std::filesystem::path& path) {
    auto blob = Blob::map_file(path);
    if (!blob) return std::move(blob).error();
    ReadOptions opt;
    opt.source_name = path.string();
    opt.base_dir = path.parent_path();
    return read_document(std::move(blob).value(), opt);
}

}  // namespace lk
