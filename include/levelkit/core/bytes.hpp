// Bounds-checked, endian-aware binary reading and writing.
//
// ByteReader has a sticky error: the first failed read records a Diagnostic naming the field and
// the absolute byte offset, and every later read returns zero without touching memory. Callers
// read a whole record, then test `ok()` once. Counts read from a file must go through
// `check_count()` before they size an allocation, so a garbage count cannot allocate more than
// the remaining input could hold.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"

namespace lk {

using Bytes = std::vector<std::byte>;
using ByteSpan = std::span<const std::byte>;

enum class Endian : std::uint8_t { little, big };

template <class T>
constexpr T byteswap(T v) noexcept {
    static_assert(std::is_trivially_copyable_v<T>);
    if constexpr (sizeof(T) == 1) {
        return v;
    } else {
        using U =
            std::conditional_t<sizeof(T) == 2, std::uint16_t,
                               std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
        static_assert(sizeof(U) == sizeof(T));
        U u = std::bit_cast<U>(v);
        if constexpr (sizeof(T) == 2) u = __builtin_bswap16(u);
        if constexpr (sizeof(T) == 4) u = __builtin_bswap32(u);
        if constexpr (sizeof(T) == 8) u = __builtin_bswap64(u);
        return std::bit_cast<T>(u);
    }
}

// Loads a T from unaligned memory in the given byte order. No bounds check.
template <class T>
inline T load(const std::byte* p, Endian e) noexcept {
    T v;
    std::memcpy(&v, p, sizeof(T));
    const bool native_little = std::endian::native == std::endian::little;
    if ((e == Endian::little) != native_little) v = byteswap(v);
    return v;
}

template <class T>
inline void store(std::byte* p, T v, Endian e) noexcept {
    const bool native_little = std::endian::native == std::endian::little;
    if ((e == Endian::little) != native_little) v = byteswap(v);
    std::memcpy(p, &v, sizeof(T));
}

inline ByteSpan as_bytes(std::string_view s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}
inline std::string_view as_text(ByteSpan b) {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

class ByteReader {
public:
    // `base` is the absolute offset of data[0] in the file, so errors from sub-readers point at
    // real file positions.
    explicit ByteReader(ByteSpan data, Endian e = Endian::little, std::uint64_t base = 0)
        : data_(data), base_(base), endian_(e) {}

    Endian endian() const { return endian_; }
    void set_endian(Endian e) { endian_ = e; }
    std::size_t pos() const { return pos_; }
    std::size_t size() const { return data_.size(); }
    std::size_t remaining() const { return data_.size() - pos_; }
    bool at_end() const { return pos_ >= data_.size(); }
    std::uint64_t base() const { return base_; }
    std::uint64_t abs_pos() const { return base_ + pos_; }
    ByteSpan data() const { return data_; }
    bool ok() const { return !failed_; }

    // Moves to an absolute position within this reader's span (checked).
    bool seek(std::size_t pos, std::string_view field);
    bool skip(std::size_t n, std::string_view field);

    // True if n more bytes are available; otherwise records an error for `field`.
    bool need(std::size_t n, std::string_view field);

    // True if `count` items of `item_size` bytes fit in what remains; otherwise records an error
    // ("count N of FIELD needs X bytes, only Y remain"). Use before any count-sized allocation.
    bool check_count(std::uint64_t count, std::uint64_t item_size, std::string_view field);

    template <class T>
    T read(std::string_view field) {
        static_assert(std::is_arithmetic_v<T>);
        if (!need(sizeof(T), field)) return T{};
        T v = load<T>(data_.data() + pos_, endian_);
        pos_ += sizeof(T);
        return v;
    }
    std::uint8_t u8(std::string_view f) { return read<std::uint8_t>(f); }
    std::int8_t i8(std::string_view f) { return read<std::int8_t>(f); }
    std::uint16_t u16(std::string_view f) { return read<std::uint16_t>(f); }
    std::int16_t i16(std::string_view f) { return read<std::int16_t>(f); }
    std::uint32_t u32(std::string_view f) { return read<std::uint32_t>(f); }
    std::int32_t i32(std::string_view f) { return read<std::int32_t>(f); }
    std::uint64_t u64(std::string_view f) { return read<std::uint64_t>(f); }
    std::int64_t i64(std::string_view f) { return read<std::int64_t>(f); }
    float f32(std::string_view f) { return read<float>(f); }
    double f64(std::string_view f) { return read<double>(f); }

    // A view of the next n bytes (empty span on error).
    ByteSpan bytes(std::size_t n, std::string_view field);
    // A NUL-terminated string; the terminator is consumed and not included.
    std::string_view cstring(std::string_view field);
    // A sub-reader over the next n bytes (consumed here), keeping absolute offsets.
    ByteReader sub(std::size_t n, std::string_view field);
    // A sub-reader over [offset, offset+n) of this reader's span, without moving.
    ByteReader slice(std::uint64_t offset, std::uint64_t n, std::string_view field);

    // Records a custom error at the current position (first error wins).
    void fail(std::string code, std::string message);
    void fail_at(std::size_t pos, std::string code, std::string message);
    const Diagnostic& error() const { return error_; }
    Diagnostic take_error() { return std::move(error_); }

private:
    ByteSpan data_;
    std::size_t pos_ = 0;
    std::uint64_t base_ = 0;
    Endian endian_;
    bool failed_ = false;
    Diagnostic error_;
};

// Where bytes go as they are made: a file being written (AtomicFile), so that a large output
// need not be held whole in memory.
class ByteSink {
public:
    virtual ~ByteSink() = default;
    virtual Result<void> write(ByteSpan data) = 0;
};

class ByteWriter {
public:
    explicit ByteWriter(Endian e = Endian::little) : endian_(e) {}

    Endian endian() const { return endian_; }
    void set_endian(Endian e) { endian_ = e; }
    // Bytes written so far, handed over to a sink or not.
    std::size_t size() const { return drained_ + len_; }
    void reserve(std::size_t n) {
        if (n > buf_.capacity()) buf_.reserve(n);
    }

    template <class T>
    void put(T v) {
        static_assert(std::is_arithmetic_v<T>);
        store<T>(room(sizeof(T)), v, endian_);
        len_ += sizeof(T);
    }
    void u8(std::uint8_t v) {
        *room(1) = std::byte{v};
        ++len_;
    }
    void i8(std::int8_t v) { put(v); }
    void u16(std::uint16_t v) { put(v); }
    void i16(std::int16_t v) { put(v); }
    void u32(std::uint32_t v) { put(v); }
    void i32(std::int32_t v) { put(v); }
    void u64(std::uint64_t v) { put(v); }
    void i64(std::int64_t v) { put(v); }
    void f32(float v) { put(v); }
    void f64(double v) { put(v); }
    void bytes(ByteSpan b) {
        if (b.empty()) return;
        std::memcpy(room(b.size()), b.data(), b.size());
        len_ += b.size();
    }
    void text(std::string_view s) { bytes(as_bytes(s)); }
    void cstring(std::string_view s) {
        std::byte* p = room(s.size() + 1);
        if (!s.empty()) std::memcpy(p, s.data(), s.size());
        p[s.size()] = std::byte{0};
        len_ += s.size() + 1;
    }
    void zeros(std::size_t n) {
        if (n == 0) return;
        std::memset(room(n), 0, n);
        len_ += n;
    }
    // Pads with `fill` until size() is a multiple of `alignment` (a power of two or any n > 0).
    void align(std::size_t alignment, std::byte fill = std::byte{0});

    // `at` is an offset of the whole output; it must not have been handed to a sink yet.
    template <class T>
    void patch(std::size_t at, T v) {
        store<T>(buf_.data() + (at - drained_), v, endian_);
    }
    // The byte at offset `at` of the whole output, for writing in place (not yet handed over).
    std::byte* at(std::size_t offset) { return buf_.data() + (offset - drained_); }

    // Draining: from here on, drain() hands the buffer to `sink` once it holds `chunk` bytes or
    // more, and finish() hands over the rest. Writers that drain call drain() between records
    // (never inside one they may patch). The sink's first error is kept and returned by
    // finish(); bytes written after it are dropped.
    void drain_to(ByteSink& sink, std::size_t chunk) {
        sink_ = &sink;
        chunk_ = chunk;
        reserve(chunk + chunk / 4);
    }
    bool draining() const { return sink_ != nullptr; }
    void drain() {
        if (sink_ && len_ >= chunk_) hand_over();
    }
    Result<void> finish();

    // The buffered bytes (all of them unless draining).
    const Bytes& buffer() const {
        buf_.resize(len_);
        return buf_;
    }
    Bytes take() {
        buf_.resize(len_);
        len_ = 0;
        return std::move(buf_);
    }
    // Starts over with nothing written, in `storage`'s memory (a buffer taken before: its
    // bytes are room to write, not zeroed again).
    void reuse(Bytes&& storage) {
        buf_ = std::move(storage);
        len_ = drained_ = 0;
    }

private:
    // Room for n more bytes at the end: buf_ holds len_ bytes written, then room already made
    // (its size is where writing may go without growing; std::vector's resize would zero a
    // few bytes at a time out of line).
    std::byte* room(std::size_t n) {
        if (buf_.size() - len_ < n) grow(n);
        return buf_.data() + len_;
    }
    void grow(std::size_t n);
    void hand_over();

    mutable Bytes buf_;  // buffer() trims it to the bytes written
    std::size_t len_ = 0;
    Endian endian_;
    ByteSink* sink_ = nullptr;
    std::size_t chunk_ = 0;
    std::size_t drained_ = 0;
    std::optional<Diagnostic> sink_error_;
};

}  // namespace lk
