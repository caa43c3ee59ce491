#include <fmt/format.h>

#include "impl.hpp"

namespace lk::kv {

// --- Node ----------------------------------------------------------------------------------

std::string_view Node::condition() const {
    const Layout* l = doc_->impl_->find_layout(id_);
    return l ? l->cond : std::string_view{};
}

std::size_t Node::offset() const {
    const NodeRec& r = rec();
    if (!(r.key_off & kArenaBit)) {
        // Quoted keys are stored without their opening quote.
        const bool quoted = !(r.flags & (kKeyUnquoted | kAnonymous)) && id_ != 0;
        return r.key_off - (quoted && r.key_off > 0 ? 1 : 0);
    }
    const Layout* l = doc_->impl_->find_layout(id_);
    return l && (l->mask & Layout::kOffset) ? l->offset : 0;
}

std::size_t Node::child_count() const {
    const auto& nodes = doc_->impl_->nodes();
    std::size_t n = 0;
    for (NodeId c = nodes[id_].first_child; c != kNone; c = nodes[c].next) ++n;
    return n;
}

Node Node::find(std::string_view key) const {
    const Document::Impl& d = *doc_->impl_;
    for (NodeId c = d.nodes()[id_].first_child; c != kNone; c = d.nodes()[c].next) {
        if (iequals(d.key(d.nodes()[c]), key)) return {doc_, c};
    }
    return {};
}

std::string_view Node::get(std::string_view key, std::string_view fallback) const {
    const Document::Impl& d = *doc_->impl_;
    for (NodeId c = d.nodes()[id_].first_child; c != kNone; c = d.nodes()[c].next) {
        const NodeRec& n = d.nodes()[c];
        if (n.kind == NodeKind::value && iequals(d.key(n), key)) return d.value(n);
    }
    return fallback;
}

// --- Document ------------------------------------------------------------------------------

Document::Document() : impl_(std::make_unique<Impl>()), store_(&impl_->store) {}
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;
Document::~Document() = default;

std::size_t Document::node_count() const {
    return impl_->nodes().size();
}
const Blob& Document::source() const {
    return impl_->source;
}
const ParseOptions& Document::options() const {
    return impl_->opt;
}
TextPos Document::locate(std::size_t offset) const {
    return impl_->line_map().locate(offset);
}
const LineMap& Document::lines() const {
    return impl_->line_map();
}
std::string_view Document::eol() const {
    return impl_->eol;
}
NodeId Document::closed_at_end() const {
    return impl_->closed_at_end;
}
std::string_view Document::indent_unit() const {
    return impl_->indent;
}

namespace {

class Writer {
public:
    Writer(const Document::Impl& d, std::string& out) : d_(d), out_(out) {}

    void newline(std::size_t depth) {
        out_ += d_.eol;
        for (std::size_t i = 0; i < depth; ++i) out_ += d_.indent;
    }

    void token(std::string_view text, bool unquoted, bool raw, std::string_view raw_text) {
        if (raw) {
            out_ += raw_text;
        } else if (unquoted) {
            out_ += text;
        } else {
            out_ += '"';
            out_ += text;
            out_ += '"';
        }
    }

    void node(NodeId id, std::size_t depth, bool first_in_file) {
        const NodeRec& n = d_.nodes()[id];
        const Layout* l = d_.find_layout(id);
        const std::uint8_t mask = l ? l->mask : 0;
        if (mask & Layout::kBefore) {
            out_ += l->before;
        } else if (!first_in_file) {
            newline(depth);
        }
        const bool block = n.kind == NodeKind::block;
        if (block && (n.flags & kAnonymous)) {
            out_ += '{';
            children(id, depth + 1);
            close(l, depth);
            return;
        }
        token(d_.key(n), n.flags & kKeyUnquoted, n.flags & kRawKey,
              l ? l->raw_key : std::string_view{});
        if (mask & Layout::kMid) {
            out_ += l->mid;
        } else if (block) {
            newline(depth);
        } else {
            out_ += ' ';
        }
        if (mask & Layout::kCondAfterKey) {
            out_ += l->cond;
            out_ += l->cond_gap;
        }
        if (block) {
            out_ += '{';
            children(id, depth + 1);
            close(l, depth);
            return;
        }
        token(d_.value(n), n.flags & kValueUnquoted, n.flags & kRawValue,
              l ? l->raw_value : std::string_view{});
        if (mask & Layout::kCondAfterValue) {
            out_ += l->cond_gap;
            out_ += l->cond;
        }
    }

    void children(NodeId id, std::size_t depth) {
        const NodeId first_top = d_.nodes()[0].first_child;
        for (NodeId c = d_.nodes()[id].first_child; c != kNone; c = d_.nodes()[c].next) {
            node(c, depth, c == first_top);
        }
    }

    void close(const Layout* l, std::size_t depth) {
        if (l && (l->mask & Layout::kClose)) {
            out_ += l->close;
        } else {
            newline(depth);
        }
        out_ += '}';
    }

    void document() {
        children(0, 0);
        const Layout* l = d_.find_layout(0);
        if (l && (l->mask & Layout::kClose)) {
            out_ += l->close;
        } else if (d_.nodes()[0].first_child != kNone) {
            out_ += d_.eol;
        }
    }

private:
    const Document::Impl& d_;
    std::string& out_;
};

}  // namespace

void Document::write_to(std::string& out) const {
    out.reserve(out.size() + impl_->source.size() + 64);
    Writer(*impl_, out).document();
}

std::string Document::write() const {
    std::string out;
    write_to(out);
    return out;
}

std::string Document::write_subtree(NodeId id) const {
    // Canonical rendering of one subtree: copy it into a fresh document and write that.
    Document tmp;
    tmp.impl_->eol = impl_->eol;
    tmp.impl_->indent = impl_->indent.empty() ? "\t" : impl_->indent;
    if (id == 0) {
        for (Node c : root()) tmp.copy_subtree(0, *this, c.id());
    } else {
        tmp.copy_subtree(0, *this, id);
    }
    return tmp.write();
}

bool is_writable(std::string_view value) {
    return value.find('"') == std::string_view::npos;
}

Result<Document> read(Blob source, Diagnostics& warnings, const ParseOptions& opt) {
    return Document::parse(std::move(source), opt, &warnings);
}

Result<Document> read(std::string_view text, Diagnostics& warnings, const ParseOptions& opt) {
    return Document::parse(text, opt, &warnings);
}

}  // namespace lk::kv
