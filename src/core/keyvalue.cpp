#include "levelkit/core/keyvalue.hpp"

#include "levelkit/core/text.hpp"

namespace lk {

const std::string* find_key(const KeyValues& keys, std::string_view key) {
    for (const KeyValue& kv : keys) {
        if (iequals(kv.key, key)) return &kv.value;
    }
    return nullptr;
}

void set_key(KeyValues& keys, std::string_view key, std::string_view value) {
    for (KeyValue& kv : keys) {
        if (iequals(kv.key, key)) {
            kv.value = std::string(value);
            return;
        }
    }
    keys.push_back({std::string(key), std::string(value)});
}

void erase_key(KeyValues& keys, std::string_view key) {
    std::erase_if(keys, [&](const KeyValue& kv) { return iequals(kv.key, key); });
}

}  // namespace lk
