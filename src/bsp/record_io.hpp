// Field-by-field record codecs shared by the typed lump views.
//
// One description per on-disk layout drives both directions: a layout is a function template
// `void io(IO& io, Record& r)` that calls io.num<DiskType>(field) for every field in file
// order. RecordReader loads and widens; RecordWriter range-checks and narrows, so a value that
// no longer fits its on-disk field is reported instead of silently truncated.
#pragma once

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "levelkit/bsp/lumps.hpp"
#include "levelkit/core/bytes.hpp"

namespace lk::bsp::detail {

struct ViewAccess {
    template <class T>
    static LumpView<T> borrow(Blob bytes) {
        return LumpView<T>::borrow(std::move(bytes));
    }
};

class RecordReader {
public:
    RecordReader(const std::byte* p, Endian e) : p_(p), e_(e) {}

    template <class D, class M>
    void num(M& m) {
        m = static_cast<M>(load<D>(p_, e_));
        p_ += sizeof(D);
    }
    template <class D, class M, std::size_t N>
    void nums(M (&m)[N]) {
        for (M& x : m) num<D>(x);
    }
    void vec(Vec3f& v) {
        num<float>(v.x);
        num<float>(v.y);
        num<float>(v.z);
    }
    template <std::size_t N>
    void bytes(std::uint8_t (&b)[N]) {
        std::memcpy(b, p_, N);
        p_ += N;
    }
    void bytes(void* dst, std::size_t n) {
        std::memcpy(dst, p_, n);
        p_ += n;
    }
    std::size_t consumed(const std::byte* start) const {
        return static_cast<std::size_t>(p_ - start);
    }

private:
    const std::byte* p_;
    Endian e_;
};

template <class D, class M>
bool fits(const M& m) {
    if constexpr (std::is_floating_point_v<D>) {
        return true;
    } else if constexpr (std::is_floating_point_v<M>) {
        // Bounds -2^digits (signed) and 2^digits exclusive are exact in M; max() is not for
        // 32/64-bit D in float (it rounds up to 2^digits, which D cannot hold).
        const M hi = std::ldexp(M(1), std::numeric_limits<D>::digits);
        const M lo = std::is_signed_v<D> ? -hi : M(0);
        return std::isfinite(m) && std::trunc(m) == m && m >= lo && m < hi;
    } else {
        return std::in_range<D>(m);
    }
}

class RecordWriter {
public:
    RecordWriter(std::byte* p, Endian e) : p_(p), e_(e) {}

    template <class D, class M>
    void num(const M& m) {
        // Cast only what fits: a floating value out of D's range is undefined behaviour to cast.
        if (fits<D>(m)) {
            store<D>(p_, static_cast<D>(m), e_);
        } else {
            ok_ = false;
            store<D>(p_, D{}, e_);
        }
        p_ += sizeof(D);
    }
    template <class D, class M, std::size_t N>
    void nums(const M (&m)[N]) {
        for (const M& x : m) num<D>(x);
    }
    void vec(const Vec3f& v) {
        num<float>(v.x);
        num<float>(v.y);
        num<float>(v.z);
    }
    template <std::size_t N>
    void bytes(const std::uint8_t (&b)[N]) {
        std::memcpy(p_, b, N);
        p_ += N;
    }
    void bytes(const void* src, std::size_t n) {
        std::memcpy(p_, src, n);
        p_ += n;
    }
    void fail() { ok_ = false; }
    bool ok() const { return ok_; }

private:
    std::byte* p_;
    Endian e_;
    bool ok_ = true;
};

}  // namespace lk::bsp::detail
