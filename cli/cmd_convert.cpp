#include <atomic>

#include "cli.hpp"
#include "levelkit/core/text.hpp"

namespace lk::cli {

namespace {

struct ConvertArgs {
    std::vector<std::string> files;
    std::string out_dir;
    std::string to;
    bool json = false;
    bool in_place = false;
    unsigned jobs = 0;
    ConvertOptions opt;
    std::vector<std::string> sets;
};

struct Job {
    std::filesystem::path in, out;
};

struct JobResult {
    int rc = kOk;
    std::optional<Diagnostic> error;
    Diagnostics diags;
    Json report;
};

JobResult run_job(const Job& job, const ConvertArgs& a) {
    JobResult r;
    auto fail = [&](Diagnostic d, int code) {
        r.error = std::move(d);
        r.rc = code;
        return r;
    };
    const FormatHandler* out_fmt = format_for_extension(job.out);
    if (!out_fmt) {
        return fail(Diagnostic::error("convert.unknown-output",
                                      "cannot tell the output format from the file name (known "
                                      "extensions: see `levelkit formats`)")
                        .in_file(job.out.string()),
                    kUsage);
    }
    auto doc = read_document(job.in);
    if (!doc) {
        Diagnostic d = std::move(doc).error();
        const int code = exit_code_for(d);
        return fail(std::move(d), code);
    }
    r.diags.add_all(doc.value()->read_diagnostics());
    ConvertOptions opt = a.opt;
    opt.input_path = job.in;
    opt.output_path = job.out;
    const ConverterHandler* conv = find_converter(doc.value()->format(), out_fmt->name);
    Bytes bytes;
    if (conv) {
        auto res = conv->run(*doc.value(), opt, r.diags);
        if (!res) {
            Diagnostic d = std::move(res).error();
            if (d.file.empty()) d.file = job.in.string();
            return fail(std::move(d), kBadInput);
        }
        r.report = std::move(res.value().report);
        auto w = res.value().document->write();
        if (!w) return fail(std::move(w).error(), kBadInput);
        bytes = std::move(w).value();
    } else if (doc.value()->format() == out_fmt->name) {
        auto w = doc.value()->write();
        if (!w) return fail(std::move(w).error(), kBadInput);
        bytes = std::move(w).value();
    } else {
        return fail(
            Diagnostic::error("convert.unsupported", std::string("no conversion from ") +
                                                         std::string(doc.value()->format()) +
                                                         " to " + std::string(out_fmt->name))
                .in_file(job.in.string()),
            kUsage);
    }
    r.diags.set_file(job.in.string());
    auto wr = write_output(job.out, bytes, job.in, a.in_place);
    if (!wr) return fail(std::move(wr).error(), kIo);
    if (r.diags.has_errors()) r.rc = kProblems;
    return r;
}

void run_convert(const ConvertArgs& a) {
    std::vector<Job> jobs;
    if (!a.out_dir.empty()) {
        for (const std::string& f : a.files) {
            std::filesystem::path in(f);
            std::filesystem::path out = std::filesystem::path(a.out_dir) / in.filename();
            if (!a.to.empty()) {
                std::string ext = a.to;
                if (ext[0] != '.') ext.insert(0, ".");
                out.replace_extension(ext);
            }
            jobs.push_back({in, out});
        }
    } else {
        if (a.files.size() != 2) {
            std::fprintf(stderr,
                         "error: convert takes IN OUT, or many inputs with --out-dir DIR\n");
            exit_status() = kUsage;
            return;
        }
        jobs.push_back({a.files[0], a.files[1]});
    }
    std::vector<JobResult> res(jobs.size());
    int rc = kOk;
    parallel_ordered(
        jobs.size(), a.jobs, [&](std::size_t i) { res[i] = run_job(jobs[i], a); },
        [&](std::size_t i) {
            JobResult& r = res[i];
            print_diagnostics(r.diags);
            if (r.error) print_diagnostic(*r.error);
            if (a.json) {
                Json j;
                j["file"] = jobs[i].in.string();
                j["output"] = jobs[i].out.string();
                j["result"] = r.error ? "failed" : (r.rc == kProblems ? "problems" : "ok");
                if (r.error) j["error"] = r.error->to_string();
                if (!r.report.is_null()) j["report"] = r.report;
                std::printf("%s\n", j.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
            } else if (!r.error && !r.report.is_null()) {
                std::fprintf(stderr, "%s -> %s: %s\n", jobs[i].in.c_str(), jobs[i].out.c_str(),
                             r.report.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
            }
            rc = std::max(rc, r.rc);
            res[i] = JobResult{};
        },
        jobs.size() > 1);
    exit_status() = rc;
}

CLI::App* add_convert_like(CLI::App& app, const std::string& name, const std::string& help) {
    auto a = std::make_shared<ConvertArgs>();
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("files", a->files, "IN OUT, or IN... with --out-dir")->required();
    cmd->add_option("-o,--out-dir", a->out_dir, "Convert many inputs into this directory");
    cmd->add_option("--to", a->to, "Output extension with --out-dir (default: the input's)");
    cmd->add_flag("--json", a->json, "Print a JSON report per file on stdout");
    cmd->add_flag("--in-place", a->in_place, "Allow the output to overwrite the input");
    cmd->add_option("-j,--jobs", a->jobs, "Parallel jobs (default: all cores)");
    cmd->add_option("--encoding", a->opt.encoding,
                    "DMX/VMAP output encoding, e.g. keyvalues2:4, binary:9");
    cmd->add_option("--format", a->opt.dmx_format,
                    "DMX output format name:version (default: keep)");
    cmd->add_flag("--compress", a->opt.compress, "BSP: LZMA-compress lumps");
    cmd->add_flag("--decompress", a->opt.decompress, "BSP: store lumps uncompressed");
    cmd->add_option("--entities", a->opt.entities_file,
                    "BSP: replace the entity lump with this text file");
    cmd->add_flag("--no-detail-merge", a->opt.no_detail_merge,
                  "BSP->VMF: keep each detail brush as its own func_detail");
    cmd->add_flag("--faces", a->opt.faces_mode, "BSP->VMF: one thin brush per original face");
    cmd->add_flag("--no-props", a->opt.no_props, "BSP->VMF: skip static props");
    cmd->add_flag("--no-overlays", a->opt.no_overlays, "BSP->VMF: skip overlays");
    cmd->add_flag("--collapse-instances", a->opt.collapse_instances,
                  "VMF->VMAP: merge func_instance maps into the output");
    cmd->add_option("--set", a->sets, "Extra converter option key=value (repeatable)")
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->callback([a] {
        for (const std::string& s : a->sets) {
            const auto eq = s.find('=');
            if (eq == std::string::npos) {
                a->opt.extra[s] = "1";
            } else {
                a->opt.extra[s.substr(0, eq)] = s.substr(eq + 1);
            }
        }
        run_convert(*a);
    });
    return cmd;
}

}  // namespace

void add_convert_command(CLI::App& app) {
    add_convert_like(app, "convert", "Convert IN to OUT (format from OUT's extension)");
    add_convert_like(app, "decompile", "Alias of convert (e.g. map.bsp map.vmf)");
}

}  // namespace lk::cli
