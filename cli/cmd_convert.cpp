#include <fmt/format.h>

#include <map>

#include "cli.hpp"
#include "levelkit/core/text.hpp"

namespace lk::cli {

namespace {

struct ConvertArgs {
    std::vector<std::string> files;
    std::string out_dir;
    std::string to;
    bool json = false;
    bool quiet = false;
    bool in_place = false;
    unsigned jobs = 0;
    std::vector<std::string> sets;
    Options options;  // from the generated --NAME options and --set NAME=VALUE
};

struct Job {
    std::filesystem::path in, out;
};

// Every option any conversion step declares, once by name (the first declaration's type and
// help), so each becomes a --NAME of `convert`.
std::vector<const OptionSpec*> all_option_specs() {
    std::vector<const OptionSpec*> out;
    auto add = [&](const std::vector<OptionSpec>& specs) {
        for (const OptionSpec& s : specs) {
            const bool seen = std::any_of(out.begin(), out.end(),
                                          [&](const OptionSpec* o) { return o->name == s.name; });
            if (!seen) out.push_back(&s);
        }
    };
    for (const FormatHandler* f : all_formats()) {
        add(f->scene.to_options);
        add(f->scene.from_options);
        add(f->model.to_options);
        add(f->model.from_options);
    }
    for (const ConverterHandler* c : all_converters()) add(c->options);
    return out;
}

// The options of every path into each output format, for `convert --help`.
std::string options_by_output() {
    std::map<std::string, std::map<std::string, std::vector<std::string>>> by_out;
    for (const ConversionPath& p : all_paths()) {
        if (p.via == ConversionPath::Via::same) continue;
        auto& by_in = by_out[std::string(p.to->name)];
        auto& names = by_in[std::string(p.from->name)];
        for (const OptionSpec* o : p.options()) names.push_back("--" + std::string(o->name));
    }
    std::string text = "\nOptions by conversion (output format: input formats: options):\n";
    for (const auto& [out, by_in] : by_out) {
        text += "  to " + out + ":\n";
        // Inputs with the same options share a line.
        std::map<std::vector<std::string>, std::vector<std::string>> groups;
        for (const auto& [in, names] : by_in) groups[names].push_back(in);
        for (const auto& [names, ins] : groups) {
            std::string from;
            for (const std::string& i : ins) from += (from.empty() ? "" : ", ") + i;
            std::string opts;
            for (const std::string& n : names) opts += (opts.empty() ? "" : " ") + n;
            text += fmt::format("    from {}: {}\n", from, opts.empty() ? "(none)" : opts);
        }
    }
    return text;
}

class JobProgress {
public:
    JobProgress(Context& ctx, ProgressStyle style, std::string name)
        : ctx_(ctx), style_(style), name_(std::move(name)) {}

    Progress hook() {
        Progress p;
        p.cancel = ctx_.io().cancel;
        if (style_ == ProgressStyle::none) return p;
        p.report = [this](std::string_view stage, double fraction) {
            if (style_ == ProgressStyle::json) {
                Json j;
                j["progress"] = {{"file", name_}, {"stage", stage}, {"fraction", fraction}};
                ctx_.err(j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n");
            } else {
                std::string line = fmt::format("\r{} [{:3.0f}%] {}", name_, fraction * 100, stage);
                const std::size_t len = line.size();
                if (len < last_) line.append(last_ - len, ' ');
                last_ = len;
                ctx_.err(line);
            }
        };
        return p;
    }
    ~JobProgress() {
        if (style_ == ProgressStyle::bar && last_) ctx_.err("\r" + std::string(last_, ' ') + "\r");
    }

private:
    Context& ctx_;
    ProgressStyle style_;
    std::string name_;
    std::size_t last_ = 0;
};

void run_convert(Context& ctx, ConvertArgs& a) {
    for (const std::string& s : a.sets) {
        const auto eq = s.find('=');
        if (eq == std::string::npos) {
            a.options.set(s, "1");
        } else {
            a.options.set(s.substr(0, eq), s.substr(eq + 1));
        }
    }
    std::vector<Job> jobs;
    if (!a.out_dir.empty()) {
        // The directory is made when missing, as for the files a conversion writes beside its
        // output (an SMD's anims/).
        std::error_code ec;
        std::filesystem::create_directories(a.out_dir, ec);
        if (ec) {
            ctx.err(fmt::format("error: cannot create the output directory {}: {}\n", a.out_dir,
                                ec.message()));
            ctx.fail(kIo);
            return;
        }
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
            ctx.err("error: convert takes IN OUT, or many inputs with --out-dir DIR\n");
            ctx.fail(kUsage);
            return;
        }
        jobs.push_back({a.files[0], a.files[1]});
    }
    const ProgressStyle style = a.quiet                    ? ProgressStyle::none
                                : a.json                   ? ProgressStyle::json
                                : ctx.io().err_is_terminal ? ProgressStyle::bar
                                                           : ProgressStyle::none;
    std::vector<ConvertJobOutcome> res(jobs.size());
    const unsigned threads = reader_threads(a.jobs, jobs.size());
    parallel_ordered(
        ctx, jobs.size(), a.jobs,
        [&](std::size_t i) {
            ConvertJob job;
            job.input = jobs[i].in;
            job.output = jobs[i].out;
            job.options = a.options;
            job.in_place = a.in_place;
            job.threads = threads;
            job.give_back_memory = jobs.size() == 1;
            // A batch puts each output in place on this thread (finish, below) while the
            // workers convert the next inputs: the wait for the disk overlaps the work.
            job.defer_commit = jobs.size() > 1;
            // One job shows its own stages; many show the bar of finished files.
            JobProgress jp(ctx, jobs.size() == 1 ? style : ProgressStyle::none,
                           jobs[i].in.string());
            res[i] = convert_file(job, jp.hook());
        },
        [&](std::size_t i) {
            ConvertJobOutcome& r = res[i];
            if (!a.quiet || r.error) ctx.diagnostics(r.diags);
            if (r.error) ctx.diagnostic(*r.error);
            int rc = r.error ? exit_code_for(*r.error) : (r.problems() ? kProblems : kOk);
            if (a.json) {
                Json j;
                j["file"] = jobs[i].in.string();
                j["output"] = jobs[i].out.string();
                j["result"] = r.error ? "failed" : (rc == kProblems ? "problems" : "ok");
                if (!r.path.empty()) j["path"] = r.path;
                if (r.error) j["error"] = r.error->to_string();
                if (!r.report.is_null()) j["report"] = r.report;
                if (r.written.size() > 1) {
                    Json w = Json::array();
                    for (const auto& p : r.written) w.push_back(p.string());
                    j["written"] = std::move(w);
                }
                ctx.json_line(j);
            } else if (!r.error && !r.report.is_null() && !a.quiet) {
                ctx.err(fmt::format("{} -> {}: {}\n", jobs[i].in.string(), jobs[i].out.string(),
                                    r.report.dump(-1, ' ', false, Json::error_handler_t::replace)));
            }
            ctx.fail(rc);
            r = ConvertJobOutcome{};
        },
        style, [&](std::size_t i) { return jobs[i].in.string(); },
        [&](std::size_t i) { return input_size(jobs[i].in.string()); },
        [&](std::size_t i) { commit_outputs(res[i]); });
}

CLI::App* add_convert_like(CLI::App& app, Context& ctx, const std::string& name,
                           const std::string& help) {
    auto a = std::make_shared<ConvertArgs>();
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("files", a->files, "IN OUT, or IN... with --out-dir")->required();
    cmd->add_option("-o,--out-dir", a->out_dir,
                    "Convert many inputs into this directory (made if missing)");
    cmd->add_option("--to", a->to, "Output extension with --out-dir (default: the input's)");
    cmd->add_flag("--json", a->json,
                  "Print a JSON report per file on stdout (progress as JSON lines on stderr)");
    cmd->add_flag("-q,--quiet", a->quiet, "No progress and no reports on stderr");
    cmd->add_flag("--in-place", a->in_place, "Allow the output to overwrite the input");
    cmd->add_option("-j,--jobs", a->jobs, "Parallel jobs (default: all cores)");
    cmd->add_option("--set", a->sets,
                    "Converter option NAME=VALUE (repeatable; same names as "
                    "the --NAME options)")
        ->expected(1)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    // One --NAME per option a conversion step declares; which apply depends on the path, and
    // convert_file rejects the others with the list of valid ones.
    for (const OptionSpec* s : all_option_specs()) {
        const std::string flag = "--" + std::string(s->name);
        const std::string key(s->name);
        std::string desc(s->help);
        if (!s->default_value.empty() && s->type != OptionSpec::Type::flag) {
            desc += fmt::format(" (default {})", s->default_value);
        }
        if (s->type == OptionSpec::Type::flag) {
            cmd->add_flag_function(
                flag, [a, key](std::int64_t n) { a->options.set(key, n > 0 ? "1" : "0"); }, desc);
        } else {
            cmd->add_option_function<std::string>(
                   flag, [a, key](const std::string& v) { a->options.set(key, v); }, desc)
                ->type_name(s->type == OptionSpec::Type::path ? "PATH" : "VALUE");
        }
    }
    cmd->footer(options_by_output());
    cmd->callback([a, &ctx] {
        run_convert(ctx, *a);
        *a = ConvertArgs{};
    });
    return cmd;
}

}  // namespace

void add_convert_command(CLI::App& app, Context& ctx) {
    add_convert_like(app, ctx, "convert", "Convert IN to OUT (format from OUT's extension)");
    add_convert_like(app, ctx, "decompile", "Alias of convert (e.g. map.bsp map.vmf)");

    // `render MAP -o map.png`: convert to the picture format, with its options up front.
    struct RenderArgs {
        std::string file, out, view = "top";
        int size = 1024;
        bool tools = false, skybox = false, json = false, quiet = false;
    };
    auto r = std::make_shared<RenderArgs>();
    CLI::App* cmd = app.add_subcommand(
        "render",
        "A picture of a map or model: top-down overview (with its overview .txt) or isometric");
    cmd->add_option("map", r->file, "Input map or model (any format levelkit reads)")->required();
    cmd->add_option("-o,--output", r->out, "Output .png (default: the map's name, in .)");
    cmd->add_option("--view", r->view, "top (default) or iso")
        ->check(CLI::IsMember({"top", "iso"}));
    cmd->add_option("--size", r->size, "Width in pixels (default 1024)")
        ->check(CLI::Range(16, 16384));
    cmd->add_flag("--tools", r->tools, "Draw faces with tool materials too");
    cmd->add_flag("--skybox", r->skybox, "Draw the 3D skybox too");
    cmd->add_flag("--json", r->json, "Print a JSON report on stdout");
    cmd->add_flag("-q,--quiet", r->quiet, "No report on stderr");
    cmd->callback([r, &ctx] {
        ConvertArgs a;
        std::filesystem::path out = r->out;
        if (out.empty()) out = std::filesystem::path(r->file).stem().string() + ".png";
        a.files = {r->file, out.string()};
        a.json = r->json;
        a.quiet = r->quiet;
        a.options.set("view", r->view);
        a.options.set("size", std::to_string(r->size));
        if (r->tools) a.options.set("tools", "1");
        if (r->skybox) a.options.set("skybox", "1");
        run_convert(ctx, a);
    });
}

}  // namespace lk::cli
