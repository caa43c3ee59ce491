// File input and output.
//
// Input: MappedFile memory-maps a regular file read-only (falling back to reading it for pipes
// and special files). Output: write_file_atomic writes to a temporary file in the destination's
// directory, syncs it and renames it over the destination, so readers never see a half-written
// file and a failed run leaves nothing behind.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/result.hpp"

namespace lk {

class MappedFile {
public:
    MappedFile() = default;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    MappedFile(MappedFile&& o) noexcept;
    MappedFile& operator=(MappedFile&& o) noexcept;
    ~MappedFile();

    // Errors are "io.*" diagnostics carrying the path.
    static Result<MappedFile> open(const std::filesystem::path& path);

    ByteSpan bytes() const { return {data_, size_}; }
    std::string_view text() const { return {reinterpret_cast<const char*>(data_), size_}; }
    std::size_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

private:
    void reset();
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;
    Bytes owned_;  // used when mapping is impossible
    std::filesystem::path path_;
};

Result<Bytes> read_file(const std::filesystem::path& path);

// Immutable, cheaply copyable bytes with shared ownership: a mapped file or an owned buffer.
// Documents that keep zero-copy views into their input hold a Blob to keep it alive.
class Blob {
public:
    Blob() = default;
    static Blob from_bytes(Bytes bytes);
    static Blob copy_of(ByteSpan bytes);
    static Blob copy_of(std::string_view text) { return copy_of(as_bytes(text)); }
    static Result<Blob> map_file(const std::filesystem::path& path);

    ByteSpan bytes() const { return span_; }
    std::string_view text() const { return as_text(span_); }
    std::size_t size() const { return span_.size(); }
    bool empty() const { return span_.empty(); }

    // A sub-range sharing this blob's owner (no copy), so views into a mapped file can outlive
    // the Blob they were cut from. The range is clamped to the blob's size.
    Blob slice(std::size_t offset, std::size_t size) const;

private:
    std::shared_ptr<const void> owner_;
    ByteSpan span_;
};

// A file written in pieces and put in place whole: the bytes go to a temporary file in the
// destination's directory; commit() syncs it and renames it over the destination. Destroyed
// without a successful commit (an error, a cancelled job), it removes the temporary, so the
// destination is either untouched or complete.
class AtomicFile final : public ByteSink {
public:
    static Result<AtomicFile> create(const std::filesystem::path& path);
    AtomicFile(AtomicFile&& o) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile() override;

    Result<void> write(ByteSpan data) override;
    Result<void> commit();
    const std::filesystem::path& path() const { return path_; }

private:
    AtomicFile(std::filesystem::path path, std::string temp, int fd)
        : path_(std::move(path)), temp_(std::move(temp)), fd_(fd) {}
    void discard();  // closes and removes the temporary
    Result<void> fail(std::string code, std::string_view what, int err);

    std::filesystem::path path_;
    std::string temp_;
    int fd_ = -1;
    // Bytes written, and those the disk was asked to start writing (see write()).
    std::uint64_t written_ = 0, started_ = 0;
};

// Atomically replaces/creates `path` with `data`. Never leaves a partial file at `path`.
Result<void> write_file_atomic(const std::filesystem::path& path, ByteSpan data);
inline Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view text) {
    return write_file_atomic(path, as_bytes(text));
}

// True if both paths name the same existing file (same device and inode).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace lk
