// `levelkit bsp ...`: entity lump and pakfile tools for Source BSP maps.
#include <fmt/format.h>

#include "cli.hpp"
#include "levelkit/any/bsp_tools.hpp"

namespace lk::cli {

namespace {

namespace fs = std::filesystem;

// Reads a map, printing the error and setting the exit status on failure.
std::unique_ptr<Document> load_map(Context& ctx, const std::string& path) {
    auto doc = read_document(path);
    if (!doc) {
        ctx.diagnostic(doc.error());
        ctx.fail(exit_code_for(doc.error()));
        return nullptr;
    }
    ctx.diagnostics(doc.value()->read_diagnostics());
    if (doc.value()->format() != "bsp") {
        ctx.diagnostic(Diagnostic::error("usage.not-bsp", fmt::format("not a BSP map but a {} file",
                                                                      doc.value()->format()))
                           .in_file(path));
        ctx.fail(kUsage);
        return nullptr;
    }
    return std::move(doc).value();
}

bool fail(Context& ctx, Diagnostic d, const std::string& file) {
    if (d.file.empty()) d.file = file;
    ctx.diagnostic(d);
    // A missing entry is a finding about the map, not an unreadable input.
    ctx.fail(d.code == "pak.no-entry" ? kProblems : exit_code_for(d));
    return false;
}

// Writes the edited map to `out`, or over the input when `out` is empty (--in-place).
bool save_map(Context& ctx, const Document& map, const std::string& in, const std::string& out,
              bool in_place) {
    auto bytes = map.write();
    if (!bytes) return fail(ctx, std::move(bytes).error(), in);
    const fs::path dest = out.empty() ? fs::path(in) : fs::path(out);
    if (!in_place && same_file(dest, in)) {
        return fail(ctx,
                    Diagnostic::error("io.would-overwrite-input",
                                      "refusing to overwrite the input file (use --in-place)"),
                    dest.string());
    }
    auto w = write_file_atomic(dest, *bytes);
    if (!w) return fail(ctx, std::move(w).error(), dest.string());
    return true;
}

struct PakEdit {
    std::string file, out;
    bool in_place = false;
};

void add_edit_options(CLI::App* cmd, PakEdit& e) {
    cmd->add_option("map", e.file, "Input map")->required();
    cmd->add_option("-o,--output", e.out, "Output map");
    cmd->add_flag("--in-place", e.in_place, "Overwrite the input map");
}

void edit_pak(Context& ctx, const PakEdit& e, std::span<const PakChange> changes) {
    if (e.out.empty() && !e.in_place) {
        fail(ctx, Diagnostic::error("usage.output", "give -o OUT.bsp or --in-place"), e.file);
        return;
    }
    auto map = load_map(ctx, e.file);
    if (!map) return;
    auto edited = pak_edit(*map, changes);
    if (!edited) {
        fail(ctx, std::move(edited).error(), e.file);
        return;
    }
    save_map(ctx, *edited.value(), e.file, e.out, e.in_place);
}

void add_entities(CLI::App& bsp, Context& ctx) {
    struct Opts {
        std::string file, output;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = bsp.add_subcommand("entities", "Print the entity lump as text");
    cmd->add_option("map", o->file, "Input map")->required();
    cmd->add_option("-o,--output", o->output, "Write the text to this file instead of stdout");
    cmd->callback([o, &ctx] {
        auto map = load_map(ctx, o->file);
        if (!map) return;
        auto text = map->dump_text();
        if (!text || !*text) {
            fail(ctx, text ? text->error() : Diagnostic::error("bsp.no-entities", "no entity lump"),
                 o->file);
            return;
        }
        if (o->output.empty()) {
            ctx.out(text->value());
            return;
        }
        if (same_file(o->output, o->file)) {
            fail(ctx,
                 Diagnostic::error("io.would-overwrite-input", "refusing to overwrite the input"),
                 o->output);
            return;
        }
        auto w = write_file_atomic(o->output, text->value());
        if (!w) fail(ctx, std::move(w).error(), o->output);
    });
}

void add_pak(CLI::App& bsp, Context& ctx) {
    CLI::App* pak = bsp.add_subcommand("pak", "List, extract, add or remove pakfile entries");
    pak->require_subcommand(1);
    {
        struct Opts {
            std::string file;
            bool json = false;
        };
        auto o = std::make_shared<Opts>();
        CLI::App* cmd =
            pak->add_subcommand("list", "List entries: size, stored size, method, name");
        cmd->add_option("map", o->file, "Input map")->required();
        cmd->add_flag("--json", o->json, "One JSON object per entry");
        cmd->callback([o, &ctx] {
            auto map = load_map(ctx, o->file);
            if (!map) return;
            auto list = pak_list(*map);
            if (!list) {
                fail(ctx, std::move(list).error(), o->file);
                return;
            }
            for (const PakListing& e : list.value()) {
                if (o->json) {
                    Json j;
                    j["name"] = e.name;
                    j["size"] = e.size;
                    j["stored_size"] = e.stored_size;
                    j["method"] = e.method;
                    j["crc32"] = fmt::format("{:08x}", e.crc32);
                    ctx.json_line(j);
                } else {
                    ctx.out(fmt::format("{:>10} {:>10} {:<7} {}\n", e.size, e.stored_size, e.method,
                                        e.name));
                }
            }
        });
    }
    {
        struct Opts {
            std::string file, dir = ".";
            std::vector<std::string> names;
        };
        auto o = std::make_shared<Opts>();
        CLI::App* cmd = pak->add_subcommand("extract", "Extract all or the named entries");
        cmd->add_option("map", o->file, "Input map")->required();
        cmd->add_option("names", o->names, "Entries to extract (default: all)");
        cmd->add_option("-d,--dir", o->dir, "Destination directory (default: .)");
        cmd->callback([o, &ctx] {
            auto map = load_map(ctx, o->file);
            if (!map) return;
            std::vector<std::string> todo = o->names;
            if (todo.empty()) {
                auto list = pak_list(*map);
                if (!list) {
                    fail(ctx, std::move(list).error(), o->file);
                    return;
                }
                for (const PakListing& e : list.value()) todo.push_back(e.name);
            }
            std::size_t done = 0;
            for (const std::string& name : todo) {
                if (!safe_pak_name(name)) {
                    fail(ctx,
                         Diagnostic::error(
                             "pak.unsafe-name",
                             "refusing to extract an entry outside the directory: " + name),
                         o->file);
                    continue;
                }
                auto data = pak_read(*map, name);
                if (!data) {
                    const bool missing = data.error().code == "pak.no-entry";
                    fail(ctx, std::move(data).error(), o->file);
                    if (missing) return;
                    continue;
                }
                const fs::path dest = fs::path(o->dir) / fs::path(name);
                std::error_code ec;
                fs::create_directories(dest.parent_path(), ec);
                auto w = write_file_atomic(dest, *data);
                if (!w) {
                    fail(ctx, std::move(w).error(), dest.string());
                    continue;
                }
                ++done;
            }
            ctx.err(fmt::format("extracted {} of {} entries to {}\n", done, todo.size(), o->dir));
        });
    }
    {
        struct Opts {
            PakEdit edit;
            std::string as, base, method = "stored";
            std::vector<std::string> inputs;
        };
        auto o = std::make_shared<Opts>();
        CLI::App* cmd = pak->add_subcommand("add", "Add or replace entries from files");
        add_edit_options(cmd, o->edit);
        cmd->add_option("files", o->inputs, "Files to add")->required();
        cmd->add_option("--as", o->as, "Entry name (with a single file)");
        cmd->add_option("--base", o->base,
                        "Name entries by their path relative to this directory (default: the "
                        "path as given)");
        cmd->add_option("--method", o->method, "stored (default), deflate or lzma")
            ->check(CLI::IsMember({"stored", "deflate", "lzma"}));
        cmd->callback([o, &ctx] {
            if (!o->as.empty() && o->inputs.size() != 1) {
                fail(ctx, Diagnostic::error("usage.as", "--as takes exactly one file"),
                     o->edit.file);
                return;
            }
            std::vector<PakChange> changes;
            for (const std::string& in : o->inputs) {
                PakChange c;
                c.name = o->as;
                if (c.name.empty()) {
                    c.name =
                        o->base.empty() ? in : fs::path(in).lexically_relative(o->base).string();
                }
                auto data = read_file(in);
                if (!data) {
                    fail(ctx, std::move(data).error(), in);
                    return;
                }
                c.data = std::move(data).value();
                c.method = o->method;
                changes.push_back(std::move(c));
            }
            edit_pak(ctx, o->edit, changes);
        });
    }
    {
        struct Opts {
            PakEdit edit;
            std::vector<std::string> names;
        };
        auto o = std::make_shared<Opts>();
        CLI::App* cmd = pak->add_subcommand("remove", "Remove entries");
        add_edit_options(cmd, o->edit);
        cmd->add_option("names", o->names, "Entries to remove")->required();
        cmd->callback([o, &ctx] {
            std::vector<PakChange> changes;
            for (const std::string& n : o->names) {
                changes.push_back({PakChange::Kind::remove, n, {}, {}});
            }
            edit_pak(ctx, o->edit, changes);
        });
    }
}

}  // namespace

void add_bsp_command(CLI::App& app, Context& ctx) {
    CLI::App* bsp = app.add_subcommand("bsp", "Source BSP tools: entity lump and pakfile");
    bsp->require_subcommand(1);
    add_entities(*bsp, ctx);
    add_pak(*bsp, ctx);
}

}  // namespace lk::cli
