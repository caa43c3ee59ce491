// WMP2 text (A4, A5, A6-A8) and `$$M` readers.
#include <algorithm>
#include <cstring>

#include "levelkit/wmp/wmp.hpp"
#include "model_util.hpp"
#include "text_io.hpp"

namespace lk::wmp {

using detail::Lexer;
using detail::Tok;
using detail::Token;

namespace {

std::optional<std::string> opt_string(std::string_view s) {
    if (s == kNdef) return std::nullopt;
    return std::string(s);
}

std::string newline_of(std::string_view text) {
    const auto lf = text.find('\n');
    if (lf != std::string_view::npos && lf > 0 && text[lf - 1] == '\r') return "\r\n";
    if (lf != std::string_view::npos) return "\n";
    return "\r\n";
}

Diagnostic under(Diagnostic d, std::string_view seg) {
    return std::move(d).under(seg);
}

// Fails with `d` placed under the logical path `seg`.
#define WMP_TRY_UNDER(seg, expr)                                     \
    do {                                                             \
        auto&& wmp_r_ = (expr);                                      \
        if (!wmp_r_) return under(std::move(wmp_r_).error(), (seg)); \
    } while (0)

// Largest count a text field can announce: every item needs at least two bytes.
bool plausible_count(std::size_t size, std::size_t offset, std::uint64_t n) {
    return n <= (size - offset) / 2 + 1;
}
bool plausible_count(const Lexer& lx, std::uint64_t n) {
    return plausible_count(lx.text().size(), lx.offset(), n);
}

// --- Runs (Lexer::Run) ---------------------------------------------------------------------
// The hot records read in one run each: a reader gives the values the general readers below
// give, or false for anything a run does not take (a comment, an odd spelling, a bad value),
// having committed nothing; its caller then reads the record with the general reader, which
// also makes the errors. Values are stored into the record as they are read: a caller that
// falls back starts from a fresh record wherever the general reader does not overwrite them.

using Run = Lexer::Run;

[[gnu::always_inline]] inline bool run_vec3(Run& r, Vec3& v) {
    double a[3];
    if (!r.number(a[0]) || !r.number(a[1]) || !r.number(a[2])) return false;
    v = {a[0], a[1], a[2]};
    return true;
}

[[gnu::always_inline]] inline bool run_paren_vec3(Run& r, Vec3& v) {
    return r.punct('(') && run_vec3(r, v) && r.punct(')');
}

[[gnu::always_inline]] inline bool run_tex_axis(Run& r, std::optional<TexAxis>& a) {
    double v[4];
    if (!r.punct('(') || !r.number(v[0]) || !r.number(v[1]) || !r.number(v[2]) || !r.number(v[3]) ||
        !r.punct(')')) {
        return false;
    }
    a = TexAxis{{v[0], v[1], v[2]}, v[3]};
    return true;
}

[[gnu::always_inline]] inline bool run_tex_transform(Run& r, std::optional<TexTransform>& t) {
    double v[5];
    if (!r.number(v[0]) || !r.number(v[1]) || !r.number(v[2]) || !r.number(v[3]) ||
        !r.number(v[4])) {
        return false;
    }
    t = TexTransform{v[0], v[1], v[2], v[3], v[4]};
    return true;
}

// The material of a fresh face (none yet), out of line: inlined, it cost the runs registers.
[[gnu::noinline]] void set_material(Face& f, std::string_view mat) {
    if (mat != kNdef) f.material.emplace(mat);
}

[[gnu::always_inline]] inline bool run_surface(Run& r, Face& f) {
    std::string_view mat;
    if (!r.punct(':') || !r.bits(f.flags) || !r.number(f.ambient) || !r.number(f.albedo) ||
        !r.word(mat)) {
        return false;
    }
    set_material(f, mat);
    return true;
}

// get_polygon_face in one run (`f` is a fresh face).
bool run_polygon_face(Lexer& lx, Face& f, std::size_t vertex_count, bool mm) {
    Run r(lx);
    std::uint32_t n;
    if (!r.index(n) || !plausible_count(lx.text().size(), r.offset(), n)) return false;
    f.indices.resize(n);
    for (std::uint32_t& index : f.indices) {
        if (!r.index(index) || index >= vertex_count) return false;
    }
    std::string_view tex;
    if (!r.punct(':') || !r.word(tex)) return false;
    std::size_t p = r.start();
    if (p == std::string_view::npos) return false;
    if (r.char_token(p, '[')) {
        if (!r.take(p, p + 1)) return false;
        f.uvs.reserve(n);  // one pair per vertex, as writers give them
        for (;;) {
            p = r.start();
            if (p == std::string_view::npos) return false;
            if (r.char_token(p, ']')) {
                if (!r.take(p, p + 1)) return false;
                break;
            }
            std::array<double, 2>& uv = f.uvs.emplace_back();
            if (!r.number(uv[0]) || !r.number(uv[1])) return false;
        }
        f.empty_uv_list = f.uvs.empty();
        p = r.start();
        if (p == std::string_view::npos) return false;
    }
    if (r.char_token(p, '(') && (!run_tex_axis(r, f.t1) || !run_tex_axis(r, f.t2))) return false;
    if ((!mm && !run_tex_transform(r, f.transform)) || !run_surface(r, f)) return false;
    f.texture.append(tex);  // a fresh face: the same as assigning, and cheaper
    r.commit();
    return true;
}

// get_plane_face in one run (`f` is a fresh face).
bool run_plane_face(Lexer& lx, Face& f) {
    Run r(lx);
    for (auto& p : f.plane_points) {
        if (!run_paren_vec3(r, p)) return false;
    }
    std::string_view tex;
    if (!r.word(tex) || !run_tex_transform(r, f.transform) || !run_surface(r, f)) return false;
    f.texture.append(tex);  // a fresh face: the same as assigning, and cheaper
    for (;;) {
        const int ends = r.line_ends();
        if (ends < 0) return false;
        if (ends > 0) break;
        std::string_view w;
        if (!r.word(w)) return false;
        if (f.a4_tail.empty()) f.a4_tail.reserve(3);
        f.a4_tail.emplace_back(w);
    }
    r.commit();
    return true;
}

// Three vectors, each in parentheses (object transforms), in one run.
bool run_paren_transform(Lexer& lx, Transform& t) {
    Run r(lx);
    Vec3 a, b, c;
    if (!run_paren_vec3(r, a) || !run_paren_vec3(r, b) || !run_paren_vec3(r, c)) return false;
    t.position = a;
    t.angles = b;
    t.scale = c;
    r.commit();
    return true;
}

// A line of numbers (skills), appended to `out`: a number, then more until a line break or the
// end of the text, as the loops of the general readers read them. False, with nothing appended
// or committed, for anything a run does not take.
bool run_line_numbers(Lexer& lx, std::vector<double>& out) {
    Run r(lx);
    const std::size_t old = out.size();
    for (int ends = 0; ends == 0;) {
        double v;
        if (!r.number(v) || (ends = r.line_ends()) < 0) {
            out.resize(old);
            return false;
        }
        out.push_back(v);
    }
    r.commit();
    return true;
}

// As many of `n` vectors as a run takes, each committed as it is read; returns how many.
std::uint32_t run_vec3s(Lexer& lx, Vec3* v, std::uint32_t n) {
    Run r(lx);
    std::uint32_t i = 0;
    for (; i < n && run_vec3(r, v[i]); ++i) r.commit();
    return i;
}

// The hot readers (geometry and object records) return bool and keep their error in the lexer
// (Lexer::fail); the record loops turn it back into a Result.

bool get_count(Lexer& lx, std::uint32_t& n, std::string_view field) {
    if (!lx.get_index(n, field)) return false;
    if (!plausible_count(lx, n)) {
        return lx.fail(lx.error(lx.last_token(), "wmp.bad-count",
                                std::string(field) + " " + std::to_string(n) +
                                    " is more than the rest of the file can hold"));
    }
    return true;
}

Result<std::uint32_t> read_count(Lexer& lx, std::string_view field) {
    std::uint32_t n;
    if (!get_count(lx, n, field)) return lx.take_error();
    return n;
}

Result<std::string> read_line_field(Lexer& lx, std::string_view field) {
    LK_TRY_ASSIGN(Token t, lx.rest_of_line(field));
    return std::string(t.text);
}

bool get_vec3(Lexer& lx, Vec3& v, std::string_view field) {
    double a[3];
    if (lx.take_numbers(a, 3) != 3) return lx.fail_number(field);
    v = {a[0], a[1], a[2]};
    return true;
}

Result<Vec3> read_vec3(Lexer& lx, std::string_view field) {
    Vec3 v;
    if (!get_vec3(lx, v, field)) return lx.take_error();
    return v;
}

bool get_paren_vec3(Lexer& lx, Vec3& v, std::string_view field) {
    return lx.get_punct('(', field) && get_vec3(lx, v, field) && lx.get_punct(')', field);
}

bool get_tex_axis(Lexer& lx, std::optional<TexAxis>& a, std::string_view field) {
    double v[4];
    if (!lx.get_punct('(', field)) return false;
    if (lx.take_numbers(v, 4) != 4) return lx.fail_number(field);
    a = TexAxis{{v[0], v[1], v[2]}, v[3]};
    return lx.get_punct(')', field);
}

// WED's placement controls: `xoff yoff rotation xscale yscale`.
bool get_tex_transform(Lexer& lx, std::optional<TexTransform>& t) {
    static constexpr std::string_view kFields[] = {"texture x offset", "texture y offset",
                                                   "texture rotation", "texture x scale",
                                                   "texture y scale"};
    double v[5];
    if (const std::size_t k = lx.take_numbers(v, 5); k != 5) return lx.fail_number(kFields[k]);
    t = TexTransform{v[0], v[1], v[2], v[3], v[4]};
    return true;
}

// `: FLAGS ambient albedo material`.
bool get_surface(Lexer& lx, Face& f) {
    std::string_view mat;
    if (!lx.get_punct(':', "surface separator") || !lx.get_bits(f.flags, "surface flags") ||
        !lx.get_number(f.ambient, "ambient") || !lx.get_number(f.albedo, "albedo") ||
        !lx.get_word(mat, "material")) {
        return false;
    }
    f.material = opt_string(mat);
    return true;
}

// One polygon face: `n i1..in : TEX [uvs] [( t1 ) ( t2 )] [xoff yoff rot xs ys] : FLAGS amb alb
// material`. `$$M` faces carry no placement controls (mm = true).
bool get_polygon_face(Lexer& lx, Face& f, std::size_t vertex_count, bool mm) {
    if (run_polygon_face(lx, f, vertex_count, mm)) return true;
    f = Face{};
    std::uint32_t n;
    if (!get_count(lx, n, "face vertex count")) return false;
    f.indices.resize(n);
    for (std::uint32_t& index : f.indices) {
        if (!lx.get_index(index, "vertex index")) return false;
        if (index >= vertex_count) {
            return lx.fail(lx.error(lx.last_token(), "wmp.bad-vertex-index",
                                    "vertex index " + std::to_string(index) +
                                        " is out of range (the block has " +
                                        std::to_string(vertex_count) + " vertices)"));
        }
    }
    std::string_view tex;
    if (!lx.get_punct(':', "face separator") || !lx.get_word(tex, "texture name")) return false;
    f.texture = tex;
    if (lx.accept('[')) {
        f.uvs.reserve(n);  // one pair per vertex, as writers give them
        while (!lx.accept(']')) {
            std::array<double, 2>& uv = f.uvs.emplace_back();
            if (lx.take_numbers(uv.data(), 2) != 2) return lx.fail_number("texture coordinate");
        }
        f.empty_uv_list = f.uvs.empty();
    }
    if (lx.next_is('(')) {
        if (!get_tex_axis(lx, f.t1, "texture vector t1") ||
            !get_tex_axis(lx, f.t2, "texture vector t2")) {
            return false;
        }
    }
    if (!mm && !get_tex_transform(lx, f.transform)) return false;
    return get_surface(lx, f);
}

// A4: `( p ) ( p ) ( p ) TEX xoff yoff rot xs ys : FLAGS amb alb material t1 t2 t3`.
bool get_plane_face(Lexer& lx, Face& f) {
    if (run_plane_face(lx, f)) return true;
    f = Face{};
    for (auto& p : f.plane_points) {
        if (!get_paren_vec3(lx, p, "plane point")) return false;
    }
    std::string_view tex;
    if (!lx.get_word(tex, "texture name")) return false;
    f.texture = tex;
    if (!get_tex_transform(lx, f.transform) || !get_surface(lx, f)) return false;
    std::string_view w;
    while (!lx.next_on_new_line() && lx.next_word(w)) {
        if (f.a4_tail.empty()) f.a4_tail.reserve(3);
        f.a4_tail.emplace_back(w);
    }
    return true;
}

// `{ FLAGS function [index] }`.
bool get_block_trailer(Lexer& lx, Block& b) {
    std::string_view fn;
    if (!lx.get_punct('{', "block trailer") || !lx.get_bits(b.flags, "block flags") ||
        !lx.get_word(fn, "block function")) {
        return false;
    }
    b.function = opt_string(fn);
    if (!lx.next_is('}')) {
        std::int64_t index;
        if (!lx.get_integer(index, "block index")) return false;
        b.index = index;
    }
    return lx.get_punct('}', "block trailer end");
}

bool get_block_body(Lexer& lx, Block& b, bool mm) {
    if (lx.next_is('(')) {
        b.plane_syntax = true;
        b.faces.reserve(8);  // most plane blocks are boxes or wedges
        while (lx.next_is('(')) {
            if (!get_plane_face(lx, b.faces.emplace_back())) {
                return lx.fail_under("face[" + std::to_string(b.faces.size() - 1) + "]");
            }
        }
        return get_block_trailer(lx, b);
    }
    std::uint32_t nv, nf;
    if (!lx.get_literal("vertices", "block vertex count") || !get_count(lx, nv, "vertex count") ||
        !lx.get_literal("faces", "block face count") || !get_count(lx, nf, "face count")) {
        return false;
    }
    b.vertices.resize(nv);
    for (std::uint32_t i = 0; i < nv; ++i) {
        i += run_vec3s(lx, b.vertices.data() + i, nv - i);
        if (i == nv) break;
        if (!get_vec3(lx, b.vertices[i], "vertex coordinate")) {
            return lx.fail_under("vertex[" + std::to_string(i) + "]");
        }
    }
    b.faces.resize(nf);
    for (std::uint32_t i = 0; i < nf; ++i) {
        if (!get_polygon_face(lx, b.faces[i], nv, mm)) {
            return lx.fail_under("face[" + std::to_string(i) + "]");
        }
    }
    return get_block_trailer(lx, b);
}

Result<void> read_block_body(Lexer& lx, Block& b, bool mm) {
    if (!get_block_body(lx, b, mm)) return lx.take_error();
    return {};
}

Result<void> read_level_record(Lexer& lx, LevelInfo& li) {
    LK_TRY_ASSIGN(std::string_view wad, lx.angle("level WAD"));
    li.wad = wad;
    LK_TRY_ASSIGN(std::string_view pal, lx.angle("palette"));
    li.palette = pal;
    LK_TRY_ASSIGN(li.nexus, lx.number("nexus size"));
    LK_TRY_ASSIGN(li.sun_azimuth, lx.number("sun azimuth"));
    LK_TRY_ASSIGN(li.sun_elevation, lx.number("sun elevation"));
    LK_TRY_ASSIGN(std::string_view script, lx.angle("script"));
    li.script = opt_string(script);
    li.colors.clear();
    while (!lx.next_is("}")) {
        Rgb& c = li.colors.emplace_back();
        LK_TRY_ASSIGN(c.r, lx.number("colour"));
        LK_TRY_ASSIGN(c.g, lx.number("colour"));
        LK_TRY_ASSIGN(c.b, lx.number("colour"));
    }
    return {};
}

Result<void> read_model_record(Lexer& lx, Model& m) {
    LK_TRY_ASSIGN(m.scale, read_vec3(lx, "model scale"));
    LK_TRY_ASSIGN(std::string_view file, lx.angle("model file"));
    m.file = file;
    // Names and actions fill their line (WED allows commas in action lists: `Player,Core`).
    LK_TRY_ASSIGN(m.name, read_line_field(lx, "entity name"));
    LK_TRY_ASSIGN(std::string action, read_line_field(lx, "action"));
    m.action = opt_string(action);
    // Skills fill one line (8 or 20 values); the flags start the next.
    m.skills.reserve(8);  // WED writes 8 skills, or 20 (WED 7+)
    if (!run_line_numbers(lx, m.skills)) {
        do {
            if (!lx.get_number(m.skills.emplace_back(), "skill")) return lx.take_error();
        } while (!lx.next_on_new_line());
    }
    m.text_quoted_flags = lx.peek().text.starts_with("'");
    LK_TRY_ASSIGN(m.flags, lx.bits("entity flags"));
    LK_TRY_ASSIGN(m.ambient, lx.number("ambient"));
    if (lx.next_is("}")) return {};
    m.text_extended = true;
    LK_TRY_ASSIGN(m.albedo, lx.number("albedo"));
    LK_TRY_ASSIGN(std::string path, read_line_field(lx, "path"));
    m.path = opt_string(path);
    LK_TRY_ASSIGN(std::string s2, read_line_field(lx, "string2"));
    m.string2 = opt_string(s2);
    if (lx.next_is("}")) return {};
    m.text_material_lines = true;
    LK_TRY_ASSIGN(std::string mat, read_line_field(lx, "material"));
    m.material = opt_string(mat);
    for (std::uint16_t tag = 0; tag < 2; ++tag) {
        LK_TRY_ASSIGN(std::string str, read_line_field(lx, "entity string"));
        if (str != kNdef) m.strings.push_back({tag, std::move(str)});
    }
    return {};
}

// One line of skills per path node, every line the same length (WED 7+ and $$M paths).
Result<void> read_node_skills(Lexer& lx, std::uint32_t n, Path& p) {
    p.skills_per_node = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::size_t before = p.node_skills.size();
        if (!run_line_numbers(lx, p.node_skills)) {
            do {
                if (!lx.get_number(p.node_skills.emplace_back(), "node skill")) {
                    return lx.take_error();
                }
            } while (!lx.next_on_new_line());
        }
        const auto k = static_cast<std::uint32_t>(p.node_skills.size() - before);
        if (i == 0) p.skills_per_node = k;
        if (k != p.skills_per_node) {
            return lx.error(lx.peek(), "wmp.bad-count",
                            "path nodes must all have the same number of skills");
        }
    }
    return {};
}

Result<void> read_path_record(Lexer& lx, Path& p) {
    LK_TRY_ASSIGN(p.name, read_line_field(lx, "path name"));
    LK_TRY_ASSIGN(p.text_scalar, lx.number("path value"));
    LK_TRY_ASSIGN(std::uint32_t n, read_count(lx, "path node count"));
    p.nodes.resize(n);
    for (auto& v : p.nodes) {
        LK_TRY_ASSIGN(v, read_vec3(lx, "path node"));
    }
    p.has_node_skills = !lx.next_is("}");
    if (!p.has_node_skills) return {};
    // levelkit's spelling for WED 7+ paths: node skill lines, then `E` and E edge lines.
    LK_TRY(read_node_skills(lx, n, p));
    LK_TRY_ASSIGN(std::uint32_t ne, read_count(lx, "path edge count"));
    p.edges.resize(ne);
    for (auto& e : p.edges) {
        LK_TRY_ASSIGN(e.from, lx.index("edge start"));
        LK_TRY_ASSIGN(e.to, lx.index("edge end"));
        for (double& v : e.values) {
            LK_TRY_ASSIGN(v, lx.number("edge value"));
        }
    }
    return {};
}

struct PendingRef {
    RecordKind kind;
    std::int64_t number;
    std::uint32_t offset;
};

struct PendingObject {
    std::vector<PendingRef> children;
    std::optional<PendingRef> payload;
};

bool get_object_record(Lexer& lx, Object& o, PendingObject& pend) {
    if (!run_paren_transform(lx, o.transform) &&
        (!get_paren_vec3(lx, o.transform.position, "object position") ||
         !get_paren_vec3(lx, o.transform.angles, "object angles") ||
         !get_paren_vec3(lx, o.transform.scale, "object scale"))) {
        return false;
    }
    while (!lx.next_is('}')) {
        std::string_view k;
        if (!lx.get_word(k, "object reference")) return false;
        const Token kw = lx.last_token();
        if (k == "object") {
            do {
                lx.accept(',');
                std::int64_t n;
                if (!lx.get_integer(n, "child object number")) return false;
                pend.children.push_back({RecordKind::object, n, lx.last_token().offset});
            } while (lx.next_is(','));
            continue;
        }
        auto kind = kind_from_class_name(k);
        if (!kind || *kind == Kind::group) {
            return lx.fail(lx.error(kw, "wmp.bad-reference", "unknown payload kind in object"));
        }
        if (pend.payload) {
            return lx.fail(lx.error(kw, "wmp.bad-reference", "an object owns at most one payload"));
        }
        std::int64_t n;
        if (!lx.get_integer(n, "payload number")) return false;
        static constexpr RecordKind kMap[] = {
            RecordKind::object, RecordKind::level, RecordKind::block,
            RecordKind::model,  RecordKind::light, RecordKind::start,
            RecordKind::sound,  RecordKind::path,  RecordKind::region};
        pend.payload = PendingRef{kMap[static_cast<int>(*kind)], n, lx.last_token().offset};
        o.kind = *kind;
    }
    return true;
}

Result<void> read_unknown_body(Lexer& lx, UnknownRecord& u) {
    int depth = 0;
    for (;;) {
        const Token& t = lx.peek();
        if (t.kind == Tok::end) return lx.error(t, "wmp.unterminated", "record is not closed");
        if (t.is("}") && depth == 0) return {};
        if (t.is("{")) ++depth;
        if (t.is("}")) --depth;
        u.tokens.emplace_back(lx.next().text);
    }
}

Result<void> read_wed(Lexer& lx, WedData& wed) {
    LK_TRY(lx.expect("{", "wed section"));
    wed.has_palette = false;
    wed.has_wad_section = false;
    while (!lx.next_is("}")) {
        LK_TRY_ASSIGN(std::string_view name, lx.word("wed section name"));
        LK_TRY(lx.expect("{", "wed section"));
        if (name == "palette" && !wed.has_palette) {
            wed.has_palette = true;
            wed.section_order.push_back(WedData::kPalette);
            wed.palette.reserve(768);  // 256 RGB triples
            while (!lx.next_is('}')) {
                std::string_view w;
                if (!lx.next_word(w)) {
                    return lx.error(lx.peek(), "wmp.bad-palette",
                                    "expected a hex byte in the palette");
                }
                unsigned byte = 0;
                bool ok = w.size() <= 2;
                for (char c : w) {
                    const int d = (c >= '0' && c <= '9')   ? c - '0'
                                  : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                                  : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                           : -1;
                    if (d < 0) ok = false;
                    byte = byte * 16 + static_cast<unsigned>(d < 0 ? 0 : d);
                }
                if (!ok) {
                    return lx.error(lx.last_token(), "wmp.bad-palette",
                                    "expected a hex byte in the palette");
                }
                wed.palette.push_back(static_cast<std::uint8_t>(byte));
            }
        } else if (name == "wad" && !wed.has_wad_section) {
            wed.has_wad_section = true;
            wed.section_order.push_back(WedData::kWad);
            for (double& h : wed.wad_header) {
                LK_TRY_ASSIGN(h, lx.number("wad list header"));
            }
            while (!lx.next_is("}")) {
                Wad w;
                LK_TRY_ASSIGN(std::string_view p, lx.angle("WAD path"));
                w.path = p;
                LK_TRY_ASSIGN(w.flag, lx.number("WAD flag"));
                wed.wads.push_back(std::move(w));
            }
        } else {
            WedData::Section s;
            s.name = name;
            while (!lx.next_is("}")) {
                if (lx.peek().kind == Tok::end) {
                    return lx.error(lx.peek(), "wmp.unterminated", "wed section is not closed");
                }
                if (s.lines.empty() || lx.next_on_new_line()) s.lines.emplace_back();
                s.lines.back().emplace_back(lx.next().text);
            }
            wed.section_order.push_back(static_cast<std::int32_t>(wed.sections.size()));
            wed.sections.push_back(std::move(s));
        }
        LK_TRY(lx.expect("}", "wed section end"));
    }
    LK_TRY(lx.expect("}", "wed end"));
    return {};
}

template <class T>
std::uint32_t push(std::vector<T>& v, std::int64_t number, std::optional<std::string> label) {
    T& r = v.emplace_back();
    r.number = number;
    r.label = std::move(label);
    return static_cast<std::uint32_t>(v.size() - 1);
}

// The records of one kind by number, for resolving references; the first record of a number
// wins. WED numbers each kind densely from 0, so numbers index a table; files with sparse or
// negative numbers are searched in a sorted list instead.
class NumberIndex {
public:
    void add(std::int64_t number, std::uint32_t index) { entries_.push_back({number, index}); }
    void build() {
        const auto limit = static_cast<std::int64_t>(2 * entries_.size() + 16);
        std::int64_t max = -1;
        for (const auto& e : entries_) {
            if (e.first < 0 || e.first >= limit) {
                std::stable_sort(entries_.begin(), entries_.end(),
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
                return;
            }
            max = std::max(max, e.first);
        }
        table_.assign(static_cast<std::size_t>(max + 1), kNone);
        for (const auto& e : entries_) {
            auto& slot = table_[static_cast<std::size_t>(e.first)];
            if (slot == kNone) slot = e.second;
        }
        dense_ = true;
    }
    std::optional<std::uint32_t> find(std::int64_t number) const {
        if (dense_) {
            if (number < 0 || static_cast<std::uint64_t>(number) >= table_.size()) return {};
            const std::uint32_t i = table_[static_cast<std::size_t>(number)];
            return i == kNone ? std::nullopt : std::optional(i);
        }
        auto it = std::lower_bound(entries_.begin(), entries_.end(), number,
                                   [](const auto& e, std::int64_t n) { return e.first < n; });
        if (it == entries_.end() || it->first != number) return {};
        return it->second;
    }

private:
    static constexpr std::uint32_t kNone = UINT32_MAX;  // no record (indices are smaller)
    std::vector<std::pair<std::int64_t, std::uint32_t>> entries_;
    std::vector<std::uint32_t> table_;
    bool dense_ = false;
};

// Links object references and finds the root; errors on dangling references and cycles.
Result<void> link_objects(Level& lv, const std::vector<PendingObject>& pending, const Lexer& lx) {
    NumberIndex by_number[static_cast<int>(RecordKind::unknown)];
    auto table = [&](RecordKind k) -> auto& {
        return by_number[static_cast<int>(k)];
    };
    for (const RecordRef& r : lv.record_order) {
        if (r.kind == RecordKind::unknown || r.kind == RecordKind::sun) continue;
        table(r.kind).add(payload_number(lv, kind_of(r.kind), r.index), r.index);
    }
    for (auto& t : by_number) t.build();
    auto resolve = [&](const PendingRef& ref) -> Result<std::uint32_t> {
        const auto found = table(ref.kind).find(ref.number);
        if (!found) {
            return lx.lines().error_at(ref.offset, "wmp.dangling-reference",
                                       "reference to a record that does not exist (number " +
                                           std::to_string(ref.number) + ")");
        }
        return *found;
    };
    std::vector<std::uint8_t> is_child(lv.objects.size(), 0);
    for (std::size_t i = 0; i < lv.objects.size(); ++i) {
        Object& o = lv.objects[i];
        o.children.reserve(pending[i].children.size());
        for (const PendingRef& c : pending[i].children) {
            LK_TRY_ASSIGN(std::uint32_t idx, resolve(c));
            o.children.push_back(idx);
            is_child[idx] = 1;
        }
        if (pending[i].payload) {
            LK_TRY_ASSIGN(std::uint32_t idx, resolve(*pending[i].payload));
            o.payload = static_cast<std::int32_t>(idx);
        }
    }
    lv.root = 0;
    for (std::size_t i = 0; i < lv.objects.size(); ++i) {
        if (!is_child[i]) {
            lv.root = static_cast<std::uint32_t>(i);
            break;
        }
    }
    // Cycle check: an iterative DFS with colours.
    std::vector<std::uint8_t> colour(lv.objects.size(), 0);
    for (std::size_t s = 0; s < lv.objects.size(); ++s) {
        if (colour[s]) continue;
        std::vector<std::pair<std::uint32_t, std::size_t>> stack{
            {static_cast<std::uint32_t>(s), 0}};
        colour[s] = 1;
        while (!stack.empty()) {
            auto& [o, next] = stack.back();
            if (next < lv.objects[o].children.size()) {
                const std::uint32_t c = lv.objects[o].children[next++];
                if (colour[c] == 1) {
                    return Diagnostic::error("wmp.object-cycle",
                                             "object " + std::to_string(lv.objects[c].number) +
                                                 " contains itself")
                        .with_path("object[" + std::to_string(lv.objects[c].number) + "]");
                }
                if (colour[c] == 0) {
                    colour[c] = 1;
                    stack.emplace_back(c, 0);
                }
            } else {
                colour[o] = 2;
                stack.pop_back();
            }
        }
    }
    return {};
}

void check_counts(const Level& lv, Diagnostics* warnings) {
    if (!warnings) return;
    auto warn = [&](std::string_view what, std::int64_t said, std::size_t has) {
        if (said == static_cast<std::int64_t>(has)) return;
        warnings->add(Diagnostic::warning(
            "wmp.count-mismatch", "header says " + std::to_string(said) + " " + std::string(what) +
                                      ", file has " + std::to_string(has)));
    };
    warn("blocks", lv.header.blocks, lv.blocks.size());
    warn("entities", lv.header.entities, lv.entity_count());
    warn("objects", lv.header.objects, lv.objects.size());
}

}  // namespace

Result<Level> read_wmp2(Blob data, Diagnostics* warnings, const ReadOptions& opt) {
    Level lv;
    lv.layout.source = data;
    const std::string_view text = data.text();
    LK_TRY(detail::check_text_size(text));
    lv.newline = newline_of(text);
    Lexer lx(text, {.record_runs = opt.record_runs}, lv.layout);

    auto head = lx.comment();
    if (!head || detail::comment_text(head->text) != "WMP2") {
        return lx.error(lx.peek(), "wmp.bad-header", "expected the '// WMP2' header line");
    }
    if (auto c = lx.comment()) lv.header.editor = std::string(detail::comment_text(c->text));
    if (auto c = lx.comment()) {
        const auto [prefix, date] = detail::split_created(detail::comment_text(c->text));
        lv.header.created_prefix = prefix;
        lv.header.created = std::string(date);
    }
    if (lx.next_is("version")) {
        lx.next();
        LK_TRY_ASSIGN(lv.header.version, lx.integer("version"));
    }
    for (std::string_view key : {"blocks", "entities", "objects"}) {
        LK_TRY(lx.expect(key, "header counts"));
        std::int64_t& dst = key == "blocks"     ? lv.header.blocks
                            : key == "entities" ? lv.header.entities
                                                : lv.header.objects;
        LK_TRY_ASSIGN(dst, lx.integer(key));
    }
    lv.wed.present = lx.next_is("wed");
    if (lv.wed.present) {
        lx.next();
        WMP_TRY_UNDER("wed", read_wed(lx, lv.wed));
    } else {
        lv.wed.has_palette = lv.wed.has_wad_section = false;
    }
    lv.prologue_span = {0, lx.token_count()};
    // The header's object count, as far as the rest of the text can hold it (an object record
    // takes at least 31 bytes), saves the vector of large objects its regrowth.
    if (lv.header.objects > 0) {
        lv.objects.reserve(std::min(static_cast<std::size_t>(lv.header.objects),
                                    (text.size() - lx.offset()) / 31));
    }

    if (!lv.header.version)
        lv.dialect = Dialect::wmp2_a4;
    else if (*lv.header.version < 700)
        lv.dialect = Dialect::wmp2_a5;
    else
        lv.dialect = Dialect::wmp2_a6;

    std::vector<PendingObject> pending;
    pending.reserve(lv.objects.capacity());
    while (!lx.at_end()) {
        const std::uint32_t first = lx.token_count();
        LK_TRY_ASSIGN(std::string_view kw, lx.word("record keyword"));
        LK_TRY_ASSIGN(std::int64_t number, lx.integer("record number"));
        LK_TRY(lx.expect("{", "record start"));
        std::optional<std::string> label;
        if (auto c = lx.comment_on_line()) label = std::string(detail::comment_text(c->text));
        // The logical path of errors, made only for one.
        const auto path = [&] { return std::string(kw) + "[" + std::to_string(number) + "]"; };
        RecordRef ref{RecordKind::unknown, 0};
        auto kind = kind_from_class_name(kw);
        if (!kind) {
            ref = {RecordKind::unknown, static_cast<std::uint32_t>(lv.unknown_records.size())};
            UnknownRecord& u = lv.unknown_records.emplace_back();
            u.keyword = kw;
            u.number = number;
            u.label = label;
            if (warnings) {
                warnings->add(
                    lx.lines()
                        .warning_at(lx.offset(), "wmp.unknown-record",
                                    "unknown record '" + printable(kw) + "' kept as it is")
                        .with_path(path()));
            }
            WMP_TRY_UNDER(path(), read_unknown_body(lx, u));
        } else {
            switch (*kind) {
                case Kind::group: {
                    ref = {RecordKind::object, static_cast<std::uint32_t>(lv.objects.size())};
                    Object& o = lv.objects.emplace_back();
                    o.number = number;
                    o.name = label;
                    o.class_text = "object";
                    if (!get_object_record(lx, o, pending.emplace_back())) {
                        return under(lx.take_error(), path());
                    }
                    break;
                }
                case Kind::block: {
                    ref = {RecordKind::block, push(lv.blocks, number, label)};
                    WMP_TRY_UNDER(path(), read_block_body(lx, lv.blocks.back(), false));
                    break;
                }
                case Kind::level:
                    ref = {RecordKind::level, push(lv.levels, number, label)};
                    WMP_TRY_UNDER(path(), read_level_record(lx, lv.levels.back()));
                    break;
                case Kind::model:
                    ref = {RecordKind::model, push(lv.models, number, label)};
                    WMP_TRY_UNDER(path(), read_model_record(lx, lv.models.back()));
                    break;
                case Kind::light: {
                    ref = {RecordKind::light, push(lv.lights, number, label)};
                    Light& l = lv.lights.back();
                    auto rd = [&]() -> Result<void> {
                        if (!lx.get_number(l.color.r, "light red") ||
                            !lx.get_number(l.color.g, "light green") ||
                            !lx.get_number(l.color.b, "light blue") ||
                            !lx.get_number(l.range, "light range")) {
                            return lx.take_error();
                        }
                        // levelkit writes WMPB light flags as a fifth value when they are set.
                        if (!lx.next_is("}") && !lx.next_on_new_line()) {
                            LK_TRY_ASSIGN(l.flags, lx.bits("light flags"));
                        }
                        return {};
                    };
                    WMP_TRY_UNDER(path(), rd());
                    break;
                }
                case Kind::start: {
                    ref = {RecordKind::start, push(lv.starts, number, label)};
                    auto name = read_line_field(lx, "start name");
                    if (!name) return under(std::move(name).error(), path());
                    lv.starts.back().name = std::move(name).value();
                    break;
                }
                case Kind::sound: {
                    ref = {RecordKind::sound, push(lv.sounds, number, label)};
                    Sound& s = lv.sounds.back();
                    auto rd = [&]() -> Result<void> {
                        LK_TRY_ASSIGN(std::string_view f, lx.angle("sound file"));
                        s.file = f;
                        LK_TRY_ASSIGN(s.flags, lx.bits("sound flags"));
                        LK_TRY_ASSIGN(s.volume, lx.number("sound volume"));
                        LK_TRY_ASSIGN(s.param2, lx.number("sound value"));
                        LK_TRY_ASSIGN(s.param3, lx.number("sound value"));
                        LK_TRY_ASSIGN(s.range, lx.number("sound range"));
                        return {};
                    };
                    WMP_TRY_UNDER(path(), rd());
                    break;
                }
                case Kind::path:
                    ref = {RecordKind::path, push(lv.paths, number, label)};
                    WMP_TRY_UNDER(path(), read_path_record(lx, lv.paths.back()));
                    break;
                case Kind::region: {
                    ref = {RecordKind::region, push(lv.regions, number, label)};
                    Region& r = lv.regions.back();
                    auto rd = [&]() -> Result<void> {
                        LK_TRY_ASSIGN(r.name, read_line_field(lx, "region name"));
                        LK_TRY_ASSIGN(r.mins, read_vec3(lx, "region minimum"));
                        LK_TRY_ASSIGN(r.maxs, read_vec3(lx, "region maximum"));
                        return {};
                    };
                    WMP_TRY_UNDER(path(), rd());
                    break;
                }
            }
        }
        WMP_TRY_UNDER(path(), lx.expect("}", "record end"));
        lv.record_order.push_back(ref);
        lv.record_spans.push_back({first, lx.token_count()});
    }
    if (lx.token_count() == 0) {
        return lx.error(lx.peek(), "wmp.empty", "the file has no content");
    }
    LK_TRY(link_objects(lv, pending, lx));
    check_counts(lv, warnings);
    lx.finish();
    return lv;
}

namespace {

Result<void> read_mm_transform(Lexer& lx, Transform& t, bool has_scale) {
    static constexpr std::string_view kFields[] = {"position", "angles", "scale"};
    Vec3* const dst[] = {&t.position, &t.angles, &t.scale};
    const std::uint32_t n = has_scale ? 3 : 2;
    Vec3 v[3];
    std::uint32_t i = run_vec3s(lx, v, n);
    for (std::uint32_t k = 0; k < i; ++k) *dst[k] = v[k];
    for (; i < n; ++i) {
        if (!get_vec3(lx, *dst[i], kFields[i])) return lx.take_error();
    }
    return {};
}

Result<void> read_mm_model(Lexer& lx, Model& m, Transform& t) {
    LK_TRY(read_mm_transform(lx, t, true));
    m.scale = t.scale;
    LK_TRY_ASSIGN(m.file, read_line_field(lx, "model file"));
    LK_TRY_ASSIGN(m.name, read_line_field(lx, "entity name"));
    LK_TRY_ASSIGN(std::string action, read_line_field(lx, "action"));
    m.action = opt_string(action);
    m.skills.reserve(8);  // WED writes 8 skills, or 20 (WED 7+)
    if (!run_line_numbers(lx, m.skills)) {
        do {
            if (!lx.get_number(m.skills.emplace_back(), "skill")) return lx.take_error();
        } while (!lx.next_on_new_line());
    }
    LK_TRY_ASSIGN(m.flags, lx.bits("entity flags"));
    LK_TRY_ASSIGN(m.ambient, lx.number("ambient"));
    if (lx.next_is("}")) return {};
    m.text_extended = true;
    LK_TRY_ASSIGN(m.albedo, lx.number("albedo"));
    LK_TRY_ASSIGN(m.mm_path_index, lx.integer("path index"));
    LK_TRY_ASSIGN(m.mm_reserved, lx.integer("model value"));
    if (lx.next_is("}")) return {};
    m.text_material_lines = true;
    LK_TRY_ASSIGN(std::string mat, read_line_field(lx, "material"));
    m.material = opt_string(mat);
    std::uint16_t tag = 0;
    for (; !lx.next_is("}") && !lx.at_end(); ++tag) {
        if (tag == UINT16_MAX) {
            return lx.error(lx.peek(), "wmp.too-many", "more than 65535 entity strings");
        }
        LK_TRY_ASSIGN(std::string s, read_line_field(lx, "entity string"));
        if (s != kNdef) m.strings.push_back({tag, std::move(s)});
    }
    m.mm_string_lines = tag;
    return {};
}

Result<void> read_mm_path(Lexer& lx, Path& p) {
    LK_TRY_ASSIGN(p.name, read_line_field(lx, "path name"));
    LK_TRY_ASSIGN(std::uint32_t n, read_count(lx, "path node count"));
    LK_TRY_ASSIGN(p.mm_value_count, lx.integer("path value count"));
    p.nodes.resize(n);
    for (auto& v : p.nodes) {
        LK_TRY_ASSIGN(v, read_vec3(lx, "path node"));
    }
    LK_TRY(read_node_skills(lx, n, p));
    while (!lx.next_is("}")) {
        PathEdge& e = p.edges.emplace_back();
        const Token t = lx.peek();
        LK_TRY_ASSIGN(std::uint32_t from, lx.index("edge start"));
        LK_TRY_ASSIGN(std::uint32_t to, lx.index("edge end"));
        if (from == 0 || to == 0) {
            return lx.error(t, "wmp.bad-index", "`$$M` edge nodes count from 1");
        }
        e.from = from - 1;
        e.to = to - 1;
        for (double& v : e.values) {
            LK_TRY_ASSIGN(v, lx.number("edge value"));
        }
    }
    return {};
}

}  // namespace

Result<Level> read_mm(Blob data, Diagnostics* warnings, const ReadOptions& opt) {
    Level lv;
    lv.dialect = Dialect::mm;
    lv.layout.source = data;
    const std::string_view text = data.text();
    LK_TRY(detail::check_text_size(text));
    lv.newline = newline_of(text);
    lv.wed.present = lv.wed.has_palette = lv.wed.has_wad_section = false;
    Lexer lx(text, {.record_runs = opt.record_runs}, lv.layout);

    auto banner = lx.comment();
    if (banner) lv.header.mm_banner = std::string(detail::comment_text(banner->text));
    LK_TRY(lx.expect("version", "version line"));
    LK_TRY_ASSIGN(lv.header.version, lx.integer("version"));
    lv.prologue_span = {0, lx.token_count()};

    // Every record and every block opens with '{' and adds at most one object: a memchr count of
    // '{' saves the vector of large objects its regrowth. It is only a capacity hint, capped at
    // one object per 24 bytes (nearly every record takes more), so that text full of braces
    // reserves no more than a real level of its size could use.
    std::size_t braces = 0;
    for (const char *p = text.data(), *end = p + text.size();
         (p = static_cast<const char*>(std::memchr(p, '{', static_cast<std::size_t>(end - p))));
         ++p) {
        ++braces;
    }
    lv.objects.reserve(1 + std::min(braces, text.size() / 24));
    Object& root = lv.objects.emplace_back();
    root.kind = Kind::level;
    lv.root = 0;
    auto add_object = [&](Kind k, std::uint32_t payload, const Transform& t) {
        Object& o = lv.objects.emplace_back();
        o.kind = k;
        o.payload = static_cast<std::int32_t>(payload);
        o.transform = t;
        o.number = static_cast<std::int64_t>(lv.objects.size() - 1);
        lv.objects[lv.root].children.push_back(static_cast<std::uint32_t>(lv.objects.size() - 1));
    };
    std::size_t record_no = 0;
    bool saw_level = false, saw_sun = false;
    while (!lx.at_end()) {
        const std::uint32_t first = lx.token_count();
        const std::size_t record = record_no++;
        // The logical path of errors, made only for one.
        const auto path = [record] { return "record[" + std::to_string(record) + "]"; };
        WMP_TRY_UNDER(path(), lx.expect("{", "record start"));
        auto kc = lx.comment_on_line();
        const std::string_view kind = kc ? detail::comment_text(kc->text) : std::string_view{};
        auto type = lx.integer("record type");
        if (!type) return under(std::move(type).error(), path());
        const Token type_tok = lx.last_token();
        RecordRef ref{RecordKind::unknown, 0};
        Transform t;
        auto body = [&]() -> Result<void> {
            if (kind == "level") {
                if (saw_level) {
                    return lx.error(type_tok, "wmp.duplicate-record", "second level record");
                }
                saw_level = true;
                if (lv.levels.empty()) push(lv.levels, 0, std::nullopt);
                ref = {RecordKind::level, 0};
                lv.objects[lv.root].payload = 0;
                LevelInfo& li = lv.levels.back();
                li.number = *type;
                LK_TRY_ASSIGN(li.wad, read_line_field(lx, "level WAD"));
                LK_TRY_ASSIGN(li.palette, read_line_field(lx, "palette"));
                while (lx.accept('{')) {
                    const std::uint32_t bi = static_cast<std::uint32_t>(lv.blocks.size());
                    Block& b = lv.blocks.emplace_back();
                    if (auto c = lx.comment_on_line())
                        b.label = std::string(detail::comment_text(c->text));
                    b.number = bi;
                    WMP_TRY_UNDER("block[" + std::to_string(bi) + "]",
                                  read_block_body(lx, b, true));
                    WMP_TRY_UNDER("block[" + std::to_string(bi) + "]", lx.expect("}", "block end"));
                    add_object(Kind::block, bi, {});
                }
                return {};
            }
            if (kind == "sun") {
                if (saw_sun) {
                    return lx.error(type_tok, "wmp.duplicate-record", "second sun record");
                }
                saw_sun = true;
                ref = {RecordKind::sun, 0};
                if (lv.levels.empty()) {
                    push(lv.levels, 0, std::nullopt);
                    lv.objects[lv.root].payload = 0;
                }
                lv.levels[0].mm_sun_type = *type;
                LK_TRY_ASSIGN(lv.levels[0].sun_azimuth, lx.number("sun azimuth"));
                LK_TRY_ASSIGN(lv.levels[0].sun_elevation, lx.number("sun elevation"));
                return {};
            }
            if (kind == "model") {
                ref = {RecordKind::model, push(lv.models, *type, std::nullopt)};
                Model& m = lv.models.back();
                LK_TRY(read_mm_model(lx, m, t));
                add_object(Kind::model, ref.index, t);
                return {};
            }
            if (kind == "light") {
                ref = {RecordKind::light, push(lv.lights, *type, std::nullopt)};
                Light& l = lv.lights.back();
                LK_TRY(read_mm_transform(lx, t, false));
                if (!lx.get_number(l.color.r, "light red") ||
                    !lx.get_number(l.color.g, "light green") ||
                    !lx.get_number(l.color.b, "light blue") ||
                    !lx.get_number(l.range, "light range") ||
                    !lx.get_bits(l.flags, "light flags")) {
                    return lx.take_error();
                }
                add_object(Kind::light, ref.index, t);
                return {};
            }
            if (kind == "start") {
                ref = {RecordKind::start, push(lv.starts, *type, std::nullopt)};
                LK_TRY(read_mm_transform(lx, t, false));
                LK_TRY_ASSIGN(lv.starts.back().name, read_line_field(lx, "start name"));
                add_object(Kind::start, ref.index, t);
                return {};
            }
            if (kind == "sound") {
                ref = {RecordKind::sound, push(lv.sounds, *type, std::nullopt)};
                Sound& s = lv.sounds.back();
                LK_TRY(read_mm_transform(lx, t, false));
                LK_TRY_ASSIGN(s.file, read_line_field(lx, "sound file"));
                LK_TRY_ASSIGN(s.flags, lx.bits("sound flags"));
                LK_TRY_ASSIGN(s.volume, lx.number("sound volume"));
                LK_TRY_ASSIGN(s.param2, lx.number("sound value"));
                LK_TRY_ASSIGN(s.param3, lx.number("sound value"));
                LK_TRY_ASSIGN(s.range, lx.number("sound range"));
                add_object(Kind::sound, ref.index, t);
                return {};
            }
            if (kind == "path") {
                ref = {RecordKind::path, push(lv.paths, *type, std::nullopt)};
                LK_TRY(read_mm_path(lx, lv.paths.back()));
                add_object(Kind::path, ref.index, t);
                return {};
            }
            if (kind == "region") {
                ref = {RecordKind::region, push(lv.regions, *type, std::nullopt)};
                Region& r = lv.regions.back();
                LK_TRY_ASSIGN(r.name, read_line_field(lx, "region name"));
                LK_TRY_ASSIGN(r.mins, read_vec3(lx, "region minimum"));
                LK_TRY_ASSIGN(r.maxs, read_vec3(lx, "region maximum"));
                add_object(Kind::region, ref.index, t);
                return {};
            }
            ref = {RecordKind::unknown, static_cast<std::uint32_t>(lv.unknown_records.size())};
            UnknownRecord& u = lv.unknown_records.emplace_back();
            u.keyword = kind;
            u.has_keyword = kc.has_value();
            u.number = *type;
            if (warnings) {
                warnings->add(lx.lines()
                                  .warning_at(type_tok.offset, "wmp.unknown-record",
                                              "unknown $$M record kind '" + printable(kind) +
                                                  "' kept as it is")
                                  .with_path(path()));
            }
            return read_unknown_body(lx, u);
        };
        WMP_TRY_UNDER(path(), body());
        WMP_TRY_UNDER(path(), lx.expect("}", "record end"));
        lv.record_order.push_back(ref);
        lv.record_spans.push_back({first, lx.token_count()});
    }
    if (lv.levels.empty()) lv.objects[lv.root].kind = Kind::group;
    lv.header.blocks = static_cast<std::int64_t>(lv.blocks.size());
    lv.header.entities = static_cast<std::int64_t>(lv.entity_count());
    lv.header.objects = static_cast<std::int64_t>(lv.objects.size());
    lx.finish();
    return lv;
}

}  // namespace lk::wmp
