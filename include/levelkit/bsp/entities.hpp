// The entity lump (lump 0): a sequence of anonymous `{ "key" "value" ... }` blocks, parsed with
// the lossless KeyValues reader (Hammer dialect: no escapes, raw bytes, duplicate keys kept),
// followed by a NUL terminator.
//
// Entity outputs ("connections") are ordinary key/values whose value has five fields,
// separated by commas in older games or by ESC (0x1B) since Left 4 Dead:
//   target, input, parameter, delay, times-to-fire
// A value counts as an output if it contains ESC, or has exactly four commas and numeric delay
// and times fields (the only signal older maps give).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/kv/keyvalues.hpp"

namespace lk::bsp {

enum class OutputSeparator : std::uint8_t { none, comma, esc };

// The fields view the key/value strings they were parsed from.
struct EntityOutput {
    std::string_view output;  // the key, e.g. "OnTrigger"
    std::string_view target;
    std::string_view input;
    std::string_view parameter;
    double delay = 0;
    std::int64_t times = -1;  // -1 = unlimited
    OutputSeparator separator = OutputSeparator::comma;
};

class EntityLump {
public:
    // Parses the lump's text up to its first NUL; the NUL and anything after it are kept.
    // Errors carry line:column and the path "lump[0]".
    static Result<EntityLump> parse(Blob lump, Diagnostics* warnings = nullptr);
    // The lump bytes: write(parse(x)) == x.
    Bytes write() const;

    const kv::Document& document() const { return doc_; }
    kv::Document& document() { return doc_; }
    // The entity blocks in order (worldspawn first in compiled maps).
    std::vector<kv::Node> entities() const;
    std::size_t size() const;
    // The separator the map's outputs use (none if it has no outputs).
    OutputSeparator separator() const { return separator_; }

    static std::optional<EntityOutput> parse_output(std::string_view key, std::string_view value);

private:
    kv::Document doc_;
    std::string trailer_;  // the terminating NUL and anything after it
    OutputSeparator separator_ = OutputSeparator::none;
};

Result<EntityLump> entities(const Bsp& bsp, Diagnostics* warnings = nullptr);

// Checks `text` parses as an entity lump and stores it as lump 0, adding the terminating NUL if
// the text has none.
Result<void> replace_entities(Bsp& bsp, std::string_view text);

}  // namespace lk::bsp
