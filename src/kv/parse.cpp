#include <fmt/format.h>

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

struct Token {
    std::string_view text;  // decoded value
    std::string_view raw;   // source text of the whole token (incl. quotes)
    bool quoted = false;
    bool needs_raw = false;  // raw text differs from the plain quoting of `text`
};

class Parser {
  public:
    Parser(Document::Impl& d, Diagnostics* warnings)
        : d_(d),
          warn_(warnings),
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

    Result<Token> read_token();
    Result<std::string_view> read_quoted(const char* open);
    bool canonical(std::string_view gap, std::size_t depth) const {
        const std::size_t want = d_.eol.size() + d_.indent.size() * depth;
        if (gap.size() != want) return false;
        if (gap.compare(0, d_.eol.size(), d_.eol) != 0) return false;
        const std::size_t iu = d_.indent.size();
        for (std::size_t i = d_.eol.size(); i < gap.size(); i += iu) {
            if (gap.compare(i, iu, d_.indent) != 0) return false;
        }
        return true;
    }
    void set_before(NodeId id, std::string_view gap, std::size_t depth, bool first) {
        const bool ok = first ? gap.empty() : canonical(gap, depth);
        if (!ok) {
            Layout& l = d_.layout_of(id);
            l.before = gap;
            l.mask |= Layout::kBefore;
        }
    }
    void set_key(NodeId id, const Token& t) {
        NodeRec& n = d_.nodes[id];
        n.key = t.text;
        if (!t.quoted) n.flags |= kKeyUnquoted;
        if (t.needs_raw) {
            n.flags |= kRawKey;
            d_.layout_of(id).raw_key = t.raw;
        }
    }
    void set_value(NodeId id, const Token& t) {
        NodeRec& n = d_.nodes[id];
        n.value = t.text;
        if (!t.quoted) n.flags |= kValueUnquoted;
        if (t.needs_raw) {
            n.flags |= kRawValue;
            d_.layout_of(id).raw_value = t.raw;
        }
    }
    void check_length(const Token& t, const char* at) {
        if (d_.opt.warn_long_values && t.text.size() > kMaxValueLen) {
            warn(at, "kv.too-long",
                 fmt::format("string of {} bytes is longer than Hammer's limit of {}",
                             t.text.size(), kMaxValueLen));
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

    Document::Impl& d_;
    Diagnostics* warn_;
    std::string_view src_;
    const char* p_;
    const char* end_;
    std::string scratch_;
};

Result<std::string_view> Parser::read_quoted(const char* open) {
    const char* start = open + 1;
    if (!d_.opt.escapes) {
        const void* q = std::memchr(start, '"', static_cast<std::size_t>(end_ - start));
        if (!q) {
            return error(open, "kv.unterminated-string",
                         "unterminated quoted string (no closing '\"' before the end of file)");
        }
        const char* close = static_cast<const char*>(q);
        std::string_view s(start, static_cast<std::size_t>(close - start));
        if (s.find('\r') != std::string_view::npos) {
            warn(open, "kv.cr-in-string",
                 "quoted string spans a carriage return; Hammer rejects this");
        }
        p_ = close + 1;
        return s;
    }
    // Escape mode: \n \t \v \b \r \f \a \\ \? \' \" decoded (Valve KeyValues); any other
    // backslash pair is kept as written.
    scratch_.clear();
    bool changed = false;
    const char* p = start;
    while (p < end_ && *p != '"') {
        if (*p == '\\' && p + 1 < end_) {
            char c = p[1];
            char out = 0;
            switch (c) {
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
        return error(open, "kv.unterminated-string",
                     "unterminated quoted string (no closing '\"' before the end of file)");
    }
    p_ = p + 1;
    if (!changed) return std::string_view(start, static_cast<std::size_t>(p - start));
    return d_.arena.store(scratch_);
}

Result<Token> Parser::read_token() {
    Token t;
    const char* begin = p_;
    if (*p_ != '"') {
        while (p_ < end_ && !ends_bare(*p_)) ++p_;
        t.text = std::string_view(begin, static_cast<std::size_t>(p_ - begin));
        t.raw = t.text;
        return t;
    }
    t.quoted = true;
    auto first = read_quoted(p_);
    if (!first) return std::move(first).error();
    t.text = first.value();
    const bool escaped = t.text.data() < src_.data() || t.text.data() >= end_;
    // `"a" + "b"` concatenation: peek past whitespace for '+', then for another quoted string.
    const char* q = p_;
    while (q < end_ && is_ws(*q) && *q != '\0') ++q;
    if (q < end_ && *q == '+') {
        const char* r = q + 1;
        while (r < end_ && is_ws(*r) && *r != '\0') ++r;
        if (r < end_ && *r == '"') {
            std::string joined(t.text);
            p_ = r;
            for (;;) {
                auto next = read_quoted(p_);
                if (!next) return std::move(next).error();
                joined += next.value();
                q = p_;
                while (q < end_ && is_ws(*q) && *q != '\0') ++q;
                if (q >= end_ || *q != '+') break;
                r = q + 1;
                while (r < end_ && is_ws(*r) && *r != '\0') ++r;
                if (r >= end_ || *r != '"') break;
                p_ = r;
            }
            t.text = d_.arena.store(joined);
            t.needs_raw = true;
        }
    }
    t.raw = std::string_view(begin, static_cast<std::size_t>(p_ - begin));
    if (escaped) t.needs_raw = true;
    return t;
}

Result<void> Parser::run() {
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
                d_.indent = "\t";
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

    std::vector<NodeId> stack{0};
    std::vector<const char*> open_at{p_};
    bool first = true;
    // A UTF-8 byte order mark belongs to the layout before the first token.
    const char* first_gap_begin = p_;
    if (src_.size() >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
    for (;;) {
        const char* gap_begin = first ? first_gap_begin : p_;
        skip_gap();
        const std::string_view gap(gap_begin, static_cast<std::size_t>(p_ - gap_begin));
        const std::size_t depth = stack.size() - 1;
        if (p_ >= end_) {
            if (stack.size() > 1) {
                const NodeRec& open = d_.nodes[stack.back()];
                return error(open_at.back(), "kv.unclosed-block",
                             fmt::format("block '{}' is not closed before the end of the file",
                                         printable(open.key)));
            }
            // Bytes after the last token (canonically one line ending).
            const bool canon = d_.nodes[0].first_child == kNone ? gap.empty() : gap == d_.eol;
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
            const NodeId id = stack.back();
            if (!canonical(gap, depth - 1)) {
                Layout& l = d_.layout_of(id);
                l.close = gap;
                l.mask |= Layout::kClose;
            }
            ++p_;
            stack.pop_back();
            open_at.pop_back();
            continue;
        }
        if (stack.size() > kMaxDepth) {
            return error(p_, "kv.too-deep", fmt::format("blocks nested deeper than {}", kMaxDepth));
        }
        if (c == '{') {
            const NodeId id = d_.append(stack.back(), NodeKind::block);
            d_.nodes[id].flags |= kAnonymous;
            d_.nodes[id].offset = static_cast<std::uint32_t>(off(p_));
            set_before(id, gap, depth, first);
            first = false;
            open_at.push_back(p_);
            ++p_;
            stack.push_back(id);
            continue;
        }
        const char* key_at = p_;
        auto key = read_token();
        if (!key) return std::move(key).error();
        check_length(key.value(), key_at);
        const bool directive = d_.opt.directives && !key->quoted && depth == 0 &&
                               (iequals(key->text, "#include") || iequals(key->text, "#base"));
        const NodeId id =
            d_.append(stack.back(), directive ? NodeKind::directive : NodeKind::value);
        d_.nodes[id].offset = static_cast<std::uint32_t>(off(key_at));
        set_before(id, gap, depth, first);
        first = false;
        set_key(id, key.value());

        const char* mid_begin = p_;
        skip_gap();
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
                         fmt::format("key '{}' has no value", printable(key->text)));
        }
        if (*p_ == '{' && !directive) {
            d_.nodes[id].kind = NodeKind::block;
            if (!canonical(mid, depth)) {
                Layout& l = d_.layout_of(id);
                l.mid = mid;
                l.mask |= Layout::kMid;
            }
            open_at.push_back(key_at);
            ++p_;
            stack.push_back(id);
            continue;
        }
        if (mid != " ") {
            Layout& l = d_.layout_of(id);
            l.mid = mid;
            l.mask |= Layout::kMid;
        }
        const char* value_at = p_;
        auto value = read_token();
        if (!value) return std::move(value).error();
        check_length(value.value(), value_at);
        set_value(id, value.value());
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
    if (source.size() >= 0xFFFFFFF0u) {
        return Diagnostic::error("kv.too-large", "text files of 4 GiB or more are not supported");
    }
    Document doc;
    doc.impl_->source = std::move(source);
    doc.impl_->opt = opt;
    // A typical Hammer line is ~25 bytes; reserving avoids regrowth on large maps.
    doc.impl_->nodes.reserve(doc.impl_->source.size() / 24 + 16);
    Parser parser(*doc.impl_, warnings);
    auto r = parser.run();
    if (!r) return std::move(r).error();
    return doc;
}

Result<Document> Document::parse(std::string_view text, const ParseOptions& opt,
                                 Diagnostics* warnings) {
    return parse(Blob::copy_of(text), opt, warnings);
}

}  // namespace lk::kv
