#include "cli.hpp"

namespace lk::cli {

void add_info_command(CLI::App& app) {
    struct Opts {
        std::vector<std::string> files;
        bool json = false;
        unsigned jobs = 0;
    };
    auto opts = std::make_shared<Opts>();
    CLI::App* cmd = app.add_subcommand("info", "Summarise files (format detected from content)");
    cmd->add_option("files", opts->files, "Input files")->required();
    cmd->add_flag("--json", opts->json, "One JSON object per line per file");
    cmd->add_option("-j,--jobs", opts->jobs, "Parallel jobs (default: all cores)");
    cmd->callback([opts] {
        const std::size_t n = opts->files.size();
        std::vector<std::optional<Result<Json>>> results(n);
        int rc = kOk;
        parallel_ordered(
            n, opts->jobs,
            [&](std::size_t i) {
                auto doc = read_document(opts->files[i]);
                if (!doc) {
                    results[i].emplace(std::move(doc).error());
                    return;
                }
                Json j;
                j["file"] = opts->files[i];
                const Json info = doc.value()->info();
                for (auto& [k, v] : info.items()) j[k] = v;
                results[i].emplace(std::move(j));
            },
            [&](std::size_t i) {
                auto& r = *results[i];
                if (!r) {
                    print_diagnostic(r.error());
                    rc = std::max(rc, exit_code_for(r.error()));
                    if (opts->json) {
                        Json j;
                        j["file"] = opts->files[i];
                        j["error"] = r.error().to_string();
                        std::printf("%s\n", j.dump().c_str());
                    }
                } else if (opts->json) {
                    std::printf(
                        "%s\n",
                        r.value().dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
                } else {
                    const Json& j = r.value();
                    std::printf("%s\n", j["file"].get<std::string>().c_str());
                    for (auto& [k, v] : j.items()) {
                        if (k == "file") continue;
                        std::printf(
                            "  %-20s %s\n", k.c_str(),
                            v.is_string()
                                ? v.get<std::string>().c_str()
                                : v.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
                    }
                }
                results[i].reset();
            },
            opts->files.size() > 1);
        exit_status() = rc;
    });
}

}  // namespace lk::cli
