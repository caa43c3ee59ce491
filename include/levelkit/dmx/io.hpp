// Reading and writing DMX files in every encoding (notes/dmx.md):
//   binary 1-9 (6 and 8 as documented by datamodel-rs), keyvalues2 1-4, keyvalues2_flat,
//   keyvalues2_noids, the legacy `<!-- DMXVersion ... -->` header, and gzip-wrapped files.
// The encoding is taken from the header, never from the file name.
//
// Lossless: write(read(f)) == f for any file read without error. Binary state (string table,
// element order, -1 strings, prefix duplicate) and keyvalues2 state (placement, learned layout
// style, spellings that differ from it) live in the Document (document.hpp).
//
// keyvalues2 output of a document read from binary carries the binary layout (string-table
// order, element order, Valve's unsaved attribute names) in one `// levelkit-binary ...` comment
// line after the header when it differs from Valve's defaults, so converting binary -> kv2 ->
// binary gives the original bytes. Valve's reader ignores comments; `dump` never writes it.
//
// Errors: binary errors carry the byte offset and a path ("element[3]/attribute 'origin'"),
// text errors line:column. Counts are checked against the remaining input before allocating.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/dmx/document.hpp"

namespace lk::dmx {

// keyvalues2 element nesting the reader accepts by default; the writer never nests deeper.
inline constexpr unsigned kDefaultMaxDepth = 512;

struct ReadOptions {
    std::string source_name;                // for diagnostics only
    unsigned max_depth = kDefaultMaxDepth;  // keyvalues2 nesting limit
    // Upper bound on the decompressed size of gzip input (a zip bomb guard).
    std::uint64_t max_inflated_size = std::uint64_t{4} << 30;
};

// True if `data` starts like a DMX file (or a gzip stream).
bool looks_like_dmx(ByteSpan data);

Result<Document> read(ByteSpan data, const ReadOptions& opt = {});
// The reader every module has: input, warnings, options. DMX reading has no warnings today
// (every oddity is kept or is an error); `warnings` is there for the shape.
Result<Document> read(ByteSpan data, Diagnostics& warnings, const ReadOptions& opt = {});

struct WriteOptions {
    // keyvalues2: write the `// levelkit-binary` layout comment when needed (see above).
    bool layout_hints = true;
};

// Writes the document in the encoding named by doc.header.
Result<Bytes> write(const Document& doc, const WriteOptions& opt = {});
// The same bytes, handed to `out` as they are made (binary without gzip: in pieces of about a
// megabyte, so a large datamodel is written without a second copy of it in memory).
Result<void> write_to(const Document& doc, ByteSink& out, const WriteOptions& opt = {});

// keyvalues2 text of the document (what Valve's dmxconvert prints), without layout hints.
// Uses keyvalues2 4 if the document needs v4 types or a prefix element, else version 1.
Result<std::string> dump_text(const Document& doc);

struct Encoding {
    std::string name;  // binary, keyvalues2, keyvalues2_flat, keyvalues2_noids
    int version = 0;
    // "keyvalues2:4", "binary:9", "binary 5"; nullopt if malformed or unknown.
    static std::optional<Encoding> parse(std::string_view text);
};

struct ConvertOptions {
    // Store uint8 as int32 and uint64 as int32 (when it fits) instead of failing when the target
    // encoding lacks those types (binary < 9, keyvalues2 1).
    bool coerce_integers = false;
    // When the target cannot hold prefix attributes (binary < 7, keyvalues2 < 4), keep them as
    // an ordinary unreferenced element instead of failing.
    bool demote_prefix = false;
    // New format name/version; empty = keep.
    std::optional<std::pair<std::string, int>> format;
};

// Prepares `doc` to be written in `target`: checks that every attribute type can be stored
// (error naming the element and attribute otherwise), applies the requested coercions and resets
// layout state that belongs to the old encoding. The datamodel (elements, attributes, order,
// GUIDs, references) is unchanged unless an option says otherwise.
Result<void> convert(Document& doc, const Encoding& target, const ConvertOptions& opt = {});

}  // namespace lk::dmx
