#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include "levelkit/core/file.hpp"

using namespace lk;

namespace {
std::filesystem::path temp_dir() {
    auto d =
        std::filesystem::temp_directory_path() / ("lk-file-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
}
std::size_t entries(const std::filesystem::path& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
    return n;
}
}  // namespace

TEST(File, AtomicWriteThenMapReadsBack) {
    auto d = temp_dir();
    auto p = d / "out.bin";
    ASSERT_TRUE(write_file_atomic(p, std::string_view("hello")));
    auto m = MappedFile::open(p);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->text(), "hello");
    ASSERT_TRUE(write_file_atomic(p, std::string_view("")));
    auto e = Blob::map_file(p);
    ASSERT_TRUE(e);
    EXPECT_TRUE(e->empty());
    // No temporary files are left behind.
    EXPECT_EQ(entries(d), 1u);
    std::filesystem::remove_all(d);
}

// Written in pieces, the file appears whole at commit(); an AtomicFile given up (an error, a
// cancelled job) leaves the destination as it was and no temporary.
TEST(File, AtomicFileAppearsWholeOnCommitOnly) {
    auto d = temp_dir();
    auto p = d / "out.vmap";
    ASSERT_TRUE(write_file_atomic(p, std::string_view("old")));
    {
        auto f = AtomicFile::create(p);
        ASSERT_TRUE(f);
        ASSERT_TRUE(f->write(as_bytes(std::string_view("half"))));
        EXPECT_EQ(MappedFile::open(p)->text(), "old");
    }
    EXPECT_EQ(MappedFile::open(p)->text(), "old");
    {
        auto f = AtomicFile::create(p);
        ASSERT_TRUE(f);
        ASSERT_TRUE(f->write(as_bytes(std::string_view("ne"))));
        ASSERT_TRUE(f->write(as_bytes(std::string_view("w"))));
        EXPECT_EQ(MappedFile::open(p)->text(), "old");
        ASSERT_TRUE(f->commit());
        EXPECT_FALSE(f->write(as_bytes(std::string_view("late"))));
    }
    EXPECT_EQ(MappedFile::open(p)->text(), "new");
    EXPECT_EQ(entries(d), 1u);
    std::filesystem::remove_all(d);
}

TEST(File, FailedWriteLeavesNothing) {
    auto p = std::filesystem::path("/nonexistent-dir-lk/x.vmf");
    auto r = write_file_atomic(p, std::string_view("x"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().file, p.string());
    EXPECT_FALSE(std::filesystem::exists(p));
}

// A temporary left by a killed write (its process gone) is removed by the next write to the
// same output; one of a live process is not.
TEST(File, NextWriteRemovesTemporariesOfKilledWrites) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("lk-file-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ASSERT_GT(child, 0);
    ASSERT_EQ(::waitpid(child, nullptr, 0), child);
    const auto stale = dir / (".out.vmf.lk-" + std::to_string(child) + "-a1b2c3");
    const auto live = dir / (".out.vmf.lk-" + std::to_string(::getppid()) + "-d4e5f6");
    const auto other = dir / (".other.vmf.lk-" + std::to_string(child) + "-a1b2c3");
    for (const auto& p : {stale, live, other})
        ASSERT_TRUE(write_file_atomic(p, std::string_view("x")));
    ASSERT_TRUE(write_file_atomic(dir / "out.vmf", std::string_view("new")));
    EXPECT_FALSE(std::filesystem::exists(stale));
    EXPECT_TRUE(std::filesystem::exists(live));
    EXPECT_TRUE(std::filesystem::exists(other));
    EXPECT_EQ(entries(dir), 3u);  // out.vmf, the live and the other output's temporaries
    std::filesystem::remove_all(dir);
}

TEST(File, MissingFileIsIoError) {
    auto r = MappedFile::open("/nonexistent-lk-file");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "io.open");
}

TEST(File, BlobSliceSharesOwnerAndClamps) {
    Blob whole = Blob::copy_of(std::string_view("abcdef"));
    Blob mid = whole.slice(2, 3);
    EXPECT_EQ(mid.text(), "cde");
    EXPECT_EQ(mid.bytes().data(), whole.bytes().data() + 2);
    whole = Blob();  // the slice keeps the buffer alive
    EXPECT_EQ(mid.text(), "cde");
    EXPECT_EQ(mid.slice(1, 100).text(), "de");
    EXPECT_TRUE(mid.slice(10, 1).empty());
}
