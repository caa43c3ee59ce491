// Result<T>: a value or a Diagnostic. Errors are values; levelkit does not throw for bad input.
#pragma once

#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include "levelkit/core/diagnostic.hpp"

namespace lk {

using Error = Diagnostic;

template <class T>
class [[nodiscard]] Result {
public:
    using value_type = T;

    Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}      // NOLINT(implicit)
    Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(implicit)

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<0>(v_);
    }
    const T& value() const& {
        assert(ok());
        return std::get<0>(v_);
    }
    T&& value() && {
        assert(ok());
        return std::get<0>(std::move(v_));
    }

    const Error& error() const& {
        assert(!ok());
        return std::get<1>(v_);
    }
    Error&& error() && {
        assert(!ok());
        return std::get<1>(std::move(v_));
    }

    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }

private:
    std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : err_(std::move(error)), ok_(false) {}  // NOLINT(implicit)

    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const Error& error() const& {
        assert(!ok_);
        return err_;
    }
    Error&& error() && {
        assert(!ok_);
        return std::move(err_);
    }

private:
    Error err_;
    bool ok_ = true;
};

inline Result<void> success() {
    return {};
}

}  // namespace lk

#define LK_CONCAT_INNER(a, b) a##b
#define LK_CONCAT(a, b) LK_CONCAT_INNER(a, b)

// LK_TRY(expr): return the error of a Result<void>/Result<T> expression from the enclosing
// function (whose return type must be constructible from Error).
#define LK_TRY(expr)                                                   \
    do {                                                               \
        auto&& lk_try_result_ = (expr);                                \
        if (!lk_try_result_) return std::move(lk_try_result_).error(); \
    } while (0)

// LK_TRY_ASSIGN(decl, expr): `auto x` / `T x` / existing lvalue = value of expr, or return its
// error.
#define LK_TRY_ASSIGN(decl, expr) LK_TRY_ASSIGN_IMPL(LK_CONCAT(lk_try_r_, __LINE__), decl, expr)
#define LK_TRY_ASSIGN_IMPL(tmp, decl, expr)  \
    auto tmp = (expr);                       \
    if (!tmp) return std::move(tmp).error(); \
    decl = std::move(tmp).value()
