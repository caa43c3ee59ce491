#include "cli.hpp"

namespace lk::cli {

void add_dump_command(CLI::App& app) {
    auto file = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("dump", "Print a file as text (DMX: keyvalues2)");
    cmd->add_option("file", *file, "Input file")->required();
    cmd->callback([file] {
        auto doc = read_document(*file);
        if (!doc) {
            print_diagnostic(doc.error());
            exit_status() = exit_code_for(doc.error());
            return;
        }
        auto text = doc.value()->dump_text();
        if (!text) {
            std::fprintf(stderr, "%s: error: %s files have no text dump\n", file->c_str(),
                         std::string(doc.value()->format()).c_str());
            exit_status() = kUsage;
            return;
        }
        if (!*text) {
            print_diagnostic(text->error());
            exit_status() = kBadInput;
            return;
        }
        std::fwrite(text->value().data(), 1, text->value().size(), stdout);
    });
}

void add_formats_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("formats", "List known formats and conversions");
    cmd->callback([] {
        std::printf("formats:\n");
        for (const FormatHandler* f : all_formats()) {
            std::string exts;
            for (auto e : f->extensions)
                exts += std::string(exts.empty() ? "" : " ") + std::string(e);
            std::printf("  %-8s %-24s %s\n", std::string(f->name).c_str(), exts.c_str(),
                        std::string(f->description).c_str());
        }
        std::printf("conversions:\n");
        for (const ConverterHandler* c : all_converters()) {
            std::printf("  %-6s -> %-6s %s\n", std::string(c->from).c_str(),
                        std::string(c->to).c_str(), std::string(c->description).c_str());
        }
    });
}

}  // namespace lk::cli
