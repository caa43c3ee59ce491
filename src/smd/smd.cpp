#include "levelkit/smd/smd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "levelkit/core/text.hpp"

namespace lk::smd {

std::uint32_t File::material(std::string_view name) {
    for (std::size_t i = 0; i < materials.size(); ++i) {
        if (materials[i] == name) return static_cast<std::uint32_t>(i);
    }
    materials.emplace_back(name);
    return static_cast<std::uint32_t>(materials.size() - 1);
}

std::int32_t File::node_index(std::int32_t id) const {
    if (id >= 0 && static_cast<std::size_t>(id) < nodes.size() &&
        nodes[static_cast<std::size_t>(id)].id == id) {
        return id;
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].id == id) return static_cast<std::int32_t>(i);
    }
    return -1;
}

namespace {

constexpr bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

// A line cursor: numbers and words are read left to right; `at()` is the byte offset in the
// whole text for diagnostics.
struct Cursor {
    const char* p;
    const char* end;
    const char* base;

    void skip() {
        while (p < end && is_space(*p)) ++p;
    }
    bool done() {
        skip();
        return p >= end;
    }
    std::size_t at() const { return static_cast<std::size_t>(p - base); }
    bool integer(std::int32_t& out) {
        skip();
        const char* s = p;
        bool neg = false;
        if (s < end && (*s == '-' || *s == '+')) neg = *s++ == '-';
        std::int64_t v = 0;
        const char* d = s;
        while (s < end && static_cast<unsigned char>(*s - '0') < 10 && s - d < 11) {
            v = v * 10 + (*s - '0');
            ++s;
        }
        if (s == d || (s < end && !is_space(*s))) return false;
        v = neg ? -v : v;
        if (v < INT32_MIN || v > INT32_MAX) return false;
        out = static_cast<std::int32_t>(v);
        p = s;
        return true;
    }
    bool number(double& out) {
        skip();
        const std::size_t used =
            parse_double_prefix(std::string_view(p, static_cast<std::size_t>(end - p)), out);
        if (used == 0 || (p + used < end && !is_space(p[used]))) return false;
        p += used;
        return true;
    }
    bool vec(Vec3& v) { return number(v.x) && number(v.y) && number(v.z); }
    std::string_view word() {
        skip();
        const char* s = p;
        while (p < end && !is_space(*p)) ++p;
        return {s, static_cast<std::size_t>(p - s)};
    }
    std::string_view rest() {
        skip();
        const char* e = end;
        while (e > p && is_space(e[-1])) --e;
        return {p, static_cast<std::size_t>(e - p)};
    }
};

class Parser {
public:
    Parser(std::string_view text, Diagnostics& w, const ReadOptions& opt)
        : text_(text), w_(w), opt_(opt), map_(text) {}

    Result<File> run();

private:
    // The next line that is not empty or a comment; false at the end of the text.
    bool next(Cursor& c) {
        const char* const end = text_.data() + text_.size();
        while (pos_ < text_.size()) {
            const char* s = text_.data() + pos_;
            const void* nl = std::memchr(s, '\n', static_cast<std::size_t>(end - s));
            const char* e = nl ? static_cast<const char*>(nl) : end;
            pos_ = static_cast<std::size_t>(e - text_.data()) + (nl ? 1 : 0);
            c = {s, e, text_.data()};
            c.skip();
            if (c.p >= e) continue;
            if (e - c.p >= 2 && c.p[0] == '/' && c.p[1] == '/') {
                if (!started_)
                    file_.comments.emplace_back(trim(std::string_view(c.p + 2, e - c.p - 2)));
                continue;
            }
            if (*c.p == '#' || *c.p == ';') continue;
            line_start_ = static_cast<std::size_t>(s - text_.data());
            return true;
        }
        return false;
    }
    static bool keyword(Cursor c, std::string_view k) {
        const std::string_view w = c.word();
        return w == k && c.done();
    }
    Diagnostic error(std::size_t offset, std::string code, std::string message) const {
        Diagnostic d = map_.error_at(offset, std::move(code), std::move(message));
        d.file = opt_.source_name;
        if (!path_.empty()) d.path = path_;
        return d;
    }
    void warn(std::size_t offset, std::string code, std::string message) {
        Diagnostic d = map_.warning_at(offset, std::move(code), std::move(message));
        d.file = opt_.source_name;
        d.path = path_;
        w_.add(std::move(d));
    }
    Diagnostic eof(std::string_view block) const {
        return error(text_.size(), "smd.unexpected-eof",
                     fmt::format("the {} block has no 'end'", block));
    }

    Result<void> nodes();
    Result<void> skeleton();
    Result<void> triangles();
    Result<void> vertex_animation();
    Result<void> skip_block(std::string_view name, std::size_t at);
    Result<void> time_line(Cursor& c, std::int32_t& time, std::string* comment);

    std::string_view text_;
    Diagnostics& w_;
    const ReadOptions& opt_;
    LineMap map_;
    File file_;
    std::size_t pos_ = 0;
    std::size_t line_start_ = 0;
    bool started_ = false;
    std::string path_;
};

Result<void> Parser::time_line(Cursor& c, std::int32_t& time, std::string* comment) {
    c.word();  // "time"
    const std::size_t at = c.at();
    if (!c.integer(time)) return error(at, "smd.bad-time", "'time' needs an integer");
    if (!c.done()) {
        const std::string_view rest = c.rest();
        if (rest[0] == '#' && comment) {
            *comment = std::string(trim(rest.substr(1)));
        } else if (rest[0] != '#') {
            warn(c.at(), "smd.extra-text", "text after the time is ignored");
        }
    }
    return success();
}

Result<void> Parser::nodes() {
    Cursor c;
    while (next(c)) {
        if (keyword(c, "end")) return success();
        Node n;
        path_ = fmt::format("nodes[{}]", file_.nodes.size());
        std::size_t at = c.at();
        if (!c.integer(n.id)) return error(at, "smd.bad-node", "a node line starts with its id");
        c.skip();
        at = c.at();
        if (c.p < c.end && *c.p == '"') {
            const char* q = static_cast<const char*>(
                std::memchr(c.p + 1, '"', static_cast<std::size_t>(c.end - c.p - 1)));
            if (!q) return error(at, "smd.bad-node", "the node name has no closing quote");
            n.name.assign(c.p + 1, q);
            c.p = q + 1;
        } else {
            n.name = std::string(c.word());
            if (n.name.empty()) return error(at, "smd.bad-node", "the node has no name");
            // studiomdl reads names between quotes; a quote inside one cannot be written back.
            if (n.name.find('"') != std::string::npos) {
                return error(at, "smd.bad-node", "a node name with a '\"' in it");
            }
        }
        at = c.at();
        if (!c.integer(n.parent)) return error(at, "smd.bad-node", "the node has no parent id");
        if (!c.done()) warn(c.at(), "smd.extra-text", "text after the parent id is ignored");
        if (file_.node_index(n.id) >= 0) {
            return error(line_start_, "smd.duplicate-node",
                         fmt::format("node id {} repeats", n.id));
        }
        file_.nodes.push_back(std::move(n));
    }
    return eof("nodes");
}

Result<void> Parser::skeleton() {
    Cursor c;
    Frame* frame = nullptr;
    while (next(c)) {
        if (keyword(c, "end")) return success();
        Cursor probe = c;
        if (probe.word() == "time") {
            Frame f;
            LK_TRY(time_line(c, f.time, &f.comment));
            file_.skeleton.push_back(std::move(f));
            frame = &file_.skeleton.back();
            frame->bones.reserve(file_.nodes.size());
            continue;
        }
        path_ = fmt::format("skeleton[{}]", file_.skeleton.size());
        if (!frame) return error(c.at(), "smd.no-time", "a bone line before any 'time' line");
        BonePose b;
        std::size_t at = c.at();
        if (!c.integer(b.bone)) return error(at, "smd.bad-bone", "a bone line starts with its id");
        at = c.at();
        if (!c.vec(b.position) || !c.vec(b.rotation)) {
            return error(c.at(), "smd.bad-bone", "a bone line needs 6 numbers after the id");
        }
        if (!c.done()) warn(c.at(), "smd.extra-text", "text after the rotation is ignored");
        (void)at;
        frame->bones.push_back(b);
    }
    return eof("skeleton");
}

Result<void> Parser::triangles() {
    file_.has_triangles = true;
    Cursor c;
    std::string_view last_name;
    std::uint32_t last = 0;
    bool warned_extra = false;
    while (next(c)) {
        if (keyword(c, "end")) return success();
        const std::string_view name = c.rest();
        if (name != last_name || file_.materials.empty()) {
            last = file_.material(name);
            last_name = name;
        }
        Triangle t;
        t.material = last;
        const std::size_t tri = file_.triangles.size();
        for (int k = 0; k < 3; ++k) {
            path_ = fmt::format("triangles[{}]/vertex[{}]", tri, k);
            if (!next(c)) return eof("triangles");
            Vertex& v = t.v[k];
            std::size_t at = c.at();
            if (!c.integer(v.parent)) {
                return error(at, "smd.bad-vertex",
                             keyword(c, "end") ? "the triangle has fewer than 3 vertices"
                                               : "a vertex line starts with its parent bone");
            }
            if (!c.vec(v.position) || !c.vec(v.normal) || !c.number(v.u) || !c.number(v.v)) {
                return error(c.at(), "smd.bad-vertex",
                             "a vertex line needs position, normal and u v after the bone");
            }
            if (!c.done()) {
                at = c.at();
                std::int32_t n = 0;
                if (!c.integer(n) || n < 0) {
                    return error(at, "smd.bad-links", "the link count is not a count");
                }
                // Each link takes at least 4 bytes ("0 1 "): a count beyond the line is bad.
                if (static_cast<std::size_t>(n) > static_cast<std::size_t>(c.end - c.p) / 2) {
                    return error(at, "smd.bad-links",
                                 fmt::format("{} links do not fit on the line", n));
                }
                v.has_links = true;
                v.first_link = static_cast<std::uint32_t>(file_.links.size());
                v.link_count = static_cast<std::uint32_t>(n);
                for (std::int32_t i = 0; i < n; ++i) {
                    Link l;
                    at = c.at();
                    if (!c.integer(l.bone) || !c.number(l.weight)) {
                        return error(at, "smd.bad-links",
                                     fmt::format("link {} of {} needs a bone and a weight", i, n));
                    }
                    file_.links.push_back(l);
                }
                if (!c.done() && !warned_extra) {
                    warned_extra = true;
                    warn(c.at(), "smd.extra-text", "text after the links is ignored");
                }
            }
        }
        file_.triangles.push_back(t);
    }
    return eof("triangles");
}

Result<void> Parser::vertex_animation() {
    file_.has_vertex_animation = true;
    Cursor c;
    FlexFrame* frame = nullptr;
    while (next(c)) {
        if (keyword(c, "end")) return success();
        Cursor probe = c;
        if (probe.word() == "time") {
            FlexFrame f;
            LK_TRY(time_line(c, f.time, nullptr));
            file_.vertex_animation.push_back(std::move(f));
            frame = &file_.vertex_animation.back();
            continue;
        }
        path_ = fmt::format("vertexanimation[{}]", file_.vertex_animation.size());
        if (!frame) return error(c.at(), "smd.no-time", "a vertex line before any 'time' line");
        FlexVertex v;
        const std::size_t at = c.at();
        if (!c.integer(v.index) || v.index < 0) {
            return error(at, "smd.bad-vertex", "a vertex line starts with its vertex number");
        }
        if (!c.vec(v.position) || !c.vec(v.normal)) {
            return error(c.at(), "smd.bad-vertex", "a vertex line needs position and normal");
        }
        frame->vertices.push_back(v);
    }
    return eof("vertexanimation");
}

Result<void> Parser::skip_block(std::string_view name, std::size_t at) {
    warn(at, "smd.unknown-block", fmt::format("block '{}' is not known and is skipped", name));
    Cursor c;
    while (next(c)) {
        if (keyword(c, "end")) return success();
    }
    return eof(name);
}

Result<File> Parser::run() {
    Cursor c;
    if (!next(c)) return error(0, "smd.empty", "the file has no 'version' line");
    {
        Cursor v = c;
        const std::size_t at = v.at();
        std::int32_t version = 0;
        if (v.word() != "version" || !v.integer(version)) {
            return error(at, "smd.no-version", "an SMD starts with 'version 1'");
        }
        if (version != 1) {
            warn(at, "smd.version", fmt::format("version {} (studiomdl knows 1)", version));
        }
        file_.version = version;
        started_ = true;
    }
    while (next(c)) {
        const std::size_t at = c.at();
        Cursor k = c;
        const std::string_view word = k.word();
        path_ = std::string(word);
        if (!k.done()) {
            return error(at, "smd.bad-block",
                         fmt::format("'{}' is not a block name", printable(c.rest())));
        }
        if (word == "nodes") {
            LK_TRY(nodes());
        } else if (word == "skeleton") {
            LK_TRY(skeleton());
        } else if (word == "triangles") {
            LK_TRY(triangles());
        } else if (word == "vertexanimation") {
            LK_TRY(vertex_animation());
        } else {
            LK_TRY(skip_block(word, at));
        }
        path_.clear();
    }
    // Parents and bones must name nodes.
    for (std::size_t i = 0; i < file_.nodes.size(); ++i) {
        const std::int32_t p = file_.nodes[i].parent;
        if (p != -1 && file_.node_index(p) < 0) {
            Diagnostic d =
                Diagnostic::warning("smd.bad-parent", fmt::format("parent {} is not a node", p))
                    .with_path(fmt::format("nodes[{}]", i));
            d.file = opt_.source_name;
            w_.add(std::move(d));
        }
    }
    return std::move(file_);
}

// --- writing -------------------------------------------------------------------------------

class Writer {
public:
    explicit Writer(const WriteOptions& o, ByteSink* sink = nullptr) : opt_(o), sink_(sink) {}
    std::string out;

    // Streaming writes hand the text to the sink a chunk at a time, between frames and
    // triangles; false once the sink has failed (the rest is not written).
    static constexpr std::size_t kChunk = std::size_t{1} << 20;
    bool chunk() {
        if (sink_ && out.size() >= kChunk) drain();
        return status_.ok();
    }
    Result<void> finish() {
        drain();
        return std::move(status_);
    }

    void num(double v) {
        char buf[64];
        std::to_chars_result r;
        if (opt_.decimals >= 0 && std::isfinite(v) && std::abs(v) < 1e15) {
            r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed,
                              std::min(opt_.decimals, 17));
        } else {
            r = std::to_chars(buf, buf + sizeof buf, v);
        }
        out.append(buf, r.ptr);
    }
    void integer(std::int64_t v) { append_int(out, v); }
    void vec(const Vec3& v) {
        num(v.x);
        out += ' ';
        num(v.y);
        out += ' ';
        num(v.z);
    }

private:
    void drain() {
        if (sink_ && status_.ok()) status_ = sink_->write(as_bytes(out));
        if (sink_) out.clear();
    }

    const WriteOptions& opt_;
    ByteSink* sink_;
    Result<void> status_;
};

void write_text(const File& f, Writer& w);

}  // namespace

Result<File> read(std::string_view text, Diagnostics& warnings, const ReadOptions& opt) {
    Parser p(text, warnings, opt);
    return p.run();
}

std::string write(const File& f, const WriteOptions& opt) {
    Writer w(opt);
    w.out.reserve(64 + f.triangles.size() * 3 * 100 + f.skeleton.size() * f.nodes.size() * 60);
    write_text(f, w);
    return std::move(w.out);
}

Result<void> write_to(const File& f, ByteSink& out, const WriteOptions& opt) {
    Writer w(opt, &out);
    w.out.reserve(Writer::kChunk + 4096);
    write_text(f, w);
    return w.finish();
}

namespace {

void write_text(const File& f, Writer& w) {
    for (const std::string& c : f.comments) {
        w.out += "// ";
        w.out += c;
        w.out += '\n';
    }
    w.out += "version ";
    w.integer(f.version);
    w.out += "\nnodes\n";
    for (const Node& n : f.nodes) {
        w.integer(n.id);
        w.out += " \"";
        w.out += n.name;
        w.out += "\" ";
        w.integer(n.parent);
        w.out += '\n';
    }
    w.out += "end\n";
    {  // studiomdl wants a skeleton block in every SMD and VTA
        w.out += "skeleton\n";
        for (const Frame& fr : f.skeleton) {
            if (!w.chunk()) return;
            w.out += "time ";
            w.integer(fr.time);
            if (!fr.comment.empty()) {
                w.out += " # ";
                w.out += fr.comment;
            }
            w.out += '\n';
            for (const BonePose& b : fr.bones) {
                w.integer(b.bone);
                w.out += "  ";
                w.vec(b.position);
                w.out += "  ";
                w.vec(b.rotation);
                w.out += '\n';
            }
        }
        w.out += "end\n";
    }
    if (f.has_triangles) {
        w.out += "triangles\n";
        for (const Triangle& t : f.triangles) {
            if (!w.chunk()) return;
            w.out += t.material < f.materials.size() ? f.materials[t.material] : std::string();
            w.out += '\n';
            for (const Vertex& v : t.v) {
                w.integer(v.parent);
                w.out += "  ";
                w.vec(v.position);
                w.out += "  ";
                w.vec(v.normal);
                w.out += "  ";
                w.num(v.u);
                w.out += ' ';
                w.num(v.v);
                if (v.has_links) {
                    w.out += ' ';
                    w.integer(v.link_count);
                    for (const Link& l : f.links_of(v)) {
                        w.out += ' ';
                        w.integer(l.bone);
                        w.out += ' ';
                        w.num(l.weight);
                    }
                }
                w.out += '\n';
            }
        }
        w.out += "end\n";
    }
    if (f.has_vertex_animation) {
        w.out += "vertexanimation\n";
        for (const FlexFrame& fr : f.vertex_animation) {
            if (!w.chunk()) return;
            w.out += "time ";
            w.integer(fr.time);
            w.out += '\n';
            for (const FlexVertex& v : fr.vertices) {
                w.integer(v.index);
                w.out += ' ';
                w.vec(v.position);
                w.out += ' ';
                w.vec(v.normal);
                w.out += '\n';
            }
        }
        w.out += "end\n";
    }
}

// Equal values; NaN equals NaN (it reads back as NaN, not bit for bit).
bool same(double a, double b) {
    return a == b || (std::isnan(a) && std::isnan(b));
}
bool same(const Vec3& a, const Vec3& b) {
    return same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z);
}

}  // namespace

bool same_content(const File& a, const File& b) {
    if (a.version != b.version || a.nodes != b.nodes || a.skeleton.size() != b.skeleton.size() ||
        a.has_triangles != b.has_triangles || a.triangles.size() != b.triangles.size() ||
        a.has_vertex_animation != b.has_vertex_animation ||
        a.vertex_animation.size() != b.vertex_animation.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.skeleton.size(); ++i) {
        const Frame &x = a.skeleton[i], &y = b.skeleton[i];
        if (x.time != y.time || x.comment != y.comment || x.bones.size() != y.bones.size()) {
            return false;
        }
        for (std::size_t k = 0; k < x.bones.size(); ++k) {
            if (x.bones[k].bone != y.bones[k].bone ||
                !same(x.bones[k].position, y.bones[k].position) ||
                !same(x.bones[k].rotation, y.bones[k].rotation)) {
                return false;
            }
        }
    }
    for (std::size_t i = 0; i < a.vertex_animation.size(); ++i) {
        const FlexFrame &x = a.vertex_animation[i], &y = b.vertex_animation[i];
        if (x.time != y.time || x.vertices.size() != y.vertices.size()) return false;
        for (std::size_t k = 0; k < x.vertices.size(); ++k) {
            if (x.vertices[k].index != y.vertices[k].index ||
                !same(x.vertices[k].position, y.vertices[k].position) ||
                !same(x.vertices[k].normal, y.vertices[k].normal)) {
                return false;
            }
        }
    }
    for (std::size_t i = 0; i < a.triangles.size(); ++i) {
        const Triangle &x = a.triangles[i], &y = b.triangles[i];
        auto mat = [](const File& f, const Triangle& t) -> std::string_view {
            return t.material < f.materials.size() ? std::string_view(f.materials[t.material])
                                                   : std::string_view();
        };
        if (mat(a, x) != mat(b, y)) return false;
        for (int k = 0; k < 3; ++k) {
            const Vertex &u = x.v[k], &v = y.v[k];
            if (u.parent != v.parent || !same(u.position, v.position) ||
                !same(u.normal, v.normal) || !same(u.u, v.u) || !same(u.v, v.v) ||
                u.has_links != v.has_links || u.link_count != v.link_count) {
                return false;
            }
            const auto la = a.links_of(u), lb = b.links_of(v);
            for (std::size_t l = 0; l < la.size(); ++l) {
                if (la[l].bone != lb[l].bone || !same(la[l].weight, lb[l].weight)) return false;
            }
        }
    }
    return true;
}

}  // namespace lk::smd
