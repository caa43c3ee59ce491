// KeyValues-1 text (VMF, BSP entity lumps, gameinfo.txt, VMT, ...): a lossless tree.
//
// The default dialect is Hammer's VMF reader (CChunkFile/TokenReader), which differs from
// Valve's tier1 KeyValues in ways that matter for real files:
//   * a quoted string ends at the next `"`; there is no escape processing (raw bytes kept, so
//     `models\npcs` stays a backslash + n). `ParseOptions::escapes` turns on KeyValues escapes;
//   * `//` comments run to the end of the line, between tokens only;
//   * `"a" + "b"` concatenates;
//   * keys and values are raw bytes (UTF-8, cp1251, ESC 0x1B all survive);
//   * duplicate keys and the interleaving of keys and blocks are kept in order.
// General KeyValues extras (ParseOptions::keyvalues()): `[$CONDITION]` tags are kept on the node
// and can be evaluated; `#include` / `#base` directives become directive nodes a caller can
// resolve with a callback.
//
// Lossless: `write(parse(text)) == text` for every input that parses. The tree stores, besides
// keys and values, only what differs from the document's canonical layout (detected line ending
// and indent unit): whitespace and comments between tokens that are not canonical, unquoted
// tokens, and the raw text of concatenated or escaped strings. Edited or new nodes are written
// in the canonical layout.
//
// Strings returned by accessors view the source buffer or the document's arena; they stay valid
// as long as the Document lives (the arena never moves strings).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/file.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/core/text.hpp"

namespace lk::kv {

using NodeId = std::uint32_t;
inline constexpr NodeId kNone = 0xFFFFFFFFu;

struct ParseOptions {
    bool escapes = false;     // process \n \t \" \\ ... inside quoted strings
    bool conditions = false;  // `[$X]` / `[!$X]` tags after keys/values
    bool directives = false;  // `#include "f"` / `#base "f"` lines
    // Hammer rejects keys/values longer than 1023 bytes (MAX_KEYVALUE_LEN 1024); when set, the
    // parser warns about them (the value is still kept whole).
    bool warn_long_values = true;

    static ParseOptions vmf() { return {}; }
    static ParseOptions keyvalues() { return {false, true, true, false}; }
};

enum class NodeKind : std::uint8_t {
    root,       // the document itself (holds the top-level items)
    value,      // "key" "value"
    block,      // key { ... }  (key may be empty for anonymous blocks, as in entity lumps)
    directive,  // #include "file" / #base "file" (key is "#include" / "#base")
};

class Document;

// A lightweight handle to a node; cheap to copy; valid while its Document lives.
class Node {
  public:
    Node() = default;
    Node(const Document* doc, NodeId id) : doc_(doc), id_(id) {}

    bool valid() const { return doc_ != nullptr && id_ != kNone; }
    explicit operator bool() const { return valid(); }
    NodeId id() const { return id_; }
    NodeKind kind() const;
    bool is_block() const { return kind() == NodeKind::block || kind() == NodeKind::root; }
    bool is_value() const { return kind() == NodeKind::value; }
    std::string_view key() const;
    std::string_view value() const;      // empty for blocks
    std::string_view condition() const;  // "[$WIN32]" or empty
    // Byte offset of the node's first token in the source (0 for nodes added later).
    std::size_t offset() const;

    // Children in order.
    class Iterator {
      public:
        using value_type = Node;
        using difference_type = std::ptrdiff_t;
        Iterator() = default;
        Iterator(const Document* d, NodeId id) : doc_(d), id_(id) {}
        Node operator*() const { return {doc_, id_}; }
        Iterator& operator++();
        Iterator operator++(int) {
            Iterator t = *this;
            ++*this;
            return t;
        }
        bool operator==(const Iterator& o) const { return id_ == o.id_; }

      private:
        const Document* doc_ = nullptr;
        NodeId id_ = kNone;
    };
    Iterator begin() const;
    Iterator end() const { return {doc_, kNone}; }
    Node first_child() const;
    Node next_sibling() const;
    std::size_t child_count() const;

    // First child whose key equals `key` case-insensitively (Valve's lookup rule), or invalid.
    Node find(std::string_view key) const;
    // Value of the first child value-node named `key`, or `fallback`.
    std::string_view get(std::string_view key, std::string_view fallback = {}) const;

  private:
    const Document* doc_ = nullptr;
    NodeId id_ = kNone;
};

// Evaluates a condition tag like "[$WIN32]", "[!$X360]", "[$WIN32||$OSX]", "[$A&&!$B]" against
// the set of defined symbols (names without '$', case-insensitive). Unknown symbols are false.
bool evaluate_condition(std::string_view condition, const std::vector<std::string>& defined);

class Document {
  public:
    Document();
    Document(Document&&) noexcept;
    Document& operator=(Document&&) noexcept;
    ~Document();

    // Parses `source` (kept alive by the Document). Warnings go to `warnings` if given.
    static Result<Document> parse(Blob source, const ParseOptions& opt = {},
                                  Diagnostics* warnings = nullptr);
    static Result<Document> parse(std::string_view text, const ParseOptions& opt = {},
                                  Diagnostics* warnings = nullptr);

    // Serialises the whole tree (lossless for unedited parts).
    std::string write() const;
    void write_to(std::string& out) const;
    // Serialises one block's subtree (as it would appear at depth 0) in canonical layout.
    std::string write_subtree(NodeId id) const;

    Node root() const { return {this, 0}; }
    Node node(NodeId id) const { return {this, id}; }
    std::size_t node_count() const;
    const Blob& source() const;
    const ParseOptions& options() const;
    // Line/column of a byte offset in the source.
    TextPos locate(std::size_t offset) const;
    // Source line ending ("\n" or "\r\n") and indent unit ("\t" for Hammer files) that edited
    // nodes are written with.
    std::string_view eol() const;
    std::string_view indent_unit() const;

    // --- editing (new/edited nodes are written canonically) ---
    NodeId add_value(NodeId parent, std::string_view key, std::string_view value);
    NodeId add_block(NodeId parent, std::string_view key);
    void set_value(NodeId id, std::string_view value);
    void set_key(NodeId id, std::string_view key);
    // Unlinks a node (and its subtree) from its parent.
    void remove(NodeId id);
    void set_layout(std::string_view eol, std::string_view indent_unit);
    // Copies `src`'s subtree (from any document) under `parent`; returns the new node.
    NodeId copy_subtree(NodeId parent, const Document& from, NodeId src);

    // --- directives ---
    // Called for each #include/#base directive at the top level, in order: (kind, path) ->
    // the parsed document to merge, or an error. #include appends the included items;
    // #base adds only top-level keys the document does not already have (Valve's rule).
    // Returns a new, merged document; the originals stay unchanged.
    using Resolver =
        std::function<Result<Document>(std::string_view directive, std::string_view path)>;
    Result<Document> resolve_directives(const Resolver& resolver, int max_depth = 16) const;

    // Returns a copy with every node whose condition is false removed (conditions dropped).
    Document evaluated(const std::vector<std::string>& defined) const;

    struct Impl;

  private:
    friend class Node;
    std::unique_ptr<Impl> impl_;
};

// Quotes a string for output in the VMF dialect. Hammer has no escape for `"`, so a value that
// contains one cannot be written; callers should check `is_writable`.
bool is_writable(std::string_view value);

}  // namespace lk::kv
