#include <fmt/format.h>

#include <algorithm>

#include "cli.hpp"

namespace lk::cli {

namespace {

struct RoundtripOutcome {
    enum Kind { identical, differs, failed } kind = failed;
    std::size_t offset = 0;
    std::optional<std::uint32_t> line;
    std::size_t original_size = 0, written_size = 0;
    Diagnostic error;
};

RoundtripOutcome roundtrip_one(const std::string& path) {
    RoundtripOutcome out;
    auto blob = Blob::map_file(path);
    if (!blob) {
        out.error = std::move(blob).error();
        return out;
    }
    ReadOptions ro;
    ro.source_name = path;
    ro.base_dir = std::filesystem::path(path).parent_path();
    auto doc = read_document(blob.value(), ro);
    if (!doc) {
        out.error = std::move(doc).error();
        return out;
    }
    auto written = doc.value()->write();
    if (!written) {
        out.error = std::move(written).error();
        if (out.error.file.empty()) out.error.file = path;
        return out;
    }
    const ByteSpan a = blob->bytes();
    const Bytes& b = written.value();
    out.original_size = a.size();
    out.written_size = b.size();
    auto mism = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    if (mism.first == a.end() && mism.second == b.end()) {
        out.kind = RoundtripOutcome::identical;
        return out;
    }
    out.kind = RoundtripOutcome::differs;
    out.offset = static_cast<std::size_t>(mism.first - a.begin());
    out.line = doc.value()->line_of(out.offset);
    return out;
}

}  // namespace

void add_roundtrip_command(CLI::App& app, Context& ctx) {
    add_files_command(
        app, ctx, "roundtrip", "Read, write back to memory and compare bytes with the input",
        [&ctx](const FileArgs& a) {
            const std::size_t n = a.files.size();
            std::vector<RoundtripOutcome> res(n);
            std::size_t same = 0, differ = 0, failed = 0;
            int worst_input = kOk;
            parallel_ordered(
                ctx, n, a.jobs, [&](std::size_t i) { res[i] = roundtrip_one(a.files[i]); },
                [&](std::size_t i) {
                    const RoundtripOutcome& r = res[i];
                    const std::string& f = a.files[i];
                    Json j;
                    j["file"] = f;
                    switch (r.kind) {
                        case RoundtripOutcome::identical:
                            ++same;
                            j["result"] = "identical";
                            if (!a.json) ctx.out(f + ": identical\n");
                            break;
                        case RoundtripOutcome::differs: {
                            ++differ;
                            j["result"] = "differs";
                            j["offset"] = r.offset;
                            if (r.line) j["line"] = *r.line;
                            j["original_size"] = r.original_size;
                            j["written_size"] = r.written_size;
                            if (!a.json) {
                                if (r.line) {
                                    ctx.out(fmt::format("{}: differs at byte {} (line {})\n", f,
                                                        r.offset, *r.line));
                                } else {
                                    ctx.out(fmt::format("{}: differs at byte {}\n", f, r.offset));
                                }
                            }
                            break;
                        }
                        case RoundtripOutcome::failed:
                            ++failed;
                            j["result"] = "failed";
                            j["error"] = r.error.to_string();
                            worst_input = std::max(worst_input, exit_code_for(r.error));
                            if (!a.json) ctx.out(f + ": failed: " + r.error.to_string() + "\n");
                            break;
                    }
                    if (a.json) ctx.json_line(j);
                },
                a.progress(ctx), [&](std::size_t i) { return a.files[i]; });
            ctx.out(fmt::format("{} identical, {} differ, {} failed\n", same, differ, failed));
            ctx.fail(failed ? worst_input : (differ ? kProblems : kOk));
        });
}

}  // namespace lk::cli
