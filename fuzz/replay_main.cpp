// Plain main() for fuzz targets built without libFuzzer. Two modes:
//
//   TARGET PATH...            feeds every file given (or every file in every directory given) to
//                             LLVMFuzzerTestOneInput once: seeds and minimised crashers run as
//                             regression tests under any compiler and sanitizer;
//   TARGET --sweep [--max-bytes N] [--files K] SEEDS [CORPUS_SUBDIR...]
//                             the mutant sweep: K files (default 24, spread over the sizes)
//                             from SEEDS and from the corpus folders named (under
//                             $LEVELKIT_CORPUS, default ../shared/corpus beside the source tree;
//                             absent folders are skipped), each cut to N bytes (default 4096) as
//                             libFuzzer cuts its seeds, then truncated at evenly spaced lengths
//                             and with single bytes changed at evenly spaced offsets, every mutant
//                             fed to the target. Single-byte changes of real files find in seconds
//                             what random mutation may take hours to reach (a count that is now
//                             huge, a quote that is now unclosed). Deterministic: the same mutants
//                             every run. A target that aborts or crashes names the mutant.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void run(const std::vector<std::uint8_t>& bytes, std::size_t size) {
    LLVMFuzzerTestOneInput(bytes.data(), size);
}

int replay(int argc, char** argv) {
    int n = 0;
    for (int i = 1; i < argc; ++i) {
        fs::path p(argv[i]);
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            for (auto& e : fs::recursive_directory_iterator(p)) {
                if (e.is_regular_file()) {
                    const auto b = read_file(e.path());
                    run(b, b.size());
                    ++n;
                }
            }
        } else if (fs::is_regular_file(p, ec)) {
            const auto b = read_file(p);
            run(b, b.size());
            ++n;
        }
    }
    std::printf("replayed %d inputs\n", n);
    return 0;
}

// --- the mutant sweep ----------------------------------------------------------------------

// What is being run, for the crash handler (plain data: the handler only formats and writes).
char g_current[1024] = "";

extern "C" void on_crash(int sig) {
    const char head[] = "\nmutant sweep: the target crashed or aborted on ";
    [[maybe_unused]] auto r1 = ::write(2, head, sizeof head - 1);
    [[maybe_unused]] auto r2 = ::write(2, g_current, std::strlen(g_current));
    [[maybe_unused]] auto r3 = ::write(2, "\n", 1);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

fs::path corpus_root() {
    if (const char* env = std::getenv("LEVELKIT_CORPUS"); env && *env) return env;
#ifdef LEVELKIT_SOURCE_DIR
    return fs::path(LEVELKIT_SOURCE_DIR) / ".." / "shared" / "corpus";
#else
    return "../shared/corpus";
#endif
}

// Bytes a text or binary reader turns on: structure, quotes, digits, counts.
constexpr std::uint8_t kTokens[] = {'"', '{', '}', '\n', ' ',  '0', '9',  '-',  '.',  '[',
                                    ']', '(', ')', '/',  '\\', 'e', 0x7F, 0x80, 0x01, 0xFE};

int sweep(int argc, char** argv) {
    std::size_t max_bytes = 4096, max_files = 24;
    std::vector<fs::path> dirs;
    bool seeds = true;
    for (int i = 2; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--max-bytes" && i + 1 < argc) {
            max_bytes = std::strtoull(argv[++i], nullptr, 10);
        } else if (a == "--files" && i + 1 < argc) {
            max_files = std::strtoull(argv[++i], nullptr, 10);
        } else if (seeds) {
            dirs.emplace_back(a);  // the target's own seeds
            seeds = false;
        } else {
            dirs.push_back(corpus_root() / a);
        }
    }
    std::vector<std::pair<std::uintmax_t, fs::path>> files;
    for (const fs::path& d : dirs) {
        std::error_code ec;
        if (!fs::is_directory(d, ec)) {
            std::printf("mutant sweep: %s is absent, skipped\n", d.string().c_str());
            continue;
        }
        for (auto& e : fs::recursive_directory_iterator(d)) {
            std::error_code fe;
            if (!e.is_regular_file(fe)) continue;
            const auto size = e.file_size(fe);
            if (!fe && size > 0)
                files.emplace_back(std::min<std::uintmax_t>(size, max_bytes), e.path());
        }
    }
    std::sort(files.begin(), files.end());
    if (files.size() > max_files) {
        // Evenly spaced over the sizes: small whole files and cut large ones alike.
        std::vector<std::pair<std::uintmax_t, fs::path>> picked;
        for (std::size_t k = 0; k < max_files; ++k)
            picked.push_back(files[k * files.size() / max_files]);
        files = std::move(picked);
    }
    std::signal(SIGABRT, on_crash);
    std::signal(SIGSEGV, on_crash);
    std::signal(SIGBUS, on_crash);
    std::signal(SIGFPE, on_crash);
    std::size_t mutants = 0;
    for (const auto& [size, path] : files) {
        std::vector<std::uint8_t> original = read_file(path);
        if (original.size() > size) original.resize(static_cast<std::size_t>(size));
        std::vector<std::uint8_t> b = original;
        const std::size_t n = b.size();
        // Truncations: 64 evenly spaced lengths and the last 8 bytes one at a time.
        for (std::size_t k = 0; k < 64 + 8; ++k) {
            const std::size_t len = k < 64 ? n * k / 64 : (n > 72 - k ? n - (72 - k) : 0);
            std::snprintf(g_current, sizeof g_current, "%s cut to %zu bytes", path.string().c_str(),
                          len);
            run(b, len);
            ++mutants;
        }
        // One byte changed: up to 256 evenly spaced offsets, four values each (zero, all ones,
        // a case/bit flip and a token byte).
        const std::size_t step = n > 256 ? n / 256 : 1;
        for (std::size_t at = 0; at < n; at += step) {
            const std::uint8_t was = original[at];
            const std::uint8_t values[] = {0x00, 0xFF, static_cast<std::uint8_t>(was ^ 0x20),
                                           kTokens[(at / step) % std::size(kTokens)]};
            for (std::uint8_t v : values) {
                if (v == was) continue;
                b[at] = v;
                std::snprintf(g_current, sizeof g_current, "%s with byte %zu set to 0x%02x",
                              path.string().c_str(), at, v);
                run(b, n);
                ++mutants;
            }
            b[at] = was;
        }
    }
    std::printf("mutant sweep: %zu files, %zu mutants, no crash\n", files.size(), mutants);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::string_view(argv[1]) == "--sweep") return sweep(argc, argv);
    return replay(argc, argv);
}
