// Boxed<T>: an optional value kept on the heap. Use it for large, rarely present members
// (a displacement on a brush side) so the common case stays small. Copies deep-copy and ==
// compares values, so a struct holding one keeps `= default` copy and comparison.
#pragma once

#include <memory>
#include <utility>

namespace lk {

template <class T>
class Boxed {
public:
    Boxed() = default;
    Boxed(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT(implicit)
    Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
    Boxed(Boxed&&) noexcept = default;
    Boxed& operator=(const Boxed& o) {
        if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
        return *this;
    }
    Boxed& operator=(Boxed&&) noexcept = default;
    Boxed& operator=(T value) {
        p_ = std::make_unique<T>(std::move(value));
        return *this;
    }

    bool has_value() const { return p_ != nullptr; }
    explicit operator bool() const { return has_value(); }
    T& operator*() { return *p_; }
    const T& operator*() const { return *p_; }
    T* operator->() { return p_.get(); }
    const T* operator->() const { return p_.get(); }
    template <class... Args>
    T& emplace(Args&&... args) {
        p_ = std::make_unique<T>(std::forward<Args>(args)...);
        return *p_;
    }
    void reset() { p_.reset(); }

    bool operator==(const Boxed& o) const { return p_ == o.p_ || (p_ && o.p_ && *p_ == *o.p_); }

private:
    std::unique_ptr<T> p_;
};

}  // namespace lk
