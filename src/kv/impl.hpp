// Internal representation of kv::Document (shared by parse.cpp, write.cpp, edit.cpp).
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/kv/keyvalues.hpp"

namespace lk::kv {

// Stable string storage: strings never move once stored.
class Arena {
  public:
    std::string_view store(std::string_view s) {
        if (s.empty()) return {};
        if (s.size() > left_) {
            if (s.size() > kChunk / 4) {
                chunks_.push_back(std::make_unique<char[]>(s.size()));
                std::memcpy(chunks_.back().get(), s.data(), s.size());
                return {chunks_.back().get(), s.size()};
            }
            chunks_.push_back(std::make_unique<char[]>(kChunk));
            cur_ = chunks_.back().get();
            left_ = kChunk;
        }
        std::memcpy(cur_, s.data(), s.size());
        std::string_view out(cur_, s.size());
        cur_ += s.size();
        left_ -= s.size();
        return out;
    }

  private:
    static constexpr std::size_t kChunk = 64 * 1024;
    std::vector<std::unique_ptr<char[]>> chunks_;
    char* cur_ = nullptr;
    std::size_t left_ = 0;
};

enum NodeFlags : std::uint8_t {
    kKeyUnquoted = 1 << 0,
    kValueUnquoted = 1 << 1,
    kRawKey = 1 << 2,     // write layout.raw_key instead of the key (concatenation/escapes)
    kRawValue = 1 << 3,   // write layout.raw_value instead of the value
    kAnonymous = 1 << 4,  // block without a name token: `{ ... }`
};

// Non-canonical text around a node. Only nodes that need one have one.
struct Layout {
    enum Mask : std::uint8_t {
        kBefore = 1,
        kMid = 2,
        kClose = 4,
        kCondAfterKey = 8,
        kCondAfterValue = 16
    };
    std::uint8_t mask = 0;
    std::string_view before;     // whitespace/comments before the first token
    std::string_view mid;        // between key and value / '{' (or before the condition)
    std::string_view close;      // before '}' of a block (root: bytes after the last node)
    std::string_view raw_key;    // source text of a concatenated/escaped key
    std::string_view raw_value;  // source text of a concatenated/escaped value
    std::string_view cond;       // "[$X]"
    std::string_view cond_gap;   // after-key: between cond and value/'{'; after-value: before cond
};

struct NodeRec {
    std::string_view key;
    std::string_view value;
    NodeId parent = kNone;
    NodeId first_child = kNone;
    NodeId last_child = kNone;
    NodeId next = kNone;
    std::uint32_t offset = 0;
    std::uint32_t layout = kNone;
    NodeKind kind = NodeKind::value;
    std::uint8_t flags = 0;
};

struct Document::Impl {
    Blob source;
    ParseOptions opt;
    std::vector<NodeRec> nodes;
    std::vector<Layout> layouts;
    Arena arena;
    std::string eol = "\n";
    std::string indent = "\t";
    std::unique_ptr<LineMap> lines;  // built on demand

    Impl() {
        NodeRec root;
        root.kind = NodeKind::root;
        nodes.push_back(root);
    }

    Layout& layout_of(NodeId id) {
        NodeRec& n = nodes[id];
        if (n.layout == kNone) {
            n.layout = static_cast<std::uint32_t>(layouts.size());
            layouts.emplace_back();
        }
        return layouts[n.layout];
    }
    const Layout* find_layout(NodeId id) const {
        const NodeRec& n = nodes[id];
        return n.layout == kNone ? nullptr : &layouts[n.layout];
    }

    NodeId append(NodeId parent, NodeKind kind) {
        const auto id = static_cast<NodeId>(nodes.size());
        NodeRec rec;
        rec.kind = kind;
        rec.parent = parent;
        nodes.push_back(rec);
        NodeRec& p = nodes[parent];
        if (p.last_child == kNone) {
            p.first_child = id;
        } else {
            nodes[p.last_child].next = id;
        }
        p.last_child = id;
        return id;
    }

    const LineMap& line_map() {
        if (!lines) lines = std::make_unique<LineMap>(source.text());
        return *lines;
    }
};

}  // namespace lk::kv
