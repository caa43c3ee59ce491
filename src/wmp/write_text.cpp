// WMP2 text and `$$M` writers. Canonical spacing follows WED's own files: tabs for
// indentation, three spaces between vertices on a line, two spaces after a face's vertex
// count, `{  // name` after object records and `{   // name` after entity records.
#include <string>

#include "levelkit/wmp/wmp.hpp"
#include "model_util.hpp"
#include "text_io.hpp"

namespace lk::wmp {

using detail::Emitter;
using detail::Num;

namespace {

std::string_view or_ndef(const std::optional<std::string>& s) {
    return s ? *s : kNdef;
}

struct TextWriter {
    const Level& lv;
    Emitter e;
    bool mm;
    std::string_view ind;  // indentation of a record body: "\t" (WMP2) or "\t\t" ($$M blocks)
    std::string nl_ind;    // "\n" + ind
    std::string nl_ind2;   // "\n" + ind + "\t"

    TextWriter(const Level& l, bool is_mm) : lv(l), e(&l.layout, l.newline), mm(is_mm) {}

    void set_indent(std::string_view i) {
        ind = i;
        nl_ind.assign(1, '\n');
        nl_ind.append(i);
        nl_ind2 = nl_ind;
        nl_ind2.push_back('\t');
    }

    // Numbers in the dialect's style: WED's six decimals for `$$M`; for WMP2 the same unless
    // that would lose the value (conversions from WMPB must keep every stored number).
    void num(std::string_view gap, double v) { e.number(gap, v, mm ? Num::f6 : Num::f6_exact); }

    void vec3(std::string_view first_gap, const Vec3& v) {
        num(first_gap, v.x);
        num(" ", v.y);
        num(" ", v.z);
    }

    void paren_vec3(std::string_view gap, const Vec3& v) {
        e.word(gap, "(");
        vec3("", v);
        e.word("", ")");
    }

    void tex_axis(const TexAxis& a) {
        e.word(" ", "(");
        vec3(" ", a.axis);
        num(" ", a.offset);
        e.word(" ", ")");
    }

    void surface(const Face& f) {
        e.word(" ", ":");
        e.bits(" ", f.flags);
        num(" ", f.ambient);
        num(" ", f.albedo);
        e.word(" ", or_ndef(f.material));
    }

    void face(const Block& b, const Face& f) {
        if (b.plane_syntax) {
            e.word(nl_ind, "(");
            vec3(" ", f.plane_points[0]);
            e.word(" ", ")");
            for (int i = 1; i < 3; ++i) {
                e.word(" ", "(");
                vec3(" ", f.plane_points[static_cast<std::size_t>(i)]);
                e.word(" ", ")");
            }
            e.word(" ", f.texture);
            transform(f);
            surface(f);
            for (const std::string& t : f.a4_tail) e.word(" ", t);
            return;
        }
        e.integer(nl_ind, static_cast<std::int64_t>(f.indices.size()));
        for (std::size_t i = 0; i < f.indices.size(); ++i) {
            e.integer(i == 0 ? "  " : " ", f.indices[i]);
        }
        e.word(" ", ":");
        e.word(" ", f.texture);
        if (!f.uvs.empty() || f.empty_uv_list) {
            e.word(" ", "[");
            for (const auto& uv : f.uvs) {
                num(" ", uv[0]);
                num(" ", uv[1]);
            }
            e.word(" ", "]");
        }
        if (f.t1 && f.t2) {
            tex_axis(*f.t1);
            tex_axis(*f.t2);
        }
        if (!mm) transform(f);
        surface(f);
    }

    void transform(const Face& f) {
        const TexTransform t = f.transform.value_or(TexTransform{});
        num(" ", t.offset_x);
        num(" ", t.offset_y);
        num(" ", t.rotation);
        num(" ", t.scale_x);
        num(" ", t.scale_y);
    }

    void block_body(const Block& b) {
        if (!b.plane_syntax) {
            e.word(nl_ind, "vertices");
            e.integer(" ", static_cast<std::int64_t>(b.vertices.size()));
            e.word(nl_ind, "faces");
            e.integer(" ", static_cast<std::int64_t>(b.faces.size()));
            for (std::size_t i = 0; i < b.vertices.size(); ++i) {
                vec3(i % 3 == 0 ? std::string_view(nl_ind) : "   ", b.vertices[i]);
            }
        }
        for (const Face& f : b.faces) face(b, f);
        e.word(nl_ind, "{");
        e.bits(nl_ind2, b.flags);
        e.word(nl_ind2, or_ndef(b.function));
        if (b.index) e.integer(nl_ind2, *b.index);
        e.word(nl_ind, "}");
    }

    // --- WMP2 -------------------------------------------------------------------------

    void record_head(std::string_view keyword, std::int64_t number,
                     const std::optional<std::string>& label, std::string_view label_gap) {
        e.word("\n\n", keyword);
        e.integer(" ", number);
        e.word(" ", "{");
        if (label) e.comment(label_gap, " " + *label);
    }

    void wed_palette(const char* gap) {
        const WedData& w = lv.wed;
        e.word(gap, "palette");
        e.word(" ", "{");
        for (std::size_t i = 0; i < w.palette.size(); ++i) {
            const std::size_t in_line = i % 48;
            const char* g = in_line == 0       ? (i == 0 ? "\n\t\t" : "  \n\t\t")
                            : in_line % 3 == 0 ? "  "
                                               : " ";
            e.hex_byte(g, w.palette[i]);
        }
        e.word(w.palette.empty() ? "\n\t" : "  \n\t", "}");
    }

    void wed_wad(const char* gap) {
        const WedData& w = lv.wed;
        e.word(gap, "wad");
        e.word(" ", "{");
        for (std::size_t i = 0; i < w.wad_header.size(); ++i) {
            num(i == 0 ? "\n\t\t" : " ", w.wad_header[i]);
        }
        for (const Wad& wad : w.wads) {
            e.angle("\n\t\t", wad.path);
            num(" ", wad.flag);
        }
        e.word("\n\t", "}");
    }

    void wmp2_prologue() {
        const Header& h = lv.header;
        e.comment("", " WMP2");
        if (h.editor) e.comment("\n", " " + *h.editor);
        if (h.created) {
            // "Created  30.07.2000" (two spaces) reads as the same date: kept as written.
            e.comment_if("\n", (h.created_prefix ? " Created " : " ") + *h.created,
                         [&](std::string_view orig) {
                             const auto [prefix, date] = detail::split_created(orig);
                             return prefix == h.created_prefix && date == *h.created;
                         });
        }
        if (h.version) {
            e.word("\n\n", "version");
            e.integer(" ", *h.version);
        }
        e.word("\n\n", "blocks");
        e.integer(" ", h.blocks);
        e.word("\n", "entities");
        e.integer(" ", h.entities);
        e.word("\n", "objects");
        e.integer(" ", h.objects);
        if (!lv.wed.present) return;
        const WedData& w = lv.wed;
        e.word("\n\n", "wed");
        e.word(" ", "{");
        std::vector<std::int32_t> order = w.section_order;
        if (order.empty()) {
            if (w.has_palette) order.push_back(WedData::kPalette);
            if (w.has_wad_section) order.push_back(WedData::kWad);
            for (std::size_t i = 0; i < w.sections.size(); ++i) {
                order.push_back(static_cast<std::int32_t>(i));
            }
        }
        bool first = true;
        for (std::int32_t which : order) {
            const char* gap = first ? "\n\t" : "\n\n\t";
            if (which == WedData::kPalette && w.has_palette) {
                wed_palette(gap);
            } else if (which == WedData::kWad && w.has_wad_section) {
                wed_wad(gap);
            } else if (which >= 0 && static_cast<std::size_t>(which) < w.sections.size()) {
                const WedData::Section& sec = w.sections[static_cast<std::size_t>(which)];
                e.word(gap, sec.name);
                e.word(" ", "{");
                for (const auto& line : sec.lines) {
                    for (std::size_t i = 0; i < line.size(); ++i) {
                        e.word(i == 0 ? "\n\t\t" : " ", line[i]);
                    }
                }
                e.word("\n\t", "}");
            } else {
                continue;
            }
            first = false;
        }
        e.word("\n", "}");
    }

    void wmp2_object(const Object& o) {
        record_head("object", o.number, o.name, "  ");
        paren_vec3("\n\t", o.transform.position);
        paren_vec3(" ", o.transform.angles);
        paren_vec3(" ", o.transform.scale);
        for (std::size_t i = 0; i < o.children.size(); ++i) {
            if (i % 10 == 0) {
                e.word("\n\t", "object");
            } else {
                e.word("", ",");
            }
            e.integer(" ", lv.objects[o.children[i]].number);
        }
        if (o.payload >= 0 && o.kind != Kind::group) {
            e.word("\n\t", class_name(o.kind));
            e.integer(" ", payload_number(lv, o.kind, static_cast<std::size_t>(o.payload)));
        }
        e.word("\n", "}");
    }

    void wmp2_level(const LevelInfo& li) {
        record_head("level", li.number, li.label, "   ");
        e.angle("\n\t", li.wad);
        e.angle("\n\t", li.palette);
        num("\n\t", li.nexus);
        num("\n\t", li.sun_azimuth);
        num("\n\t", li.sun_elevation);
        e.angle("\n\t", or_ndef(li.script));
        const Num style = lv.dialect == Dialect::wmp2_a6 ? Num::f6_full : Num::f6;
        for (const Rgb& c : li.colors) {
            e.number("\n\t", c.r, style);
            e.number(" ", c.g, style);
            e.number(" ", c.b, style);
        }
        e.word("\n", "}");
    }

    // The model's tagged strings as text lines, tags 0 .. count-1 (`ndef` for a missing tag).
    void tagged_strings(const Model& m, std::size_t count) {
        for (std::size_t tag = 0; tag < count; ++tag) {
            std::string_view s = kNdef;
            for (const TaggedString& t : m.strings) {
                if (t.tag == tag) s = t.text;
            }
            e.word("\n\t", s);
        }
    }

    void sound_fields(const Sound& s, bool file_in_brackets) {
        if (file_in_brackets) {
            e.angle("\n\t", s.file);
        } else {
            e.word("\n\t", s.file);
        }
        e.bits("\n\t", s.flags);
        num("\n\t", s.volume);
        num(" ", s.param2);
        num(" ", s.param3);
        num(" ", s.range);
    }

    void region_fields(const Region& g) {
        e.word("\n\t", g.name);
        vec3("\n\t", g.mins);
        vec3("\n\t", g.maxs);
    }

    // Edge lines `from to v0 v1 v2 v3`; `$$M` counts nodes from 1 (base).
    void edges(const Path& p, std::int64_t base) {
        for (const PathEdge& ed : p.edges) {
            e.integer("\n\t", static_cast<std::int64_t>(ed.from) + base);
            e.integer(" ", static_cast<std::int64_t>(ed.to) + base);
            for (double v : ed.values) num(" ", v);
        }
    }

    void wmp2_model(const Model& m) {
        record_head("model", m.number, m.label, "   ");
        vec3("\n\t", m.scale);
        e.angle("\n\t", m.file);
        e.word("\n\t", m.name);
        e.word("\n\t", or_ndef(m.action));
        for (std::size_t i = 0; i < m.skills.size(); ++i) num(i ? " " : "\n\t", m.skills[i]);
        e.bits("\n\t", m.flags, m.text_quoted_flags);
        num("\n\t", m.ambient);
        if (m.text_extended) {
            num("\n\t", m.albedo);
            e.word("\n\t", or_ndef(m.path));
            e.word("\n\t", or_ndef(m.string2));
            if (m.text_material_lines) {
                e.word("\n\t", or_ndef(m.material));
                tagged_strings(m, 2);
            }
        }
        e.word("\n", "}");
    }

    void wmp2_path(const Path& p) {
        record_head("path", p.number, p.label, "   ");
        e.word("\n\t", p.name);
        num("\n\t", p.text_scalar);
        e.integer("\n\t", static_cast<std::int64_t>(p.nodes.size()));
        for (const Vec3& n : p.nodes) vec3("\n\t", n);
        if (p.has_node_skills) {
            node_skills(p, "\n\t");
            e.integer("\n\t", static_cast<std::int64_t>(p.edges.size()));
            edges(p, 0);
        }
        e.word("\n", "}");
    }

    void node_skills(const Path& p, std::string_view line_gap) {
        const std::size_t k = p.skills_per_node;
        for (std::size_t i = 0; i < p.node_skills.size(); ++i) {
            num(k == 0 || i % k == 0 ? line_gap : " ", p.node_skills[i]);
        }
    }

    void wmp2_record(const RecordRef& r) {
        switch (r.kind) {
            case RecordKind::object:
                wmp2_object(lv.objects[r.index]);
                break;
            case RecordKind::block: {
                const Block& b = lv.blocks[r.index];
                record_head("block", b.number, b.label, "   ");
                block_body(b);
                e.word("\n", "}");
                break;
            }
            case RecordKind::level:
                wmp2_level(lv.levels[r.index]);
                break;
            case RecordKind::model:
                wmp2_model(lv.models[r.index]);
                break;
            case RecordKind::light: {
                const Light& l = lv.lights[r.index];
                record_head("light", l.number, l.label, "   ");
                num("\n\t", l.color.r);
                num(" ", l.color.g);
                num(" ", l.color.b);
                num(" ", l.range);
                if (l.flags != 0) e.bits(" ", l.flags);
                e.word("\n", "}");
                break;
            }
            case RecordKind::start: {
                const Start& s = lv.starts[r.index];
                record_head("start", s.number, s.label, "   ");
                e.word("\n\t", s.name);
                e.word("\n", "}");
                break;
            }
            case RecordKind::sound: {
                const Sound& s = lv.sounds[r.index];
                record_head("sound", s.number, s.label, "   ");
                sound_fields(s, true);
                e.word("\n", "}");
                break;
            }
            case RecordKind::path:
                wmp2_path(lv.paths[r.index]);
                break;
            case RecordKind::region: {
                const Region& g = lv.regions[r.index];
                record_head("region", g.number, g.label, "   ");
                region_fields(g);
                e.word("\n", "}");
                break;
            }
            case RecordKind::unknown: {
                const UnknownRecord& u = lv.unknown_records[r.index];
                record_head(u.keyword, u.number, u.label, "   ");
                for (const std::string& t : u.tokens) e.word(" ", t);
                e.word("\n", "}");
                break;
            }
            case RecordKind::sun:
                break;  // `$$M` only
        }
    }

    // --- $$M --------------------------------------------------------------------------

    void mm_head(std::string_view kind, std::int64_t type, bool first, bool has_kind = true) {
        e.word(first ? "\n\n\n" : "\n", "{");
        if (has_kind) e.comment(" ", std::string(kind));
        e.integer("\n\t", type);
    }

    void mm_transform(const Object* o, bool with_scale) {
        const Transform t = o ? o->transform : Transform{};
        vec3("\n\t", t.position);
        vec3("\n\t", t.angles);
        if (with_scale) vec3("\n\t", t.scale);
    }

    void mm_record(const RecordRef& r, bool first, const std::vector<const Object*>& owner) {
        auto obj = [&](RecordKind k, std::uint32_t i) {
            return owner[payload_slot(lv, kind_of(k), i)];
        };
        switch (r.kind) {
            case RecordKind::level: {
                const LevelInfo& li = lv.levels[r.index];
                mm_head("level", li.number, first);
                e.word("\n\t", li.wad);
                e.word("\n\t", li.palette);
                set_indent("\t\t");
                for (std::size_t i = 0; i < lv.blocks.size(); ++i) {
                    const Block& b = lv.blocks[i];
                    e.word("\n\t", "{");
                    if (b.label) e.comment("   ", " " + *b.label);
                    block_body(b);
                    e.word("\n\t", "}");
                }
                set_indent("\t");
                e.word("\n", "}");
                break;
            }
            case RecordKind::sun: {
                const LevelInfo& li = lv.levels[r.index];
                mm_head("sun", li.mm_sun_type, first);
                num("\n\t", li.sun_azimuth);
                num("\n\t", li.sun_elevation);
                e.word("\n", "}");
                break;
            }
            case RecordKind::model: {
                const Model& m = lv.models[r.index];
                mm_head("model", m.number, first);
                mm_transform(obj(r.kind, r.index), true);
                e.word("\n\t", m.file);
                e.word("\n\t", m.name);
                e.word("\n\t", or_ndef(m.action));
                for (std::size_t i = 0; i < m.skills.size(); ++i) {
                    num(i ? " " : "\n\t", m.skills[i]);
                }
                e.bits("\n\t", m.flags);
                num("\n\t", m.ambient);
                if (m.text_extended) {
                    num("\n\t", m.albedo);
                    e.integer("\n\t", m.mm_path_index);
                    e.integer("\n\t", m.mm_reserved);
                    if (m.text_material_lines) {
                        e.word("\n\t", or_ndef(m.material));
                        std::size_t count = m.mm_string_lines;
                        for (const TaggedString& t : m.strings) {
                            count = std::max<std::size_t>(count, t.tag + 1u);
                        }
                        tagged_strings(m, count);
                    }
                }
                e.word("\n", "}");
                break;
            }
            case RecordKind::light: {
                const Light& l = lv.lights[r.index];
                mm_head("light", l.number, first);
                mm_transform(obj(r.kind, r.index), false);
                e.number("\n\t", l.color.r, Num::f6_full);
                e.number(" ", l.color.g, Num::f6_full);
                e.number(" ", l.color.b, Num::f6_full);
                num(" ", l.range);
                e.bits(" ", l.flags);
                e.word("\n", "}");
                break;
            }
            case RecordKind::start: {
                const Start& s = lv.starts[r.index];
                mm_head("start", s.number, first);
                mm_transform(obj(r.kind, r.index), false);
                e.word("\n\t", s.name);
                e.word("\n", "}");
                break;
            }
            case RecordKind::sound: {
                const Sound& s = lv.sounds[r.index];
                mm_head("sound", s.number, first);
                mm_transform(obj(r.kind, r.index), false);
                sound_fields(s, false);
                e.word("\n", "}");
                break;
            }
            case RecordKind::path: {
                const Path& p = lv.paths[r.index];
                mm_head("path", p.number, first);
                e.word("\n\t", p.name);
                e.integer("\n\t", static_cast<std::int64_t>(p.nodes.size()));
                e.integer("\n\t", p.mm_value_count);
                for (const Vec3& n : p.nodes) vec3("\n\t", n);
                node_skills(p, "\n\t");
                edges(p, 1);
                e.word("\n", "}");
                break;
            }
            case RecordKind::region: {
                const Region& g = lv.regions[r.index];
                mm_head("region", g.number, first);
                region_fields(g);
                e.word("\n", "}");
                break;
            }
            case RecordKind::unknown: {
                const UnknownRecord& u = lv.unknown_records[r.index];
                mm_head(u.keyword, u.number, first, u.has_keyword);
                for (const std::string& t : u.tokens) e.word(" ", t);
                e.word("\n", "}");
                break;
            }
            case RecordKind::object:
            case RecordKind::block:
                break;  // objects are implicit, blocks live in the level
        }
    }
};

}  // namespace

Result<std::string> write_text(const Level& lv) {
    const bool mm = lv.dialect == Dialect::mm;
    if (!mm && !is_wmp2(lv.dialect)) {
        return Diagnostic::error("wmp.wrong-dialect", "write_text needs a WMP2 or $$M level");
    }
    TextWriter w(lv, mm);
    w.set_indent("\t");
    const std::vector<RecordRef> order =
        lv.record_order.empty() ? canonical_record_order(lv) : lv.record_order;
    const bool spans = lv.record_spans.size() == order.size() && !lv.record_order.empty();
    if (mm) {
        w.e.record(lv.prologue_span, [&] {
            if (lv.header.mm_banner) w.e.comment("", " " + *lv.header.mm_banner);
            w.e.word(lv.header.mm_banner ? "\n\n" : "", "version");
            w.e.integer(" ", lv.header.version.value_or(711));
        });
        const std::vector<const Object*> owner = payload_owners(lv);
        for (std::size_t i = 0; i < order.size(); ++i) {
            w.e.record(spans ? lv.record_spans[i] : TokenSpan{},
                       [&] { w.mm_record(order[i], i == 0, owner); });
        }
        w.e.trailer("\n");
    } else {
        w.e.record(lv.prologue_span, [&] { w.wmp2_prologue(); });
        for (std::size_t i = 0; i < order.size(); ++i) {
            w.e.record(spans ? lv.record_spans[i] : TokenSpan{}, [&] { w.wmp2_record(order[i]); });
        }
        w.e.trailer("\n\n");
    }
    return w.e.take();
}

}  // namespace lk::wmp
