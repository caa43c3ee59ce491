// A light KeyValues tree for the streaming VMF reader (read_map): the same nodes the lossless
// kv::Document gives (keys, values, blocks, source offsets), without the layout a lossless write
// needs, read by a tokenizer that handles only what real VMFs hold. The typed reader runs over
// either tree (TypedReader<Tree> in read.cpp), so the typed model is built by one piece of code.
//
// The typed reader may also read a block's body itself as the parser meets it (parse's
// on_open: a solid's sides and editors, TypedReader::take_block), where it holds only what it
// reads in the layout Hammer writes.
//
// The tokenizer gives up (returns false) wherever kv::Document::parse would do more than read
// tokens: a warning (a quoted string spanning a CR, a key or value past Hammer's 1023 bytes),
// an error of any kind, `"a" + "b"` concatenation, or an anonymous block. The caller then reads
// the text with kv::Document::parse, which gives the same tree with its diagnostics; on every
// text the tokenizer accepts, both give the same nodes, keys, values and offsets (a test and
// fuzz_vmf compare the two readers' models and diagnostics).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/kv/keyvalues.hpp"

namespace lk::vmf::detail {

struct LiteRec {
    const char* key = nullptr;  // in the source text (or the name of ParseOptions::open_block)
    const char* value = nullptr;
    std::uint32_t key_len = 0;
    std::uint32_t value_len = 0;
    std::uint32_t first_child = kv::kNone;
    std::uint32_t next = kv::kNone;
    std::uint32_t at = 0;  // offset of the node's first token (the key's opening quote)
    bool block = false;
    std::uint8_t taken = 0;  // what parse's on_open read it as from the text (0: not): no children
};

class LiteTree;

// The subset of kv::Node's interface the typed reader uses.
class LiteNode {
public:
    LiteNode() = default;
    LiteNode(const LiteTree* t, std::uint32_t id) : t_(t), id_(id) {}

    kv::NodeId id() const { return id_; }
    bool valid() const { return t_ != nullptr && id_ != kv::kNone; }
    explicit operator bool() const { return valid(); }
    bool is_block() const;  // the root counts as a block, as in kv::Node
    bool is_value() const { return !is_block(); }
    // What its reader read the block as from the text as it opened (LiteTree::parse's
    // on_open), or 0.
    std::uint8_t taken() const;
    std::string_view key() const;
    std::string_view value() const;
    std::size_t offset() const;

    class Iterator {
    public:
        Iterator(const LiteTree* t, std::uint32_t id) : t_(t), id_(id) {}
        LiteNode operator*() const { return {t_, id_}; }
        Iterator& operator++();
        bool operator==(const Iterator& o) const { return id_ == o.id_; }

    private:
        const LiteTree* t_;
        std::uint32_t id_;
    };
    Iterator begin() const;
    Iterator end() const { return {t_, kv::kNone}; }
    LiteNode first_child() const;
    LiteNode next_sibling() const;
    std::size_t child_count() const;
    LiteNode find(std::string_view key) const;
    std::string_view get(std::string_view key, std::string_view fallback = {}) const;

private:
    const LiteTree* t_ = nullptr;
    std::uint32_t id_ = kv::kNone;
};

class LiteTree {
public:
    explicit LiteTree(std::string_view text) : text_(text) { nodes_.reserve(256); }

    // Called as each block closes with the block and the ids of its open ancestors (root
    // first); true drops the block's subtree, as kv::Document::BlockClosed does. False: the
    // text needs kv::Document::parse (warnings, errors, 2 GiB or more...).
    //
    // on_open(key, at, ancestors, p, end) is called as each block opens (p just past its '{';
    // ancestors as for on_close, without the block): a kind other than 0 means the caller read
    // the block's body and its closing '}' from the text itself and left p past them; the
    // block is then a childless node whose taken() is that kind, and on_close is not called
    // for it. The caller must only take a block whose body this parser would read without
    // giving up, and must make of it what it would make of the nodes the parser would give.
    template <class OnClose, class OnOpen>
    bool parse(std::string_view open_block, bool close_at_end, OnClose&& on_close,
               OnOpen&& on_open);
    template <class OnClose>
    bool parse(std::string_view open_block, bool close_at_end, OnClose&& on_close) {
        return parse(open_block, close_at_end, std::forward<OnClose>(on_close),
                     [](std::string_view, std::uint32_t, std::span<const kv::NodeId>, const char*&,
                        const char*) { return std::uint8_t{0}; });
    }

    LiteNode root() const { return {this, 0}; }
    std::string_view text() const { return text_; }
    LiteNode node(kv::NodeId id) const { return {this, id}; }
    TextPos locate(std::size_t offset) const {
        if (!lines_) lines_ = std::make_unique<LineMap>(text_);
        return lines_->locate(offset);
    }
    // The top-level block close_at_end closed at the end of the text, or kv::kNone.
    kv::NodeId closed_at_end() const { return closed_at_end_; }

private:
    friend class LiteNode;
    std::string_view text_;
    std::vector<LiteRec> nodes_;
    kv::NodeId closed_at_end_ = kv::kNone;
    mutable std::unique_ptr<LineMap> lines_;

    // Appends a node as the last child of the innermost open block.
    std::uint32_t append(const LiteRec& rec);
    struct Open {
        std::uint32_t id;
        std::uint32_t last = kv::kNone;
        std::uint32_t prev_last = kv::kNone;
    };
    // The open blocks, root first, and their ids (the ancestors span); the parser stops at
    // kMaxDepth + 1 open blocks as kv's does, so fixed arrays hold them.
    static constexpr std::size_t kStack = 258;
    std::array<Open, kStack> stack_{};
    std::array<kv::NodeId, kStack> ids_{};
    std::size_t open_ = 0;  // blocks open, the root included
    // Drops the just-closed block (the newest child of the block now innermost).
    void drop(std::uint32_t id);
    // The token at p: false when the full parser is needed (see the header comment).
    bool token(const char*& p, const char* end, const char*& text, std::uint32_t& len) const;
};

// --- inline definitions ----------------------------------------------------------------------

inline bool LiteNode::is_block() const {
    return id_ == 0 || t_->nodes_[id_].block;
}
inline std::uint8_t LiteNode::taken() const {
    return t_->nodes_[id_].taken;
}
inline std::string_view LiteNode::key() const {
    const LiteRec& r = t_->nodes_[id_];
    return {r.key, r.key_len};
}
inline std::string_view LiteNode::value() const {
    const LiteRec& r = t_->nodes_[id_];
    return {r.value, r.value_len};
}
inline std::size_t LiteNode::offset() const {
    return id_ == 0 ? 0 : t_->nodes_[id_].at;
}
inline LiteNode::Iterator& LiteNode::Iterator::operator++() {
    id_ = t_->nodes_[id_].next;
    return *this;
}
inline LiteNode::Iterator LiteNode::begin() const {
    return {t_, t_->nodes_[id_].first_child};
}
inline LiteNode LiteNode::first_child() const {
    return {t_, t_->nodes_[id_].first_child};
}
inline LiteNode LiteNode::next_sibling() const {
    return {t_, t_->nodes_[id_].next};
}
inline std::size_t LiteNode::child_count() const {
    std::size_t n = 0;
    for (std::uint32_t c = t_->nodes_[id_].first_child; c != kv::kNone; c = t_->nodes_[c].next) ++n;
    return n;
}
inline LiteNode LiteNode::find(std::string_view k) const {
    for (LiteNode c : *this) {
        if (iequals(c.key(), k)) return c;
    }
    return {};
}
inline std::string_view LiteNode::get(std::string_view k, std::string_view fallback) const {
    for (LiteNode c : *this) {
        if (c.is_value() && iequals(c.key(), k)) return c.value();
    }
    return fallback;
}

inline std::uint32_t LiteTree::append(const LiteRec& rec) {
    const auto id = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(rec);
    Open& parent = stack_[open_ - 1];
    if (parent.last == kv::kNone) {
        nodes_[parent.id].first_child = id;
    } else {
        nodes_[parent.last].next = id;
    }
    parent.prev_last = parent.last;
    parent.last = id;
    return id;
}

inline void LiteTree::drop(std::uint32_t id) {
    Open& parent = stack_[open_ - 1];
    if (parent.prev_last == kv::kNone) {
        nodes_[parent.id].first_child = kv::kNone;
    } else {
        nodes_[parent.prev_last].next = kv::kNone;
    }
    parent.last = parent.prev_last;
    parent.prev_last = kv::kNone;
    nodes_.resize(id);
}

namespace lite {
// Whitespace as kv's tokenizer has it (TokenReader's isspace() plus NUL).
constexpr bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0';
}
// The bytes that end a bare token, as a table: one load a byte instead of ten compares.
inline constexpr auto kEndsBare = [] {
    std::array<bool, 256> t{};
    for (int i = 0; i < 256; ++i) {
        const char c = static_cast<char>(i);
        t[static_cast<std::size_t>(i)] = is_ws(c) || c == '"' || c == '{' || c == '}';
    }
    return t;
}();
inline bool ends_bare(char c) {
    return kEndsBare[static_cast<unsigned char>(c)];
}
// Whether the 8 bytes at p start with `tabs` (< 8) tabs and then a token's first byte (not
// whitespace, not '/').
inline bool tabs_then_token(const char* p, std::size_t tabs) {
    // p[0] in the lowest byte
    const auto w = load<std::uint64_t>(reinterpret_cast<const std::byte*>(p), Endian::little);
    const std::uint64_t low = tabs ? ~std::uint64_t{0} >> (64 - 8 * tabs) : 0;
    const auto next = static_cast<unsigned char>(w >> (8 * tabs));
    return ((w ^ 0x0909090909090909u) & low) == 0 && next > ' ' && next != '/';
}
// Whitespace and `//` comments. Gaps in map files are a line ending and some tabs: sixteen
// bytes are tested at a time where SSE2 is there.
//
// Most gaps are guessed first, by a test whose outcome the processor predicts: between a key and
// its value, one space; after a line, a line ending and `tabs` tabs (the caller's depth, which
// every line but a closing brace has). The guessed end depends only on p, not on bytes loaded
// from it, so reading the next token need not wait for the gap to be scanned.
inline const char* skip_gap(const char* p, const char* end, std::size_t tabs) {
    if (end - p >= 2 && p[0] == ' ' && static_cast<unsigned char>(p[1]) > ' ' && p[1] != '/')
        return p + 1;
    if (tabs < 8 && end - p >= 10) {
        if (p[0] == '\n' && tabs_then_token(p + 1, tabs)) return p + 1 + tabs;
        if (p[0] == '\r' && p[1] == '\n' && tabs_then_token(p + 2, tabs)) return p + 2 + tabs;
    }
    for (;;) {
#if defined(__SSE2__)
        while (end - p >= 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            // \t \n \v \f \r are 9..13: v - 9 <= 4 unsigned; then ' ' and NUL.
            const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8(9));
            const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(4)), t);
            const __m128i ws =
                _mm_or_si128(ctrl, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                                _mm_cmpeq_epi8(v, _mm_setzero_si128())));
            const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xFFFFu;
            if (other) {
                p += std::countr_zero(other);
                break;
            }
            p += 16;
        }
#endif
        while (p < end && is_ws(*p)) ++p;
        if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
            p += 2;
            while (p < end && *p != '\n' && *p != '\r') ++p;
            continue;
        }
        return p;
    }
}
inline constexpr std::size_t kMaxDepth = 256;        // kv: blocks nested deeper are an error
inline constexpr std::uint32_t kMaxValueLen = 1023;  // kv warns past Hammer's limit
}  // namespace lite

inline bool LiteTree::token(const char*& p, const char* end, const char*& text,
                            std::uint32_t& len) const {
    const char* begin = p;
    if (*p != '"') {
        while (p < end && !lite::ends_bare(*p)) ++p;
        text = begin;
        len = static_cast<std::uint32_t>(p - begin);
        return len <= lite::kMaxValueLen;
    }
    const char* close = find_quote_or_cr(begin + 1, end);
    if (close >= end || *close != '"') return false;  // unterminated, or a CR inside (a warning)
    text = begin + 1;
    len = static_cast<std::uint32_t>(close - begin - 1);
    p = close + 1;
    // `"a" + ...` may be a concatenation: left to the full parser. Most quoted tokens end a line
    // or are followed by one space and a quote.
    const char* q = p;
    if (q < end && *q == ' ') ++q;
    if (q < end && (*q == ' ' || *q == '\t' || *q == '+')) {
        while (q < end && (*q == ' ' || *q == '\t')) ++q;
        if (q < end && *q == '+') return false;
    }
    return len <= lite::kMaxValueLen;
}

template <class OnClose, class OnOpen>
bool LiteTree::parse(std::string_view open_block, bool close_at_end, OnClose&& on_close,
                     OnOpen&& on_open) {
    // Offsets are 32-bit, and the full parser refuses such a text with kv.too-large.
    if (text_.size() >= 0x7FFFFFF0u) return false;
    nodes_.clear();
    nodes_.emplace_back();  // the root
    stack_[0] = Open{0};
    ids_[0] = 0;
    open_ = 1;
    closed_at_end_ = kv::kNone;
    const char* p = text_.data();
    const char* const end = p + text_.size();
    if (text_.size() >= 3 && text_.substr(0, 3) == "\xEF\xBB\xBF") p += 3;
    if (!open_block.empty()) {
        // The piece starts inside this block (kv gives such a node offset 0, as here).
        LiteRec rec;
        rec.key = open_block.data();
        rec.key_len = static_cast<std::uint32_t>(open_block.size());
        rec.block = true;
        const std::uint32_t id = append(rec);
        stack_[open_] = Open{id};
        ids_[open_++] = id;
    }
    auto close = [&] {
        const std::uint32_t id = stack_[--open_].id;
        if (on_close(LiteNode(this, id), std::span<const kv::NodeId>(ids_.data(), open_))) drop(id);
    };
    for (;;) {
        // After a line: its ending and the depth's tabs, tested here before the call.
        const std::size_t tabs = open_ - 1;
        if (tabs < 8 && end - p >= 10 && p[0] == '\n' && lite::tabs_then_token(p + 1, tabs)) {
            p += 1 + tabs;
        } else {
            p = lite::skip_gap(p, end, tabs);
        }
        if (p >= end) {
            if (open_ == 2 && close_at_end) {
                closed_at_end_ = stack_[1].id;
                close();
            }
            return open_ == 1;
        }
        const char c = *p;
        if (c == '}') {
            if (open_ == 1) return false;
            ++p;
            close();
            continue;
        }
        if (open_ > lite::kMaxDepth || c == '{') return false;
        LiteRec rec;  // written to the tree whole, once its tokens are read
        rec.at = static_cast<std::uint32_t>(p - text_.data());
        if (!token(p, end, rec.key, rec.key_len)) return false;
        if (end - p >= 2 && p[0] == ' ' && p[1] == '"') {
            ++p;  // the gap skip_gap's first guess takes, without the call
        } else {
            p = lite::skip_gap(p, end, open_ - 1);
            if (p >= end || *p == '}') return false;  // a key without a value
        }
        if (*p == '{') {
            ++p;
            rec.block = true;
            rec.taken = on_open(std::string_view(rec.key, rec.key_len), rec.at,
                                std::span<const kv::NodeId>(ids_.data(), open_), p, end);
            if (rec.taken != 0) {
                append(rec);
                continue;
            }
            const std::uint32_t id = append(rec);
            stack_[open_] = Open{id};
            ids_[open_++] = id;
            continue;
        }
        if (!token(p, end, rec.value, rec.value_len)) return false;
        append(rec);
    }
}

}  // namespace lk::vmf::detail
