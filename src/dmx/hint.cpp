// The `// levelkit-binary` line: a document's binary layout carried through keyvalues2 text.
//
// Syntax: space-separated key=value pairs, strings quoted with keyvalues2 escapes, element
// references as ordinals of element definitions in the text:
//   v=9                      binary version the layout describes
//   elements=dfs|bfs         element order policy (default: Valve's)
//   elements=list:3,0,1      explicit element order
//   unreachable=5:12,...     position:ordinal of elements the root does not reach
//   strings=sorted           sorted string table (default: Valve's gather order)
//   strings=table:"a","b"    explicit string table
//   insert=2:"x",...         Valve order with these strings at these table positions
//   null=1                   every empty string was stored as index -1
//   prefix=N                 prefix container count when it is not the usual one
//   prefix_class="X"         class of the duplicated prefix element (default DmElement)
//   links=ordinal:value,...  binary 6-7 link fields other than -1
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <unordered_set>

#include "internal.hpp"
#include "kv2_style.hpp"
#include "levelkit/core/text.hpp"

namespace lk::dmx::detail {

namespace {

void quote(std::string_view s, std::string& out) {
    out += '"';
    append_escaped(s, kStringValve, out);
    out += '"';
}

// What binary_element_order() reproduces for a policy, or false.
bool describe_policy(const Document& doc, const std::vector<ElementRef>& order,
                     BinaryLayout::ElementOrder policy,
                     std::vector<std::pair<std::uint32_t, ElementRef>>& unreachable) {
    const std::vector<ElementRef> reached = policy_order(doc, policy);
    std::vector<char> in(doc.size(), 0);
    for (ElementRef r : reached) in[static_cast<std::size_t>(r.index)] = 1;
    std::size_t k = 0;
    unreachable.clear();
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
        const ElementRef r = order[pos];
        if (in[static_cast<std::size_t>(r.index)]) {
            if (k >= reached.size() || reached[k] != r) return false;
            ++k;
        } else {
            unreachable.emplace_back(static_cast<std::uint32_t>(pos), r);
        }
    }
    return k == reached.size();
}

}  // namespace

std::string binary_layout_hint(const Document& doc, const std::vector<std::int32_t>& ordinal) {
    const BinaryLayout& L = doc.binary;
    const int v = L.version;
    if (v <= 0) return {};
    const std::vector<ElementRef> order = binary_element_order(doc);
    for (ElementRef r : order) {
        if (ordinal[static_cast<std::size_t>(r.index)] < 0) return {};
    }
    auto ord = [&](ElementRef r) { return ordinal[static_cast<std::size_t>(r.index)]; };
    std::string out = fmt::format("v={}", v);
    const std::size_t bare = out.size();

    // Element order.
    std::vector<std::pair<std::uint32_t, ElementRef>> unreachable;
    bool described = false;
    for (auto [policy, name] : {std::pair{BinaryLayout::ElementOrder::valve, ""},
                                {BinaryLayout::ElementOrder::depth_first, "dfs"},
                                {BinaryLayout::ElementOrder::breadth_first, "bfs"}}) {
        if (!describe_policy(doc, order, policy, unreachable)) continue;
        if (*name) out += fmt::format(" elements={}", name);
        // The duplicated prefix element right after the root is the default.
        std::erase_if(unreachable,
                      [&](const auto& u) { return u.first == 1 && u.second == doc.prefix; });
        if (!unreachable.empty()) {
            out += " unreachable=";
            for (std::size_t i = 0; i < unreachable.size(); ++i) {
                out += fmt::format("{}{}:{}", i ? "," : "", unreachable[i].first,
                                   ord(unreachable[i].second));
            }
        }
        described = true;
        break;
    }
    if (!described) {
        out += " elements=list:";
        for (std::size_t i = 0; i < order.size(); ++i)
            out += fmt::format("{}{}", i ? "," : "", ord(order[i]));
    }

    // String table.
    if (v >= 2) {
        const std::vector<std::string> table = binary_string_table(doc, order, v);
        std::vector<std::string> sorted;
        for (std::string_view s : needed_strings(doc, order, v)) sorted.emplace_back(s);
        std::sort(sorted.begin(), sorted.end());
        if (table == sorted) {
            out += " strings=sorted";
        } else {
            const std::vector<std::string_view> gathered = valve_gather(doc, order, v);
            std::vector<std::pair<std::uint32_t, std::string>> inserts;
            std::unordered_set<std::string_view> used;
            std::size_t gi = 0;
            for (std::size_t k = 0; k < table.size(); ++k) {
                while (gi < gathered.size() && used.count(gathered[gi])) ++gi;
                if (gi < gathered.size() && gathered[gi] == table[k]) {
                    used.insert(gathered[gi++]);
                } else {
                    inserts.emplace_back(static_cast<std::uint32_t>(k), table[k]);
                    used.insert(table[k]);
                }
            }
            if (merge_inserts(gathered, inserts) == table) {
                if (!inserts.empty()) {
                    out += " insert=";
                    for (std::size_t i = 0; i < inserts.size(); ++i) {
                        out += fmt::format("{}{}:", i ? "," : "", inserts[i].first);
                        quote(inserts[i].second, out);
                    }
                }
            } else {
                out += " strings=table:";
                for (std::size_t i = 0; i < table.size(); ++i) {
                    if (i) out += ',';
                    quote(table[i], out);
                }
            }
        }
    }

    // Empty strings stored as -1 (binary 4+).
    if (v >= 4) {
        std::size_t empty = 0, null = 0;
        for (ElementRef r : order) {
            const Element& e = doc[r];
            if (e.name.empty()) {
                ++empty;
                null += e.null_name;
            }
            for (const Attribute& a : e.attributes) {
                if (auto* s = a.value.get_if<std::string>(); s && s->empty()) {
                    ++empty;
                    null += a.null_string;
                }
            }
        }
        if (empty && null == empty) out += " null=1";
    }

    if (v >= 7) {
        const Element* p = doc.get(doc.prefix);
        std::int32_t containers = L.prefix_containers < 0 ? (p ? 1 : 0) : L.prefix_containers;
        if (p && !p->attributes.empty() && containers == 0) containers = 1;
        if (containers != (p ? 1 : 0)) out += fmt::format(" prefix={}", containers);
    }
    if (in_binary_index(doc, doc.prefix) && doc[doc.prefix].type.str() != "DmElement") {
        out += " prefix_class=";
        quote(doc[doc.prefix].type.str(), out);
    }
    if (v == 6 || v == 7) {
        std::string links;
        for (ElementRef r : order) {
            if (doc[r].link != -1)
                links += fmt::format("{}{}:{}", links.empty() ? "" : ",", ord(r), doc[r].link);
        }
        if (!links.empty()) out += " links=" + links;
    }
    return out.size() == bare ? std::string() : out;
}

namespace {

class HintParser {
public:
    HintParser(std::string_view s, Document& doc) : s_(s), doc_(doc) {}

    Result<void> run();

private:
    Diagnostic bad(std::string what) const {
        return Diagnostic::error("dmx.bad-hint", "levelkit-binary layout line: " + what)
            .with_path("header");
    }
    bool eat(char c) {
        if (p_ < s_.size() && s_[p_] == c) {
            ++p_;
            return true;
        }
        return false;
    }
    bool number(std::int64_t& v) {
        auto r = std::from_chars(s_.data() + p_, s_.data() + s_.size(), v);
        if (r.ec != std::errc()) return false;
        p_ = static_cast<std::size_t>(r.ptr - s_.data());
        return true;
    }
    bool element(ElementRef& r) {
        std::int64_t v = 0;
        if (!number(v) || v < 0 || v >= static_cast<std::int64_t>(doc_.size())) return false;
        r = ElementRef{static_cast<std::int32_t>(v)};
        return true;
    }
    bool string(std::string& out) {
        if (!eat('"')) return false;
        out.clear();
        while (p_ < s_.size() && s_[p_] != '"') {
            char c = s_[p_++];
            if (c == '\\' && p_ < s_.size()) {
                c = s_[p_++];
                switch (c) {
                    case 'n':
                        c = '\n';
                        break;
                    case 't':
                        c = '\t';
                        break;
                    case 'v':
                        c = '\v';
                        break;
                    case 'b':
                        c = '\b';
                        break;
                    case 'r':
                        c = '\r';
                        break;
                    case 'f':
                        c = '\f';
                        break;
                    case 'a':
                        c = '\a';
                        break;
                    default:
                        break;
                }
            }
            out += c;
        }
        return eat('"');
    }
    template <class F>
    bool list(F&& item) {
        do {
            if (!item()) return false;
        } while (eat(','));
        return true;
    }

    std::string_view s_;
    std::size_t p_ = 0;
    Document& doc_;
};

Result<void> HintParser::run() {
    BinaryLayout& L = doc_.binary;
    while (p_ < s_.size()) {
        if (eat(' ')) continue;
        const std::size_t eq = s_.find('=', p_);
        if (eq == std::string_view::npos) return bad("expected key=value");
        const std::string_view key = s_.substr(p_, eq - p_);
        p_ = eq + 1;
        bool ok = true;
        if (key == "v") {
            std::int64_t v = 0;
            ok = number(v) && v >= 0 && v <= 99 && binary_version_supported(static_cast<int>(v));
            L.version = static_cast<int>(v);
        } else if (key == "elements") {
            if (s_.substr(p_, 3) == "dfs") {
                L.element_order = BinaryLayout::ElementOrder::depth_first;
                p_ += 3;
            } else if (s_.substr(p_, 3) == "bfs") {
                L.element_order = BinaryLayout::ElementOrder::breadth_first;
                p_ += 3;
            } else if (s_.substr(p_, 5) == "list:") {
                p_ += 5;
                L.element_order = BinaryLayout::ElementOrder::listed;
                ok = list([&] {
                    ElementRef r;
                    if (!element(r)) return false;
                    L.order.push_back(r);
                    return true;
                });
            } else {
                ok = false;
            }
        } else if (key == "unreachable") {
            ok = list([&] {
                std::int64_t pos = 0;
                ElementRef r;
                if (!number(pos) || pos < 0 || !eat(':') || !element(r)) return false;
                L.unreachable.emplace_back(static_cast<std::uint32_t>(pos), r);
                return true;
            });
        } else if (key == "strings") {
            if (s_.substr(p_, 6) == "sorted") {
                L.string_order = BinaryLayout::StringOrder::sorted;
                p_ += 6;
            } else if (s_.substr(p_, 6) == "table:") {
                p_ += 6;
                L.string_order = BinaryLayout::StringOrder::stored;
                ok = list([&] {
                    std::string str;
                    if (!string(str)) return false;
                    L.string_table.push_back(std::move(str));
                    return true;
                });
            } else {
                ok = false;
            }
        } else if (key == "insert") {
            ok = list([&] {
                std::int64_t pos = 0;
                std::string str;
                if (!number(pos) || pos < 0 || !eat(':') || !string(str)) return false;
                L.string_inserts.emplace_back(static_cast<std::uint32_t>(pos), std::move(str));
                return true;
            });
            std::stable_sort(L.string_inserts.begin(), L.string_inserts.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
        } else if (key == "null") {
            std::int64_t v = 0;
            ok = number(v);
            if (v) {
                for (Element& e : doc_.elements()) {
                    e.null_name = e.name.empty();
                    for (Attribute& a : e.attributes) {
                        auto* str = a.value.get_if<std::string>();
                        a.null_string = str && str->empty();
                    }
                }
            }
        } else if (key == "prefix") {
            std::int64_t v = 0;
            ok = number(v) && v >= 0 && v <= 1;
            L.prefix_containers = static_cast<std::int32_t>(v);
        } else if (key == "prefix_class") {
            std::string cls;
            ok = string(cls) && doc_.valid(doc_.prefix);
            if (ok) doc_[doc_.prefix].type = doc_.intern(cls);
        } else if (key == "links") {
            ok = list([&] {
                ElementRef r;
                std::int64_t v = 0;
                if (!element(r) || !eat(':') || !number(v)) return false;
                doc_[r].link = static_cast<std::int32_t>(v);
                return true;
            });
        } else {
            return bad("unknown key '" + printable(key) + "'");
        }
        if (!ok || (p_ < s_.size() && s_[p_] != ' ')) {
            return bad("malformed value of '" + std::string(key) + "'");
        }
    }
    if (L.version == 0) return bad("no version");
    return success();
}

}  // namespace

Result<void> apply_binary_layout_hint(std::string_view hint, Document& doc) {
    HintParser p(hint, doc);
    return p.run();
}

}  // namespace lk::dmx::detail
