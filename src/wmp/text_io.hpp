// Token-level machinery shared by the WMP2, `$$M` and A3 text readers and writers.
//
// The Lexer hands out tokens and records each consumed token's byte range in a TextLayout. The
// Emitter writes tokens back: inside a record that has a layout span it replays the original bytes
// between tokens and keeps a token's original spelling whenever that spelling still denotes the
// value being written (so "1.00" stays "1.00" while the model says 1.0). A record whose token count
// no longer matches its span is written again in canonical form.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/wmp/level.hpp"

namespace lk::wmp::detail {

struct LexConfig {
    bool slash_comments = true;  // `// ...` to end of line (WMP2, $$M)
    bool hash_comments = false;  // `# ...` to end of line (A3)
    bool angle_strings = true;   // `<...>` is one token (WMP2 file names may contain spaces)
    std::string_view punct = "{}(),";
    bool record_runs = true;  // whether a Run may read tokens (false: every Run declines)
};

enum class Tok : std::uint8_t { end, word, punct, angle, comment, line };

struct Token {
    Tok kind = Tok::end;
    std::string_view text;
    std::uint32_t offset = 0;
    bool is(std::string_view s) const { return kind != Tok::end && text == s; }
};

class Lexer {
public:
    // Every consumed token is recorded in `layout` (token_begin/token_end), which holds spare
    // entries while reading: finish() trims it once the reader is done.
    Lexer(std::string_view text, LexConfig cfg, TextLayout& layout);
    void finish();

    // The next token without consuming it (comments are skipped as whitespace).
    const Token& peek() {
        if (!have_peek_) scan();
        return peek_;
    }
    // Consumes the next token and records it in the layout.
    Token next() {
        if (!have_peek_) scan();
        have_peek_ = false;
        if (peek_.kind != Tok::end) {
            pos_ = peek_end_;
            record(peek_.offset, peek_end_);
        }
        return peek_;
    }
    // peek().is(s) for `s` a single punctuation character or a word without punctuation or
    // blanks ("version", ":", "]"): most tokens are told apart at their first byte, so this
    // scans no token unless a comment may come first.
    bool next_is(std::string_view s) {
        if (!have_peek_ && plain_literal(s)) {
            const std::size_t p = skip_spaces(pos_);
            if (p >= text_.size()) return false;
            if (!(cls(text_[p]) & kComment)) return token_at(p, s);
        }
        return peek().is(s);
    }
    bool next_is(char c) {
        if (!have_peek_) {
            const std::size_t p = skip_spaces(pos_);
            if (p >= text_.size()) return false;
            if (!(cls(text_[p]) & kComment)) return char_token_at(p, c);
        }
        const char s[1] = {c};
        return peek().is(std::string_view(s, 1));
    }
    // Consumes the next token if next_is(c), saying whether it did.
    bool accept(char c) {
        if (!have_peek_) {
            const std::size_t p = skip_spaces(pos_);
            if (p >= text_.size()) return false;
            if (!(cls(text_[p]) & kComment)) {
                if (!char_token_at(p, c)) return false;
                consume(p, p + 1);
                return true;
            }
        }
        if (!next_is(c)) return false;
        next();
        return true;
    }
    // Consumes the next token if it is a word (not punctuation, an angle string or the end).
    bool next_word(std::string_view& out);
    // True if a line break (or the end of the input) separates the current position from the
    // next token.
    bool next_on_new_line();
    // Consumes a comment that follows on the current line, if there is one.
    std::optional<Token> comment_on_line();
    // Consumes the next comment if nothing but whitespace comes before it.
    std::optional<Token> comment();
    // Consumes a line field: the rest of the current line if anything follows on it, else the
    // next line (without surrounding blanks; may be empty). Only the end of input is an error.
    Result<Token> rest_of_line(std::string_view field);

    bool at_end() { return peek().kind == Tok::end; }
    // Tokens hold at least one byte each, and texts are below 4 GiB (check_text_size).
    std::uint32_t token_count() const { return static_cast<std::uint32_t>(count_); }
    std::size_t offset() const { return pos_; }
    std::string_view text() const { return text_; }
    const LineMap& lines() const { return lines_; }
    // The token consumed last (for errors about a value that read well but does not fit).
    Token last_token() const {
        if (count_ == 0) return {};
        const std::uint32_t b = begins_[count_ - 1];
        return {Tok::word, text_.substr(b, ends_[count_ - 1] - b), b};
    }

    // Errors positioned at a token (or at the end of input for Tok::end).
    Diagnostic error(const Token& t, std::string code, std::string message) const;

    // Typed consumers: each reads one token and checks it, with `field` naming it in errors.
    Result<void> expect(std::string_view s, std::string_view field);
    Result<double> number(std::string_view field);
    Result<std::int64_t> integer(std::string_view field);
    Result<std::uint32_t> index(std::string_view field);
    Result<std::uint32_t> bits(std::string_view field);      // `0101` (or `'0101'`)
    Result<std::string_view> word(std::string_view field);   // a word or an angle token
    Result<std::string_view> angle(std::string_view field);  // `<...>`, without the brackets

    // The same for the hot paths (faces, vertices, objects): false when the input is bad, with
    // the error, exactly as the Result versions make it, kept until take_error(). A Result
    // carries a whole Diagnostic that every successful call builds and destroys; these carry a
    // bool, and the error is only made when there is one.
    bool get_literal(std::string_view s, std::string_view field);  // `s` as for next_is
    bool get_punct(char c, std::string_view field) {
        if (!have_peek_) {
            const std::size_t p = skip_spaces(pos_);
            if (p < text_.size() && !(cls(text_[p]) & kComment) && char_token_at(p, c)) {
                consume(p, p + 1);
                return true;
            }
        }
        return punct_general(c, field);
    }
    bool get_number(double& out, std::string_view field) {
        return fast_number(out) || take_number_general(out) || fail_number(field);
    }
    // Reads `count` numbers in one call; returns how many were read (short: the token after
    // them is bad and peeked, and fail_number makes its error).
    std::size_t take_numbers(double* out, std::size_t count) {
        for (std::size_t k = 0; k < count; ++k) {
            if (!fast_number(out[k]) && !take_number_general(out[k])) return k;
        }
        return count;
    }
    bool get_integer(std::int64_t& out, std::string_view field) {
        return take_integer(out) || fail_integer(field);
    }
    bool get_index(std::uint32_t& out, std::string_view field) {
        return fast_index(out) || take_index_general(out) || fail_index(field);
    }
    bool get_bits(std::uint32_t& out, std::string_view field) {
        return take_bits(out) || fail_bits(field);
    }
    bool get_word(std::string_view& out, std::string_view field) {
        return take_word(out) || fail_word(field);
    }
    // Keeps `d` as the error and returns false.
    bool fail(Diagnostic d) {
        error_ = std::move(d);
        return false;
    }
    // Puts the kept error under the logical path segment `seg`; returns false.
    bool fail_under(std::string_view seg) {
        static_cast<void>(std::move(error_).under(seg));  // in place
        return false;
    }
    Diagnostic take_error() { return std::move(error_); }
    // Each makes the error of its consumer at the peeked token, keeps it, returns false.
    bool fail_number(std::string_view field);
    bool fail_integer(std::string_view field);
    bool fail_index(std::string_view field);
    bool fail_bits(std::string_view field);
    bool fail_word(std::string_view field);

    // A run of plain tokens for the hot records (a whole face, a vertex list, an object's
    // transform), read with the position and token count held here instead of in the lexer:
    // each reader takes exactly what the lexer's fast path of the same kind takes (a token with
    // no comment before it, spelled plainly, ending at a break) and gives the same value; for
    // anything else it returns false and the caller declines the whole record, which the
    // general path then reads from where the last commit() left the lexer. Nothing reaches the
    // lexer but through commit(). A run reads only tokens that start before the text's last
    // break, so that every scan ends at a byte it has checked, without a bound per byte.
    class Run {
    public:
        explicit Run(Lexer& lx)
            : lx_(lx),
              s_(lx.text_.data()),
              begins_(lx.begins_),
              ends_(lx.ends_),
              pos_(lx.pos_),
              count_(lx.count_),
              // A peeked token would be skipped: a run then takes nothing. Tokens start at
              // distinct bytes, so a run that stops as many bytes on as the layout has room
              // for tokens never fills it.
              stop_(lx.have_peek_ ? 0 : std::min(lx.run_stop_, pos_ + (lx.capacity_ - count_))) {}
        // Makes the tokens read so far consumed.
        void commit() {
            lx_.pos_ = pos_;
            lx_.count_ = count_;
        }
        std::size_t offset() const { return pos_; }

        // Where the next token starts if a run may read it (see above), else npos. The blanks
        // skipped from before stop_ end before it (see run_stop_).
        [[gnu::always_inline]] std::size_t start() {
            std::size_t p = pos_;
            if (p >= stop_) [[unlikely]] {
                // More room in the layout when that is what ends the run. The lexer does the
                // work, so that the run's fields need not live in memory.
                if (lx_.have_peek_ || stop_ >= lx_.run_stop_) return std::string_view::npos;
                stop_ = lx_.room_for_run(pos_, count_);
                begins_ = lx_.begins_;
                ends_ = lx_.ends_;
                if (p >= stop_) return std::string_view::npos;
            }
            while (cls(s_[p]) & kSpace) ++p;
            if (cls(s_[p]) & kComment) return std::string_view::npos;
            return p;
        }
        // Whether the token at p (from start()) is the single-byte token c, as char_token_at.
        [[gnu::always_inline]] bool char_token(std::size_t p, char c) const {
            return s_[p] == c && ((cls(c) & kBreak) || (cls(s_[p + 1]) & kBreak));
        }
        // Consumes [b, e) as the next token (true, for chaining).
        [[gnu::always_inline]] bool take(std::size_t b, std::size_t e) {
            begins_[count_] = static_cast<std::uint32_t>(b);
            ends_[count_] = static_cast<std::uint32_t>(e);
            ++count_;
            pos_ = e;
            return true;
        }

        // `c` a single-byte token that is not '<' (get_punct).
        [[gnu::always_inline]] bool punct(char c) {
            const std::size_t p = start();
            return p != std::string_view::npos && char_token(p, c) && take(p, p + 1);
        }
        // fast_number's spellings.
        [[gnu::always_inline]] bool number(double& out) {
            const std::size_t p = start();
            if (p == std::string_view::npos) return false;
            const bool neg = s_[p] == '-';
            std::uint64_t m = 0;
            std::size_t i = digits(p + neg, m);
            std::size_t total = i - p - neg, frac = 0;
            if (s_[i] == '.') {
                const std::size_t e = digits(i + 1, m);
                frac = e - (i + 1);
                total += frac;
                i = e;
            }
            if (total == 0 || total > 15 || !(cls(s_[i]) & kBreak)) return false;
            const double v = frac ? static_cast<double>(static_cast<std::int64_t>(m)) / kPow10[frac]
                                  : static_cast<double>(static_cast<std::int64_t>(m));
            out = neg ? -v : v;
            return take(p, i);
        }
        // fast_index's spellings.
        [[gnu::always_inline]] bool index(std::uint32_t& out) {
            const std::size_t p = start();
            if (p == std::string_view::npos) return false;
            std::uint64_t m = 0;
            const std::size_t e = digits(p, m);
            if (e == p || e - p > 9 || !(cls(s_[e]) & kBreak)) return false;
            out = static_cast<std::uint32_t>(m);
            return take(p, e);
        }
        // take_bits' spellings: up to 32 binary digits.
        [[gnu::always_inline]] bool bits(std::uint32_t& out) {
            const std::size_t p = start();
            if (p == std::string_view::npos) return false;
            std::size_t i = p;
            std::uint32_t v = 0;
            for (unsigned d; (d = static_cast<unsigned char>(s_[i]) - 48u) < 2 && i - p < 33; ++i)
                v = (v << 1) | d;
            if (i == p || i - p > 32 || !(cls(s_[i]) & kBreak)) return false;
            out = v;
            return take(p, i);
        }
        // next_word's tokens: a word, not punctuation or an angle token.
        [[gnu::always_inline]] bool word(std::string_view& out) {
            const std::size_t p = start();
            if (p == std::string_view::npos || (cls(s_[p]) & kBreak) ||
                (lx_.cfg_.angle_strings && s_[p] == '<')) {
                return false;
            }
            std::size_t e = p + 1;
            while (!(cls(s_[e]) & kBreak)) ++e;
            out = std::string_view(s_ + p, e - p);
            return take(p, e);
        }
        // next_on_new_line() for a run: 1 if a line break or the end of the text comes before
        // the next token, 0 if a token follows on this line, -1 if a comment may (the caller
        // declines).
        [[gnu::always_inline]] int line_ends() const {
            const std::size_t n = lx_.text_.size();
            std::size_t p = pos_;
            while (p < n && (s_[p] == ' ' || s_[p] == '\t')) ++p;
            if (p >= n || s_[p] == '\r' || s_[p] == '\n') return 1;
            return (cls(s_[p]) & kComment) ? -1 : 0;
        }

    private:
        std::uint8_t cls(char c) const { return lx_.class_[static_cast<unsigned char>(c)]; }
        // The digits at s_[i..] appended to m; a break at or after them ends them.
        [[gnu::always_inline]] std::size_t digits(std::size_t i, std::uint64_t& m) const {
            std::uint64_t v = m;
            for (unsigned d; (d = static_cast<unsigned char>(s_[i]) - 48u) < 10; ++i)
                v = v * 10 + d;
            m = v;
            return i;
        }

        Lexer& lx_;
        const char* s_;
        std::uint32_t* begins_;
        std::uint32_t* ends_;
        std::size_t pos_, count_, stop_;
    };

private:
    // Per byte value: kSpace (blank or line break), kBreak (ends a word: spaces and
    // punctuation), kComment (may start a comment).
    static constexpr std::uint8_t kSpace = 1, kBreak = 2, kComment = 4;
    static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

    std::uint8_t cls(char c) const { return class_[static_cast<unsigned char>(c)]; }
    std::size_t skip_spaces(std::size_t p) const {
        if (p >= space_stop_) return text_.size();  // only blanks and line breaks remain
        const char* t = text_.data();
        while (cls(t[p]) & kSpace) ++p;
        return p;
    }
    // Literals token_at can decide (an angle token ends at its '>', not at a break).
    bool plain_literal(std::string_view s) const {
        return !s.empty() && !(cfg_.angle_strings && s[0] == '<');
    }
    // Whether the token starting at p (not a comment) is `s` (see next_is, plain_literal).
    bool token_at(std::size_t p, std::string_view s) const {
        if (text_.size() - p < s.size() || text_.compare(p, s.size(), s) != 0) return false;
        if (cls(s[0]) & kBreak) return s.size() == 1;  // punctuation is a token of its own
        const std::size_t e = p + s.size();
        return e == text_.size() || (cls(text_[e]) & kBreak);
    }
    bool char_token_at(std::size_t p, char c) const {
        if (text_[p] != c || (cfg_.angle_strings && c == '<')) return false;
        return (cls(c) & kBreak) || p + 1 == text_.size() || (cls(text_[p + 1]) & kBreak);
    }
    // Where the next token starts if it is a plain one (no comment first), else npos.
    std::size_t plain_token_start() const {
        if (have_peek_) return peek_.kind == Tok::word ? peek_.offset : std::string_view::npos;
        const std::size_t p = skip_spaces(pos_);
        return p < text_.size() && !(cls(text_[p]) & kComment) ? p : std::string_view::npos;
    }
    // Consumes [b, e) as the next token (the caller checked it is one).
    void consume(std::size_t b, std::size_t e) {
        have_peek_ = false;
        pos_ = e;
        record(b, e);
    }
    void record(std::size_t b, std::size_t e) {
        if (count_ == capacity_) grow();
        begins_[count_] = static_cast<std::uint32_t>(b);
        ends_[count_] = static_cast<std::uint32_t>(e);
        ++count_;
    }
    void record(const Token& t) { record(t.offset, t.offset + t.text.size()); }
    void grow();
    // Room for a run at `pos` that has read up to token `count`, growing the layout if need be
    // (the tokens since its last commit are kept: they are below the old size); returns the
    // run's new stop.
    std::size_t room_for_run(std::size_t pos, std::size_t count);
    void scan();

    bool take_integer(std::int64_t& out);
    bool take_bits(std::uint32_t& out);
    bool take_word(std::string_view& out);
    // The general paths behind the fast ones (any token the fast path does not take).
    bool take_number_general(double& out);
    bool take_integer_general(std::int64_t& out);
    bool take_index_general(std::uint32_t& out);
    bool take_bits_general(std::uint32_t& out);
    bool next_word_general(std::string_view& out);
    bool punct_general(char c, std::string_view field);
    // The general path of expect: true, or false with the error kept.
    bool expect_general(std::string_view s, std::string_view field);
    // The fast paths of the numeric fields, inlined into the hot readers (a call costs as
    // much as the parse of a short number): a plain spelling ("-33.625042", "128") is parsed
    // and consumed in one pass, giving exactly what the general parsers give for it; for
    // anything else they return false without consuming, and the general path decides.
    [[gnu::always_inline]] bool fast_number(double& out) {
        const std::size_t p = plain_token_start();
        if (p == std::string_view::npos) return false;
        const char* s = text_.data();
        const std::size_t n = text_.size();
        const bool neg = s[p] == '-';
        std::uint64_t m = 0;
        std::size_t i = digits(p + neg, m);
        std::size_t total = i - p - neg, frac = 0;
        if (i < n && s[i] == '.') {
            const std::size_t e = digits(i + 1, m);
            frac = e - (i + 1);
            total += frac;
            i = e;
        }
        // At most 15 digits: the mantissa and the power of ten are exact doubles, so one
        // division rounds correctly, as the general parser does.
        if (total == 0 || total > 15 || (i < n && !(cls(s[i]) & kBreak))) return false;
        const double v = frac ? static_cast<double>(m) / kPow10[frac] : static_cast<double>(m);
        out = neg ? -v : v;
        consume(p, i);
        return true;
    }
    // Indices: at most 9 digits, no sign (a sign goes the general way, which rejects it).
    [[gnu::always_inline]] bool fast_index(std::uint32_t& out) {
        const std::size_t p = plain_token_start();
        if (p == std::string_view::npos) return false;
        std::uint64_t m = 0;
        const std::size_t e = digits(p, m);
        if (e == p || e - p > 9 || (e < text_.size() && !(cls(text_[e]) & kBreak))) return false;
        out = static_cast<std::uint32_t>(m);
        consume(p, e);
        return true;
    }
    // The digits at text_[i..] appended to m (m = m * 10^k + digits); returns their end. m
    // wraps for runs of 20 digits or more, which no fast path takes.
    [[gnu::always_inline]] std::size_t digits(std::size_t i, std::uint64_t& m) const {
        const char* s = text_.data();
        std::uint64_t v = m;
        if (i < digit_stop_) {
            for (unsigned d; (d = static_cast<unsigned char>(s[i] - '0')) < 10; ++i) {
                v = v * 10 + d;
            }
        } else {
            for (unsigned d; i < text_.size() && (d = static_cast<unsigned char>(s[i] - '0')) < 10;
                 ++i) {
                v = v * 10 + d;
            }
        }
        m = v;
        return i;
    }

    std::string_view text_;
    LexConfig cfg_;
    TextLayout& layout_;
    LineMap lines_;
    std::size_t pos_ = 0;
    bool have_peek_ = false;
    Token peek_;
    std::size_t peek_end_ = 0;
    // The layout arrays, written in place: layout_'s vectors are sized to capacity_, which
    // grows a piece at a time within the room reserved for them (see grow()).
    std::uint32_t* begins_ = nullptr;
    std::uint32_t* ends_ = nullptr;
    std::size_t count_ = 0, capacity_ = 0;
    // One past the last byte that is not a blank or line break (space_stop_), not a decimal
    // digit (digit_stop_), not a break (break_stop_); 0 if there is none. A scan that starts
    // before such a stop meets a byte that ends it before the end of the text, so the hot loops
    // need no bounds checks.
    std::size_t space_stop_ = 0, digit_stop_ = 0, break_stop_ = 0;
    // Where runs stop: blanks skipped from before it end at a byte that is not a blank, with a
    // break at or after it (break_stop_ less the blanks before it; at most space_stop_); 0 (no
    // runs) if a sign or a decimal point would end a word, or if the config turns runs off.
    std::size_t run_stop_ = 0;
    std::array<std::uint8_t, 256> class_{};
    Diagnostic error_;
};

// Number styles of WED's text writers.
enum class Num : std::uint8_t {
    f6,        // printf("%f") with trailing zeros and the point removed ("1", "-0", "0.5")
    f6_exact,  // f6 when that reads back as the same value (or the same float), else the
               // shortest exact spelling
    f6_full,   // printf("%f") as is ("50.196079", "-0.000000")
    f3,        // printf("%.3f") (A3)
};
void append_number(std::string& out, double v, Num style);
// `0000` for 0, else the value in binary, most significant bit first, 4/8/16/32 digits.
void append_bits(std::string& out, std::uint32_t v);

// The third WMP2 header line: "Created DATE" (true, DATE without surrounding blanks) or just a
// date.
std::pair<bool, std::string_view> split_created(std::string_view comment);

// Trims blanks; for a `//` or `#` comment token, the text after the marker.
std::string_view comment_text(std::string_view token);

class Emitter {
public:
    // `newline` replaces every '\n' in canonical gaps.
    Emitter(const TextLayout* layout, std::string_view newline);

    // Writes one record: `body` emits its tokens. With a non-empty span the original gaps and
    // spellings are used; if the record's tokens no longer line up with the span, the record is
    // written again without it.
    template <class F>
    void record(TokenSpan span, F&& body) {
        begin(span);
        body();
        if (!end()) {
            begin({});
            body();
            end();
        }
    }

    void word(std::string_view gap, std::string_view text);
    void number(std::string_view gap, double v, Num style = Num::f6);
    void integer(std::string_view gap, std::int64_t v);
    void bits(std::string_view gap, std::uint32_t v, bool quoted = false);
    void angle(std::string_view gap, std::string_view inner);
    void comment(std::string_view gap, std::string_view text);  // writes "//" + text
    // The same, keeping the original comment when `same(its text)` says it holds the value.
    template <class Same>
    void comment_if(std::string_view g, std::string_view text, Same&& same) {
        auto orig = gap(g);
        if (orig && same(comment_text(*orig))) {
            out_.append(*orig);
            return;
        }
        out_.append("//");
        out_.append(text);
    }
    void hex_byte(std::string_view gap, std::uint8_t v);
    // Everything after the last token of the source (or `canonical` without a layout).
    void trailer(std::string_view canonical);

    std::string take() { return std::move(out_); }

private:
    void begin(TokenSpan span);
    bool end();
    // Emits the gap before the next token; returns the original spelling if the layout has one.
    std::optional<std::string_view> gap(std::string_view canonical);
    void put_canonical(std::string_view s);

    const TextLayout* layout_;
    std::string_view source_;
    std::string newline_;
    std::string out_;
    TokenSpan span_;
    std::uint32_t k_ = 0;
    bool overflow_ = false;
    std::size_t mark_ = 0;
    std::string scratch_;
};

// Token positions are 32-bit: larger texts are refused (wmp.too-large).
Result<void> check_text_size(std::string_view text);

}  // namespace lk::wmp::detail
