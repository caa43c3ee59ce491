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
#include <span>
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
    // Reading a file in pieces (vmf::read_map on several threads): the text starts inside an
    // open top-level block with this key, and/or a top-level block still open at the end of the
    // text is closed there instead of being an error (Document::closed_at_end() tells).
    std::string_view open_block;
    bool close_at_end = false;

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

namespace detail {
// Internal layout, exposed only so Node's accessors inline. Strings are 32-bit offsets into the
// source text, or (high bit set) into a chunked arena that never moves: 11 bits of chunk index,
// 20 bits of offset in a 1 MiB chunk. 32 bytes a node keeps large maps at ~1x their size.
inline constexpr std::uint32_t kArenaBit = 0x80000000u;
struct NodeRec {
    std::uint32_t key_off = 0;
    std::uint32_t key_len = 0;
    std::uint32_t value_off = 0;
    std::uint32_t value_len = 0;
    NodeId first_child = kNone;
    NodeId next = kNone;
    std::uint32_t layout = kNone;  // index of non-canonical layout text, if any
    NodeKind kind = NodeKind::value;
    std::uint8_t flags = 0;
};
struct Storage {
    std::vector<NodeRec> nodes;
    const char* source = nullptr;
    std::vector<std::unique_ptr<char[]>> chunks;

    std::string_view str(std::uint32_t off, std::uint32_t len) const {
        if (off & kArenaBit) return {chunks[(off >> 20) & 0x7FFu].get() + (off & 0xFFFFFu), len};
        return {source + off, len};
    }
};
}  // namespace detail

// A lightweight handle to a node; cheap to copy; valid while its Document lives.
class Node {
public:
    Node() = default;
    Node(const Document* doc, NodeId id) : doc_(doc), id_(id) {}

    bool valid() const { return doc_ != nullptr && id_ != kNone; }
    explicit operator bool() const { return valid(); }
    NodeId id() const { return id_; }
    NodeKind kind() const { return rec().kind; }
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
        Iterator& operator++() {
            id_ = Node(doc_, id_).rec().next;
            return *this;
        }
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
    Iterator begin() const { return {doc_, rec().first_child}; }
    Iterator end() const { return {doc_, kNone}; }
    Node first_child() const { return {doc_, rec().first_child}; }
    Node next_sibling() const { return {doc_, rec().next}; }
    std::size_t child_count() const;

    // First child whose key equals `key` case-insensitively (Valve's lookup rule), or invalid.
    Node find(std::string_view key) const;
    // Value of the first child value-node named `key`, or `fallback`.
    std::string_view get(std::string_view key, std::string_view fallback = {}) const;

private:
    const detail::NodeRec& rec() const;
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

    // Streaming: `on_close` is called each time a block closes, with the block and the ids of
    // its open ancestors (root first). Returning true drops the block's subtree from the
    // document, so a reader that turns subtrees into its own objects as they complete keeps
    // memory bounded by the largest subtree it leaves in place. A dropped block's node ids are
    // reused; keep offsets, not ids.
    using BlockClosed =
        std::function<bool(const Document& doc, Node block, std::span<const NodeId> ancestors)>;
    static Result<Document> parse(Blob source, const ParseOptions& opt, Diagnostics* warnings,
                                  const BlockClosed& on_close);
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
    const LineMap& lines() const;
    // Source line ending ("\n" or "\r\n") and indent unit ("\t" for Hammer files) that edited
    // nodes are written with.
    std::string_view eol() const;
    // The top-level block ParseOptions::close_at_end closed at the end of the text, if any.
    NodeId closed_at_end() const;
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
    // Part of impl_, reachable from inline Node accessors (Impl's address is stable).
    const detail::Storage* store_ = nullptr;
};

inline const detail::NodeRec& Node::rec() const {
    return doc_->store_->nodes[id_];
}
inline std::string_view Node::key() const {
    const detail::NodeRec& r = rec();
    return doc_->store_->str(r.key_off, r.key_len);
}
inline std::string_view Node::value() const {
    const detail::NodeRec& r = rec();
    return doc_->store_->str(r.value_off, r.value_len);
}

// Quotes a string for output in the VMF dialect. Hammer has no escape for `"`, so a value that
// contains one cannot be written; callers should check `is_writable`.
bool is_writable(std::string_view value);

// The reader every module has: input, warnings, options (Document::parse).
Result<Document> read(Blob source, Diagnostics& warnings, const ParseOptions& opt = {});
Result<Document> read(std::string_view text, Diagnostics& warnings, const ParseOptions& opt = {});

}  // namespace lk::kv
