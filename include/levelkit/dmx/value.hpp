// A typed DMX attribute value: one of the 34 DMX types (scalars and arrays), owning its data.
//
// Arrays are contiguous std::vector<T> of the value structs in types.hpp, so a binary file's
// array payload is read with a single copy and a schema layer can take spans of it.
#pragma once

#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "levelkit/dmx/types.hpp"

namespace lk::dmx {

namespace detail {

// Heap box with value semantics, so the rare 64-byte matrix does not widen every Value.
template <class T>
class Box {
public:
    Box() : p_(std::make_unique<T>()) {}
    explicit Box(T v) : p_(std::make_unique<T>(std::move(v))) {}
    Box(const Box& o) : p_(std::make_unique<T>(*o.p_)) {}
    Box(Box&&) noexcept = default;
    Box& operator=(const Box& o) {
        if (this != &o) *p_ = *o.p_;
        return *this;
    }
    Box& operator=(Box&&) noexcept = default;
    T& get() { return *p_; }
    const T& get() const { return *p_; }
    bool operator==(const Box& o) const { return *p_ == *o.p_; }

private:
    std::unique_ptr<T> p_;
};

// Alternative index = (scalar type id - 1), arrays after the 17 scalars.
using Storage =
    std::variant<ElementRef, std::int32_t, float, bool, std::string, Binary, Time, Color, Vector2,
                 Vector3, Vector4, QAngle, Quaternion, Box<Matrix>, std::uint64_t, std::uint8_t,
                 Guid, std::vector<ElementRef>, std::vector<std::int32_t>, std::vector<float>,
                 Box<std::vector<bool>>, std::vector<std::string>, std::vector<Binary>,
                 std::vector<Time>, std::vector<Color>, std::vector<Vector2>, std::vector<Vector3>,
                 std::vector<Vector4>, std::vector<QAngle>, std::vector<Quaternion>,
                 std::vector<Matrix>, std::vector<std::uint64_t>, std::vector<std::uint8_t>,
                 std::vector<Guid>>;

constexpr std::size_t index_of(Type t) {
    const int v = static_cast<int>(t);
    return is_array(t) ? static_cast<std::size_t>(kScalarTypeCount + v - kArrayOffset - 1)
                       : static_cast<std::size_t>(v - 1);
}
constexpr Type type_at(std::size_t index) {
    return index < kScalarTypeCount
               ? static_cast<Type>(index + 1)
               : static_cast<Type>(index - kScalarTypeCount + kArrayOffset + 1);
}

template <class T>
struct StoredAs {
    using type = T;
};
// Boxed: types much larger than the others (a matrix is 64 bytes, a bool vector 40 where every
// other array is 24), so that a value, and with it every attribute, stays small.
template <>
struct StoredAs<Matrix> {
    using type = Box<Matrix>;
};
template <>
struct StoredAs<std::vector<bool>> {
    using type = Box<std::vector<bool>>;
};
template <class S>
struct Unboxed {
    using type = S;
};
template <class T>
struct Unboxed<Box<T>> {
    using type = T;
};
template <class S>
inline constexpr bool is_box = !std::is_same_v<typename Unboxed<S>::type, S>;

template <class T, std::size_t I = 0>
constexpr std::size_t find_index() {
    if constexpr (I == std::variant_size_v<Storage>) {
        return I;
    } else if constexpr (std::is_same_v<std::variant_alternative_t<I, Storage>,
                                        typename StoredAs<T>::type>) {
        return I;
    } else {
        return find_index<T, I + 1>();
    }
}

}  // namespace detail

// The C++ type that holds values of DMX type T (Matrix for Type::matrix, std::vector<Vector3>
// for Type::vector3_array, ...).
template <Type T>
using CppType = typename detail::Unboxed<
    std::variant_alternative_t<detail::index_of(T), detail::Storage>>::type;

// The DMX type of C++ type T; only valid for the types listed in CppType.
template <class T>
inline constexpr Type type_of = detail::type_at(detail::find_index<T>());

template <class T>
inline constexpr bool is_value_type =
    detail::find_index<T>() < std::variant_size_v<detail::Storage>;

class Value {
public:
    Value() = default;  // int32 0
    template <class T, class = std::enable_if_t<is_value_type<std::decay_t<T>>>>
    Value(T&& v)  // NOLINT(implicit): a value is its payload
        : v_(std::in_place_index<detail::find_index<std::decay_t<T>>()>,
             typename detail::StoredAs<std::decay_t<T>>::type(std::forward<T>(v))) {}
    Value(std::string_view s) : Value(std::string(s)) {}  // NOLINT(implicit)
    Value(const char* s) : Value(std::string(s)) {}       // NOLINT(implicit)

    // A default (zero / empty) value of type t.
    static Value of_type(Type t);

    Type type() const { return detail::type_at(v_.index()); }
    bool is_array() const { return dmx::is_array(type()); }

    template <class T>
    bool holds() const {
        return v_.index() == detail::find_index<T>();
    }
    // The payload if this value is exactly of type T, else nullptr.
    template <class T>
    const T* get_if() const {
        auto* p = std::get_if<detail::find_index<T>()>(&v_);
        if constexpr (detail::is_box<typename detail::StoredAs<T>::type>) {
            return p ? &p->get() : nullptr;
        } else {
            return p;
        }
    }
    template <class T>
    T* get_if() {
        return const_cast<T*>(std::as_const(*this).get_if<T>());
    }
    template <class T>
    const T& get() const {
        const T* p = get_if<T>();
        assert(p);
        return *p;
    }
    template <class T>
    T& get() {
        T* p = get_if<T>();
        assert(p);
        return *p;
    }

    // Scalar conversion the way Valve's datamodel converts a stored value to a declared attribute
    // type (notes/dmx.md §2): between int32, float32, bool, time (seconds), uint64 and uint8, and
    // between vector3/qangle and vector4/quaternion (same layout). Out-of-range integers and other
    // pairs give nullopt. Exact types always convert.
    template <class T>
    std::optional<T> as() const;

    // Number of items of an array value (0 for scalars).
    std::size_t array_size() const;

    // Calls f(payload) with the stored C++ value (Matrix, not its box).
    template <class F>
    decltype(auto) visit(F&& f) const {
        return std::visit(
            [&](const auto& x) -> decltype(auto) {
                if constexpr (detail::is_box<std::decay_t<decltype(x)>>) {
                    return f(x.get());
                } else {
                    return f(x);
                }
            },
            v_);
    }
    template <class F>
    decltype(auto) visit(F&& f) {
        return std::visit(
            [&](auto& x) -> decltype(auto) {
                if constexpr (detail::is_box<std::decay_t<decltype(x)>>) {
                    return f(x.get());
                } else {
                    return f(x);
                }
            },
            v_);
    }

    // Bitwise equality for floats (NaN payloads, -0) so "equal" means "writes the same bytes".
    bool operator==(const Value& o) const;

private:
    detail::Storage v_;
};

namespace detail {

// A numeric scalar as double (time in seconds), or nullopt for non-numeric types.
inline std::optional<double> numeric(const Value& v) {
    switch (v.type()) {
        case Type::int32:
            return v.get<std::int32_t>();
        case Type::float32:
            return v.get<float>();
        case Type::boolean:
            return v.get<bool>() ? 1.0 : 0.0;
        case Type::time:
            return v.get<Time>().seconds();
        case Type::uint64:
            return static_cast<double>(v.get<std::uint64_t>());
        case Type::uint8:
            return v.get<std::uint8_t>();
        default:
            return std::nullopt;
    }
}

template <class I>
std::optional<I> to_integer(const Value& v) {
    if (const auto* u = v.get_if<std::uint64_t>()) {
        if (*u > static_cast<std::uint64_t>(std::numeric_limits<I>::max())) return std::nullopt;
        return static_cast<I>(*u);
    }
    if (v.type() == Type::time) return std::nullopt;  // ticks vs seconds is ambiguous
    const auto d = numeric(v);
    // Exclusive bound 2^digits: max() itself rounds up to it as a double for 64-bit types, and
    // casting 2^64 to uint64 is undefined behaviour.
    const double hi = std::ldexp(1.0, std::numeric_limits<I>::digits);
    if (!d || !(*d >= static_cast<double>(std::numeric_limits<I>::min())) || !(*d < hi)) {
        return std::nullopt;
    }
    return static_cast<I>(*d);  // truncates toward zero, as a C cast does
}

}  // namespace detail

template <class T>
std::optional<T> Value::as() const {
    if (const T* p = get_if<T>()) return *p;
    if constexpr (std::is_same_v<T, float>) {
        if (auto d = detail::numeric(*this)) return static_cast<float>(*d);
    } else if constexpr (std::is_same_v<T, bool>) {
        if (auto d = detail::numeric(*this)) return *d != 0;
    } else if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint64_t> ||
                         std::is_same_v<T, std::uint8_t>) {
        return detail::to_integer<T>(*this);
    } else if constexpr (std::is_same_v<T, Time>) {
        if (type() == Type::float32) {
            const double ticks = static_cast<double>(get<float>()) * Time::kTicksPerSecond;
            if (ticks >= INT32_MIN && ticks <= INT32_MAX) {
                return Time{static_cast<std::int32_t>(ticks < 0 ? ticks - 0.5 : ticks + 0.5)};
            }
        }
    } else if constexpr (std::is_same_v<T, Vector3>) {
        if (auto* q = get_if<QAngle>()) return Vector3{q->x, q->y, q->z};
    } else if constexpr (std::is_same_v<T, QAngle>) {
        if (auto* q = get_if<Vector3>()) return QAngle{q->x, q->y, q->z};
    } else if constexpr (std::is_same_v<T, Vector4>) {
        if (auto* q = get_if<Quaternion>()) return Vector4{q->x, q->y, q->z, q->w};
    } else if constexpr (std::is_same_v<T, Quaternion>) {
        if (auto* q = get_if<Vector4>()) return Quaternion{q->x, q->y, q->z, q->w};
    }
    return std::nullopt;
}

}  // namespace lk::dmx
