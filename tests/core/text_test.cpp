#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "levelkit/core/numbers.hpp"
#include "levelkit/core/text.hpp"

using namespace lk;

TEST(LineMap, CountsLfCrlfAndCr) {
    LineMap m("ab\ncd\r\nef\rgh");
    EXPECT_EQ(m.locate(0).line, 1u);
    EXPECT_EQ(m.locate(1).column, 2u);
    EXPECT_EQ(m.locate(3).line, 2u);
    EXPECT_EQ(m.locate(7).line, 3u);
    EXPECT_EQ(m.locate(10).line, 4u);
    EXPECT_EQ(m.locate(11).column, 2u);
    EXPECT_EQ(m.locate(999).line, 4u);
    Diagnostic d = m.error_at(4, "x", "bad");
    EXPECT_EQ(d.to_string(), ":2:2: error: bad");
}

TEST(Numbers, ParsesVmfStyleNumbers) {
    EXPECT_EQ(parse_double("0"), 0.0);
    EXPECT_EQ(parse_double("-128"), -128.0);
    EXPECT_EQ(parse_double("0.25"), 0.25);
    EXPECT_EQ(parse_double("9.53674e-007"), 9.53674e-7);
    EXPECT_EQ(parse_double("1E+010"), 1e10);
    EXPECT_EQ(parse_double("+3.5"), 3.5);
    EXPECT_EQ(parse_double(".5"), 0.5);
    EXPECT_EQ(parse_double("5."), 5.0);
    EXPECT_FALSE(parse_double(""));
    EXPECT_FALSE(parse_double("1.0x"));
    EXPECT_FALSE(parse_double(" 1"));
    EXPECT_FALSE(parse_double("-"));
    EXPECT_TRUE(std::isinf(*parse_double("1e999")));
    EXPECT_EQ(*parse_double("1e-999"), 0.0);
}

TEST(Numbers, FastPathAgreesWithFromChars) {
    std::mt19937_64 rng(42);
    for (int i = 0; i < 200000; ++i) {
        const double v =
            std::ldexp(static_cast<double>(rng() >> 11), -static_cast<int>(rng() % 80)) *
            ((rng() & 1) ? -1 : 1);
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed,
                               static_cast<int>(rng() % 12));
        std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
        double want = 0;
        std::from_chars(s.data(), s.data() + s.size(), want);
        auto got = parse_double(s);
        ASSERT_TRUE(got) << s;
        ASSERT_EQ(*got, want) << s;
    }
}

// Numbers in map values are finite: what std::from_chars reads as NaN or infinity is refused,
// and the cursor does not move or write.
TEST(Numbers, CursorRefusesNonFiniteValues) {
    for (const char* t : {"nan", "-nan", "NAN", "inf", "-inf", "infinity", "1e999", "-1e400"}) {
        SCOPED_TRACE(t);
        const std::string text = std::string(t) + " 5";
        NumberCursor c(text);
        double v = 7;
        EXPECT_FALSE(c.number(v));
        EXPECT_EQ(v, 7);
        EXPECT_FALSE(parse_vec3(text + " 6").has_value());
    }
    NumberCursor big("1e300 5");
    double v = 0;
    EXPECT_TRUE(big.number(v));
    EXPECT_EQ(v, 1e300);
}

// NumberCursor reads up to seven digits on each side of the point as words when the text around
// a value may be read (`readable_end`): the same numbers, stops and failures as the digit loop,
// whatever follows the value in the text (digits included, which must not be taken).
TEST(Numbers, CursorWordPathAgreesWithDigitLoop) {
    std::mt19937_64 rng(7);
    const std::string_view tails[] = {"", " ", ")", "]", "x", "e5", ".", "9", "-", "\t"};
    auto digits = [&](std::size_t n) {
        std::string d;
        for (std::size_t i = 0; i < n; ++i) d += static_cast<char>('0' + rng() % 10);
        return d;
    };
    for (int i = 0; i < 200000; ++i) {
        std::string num = (rng() % 3 == 0) ? "-" : "";
        num += digits(rng() % 11);
        if (rng() % 2) num += "." + digits(rng() % 11);
        const std::string_view tail = tails[rng() % std::size(tails)];
        // Tails that end the number (the others run into it: "9", ".", "e5", "x", "-").
        const bool ends = tail.empty() || tail == " " || tail == ")" || tail == "]" || tail == "\t";
        std::string value = num + std::string(tail);
        if (rng() % 4 == 0) value += " " + digits(rng() % 4);
        // The text the value lies in goes on with bytes that are not part of it.
        const std::string text = value + digits(rng() % 3) + "\" 123456789 ) 0.5 1234567890";
        const std::string_view v(text.data(), value.size());
        NumberCursor plain(v), words(v, text.data() + text.size());
        for (int k = 0; k < 3; ++k) {
            double a = -1, b = -2;
            const bool ra = plain.number(a), rb = words.number(b);
            ASSERT_EQ(ra, rb) << value;
            if (!ra) break;
            ASSERT_EQ(std::signbit(a), std::signbit(b)) << value;
            ASSERT_EQ(a, b) << value;
            double want = 0;
            const std::string_view t = std::string_view(num).substr(num[0] == '-' ? 1 : 0);
            if (k == 0 && ends && !t.empty() &&
                std::from_chars(t.data(), t.data() + t.size(), want).ptr == t.data() + t.size()) {
                ASSERT_EQ(std::abs(a), want) << value;
            }
        }
        ASSERT_EQ(plain.at_end(), words.at_end()) << value;
    }
}

TEST(Numbers, FormatsShortestRoundTrip) {
    EXPECT_EQ(format_double(1.0), "1");
    EXPECT_EQ(format_double(-0.0), "0");
    EXPECT_EQ(format_double(0.1), "0.1");
    EXPECT_EQ(format_fixed(1.5000, 6), "1.5");
    EXPECT_EQ(format_fixed(-0.0000001, 6), "0");
    EXPECT_EQ(*parse_double(format_double(1.0 / 3)), 1.0 / 3);
    EXPECT_EQ(parse_int("-42"), -42);
    EXPECT_FALSE(parse_int("4x"));
}

// The whole-string parsers: the optional form wraps the out-parameter form, which leaves its
// output alone on failure.
TEST(Numbers, WholeStringParsersAgreeInBothForms) {
    for (const char* t : {"0", "-42", "+7", "", "-", "+", "4x", " 1", "123456789012345678",
                          "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                          "18446744073709551615", "18446744073709551616", "1.5", "1e3", "nan"}) {
        SCOPED_TRACE(t);
        std::int64_t i = 99;
        const bool ok_i = parse_int(t, i);
        EXPECT_EQ(ok_i, parse_int(t).has_value());
        EXPECT_EQ(i, ok_i ? *parse_int(t) : 99);
        std::uint64_t u = 99;
        const bool ok_u = parse_uint(t, u);
        EXPECT_EQ(ok_u, parse_uint(t).has_value());
        EXPECT_EQ(u, ok_u ? *parse_uint(t) : 99u);
        double d = 99;
        const bool ok_d = parse_double(t, d);
        EXPECT_EQ(ok_d, parse_double(t).has_value());
        if (!ok_d) {
            EXPECT_EQ(d, 99);
        } else if (!std::isnan(d)) {
            EXPECT_EQ(d, *parse_double(t));
        }
    }
    EXPECT_EQ(parse_int("-9223372036854775808"), INT64_MIN);
    EXPECT_FALSE(parse_int("9223372036854775808"));
    EXPECT_EQ(parse_uint("18446744073709551615"), UINT64_MAX);
    EXPECT_FALSE(parse_uint("-1"));
}

// iequals_lower<K> is iequals(x, K) a word at a time: every byte value at every position of
// keys of one word, exactly two and more than two, with '_' (whose case bit must not be
// ignored), in any case, and keys one byte short or long.
template <LowerKey K>
void expect_same_as_iequals() {
    const std::string key(K.text, K.kSize);
    for (std::size_t at = 0; at < key.size(); ++at) {
        for (int b = 0; b < 256; ++b) {
            for (const bool upper : {false, true}) {
                std::string x = key;
                if (upper)
                    for (char& c : x) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
                x[at] = static_cast<char>(b);
                ASSERT_EQ(iequals_lower<K>(x), iequals(x, key))
                    << key << " byte " << at << " = " << b;
            }
        }
    }
    EXPECT_FALSE(iequals_lower<K>(key.substr(1)));
    EXPECT_FALSE(iequals_lower<K>(key + "s"));
}

TEST(Strings, IequalsLowerAgreesWithIequals) {
    expect_same_as_iequals<"id">();
    expect_same_as_iequals<"material">();
    expect_same_as_iequals<"offset_normals">();
    expect_same_as_iequals<"smoothing_groups">();
    expect_same_as_iequals<"visgroupautoshown">();
    expect_same_as_iequals<"row_10">();
    // Every length of the last word (1-8 bytes), one word and more: it is loaded in pieces.
    expect_same_as_iequals<"lod">();
    expect_same_as_iequals<"name">();
    expect_same_as_iequals<"plane">();
    expect_same_as_iequals<"skyname">();
    expect_same_as_iequals<"targetname">();
    expect_same_as_iequals<"rendercolor">();
    expect_same_as_iequals<"editor_color">();
    expect_same_as_iequals<"lightmapscale">();
    expect_same_as_iequals<"lightmapscale_a">();
    EXPECT_TRUE(iequals_lower<"uaxis">("UAxis"));
    EXPECT_FALSE(iequals_lower<"smoothing_groups">("smoothing\x7fgroups"));
}

TEST(Strings, CaseInsensitiveHelpers) {
    EXPECT_TRUE(iequals("Solid", "sOLID"));
    EXPECT_FALSE(iequals("solid", "solids"));
    EXPECT_TRUE(iends_with("MAP.VMF", ".vmf"));
    EXPECT_EQ(split_ws("  a  b\tc ").size(), 3u);
    EXPECT_EQ(printable("a\x1b"
                        "b"),
              "a\\x1bb");
}
