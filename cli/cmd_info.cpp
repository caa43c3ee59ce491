#include <fmt/format.h>

#include "cli.hpp"

namespace lk::cli {

void add_info_command(CLI::App& app, Context& ctx) {
    add_files_command(
        app, ctx, "info", "Summarise files (format detected from content)",
        [&ctx](const FileArgs& a) {
            const std::size_t n = a.files.size();
            std::vector<std::optional<Result<Json>>> results(n);
            const unsigned threads = reader_threads(a.jobs, n);
            parallel_ordered(
                ctx, n, a.jobs,
                [&](std::size_t i) {
                    // The typed form only, counted without keeping it where the format
                    // can (a VMF's solids and entities, piece by piece).
                    auto info = file_info(a.files[i], threads);
                    if (!info) {
                        results[i].emplace(std::move(info).error());
                        return;
                    }
                    Json j;
                    j["file"] = a.files[i];
                    for (auto& [k, v] : info->items()) j[k] = v;
                    results[i].emplace(std::move(j));
                },
                [&](std::size_t i) {
                    auto& r = *results[i];
                    if (!r) {
                        ctx.diagnostic(r.error());
                        ctx.fail(exit_code_for(r.error()));
                        if (a.json) {
                            Json j;
                            j["file"] = a.files[i];
                            j["error"] = r.error().to_string();
                            ctx.json_line(j);
                        }
                    } else if (a.json) {
                        ctx.json_line(r.value());
                    } else {
                        const Json& j = r.value();
                        std::string text = j["file"].get<std::string>() + "\n";
                        for (auto& [k, v] : j.items()) {
                            if (k == "file") continue;
                            text += fmt::format(
                                "  {:<20} {}\n", k,
                                v.is_string()
                                    ? v.get<std::string>()
                                    : v.dump(-1, ' ', false, Json::error_handler_t::replace));
                        }
                        ctx.out(text);
                    }
                    results[i].reset();
                },
                a.progress(ctx), [&](std::size_t i) { return a.files[i]; },
                [&](std::size_t i) { return input_size(a.files[i]); });
        });
}

}  // namespace lk::cli
