#include "levelkit/any/jobs.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lk {

JobFailure failure_of(const Diagnostic& d) {
    auto starts = [&](std::string_view p) { return d.code.rfind(p, 0) == 0; };
    if (starts("io.")) return JobFailure::io;
    if (starts("option.") || starts("usage.") || d.code == "convert.unsupported" ||
        d.code == "convert.unknown-output")
        return JobFailure::usage;
    return JobFailure::bad_input;
}

std::vector<const OptionSpec*> options_for(const FormatHandler& in, const FormatHandler& out) {
    auto p = find_path(in, out);
    return p ? p->options() : std::vector<const OptionSpec*>{};
}

namespace {

ConvertJobOutcome fail(ConvertJobOutcome r, Diagnostic d, std::string_view file) {
    if (d.file.empty()) d.file = std::string(file);
    r.failure = failure_of(d);
    r.error = std::move(d);
    return r;
}

}  // namespace

ConvertJobOutcome convert_file(const ConvertJob& job, const Progress& progress) {
    ConvertJobOutcome r;
    const std::string in_name = job.input.string();
    const FormatHandler* out_fmt =
        job.output_format ? job.output_format : format_for_extension(job.output);
    if (!out_fmt) {
        return fail(std::move(r),
                    Diagnostic::error("convert.unknown-output",
                                      "cannot tell the output format from the file name (known "
                                      "extensions: see `levelkit formats`)"),
                    job.output.string());
    }
    if (!job.in_place && same_file(job.output, job.input)) {
        return fail(std::move(r),
                    Diagnostic::error("io.would-overwrite-input",
                                      "refusing to overwrite the input file (use --in-place)"),
                    job.output.string());
    }
    progress("read", 0);
    // The input is converted, never written back: its typed form is enough.
    auto doc = read_document(job.input, /*lossless=*/false, job.threads);
    if (!doc) return fail(std::move(r), std::move(doc).error(), in_name);
    r.diags.add_all(doc.value()->read_diagnostics());
    const FormatHandler* in_fmt = find_format(doc.value()->format());
    const auto path = in_fmt ? find_path(*in_fmt, *out_fmt) : std::nullopt;
    if (!path) {
        return fail(std::move(r),
                    Diagnostic::error("convert.unsupported",
                                      fmt::format("no conversion from {} to {}",
                                                  doc.value()->format(), out_fmt->name)),
                    in_name);
    }
    r.path = path->describe();
    const std::vector<const OptionSpec*> schema = path->options();
    auto checked =
        check_options(job.options, schema, fmt::format("{} -> {}", in_fmt->name, out_fmt->name));
    if (!checked) return fail(std::move(r), std::move(checked).error(), in_name);
    if (progress.cancelled()) return fail(std::move(r), Progress::cancelled_error(), in_name);

    ConvertOptions opt;
    opt.input_path = job.input;
    opt.output_path = job.output;
    opt.options = std::move(checked).value();
    opt.progress = progress;
    // The input is no longer needed once it is a scene or model: free it before the output is
    // built (largest VMF -> VMAP: the typed map is 1.7x the file).
    std::unique_ptr<Document>& input = doc.value();
    opt.take_input = [&input] { return std::move(input); };
    opt.give_back_memory = job.give_back_memory;
    opt.threads = job.threads;
    auto res = run_path(*path, *input, opt, r.diags);
    if (!res) return fail(std::move(r), std::move(res).error(), in_name);
    r.report = std::move(res.value().report);
    // Freed here if the path converted directly.
    doc.value().reset();
    if (progress.cancelled()) return fail(std::move(r), Progress::cancelled_error(), in_name);
    progress("write", 0.8);
    for (const OutputFile& c : res.value().companions) {
        if (!job.in_place && same_file(c.path, job.input)) {
            return fail(std::move(r),
                        Diagnostic::error("io.would-overwrite-input",
                                          "refusing to overwrite the input file (use --in-place)"),
                        c.path.string());
        }
    }
    // The output goes to its temporary file as it is made (a large VMAP is not held twice) and
    // is put in place after its companions; on any error the temporary is removed.
    auto out = AtomicFile::create(job.output);
    if (!out) return fail(std::move(r), std::move(out).error(), job.output.string());
    auto made = res.value().document->write_to(out.value());
    if (!made) return fail(std::move(r), std::move(made).error(), in_name);
    r.diags.set_file(in_name);
    // Companions first, so a reader of the main output finds them (an OBJ's .mtl, a .gltf's .bin).
    for (const OutputFile& c : res.value().companions) {
        // Companions may live in a folder of their own beside the output (a model's
        // anims/<clip>.smd, as Blender Source Tools lays them out).
        if (c.path.has_parent_path()) {
            std::error_code ec;
            std::filesystem::create_directories(c.path.parent_path(), ec);
            if (ec) {
                return fail(std::move(r),
                            Diagnostic::error("io.mkdir", fmt::format("cannot create the folder "
                                                                      "for a companion file: {}",
                                                                      ec.message())),
                            c.path.parent_path().string());
            }
        }
        if (job.defer_commit) {
            auto f = AtomicFile::create(c.path);
            if (!f) return fail(std::move(r), std::move(f).error(), c.path.string());
            auto w = f.value().write(c.bytes);
            if (!w) return fail(std::move(r), std::move(w).error(), c.path.string());
            r.pending.push_back(std::move(f).value());
            continue;
        }
        auto w = write_file_atomic(c.path, c.bytes);
        if (!w) return fail(std::move(r), std::move(w).error(), c.path.string());
        r.written.push_back(c.path);
    }
    if (job.defer_commit) {
        r.pending.push_back(std::move(out).value());
        return r;
    }
    auto w = out.value().commit();
    if (!w) return fail(std::move(r), std::move(w).error(), job.output.string());
    r.written.insert(r.written.begin(), job.output);
    progress("done", 1);
    return r;
}

void commit_outputs(ConvertJobOutcome& r, const Progress& progress) {
    std::vector<AtomicFile> pending = std::move(r.pending);
    r.pending.clear();
    if (r.error || pending.empty()) return;  // dropped ones: their temporaries are removed
    for (AtomicFile& f : pending) {
        auto w = f.commit();
        if (!w) {
            r = fail(std::move(r), std::move(w).error(), f.path().string());
            return;
        }
        r.written.push_back(f.path());
    }
    // The output (committed last) first, as convert_file lists them.
    if (!r.written.empty()) std::rotate(r.written.begin(), r.written.end() - 1, r.written.end());
    progress("done", 1);
}

}  // namespace lk
