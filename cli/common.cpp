#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "cli.hpp"

namespace lk::cli {

CLI::App* add_files_command(CLI::App& app, const std::string& name, const std::string& help,
                            std::function<void(const FileArgs&)> run) {
    auto args = std::make_shared<FileArgs>();
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("files", args->files, "Input files")->required();
    cmd->add_flag("--json", args->json, "One JSON object per line per file");
    cmd->add_option("-j,--jobs", args->jobs, "Parallel jobs (default: all cores)");
    cmd->callback([args, run = std::move(run)] { run(*args); });
    return cmd;
}

int& exit_status() {
    static int status = kOk;
    return status;
}

void print_diagnostic(const Diagnostic& d) {
    std::fprintf(stderr, "%s\n", d.to_string().c_str());
}

void print_diagnostics(const Diagnostics& ds) {
    for (const Diagnostic& d : ds.items()) print_diagnostic(d);
}

int exit_code_for(const Diagnostic& d) {
    return d.code.rfind("io.", 0) == 0 ? kIo : kBadInput;
}

namespace {

class Progress {
public:
    Progress(std::size_t total, bool enabled) : total_(total), enabled_(enabled) {}
    void update(std::size_t done) {
        if (!enabled_) return;
        constexpr int kWidth = 30;
        const int filled = static_cast<int>(kWidth * done / (total_ ? total_ : 1));
        std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu", filled, "##############################",
                     kWidth - filled, "", done, total_);
        std::fflush(stderr);
    }
    void finish() {
        if (enabled_) std::fprintf(stderr, "\r%*s\r", 50, "");
    }

private:
    std::size_t total_;
    bool enabled_;
};

}  // namespace

void parallel_ordered(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& fn,
                      const std::function<void(std::size_t)>& done, bool progress) {
    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, n));
    Progress bar(n, progress && n > 1 && ::isatty(2));
    if (jobs <= 1) {
        for (std::size_t i = 0; i < n; ++i) {
            fn(i);
            done(i);
            bar.update(i + 1);
        }
        bar.finish();
        return;
    }
    std::vector<char> ready(n, 0);
    std::mutex m;
    std::condition_variable cv;
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> pool;
    pool.reserve(jobs);
    for (unsigned t = 0; t < jobs; ++t) {
        pool.emplace_back([&] {
            for (;;) {
                const std::size_t i = next.fetch_add(1);
                if (i >= n) return;
                fn(i);
                {
                    std::lock_guard lock(m);
                    ready[i] = 1;
                }
                cv.notify_all();
            }
        });
    }
    for (std::size_t i = 0; i < n; ++i) {
        {
            std::unique_lock lock(m);
            cv.wait(lock, [&] { return ready[i] != 0; });
        }
        done(i);
        bar.update(i + 1);
    }
    for (auto& th : pool) th.join();
    bar.finish();
}

Result<void> write_output(const std::filesystem::path& out, ByteSpan bytes,
                          const std::filesystem::path& input, bool in_place) {
    if (!in_place && !input.empty() && same_file(out, input)) {
        return Diagnostic::error("io.would-overwrite-input",
                                 "refusing to overwrite the input file (use --in-place)")
            .in_file(out.string());
    }
    return write_file_atomic(out, bytes);
}

}  // namespace lk::cli
