// Helpers over the Level model shared by the readers, writers and the resolver.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "levelkit/wmp/level.hpp"

namespace lk::wmp {

// The float nearest to v, widened back to double. Through a volatile because GCC 12 (-O2 and
// up) otherwise drops the double -> float -> double round trip when its SLP vectorizer pairs
// the conversions of a vector's x and y.
inline double nearest_float(double v) {
    volatile float f = static_cast<float>(v);
    return f;
}

// How the text formats spell an absent string.
inline constexpr std::string_view kNdef = "ndef";

// The payload kind a text record holds (sun records belong to the level).
Kind kind_of(RecordKind k);
RecordKind record_kind_of(Kind k);

// Payloads of every kind in one index space: blocks, levels, models, lights, starts, sounds,
// paths, regions.
std::size_t payload_slot(const Level& lv, Kind k, std::size_t index);
std::size_t payload_slot_count(const Level& lv);
// The object owning each payload slot (nullptr if none; the first owner if several).
std::vector<const Object*> payload_owners(const Level& lv);

// The `number` of payload (k, index).
std::int64_t payload_number(const Level& lv, Kind k, std::size_t index);

// Objects in depth-first preorder from the root, then any object the root does not reach.
std::vector<std::uint32_t> object_preorder(const Level& lv);

// The order WED writes records in: for WMP2 blocks, the level, entities (tree order), then
// objects (tree order); for `$$M` the level, the sun and the entities.
std::vector<RecordRef> canonical_record_order(const Level& lv);

}  // namespace lk::wmp
