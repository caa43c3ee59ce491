// Ordered key/value lists as map formats keep them (entity keys, unknown fields): order and
// duplicates are preserved, lookups are case-insensitive as in Hammer and the engines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lk {

struct KeyValue {
    std::string key;
    std::string value;
    bool operator==(const KeyValue&) const = default;
};

using KeyValues = std::vector<KeyValue>;

// The first value of `key` (case-insensitive); nullptr if absent.
const std::string* find_key(const KeyValues& keys, std::string_view key);
// Replaces the first value of `key`, or appends the pair.
void set_key(KeyValues& keys, std::string_view key, std::string_view value);
// Removes every pair with `key`.
void erase_key(KeyValues& keys, std::string_view key);

}  // namespace lk
