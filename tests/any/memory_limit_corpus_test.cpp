// Corpus: every reader under an address-space limit. Damaged copies of real files (truncated,
// bytes flipped, 32-bit words inflated to huge counts) are read through the format-erased
// facade (detect, read, info, validate) in a child process whose address space is capped at
// what it had plus 64 x the input size + 64 MiB. A reader that sizes an allocation from a count
// the remaining input cannot back runs out of address space and aborts (std::bad_alloc or a
// signal); a good one stops with a located error or reads the file.
//
// Skipped under AddressSanitizer, whose shadow memory needs terabytes of address space.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <new>
#include <string>

#include "levelkit/any/document.hpp"
#include "support/corpus.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define LK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LK_ASAN 1
#endif
#endif

namespace lk {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxInput = 512 * 1024;

std::size_t current_address_space() {
    std::ifstream in("/proc/self/statm");
    std::size_t pages = 0;
    in >> pages;
    return pages * std::size_t(sysconf(_SC_PAGESIZE));
}

// What the child reports through its exit status.
enum Outcome : int {
    read_ok = 0,
    located_error = 1,
    unlocated_error = 2,
    out_of_memory = 3,
    not_recognised = 4,  // the damage hit the bytes that identify the format: a whole-file error
};

// One input, in the child, under its own limit: the soft limit is set for each input (the hard
// one is left alone so that the next input may have a higher one).
int read_in_child(const Bytes& input, const std::string& name) {
    const std::size_t limit = current_address_space() + 64 * input.size() + (64u << 20);
    rlimit rl{};
    if (getrlimit(RLIMIT_AS, &rl) != 0) return 100;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < limit) return 100;
    rl.rlim_cur = limit;
    if (setrlimit(RLIMIT_AS, &rl) != 0) return 100;
    try {
        ReadOptions opt;
        opt.source_name = name;
        auto doc = read_document(Blob::from_bytes(Bytes(input)), opt);
        if (!doc) {
            const Diagnostic& e = doc.error();
            if (e.code == "format.unknown") return not_recognised;
            if (e.has_line() || e.has_offset() || !e.path.empty()) return located_error;
            std::fprintf(stderr, "unlocated %s: %s\n", name.c_str(), e.to_string().c_str());
            return unlocated_error;
        }
        (void)(*doc)->info();
        Diagnostics d;
        (*doc)->validate(d);
        return read_ok;
    } catch (const std::bad_alloc&) {
        return out_of_memory;
    }
}

struct Tally {
    std::size_t variants = 0, ok = 0, located = 0, unlocated = 0, oom = 0, crashed = 0;
    std::size_t not_recognised = 0;
};

TEST(MemoryLimitCorpus, DamagedFilesNeverExhaustMemory) {
#ifdef LK_ASAN
    GTEST_SKIP() << "address-space limits cannot be combined with AddressSanitizer";
#endif
    LK_REQUIRE_CORPUS();
    std::map<std::string, Tally> by_format;
    std::vector<std::string> failures;
    for (const char* sub : {"bsp", "dmx", "model", "vmf", "wmp"}) {
        for (const fs::path& p : test::corpus_files(sub, {""})) {
            const std::string fname = p.filename().string();
            if (fname == "PROVENANCE.tsv" || fname == "README.md") continue;
            std::error_code ec;
            const auto size = fs::file_size(p, ec);
            if (ec || size == 0 || size > kMaxInput) continue;
            auto blob = Blob::map_file(p);
            ASSERT_TRUE(blob);
            const ByteSpan orig = blob->bytes();
            const FormatHandler* f = detect_format(orig, fname);
            if (!f || !f->read) continue;
            Tally& t = by_format[std::string(f->name)];

            std::vector<std::pair<std::string, Bytes>> variants;
            const Bytes whole(orig.begin(), orig.end());
            for (int k = 1; k < 4; ++k) {
                variants.emplace_back(fmt::format("truncated at {}", whole.size() * k / 4),
                                      Bytes(whole.begin(), whole.begin() + whole.size() * k / 4));
            }
            for (int k = 0; k < 3; ++k) {
                Bytes b = whole;
                const std::size_t at = (b.size() * (2 * k + 1) / 6 + 7) % b.size();
                b[at] ^= std::byte{0xFF};
                variants.emplace_back(fmt::format("byte {} flipped", at), std::move(b));
            }
            // Counts sit near the start of most binary layouts (headers, list tables) and at
            // the head of each record array: inflate words there and spread through the file.
            const std::size_t offsets[] = {4,
                                           8,
                                           12,
                                           16,
                                           20,
                                           24,
                                           28,
                                           32,
                                           40,
                                           48,
                                           64,
                                           96,
                                           128,
                                           whole.size() / 3 & ~std::size_t{3},
                                           whole.size() / 2 & ~std::size_t{3}};
            for (std::size_t at : offsets) {
                if (at + 4 > whole.size()) continue;
                for (std::uint32_t v : {0x7FFFFFF0u, 0x00FFFFFFu}) {
                    Bytes b = whole;
                    for (int i = 0; i < 4; ++i) b[at + i] = std::byte(v >> (8 * i));
                    variants.emplace_back(fmt::format("word at {} set to {:#x}", at, v),
                                          std::move(b));
                }
            }

            // One child reads the file's variants in turn and reports each outcome as a byte
            // on a pipe (a fork per variant cost half this test's time in the kernel). A
            // child that dies was reading the variant after the last one it reported: that
            // one counts as crashed and a new child goes on from the next.
            auto where = [&](std::size_t i) {
                return fmt::format("{} ({}): {}: ", fname, f->name, variants[i].first);
            };
            std::size_t next = 0;
            while (next < variants.size()) {
                int fds[2];
                ASSERT_EQ(pipe(fds), 0);
                std::fflush(nullptr);
                const pid_t pid = fork();
                ASSERT_GE(pid, 0);
                if (pid == 0) {
                    close(fds[0]);
                    for (std::size_t i = next; i < variants.size(); ++i) {
                        const auto r =
                            static_cast<unsigned char>(read_in_child(variants[i].second, fname));
                        if (write(fds[1], &r, 1) != 1) _exit(101);
                    }
                    _exit(0);
                }
                close(fds[1]);
                unsigned char r = 0;
                for (; next < variants.size() && read(fds[0], &r, 1) == 1; ++next) {
                    ++t.variants;
                    switch (r) {
                        case read_ok:
                            ++t.ok;
                            break;
                        case located_error:
                            ++t.located;
                            break;
                        case not_recognised:
                            ++t.not_recognised;
                            break;
                        case unlocated_error:
                            ++t.unlocated;
                            break;
                        case out_of_memory:
                            ++t.oom;
                            failures.push_back(where(next) + "out of memory");
                            break;
                        default:
                            ++t.crashed;
                            failures.push_back(where(next) + fmt::format("exit {}", r));
                    }
                }
                close(fds[0]);
                int status = 0;
                ASSERT_EQ(waitpid(pid, &status, 0), pid);
                if (next < variants.size()) {
                    ++t.variants;
                    ++t.crashed;
                    failures.push_back(where(next) +
                                       (WIFSIGNALED(status)
                                            ? fmt::format("killed by signal {}", WTERMSIG(status))
                                            : fmt::format("exit {}", WEXITSTATUS(status))));
                    ++next;
                } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                    ++t.crashed;
                    failures.push_back(fmt::format("{} ({}): the child failed after its last input",
                                                   fname, f->name));
                }
            }
        }
    }
    std::size_t total = 0;
    for (const auto& [format, t] : by_format) {
        total += t.variants;
        std::printf(
            "[memory limit] %-6s %5zu damaged inputs: %5zu read, %5zu located errors, %4zu "
            "no longer recognised, %zu errors without location, %zu out of memory, %zu "
            "crashed\n",
            format.c_str(), t.variants, t.ok, t.located, t.not_recognised, t.unlocated, t.oom,
            t.crashed);
        EXPECT_EQ(t.oom, 0u) << format;
        EXPECT_EQ(t.crashed, 0u) << format;
        EXPECT_EQ(t.unlocated, 0u) << format;
    }
    std::printf("[memory limit] %zu damaged inputs in all\n", total);
    for (const std::string& f : failures) std::printf("  %s\n", f.c_str());
    EXPECT_GT(total, 0u);
}

}  // namespace
}  // namespace lk
