// Internal interfaces between the DMX reader/writer translation units.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/dmx/document.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/dmx/packed.hpp"

namespace lk::dmx::detail {

// --- header (header.cpp) ---

struct ParsedHeader {
    Header header;
    std::size_t end = 0;  // offset just past "-->"
};
// Parses the header line at the start of `text`.
Result<ParsedHeader> parse_header(std::string_view text);
// The header line the writers produce (without line break).
std::string header_line(const Header& h);
// The line the writer uses: `h.text` when set, else header_line(h).
std::string_view header_text(const Header& h, std::string& scratch);

// Asks for an element's attribute list ahead of a pass over it. The writer's passes over a
// large datamodel (element order, string gathering, the attributes themselves) wait on memory
// more than they compute: an element's few attributes are 56-byte records in a list of their
// own, too short for the hardware to see a stream, so they are fetched together up front.
inline void prefetch_attributes(const Element& e) {
    const char* p = reinterpret_cast<const char*>(e.attributes.data());
    const char* end = reinterpret_cast<const char*>(e.attributes.data() + e.attributes.size());
    for (; p < end; p += 64) __builtin_prefetch(p);
}

// --- binary (binary_reader.cpp / binary_writer.cpp) ---

// Binary layout version: legacy headers use the version 1 body layout.
int binary_layout_version(const Header& h);
bool binary_version_supported(int version);
// Whether binary layout `version` can store type `t`.
bool binary_can_hold(int version, Type t);

Result<void> read_binary(ByteSpan data, std::size_t body_offset, Document& doc);
Result<void> write_binary(const Document& doc, ByteWriter& out);

// --- keyvalues2 (kv2_reader.cpp / kv2_writer.cpp) ---

bool kv2_can_hold(int version, Type t);
Result<void> read_kv2(std::string_view text, std::size_t body_offset, Document& doc,
                      const ReadOptions& opt);
struct Kv2WriteOptions {
    bool layout_hints = true;
    bool dump = false;  // ignore kv2 layout state of the document (fresh Valve layout)
};
Result<void> write_kv2(const Document& doc, std::string& out, const Kv2WriteOptions& opt);
Result<void> write_kv2(const Document& doc, Bytes& out, const Kv2WriteOptions& opt);

// --- binary layout computations shared by the binary writer and the kv2 hint writer
//     (layout.cpp) ---

// Whether `e` is written as an entry of the binary element index.
bool in_binary_index(const Document& doc, ElementRef e);
// The binary element order the document's BinaryLayout asks for (root first).
std::vector<ElementRef> binary_element_order(const Document& doc);
// An element order by policy (no unreachable placement): elements reachable from the root.
std::vector<ElementRef> policy_order(const Document& doc, BinaryLayout::ElementOrder policy);
// The strings a binary writer of `version` puts in the table, in Valve's gather order (with
// "$prefix_attribute$" for a duplicated prefix element), each once.
std::vector<std::string_view> valve_gather(const Document& doc,
                                           const std::vector<ElementRef>& order, int version);
// The same for a document with packed subtrees (`pack_of`: PackedSubtrees::pack_of).
std::vector<std::string_view> valve_gather(const Document& doc,
                                           const std::vector<ElementRef>& order, int version,
                                           const PackedSubtrees& packed,
                                           const std::vector<std::int32_t>& pack_of);
// `gather` with `inserts` placed at their table positions (and not repeated where gathered).
std::vector<std::string> merge_inserts(
    const std::vector<std::string_view>& gather,
    const std::vector<std::pair<std::uint32_t, std::string>>& inserts);
// The strings a table must hold (no unsaved attribute names), each once, in gather order.
std::vector<std::string_view> needed_strings(const Document& doc,
                                             const std::vector<ElementRef>& order, int version);
// The string table for writing.
std::vector<std::string> binary_string_table(const Document& doc,
                                             const std::vector<ElementRef>& order, int version);

// Describes the document's binary layout as a `// levelkit-binary` hint for kv2 output, given
// the kv2 text ordinal of each element (or -1). Empty when Valve's defaults reproduce it.
std::string binary_layout_hint(const Document& doc, const std::vector<std::int32_t>& text_ordinal);
// Applies a hint read from kv2 (text ordinals = element indices in `doc`).
Result<void> apply_binary_layout_hint(std::string_view hint, Document& doc);

}  // namespace lk::dmx::detail
