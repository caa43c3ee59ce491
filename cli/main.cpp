// The levelkit executable: signals and streams, then the tool (cli/run.cpp).
#include <unistd.h>

#include <atomic>
#include <csignal>

#include "cli.hpp"

namespace {

std::atomic<bool> g_cancel{false};

// The first Ctrl-C (or SIGTERM) asks running jobs to stop; they finish the file they are writing
// or stop between stages, so no partial output is left. A second one ends the process at once.
extern "C" void on_signal(int sig) {
    if (g_cancel.exchange(true)) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    lk::cli::Io io;
    io.err_is_terminal = ::isatty(2) != 0;
    io.cancel = &g_cancel;
    return lk::cli::run(std::vector<std::string>(argv, argv + argc), io);
}
