#include "text_io.hpp"

#include "model_util.hpp"

#include <algorithm>
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

Lexer::Lexer(std::string_view text, LexConfig cfg, TextLayout& layout)
    : text_(text), cfg_(cfg), layout_(layout), lines_(text) {
    for (char c : cfg_.punct) class_[static_cast<unsigned char>(c)] |= kBreak;
    for (char c : {' ', '\t', '\r', '\n'}) class_[static_cast<unsigned char>(c)] |= kSpace | kBreak;
    if (cfg_.slash_comments) class_['/'] |= kComment;
    if (cfg_.hash_comments) class_['#'] |= kComment;
    const auto stop = [&](auto ends_run) {
        std::size_t e = text.size();
        while (e > 0 && !ends_run(text[e - 1])) --e;
        return e;
    };
    space_stop_ = stop([&](char c) { return !(cls(c) & kSpace); });
    digit_stop_ = stop([](char c) { return static_cast<unsigned char>(c - '0') >= 10; });
    break_stop_ = stop([&](char c) { return (cls(c) & kBreak) != 0; });
    if (cfg_.record_runs && !(cls('-') & kBreak) && !(cls('.') & kBreak)) {
        run_stop_ = break_stop_;
        while (run_stop_ > 0 && (cls(text[run_stop_ - 1]) & kSpace)) --run_stop_;
    }
    // Tokens are at least one byte and mostly separated by one: a guess that saves the arrays
    // most of their regrowth. The arrays are sized (zeroed) a piece at a time as tokens come:
    // zeroing all of the guess first took a tenth of the read.
    layout_.token_begin.reserve(text.size() / 4 + 16);
    layout_.token_end.reserve(text.size() / 4 + 16);
    grow();
}

void Lexer::finish() {
    layout_.token_begin.resize(count_);
    layout_.token_end.resize(count_);
    capacity_ = count_;
    begins_ = layout_.token_begin.data();
    ends_ = layout_.token_end.data();
}

void Lexer::grow() {
    // Every token holds at least one byte of the text, so the count stays below its size. A
    // piece of 1 KiB an array is zeroed just before it is written; past the reserve the vectors
    // reallocate by doubling.
    capacity_ += 256;
    layout_.token_begin.resize(capacity_);
    layout_.token_end.resize(capacity_);
    begins_ = layout_.token_begin.data();
    ends_ = layout_.token_end.data();
}

std::size_t Lexer::room_for_run(std::size_t pos, std::size_t count) {
    // A run's stop counts a token a byte, and tokens take four or five: mostly it only moves
    // on, and the layout grows when it is nearly full.
    if (capacity_ - count < 64) grow();
    return std::min(run_stop_, pos + (capacity_ - count));
}

void Lexer::scan() {
    std::size_t p = pos_;
    const std::size_t n = text_.size();
    const char* s = text_.data();
    auto at = [&](std::size_t i) { return cls(s[i]); };
    for (;;) {
        while (p < n && (at(p) & kSpace)) ++p;
        if (p >= n || !(at(p) & kComment)) break;
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
    if (at(p) & kBreak) {
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
        while (e < n && !(at(e) & kBreak)) ++e;
        peek_.kind = Tok::word;
    }
    peek_.text = text_.substr(p, e - p);
    peek_end_ = e;
    have_peek_ = true;
}

bool Lexer::next_on_new_line() {
    if (!have_peek_) {
        std::size_t p = pos_;
        while (p < text_.size() && is_blank(text_[p])) ++p;
        if (p >= text_.size() || text_[p] == '\r' || text_[p] == '\n') return true;
        if (!(cls(text_[p]) & kComment)) return false;  // a token starts on this line
    }
    const Token& t = peek();
    const std::string_view gap = text_.substr(pos_, t.offset - pos_);
    return gap.find_first_of("\r\n") != std::string_view::npos || t.kind == Tok::end;
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

bool Lexer::expect_general(std::string_view s, std::string_view field) {
    const Token& t = peek();
    if (!t.is(s)) {
        return fail(error(t, "wmp.syntax",
                          "expected '" + std::string(s) + "' (" + std::string(field) + ")"));
    }
    next();
    return true;
}

bool Lexer::get_literal(std::string_view s, std::string_view field) {
    if (!have_peek_ && plain_literal(s)) {
        const std::size_t p = skip_spaces(pos_);
        if (p < text_.size() && !(cls(text_[p]) & kComment) && token_at(p, s)) {
            consume(p, p + s.size());
            return true;
        }
    }
    return expect_general(s, field);
}

Result<void> Lexer::expect(std::string_view s, std::string_view field) {
    if (!get_literal(s, field)) return take_error();
    return {};
}

bool Lexer::punct_general(char c, std::string_view field) {
    const char s[1] = {c};
    return expect_general(std::string_view(s, 1), field);
}

// The typed consumers. Each takes a plain token in one pass (numbers and indices inline, in
// text_io.hpp) and leaves anything else to its general path: the token as scanned, through the
// general parsers, which also make the errors.

bool Lexer::take_number_general(double& out) {
    const Token& t = peek();
    const auto v = t.kind == Tok::word ? parse_double(t.text) : std::nullopt;
    if (!v) return false;
    next();
    out = *v;
    return true;
}

bool Lexer::fail_number(std::string_view field) {
    return fail(error(peek(), "wmp.bad-number", "expected a number for " + std::string(field)));
}

Result<double> Lexer::number(std::string_view field) {
    double v;
    if (!get_number(v, field)) return take_error();
    return v;
}

bool Lexer::take_integer(std::int64_t& out) {
    const std::size_t p = plain_token_start();
    if (p == std::string_view::npos) return take_integer_general(out);
    const std::size_t n = text_.size();
    const bool neg = text_[p] == '-';
    std::uint64_t m = 0;
    const std::size_t e = digits(p + neg, m);
    // 15 digits fit any int64 (as they fit a double); longer spellings go the general way.
    const std::size_t count = e - p - neg;
    if (count == 0 || count > 15 || (e < n && !(cls(text_[e]) & kBreak))) {
        return take_integer_general(out);
    }
    out = neg ? -static_cast<std::int64_t>(m) : static_cast<std::int64_t>(m);
    consume(p, e);
    return true;
}

bool Lexer::take_integer_general(std::int64_t& out) {
    const Token& t = peek();
    auto v = t.kind == Tok::word ? parse_int(t.text) : std::nullopt;
    if (!v) return false;
    next();
    out = *v;
    return true;
}

bool Lexer::fail_integer(std::string_view field) {
    return fail(error(peek(), "wmp.bad-integer", "expected an integer for " + std::string(field)));
}

Result<std::int64_t> Lexer::integer(std::string_view field) {
    std::int64_t v;
    if (!get_integer(v, field)) return take_error();
    return v;
}

bool Lexer::take_index_general(std::uint32_t& out) {
    const Token& t = peek();
    auto v = t.kind == Tok::word ? parse_uint(t.text) : std::nullopt;
    if (!v || *v > 0xFFFFFFFFu) return false;
    next();
    out = static_cast<std::uint32_t>(*v);
    return true;
}

bool Lexer::fail_index(std::string_view field) {
    return fail(error(peek(), "wmp.bad-index",
                      "expected a non-negative integer for " + std::string(field)));
}

Result<std::uint32_t> Lexer::index(std::string_view field) {
    std::uint32_t v;
    if (!get_index(v, field)) return take_error();
    return v;
}

bool Lexer::take_bits(std::uint32_t& out) {
    const std::size_t p = plain_token_start();
    if (p == std::string_view::npos) return take_bits_general(out);
    // Plain binary digits ending at a break (quoted flags go the general way).
    const std::size_t n = text_.size();
    const std::size_t lim = std::min(n, p + 33);
    std::size_t i = p;
    std::uint32_t v = 0;
    while (i < lim && (text_[i] == '0' || text_[i] == '1'))
        v = (v << 1) | static_cast<std::uint32_t>(text_[i++] - '0');
    if (i == p || i - p > 32 || (i < n && !(cls(text_[i]) & kBreak))) {
        return take_bits_general(out);
    }
    out = v;
    consume(p, i);
    return true;
}

bool Lexer::take_bits_general(std::uint32_t& out) {
    const Token& t = peek();
    auto v = t.kind == Tok::word ? parse_bits(t.text) : std::nullopt;
    if (!v) return false;
    next();
    out = *v;
    return true;
}

bool Lexer::fail_bits(std::string_view field) {
    return fail(error(peek(), "wmp.bad-flags",
                      "expected up to 32 binary digits for " + std::string(field)));
}

Result<std::uint32_t> Lexer::bits(std::string_view field) {
    std::uint32_t v;
    if (!get_bits(v, field)) return take_error();
    return v;
}

bool Lexer::next_word(std::string_view& out) {
    if (have_peek_) return next_word_general(out);
    const std::size_t p = skip_spaces(pos_);
    const std::size_t n = text_.size();
    if (p >= n || (cls(text_[p]) & (kBreak | kComment)) ||
        (cfg_.angle_strings && text_[p] == '<')) {
        return next_word_general(out);
    }
    std::size_t e = p + 1;
    if (e < break_stop_) {
        while (!(cls(text_[e]) & kBreak)) ++e;
    } else {
        e = n;  // the word runs to the end of the text
    }
    out = text_.substr(p, e - p);
    consume(p, e);
    return true;
}

bool Lexer::next_word_general(std::string_view& out) {
    if (peek().kind != Tok::word) return false;
    out = next().text;
    return true;
}

bool Lexer::take_word(std::string_view& out) {
    if (next_word(out)) return true;
    if (peek().kind != Tok::angle) return false;
    out = next().text;
    return true;
}

bool Lexer::fail_word(std::string_view field) {
    return fail(error(peek(), "wmp.missing-field", "expected " + std::string(field)));
}

Result<std::string_view> Lexer::word(std::string_view field) {
    std::string_view v;
    if (!get_word(v, field)) return take_error();
    return v;
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
