#include "cli.hpp"

namespace lk::cli {

void add_info_command(CLI::App& app) {
    add_files_command(
        app, "info", "Summarise files (format detected from content)", [](const FileArgs& a) {
            const std::size_t n = a.files.size();
            std::vector<std::optional<Result<Json>>> results(n);
            int rc = kOk;
            parallel_ordered(
                n, a.jobs,
                [&](std::size_t i) {
                    auto doc = read_document(a.files[i]);
                    if (!doc) {
                        results[i].emplace(std::move(doc).error());
                        return;
                    }
                    Json j;
                    j["file"] = a.files[i];
                    // The summary must outlive the loop: items() only refers to it.
                    const Json info = doc.value()->info();
                    for (auto& [k, v] : info.items()) j[k] = v;
                    results[i].emplace(std::move(j));
                },
                [&](std::size_t i) {
                    auto& r = *results[i];
                    if (!r) {
                        print_diagnostic(r.error());
                        rc = std::max(rc, exit_code_for(r.error()));
                        if (a.json) {
                            Json j;
                            j["file"] = a.files[i];
                            j["error"] = r.error().to_string();
                            std::printf("%s\n", j.dump().c_str());
                        }
                    } else if (a.json) {
                        std::printf(
                            "%s\n",
                            r.value().dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
                    } else {
                        const Json& j = r.value();
                        std::printf("%s\n", j["file"].get<std::string>().c_str());
                        for (auto& [k, v] : j.items()) {
                            if (k == "file") continue;
                            std::printf("  %-20s %s\n", k.c_str(),
                                        v.is_string()
                                            ? v.get<std::string>().c_str()
                                            : v.dump(-1, ' ', false, Json::error_handler_t::replace)
                                                  .c_str());
                        }
                    }
                    results[i].reset();
                },
                a.files.size() > 1);
            exit_status() = rc;
        });
}

}  // namespace lk::cli
