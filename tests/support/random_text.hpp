// Random spellings for the tests that read the same text by a fast and a general path: a seeded
// generator (the same texts every run), a choice below n, and a run of random digits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

namespace lk::test {

class RandomText {
public:
    explicit RandomText(std::uint32_t seed) : rng_(seed) {}
    std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
    std::string digits(std::size_t n) {
        std::string d;
        for (std::size_t i = 0; i < n; ++i) d += static_cast<char>('0' + pick(10));
        return d;
    }

private:
    std::mt19937 rng_;
};

}  // namespace lk::test
