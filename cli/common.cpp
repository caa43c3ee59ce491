#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <numeric>
#include <thread>

#include "cli.hpp"

namespace lk::cli {

void Context::out(std::string_view s) {
    std::lock_guard lock(m_);
    std::fwrite(s.data(), 1, s.size(), io_.out);
}

void Context::err(std::string_view s) {
    std::lock_guard lock(m_);
    std::fwrite(s.data(), 1, s.size(), io_.err);
}

void Context::diagnostic(const Diagnostic& d) {
    err(d.to_string() + "\n");
}

void Context::diagnostics(const Diagnostics& ds) {
    for (const Diagnostic& d : ds.items()) diagnostic(d);
}

void Context::json_line(const Json& j) {
    out(j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n");
}

int exit_code_for(JobFailure f) {
    switch (f) {
        case JobFailure::none:
            return kOk;
        case JobFailure::bad_input:
            return kBadInput;
        case JobFailure::usage:
            return kUsage;
        case JobFailure::io:
            return kIo;
    }
    return kBadInput;
}

int exit_code_for(const Diagnostic& d) {
    if (d.code == "job.cancelled") return kInterrupted;
    return exit_code_for(failure_of(d));
}

ProgressStyle FileArgs::progress(const Context& ctx) const {
    if (quiet) return ProgressStyle::none;
    if (json) return ProgressStyle::json;
    return ctx.io().err_is_terminal ? ProgressStyle::bar : ProgressStyle::none;
}

CLI::App* add_files_command(CLI::App& app, Context& ctx, const std::string& name,
                            const std::string& help, std::function<void(const FileArgs&)> run) {
    auto args = std::make_shared<FileArgs>();
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("files", args->files, "Input files")->required();
    cmd->add_flag("--json", args->json,
                  "One JSON object per line per file (progress as JSON lines on stderr)");
    cmd->add_flag("-q,--quiet", args->quiet, "No progress output");
    cmd->add_option("-j,--jobs", args->jobs, "Parallel jobs (default: all cores)");
    (void)ctx;
    cmd->callback([args, run = std::move(run)] { run(*args); });
    return cmd;
}

namespace {

// Progress on stderr: a bar redrawn in place on a terminal, or JSON lines.
class ProgressView {
public:
    ProgressView(Context& ctx, std::size_t total, ProgressStyle style)
        : ctx_(ctx), total_(total), style_(total > 1 ? style : ProgressStyle::none) {}

    void update(std::size_t done, std::string_view name) {
        if (style_ == ProgressStyle::bar) {
            constexpr int kWidth = 30;
            const int filled = static_cast<int>(kWidth * done / (total_ ? total_ : 1));
            std::string line = "\r[" + std::string(static_cast<std::size_t>(filled), '#') +
                               std::string(static_cast<std::size_t>(kWidth - filled), ' ') + "] " +
                               std::to_string(done) + "/" + std::to_string(total_);
            if (!name.empty()) {
                line += " ";
                line += name.size() > 40 ? name.substr(name.size() - 40) : name;
            }
            // Pad over what the previous, longer line left.
            const std::size_t len = line.size();
            if (len < last_len_) line.append(last_len_ - len, ' ');
            last_len_ = len;
            ctx_.err(line);
        } else if (style_ == ProgressStyle::json) {
            Json j;
            j["progress"] = {{"done", done}, {"total", total_}};
            if (!name.empty()) j["progress"]["file"] = name;
            ctx_.err(j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n");
        }
    }
    void finish() {
        if (style_ == ProgressStyle::bar) ctx_.err("\r" + std::string(last_len_, ' ') + "\r");
    }

private:
    Context& ctx_;
    std::size_t total_;
    ProgressStyle style_;
    std::size_t last_len_ = 0;
};

}  // namespace

std::vector<std::size_t> start_order(std::size_t n,
                                     const std::function<std::uint64_t(std::size_t)>& weight) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (weight) {
        std::vector<std::uint64_t> w(n);
        for (std::size_t i = 0; i < n; ++i) w[i] = weight(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return w[a] > w[b]; });
    }
    return order;
}

unsigned parallel_jobs(unsigned jobs, std::size_t n) {
    if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(std::min<std::size_t>(jobs, n));
}

unsigned reader_threads(unsigned jobs, std::size_t n) {
    return parallel_jobs(jobs, n) > 1 ? 1 : 0;
}

std::uint64_t input_size(const std::string& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<std::uint64_t>(size);
}

void parallel_ordered(Context& ctx, std::size_t n, unsigned jobs,
                      const std::function<void(std::size_t)>& fn,
                      const std::function<void(std::size_t)>& done, ProgressStyle style,
                      const std::function<std::string(std::size_t)>& name,
                      const std::function<std::uint64_t(std::size_t)>& weight,
                      const std::function<void(std::size_t)>& finish) {
    jobs = parallel_jobs(jobs, n);
    ProgressView bar(ctx, n, style);
    auto name_of = [&](std::size_t i) { return name ? name(i) : std::string(); };
    if (jobs <= 1 && (!finish || n <= 1)) {
        for (std::size_t i = 0; i < n && !ctx.cancelled(); ++i) {
            fn(i);
            if (finish) finish(i);
            done(i);
            bar.update(i + 1, name_of(i));
        }
        bar.finish();
        return;
    }
    const std::vector<std::size_t> order = start_order(n, weight);
    // 0 = not started, 1 = running, 2 = finished, 3 = never started (cancelled), 4 = run and
    // waiting for finish().
    std::vector<char> state(n, 0);
    std::deque<std::size_t> unfinished;  // state 4, in the order they ended
    std::mutex m;
    std::condition_variable cv;
    std::size_t next = 0;
    std::vector<std::thread> pool;
    pool.reserve(jobs);
    for (unsigned t = 0; t < jobs; ++t) {
        pool.emplace_back([&] {
            for (;;) {
                std::size_t i;
                {
                    std::unique_lock lock(m);
                    cv.wait(lock, [&] { return unfinished.size() < kMaxUnfinished; });
                    if (next >= n) return;
                    i = order[next++];
                    if (ctx.cancelled()) {
                        state[i] = 3;
                        cv.notify_all();
                        continue;
                    }
                    state[i] = 1;
                }
                fn(i);
                {
                    std::lock_guard lock(m);
                    if (finish) {
                        state[i] = 4;
                        unfinished.push_back(i);
                    } else {
                        state[i] = 2;
                    }
                }
                cv.notify_all();
            }
        });
    }
    for (std::size_t i = 0; i < n; ++i) {
        char s;
        for (;;) {
            std::unique_lock lock(m);
            cv.wait(lock, [&] { return state[i] == 2 || state[i] == 3 || !unfinished.empty(); });
            if (state[i] == 2 || state[i] == 3) {
                s = state[i];
                break;
            }
            const std::size_t j = unfinished.front();
            unfinished.pop_front();
            lock.unlock();
            cv.notify_all();  // a worker may wait for room
            finish(j);
            lock.lock();
            state[j] = 2;
        }
        if (s == 3) continue;
        done(i);
        bar.update(i + 1, name_of(i));
    }
    for (auto& th : pool) th.join();
    bar.finish();
}

bool keeps_small_pages(std::string_view command) {
    return command == "convert" || command == "decompile";
}

bool reads_into_memory(std::string_view command, const FormatHandler* f) {
    if (!f) return true;
    if (f->views_input) return false;
    return !(command == "info" && f->summarize);
}

std::string huge_page_tunables(const ProcessStart& p) {
    if (p.input_bytes < kHugePageInputBytes) return {};
    if (keeps_small_pages(p.command)) return {};
    if (p.opt_out && std::string_view(p.opt_out) == "0") return {};
    if (p.ld_preload && *p.ld_preload) return {};
    if (p.thp_enabled.find("[always]") == std::string_view::npos &&
        p.thp_enabled.find("[madvise]") == std::string_view::npos)
        return {};
    const std::string_view now = p.tunables ? p.tunables : "";
    // Whether `now` (name=value pairs joined by ':') names `key`.
    const auto sets = [&](std::string_view key) {
        for (std::size_t at = 0; at <= now.size();) {
            const std::size_t end = std::min(now.find(':', at), now.size());
            const std::string_view pair = now.substr(at, end - at);
            if (pair.substr(0, pair.find('=')) == key) return true;
            at = end + 1;
        }
        return false;
    };
    if (sets("glibc.malloc.hugetlb")) return {};
    std::string out(now);
    const auto add = [&](std::string_view pair) {
        if (!out.empty()) out += ':';
        out += pair;
    };
    add("glibc.malloc.hugetlb=1");
    if (!sets("glibc.malloc.top_pad")) add("glibc.malloc.top_pad=16777216");
    return out;
}

}  // namespace lk::cli
