// Token-level machinery shared by the WMP2, `$$M` and A3 text readers and writers.
//
// The Lexer hands out tokens and, when given a TextLayout, records each consumed token's byte
// range. The Emitter writes tokens back: inside a record that has a layout span it replays the
// original bytes between tokens and keeps a token's original spelling whenever that spelling
// still denotes the value being written (so "1.00" stays "1.00" while the model says 1.0). A
// record whose token count no longer matches its span is written again in canonical form.
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
    Lexer(std::string_view text, LexConfig cfg, TextLayout* layout);

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
            record(peek_);
        }
        return peek_;
    }
    // Consumes a comment that follows on the current line, if there is one.
    std::optional<Token> comment_on_line();
    // Consumes the next comment if nothing but whitespace comes before it.
    std::optional<Token> comment();
    // Consumes a line field: the rest of the current line if anything follows on it, else the
    // next line (without surrounding blanks; may be empty). Only the end of input is an error.
    Result<Token> rest_of_line(std::string_view field);

    bool at_end() { return peek().kind == Tok::end; }
    std::uint32_t token_count() const {
        return layout_ ? static_cast<std::uint32_t>(layout_->size()) : 0;
    }
    std::size_t offset() const { return pos_; }
    std::string_view text() const { return text_; }
    const LineMap& lines() const { return lines_; }

    // Errors positioned at a token (or at the end of input for Tok::end).
    Diagnostic error(const Token& t, std::string code, std::string message) const;

    // Typed consumers: each reads one token and checks it, with `field` naming it in errors.
    Result<void> expect(std::string_view text, std::string_view field);
    Result<double> number(std::string_view field);
    Result<std::int64_t> integer(std::string_view field);
    Result<std::uint32_t> index(std::string_view field);
    Result<std::uint32_t> bits(std::string_view field);  // `0101` (or `'0101'`)
    Result<std::string_view> word(std::string_view field);
    Result<std::string_view> angle(std::string_view field);  // `<...>`, without the brackets

private:
    void scan();
    // Fast path for numeric fields: a plain decimal ("-33.625042", "128", at most 15 digits)
    // starting the next token (after blanks, not a comment), parsed and consumed in one pass.
    // False (nothing consumed) for anything else; the general path then decides.
    bool quick_decimal(double& out, bool integral);
    void record(const Token& t) {
        if (!layout_) return;
        layout_->token_begin.push_back(t.offset);
        layout_->token_end.push_back(static_cast<std::uint32_t>(t.offset + t.text.size()));
    }

    std::string_view text_;
    LexConfig cfg_;
    TextLayout* layout_;
    LineMap lines_;
    std::size_t pos_ = 0;
    bool have_peek_ = false;
    Token peek_;
    std::size_t peek_end_ = 0;
    // Per byte value: kSpace (blank or line break), kBreak (ends a word: spaces and
    // punctuation), kComment (may start a comment).
    static constexpr std::uint8_t kSpace = 1, kBreak = 2, kComment = 4;
    std::array<std::uint8_t, 256> class_{};
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
