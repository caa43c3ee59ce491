#include <algorithm>
#include <charconv>
#include <cstring>

#include "levelkit/vmf/vmf.hpp"
#include "parse_util.hpp"

namespace lk::vmf {

namespace {

using kv::NodeId;

// Shortest round-trip text of a double, exactly as lk::append_double writes it (std::to_chars,
// no "-0"), without to_chars' general algorithm for the common map values: integers and short
// decimals below 1e5 in magnitude. For those, the decimal m / 10^k with the fewest fraction
// digits k that reads back as |v| is the shortest text, and fixed notation is never longer than
// scientific except for small values with leading zeros, which take the general path. Checked
// against to_chars on the corpus (the tree writer uses lk::append_double).
constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
constexpr std::size_t kMaxDoubleChars = 32;

// Copies n bytes with fixed-size moves for short strings (keys, values and numbers are mostly
// under 16 bytes); a libc memcpy call costs more than the copy.
inline void copy_bytes(char* dst, const char* src, std::size_t n) {
    if (n >= 8 && n <= 16) {
        std::uint64_t a, b;
        std::memcpy(&a, src, 8);
        std::memcpy(&b, src + n - 8, 8);
        std::memcpy(dst, &a, 8);
        std::memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        std::uint32_t a, b;
        std::memcpy(&a, src, 4);
        std::memcpy(&b, src + n - 4, 4);
        std::memcpy(dst, &a, 4);
        std::memcpy(dst + n - 4, &b, 4);
    } else if (n < 4) {
        for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
    } else {
        std::memcpy(dst, src, n);
    }
}

// Needs kMaxDoubleChars bytes at p (the fast path copies digits 16 bytes at a time).
char* write_double(char* p, double v) {
    if (v == 0) {  // and -0
        *p = '0';
        return p + 1;
    }
    const double a = v < 0 ? -v : v;
    if (a < 1e5) {  // false for NaN
        for (int k = 0; k < 10; ++k) {
            // A k-digit candidate is within 0.02 of a * 10^k here, so rounding finds it.
            const auto m = static_cast<std::uint64_t>(a * kPow10[k] + 0.5);
            if (static_cast<double>(m) / kPow10[k] != a) continue;
            char digits[32] = {};  // m < 1e14: at most 14 digits
            const char* de = std::to_chars(digits, digits + 16, m).ptr;
            const auto n = static_cast<int>(de - digits);
            if (n <= k) {
                // 0.00ddd: fixed is "0." + k digits, scientific d.dde-0x; to_chars takes the
                // shorter (fixed on a tie).
                const int zeros = k - n;
                if (zeros > 2 + (n > 1 ? 1 : 0)) break;
                if (v < 0) *p++ = '-';
                *p++ = '0';
                *p++ = '.';
                for (int z = 0; z < zeros; ++z) *p++ = '0';
                std::memcpy(p, digits, 16);
                return p + n;
            }
            if (v < 0) *p++ = '-';
            const int whole = n - k;  // at most 5 digits: a < 1e5
            std::memcpy(p, digits, 16);
            p += whole;
            if (k == 0) return p;
            *p++ = '.';
            std::memcpy(p, digits + whole, 16);
            return p + k;
        }
    }
    return std::to_chars(p, p + kMaxDoubleChars, v).ptr;
}

// Appends to a std::string through a raw cursor: the string is grown ahead (zero-filled by
// resize) and cut to the written size by finish(), so an append is a bounds check and a copy.
class RawOut {
public:
    explicit RawOut(std::string& s) : s_(s) {
        p_ = s_.data() + s_.size();
        end_ = p_;
    }
    RawOut& operator+=(char c) {
        need(1);
        *p_++ = c;
        return *this;
    }
    RawOut& operator+=(std::string_view v) {
        need(v.size());
        copy_bytes(p_, v.data(), v.size());
        p_ += v.size();
        return *this;
    }
    void put_double(double v) {
        need(kMaxDoubleChars);
        p_ = write_double(p_, v);
    }
    void put_int(std::int64_t v) {
        need(24);
        p_ = std::to_chars(p_, p_ + 24, v).ptr;
    }
    // The cursor with at least n bytes free after it; advance() moves it past what was written.
    char* room(std::size_t n) {
        need(n);
        return p_;
    }
    void advance(char* p) { p_ = p; }
    void finish() { s_.resize(static_cast<std::size_t>(p_ - s_.data())); }

private:
    void need(std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n) grow(n);
    }
    [[gnu::noinline]] void grow(std::size_t n) {
        const auto used = static_cast<std::size_t>(p_ - s_.data());
        s_.resize(std::max(used + n, std::max<std::size_t>(2 * s_.size(), 4096)));
        p_ = s_.data() + used;
        end_ = s_.data() + s_.size();
    }

    std::string& s_;
    char* p_ = nullptr;
    char* end_ = nullptr;
};

// The same interface over a plain std::string, numbers through lk::append_double/append_int.
class StringOut {
public:
    explicit StringOut(std::string& s) : s_(s) {}
    StringOut& operator+=(char c) {
        s_ += c;
        return *this;
    }
    StringOut& operator+=(std::string_view v) {
        s_ += v;
        return *this;
    }
    void put_double(double v) { append_double(s_, v); }
    void put_int(std::int64_t v) { append_int(s_, v); }

private:
    std::string& s_;
};

template <class Out>
void put_double(Out& out, double v) {
    out.put_double(v);
}
template <class Out>
void put_int(Out& out, std::int64_t v) {
    out.put_int(v);
}

template <class Out>
void append_connection(Out& out, const Connection& c) {
    if (!c.parsed) {
        out += c.raw;
        return;
    }
    out += c.target;
    out += c.separator;
    out += c.input;
    out += c.separator;
    out += c.param;
    out += c.separator;
    put_double(out, c.delay);
    out += c.separator;
    put_int(out, c.times);
}

// Builds a kv::Document (to_tree): every node canonical, so its write() is Hammer's layout.
class TreeSink {
public:
    using Handle = NodeId;
    explicit TreeSink(const WriteOptions& opt) { doc_.set_layout(opt.eol, "\t"); }
    TreeSink(const TreeSink&) = delete;  // text_ refers to buf_
    TreeSink& operator=(const TreeSink&) = delete;

    static Handle root() { return 0; }
    Handle block(Handle parent, std::string_view key) { return doc_.add_block(parent, key); }
    // A value's text is appended to the returned string, then end_value() adds the node.
    StringOut& begin_value(Handle parent, std::string_view key) {
        parent_ = parent;
        key_ = key;
        buf_.clear();
        return text_;
    }
    void end_value() { doc_.add_value(parent_, key_, buf_); }
    kv::Document take() { return std::move(doc_); }

private:
    kv::Document doc_;
    Handle parent_ = 0;
    std::string_view key_;
    std::string buf_;
    StringOut text_{buf_};
};

// Writes the text kv::Document::write() gives for the tree TreeSink builds, straight into one
// string: no nodes, no arena copies. The model is walked depth first, so a block is closed when
// something is next added to one of its ancestors. `write == to_tree().write()` is tested on
// every corpus map.
class TextSink {
public:
    using Handle = std::uint32_t;
    TextSink(const WriteOptions& opt, std::string& out) : out_(out) {
        newline_ = opt.eol;
        newline_.append(kIndentCache, '\t');
        eol_size_ = opt.eol.size();
        open_.reserve(16);
        open_.push_back(0);
    }

    static Handle root() { return 0; }
    Handle block(Handle parent, std::string_view key) {
        // Room for `"key"`, the newline before '{' and '{' (depth is at most open_.size()).
        char* p = start_line(parent, key.size() + 3 + eol_size_ + open_.size());
        if (key.empty()) {
            *p++ = '{';  // anonymous block
        } else {
            const bool bare = bare_block_key(key);
            if (!bare) *p++ = '"';
            copy_bytes(p, key.data(), key.size());
            p += key.size();
            if (!bare) *p++ = '"';
            p = put_newline(p, open_.size() - 1);
            *p++ = '{';
        }
        out_.advance(p);
        const Handle id = ++blocks_;
        open_.push_back(id);
        return id;
    }
    RawOut& begin_value(Handle parent, std::string_view key) {
        char* p = start_line(parent, key.size() + 4);
        *p++ = '"';
        copy_bytes(p, key.data(), key.size());
        p += key.size();
        *p++ = '"';
        *p++ = ' ';
        *p++ = '"';
        out_.advance(p);
        return out_;
    }
    void end_value() { out_ += '"'; }
    void finish() {
        while (open_.size() > 1) close_one();
        if (written_) out_ += std::string_view(newline_).substr(0, eol_size_);
        out_.finish();
    }

private:
    static constexpr std::size_t kIndentCache = 32;

    // kv::Document::add_block's rule: a block name is written bare unless it would not read back
    // as one bare token.
    static bool bare_block_key(std::string_view key) {
        if (key.substr(0, 2) == "//") return false;
        for (char c : key) {
            if (c == '"' || c == '{' || c == '}' || c == ' ' || c == '\t' || c == '\n' ||
                c == '\r' || c == '\v' || c == '\f' || c == '\0') {
                return false;
            }
        }
        return true;
    }
    // Writes eol and `depth` tabs at p, which has room for them.
    char* put_newline(char* p, std::size_t depth) {
        if (depth <= kIndentCache) {
            copy_bytes(p, newline_.data(), eol_size_ + depth);
            return p + eol_size_ + depth;
        }
        std::memcpy(p, newline_.data(), newline_.size());
        p += newline_.size();
        for (std::size_t i = kIndentCache; i < depth; ++i) *p++ = '\t';
        return p;
    }
    void close_one() {
        open_.pop_back();
        const std::size_t depth = open_.size() - 1;
        char* p = put_newline(out_.room(eol_size_ + depth + 1), depth);
        *p++ = '}';
        out_.advance(p);
    }
    // Closes the blocks opened below `parent`, starts a node's line inside it and returns the
    // cursor with `room` bytes free after the line's indent.
    char* start_line(Handle parent, std::size_t room) {
        while (open_.back() != parent && open_.size() > 1) close_one();
        const std::size_t depth = open_.size() - 1;
        char* p = out_.room(eol_size_ + depth + room);
        if (written_) p = put_newline(p, depth);
        written_ = true;
        return p;
    }

    RawOut out_;
    std::string newline_;  // eol followed by kIndentCache tabs
    std::size_t eol_size_ = 0;
    std::vector<Handle> open_;  // open blocks, root first
    Handle blocks_ = 0;
    bool written_ = false;
};

template <class Out>
void append_vec3(Out& s, char open, const Vec3& v, char close) {
    s += open;
    put_double(s, v.x);
    s += ' ';
    put_double(s, v.y);
    s += ' ';
    put_double(s, v.z);
    s += close;
}
template <class Out>
void append_vec3(Out& s, const Vec3& v) {
    put_double(s, v.x);
    s += ' ';
    put_double(s, v.y);
    s += ' ';
    put_double(s, v.z);
}

template <class Sink>
class TreeWriter {
public:
    using Handle = typename Sink::Handle;
    explicit TreeWriter(Sink& sink) : out_(sink) {}

    void map(const Map& m) {
        const Handle root = Sink::root();
        if (m.has_versioninfo) {
            const Handle v = out_.block(root, "versioninfo");
            keys(v, m.versioninfo);
        }
        if (m.has_visgroups) {
            const Handle v = out_.block(root, "visgroups");
            for (const Visgroup& g : m.visgroups) visgroup(v, g);
        }
        if (m.viewsettings) raw(root, *m.viewsettings);
        if (m.has_world) entity(root, m.world, "world");
        for (const Entity& e : m.entities) {
            const Handle parent = e.hidden ? out_.block(root, "hidden") : root;
            entity(parent, e, "entity");
        }
        if (m.has_cameras) {
            const Handle c = out_.block(root, "cameras");
            integer(c, "activecamera", m.active_camera);
            for (const Camera& cam : m.cameras) {
                const Handle b = out_.block(c, "camera");
                vec3(b, "position", '[', cam.position, ']');
                vec3(b, "look", '[', cam.look, ']');
            }
        }
        if (m.cordon_style == Map::CordonStyle::single && !m.cordons.empty()) {
            const Cordon& c = m.cordons.front();
            const Handle b = out_.block(root, "cordon");
            if (!c.boxes.empty()) box_keys(b, c.boxes.front());
            value(b, "active", c.active ? "1" : "0");
            keys(b, c.extra_keys);
            for (std::size_t i = 1; i < c.boxes.size(); ++i)
                box_keys(out_.block(b, "box"), c.boxes[i]);
        } else if (m.cordon_style == Map::CordonStyle::multiple) {
            const Handle cs = out_.block(root, "cordons");
            value(cs, "active", m.cordons_active ? "1" : "0");
            for (const Cordon& c : m.cordons) {
                const Handle b = out_.block(cs, "cordon");
                value(b, "name", c.name);
                value(b, "active", c.active ? "1" : "0");
                keys(b, c.extra_keys);
                for (const Aabb& box : c.boxes) box_keys(out_.block(b, "box"), box);
            }
        }
        for (const RawNode& r : m.extra_blocks) raw(root, r);
    }

private:
    void value(Handle parent, std::string_view k, std::string_view v) {
        out_.begin_value(parent, k) += v;
        out_.end_value();
    }
    void integer(Handle parent, std::string_view k, std::int64_t v) {
        put_int(out_.begin_value(parent, k), v);
        out_.end_value();
    }
    void number(Handle parent, std::string_view k, double v) {
        put_double(out_.begin_value(parent, k), v);
        out_.end_value();
    }
    void vec3(Handle parent, std::string_view k, char open, const Vec3& v, char close) {
        append_vec3(out_.begin_value(parent, k), open, v, close);
        out_.end_value();
    }
    void axis(Handle parent, std::string_view k, const UVAxis& a) {
        auto& s = out_.begin_value(parent, k);
        s += '[';
        append_vec3(s, a.axis);
        s += ' ';
        put_double(s, a.shift);
        s += "] ";
        put_double(s, a.scale);
        out_.end_value();
    }
    void keys(Handle parent, const std::vector<KeyValue>& kvs) {
        for (const KeyValue& kv : kvs) value(parent, kv.key, kv.value);
    }
    void raw(Handle parent, const RawNode& r) {
        if (!r.block) {
            value(parent, r.key, r.value);
            return;
        }
        const Handle b = out_.block(parent, r.key);
        for (const RawNode& c : r.children) raw(b, c);
    }
    void raws(Handle parent, const std::vector<RawNode>& rs) {
        for (const RawNode& r : rs) raw(parent, r);
    }
    void box_keys(Handle b, const Aabb& box) {
        vec3(b, "mins", '(', box.mins, ')');
        vec3(b, "maxs", '(', box.maxs, ')');
    }

    void editor(Handle parent, const Editor& e) {
        if (!e.present) return;
        const Handle b = out_.block(parent, "editor");
        if (e.color) {
            auto& s = out_.begin_value(b, "color");
            put_int(s, (*e.color)[0]);
            s += ' ';
            put_int(s, (*e.color)[1]);
            s += ' ';
            put_int(s, (*e.color)[2]);
            out_.end_value();
        }
        for (std::int64_t id : e.visgroup_ids) integer(b, "visgroupid", id);
        if (e.group_id) integer(b, "groupid", *e.group_id);
        if (e.visgroup_shown) value(b, "visgroupshown", *e.visgroup_shown ? "1" : "0");
        if (e.visgroup_autoshown) value(b, "visgroupautoshown", *e.visgroup_autoshown ? "1" : "0");
        if (e.cordon_solid) value(b, "cordonsolid", *e.cordon_solid ? "1" : "0");
        if (e.comments) value(b, "comments", *e.comments);
        if (e.logical_pos) {
            auto& s = out_.begin_value(b, "logicalpos");
            s += '[';
            put_double(s, (*e.logical_pos)[0]);
            s += ' ';
            put_double(s, (*e.logical_pos)[1]);
            s += ']';
            out_.end_value();
        }
        keys(b, e.extra_keys);
        raws(b, e.extra_blocks);
    }

    void visgroup(Handle parent, const Visgroup& g) {
        const Handle b = out_.block(parent, "visgroup");
        value(b, "name", g.name);
        integer(b, "visgroupid", g.id);
        value(b, "color", g.color);
        keys(b, g.extra_keys);
        for (const Visgroup& c : g.children) visgroup(b, c);
        raws(b, g.extra_blocks);
    }

    template <class T, class F>
    void rows(Handle parent, std::string_view name, const std::vector<T>& data, int rows,
              int per_row, F&& append_item) {
        const Handle b = out_.block(parent, name);
        if (data.empty()) return;  // an empty block stays empty
        const auto per = static_cast<std::size_t>(per_row);
        char key[32] = "row";  // not 16: GCC 12 -Warray-bounds false positive in copy_bytes
        for (int r = 0; r < rows; ++r) {
            const auto k = std::to_chars(key + 3, key + sizeof key, r);
            auto& line = out_.begin_value(b, std::string_view(key, k.ptr));
            for (std::size_t i = 0; i < per && r * per + i < data.size(); ++i) {
                if (i) line += ' ';
                append_item(line, data[static_cast<std::size_t>(r) * per + i]);
            }
            out_.end_value();
        }
    }

    void dispinfo(Handle parent, const DispInfo& d) {
        const Handle b = out_.block(parent, "dispinfo");
        using F = DispInfo::Field;
        if (d.has(F::kPower)) integer(b, "power", d.power);
        if (d.has(F::kStartPosition)) vec3(b, "startposition", '[', d.start_position, ']');
        if (d.has(F::kFlags)) integer(b, "flags", d.flags);
        if (d.has(F::kElevation)) number(b, "elevation", d.elevation);
        if (d.has(F::kSubdiv)) integer(b, "subdiv", d.subdiv);
        keys(b, d.extra_keys);
        // Rows are sized by the power; a model built with a power outside 0..4 (the reader never
        // stores one) writes its row blocks empty rather than shift out of range.
        const bool sized = d.power >= 0 && d.power <= 4;
        const int n = sized ? d.grid_size() : 0;
        const int t = sized ? 1 << d.power : 0;
        auto v3 = [](auto& s, const Vec3& v) { append_vec3(s, v); };
        auto v4 = [](auto& s, const std::array<double, 4>& v) {
            for (int i = 0; i < 4; ++i) {
                if (i) s += ' ';
                put_double(s, v[static_cast<std::size_t>(i)]);
            }
        };
        auto f = [](auto& s, double v) { put_double(s, v); };
        auto i = [](auto& s, int v) { put_int(s, v); };
        if (d.has(F::kNormals)) rows(b, "normals", d.normals, n, n, v3);
        if (d.has(F::kDistances)) rows(b, "distances", d.distances, n, n, f);
        if (d.has(F::kOffsets)) rows(b, "offsets", d.offsets, n, n, v3);
        if (d.has(F::kOffsetNormals)) rows(b, "offset_normals", d.offset_normals, n, n, v3);
        if (d.has(F::kAlphas)) rows(b, "alphas", d.alphas, n, n, f);
        if (d.has(F::kTriangleTags)) rows(b, "triangle_tags", d.triangle_tags, t, 2 * t, i);
        if (d.has(F::kAllowedVerts)) {
            const Handle a = out_.block(b, "allowed_verts");
            auto& line = out_.begin_value(
                a, d.allowed_verts_key.empty() ? "10" : std::string_view(d.allowed_verts_key));
            for (std::size_t k = 0; k < d.allowed_verts.size(); ++k) {
                if (k) line += ' ';
                put_int(line, d.allowed_verts[k]);
            }
            out_.end_value();
        }
        if (d.has(F::kMultiblend)) rows(b, "multiblend", d.multiblend, n, n, v4);
        if (d.has(F::kAlphablend)) rows(b, "alphablend", d.alphablend, n, n, v4);
        for (int c = 0; c < 4; ++c) {
            if (d.present & (F::kMultiblendColor0 << c)) {
                const char name[] = {'m', 'u', 'l', 't', 'i', 'b',
                                     'l', 'e', 'n', 'd', '_', 'c',
                                     'o', 'l', 'o', 'r', '_', static_cast<char>('0' + c)};
                rows(b, std::string_view(name, sizeof name),
                     d.multiblend_color[static_cast<std::size_t>(c)], n, n, v3);
            }
        }
        raws(b, d.extra_blocks);
    }

    void side(Handle parent, const Side& s) {
        const Handle b = out_.block(parent, "side");
        using F = Side::Field;
        if (s.has(F::kId)) integer(b, "id", s.id);
        if (s.has(F::kPlane)) {
            auto& v = out_.begin_value(b, "plane");
            append_vec3(v, '(', s.plane_points[0], ')');
            v += ' ';
            append_vec3(v, '(', s.plane_points[1], ')');
            v += ' ';
            append_vec3(v, '(', s.plane_points[2], ')');
            out_.end_value();
        }
        if (s.has(F::kVerticesPlus)) {
            const Handle v = out_.block(b, "vertices_plus");
            for (const Vec3& p : s.vertices_plus) {
                append_vec3(out_.begin_value(v, "v"), p);
                out_.end_value();
            }
        }
        if (s.has(F::kPointData)) {
            const Handle v = out_.block(b, "point_data");
            integer(v, "numpts", static_cast<std::int64_t>(s.point_data.size()));
            for (std::size_t k = 0; k < s.point_data.size(); ++k) {
                auto& line = out_.begin_value(v, "point");
                put_int(line, static_cast<std::int64_t>(k));
                line += ' ';
                append_vec3(line, s.point_data[k]);
                out_.end_value();
            }
        }
        if (s.has(F::kMaterial)) value(b, "material", s.material);
        if (s.has(F::kUAxis)) axis(b, "uaxis", s.uaxis);
        if (s.has(F::kVAxis)) axis(b, "vaxis", s.vaxis);
        if (s.has(F::kRotation)) number(b, "rotation", s.rotation);
        if (s.has(F::kLightmapScale)) number(b, "lightmapscale", s.lightmapscale);
        if (s.has(F::kSmoothingGroups)) integer(b, "smoothing_groups", s.smoothing_groups);
        keys(b, s.extra_keys);
        if (s.disp) dispinfo(b, *s.disp);
        raws(b, s.extra_blocks);
    }

    void solid(Handle parent, const Solid& s) {
        const Handle b = out_.block(parent, "solid");
        integer(b, "id", s.id);
        keys(b, s.extra_keys);
        for (const Side& sd : s.sides) side(b, sd);
        editor(b, s.editor);
        raws(b, s.extra_blocks);
    }

    void entity(Handle parent, const Entity& e, std::string_view name) {
        const Handle b = out_.block(parent, name);
        keys(b, e.keys);
        if (e.has_connections || !e.connections.empty()) {
            const Handle c = out_.block(b, "connections");
            for (const Connection& conn : e.connections) {
                append_connection(out_.begin_value(c, conn.output), conn);
                out_.end_value();
            }
        }
        for (const Solid& s : e.solids) {
            solid(s.hidden ? out_.block(b, "hidden") : b, s);
        }
        for (const Group& g : e.groups) {
            const Handle gb = out_.block(b, "group");
            integer(gb, "id", g.id);
            keys(gb, g.extra_keys);
            editor(gb, g.editor);
            raws(gb, g.extra_blocks);
        }
        // Editor first so a second (duplicate) editor block, kept in extra_blocks, stays second.
        editor(b, e.editor);
        raws(b, e.extra_blocks);
    }

    Sink& out_;
};

}  // namespace

kv::Document to_tree(const Map& map, const WriteOptions& opt) {
    TreeSink sink(opt);
    TreeWriter<TreeSink>(sink).map(map);
    return sink.take();
}

std::string write(const Map& map, const WriteOptions& opt) {
    std::string out;
    TextSink sink(opt, out);
    TreeWriter<TextSink>(sink).map(map);
    sink.finish();
    return out;
}

// --- small model helpers --------------------------------------------------------------------

std::string Connection::value_text() const {
    if (!parsed) return raw;
    std::string out;
    out.reserve(target.size() + input.size() + param.size() + 16);
    StringOut text(out);
    append_connection(text, *this);
    return out;
}

std::optional<Connection> parse_connection(std::string_view output, std::string_view value) {
    const char sep = value.find('\x1b') != std::string_view::npos ? '\x1b' : ',';
    // Five fields at least: target, input, parameter, delay, times. The parameter may itself
    // contain the separator (e.g. AddOutput "key,value"), so the first two fields are cut at the
    // first two separators and the last two at the last two; whatever lies between is the
    // parameter. Found in place: a map has thousands of outputs.
    constexpr auto npos = std::string_view::npos;
    const std::size_t s1 = value.find(sep);
    const std::size_t s2 = s1 == npos ? npos : value.find(sep, s1 + 1);
    const std::size_t s4 = value.rfind(sep);
    const std::size_t s3 = s4 == npos || s4 == 0 ? npos : value.rfind(sep, s4 - 1);
    if (s2 == npos || s3 == npos || s3 <= s2) return std::nullopt;
    auto delay = detail::parse_number(value.substr(s3 + 1, s4 - s3 - 1));
    auto times = parse_int(trim(value.substr(s4 + 1)));
    if (!delay || !times) return std::nullopt;
    Connection c;
    c.output = std::string(output);
    c.target = std::string(value.substr(0, s1));
    c.input = std::string(value.substr(s1 + 1, s2 - s1 - 1));
    c.param = std::string(value.substr(s2 + 1, s3 - s2 - 1));
    c.delay = *delay;
    c.times = static_cast<int>(*times);
    c.separator = sep;
    return c;
}

std::string_view Entity::get(std::string_view key, std::string_view fallback) const {
    const std::string* v = find_key(keys, key);
    return v ? std::string_view(*v) : fallback;
}

void Entity::set(std::string_view key, std::string_view value) {
    set_key(keys, key, value);
}

std::int64_t Entity::id() const {
    return parse_int(trim(get("id"))).value_or(0);
}

std::optional<Vec3> Entity::origin_vec() const {
    Vec3 v;
    const std::string* s = find_key(keys, "origin");
    if (!s || !detail::parse_vec3(*s, v)) return std::nullopt;
    return v;
}

std::optional<Vec3> Entity::angles() const {
    Vec3 v;
    const std::string* s = find_key(keys, "angles");
    if (!s || !detail::parse_vec3(*s, v)) return std::nullopt;
    return v;
}

bool Cordon::operator==(const Cordon& o) const {
    if (name != o.name || active != o.active || boxes.size() != o.boxes.size() ||
        extra_keys != o.extra_keys) {
        return false;
    }
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        if (!(boxes[i].mins == o.boxes[i].mins) || !(boxes[i].maxs == o.boxes[i].maxs))
            return false;
    }
    return true;
}

std::int64_t Map::editor_build() const {
    const std::string* s = find_key(versioninfo, "editorbuild");
    return s ? parse_int(trim(*s)).value_or(0) : 0;
}

std::int64_t Map::map_version() const {
    const std::string* s = find_key(versioninfo, "mapversion");
    if (!s) s = find_key(world.keys, "mapversion");
    return s ? parse_int(trim(*s)).value_or(0) : 0;
}

namespace {
std::size_t count_visgroups(const std::vector<Visgroup>& gs) {
    std::size_t n = gs.size();
    for (const Visgroup& g : gs) n += count_visgroups(g.children);
    return n;
}
}  // namespace

void add_solid_stats(const std::vector<Solid>& solids, Stats& s) {
    s.solids += solids.size();
    for (const Solid& so : solids) {
        s.sides += so.sides.size();
        if (so.hidden) ++s.hidden;
        for (const Side& sd : so.sides) {
            if (sd.disp) ++s.displacements;
        }
    }
}

void add_entity_stats(const Entity& e, Stats& s) {
    add_solid_stats(e.solids, s);
    s.connections += e.connections.size();
    ++s.entities;
    if (e.hidden) ++s.hidden;
    const std::string_view cls = e.classname();
    if (iequals(cls, "info_overlay") || iequals(cls, "info_overlay_transition")) ++s.overlays;
    if (iequals(cls, "func_instance")) ++s.instances;
}

Stats stats(const Map& map) {
    Stats s;
    add_solid_stats(map.world.solids, s);
    s.connections += map.world.connections.size();
    for (const Entity& e : map.entities) add_entity_stats(e, s);
    s.visgroups = count_visgroups(map.visgroups);
    s.cameras = map.cameras.size();
    return s;
}

}  // namespace lk::vmf
