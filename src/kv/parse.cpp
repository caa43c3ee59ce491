#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "impl.hpp"

namespace lk::kv {

namespace {

constexpr std::size_t kMaxDepth = 256;      // real files nest < 10; bounds recursion in consumers
constexpr std::size_t kMaxValueLen = 1023;  // Hammer: MAX_KEYVALUE_LEN 1024 including NUL

// Whitespace as TokenReader's isspace(), plus NUL: entity lumps end with one, and Valve's
// KeyValues stops at NUL, so NULs between tokens are kept as layout bytes.
inline bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0';
}

inline bool ends_bare(char c) {
    return is_ws(c) || c == '"' || c == '{' || c == '}';
}

static_assert(std::endian::native == std::endian::little,
              "same_prefix reads bytes as little-endian words");

struct Token {
    std::uint32_t off = 0;  // encoded offset of the decoded text (source or arena)
    std::uint32_t len = 0;
    std::string_view raw;  // source text of the whole token (incl. quotes)
    bool quoted = false;
    bool needs_raw = false;  // raw text differs from the plain quoting of the text
};

// An open block while parsing: its id, its last child so far and the one before it (to unlink
// a dropped last child), where it was opened, and the layout count when it opened (a dropped
// subtree's layouts are exactly those added since).
struct Open {
    NodeId id;
    NodeId last;
    NodeId prev_last;
    const char* at;
    std::size_t layouts_at_open;
};

class Parser {
public:
    Parser(Document::Impl& d, Diagnostics* warnings, const Document* doc,
           const Document::BlockClosed* on_close)
        : d_(d),
          warn_(warnings),
          doc_(doc),
          on_close_(on_close),
          src_(d.source.text()),
          p_(src_.data()),
          end_(src_.data() + src_.size()) {}

    Result<void> run();

private:
    std::size_t off(const char* p) const { return static_cast<std::size_t>(p - src_.data()); }
    Diagnostic error(const char* at, std::string code, std::string msg) {
        return d_.line_map().error_at(off(at), std::move(code), std::move(msg));
    }
    void warn(const char* at, std::string code, std::string msg) {
        if (warn_) warn_->add(d_.line_map().warning_at(off(at), std::move(code), std::move(msg)));
    }
    std::string_view text(const Token& t) const { return d_.store.str(t.off, t.len); }

    void skip_gap() {
        for (;;) {
            while (p_ < end_ && is_ws(*p_)) ++p_;
            if (p_ + 1 < end_ && p_[0] == '/' && p_[1] == '/') {
                p_ += 2;
                while (p_ < end_ && *p_ != '\n' && *p_ != '\r') ++p_;
                continue;
            }
            return;
        }
    }

    NodeId append(Open& parent, NodeKind kind, const char* at) {
        auto& nodes = d_.nodes();
        const auto id = static_cast<NodeId>(nodes.size());
        NodeRec rec;
        rec.kind = kind;
        rec.key_off = static_cast<std::uint32_t>(off(at));
        nodes.push_back(rec);
        if (parent.last == kNone) {
            nodes[parent.id].first_child = id;
        } else {
            nodes[parent.last].next = id;
        }
        parent.prev_last = parent.last;
        parent.last = id;
        return id;
    }

    // First n bytes of a and b equal; n is a few bytes (a line ending and some tabs). `a_left`
    // bytes are readable at a; b is padded by at least 8 bytes.
    static bool same_prefix(const char* a, const char* b, std::size_t n, std::size_t a_left) {
        if (n <= 8 && a_left >= 8) {
            std::uint64_t x, y;
            std::memcpy(&x, a, 8);
            std::memcpy(&y, b, 8);
            const std::uint64_t mask =
                n == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
            return ((x ^ y) & mask) == 0;  // little-endian: the first n bytes are the low ones
        }
        for (; n >= 8; a += 8, b += 8, n -= 8) {
            std::uint64_t x, y;
            std::memcpy(&x, a, 8);
            std::memcpy(&y, b, 8);
            if (x != y) return false;
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (a[i] != b[i]) return false;
        }
        return true;
    }
    // The common case in one step: the canonical gap before a '}' closing a block at depth-1
    // (returns 2) or before a token at `depth` (returns 1). Consumes it; 0 = not canonical.
    int fast_gap(std::size_t depth) {
        const std::size_t left = static_cast<std::size_t>(end_ - p_);
        const std::size_t e = d_.eol.size(), iu = d_.indent.size();
        if (depth > 0) {
            const std::size_t n = e + iu * (depth - 1);
            if (n < left && p_[n] == '}' && same_prefix(p_, canon_.data(), n, left)) {
                p_ += n;
                return 2;
            }
        }
        const std::size_t n = e + iu * depth;
        if (n < left && same_prefix(p_, canon_.data(), n, left)) {
            const char c = p_[n];
            if (!is_ws(c) && c != '/') {
                p_ += n;
                return 1;
            }
        }
        return 0;
    }

    bool canonical(std::string_view gap, std::size_t depth) const {
        const std::size_t want = d_.eol.size() + d_.indent.size() * depth;
        if (gap.size() != want) return false;
        // canon_ is eol + indent * kCanonDepth; every canonical gap is a prefix of it. Gaps are
        // a few bytes, so a plain loop beats a memcmp call.
        if (depth <= kCanonDepth) {
            for (std::size_t i = 0; i < want; ++i) {
                if (gap[i] != canon_[i]) return false;
            }
            return true;
        }
        if (gap.compare(0, d_.eol.size(), d_.eol) != 0) return false;
        const std::size_t iu = d_.indent.size();
        for (std::size_t i = d_.eol.size(); i < gap.size(); i += iu) {
            if (gap.compare(i, iu, d_.indent) != 0) return false;
        }
        return true;
    }
    void set_before(NodeId id, std::string_view gap, std::size_t depth, bool first, bool known) {
        const bool ok = known || (first ? gap.empty() : canonical(gap, depth));
        if (!ok) {
            Layout& l = d_.layout_of(id);
            l.before = gap;
            l.mask |= Layout::kBefore;
        }
    }
    void set_key(NodeId id, const Token& t) {
        NodeRec& n = d_.nodes()[id];
        const std::uint32_t at = n.key_off;
        n.key_off = t.off;
        n.key_len = t.len;
        if (!t.quoted) n.flags |= kKeyUnquoted;
        if (t.needs_raw) {
            n.flags |= kRawKey;
            Layout& l = d_.layout_of(id);
            l.raw_key = t.raw;
            if (t.off & kArenaBit) {
                l.offset = at;
                l.mask |= Layout::kOffset;
            }
        }
    }
    void set_value(NodeId id, const Token& t) {
        NodeRec& n = d_.nodes()[id];
        n.value_off = t.off;
        n.value_len = t.len;
        if (!t.quoted) n.flags |= kValueUnquoted;
        if (t.needs_raw) {
            n.flags |= kRawValue;
            d_.layout_of(id).raw_value = t.raw;
        }
    }
    void check_length(const Token& t, const char* at) {
        if (d_.opt.warn_long_values && t.len > kMaxValueLen) {
            warn(at, "kv.too-long",
                 fmt::format("string of {} bytes is longer than Hammer's limit of {}", t.len,
                             kMaxValueLen));
        }
    }
    // `[...]` condition token at p_ (which points at '['); returns its text.
    Result<std::string_view> read_condition() {
        const char* start = p_;
        while (p_ < end_ && *p_ != ']' && *p_ != '\n' && *p_ != '\r') ++p_;
        if (p_ >= end_ || *p_ != ']') {
            return error(start, "kv.bad-condition", "condition tag is not closed with ']'");
        }
        ++p_;
        return std::string_view(start, static_cast<std::size_t>(p_ - start));
    }

    const char* find_quote_or_cr(const char* p) const { return lk::find_quote_or_cr(p, end_); }

    // Token readers return false on error and leave it in error_ (no Result on the hot path).
    bool read_quoted(const char* open, Token& t);
    bool read_token(Token& t);
    bool fail(Diagnostic d) {
        error_ = std::move(d);
        return false;
    }

    // Offers a just-closed block to the streaming callback; drops it if asked.
    void closed(std::vector<Open>& stack) {
        if (!on_close_ || !*on_close_) return;
        ancestors_.clear();
        for (std::size_t i = 0; i + 1 < stack.size(); ++i) ancestors_.push_back(stack[i].id);
        const Open& block = stack.back();
        if (!(*on_close_)(*doc_, Node(doc_, block.id), ancestors_)) return;
        Open& parent = stack[stack.size() - 2];
        auto& nodes = d_.nodes();
        if (parent.prev_last == kNone) {
            nodes[parent.id].first_child = kNone;
        } else {
            nodes[parent.prev_last].next = kNone;
        }
        parent.last = parent.prev_last;
        parent.prev_last = kNone;  // only the newest child can be dropped, and it just was
        nodes.resize(block.id);
        d_.layouts.resize(block.layouts_at_open);
    }

    Document::Impl& d_;
    Diagnostics* warn_;
    const Document* doc_;
    const Document::BlockClosed* on_close_;
    std::vector<NodeId> ancestors_;
    std::string_view src_;
    const char* p_;
    const char* end_;
    std::string scratch_;
    static constexpr std::size_t kCanonDepth = 32;
    std::string canon_;
    Diagnostic error_;
};

// Reads one quoted string starting at `open` (a '"'); the token's text is the decoded content.
bool Parser::read_quoted(const char* open, Token& t) {
    const char* start = open + 1;
    t = Token{};
    t.quoted = true;
    if (!d_.opt.escapes) {
        // One pass finds the end and any CR (rare; the rest of such a string goes to memchr).
        const char* close = find_quote_or_cr(start);
        const bool cr = close < end_ && *close == '\r';
        if (cr)
            close = static_cast<const char*>(
                std::memchr(close, '"', static_cast<std::size_t>(end_ - close)));
        if (!close || close >= end_) {
            return fail(
                error(open, "kv.unterminated-string",
                      "unterminated quoted string (no closing '\"' before the end of file)"));
        }
        const auto len = static_cast<std::size_t>(close - start);
        // Hammer's reader stops at a CR inside a string.
        if (cr) {
            warn(open, "kv.cr-in-string",
                 "quoted string spans a carriage return; Hammer rejects this");
        }
        t.off = static_cast<std::uint32_t>(off(start));
        t.len = static_cast<std::uint32_t>(len);
        p_ = close + 1;
        return true;
    }
    // Escape mode: \n \t \v \b \r \f \a \\ \? \' \" decoded (Valve KeyValues); any other
    // backslash pair is kept as written.
    scratch_.clear();
    bool changed = false;
    const char* p = start;
    while (p < end_ && *p != '"') {
        if (*p == '\\' && p + 1 < end_) {
            char out = 0;
            switch (p[1]) {
                case 'n':
                    out = '\n';
                    break;
                case 't':
                    out = '\t';
                    break;
                case 'v':
                    out = '\v';
                    break;
                case 'b':
                    out = '\b';
                    break;
                case 'r':
                    out = '\r';
                    break;
                case 'f':
                    out = '\f';
                    break;
                case 'a':
                    out = '\a';
                    break;
                case '\\':
                    out = '\\';
                    break;
                case '?':
                    out = '?';
                    break;
                case '\'':
                    out = '\'';
                    break;
                case '"':
                    out = '"';
                    break;
                default:
                    break;
            }
            if (out) {
                scratch_ += out;
                changed = true;
                p += 2;
                continue;
            }
        }
        scratch_ += *p++;
    }
    if (p >= end_) {
        return fail(error(open, "kv.unterminated-string",
                          "unterminated quoted string (no closing '\"' before the end of file)"));
    }
    p_ = p + 1;
    if (changed) {
        t.off = d_.store_string(scratch_);
        t.len = static_cast<std::uint32_t>(scratch_.size());
        t.needs_raw = true;
    } else {
        t.off = static_cast<std::uint32_t>(off(start));
        t.len = static_cast<std::uint32_t>(p - start);
    }
    return true;
}

bool Parser::read_token(Token& t) {
    const char* begin = p_;
    if (*p_ != '"') {
        while (p_ < end_ && !ends_bare(*p_)) ++p_;
        t = Token{};
        t.off = static_cast<std::uint32_t>(off(begin));
        t.len = static_cast<std::uint32_t>(p_ - begin);
        t.raw = std::string_view(begin, t.len);
        return true;
    }
    if (!read_quoted(p_, t)) return false;
    // `"a" + "b"` concatenation: a '+' on the same line, then another quoted string.
    auto skip_ws = [&](const char* q) {
        while (q < end_ && is_ws(*q) && *q != '\0') ++q;
        return q;
    };
    auto skip_blanks = [&](const char* q) {
        while (q < end_ && (*q == ' ' || *q == '\t')) ++q;
        return q;
    };
    const char* q = skip_blanks(p_);
    if (q < end_ && *q == '+') {
        const char* r = skip_ws(q + 1);
        if (r < end_ && *r == '"') {
            std::string joined(text(t));
            Token next;
            for (;;) {
                if (!read_quoted(r, next)) return false;
                joined += text(next);
                q = skip_blanks(p_);
                if (q >= end_ || *q != '+') break;
                r = skip_ws(q + 1);
                if (r >= end_ || *r != '"') break;
            }
            t.off = d_.store_string(joined);
            t.len = static_cast<std::uint32_t>(joined.size());
            t.needs_raw = true;
        }
    }
    t.raw = std::string_view(begin, static_cast<std::size_t>(p_ - begin));
    return true;
}

Result<void> Parser::run() {
    if (src_.empty()) return success();  // an empty document; also keeps memchr off null
    // Canonical layout: the first line ending in the file, and the indent of its first
    // indented line ("\t" for Hammer; "" for entity lumps, which are not indented).
    {
        const void* nl = std::memchr(src_.data(), '\n', src_.size());
        if (nl) {
            const char* n = static_cast<const char*>(nl);
            const bool crlf = n > src_.data() && n[-1] == '\r';
            d_.eol.assign(crlf ? std::string_view("\r\n") : std::string_view("\n"));
        }
        d_.indent.clear();
        const std::size_t scan = std::min<std::size_t>(src_.size(), 1 << 16);
        for (std::size_t i = 0; i + 1 < scan; ++i) {
            if (src_[i] != '\n') continue;
            if (src_[i + 1] == '\t') {
                d_.indent.assign(1, '\t');
                break;
            }
            if (src_[i + 1] == ' ') {
                std::size_t k = i + 1;
                while (k < scan && src_[k] == ' ') ++k;
                if (k < scan && src_[k] != '\n' && src_[k] != '\r') {
                    d_.indent.assign(k - (i + 1), ' ');
                    break;
                }
            }
        }
    }
    canon_ = d_.eol;
    for (std::size_t i = 0; i < kCanonDepth; ++i) canon_ += d_.indent;
    canon_.append(8, '\0');  // same_prefix reads whole words
    // Hammer lines average over 20 bytes, one node each; a generous reservation costs nothing
    // (untouched pages are never made resident). Streaming readers keep only small subtrees.
    d_.nodes().reserve(
        (on_close_ && *on_close_ ? std::min<std::size_t>(src_.size(), 1 << 20) : src_.size()) / 16 +
        16);

    std::vector<Open> stack{{0, kNone, kNone, p_, 0}};
    Token key, value;
    bool first = true;
    // A UTF-8 byte order mark belongs to the layout before the first token.
    const char* first_gap_begin = p_;
    if (src_.size() >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
    if (!d_.opt.open_block.empty()) {
        const NodeId id = append(stack.back(), NodeKind::block, p_);
        d_.set_key(d_.nodes()[id], d_.opt.open_block);
        first = false;
        stack.push_back({id, kNone, kNone, p_, d_.layouts.size()});
    }
    for (;;) {
        const char* gap_begin = first ? first_gap_begin : p_;
        const std::size_t depth = stack.size() - 1;
        const int known = first || depth > kCanonDepth ? 0 : fast_gap(depth);
        if (!known) skip_gap();
        const std::string_view gap(gap_begin, static_cast<std::size_t>(p_ - gap_begin));
        if (p_ >= end_) {
            if (stack.size() == 2 && d_.opt.close_at_end) {
                d_.closed_at_end = stack.back().id;
                closed(stack);
                stack.pop_back();
            }
            if (stack.size() > 1) {
                const Open& open = stack.back();
                return error(open.at, "kv.unclosed-block",
                             fmt::format("block '{}' is not closed before the end of the file",
                                         printable(d_.key(d_.nodes()[open.id]))));
            }
            // Bytes after the last token (canonically one line ending).
            const bool canon = d_.nodes()[0].first_child == kNone ? gap.empty() : gap == d_.eol;
            if (!canon) {
                Layout& l = d_.layout_of(0);
                l.close = gap;
                l.mask |= Layout::kClose;
            }
            return success();
        }
        const char c = *p_;
        if (c == '}') {
            if (stack.size() == 1) return error(p_, "kv.stray-brace", "'}' without a matching '{'");
            const NodeId id = stack.back().id;
            if (known != 2 && !canonical(gap, depth - 1)) {
                Layout& l = d_.layout_of(id);
                l.close = gap;
                l.mask |= Layout::kClose;
            }
            ++p_;
            closed(stack);
            stack.pop_back();
            continue;
        }
        if (stack.size() > kMaxDepth) {
            return error(p_, "kv.too-deep", fmt::format("blocks nested deeper than {}", kMaxDepth));
        }
        if (c == '{') {
            const std::size_t layouts = d_.layouts.size();
            const NodeId id = append(stack.back(), NodeKind::block, p_);
            d_.nodes()[id].flags |= kAnonymous;
            set_before(id, gap, depth, first, known == 1);
            first = false;
            stack.push_back({id, kNone, kNone, p_, layouts});
            ++p_;
            continue;
        }
        const char* key_at = p_;
        if (!read_token(key)) return std::move(error_);
        check_length(key, key_at);
        const std::size_t layouts_before = d_.layouts.size();
        const bool directive = d_.opt.directives && !key.quoted && depth == 0 &&
                               (iequals(text(key), "#include") || iequals(text(key), "#base"));
        const NodeId id =
            append(stack.back(), directive ? NodeKind::directive : NodeKind::value, key_at);
        set_before(id, gap, depth, first, known == 1);
        first = false;
        set_key(id, key);

        const char* mid_begin = p_;
        // Canonical `"key" "value"`: one space, then the value.
        if (p_ + 1 < end_ && *p_ == ' ' && !is_ws(p_[1]) && p_[1] != '/') {
            ++p_;
        } else {
            skip_gap();
        }
        std::string_view mid(mid_begin, static_cast<std::size_t>(p_ - mid_begin));
        bool cond_after_key = false;
        if (d_.opt.conditions && !directive && p_ < end_ && *p_ == '[') {
            auto cond = read_condition();
            if (!cond) return std::move(cond).error();
            const char* after = p_;
            skip_gap();
            Layout& l = d_.layout_of(id);
            l.cond = cond.value();
            l.cond_gap = std::string_view(after, static_cast<std::size_t>(p_ - after));
            l.mask |= Layout::kCondAfterKey;
            cond_after_key = true;
        }
        if (p_ >= end_ || *p_ == '}') {
            return error(key_at, "kv.missing-value",
                         fmt::format("key '{}' has no value", printable(text(key))));
        }
        if (*p_ == '{' && !directive) {
            d_.nodes()[id].kind = NodeKind::block;
            if (!canonical(mid, depth)) {
                Layout& l = d_.layout_of(id);
                l.mid = mid;
                l.mask |= Layout::kMid;
            }
            stack.push_back({id, kNone, kNone, key_at, layouts_before});
            ++p_;
            continue;
        }
        if (mid.size() != 1 || mid[0] != ' ') {
            Layout& l = d_.layout_of(id);
            l.mid = mid;
            l.mask |= Layout::kMid;
        }
        const char* value_at = p_;
        if (!read_token(value)) return std::move(error_);
        check_length(value, value_at);
        set_value(id, value);
        if (d_.opt.conditions && !directive && !cond_after_key) {
            // A condition may follow the value on the same line.
            const char* q = p_;
            while (q < end_ && (*q == ' ' || *q == '\t')) ++q;
            if (q < end_ && *q == '[') {
                const char* gap_start = p_;
                p_ = q;
                auto cond = read_condition();
                if (!cond) return std::move(cond).error();
                Layout& l = d_.layout_of(id);
                l.cond = cond.value();
                l.cond_gap = std::string_view(gap_start, static_cast<std::size_t>(q - gap_start));
                l.mask |= Layout::kCondAfterValue;
            }
        }
    }
}

}  // namespace

Result<Document> Document::parse(Blob source, const ParseOptions& opt, Diagnostics* warnings) {
    return parse(std::move(source), opt, warnings, BlockClosed{});
}

Result<Document> Document::parse(Blob source, const ParseOptions& opt, Diagnostics* warnings,
                                 const BlockClosed& on_close) {
    if (source.size() >= 0x7FFFFFF0u) {
        return Diagnostic::error("kv.too-large", "text files of 2 GiB or more are not supported");
    }
    Document doc;
    doc.impl_->source = std::move(source);
    doc.impl_->store.source = doc.impl_->source.text().data();
    doc.impl_->opt = opt;
    Parser parser(*doc.impl_, warnings, &doc, &on_close);
    auto r = parser.run();
    if (!r) return std::move(r).error();
    return doc;
}

Result<Document> Document::parse(std::string_view text, const ParseOptions& opt,
                                 Diagnostics* warnings) {
    return parse(Blob::copy_of(text), opt, warnings);
}

}  // namespace lk::kv
