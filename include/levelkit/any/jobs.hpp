// Whole jobs on files, as the CLI and the Python package run them: read an input (format from
// its content), convert it along the graph to the format its output name implies, and write the
// result and its companion files atomically. Errors are classified so each shell can map them
// (exit codes, exceptions) the same way.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "levelkit/any/document.hpp"
#include "levelkit/core/file.hpp"

namespace lk {

// What went wrong with a job, for exit codes (DESIGN.md: 2 bad input, 3 usage, 4 I/O).
enum class JobFailure : std::uint8_t { none, bad_input, usage, io };

// The class of a diagnostic's code ("io.*" I/O, "option.*" and "usage.*" usage, else input).
JobFailure failure_of(const Diagnostic& d);

struct ConvertJob {
    std::filesystem::path input;
    std::filesystem::path output;
    Options options;  // unchecked: convert_file checks them against the path's schema
    // The output format; null: from the output's extension.
    const FormatHandler* output_format = nullptr;
    bool in_place = false;  // allow the output to replace the input
    // Threads the job may use: 0, one per core (the reader's ReadOptions::threads, a VMAP's
    // packing thread); 1, its own only.
    unsigned threads = 0;
    // Memory freed as the job goes is handed back to the system (a lone job: lower peak), not
    // kept for the next job on the thread (false: a batch, which would fault it back in).
    bool give_back_memory = true;
    // Leave the written files in ConvertJobOutcome::pending for commit_outputs() instead of
    // putting them in place here: a batch makes each file durable (fsync) on another thread
    // while the next conversion runs.
    bool defer_commit = false;
};

struct ConvertJobOutcome {
    std::optional<Diagnostic> error;  // the failure, if any
    JobFailure failure = JobFailure::none;
    Diagnostics diags;  // warnings (and error-severity findings: the job's "problems")
    Json report;
    std::string path;                            // the path taken, "bsp -> scene -> vmap"
    std::vector<std::filesystem::path> written;  // output first, then companions
    // With ConvertJob::defer_commit: the companions, then the output, written to their
    // temporary files and not yet in place (removed if the outcome is dropped uncommitted).
    std::vector<AtomicFile> pending;
    bool ok() const { return !error; }
    bool problems() const { return diags.has_errors(); }
};

// Runs one job. Nothing is written unless the whole conversion succeeded; each file is replaced
// atomically. Progress stages: "read", "convert", "write", then "done" once the output is in
// place (for a deferred job, by commit_outputs); a cancelled job writes nothing.
ConvertJobOutcome convert_file(const ConvertJob& job, const Progress& progress = {});

// Puts the files a job left pending in place, in order (companions, then the output), each made
// durable before it replaces its target; `written` lists them. On a failure the job fails with
// that I/O error and the files not yet in place are removed. Reports "done" when all are in
// place.
void commit_outputs(ConvertJobOutcome& r, const Progress& progress = {});

// The schema of the conversion from `in` to `out` (for `convert --help` and the Python docs).
std::vector<const OptionSpec*> options_for(const FormatHandler& in, const FormatHandler& out);

}  // namespace lk
