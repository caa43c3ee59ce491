#include "cli.hpp"

namespace lk::cli {

int run(const std::vector<std::string>& args, const Io& io) {
    Context ctx(io);
    CLI::App app{"levelkit: read, write and convert game level and model formats", "levelkit"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "levelkit 0.2.0");
    add_info_command(app, ctx);
    add_roundtrip_command(app, ctx);
    add_validate_command(app, ctx);
    add_convert_command(app, ctx);
    add_dump_command(app, ctx);
    add_geometry_command(app, ctx);
    add_formats_command(app, ctx);
    add_bsp_command(app, ctx);
    add_wmb_command(app, ctx);
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
