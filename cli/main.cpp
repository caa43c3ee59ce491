#include <cstdio>

#include "cli.hpp"

int main(int argc, char** argv) {
    CLI::App app{"levelkit: read, write and convert game level and model formats", "levelkit"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "levelkit 0.1.0");
    lk::cli::add_info_command(app);
    lk::cli::add_roundtrip_command(app);
    lk::cli::add_validate_command(app);
    lk::cli::add_convert_command(app);
    lk::cli::add_dump_command(app);
    lk::cli::add_geometry_command(app);
    lk::cli::add_formats_command(app);
    lk::cli::add_bsp_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : lk::cli::kUsage;
    }
    std::fflush(stdout);
    return lk::cli::exit_status();
}
