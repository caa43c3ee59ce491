// KeyValues as Hammer reads it: each test is one rule of the dialect.
#include <gtest/gtest.h>

#include "levelkit/kv/keyvalues.hpp"

using namespace lk;
using namespace lk::kv;

namespace {
Document parse_ok(std::string_view text, ParseOptions opt = {}) {
    auto r = Document::parse(text, opt);
    EXPECT_TRUE(r) << (r ? "" : r.error().to_string());
    return r ? std::move(r).value() : Document{};
}
void expect_roundtrip(std::string_view text, ParseOptions opt = {}) {
    auto doc = parse_ok(text, opt);
    EXPECT_EQ(doc.write(), text);
}
}  // namespace

TEST(KeyValues, HammerBlockLayout) {
    const std::string_view text =
        "versioninfo\n{\n\t\"editorversion\" \"400\"\n\t\"editorbuild\" \"8864\"\n}\n"
        "world\n{\n\t\"id\" \"1\"\n\tsolid\n\t{\n\t\t\"id\" \"2\"\n\t}\n}\n";
    auto doc = parse_ok(text);
    Node vi = doc.root().find("VersionInfo");  // lookup is case-insensitive
    ASSERT_TRUE(vi);
    EXPECT_EQ(vi.key(), "versioninfo");
    EXPECT_EQ(vi.get("editorbuild"), "8864");
    EXPECT_EQ(doc.root().find("world").find("solid").get("id"), "2");
    EXPECT_EQ(doc.write(), text);
    EXPECT_EQ(doc.eol(), "\n");
    EXPECT_EQ(doc.indent_unit(), "\t");
}

TEST(KeyValues, NoEscapesInVmfDialect) {
    // VBSP/Hammer keep backslashes; srctools-style unescaping would turn \n into a newline.
    auto doc = parse_ok("\"model\" \"models\\npcs\\x.mdl\"\n");
    EXPECT_EQ(doc.root().get("model"), "models\\npcs\\x.mdl");
    // A quote cannot be escaped: "a\" ends at the backslash's quote.
    auto d2 = parse_ok("\"k\" \"a\\\"\n");
    EXPECT_EQ(d2.root().get("k"), "a\\");
}

TEST(KeyValues, EscapesOptIn) {
    ParseOptions opt = ParseOptions::keyvalues();
    opt.escapes = true;
    const std::string_view text = "\"k\" \"line1\\nline2 \\\"q\\\" \\d\"\n";
    auto doc = parse_ok(text, opt);
    EXPECT_EQ(doc.root().get("k"), "line1\nline2 \"q\" \\d");
    EXPECT_EQ(doc.write(), text);
}

TEST(KeyValues, CommentsUnquotedTokensAndConcatenation) {
    const std::string_view text =
        "// header comment\r\nblock // trailing\r\n{\r\n\tkey value\r\n"
        "\t\"joined\" \"a\" + \"b\"+\"c\"\r\n}\r\n";
    auto doc = parse_ok(text);
    Node b = doc.root().find("block");
    EXPECT_EQ(b.get("key"), "value");
    EXPECT_EQ(b.get("joined"), "abc");
    EXPECT_EQ(doc.eol(), "\r\n");
    EXPECT_EQ(doc.write(), text);
}

TEST(KeyValues, RawBytesDuplicatesAndOrderSurvive) {
    const std::string_view text =
        "entity\n{\n\t\"OnTrigger\" \"door\x1bOpen\x1b\x1b"
        "0\x1b-1\"\n"
        "\t\"OnTrigger\" \"door,Close,,1,-1\"\n\tconnections\n\t{\n\t}\n"
        "\t\"chaptertitle\" \"\xc3\xe0\xec\"\n}\n";
    auto doc = parse_ok(text);
    Node e = doc.root().find("entity");
    std::vector<std::string_view> keys;
    for (Node c : e) keys.push_back(c.key());
    EXPECT_EQ(keys, (std::vector<std::string_view>{"OnTrigger", "OnTrigger", "connections",
                                                   "chaptertitle"}));
    EXPECT_EQ(doc.write(), text);
}

TEST(KeyValues, OddLayoutIsKept) {
    expect_roundtrip("a{b c}");
    expect_roundtrip("  \"a\"   \"b\"  // x\n\n\n\"c\" { }   ");
    expect_roundtrip("\xEF\xBB\xBF\"bom\" \"1\"\n");
    expect_roundtrip("");
    expect_roundtrip("\n\n");
    expect_roundtrip("k\n    {\n        \"a\" \"1\"\n    }\n");
    expect_roundtrip("\"multi\" \"line\nvalue\"\n");
}

TEST(KeyValues, EntityLumpAnonymousBlocks) {
    const std::string_view lump =
        "{\n\"world_maxs\" \"1 2 3\"\n\"classname\" \"worldspawn\"\n}\n"
        "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 0\"\n}\n";
    std::string with_nul(lump);
    with_nul += '\0';
    auto doc = parse_ok(with_nul);
    EXPECT_EQ(doc.root().child_count(), 2u);
    EXPECT_EQ(doc.root().first_child().key(), "");
    EXPECT_EQ(doc.root().first_child().next_sibling().get("classname"), "info_player_start");
    EXPECT_EQ(doc.indent_unit(), "");
    EXPECT_EQ(doc.write(), with_nul);
}

TEST(KeyValues, ConditionsKeptAndEvaluated) {
    const std::string_view text =
        "\"res\"\n{\n\t\"wide\" \"640\" [$WIN32]\n\t\"wide\" \"320\" [$X360]\n"
        "\t\"tall\" [!$OSX] \"480\"\n}\n";
    auto doc = parse_ok(text, ParseOptions::keyvalues());
    EXPECT_EQ(doc.write(), text);
    Node res = doc.root().find("res");
    EXPECT_EQ(res.first_child().condition(), "[$WIN32]");
    auto win = doc.evaluated({"WIN32"});
    EXPECT_EQ(win.root().find("res").child_count(), 2u);
    EXPECT_EQ(win.root().find("res").get("wide"), "640");
    auto x360 = doc.evaluated({"$X360", "OSX"});
    EXPECT_EQ(x360.root().find("res").get("wide"), "320");
    EXPECT_FALSE(x360.root().find("res").find("tall"));
    EXPECT_TRUE(evaluate_condition("[$WIN32||$OSX]", {"osx"}));
    EXPECT_FALSE(evaluate_condition("[$WIN32&&!$OSX]", {"win32", "osx"}));
}

TEST(KeyValues, DirectivesResolvedByCaller) {
    auto doc =
        parse_ok("#base \"base.txt\"\n#include \"more.txt\"\n\"root\"\n{\n\t\"a\" \"1\"\n}\n",
                 ParseOptions::keyvalues());
    auto merged = doc.resolve_directives(
        [](std::string_view kind, std::string_view path) -> Result<Document> {
            if (path == "base.txt") {
                EXPECT_EQ(kind, "#base");
                return Document::parse("\"root\" { \"a\" \"0\" \"b\" \"2\" }\n\"other\" \"x\"");
            }
            return Document::parse("\"extra\" \"3\"");
        });
    ASSERT_TRUE(merged);
    Node r = merged->root().find("root");
    EXPECT_EQ(r.get("a"), "1");  // existing keys win over #base
    EXPECT_EQ(r.get("b"), "2");
    EXPECT_EQ(merged->root().get("other"), "x");
    EXPECT_EQ(merged->root().get("extra"), "3");
    auto fail = doc.resolve_directives([](std::string_view, std::string_view) -> Result<Document> {
        return Diagnostic::error("io.open", "missing");
    });
    EXPECT_FALSE(fail);
}

TEST(KeyValues, ErrorsCarryLineAndColumn) {
    auto r = Document::parse("a\n{\n\t\"b\" \"c\n");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "kv.unterminated-string");
    EXPECT_EQ(r.error().line, 3u);
    EXPECT_EQ(r.error().column, 6u);

    r = Document::parse("solid\n{\n\t\"id\" \"1\"\n");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "kv.unclosed-block");
    EXPECT_EQ(r.error().line, 1u);
    EXPECT_NE(r.error().message.find("solid"), std::string::npos);

    r = Document::parse("}");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "kv.stray-brace");

    r = Document::parse("a\n{\n\t\"key\"\n}\n");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "kv.missing-value");
    EXPECT_EQ(r.error().line, 3u);

    std::string deep;
    for (int i = 0; i < 1000; ++i) deep += "a{";
    r = Document::parse(deep);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "kv.too-deep");
}

TEST(KeyValues, WarnsAboutHammerLimits) {
    Diagnostics w;
    std::string text = "\"k\" \"" + std::string(1500, 'x') + "\"\n\"c\" \"a\rb\"\n";
    auto r = Document::parse(text, {}, &w);
    ASSERT_TRUE(r);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w.items()[0].code, "kv.too-long");
    EXPECT_EQ(w.items()[1].code, "kv.cr-in-string");
    EXPECT_EQ(r->write(), text);
}

// A string's end and a CR in it are found wherever they fall (the scan reads 8 bytes a step).
TEST(KeyValues, FindsStringEndAndCrAtAnyPosition) {
    for (std::size_t len = 0; len < 20; ++len) {
        const std::string value(len, 'v');
        auto doc = parse_ok("\"k\" \"" + value + "\"\n");
        EXPECT_EQ(doc.root().get("k"), value);
        for (std::size_t cr = 0; cr < len; ++cr) {
            std::string with_cr = value;
            with_cr[cr] = '\r';
            Diagnostics w;
            auto r = Document::parse("\"k\" \"" + with_cr + "\"\n", {}, &w);
            ASSERT_TRUE(r);
            EXPECT_EQ(r->root().get("k"), with_cr);
            ASSERT_EQ(w.size(), 1u);
            EXPECT_EQ(w.items()[0].code, "kv.cr-in-string");
        }
    }
    Diagnostics w;
    EXPECT_EQ(Document::parse("\"k\" \"abc\rdefghijkl", {}, &w).error().code,
              "kv.unterminated-string");
    EXPECT_EQ(w.size(), 0u);
}

// Edited strings live in an arena of growing chunks; a long one gets a chunk of its own and
// the strings after it still land where their offsets say (they once pointed into the long
// one's chunk).
TEST(KeyValues, EditedStringsOfEverySizeReadBack) {
    auto doc = parse_ok("a\n{\n\t\"x\" \"1\"\n}\n");
    const NodeId a = doc.root().find("a").id();
    std::vector<std::pair<NodeId, std::string>> added;
    for (std::size_t i = 0; i < 64; ++i) {
        // Sizes from a few bytes past a chunk of their own (> 256 KiB) and back.
        const std::size_t n = i % 8 == 5 ? (std::size_t{300} << 10) + i : 1 + i * 97;
        std::string v(n, char('a' + i % 26));
        added.emplace_back(doc.add_value(a, "k" + std::to_string(i), v), v);
    }
    for (const auto& [id, v] : added) EXPECT_EQ(doc.node(id).value(), v);
}

TEST(KeyValues, EditsAreWrittenCanonically) {
    auto doc = parse_ok("a\r\n{\r\n\t\"x\" \"1\"\r\n}\r\n");
    Node a = doc.root().find("a");
    doc.set_value(a.find("x").id(), "2");
    NodeId b = doc.add_block(a.id(), "b");
    doc.add_value(b, "y", "has space");
    doc.add_value(0, "top", "t");
    EXPECT_EQ(doc.write(),
              "a\r\n{\r\n\t\"x\" \"2\"\r\n\tb\r\n\t{\r\n\t\t\"y\" \"has space\"\r\n\t}\r\n}\r\n"
              "\"top\" \"t\"\r\n");
    doc.remove(a.find("x").id());
    EXPECT_EQ(doc.root().find("a").first_child().key(), "b");
    EXPECT_EQ(doc.write_subtree(b), "b\r\n{\r\n\t\"y\" \"has space\"\r\n}\r\n");
    EXPECT_TRUE(is_writable("abc"));
    EXPECT_FALSE(is_writable("a\"b"));
}
