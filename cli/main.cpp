// The levelkit executable: the heap's page size, signals and streams, then the tool
// (cli/run.cpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

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

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define LK_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LK_OWN_ALLOCATOR 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(LK_OWN_ALLOCATOR)
// The second run starts /proc/self/exe, which the kernel names "exe": it takes back the name it
// was started by, so that ps, top and pkill find it.
void take_back_name(std::string_view argv0) {
    const char* t = std::getenv("GLIBC_TUNABLES");
    if (!t || !std::strstr(t, "glibc.malloc.hugetlb")) return;  // not a second run
    const int fd = ::open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char comm[17] = {};
    const ssize_t n = ::read(fd, comm, sizeof comm - 1);
    ::close(fd);
    if (n != 4 || std::string_view(comm, 4) != "exe\n") return;
    const std::string name(argv0.substr(argv0.rfind('/') + 1).substr(0, 15));
    if (!name.empty()) ::prctl(PR_SET_NAME, name.c_str(), 0, 0, 0);
}
#endif

// Runs the executable again with glibc's malloc on transparent huge pages when the system has
// them and nobody chose otherwise (cli::huge_page_tunables says when); returns when it does not.
// Environment variables are read only here, before any thread starts.
void run_on_huge_pages([[maybe_unused]] char** argv) {
#if defined(__linux__) && defined(__GLIBC__) && !defined(LK_OWN_ALLOCATOR)
    if (!argv[0]) return;  // argc == 0
    take_back_name(argv[0]);
    lk::cli::ProcessStart p;
    if (argv[1]) p.command = argv[1];
    if (lk::cli::keeps_small_pages(p.command)) return;
    // The regular files among the arguments: the inputs (an output is not there yet, or is
    // replaced), those the command reads into memory; counted until they are enough.
    for (char** a = argv + 1; *a && p.input_bytes < lk::cli::kHugePageInputBytes; ++a) {
        struct stat st;
        if (::stat(*a, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (lk::cli::reads_into_memory(p.command, lk::format_for_extension(*a)))
            p.input_bytes += static_cast<std::uint64_t>(st.st_size);
    }
    char thp[128] = {};
    if (const int fd = ::open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
        fd >= 0) {
        const ssize_t n = ::read(fd, thp, sizeof thp - 1);
        ::close(fd);
        if (n > 0) p.thp_enabled = std::string_view(thp, static_cast<std::size_t>(n));
    }
    p.tunables = std::getenv("GLIBC_TUNABLES");
    p.ld_preload = std::getenv("LD_PRELOAD");
    p.opt_out = std::getenv("LEVELKIT_HUGE_PAGES");
    const std::string tunables = lk::cli::huge_page_tunables(p);
    if (tunables.empty()) return;
    const std::string saved = p.tunables ? p.tunables : "";
    const bool had = p.tunables != nullptr;
    if (::setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
    ::execv("/proc/self/exe", argv);
    // Not run again (no /proc): go on as before, and leave children the environment as it was.
    if (had) {
        ::setenv("GLIBC_TUNABLES", saved.c_str(), 1);
    } else {
        ::unsetenv("GLIBC_TUNABLES");
    }
#endif
}

}  // namespace

int main(int argc, char** argv) {
    run_on_huge_pages(argv);
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    lk::cli::Io io;
    io.err_is_terminal = ::isatty(2) != 0;
    io.cancel = &g_cancel;
    return lk::cli::run(std::vector<std::string>(argv, argv + argc), io);
}
