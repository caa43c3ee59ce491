// Reading, writing and converting Gamestudio level files.
//
// Every reader parses from memory and returns a located Diagnostic on bad input (line:column
// for text, byte offset for WMPB, plus a logical path such as `block[3]/face[2]/texture` or
// `object[12]/payload/skills`). Readers never throw and never read outside the input.
//
// Writers reproduce the input byte for byte when the document still carries the layout it was
// read with; documents built or converted in code are written in WED's own style.
#pragma once

#include <optional>
#include <string>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/wmp/level.hpp"

namespace lk::wmp {

// A read file: a WMP2/WMPB/`$$M` level, or an A3 map (dialect a3).
struct File {
    Dialect dialect = Dialect::wmp2_a6;
    Level level;
    A3Level a3;
};

// The dialect of `data` from its first bytes, or nullopt if it is none of them.
std::optional<Dialect> detect(ByteSpan data);

// Reads any dialect (detected from content). Warnings (e.g. counts that disagree with the
// records, dangling references) go to `warnings` when given.
Result<File> read(Blob data, Diagnostics* warnings = nullptr);
struct ReadOptions {
    // The text readers (WMP2, `$$M`) read a plainly spelled face, vertex list, transform or
    // line of skills in one run of tokens; false leaves every token to the general lexer, the
    // reference the runs are tested against (the same level either way, errors included).
    bool record_runs = true;
};
// The reader every module has: input, warnings, options.
Result<File> read(Blob data, Diagnostics& warnings, const ReadOptions& opt = {});

Result<Level> read_wmp2(Blob data, Diagnostics* warnings = nullptr, const ReadOptions& opt = {});
Result<Level> read_mm(Blob data, Diagnostics* warnings = nullptr, const ReadOptions& opt = {});
Result<Level> read_wmpb(Blob data, Diagnostics* warnings = nullptr);
Result<A3Level> read_a3(Blob data, Diagnostics* warnings = nullptr);

// Serialises in the level's own dialect (text dialects as text, wmpb as binary).
Result<Bytes> write(const File& file);
Result<Bytes> write(const Level& level);
Result<std::string> write_text(const Level& level);  // wmp2_* and mm
Result<Bytes> write_wmpb(const Level& level);
std::string write_a3(const A3Level& a3);

// Converts between WMP2 text (`wmp2_a6`, or a4/a5 for old block syntax when possible) and
// WMPB: returns a copy in `target` without the source layout, records renumbered in WED's
// order (blocks, level, entities, objects, each in tree order). `$$M` is produced by
// resolve() instead. Fails if the level cannot be expressed (e.g. A4 plane blocks to WMPB).
Result<Level> convert(const Level& level, Dialect target);

// Semantic checks: dangling or repeated payload references, cycles in the object tree,
// out-of-range vertex indices, faces with fewer than 3 vertices, counts that disagree.
void validate(const Level& level, Diagnostics& out);

}  // namespace lk::wmp
