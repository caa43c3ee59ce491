// The levelkit command-line tool as a library: option parsing and printing over the format-erased
// API (levelkit/any). Commands hold no state beyond one run's Context, so the whole tool runs
// in-process (tests call run() with memory streams).
#pragma once

#include <CLI/CLI.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/any/document.hpp"
#include "levelkit/any/jobs.hpp"

namespace lk::cli {

// Exit codes (DESIGN.md); 130 when interrupted (Ctrl-C / SIGTERM), as shells report it.
enum Exit : int {
    kOk = 0,
    kProblems = 1,  // a check or conversion found problems
    kBadInput = 2,  // an input could not be read/parsed
    kUsage = 3,
    kIo = 4,
    kInterrupted = 130,
};

// Where a run prints, and how it is stopped.
struct Io {
    std::FILE* out = stdout;
    std::FILE* err = stderr;
    bool err_is_terminal = false;  // progress bars only on a terminal
    // Set from outside (a signal handler) to stop: running jobs finish or stop between stages
    // and nothing partial is written.
    const std::atomic<bool>* cancel = nullptr;
};

// Runs the tool with `args` (args[0] is the program name) and returns the exit code.
int run(const std::vector<std::string>& args, const Io& io);

// --- shared by the commands -------------------------------------------------------------

// One run's state: where to print, the exit status, output serialisation between threads.
class Context {
public:
    explicit Context(const Io& io) : io_(io) {}

    const Io& io() const { return io_; }
    bool cancelled() const { return io_.cancel && io_.cancel->load(); }

    // The exit status only grows (the worst outcome wins).
    void fail(int code) {
        std::lock_guard lock(m_);
        status_ = std::max(status_, code);
    }
    int status() const { return status_; }

    void out(std::string_view s);
    void err(std::string_view s);
    // `file:line:col: severity: message [path]` on stderr.
    void diagnostic(const Diagnostic& d);
    void diagnostics(const Diagnostics& ds);
    // One JSON object on one line of stdout.
    void json_line(const Json& j);

private:
    Io io_;
    int status_ = kOk;
    std::mutex m_;
};

// The exit code for a failed job or read.
int exit_code_for(JobFailure f);
int exit_code_for(const Diagnostic& d);

// How a many-files command reports progress on stderr: a bar on a terminal (text mode), JSON
// lines with --json, nothing with --quiet.
enum class ProgressStyle : std::uint8_t { none, bar, json };

// Runs fn(i) for i in [0, n) on up to `jobs` threads (0 = all cores) and calls done(i) in index
// order on the calling thread as results become available. Stops starting new items when the
// run is cancelled (done() is then not called for items never started).
// With `weight` (e.g. the input's size), the heaviest items start first so that no large item
// is left running alone at the end.
// With `finish`, finish(i) runs on the calling thread as each item ends, in the order they end
// and before done(i), while the workers go on (e.g. waiting for a file to reach the disk); the
// items then run on worker threads even when `jobs` is 1, and the workers stop taking new items
// while kMaxUnfinished are waiting for it.
void parallel_ordered(Context& ctx, std::size_t n, unsigned jobs,
                      const std::function<void(std::size_t)>& fn,
                      const std::function<void(std::size_t)>& done, ProgressStyle style,
                      const std::function<std::string(std::size_t)>& name = {},
                      const std::function<std::uint64_t(std::size_t)>& weight = {},
                      const std::function<void(std::size_t)>& finish = {});
inline constexpr std::size_t kMaxUnfinished = 16;
// The order parallel_ordered starts items in: by descending weight (ties in the given order),
// or as given without one.
std::vector<std::size_t> start_order(std::size_t n,
                                     const std::function<std::uint64_t(std::size_t)>& weight);
// The number of items parallel_ordered runs at once for `jobs` (0 = one per core).
unsigned parallel_jobs(unsigned jobs, std::size_t n);
// Threads each of those items' reader may use: all cores when items run one at a time, else 1.
unsigned reader_threads(unsigned jobs, std::size_t n);
// An input's size for parallel_ordered's weight (0 if it cannot be read).
std::uint64_t input_size(const std::string& path);

// The arguments every many-files command takes: FILE... [--json] [-j N] [--quiet].
struct FileArgs {
    std::vector<std::string> files;
    bool json = false;
    bool quiet = false;
    unsigned jobs = 0;
    ProgressStyle progress(const Context& ctx) const;
};
CLI::App* add_files_command(CLI::App& app, Context& ctx, const std::string& name,
                            const std::string& help, std::function<void(const FileArgs&)> run);

// What the executable knows as it starts, before the tool runs.
struct ProcessStart {
    std::string_view command;  // argv[1]
    // The sizes of the regular files named by the arguments that the command reads into memory
    // (reads_into_memory).
    std::uint64_t input_bytes = 0;
    const char* tunables = nullptr;    // GLIBC_TUNABLES
    std::string_view thp_enabled;      // /sys/kernel/mm/transparent_hugepage/enabled
    const char* ld_preload = nullptr;  // LD_PRELOAD
    const char* opt_out = nullptr;     // LEVELKIT_HUGE_PAGES
};
// The GLIBC_TUNABLES value the executable runs again under so that glibc's malloc backs the heap
// with transparent huge pages (glibc.malloc.hugetlb=1, and a 16 MiB top pad so that the heap
// grows by whole huge pages), or "" to run as it is. Reading a large map touches tens of
// megabytes of fresh heap, and on a virtual machine each 4 KiB page's first touch can cost
// about 12 us (half the time of `levelkit info` on a 4 MB map); running again costs a few ms, so it
// is done only for inputs of kHugePageInputBytes or more. Not for conversions: a lone one
// hands its input's memory back as it goes, which huge pages would keep, and a batch reuses
// its heap from file to file (huge pages gained it 4% for 15% more peak memory). "" also when
// THP is [never] (or the file is empty: no THP), when GLIBC_TUNABLES already sets
// glibc.malloc.hugetlb (the user's choice, and what stops a second run), when LD_PRELOAD is
// set (another allocator or a tool such as valgrind owns the process), or when
// LEVELKIT_HUGE_PAGES is "0".
inline constexpr std::uint64_t kHugePageInputBytes = std::uint64_t{1} << 20;
std::string huge_page_tunables(const ProcessStart& p);
// The commands that keep small pages whatever their inputs (the conversions).
bool keeps_small_pages(std::string_view command);
// Whether `command` builds the document of an input of format `f` (found from its extension;
// null: unknown, found from the content later) in memory: not for formats whose documents view
// the mapped file (FormatHandler::views_input), nor for `info` where the format counts what it
// summarises without keeping it (FormatHandler::summarize: a VMF).
bool reads_into_memory(std::string_view command, const FormatHandler* f);

// Registration of subcommands (each defined in its own cmd_*.cpp).
void add_info_command(CLI::App& app, Context& ctx);
void add_roundtrip_command(CLI::App& app, Context& ctx);
void add_validate_command(CLI::App& app, Context& ctx);
void add_convert_command(CLI::App& app, Context& ctx);
void add_dump_command(CLI::App& app, Context& ctx);
void add_formats_command(CLI::App& app, Context& ctx);
void add_geometry_command(CLI::App& app, Context& ctx);
void add_bsp_command(CLI::App& app, Context& ctx);
void add_wmb_command(CLI::App& app, Context& ctx);

}  // namespace lk::cli
