#include <fmt/format.h>

#include "impl.hpp"

namespace lk::kv {

NodeId Document::add_value(NodeId parent, std::string_view key, std::string_view value) {
    const NodeId id = impl_->append(parent, NodeKind::value);
    NodeRec& n = impl_->nodes()[id];
    impl_->set_key(n, key);
    impl_->set_value(n, value);
    return id;
}

NodeId Document::add_block(NodeId parent, std::string_view key) {
    const NodeId id = impl_->append(parent, NodeKind::block);
    NodeRec& n = impl_->nodes()[id];
    impl_->set_key(n, key);
    // Block names are written bare, as Hammer does, unless they would not read back as one
    // bare token.
    bool bare = !key.empty() && key.substr(0, 2) != "//";
    for (char c : key) {
        if (c == '"' || c == '{' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
            c == '\v' || c == '\f' || c == '\0') {
            bare = false;
            break;
        }
    }
    if (bare) n.flags |= kKeyUnquoted;
    if (key.empty()) n.flags |= kAnonymous;
    return id;
}

void Document::set_value(NodeId id, std::string_view value) {
    NodeRec& n = impl_->nodes()[id];
    impl_->set_value(n, value);
    n.flags &= static_cast<std::uint8_t>(~(kRawValue | kValueUnquoted));
}

void Document::set_key(NodeId id, std::string_view key) {
    NodeRec& n = impl_->nodes()[id];
    impl_->set_key(n, key);
    n.flags &= static_cast<std::uint8_t>(~kRawKey);
}

void Document::remove(NodeId id) {
    if (id == 0 || id >= impl_->nodes().size()) return;
    auto& nodes = impl_->nodes();
    impl_->ensure_last_child();
    // Nodes do not store their parent (it would cost 4 bytes a node); removal is rare.
    for (NodeId p = 0; p < nodes.size(); ++p) {
        NodeId prev = kNone;
        for (NodeId c = nodes[p].first_child; c != kNone; prev = c, c = nodes[c].next) {
            if (c != id) continue;
            if (prev == kNone) {
                nodes[p].first_child = nodes[c].next;
            } else {
                nodes[prev].next = nodes[c].next;
            }
            if (impl_->last_child[p] == id) impl_->last_child[p] = prev;
            nodes[id].next = kNone;
            return;
        }
    }
}

void Document::set_layout(std::string_view eol, std::string_view indent_unit) {
    impl_->eol = std::string(eol);
    impl_->indent = std::string(indent_unit);
}

NodeId Document::copy_subtree(NodeId parent, const Document& from, NodeId src) {
    const NodeRec s = from.impl_->nodes()[src];
    const NodeId id = impl_->append(parent, s.kind == NodeKind::root ? NodeKind::block : s.kind);
    {
        NodeRec& n = impl_->nodes()[id];
        impl_->set_key(n, from.impl_->key(s));
        impl_->set_value(n, from.impl_->value(s));
        n.flags = s.flags & (kKeyUnquoted | kValueUnquoted | kAnonymous);
    }
    if (const Layout* sl = from.impl_->find_layout(src); sl && !sl->cond.empty()) {
        const std::string_view cond = impl_->intern(sl->cond);
        Layout& l = impl_->layout_of(id);
        l.cond = cond;
        l.cond_gap = " ";
        if (sl->mask & Layout::kCondAfterKey) {
            l.mask |= Layout::kCondAfterKey | Layout::kMid;
            l.mid = " ";
        } else {
            l.mask |= Layout::kCondAfterValue;
        }
    }
    for (NodeId c = s.first_child; c != kNone; c = from.impl_->nodes()[c].next) {
        copy_subtree(id, from, c);
    }
    return id;
}

// --- conditions ----------------------------------------------------------------------------

namespace {

class CondParser {
public:
    CondParser(std::string_view s, const std::vector<std::string>& defined)
        : s_(s), defined_(defined) {}

    bool parse() {
        skip();
        if (i_ < s_.size() && s_[i_] == '[') ++i_;
        const bool v = or_expr();
        return v;
    }

private:
    void skip() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
    }
    bool or_expr() {
        bool v = and_expr();
        for (;;) {
            skip();
            if (s_.compare(i_, 2, "||") != 0) return v;
            i_ += 2;
            const bool r = and_expr();
            v = v || r;
        }
    }
    bool and_expr() {
        bool v = unary();
        for (;;) {
            skip();
            if (s_.compare(i_, 2, "&&") != 0) return v;
            i_ += 2;
            const bool r = unary();
            v = v && r;
        }
    }
    bool unary() {
        skip();
        if (i_ < s_.size() && s_[i_] == '!') {
            ++i_;
            return !unary();
        }
        if (i_ < s_.size() && s_[i_] == '(') {
            ++i_;
            const bool v = or_expr();
            skip();
            if (i_ < s_.size() && s_[i_] == ')') ++i_;
            return v;
        }
        if (i_ < s_.size() && s_[i_] == '$') ++i_;
        const std::size_t b = i_;
        while (i_ < s_.size() && s_[i_] != ']' && s_[i_] != '|' && s_[i_] != '&' && s_[i_] != ' ' &&
               s_[i_] != ')' && s_[i_] != '\t') {
            ++i_;
        }
        const std::string_view name = s_.substr(b, i_ - b);
        for (const std::string& d : defined_) {
            std::string_view dv = d;
            if (!dv.empty() && dv[0] == '$') dv.remove_prefix(1);
            if (iequals(dv, name)) return true;
        }
        return false;
    }

    std::string_view s_;
    const std::vector<std::string>& defined_;
    std::size_t i_ = 0;
};

void copy_evaluated(Document& out, NodeId parent, const Document& in, Node n,
                    const std::vector<std::string>& defined) {
    for (Node c : n) {
        if (!c.condition().empty() && !evaluate_condition(c.condition(), defined)) continue;
        if (c.is_block()) {
            copy_evaluated(out, out.add_block(parent, c.key()), in, c, defined);
        } else {
            out.add_value(parent, c.key(), c.value());
        }
    }
}

void merge_base(Document& out, NodeId target, const Document& base, Node from) {
    for (Node b : from) {
        Node existing = out.node(target).find(b.key());
        if (!existing) {
            out.copy_subtree(target, base, b.id());
        } else if (existing.is_block() && b.is_block()) {
            merge_base(out, existing.id(), base, b);
        }
    }
}

}  // namespace

bool evaluate_condition(std::string_view condition, const std::vector<std::string>& defined) {
    return CondParser(condition, defined).parse();
}

Document Document::evaluated(const std::vector<std::string>& defined) const {
    Document out;
    out.set_layout(impl_->eol, impl_->indent.empty() ? "\t" : impl_->indent);
    copy_evaluated(out, 0, *this, root(), defined);
    return out;
}

Result<Document> Document::resolve_directives(const Resolver& resolver, int max_depth) const {
    Document out;
    out.set_layout(impl_->eol, impl_->indent.empty() ? "\t" : impl_->indent);
    for (Node c : root()) {
        if (c.kind() != NodeKind::directive) out.copy_subtree(0, *this, c.id());
    }
    for (Node c : root()) {
        if (c.kind() != NodeKind::directive) continue;
        if (max_depth <= 0) {
            return Diagnostic::error("kv.include-depth",
                                     fmt::format("{} \"{}\": includes nested too deeply", c.key(),
                                                 printable(c.value())))
                .at_offset(static_cast<std::int64_t>(c.offset()));
        }
        auto sub = resolver(c.key(), c.value());
        if (!sub) return std::move(sub).error();
        auto resolved = sub.value().resolve_directives(resolver, max_depth - 1);
        if (!resolved) return std::move(resolved).error();
        const Document& inc = resolved.value();
        if (iequals(c.key(), "#include")) {
            for (Node item : inc.root()) out.copy_subtree(0, inc, item.id());
        } else {
            merge_base(out, 0, inc, inc.root());
        }
    }
    return out;
}

}  // namespace lk::kv
