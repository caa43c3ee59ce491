// `levelkit bsp ...`: entity lump and pakfile tools for Source BSP maps.
#include <fmt/format.h>

#include <algorithm>

#include "cli.hpp"
#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/map.hpp"
#include "levelkit/bsp/pak.hpp"

namespace lk::cli {

namespace {

namespace fs = std::filesystem;

// Reads a map, printing the error and setting the exit status on failure.
std::optional<bsp::Bsp> load_map(const std::string& path) {
    auto blob = Blob::map_file(path);
    if (!blob) {
        print_diagnostic(blob.error());
        exit_status() = exit_code_for(blob.error());
        return std::nullopt;
    }
    Diagnostics warnings;
    auto map = bsp::Bsp::read(std::move(blob).value(), &warnings);
    warnings.set_file(path);
    print_diagnostics(warnings);
    if (!map) {
        Diagnostic d = std::move(map).error();
        d.file = path;
        print_diagnostic(d);
        exit_status() = kBadInput;
        return std::nullopt;
    }
    return std::move(map).value();
}

std::optional<bsp::Pak> load_pak(const bsp::Bsp& map, const std::string& path) {
    auto pak = bsp::pakfile(map);
    if (!pak) {
        print_diagnostic(std::move(pak).error().in_file(path));
        exit_status() = kBadInput;
        return std::nullopt;
    }
    return std::move(pak).value();
}

bool fail(Diagnostic d, int code) {
    print_diagnostic(d);
    exit_status() = code;
    return false;
}

// Writes the edited map to `out`, or over the input when `out` is empty (--in-place).
bool save_map(const bsp::Bsp& map, const std::string& in, const std::string& out, bool in_place) {
    auto bytes = map.write();
    if (!bytes) return fail(std::move(bytes).error().in_file(in), kBadInput);
    auto w = write_output(out.empty() ? fs::path(in) : fs::path(out), *bytes, in, in_place);
    if (!w) return fail(std::move(w).error(), kIo);
    return true;
}

std::string_view method_name(std::uint16_t m) {
    switch (m) {
        case 0:
            return "stored";
        case 8:
            return "deflate";
        case 14:
            return "lzma";
        default:
            return "other";
    }
}

// A pak entry name must stay inside the extraction directory.
bool safe_relative(std::string_view name) {
    if (name.empty() || name.front() == '/' || name.front() == '\\') return false;
    if (name.size() > 1 && name[1] == ':') return false;
    for (const auto& part : fs::path(std::string(name))) {
        if (part == "..") return false;
    }
    return true;
}

struct PakEdit {
    std::string file, out;
    bool in_place = false;
};

// The options every pak edit takes, and the load -> edit -> store -> save sequence.
void add_edit_options(CLI::App* cmd, PakEdit& e) {
    cmd->add_option("map", e.file, "Input map")->required();
    cmd->add_option("-o,--output", e.out, "Output map");
    cmd->add_flag("--in-place", e.in_place, "Overwrite the input map");
}

void edit_pak(const PakEdit& e, const std::function<bool(bsp::Pak&)>& edit) {
    if (e.out.empty() && !e.in_place) {
        fail(Diagnostic::error("cli.usage", "give -o OUT.bsp or --in-place"), kUsage);
        return;
    }
    auto map = load_map(e.file);
    if (!map) return;
    auto p = load_pak(*map, e.file);
    if (!p || !edit(*p)) return;
    auto set = bsp::set_pakfile(*map, *p);
    if (!set) {
        fail(std::move(set).error().in_file(e.file), kBadInput);
        return;
    }
    save_map(*map, e.file, e.out, e.in_place);
}

void add_entities(CLI::App& bsp) {
    struct Opts {
        std::string file, output;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = bsp.add_subcommand("entities", "Print the entity lump as text");
    cmd->add_option("map", o->file, "Input map")->required();
    cmd->add_option("-o,--output", o->output, "Write the text to this file instead of stdout");
    cmd->callback([o] {
        auto map = load_map(o->file);
        if (!map) return;
        const std::string_view all = map->lump(bsp::LumpId::entities).data().text();
        const std::string_view text = all.substr(0, all.find('\0'));
        if (o->output.empty()) {
            std::fwrite(text.data(), 1, text.size(), stdout);
            return;
        }
        auto w = write_output(o->output, as_bytes(text), o->file, false);
        if (!w) fail(std::move(w).error(), kIo);
    });
}

void add_pak(CLI::App& bsp) {
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
        cmd->callback([o] {
            auto map = load_map(o->file);
            if (!map) return;
            auto p = load_pak(*map, o->file);
            if (!p) return;
            for (const bsp::PakEntry& e : p->entries()) {
                if (o->json) {
                    Json j;
                    j["name"] = e.name();
                    j["size"] = e.size();
                    j["stored_size"] = e.central.compressed_size;
                    j["method"] = method_name(e.method());
                    j["crc32"] = fmt::format("{:08x}", e.central.crc32);
                    std::printf("%s\n",
                                j.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
                } else {
                    std::printf("%10u %10u %-7s %s\n", e.size(), e.central.compressed_size,
                                std::string(method_name(e.method())).c_str(), e.name().c_str());
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
        cmd->callback([o] {
            auto map = load_map(o->file);
            if (!map) return;
            auto p = load_pak(*map, o->file);
            if (!p) return;
            std::vector<const bsp::PakEntry*> todo;
            if (o->names.empty()) {
                for (const bsp::PakEntry& e : p->entries()) todo.push_back(&e);
            } else {
                for (const std::string& n : o->names) {
                    const bsp::PakEntry* e = p->find(n);
                    if (!e) {
                        fail(Diagnostic::error("cli.no-entry", "no pakfile entry " + n)
                                 .in_file(o->file),
                             kProblems);
                        return;
                    }
                    todo.push_back(e);
                }
            }
            std::size_t done = 0;
            for (const bsp::PakEntry* e : todo) {
                if (!safe_relative(e->name())) {
                    fail(Diagnostic::error(
                             "cli.unsafe-name",
                             "refusing to extract an entry outside the directory: " + e->name())
                             .in_file(o->file),
                         kBadInput);
                    continue;
                }
                auto data = bsp::Pak::contents(*e);
                if (!data) {
                    fail(std::move(data).error().in_file(o->file), kBadInput);
                    continue;
                }
                const fs::path dest = fs::path(o->dir) / fs::path(e->name());
                std::error_code ec;
                fs::create_directories(dest.parent_path(), ec);
                auto w = write_file_atomic(dest, *data);
                if (!w) {
                    fail(std::move(w).error(), kIo);
                    continue;
                }
                ++done;
            }
            std::fprintf(stderr, "extracted %zu of %zu entries to %s\n", done, todo.size(),
                         o->dir.c_str());
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
        cmd->callback([o] {
            if (!o->as.empty() && o->inputs.size() != 1) {
                fail(Diagnostic::error("cli.usage", "--as takes exactly one file"), kUsage);
                return;
            }
            const bsp::ZipMethod method = o->method == "lzma"      ? bsp::ZipMethod::lzma
                                          : o->method == "deflate" ? bsp::ZipMethod::deflate
                                                                   : bsp::ZipMethod::stored;
            edit_pak(o->edit, [&](bsp::Pak& p) {
                for (const std::string& in : o->inputs) {
                    std::string name = o->as;
                    if (name.empty()) {
                        name = o->base.empty() ? in
                                               : fs::path(in).lexically_relative(o->base).string();
                    }
                    std::replace(name.begin(), name.end(), '\\', '/');
                    if (!safe_relative(name)) {
                        return fail(Diagnostic::error("cli.unsafe-name",
                                                      "entry names must be relative paths "
                                                      "without '..': " +
                                                          name),
                                    kUsage);
                    }
                    auto data = read_file(in);
                    if (!data) return fail(std::move(data).error(), kIo);
                    auto put = p.put(name, *data, method);
                    if (!put) return fail(std::move(put).error(), kBadInput);
                }
                return true;
            });
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
        cmd->callback([o] {
            edit_pak(o->edit, [&](bsp::Pak& p) {
                for (const std::string& n : o->names) {
                    if (!p.remove(n)) {
                        return fail(Diagnostic::error("cli.no-entry", "no pakfile entry " + n)
                                        .in_file(o->edit.file),
                                    kProblems);
                    }
                }
                return true;
            });
        });
    }
}

}  // namespace

void add_bsp_command(CLI::App& app) {
    CLI::App* bsp = app.add_subcommand("bsp", "Source BSP tools: entity lump and pakfile");
    bsp->require_subcommand(1);
    add_entities(*bsp);
    add_pak(*bsp);
}

}  // namespace lk::cli
