#include "text_io.hpp"

#include "model_util.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

namespace lk::wmp::detail {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

std::optional<std::uint32_t> parse_bits(std::string_view s) {
    if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') s = s.substr(1, s.size() - 2);
    if (s.empty() || s.size() > 32) return std::nullopt;
    std::uint32_t v = 0;
    for (char c : s) {
        if (c != '0' && c != '1') return std::nullopt;
        v = (v << 1) | static_cast<std::uint32_t>(c - '0');
    }
    return v;
}

}  // namespace

Result<void> check_text_size(std::string_view text) {
    if (text.size() > UINT32_MAX) {
        return Diagnostic::error("wmp.too-large", "text levels of 4 GiB or more are not supported");
    }
    return {};
}

std::pair<bool, std::string_view> split_created(std::string_view comment) {
    if (comment.starts_with("Created ")) return {true, trim(comment.substr(8))};
    return {false, comment};
}

std::string_view comment_text(std::string_view token) {
    if (token.starts_with("//")) {
        token.remove_prefix(2);
    } else if (token.starts_with("#")) {
        token.remove_prefix(1);
    }
    return trim(token);
}

// --- Lexer ---------------------------------------------------------------------------------

Lexer::Lexer(std::string_view text, LexConfig cfg, TextLayout* layout)
    : text_(text), cfg_(cfg), layout_(layout), lines_(text) {
    for (char c : cfg_.punct) class_[static_cast<unsigned char>(c)] |= kBreak;
    for (char c : {' ', '\t', '\r', '\n'}) class_[static_cast<unsigned char>(c)] |= kSpace | kBreak;
    if (cfg_.slash_comments) class_['/'] |= kComment;
    if (cfg_.hash_comments) class_['#'] |= kComment;
    if (layout_) {
        // Tokens are at least one byte and mostly separated by one: a guess that saves the
        // vectors most of their regrowth.
        layout_->token_begin.reserve(text.size() / 4);
        layout_->token_end.reserve(text.size() / 4);
    }
}

void Lexer::scan() {
    std::size_t p = pos_;
    const std::size_t n = text_.size();
    const char* s = text_.data();
    auto cls = [&](std::size_t i) { return class_[static_cast<unsigned char>(s[i])]; };
    for (;;) {
        while (p < n && (cls(p) & kSpace)) ++p;
        if (p >= n || !(cls(p) & kComment)) break;
        const bool slash = s[p] == '/';
        if (slash && !(p + 1 < n && s[p + 1] == '/')) break;
        while (p < n && s[p] != '\n' && s[p] != '\r') ++p;
    }
    peek_ = Token{};
    peek_.offset = static_cast<std::uint32_t>(p);
    if (p >= n) {
        peek_end_ = p;
        have_peek_ = true;
        return;
    }
    const char c = s[p];
    std::size_t e = p + 1;
    if (cls(p) & kBreak) {
        peek_.kind = Tok::punct;
    } else if (cfg_.angle_strings && c == '<') {
        while (e < n && s[e] != '>' && s[e] != '\n' && s[e] != '\r') ++e;
        if (e < n && s[e] == '>') {
            ++e;
            peek_.kind = Tok::angle;
        } else {
            // An unterminated `<`: a plain word up to the next space, so errors name it.
            e = p + 1;
            while (e < n && !is_space(s[e])) ++e;
            peek_.kind = Tok::word;
        }
    } else {
        while (e < n && !(cls(e) & kBreak)) ++e;
        peek_.kind = Tok::word;
    }
    peek_.text = text_.substr(p, e - p);
    peek_end_ = e;
    have_peek_ = true;
}

bool Lexer::quick_decimal(double& out, bool integral) {
    if (have_peek_) return false;
    const std::size_t n = text_.size();
    const char* s = text_.data();
    std::size_t p = pos_;
    while (p < n && (class_[static_cast<unsigned char>(s[p])] & kSpace)) ++p;
    std::size_t i = p;
    const bool neg = i < n && s[i] == '-';
    i += neg;
    const std::size_t digits_begin = i;
    std::uint64_t m = 0;
    while (i < n && static_cast<unsigned char>(s[i] - '0') < 10)
        m = m * 10 + static_cast<unsigned>(s[i++] - '0');
    std::size_t frac = 0;
    bool dot = false;
    if (!integral && i < n && s[i] == '.') {
        dot = true;
        const std::size_t fb = ++i;
        while (i < n && static_cast<unsigned char>(s[i] - '0') < 10)
            m = m * 10 + static_cast<unsigned>(s[i++] - '0');
        frac = i - fb;
    }
    const std::size_t digits = i - digits_begin - dot;
    // Integral fields take at most 9 digits and no sign, so any value fits their type.
    const std::size_t max_digits = integral ? 9 : 15;
    if (digits == 0 || digits > max_digits || (integral && neg) ||
        (i < n && !(class_[static_cast<unsigned char>(s[i])] & kBreak))) {
        return false;
    }
    static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const double v = frac ? static_cast<double>(m) / kPow10[frac] : static_cast<double>(m);
    out = neg ? -v : v;
    pos_ = i;
    if (layout_) {
        layout_->token_begin.push_back(static_cast<std::uint32_t>(p));
        layout_->token_end.push_back(static_cast<std::uint32_t>(i));
    }
    return true;
}

std::optional<Token> Lexer::comment_on_line() {
    std::size_t p = pos_;
    while (p < text_.size() && is_blank(text_[p])) ++p;
    const bool slash = cfg_.slash_comments && text_.substr(p).starts_with("//");
    const bool hash = cfg_.hash_comments && p < text_.size() && text_[p] == '#';
    if (!slash && !hash) return std::nullopt;
    std::size_t e = p;
    while (e < text_.size() && text_[e] != '\n' && text_[e] != '\r') ++e;
    while (e > p && is_blank(text_[e - 1])) --e;
    Token t{Tok::comment, text_.substr(p, e - p), static_cast<std::uint32_t>(p)};
    pos_ = e;
    have_peek_ = false;
    record(t);
    return t;
}

std::optional<Token> Lexer::comment() {
    std::size_t p = pos_;
    while (p < text_.size() && is_space(text_[p])) ++p;
    const std::size_t save = pos_;
    pos_ = p;
    have_peek_ = false;
    auto t = comment_on_line();
    if (!t) pos_ = save;
    return t;
}

Result<Token> Lexer::rest_of_line(std::string_view field) {
    // The field is the next line (or the rest of this one if something follows on it); an
    // empty line is an empty field.
    std::size_t p = pos_;
    while (p < text_.size() && is_blank(text_[p])) ++p;
    if (p < text_.size() && (text_[p] == '\r' || text_[p] == '\n')) {
        p += (text_[p] == '\r' && p + 1 < text_.size() && text_[p + 1] == '\n') ? 2 : 1;
        while (p < text_.size() && is_blank(text_[p])) ++p;
    }
    std::size_t e = p;
    while (e < text_.size() && text_[e] != '\n' && text_[e] != '\r') ++e;
    while (e > p && is_blank(text_[e - 1])) --e;
    Token t{Tok::line, text_.substr(p, e - p), static_cast<std::uint32_t>(p)};
    if (p >= text_.size()) {
        return error(Token{Tok::end, {}, static_cast<std::uint32_t>(p)}, "wmp.missing-field",
                     "expected " + std::string(field));
    }
    pos_ = e;
    have_peek_ = false;
    record(t);
    return t;
}

Diagnostic Lexer::error(const Token& t, std::string code, std::string message) const {
    if (t.kind == Tok::end)
        message += " (at end of file)";
    else
        message += ", found '" + printable(t.text) + "'";
    return lines_.error_at(t.offset, std::move(code), std::move(message));
}

Result<void> Lexer::expect(std::string_view s, std::string_view field) {
    if (!have_peek_ && s.size() == 1 &&
        (class_[static_cast<unsigned char>(s[0])] & (kBreak | kSpace)) == kBreak) {
        // Punctuation is a token of its own: found right after blanks, it is the next token.
        std::size_t p = pos_;
        while (p < text_.size() && (class_[static_cast<unsigned char>(text_[p])] & kSpace)) ++p;
        if (p < text_.size() && text_[p] == s[0]) {
            pos_ = p + 1;
            record(Token{Tok::punct, text_.substr(p, 1), static_cast<std::uint32_t>(p)});
            return {};
        }
    }
    const Token& t = peek();
    if (!t.is(s)) {
        return error(t, "wmp.syntax",
                     "expected '" + std::string(s) + "' (" + std::string(field) + ")");
    }
    next();
    return {};
}

Result<double> Lexer::number(std::string_view field) {
    if (double v; quick_decimal(v, false)) return v;
    const Token& t = peek();
    const auto v = t.kind == Tok::word ? parse_double(t.text) : std::nullopt;
    if (!v) return error(t, "wmp.bad-number", "expected a number for " + std::string(field));
    next();
    return *v;
}

Result<std::int64_t> Lexer::integer(std::string_view field) {
    const Token& t = peek();
    auto v = t.kind == Tok::word ? parse_int(t.text) : std::nullopt;
    if (!v) return error(t, "wmp.bad-integer", "expected an integer for " + std::string(field));
    next();
    return *v;
}

Result<std::uint32_t> Lexer::index(std::string_view field) {
    if (double v; quick_decimal(v, true)) return static_cast<std::uint32_t>(v);
    const Token& t = peek();
    auto v = t.kind == Tok::word ? parse_uint(t.text) : std::nullopt;
    if (!v || *v > 0xFFFFFFFFu) {
        return error(t, "wmp.bad-index",
                     "expected a non-negative integer for " + std::string(field));
    }
    next();
    return static_cast<std::uint32_t>(*v);
}

Result<std::uint32_t> Lexer::bits(std::string_view field) {
    const Token& t = peek();
    auto v = t.kind == Tok::word ? parse_bits(t.text) : std::nullopt;
    if (!v) {
        return error(t, "wmp.bad-flags",
                     "expected up to 32 binary digits for " + std::string(field));
    }
    next();
    return *v;
}

Result<std::string_view> Lexer::word(std::string_view field) {
    const Token& t = peek();
    if (t.kind != Tok::word && t.kind != Tok::angle) {
        return error(t, "wmp.missing-field", "expected " + std::string(field));
    }
    return next().text;
}

Result<std::string_view> Lexer::angle(std::string_view field) {
    const Token& t = peek();
    if (t.kind != Tok::angle) {
        return error(t, "wmp.missing-field", "expected <" + std::string(field) + ">");
    }
    std::string_view s = next().text;
    return s.substr(1, s.size() - 2);
}

// --- numbers -------------------------------------------------------------------------------

void append_number(std::string& out, double v, Num style) {
    char buf[512];
    auto r =
        std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, style == Num::f3 ? 3 : 6);
    if (r.ec != std::errc()) {
        append_double(out, v);
        return;
    }
    std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
    if (style == Num::f6_exact && std::isfinite(v)) {
        // Six decimals are what WED prints; they lose values it stores in WMPB (an angle of
        // -4.37e-08 prints as "-0"). Such values are written in the shortest exact form
        // instead. Single-precision values count as kept when they read back as the same float.
        const auto back = parse_double(s);
        const bool kept =
            back && (*back == v || (nearest_float(v) == v && nearest_float(*back) == v));
        if (!kept) {
            append_double(out, v);
            return;
        }
    }
    if ((style == Num::f6 || style == Num::f6_exact) && s.find('.') != std::string_view::npos) {
        while (s.back() == '0') s.remove_suffix(1);
        if (s.back() == '.') s.remove_suffix(1);
    }
    out.append(s);
}

void append_bits(std::string& out, std::uint32_t v) {
    if (v == 0) {
        out.append("0000");
        return;
    }
    int width = 4;
    while (width < 32 && (v >> width) != 0) width *= 2;
    for (int i = width - 1; i >= 0; --i) out.push_back(((v >> i) & 1u) ? '1' : '0');
}

// --- Emitter -------------------------------------------------------------------------------

Emitter::Emitter(const TextLayout* layout, std::string_view newline)
    : layout_(layout && !layout->empty() ? layout : nullptr), newline_(newline) {
    if (layout_) source_ = layout_->source.text();
}

void Emitter::begin(TokenSpan span) {
    span_ = layout_ ? span : TokenSpan{};
    k_ = 0;
    overflow_ = false;
    mark_ = out_.size();
}

bool Emitter::end() {
    if (span_.empty()) return true;
    const bool ok = !overflow_ && k_ == span_.end - span_.begin;
    if (!ok) out_.resize(mark_);
    span_ = {};
    return ok;
}

void Emitter::put_canonical(std::string_view s) {
    for (char c : s) {
        if (c == '\n')
            out_.append(newline_);
        else
            out_.push_back(c);
    }
}

std::optional<std::string_view> Emitter::gap(std::string_view canonical) {
    if (!span_.empty()) {
        const std::uint32_t i = span_.begin + k_;
        if (i < span_.end) {
            ++k_;
            const std::uint32_t from = i == 0 ? 0 : layout_->token_end[i - 1];
            out_.append(source_.substr(from, layout_->token_begin[i] - from));
            return source_.substr(layout_->token_begin[i],
                                  layout_->token_end[i] - layout_->token_begin[i]);
        }
        overflow_ = true;
    }
    put_canonical(canonical);
    return std::nullopt;
}

void Emitter::word(std::string_view g, std::string_view text) {
    gap(g);  // a word is written as the model holds it, which is also its original spelling
    out_.append(text);
}

void Emitter::number(std::string_view g, double v, Num style) {
    auto orig = gap(g);
    if (orig) {
        if (auto p = parse_double(*orig); p && same_bits(*p, v)) {
            out_.append(*orig);
            return;
        }
    }
    append_number(out_, v, style);
}

void Emitter::integer(std::string_view g, std::int64_t v) {
    auto orig = gap(g);
    if (orig) {
        if (auto p = parse_int(*orig); p && *p == v) {
            out_.append(*orig);
            return;
        }
    }
    append_int(out_, v);
}

void Emitter::bits(std::string_view g, std::uint32_t v, bool quoted) {
    auto orig = gap(g);
    if (orig) {
        if (auto p = parse_bits(*orig); p && *p == v) {
            out_.append(*orig);
            return;
        }
    }
    if (quoted) out_.push_back('\'');
    append_bits(out_, v);
    if (quoted) out_.push_back('\'');
}

void Emitter::angle(std::string_view g, std::string_view inner) {
    gap(g);
    out_.push_back('<');
    out_.append(inner);
    out_.push_back('>');
}

void Emitter::comment(std::string_view g, std::string_view text) {
    auto orig = gap(g);
    if (orig && comment_text(*orig) == trim(text)) {
        out_.append(*orig);
        return;
    }
    out_.append("//");
    out_.append(text);
}

void Emitter::hex_byte(std::string_view g, std::uint8_t v) {
    auto orig = gap(g);
    if (orig && orig->size() <= 2) {
        unsigned parsed = 0;
        auto r = std::from_chars(orig->data(), orig->data() + orig->size(), parsed, 16);
        if (r.ec == std::errc() && r.ptr == orig->data() + orig->size() && parsed == v) {
            out_.append(*orig);
            return;
        }
    }
    static constexpr char kHex[] = "0123456789abcdef";
    out_.push_back(kHex[v >> 4]);
    out_.push_back(kHex[v & 15]);
}

void Emitter::trailer(std::string_view canonical) {
    if (layout_) {
        out_.append(source_.substr(layout_->token_end.back()));
    } else {
        put_canonical(canonical);
    }
}

}  // namespace lk::wmp::detail
