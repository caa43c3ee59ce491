#include "levelkit/core/file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

namespace lk {

namespace {

Diagnostic io_error(std::string code, const std::filesystem::path& p, std::string_view what,
                    int err) {
    return Diagnostic::error(std::move(code),
                             fmt::format("cannot {}: {}", what, std::strerror(err)))
        .in_file(p.string());
}

class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }
    int release() {
        int f = fd_;
        fd_ = -1;
        return f;
    }

private:
    int fd_;
};

bool read_all(int fd, Bytes& out) {
    std::byte buf[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) return true;
        out.insert(out.end(), buf, buf + n);
    }
}

}  // namespace

MappedFile::MappedFile(MappedFile&& o) noexcept {
    *this = std::move(o);
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
    if (this != &o) {
        reset();
        mapped_ = o.mapped_;
        size_ = o.size_;
        owned_ = std::move(o.owned_);
        path_ = std::move(o.path_);
        data_ = mapped_ ? o.data_ : owned_.data();
        o.data_ = nullptr;
        o.size_ = 0;
        o.mapped_ = false;
    }
    return *this;
}

MappedFile::~MappedFile() {
    reset();
}

void MappedFile::reset() {
    if (mapped_ && data_) ::munmap(const_cast<std::byte*>(data_), size_);
    data_ = nullptr;
    size_ = 0;
    mapped_ = false;
    owned_.clear();
}

Result<MappedFile> MappedFile::open(const std::filesystem::path& path) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return io_error("io.open", path, "open for reading", errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return io_error("io.stat", path, "stat", errno);
    if (S_ISDIR(st.st_mode)) {
        return Diagnostic::error("io.is-directory", "is a directory, not a file")
            .in_file(path.string());
    }
    MappedFile f;
    f.path_ = path;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE,
                         fd.get(), 0);
        if (p != MAP_FAILED) {
            f.data_ = static_cast<const std::byte*>(p);
            f.size_ = static_cast<std::size_t>(st.st_size);
            f.mapped_ = true;
            return f;
        }
    }
    if (!read_all(fd.get(), f.owned_)) return io_error("io.read", path, "read", errno);
    f.data_ = f.owned_.data();
    f.size_ = f.owned_.size();
    return f;
}

Result<Bytes> read_file(const std::filesystem::path& path) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return io_error("io.open", path, "open for reading", errno);
    Bytes out;
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode)) {
        out.reserve(static_cast<std::size_t>(st.st_size));
    }
    if (!read_all(fd.get(), out)) return io_error("io.read", path, "read", errno);
    return out;
}

namespace {

// Temporaries are named ".NAME.lk-PID-XXXXXX". One whose process no longer exists was left by a
// write that was killed (SIGKILL, a second Ctrl-C, a crash); the next write to NAME removes it.
// Temporaries of running processes (another levelkit writing the same output) are left alone.
void remove_stale_temporaries(const std::filesystem::path& dir, const std::string& name) {
    const std::string prefix = "." + name + ".lk-";
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string f = it->path().filename().string();
        if (f.size() <= prefix.size() || f.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string rest = f.substr(prefix.size());
        const auto dash = rest.find('-');
        if (dash == 0 || dash == std::string::npos || dash > 9 || rest.size() - dash != 7) continue;
        long pid = 0;
        bool digits = true;
        for (std::size_t i = 0; i < dash; ++i) {
            if (rest[i] < '0' || rest[i] > '9') digits = false;
            pid = pid * 10 + (rest[i] - '0');
        }
        if (!digits || pid <= 0 || pid == static_cast<long>(::getpid())) continue;
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
    }
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::filesystem::path& path) {
    std::filesystem::path dir = path.parent_path();
    if (dir.empty()) dir = ".";
    remove_stale_temporaries(dir, path.filename().string());
    std::string tmpl = dir.string();
    tmpl += "/.";
    tmpl += path.filename().string();
    tmpl += fmt::format(".lk-{}-XXXXXX", static_cast<long>(::getpid()));
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) return io_error("io.create", path, "create a temporary file next to it", errno);
    return AtomicFile(path, std::move(tmpl), fd);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : path_(std::move(o.path_)),
      temp_(std::move(o.temp_)),
      fd_(std::exchange(o.fd_, -1)),
      written_(o.written_),
      started_(o.started_) {
    o.temp_.clear();
}

AtomicFile::~AtomicFile() {
    discard();
}

void AtomicFile::discard() {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
}

Result<void> AtomicFile::fail(std::string code, std::string_view what, int err) {
    discard();
    return io_error(std::move(code), path_, what, err);
}

Result<void> AtomicFile::write(ByteSpan data) {
    if (fd_ < 0) return io_error("io.write", path_, "write (the file is closed)", EBADF);
#if defined(__linux__)
    // A large output written in pieces: once more follows, the disk is asked to start on each
    // whole MiB written so far, so that it works while the rest is made and commit()'s fsync
    // waits for the last piece only (a 9 MB VMAP: fsync 1 ms instead of 6-7). Asked before a
    // write, not after it, so that a file written at once and committed goes straight to fsync.
    // Errors are fsync's to report.
    constexpr std::uint64_t kStep = std::uint64_t{1} << 20;
    if (written_ - started_ >= kStep) {
        const std::uint64_t upto = written_ / kStep * kStep;
        (void)::sync_file_range(fd_, static_cast<off_t>(started_),
                                static_cast<off_t>(upto - started_), SYNC_FILE_RANGE_WRITE);
        started_ = upto;
    }
#endif
    const std::byte* p = data.data();
    std::size_t left = data.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail("io.write", "write", errno);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    written_ += data.size();
    return success();
}

Result<void> AtomicFile::commit() {
    if (fd_ < 0) return io_error("io.write", path_, "commit (the file is closed)", EBADF);
    // Keep the permissions a normal create would give (mkstemp makes 0600).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    struct stat st {};
    const mode_t mode = (::stat(path_.c_str(), &st) == 0) ? (st.st_mode & 07777) : (0666 & ~mask);
    if (::fchmod(fd_, mode) != 0) return fail("io.chmod", "set permissions", errno);
    if (::fsync(fd_) != 0) return fail("io.sync", "sync", errno);
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) return fail("io.close", "close", errno);
    if (::rename(temp_.c_str(), path_.c_str()) != 0)
        return fail("io.rename", "rename into place", errno);
    temp_.clear();
    return success();
}

Result<void> write_file_atomic(const std::filesystem::path& path, ByteSpan data) {
    auto f = AtomicFile::create(path);
    if (!f) return std::move(f).error();
    LK_TRY(f.value().write(data));
    return f.value().commit();
}

Blob Blob::from_bytes(Bytes bytes) {
    auto owned = std::make_shared<const Bytes>(std::move(bytes));
    Blob b;
    b.span_ = ByteSpan(owned->data(), owned->size());
    b.owner_ = std::move(owned);
    return b;
}

Blob Blob::slice(std::size_t offset, std::size_t size) const {
    Blob b;
    b.owner_ = owner_;
    const std::size_t start = std::min(offset, span_.size());
    b.span_ = span_.subspan(start, std::min(size, span_.size() - start));
    return b;
}

Blob Blob::copy_of(ByteSpan bytes) {
    return from_bytes(Bytes(bytes.begin(), bytes.end()));
}

Result<Blob> Blob::map_file(const std::filesystem::path& path) {
    auto mf = MappedFile::open(path);
    if (!mf) return std::move(mf).error();
    auto owned = std::make_shared<const MappedFile>(std::move(mf).value());
    Blob b;
    b.span_ = owned->bytes();
    b.owner_ = std::move(owned);
    return b;
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

}  // namespace lk
