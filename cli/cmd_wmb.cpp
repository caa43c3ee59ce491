// `levelkit wmb ...`: tools for compiled Gamestudio levels.
#include <fmt/format.h>

#include "cli.hpp"
#include "levelkit/any/wmb_tools.hpp"

namespace lk::cli {

void add_wmb_command(CLI::App& app, Context& ctx) {
    CLI::App* wmb = app.add_subcommand("wmb", "Gamestudio WMB tools: embedded textures");
    wmb->require_subcommand(1);
    struct Opts {
        std::string file, dir = ".";
        bool json = false;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = wmb->add_subcommand(
        "textures", "Write the level's embedded textures and lightmaps as PNG files");
    cmd->add_option("level", o->file, "Input .wmb")->required();
    cmd->add_option("-o,--dir", o->dir, "Destination directory (default: .)");
    cmd->add_flag("--json", o->json, "One JSON object with the files written");
    cmd->callback([o, &ctx] {
        auto doc = read_document(o->file);
        if (!doc) {
            ctx.diagnostic(doc.error());
            ctx.fail(exit_code_for(doc.error()));
            return;
        }
        Diagnostics warnings;
        auto r = wmb_export_images(*doc.value(), o->dir, warnings);
        warnings.set_file(o->file);
        ctx.diagnostics(warnings);
        if (!r) {
            ctx.diagnostic(std::move(r).error().in_file(o->file));
            ctx.fail(exit_code_for(r.error()));
            return;
        }
        if (o->json) {
            Json j;
            j["file"] = o->file;
            j["textures"] = r->textures;
            j["dds"] = r->dds;
            j["lightmaps"] = r->lightmaps;
            j["terrain_lightmaps"] = r->terrain_lightmaps;
            j["skipped"] = r->skipped;
            Json files = Json::array();
            for (const auto& f : r->files) files.push_back(f.string());
            j["files"] = std::move(files);
            ctx.json_line(j);
        } else {
            ctx.out(
                fmt::format("{}: {} textures ({} DDS), {} lightmaps, {} terrain lightmaps, {} "
                            "skipped -> {}\n",
                            o->file, r->textures, r->dds, r->lightmaps, r->terrain_lightmaps,
                            r->skipped, o->dir));
        }
    });
}

}  // namespace lk::cli
