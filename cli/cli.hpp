// Shared pieces of the levelkit command-line tool. Commands parse options, call the library
// and print; no format logic lives here.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "levelkit/any/document.hpp"

namespace lk::cli {

// Exit codes (DESIGN.md).
enum Exit : int {
    kOk = 0,
    kProblems = 1,  // a check or conversion found problems
    kBadInput = 2,  // an input could not be read/parsed
    kUsage = 3,
    kIo = 4,
};

// Prints a diagnostic in `file:line:col: severity: message [path]` form to stderr.
void print_diagnostic(const Diagnostic& d);
void print_diagnostics(const Diagnostics& ds);
// Exit code for a failed read (I/O vs bad content).
int exit_code_for(const Diagnostic& d);

// Runs fn(i) for i in [0, n) on up to `jobs` threads (0 = all cores) and calls done(i) in index
// order on the calling thread as results become available. Shows a progress bar on stderr when
// it is a terminal and n > 1.
void parallel_ordered(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& fn,
                      const std::function<void(std::size_t)>& done, bool progress);

// Writes bytes to `out` atomically; refuses to overwrite `input` unless in_place.
Result<void> write_output(const std::filesystem::path& out, ByteSpan bytes,
                          const std::filesystem::path& input, bool in_place);

// The arguments every many-files command takes: FILE... [--json] [-j N].
struct FileArgs {
    std::vector<std::string> files;
    bool json = false;
    unsigned jobs = 0;
};
// Adds a subcommand with those arguments; its callback receives them.
CLI::App* add_files_command(CLI::App& app, const std::string& name, const std::string& help,
                            std::function<void(const FileArgs&)> run);

// Registration of subcommands (each defined in its own cmd_*.cpp).
void add_info_command(CLI::App& app);
void add_roundtrip_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_dump_command(CLI::App& app);
void add_formats_command(CLI::App& app);
void add_geometry_command(CLI::App& app);
void add_bsp_command(CLI::App& app);

// The exit code a subcommand's callback sets.
int& exit_status();

}  // namespace lk::cli
