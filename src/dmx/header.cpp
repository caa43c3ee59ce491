#include <charconv>

#include "internal.hpp"
#include "levelkit/core/text.hpp"

namespace lk::dmx::detail {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

struct Cursor {
    std::string_view s;
    std::size_t p = 0;

    bool skip_ws() {
        const std::size_t start = p;
        while (p < s.size() && is_space(s[p])) ++p;
        return p > start;
    }
    bool literal(std::string_view lit) {
        if (s.substr(p, lit.size()) != lit) return false;
        p += lit.size();
        return true;
    }
    std::string_view word() {
        const std::size_t start = p;
        while (p < s.size() && !is_space(s[p])) ++p;
        return s.substr(start, p - start);
    }
    std::optional<int> number() {
        int v = 0;
        auto r = std::from_chars(s.data() + p, s.data() + s.size(), v);
        if (r.ec != std::errc() || v < 0) return std::nullopt;
        p = static_cast<std::size_t>(r.ptr - s.data());
        return v;
    }
};

// Headers are one short line; anything longer than this is not a DMX header.
constexpr std::size_t kMaxHeader = 4096;

Diagnostic bad_header(std::string_view text, std::size_t at, std::string what) {
    return LineMap(text).error_at(at, "dmx.bad-header", std::move(what)).with_path("header");
}

}  // namespace

Result<ParsedHeader> parse_header(std::string_view text) {
    const std::string_view line = text.substr(0, kMaxHeader);
    Cursor c{line};
    ParsedHeader out;
    Header& h = out.header;
    if (!c.literal("<!--")) return bad_header(text, 0, "file does not start with a DMX header");
    c.skip_ws();
    if (c.literal("DMXVersion")) {
        // Legacy "<!-- DMXVersion binary_v2 -->": encoding and version joined by "_v".
        if (!c.skip_ws()) return bad_header(text, c.p, "expected an encoding after DMXVersion");
        const std::size_t at = c.p;
        const std::string_view w = c.word();
        const std::size_t v = w.rfind("_v");
        int ver = 0;
        if (v == std::string_view::npos || v == 0 ||
            std::from_chars(w.data() + v + 2, w.data() + w.size(), ver).ptr !=
                w.data() + w.size()) {
            return bad_header(text, at, "malformed legacy encoding '" + printable(w) + "'");
        }
        h.legacy = true;
        h.encoding = std::string(w.substr(0, v));
        h.encoding_version = ver;
        h.format = "dmx";
        h.format_version = 0;
    } else {
        if (!c.literal("dmx") || !c.skip_ws() || !c.literal("encoding") || !c.skip_ws()) {
            return bad_header(text, c.p, "expected '<!-- dmx encoding'");
        }
        std::string_view enc = c.word();
        if (enc.empty() || !c.skip_ws()) return bad_header(text, c.p, "expected an encoding name");
        if (enc.rfind("unicode_", 0) == 0) {
            h.unicode = true;
            enc.remove_prefix(8);
        }
        h.encoding = std::string(enc);
        auto ev = c.number();
        if (!ev) return bad_header(text, c.p, "expected the encoding version");
        h.encoding_version = *ev;
        if (!c.skip_ws() || !c.literal("format") || !c.skip_ws()) {
            return bad_header(text, c.p, "expected 'format'");
        }
        const std::string_view fmt = c.word();
        if (fmt.empty() || !c.skip_ws()) return bad_header(text, c.p, "expected a format name");
        h.format = std::string(fmt);
        auto fv = c.number();
        if (!fv) return bad_header(text, c.p, "expected the format version");
        h.format_version = *fv;
    }
    c.skip_ws();
    if (!c.literal("-->")) return bad_header(text, c.p, "expected '-->' closing the header");
    out.end = c.p;
    if (text.substr(0, out.end) != header_line(h)) h.text = std::string(text.substr(0, out.end));
    return out;
}

std::string header_line(const Header& h) {
    if (h.legacy) {
        return "<!-- DMXVersion " + h.encoding + "_v" + std::to_string(h.encoding_version) + " -->";
    }
    return "<!-- dmx encoding " + std::string(h.unicode ? "unicode_" : "") + h.encoding + " " +
           std::to_string(h.encoding_version) + " format " + h.format + " " +
           std::to_string(h.format_version) + " -->";
}

std::string_view header_text(const Header& h, std::string& scratch) {
    if (!h.text.empty()) return h.text;
    scratch = header_line(h);
    return scratch;
}

}  // namespace lk::dmx::detail
