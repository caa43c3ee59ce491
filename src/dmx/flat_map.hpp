// A string -> value map by open addressing, for the binary writer's string table: a map of a
// document's tens of thousands of element names and string values, looked up once each, where
// std::unordered_map spends most of its time allocating and chasing nodes. Keys are views: the
// strings must outlive the map.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace lk::dmx::detail {

template <class V>
class FlatStringMap {
public:
    FlatStringMap() { rehash(16); }

    std::size_t size() const { return size_; }
    void reserve(std::size_t n) {
        if (2 * n > slots_.size()) rehash(std::bit_ceil(2 * n));
    }

    // The value of `key`, or null.
    const V* find(std::string_view key) const {
        const std::uint64_t h = hash(key);
        for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.hash == 0) return nullptr;
            if (s.hash == h && s.key == key) return &s.value;
        }
    }
    // Inserts (key, value) unless the key is there; the value in the map, and whether it was
    // inserted (as try_emplace).
    std::pair<V*, bool> try_emplace(std::string_view key, V value) {
        if (2 * (size_ + 1) > slots_.size()) rehash(2 * slots_.size());
        const std::uint64_t h = hash(key);
        for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.hash == 0) {
                s = {h, key, std::move(value)};
                ++size_;
                return {&s.value, true};
            }
            if (s.hash == h && s.key == key) return {&s.value, false};
        }
    }

private:
    struct Slot {
        std::uint64_t hash = 0;  // 0: empty (no key hashes to 0)
        std::string_view key;
        V value{};
    };
    // Keys are mostly short (attribute names, materials, element names), looked up hundreds of
    // thousands of times a document: a word at a time, inline, with a final mix so that the
    // low bits (the slot) depend on every byte. Only lookups use it: no output depends on it.
    static std::uint64_t hash(std::string_view key) {
        const char* p = key.data();
        std::size_t n = key.size();
        std::uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
        for (; n >= 8; p += 8, n -= 8) {
            std::uint64_t w;
            std::memcpy(&w, p, 8);
            h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
            h ^= h >> 29;
        }
        if (n) {
            std::uint64_t w = 0;
            for (std::size_t i = 0; i < n; ++i)
                w |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
            h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        }
        h ^= h >> 32;
        h *= 0x94D049BB133111EBull;
        h ^= h >> 29;
        return h ? h : 1;
    }
    void rehash(std::size_t n) {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(n, Slot{});
        mask_ = n - 1;
        for (Slot& s : old) {
            if (s.hash == 0) continue;
            std::size_t i = s.hash & mask_;
            while (slots_[i].hash != 0) i = (i + 1) & mask_;
            slots_[i] = std::move(s);
        }
    }

    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    std::size_t size_ = 0;
};

}  // namespace lk::dmx::detail
