#include "levelkit/dmx/value.hpp"

#include <cstring>

namespace lk::dmx {

Value Value::of_type(Type t) {
    Value v;
    const std::size_t index = detail::index_of(t);
    // Build the alternative at `index` default-constructed by recursing over the indices.
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((I == index ? (v.v_.emplace<I>(), 0) : 0), ...);
    }
    (std::make_index_sequence<std::variant_size_v<detail::Storage>>{});
    return v;
}

std::size_t Value::array_size() const {
    return visit([](const auto& x) -> std::size_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (requires {
                          x.size();
                          typename T::value_type;
                      } &&
                      !std::is_same_v<T, std::string> && !std::is_same_v<T, Binary>) {
            return x.size();
        } else {
            return 0;
        }
    });
}

namespace {

template <class T>
bool bits_equal(const T& a, const T& b) {
    if constexpr (std::is_trivially_copyable_v<T>) {
        return std::memcmp(&a, &b, sizeof(T)) == 0;
    } else {
        return a == b;
    }
}

template <class T>
bool bits_equal(const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size()) return false;
    if constexpr (std::is_trivially_copyable_v<T> && !std::is_same_v<T, bool>) {
        return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
    } else {
        return a == b;
    }
}

}  // namespace

bool Value::operator==(const Value& o) const {
    if (v_.index() != o.v_.index()) return false;
    return visit([&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        return bits_equal(x, *o.get_if<T>());
    });
}

}  // namespace lk::dmx
