#include <initializer_list>
#include <string_view>

#include "cli.hpp"

namespace lk::cli {

int run(const std::vector<std::string>& args, const Io& io) {
    Context ctx(io);
    CLI::App app{"levelkit: read, write and convert game level and model formats", "levelkit"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "levelkit 0.2.0");
    // Each adder and the subcommands it makes, in the order of `levelkit --help`. A command
    // line that starts with a subcommand's name gets that subcommand alone: building every
    // subcommand's options took ~10% of a short run (a small file's `info`: 0.9 ms, 38 of its
    // 260 page faults), and a subcommand parses the same with or without its siblings.
    struct Adder {
        void (*add)(CLI::App&, Context&);
        std::initializer_list<std::string_view> names;
    };
    const Adder adders[] = {
        {add_info_command, {"info"}},
        {add_roundtrip_command, {"roundtrip"}},
        {add_validate_command, {"validate"}},
        {add_convert_command, {"convert", "decompile", "render"}},
        {add_dump_command, {"dump"}},
        {add_geometry_command, {"geometry"}},
        {add_formats_command, {"formats"}},
        {add_bsp_command, {"bsp"}},
        {add_wmb_command, {"wmb"}},
    };
    const Adder* only = nullptr;
    for (const Adder& a : adders) {
        for (std::string_view n : a.names) {
            if (args.size() > 1 && args[1] == n) only = &a;
        }
    }
    for (const Adder& a : adders) {
        if (!only || only == &a) a.add(app, ctx);
    }
    // CLI11 parses argv in reverse order from a vector.
    std::vector<std::string> rev(args.size() > 1 ? args.begin() + 1 : args.end(), args.end());
    std::reverse(rev.begin(), rev.end());
    try {
        app.parse(rev);
    } catch (const CLI::ParseError& e) {
        std::string out_text, err_text;
        // CLI11 prints help/version to the given streams; capture them into ours.
        std::ostringstream o, er;
        const int rc = app.exit(e, o, er);
        ctx.out(o.str());
        ctx.err(er.str());
        return rc == 0 ? kOk : kUsage;
    }
    std::fflush(io.out);
    if (ctx.cancelled()) ctx.fail(kInterrupted);
    return ctx.status();
}

}  // namespace lk::cli
