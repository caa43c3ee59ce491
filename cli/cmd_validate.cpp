#include <fmt/format.h>

#include "cli.hpp"

namespace lk::cli {

void add_validate_command(CLI::App& app, Context& ctx) {
    add_files_command(
        app, ctx, "validate",
        "Check files; exit 0 if clean, 1 if problems were found, 2 if unreadable",
        [&ctx](const FileArgs& a) {
            const std::size_t n = a.files.size();
            struct Out {
                std::optional<Diagnostic> read_error;
                Diagnostics diags;
            };
            std::vector<Out> res(n);
            parallel_ordered(
                ctx, n, a.jobs,
                [&](std::size_t i) {
                    auto doc = read_document(a.files[i]);
                    if (!doc) {
                        res[i].read_error = std::move(doc).error();
                        return;
                    }
                    res[i].diags.add_all(doc.value()->read_diagnostics());
                    doc.value()->validate(res[i].diags);
                    res[i].diags.set_file(a.files[i]);
                },
                [&](std::size_t i) {
                    Out& o = res[i];
                    Json j;
                    j["file"] = a.files[i];
                    if (o.read_error) {
                        ctx.diagnostic(*o.read_error);
                        ctx.fail(exit_code_for(*o.read_error));
                        j["result"] = "unreadable";
                        j["error"] = o.read_error->to_string();
                    } else {
                        const std::size_t errors = o.diags.count(Severity::error);
                        const std::size_t warnings = o.diags.count(Severity::warning);
                        if (!a.json) ctx.diagnostics(o.diags);
                        if (errors) ctx.fail(kProblems);
                        j["result"] = errors ? "problems" : "ok";
                        j["errors"] = errors;
                        j["warnings"] = warnings;
                        if (a.json) {
                            Json arr = Json::array();
                            for (const auto& d : o.diags.items()) arr.push_back(d.to_string());
                            j["diagnostics"] = std::move(arr);
                        } else {
                            ctx.out(fmt::format("{}: {} ({} error{}, {} warning{})\n", a.files[i],
                                                errors ? "problems" : "ok", errors,
                                                errors == 1 ? "" : "s", warnings,
                                                warnings == 1 ? "" : "s"));
                        }
                    }
                    if (a.json) ctx.json_line(j);
                    res[i] = Out{};
                },
                a.progress(ctx), [&](std::size_t i) { return a.files[i]; });
        });
}

}  // namespace lk::cli
