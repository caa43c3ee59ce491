#include "levelkit/core/bytes.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace lk {

bool ByteReader::need(std::size_t n, std::string_view field) {
    if (failed_) return false;
    if (n <= remaining()) return true;
    fail("bytes.truncated",
         fmt::format("unexpected end of data reading {}: needs {} byte{}, {} remain", field, n,
                     n == 1 ? "" : "s", remaining()));
    return false;
}

bool ByteReader::check_count(std::uint64_t count, std::uint64_t item_size, std::string_view field) {
    if (failed_) return false;
    const std::uint64_t rem = remaining();
    if (item_size == 0 || count <= rem / item_size) return true;
    fail("bytes.bad-count",
         fmt::format("count {} of {} needs {} bytes, only {} remain", count, field,
                     count > UINT64_MAX / item_size ? std::string("too many")
                                                    : std::to_string(count * item_size),
                     rem));
    return false;
}

bool ByteReader::seek(std::size_t pos, std::string_view field) {
    if (failed_) return false;
    if (pos > data_.size()) {
        fail("bytes.bad-offset", fmt::format("offset {} of {} is past the end (size {})",
                                             base_ + pos, field, base_ + data_.size()));
        return false;
    }
    pos_ = pos;
    return true;
}

bool ByteReader::skip(std::size_t n, std::string_view field) {
    if (!need(n, field)) return false;
    pos_ += n;
    return true;
}

ByteSpan ByteReader::bytes(std::size_t n, std::string_view field) {
    if (!need(n, field)) return {};
    ByteSpan s = data_.subspan(pos_, n);
    pos_ += n;
    return s;
}

std::string_view ByteReader::cstring(std::string_view field) {
    if (failed_) return {};
    const auto* begin = data_.data() + pos_;
    const void* nul = std::memchr(begin, 0, remaining());
    if (!nul) {
        fail("bytes.unterminated-string",
             fmt::format("string {} has no NUL terminator before the end of data", field));
        return {};
    }
    const auto len = static_cast<std::size_t>(static_cast<const std::byte*>(nul) - begin);
    std::string_view s(reinterpret_cast<const char*>(begin), len);
    pos_ += len + 1;
    return s;
}

ByteReader ByteReader::sub(std::size_t n, std::string_view field) {
    const std::uint64_t at = abs_pos();
    ByteSpan s = bytes(n, field);
    ByteReader r(s, endian_, at);
    if (failed_) {
        r.failed_ = true;
        r.error_ = error_;
    }
    return r;
}

ByteReader ByteReader::slice(std::uint64_t offset, std::uint64_t n, std::string_view field) {
    if (!failed_ && (offset > data_.size() || n > data_.size() - offset)) {
        fail_at(pos_, "bytes.bad-range",
                fmt::format("{} range [{}, +{}) lies outside the data (size {})", field,
                            base_ + offset, n, base_ + data_.size()));
    }
    if (failed_) {
        ByteReader r(ByteSpan{}, endian_, base_);
        r.failed_ = true;
        r.error_ = error_;
        return r;
    }
    return ByteReader(data_.subspan(offset, n), endian_, base_ + offset);
}

void ByteReader::fail(std::string code, std::string message) {
    fail_at(pos_, std::move(code), std::move(message));
}

void ByteReader::fail_at(std::size_t pos, std::string code, std::string message) {
    if (failed_) return;
    failed_ = true;
    error_ = Diagnostic::error(std::move(code), std::move(message))
                 .at_offset(static_cast<std::int64_t>(base_ + pos));
}

void ByteWriter::align(std::size_t alignment, std::byte fill) {
    if (alignment <= 1) return;
    const std::size_t rem = size() % alignment;
    if (!rem) return;
    const std::size_t n = alignment - rem;
    std::memset(room(n), static_cast<int>(fill), n);
    len_ += n;
}

void ByteWriter::grow(std::size_t n) {
    // Geometric growth, into the capacity reserve() made before the vector reallocates.
    const std::size_t need = len_ + n;
    std::size_t want = std::max({need, buf_.size() * 2, std::size_t{256}});
    if (need <= buf_.capacity()) want = std::min(want, buf_.capacity());
    buf_.resize(want);
}

void ByteWriter::hand_over() {
    if (!sink_error_ && len_ != 0) {
        auto r = sink_->write(ByteSpan(buf_.data(), len_));
        if (!r) sink_error_ = std::move(r).error();
    }
    drained_ += len_;
    len_ = 0;
}

Result<void> ByteWriter::finish() {
    if (sink_) hand_over();
    if (sink_error_) return std::move(*sink_error_);
    return success();
}

}  // namespace lk
