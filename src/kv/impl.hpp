// Internal representation of kv::Document (shared by parse.cpp, document.cpp, edit.cpp).
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/kv/keyvalues.hpp"

namespace lk::kv {

using detail::kArenaBit;
using detail::NodeRec;

enum NodeFlags : std::uint8_t {
    kKeyUnquoted = 1 << 0,
    kValueUnquoted = 1 << 1,
    kRawKey = 1 << 2,     // write layout.raw_key instead of the key (concatenation/escapes)
    kRawValue = 1 << 3,   // write layout.raw_value instead of the value
    kAnonymous = 1 << 4,  // block without a name token: `{ ... }`
};

// Non-canonical text around a node. Only nodes that need one have one; the views point into
// the source or the arena, both stable.
struct Layout {
    enum Mask : std::uint8_t {
        kBefore = 1,
        kMid = 2,
        kClose = 4,
        kCondAfterKey = 8,
        kCondAfterValue = 16,
        kOffset = 32,  // `offset` holds the source position (the key lives in the arena)
    };
    std::uint8_t mask = 0;
    std::uint32_t offset = 0;
    std::string_view before;     // whitespace/comments before the first token
    std::string_view mid;        // between key and value / '{' (or before the condition)
    std::string_view close;      // before '}' of a block (root: bytes after the last node)
    std::string_view raw_key;    // source text of a concatenated/escaped key
    std::string_view raw_value;  // source text of a concatenated/escaped value
    std::string_view cond;       // "[$X]"
    std::string_view cond_gap;   // after-key: between cond and value/'{'; after-value: before cond
};

struct Document::Impl {
    Blob source;
    ParseOptions opt;
    detail::Storage store;
    std::vector<Layout> layouts;
    std::string eol = "\n";
    NodeId closed_at_end = kNone;  // ParseOptions::close_at_end closed this block at the end
    std::string indent = "\t";
    mutable std::unique_ptr<LineMap> lines;  // built on demand
    // Last child of every node; built on the first edit (parsing tracks it on its stack).
    std::vector<NodeId> last_child;
    char* chunk_cur = nullptr;
    std::size_t chunk_left = 0;
    std::uint32_t chunk_at = 0;  // the chunk chunk_cur points into
    std::size_t chunk_size = 0;  // that chunk's size
    // Chunks start small and double up to kChunk: a small document's few escaped strings do
    // not pay for a megabyte (fuzz_vmf spent a tenth of its time faulting in and poisoning
    // those pages); an offset within a chunk stays below 2^20.
    static constexpr std::size_t kChunk = std::size_t{1} << 20;
    static constexpr std::size_t kFirstChunk = std::size_t{1} << 12;

    Impl() {
        NodeRec root;
        root.kind = NodeKind::root;
        store.nodes.push_back(root);
    }

    std::vector<NodeRec>& nodes() { return store.nodes; }
    const std::vector<NodeRec>& nodes() const { return store.nodes; }
    std::string_view key(const NodeRec& n) const { return store.str(n.key_off, n.key_len); }
    std::string_view value(const NodeRec& n) const { return store.str(n.value_off, n.value_len); }

    // Copies `s` into the arena; returns its encoded offset.
    std::uint32_t store_string(std::string_view s) {
        // Empty strings are offset 0 (as set_key/set_value store them): the arena may have no
        // chunk yet.
        if (s.empty()) return 0;
        if (s.size() > 0xFFFFFFFFu) throw std::length_error("kv: string longer than 4 GiB");
        auto& chunks = store.chunks;
        if (s.size() > chunk_left) {
            if (chunks.size() >= 0x7FF) throw std::length_error("kv: arena full (2 GiB of edits)");
            if (s.size() > kChunk / 4) {
                // A chunk of its own; the current chunk stays current.
                // Not value-initialised (zeroing is wasted work: every byte is written first).
                chunks.push_back(std::make_unique_for_overwrite<char[]>(s.size()));
                std::memcpy(chunks.back().get(), s.data(), s.size());
                return kArenaBit | static_cast<std::uint32_t>((chunks.size() - 1) << 20);
            }
            chunk_size = std::min(kChunk, std::max({kFirstChunk, 2 * chunk_size, s.size()}));
            chunks.push_back(std::make_unique_for_overwrite<char[]>(chunk_size));
            chunk_at = static_cast<std::uint32_t>(chunks.size() - 1);
            chunk_cur = chunks.back().get();
            chunk_left = chunk_size;
        }
        const auto within = static_cast<std::uint32_t>(chunk_cur - chunks[chunk_at].get());
        std::memcpy(chunk_cur, s.data(), s.size());
        chunk_cur += s.size();
        chunk_left -= s.size();
        return kArenaBit | (chunk_at << 20) | within;
    }
    // A stable view of a copy of `s`.
    std::string_view intern(std::string_view s) {
        if (s.empty()) return {};
        return store.str(store_string(s), static_cast<std::uint32_t>(s.size()));
    }
    void set_key(NodeRec& n, std::string_view s) {
        n.key_off = s.empty() ? 0 : store_string(s);
        n.key_len = static_cast<std::uint32_t>(s.size());
    }
    void set_value(NodeRec& n, std::string_view s) {
        n.value_off = s.empty() ? 0 : store_string(s);
        n.value_len = static_cast<std::uint32_t>(s.size());
    }

    Layout& layout_of(NodeId id) {
        NodeRec& n = store.nodes[id];
        if (n.layout == kNone) {
            n.layout = static_cast<std::uint32_t>(layouts.size());
            layouts.emplace_back();
        }
        return layouts[n.layout];
    }
    const Layout* find_layout(NodeId id) const {
        const NodeRec& n = store.nodes[id];
        return n.layout == kNone ? nullptr : &layouts[n.layout];
    }

    void ensure_last_child() {
        if (!last_child.empty()) return;
        last_child.assign(store.nodes.size(), kNone);
        for (NodeId p = 0; p < store.nodes.size(); ++p) {
            for (NodeId c = store.nodes[p].first_child; c != kNone; c = store.nodes[c].next) {
                last_child[p] = c;
            }
        }
    }

    // Appends a new node as the last child of `parent` (editing path).
    NodeId append(NodeId parent, NodeKind kind) {
        ensure_last_child();
        const auto id = static_cast<NodeId>(store.nodes.size());
        NodeRec rec;
        rec.kind = kind;
        store.nodes.push_back(rec);
        last_child.push_back(kNone);
        if (last_child[parent] == kNone) {
            store.nodes[parent].first_child = id;
        } else {
            store.nodes[last_child[parent]].next = id;
        }
        last_child[parent] = id;
        return id;
    }

    const LineMap& line_map() const {
        if (!lines) lines = std::make_unique<LineMap>(source.text());
        return *lines;
    }
};

}  // namespace lk::kv
