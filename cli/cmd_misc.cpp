#include <fmt/format.h>

#include "cli.hpp"

namespace lk::cli {

void add_dump_command(CLI::App& app, Context& ctx) {
    auto file = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("dump", "Print a file as text (DMX: keyvalues2)");
    cmd->add_option("file", *file, "Input file")->required();
    cmd->callback([file, &ctx] {
        auto doc = read_document(*file);
        if (!doc) {
            ctx.diagnostic(doc.error());
            ctx.fail(exit_code_for(doc.error()));
            return;
        }
        auto text = doc.value()->dump_text();
        if (!text) {
            ctx.err(fmt::format("{}: error: {} files have no text dump\n", *file,
                                doc.value()->format()));
            ctx.fail(kUsage);
            return;
        }
        if (!*text) {
            ctx.diagnostic(text->error());
            ctx.fail(kBadInput);
            return;
        }
        ctx.out(text->value());
    });
}

namespace {

std::string_view via_name(ConversionPath::Via v) {
    switch (v) {
        case ConversionPath::Via::same:
            return "same";
        case ConversionPath::Via::direct:
            return "direct";
        case ConversionPath::Via::scene:
            return "scene";
        case ConversionPath::Via::model:
            return "model";
    }
    return "";
}

}  // namespace

void add_formats_command(CLI::App& app, Context& ctx) {
    auto json = std::make_shared<bool>(false);
    CLI::App* cmd =
        app.add_subcommand("formats", "List known formats and the conversions between them");
    cmd->add_flag("--json", *json, "One JSON object with formats and conversions");
    cmd->callback([json, &ctx] {
        const auto paths = all_paths();
        if (*json) {
            Json j;
            j["formats"] = Json::array();
            for (const FormatHandler* f : all_formats()) {
                Json jf;
                jf["name"] = f->name;
                jf["description"] = f->description;
                jf["extensions"] = f->extensions;
                jf["read"] = f->read != nullptr;
                jf["to_scene"] = f->scene.to != nullptr;
                jf["from_scene"] = f->scene.from != nullptr;
                jf["to_model"] = f->model.to != nullptr;
                jf["from_model"] = f->model.from != nullptr;
                j["formats"].push_back(std::move(jf));
            }
            j["conversions"] = Json::array();
            for (const ConversionPath& p : paths) {
                Json jp;
                jp["from"] = p.from->name;
                jp["to"] = p.to->name;
                jp["via"] = via_name(p.via);
                jp["path"] = p.describe();
                Json opts = Json::array();
                for (const OptionSpec* o : p.options()) opts.push_back(o->name);
                jp["options"] = std::move(opts);
                j["conversions"].push_back(std::move(jp));
            }
            ctx.json_line(j);
            return;
        }
        std::string text = "formats (r: read, s: to scene, S: from scene, m: model to/from):\n";
        for (const FormatHandler* f : all_formats()) {
            std::string exts;
            for (auto e : f->extensions)
                exts += std::string(exts.empty() ? "" : " ") + std::string(e);
            const std::string roles =
                fmt::format("{}{}{}{}", f->read ? "r" : "-", f->scene.to ? "s" : "-",
                            f->scene.from ? "S" : "-", f->model.to || f->model.from ? "m" : "-");
            text += fmt::format("  {:<7} {:<5} {:<28} {}\n", f->name, roles, exts, f->description);
        }
        text += "conversions (levelkit convert IN OUT; the output's extension names the format):\n";
        for (const ConversionPath& p : paths) {
            std::string opts;
            for (const OptionSpec* o : p.options()) opts += fmt::format(" --{}", o->name);
            text += fmt::format("  {:<7} -> {:<7} {:<7} {}\n", p.from->name, p.to->name,
                                via_name(p.via), opts.empty() ? std::string("") : opts.substr(1));
        }
        ctx.out(text);
    });
}

}  // namespace lk::cli
