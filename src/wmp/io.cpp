// Dialect detection, dispatch, WMP2 <-> WMPB conversion and semantic validation.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_set>

#include "levelkit/core/text.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "model_util.hpp"
#include "text_io.hpp"

namespace lk::wmp {

std::optional<Dialect> detect(ByteSpan data) {
    const std::string_view t = as_text(data);
    if (t.starts_with("WMPB")) return Dialect::wmpb;
    std::string_view s = t;
    if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
    if (s.starts_with("// WMP2")) {
        const std::string_view head = s.substr(0, 512);
        const auto v = head.find("\nversion");
        if (v == std::string_view::npos) return Dialect::wmp2_a4;
        std::string_view rest = trim(head.substr(v + 8, 8));
        const auto n = parse_int(rest.substr(0, rest.find_first_of(" \t\r\n")));
        return n && *n < 700 ? Dialect::wmp2_a5 : Dialect::wmp2_a6;
    }
    if (s.starts_with("//")) {
        // `$$M`: a banner comment, then `version 711`.
        const std::string_view head = s.substr(0, 512);
        const auto v = head.find("version");
        if (v != std::string_view::npos && head.substr(v + 7).find("711") < 8) return Dialect::mm;
        return std::nullopt;
    }
    if (s.starts_with("#") || s.starts_with("VERTEX")) {
        // A3: `#` header comments and keyword records.
        const std::string_view head = s.substr(0, 4096);
        if (head.find("VERTEX") != std::string_view::npos ||
            head.find("WED v3") != std::string_view::npos)
            return Dialect::a3;
    }
    return std::nullopt;
}

namespace {

Result<File> read_file(Blob data, Diagnostics* warnings, const ReadOptions& opt) {
    const auto d = detect(data.bytes());
    if (!d) {
        return Diagnostic::error("wmp.unknown-format", "not a WMP2, WMPB, $$M or A3 WMP file")
            .at_offset(0);
    }
    File f;
    f.dialect = *d;
    switch (*d) {
        case Dialect::wmpb: {
            LK_TRY_ASSIGN(f.level, read_wmpb(std::move(data), warnings));
            break;
        }
        case Dialect::mm: {
            LK_TRY_ASSIGN(f.level, read_mm(std::move(data), warnings, opt));
            break;
        }
        case Dialect::a3: {
            LK_TRY_ASSIGN(f.a3, read_a3(std::move(data), warnings));
            break;
        }
        default: {
            LK_TRY_ASSIGN(f.level, read_wmp2(std::move(data), warnings, opt));
            f.dialect = f.level.dialect;
        }
    }
    return f;
}

}  // namespace

Result<File> read(Blob data, Diagnostics* warnings) {
    return read_file(std::move(data), warnings, {});
}

Result<Bytes> write(const Level& level) {
    if (level.dialect == Dialect::wmpb) return write_wmpb(level);
    LK_TRY_ASSIGN(std::string s, write_text(level));
    Bytes b(s.size());
    if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
    return b;
}

Result<Bytes> write(const File& file) {
    if (file.dialect == Dialect::a3) {
        const std::string s = write_a3(file.a3);
        Bytes b(s.size());
        if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
        return b;
    }
    return write(file.level);
}

namespace {

std::string date_from_banner(const std::string& b) {
    const auto colon = b.find(':');
    const auto comma = b.find(',');
    if (colon == std::string::npos || comma == std::string::npos || comma < colon) return {};
    return std::string(trim(std::string_view(b).substr(colon + 1, comma - colon - 1)));
}

// Gives every face texture vectors (A5 text and WMPB default surfaces have none).
void fill_texture_axes(Block& b) {
    for (Face& f : b.faces) {
        if (f.t1 && f.t2) continue;
        auto [a, c] = default_texture_axes(face_normal(b.vertices, f));
        f.t1 = a;
        f.t2 = c;
        if (!f.transform) f.transform = TexTransform{};
    }
}

// Numbers with at most six decimals (WED's text precision) become the nearest float; longer
// spellings are exact binary values written by levelkit and stay as they are.
double wed_float(double v) {
    const double f = nearest_float(v);
    if (!std::isfinite(f)) return v;
    std::string six;
    detail::append_number(six, v, detail::Num::f6_full);
    const auto back = parse_double(six);
    return back && *back == v ? f : v;
}
void wed_float(Vec3& v) {
    v = {wed_float(v.x), wed_float(v.y), wed_float(v.z)};
}

// WED keeps levels in single precision and widens to double when it writes WMPB. Text numbers
// (six decimals) are rounded the same way, which also recovers the exact binary value of any
// level that went WMPB -> text.
void round_to_single(Level& lv) {
    for (Object& o : lv.objects) {
        wed_float(o.transform.position);
        wed_float(o.transform.angles);
        wed_float(o.transform.scale);
    }
    for (Block& b : lv.blocks) {
        for (Vec3& v : b.vertices) wed_float(v);
        for (Face& f : b.faces) {
            for (std::optional<TexAxis>* a : {&f.t1, &f.t2}) {
                if (!*a) continue;
                wed_float((*a)->axis);
                (*a)->offset = wed_float((*a)->offset);
            }
            if (f.transform) {
                TexTransform& t = *f.transform;
                for (double* d : {&t.offset_x, &t.offset_y, &t.rotation, &t.scale_x, &t.scale_y})
                    *d = wed_float(*d);
            }
            for (auto& uv : f.uvs) uv = {wed_float(uv[0]), wed_float(uv[1])};
        }
    }
    for (Model& m : lv.models) {
        for (double& s : m.skills) s = wed_float(s);
    }
    for (Path& p : lv.paths) {
        for (Vec3& v : p.nodes) wed_float(v);
        for (double& s : p.node_skills) s = wed_float(s);
        for (PathEdge& e : p.edges) {
            for (double& v : e.values) v = wed_float(v);
        }
    }
    for (Region& r : lv.regions) {
        wed_float(r.mins);
        wed_float(r.maxs);
    }
}

}  // namespace

Result<Level> convert(const Level& in, Dialect target) {
    if (target != Dialect::wmpb && target != Dialect::wmp2_a6) {
        return Diagnostic::error("wmp.unsupported-conversion",
                                 "levels convert to WMPB or to WMP2 text (version 710); use "
                                 "resolve() for $$M");
    }
    if (in.dialect == Dialect::mm) {
        return Diagnostic::error("wmp.unsupported-conversion",
                                 "a $$M file has no object tree to convert back");
    }
    Level out = in;
    out.dialect = target;
    out.layout = {};
    out.record_spans.clear();
    out.record_order.clear();
    out.prologue_span = {};
    for (std::size_t i = 0; i < out.blocks.size(); ++i) {
        Block& b = out.blocks[i];
        if (b.plane_syntax && !plane_block_to_polygons(b)) {
            return Diagnostic::error("wmp.open-block", "plane block does not close a convex volume")
                .with_path("block[" + std::to_string(b.number) + "]");
        }
        if (target == Dialect::wmp2_a6) fill_texture_axes(b);
        for (Face& f : b.faces) {
            if (target == Dialect::wmp2_a6 && !f.has_surface) {
                f.texture = "#default";
                f.has_surface = true;
            }
            if (!f.transform) f.transform = TexTransform{};
            f.a4_tail.clear();
        }
        if (!b.index) b.index = static_cast<std::int64_t>(i);
    }
    // Objects the root does not reach cannot be stored in a WMPB tree.
    if (target == Dialect::wmpb && !out.objects.empty()) {
        const std::vector<std::uint32_t> pre = object_preorder(out);
        std::vector<std::uint8_t> reached(out.objects.size(), 0);
        std::vector<std::uint32_t> stack{out.root};
        while (!stack.empty()) {
            const std::uint32_t o = stack.back();
            stack.pop_back();
            if (reached[o]) continue;
            reached[o] = 1;
            for (std::uint32_t c : out.objects[o].children) stack.push_back(c);
        }
        if (std::count(reached.begin(), reached.end(), 0) != 0) {
            return Diagnostic::error("wmp.unreachable-objects",
                                     "some objects are not under the root object; WMPB stores "
                                     "a single tree");
        }
    }
    // Numbers in WED's order: blocks, level 0, entities from 1, objects in tree order.
    const std::vector<std::uint32_t> pre = object_preorder(out);
    for (std::size_t i = 0; i < out.blocks.size(); ++i) {
        out.blocks[i].number = static_cast<std::int64_t>(i);
    }
    for (std::size_t i = 0; i < out.levels.size(); ++i) {
        out.levels[i].number = static_cast<std::int64_t>(i);
    }
    std::int64_t next = static_cast<std::int64_t>(out.levels.size());
    out.record_order = canonical_record_order(out);
    for (const RecordRef& r : out.record_order) {
        switch (r.kind) {
            case RecordKind::model:
                out.models[r.index].number = next++;
                break;
            case RecordKind::light:
                out.lights[r.index].number = next++;
                break;
            case RecordKind::start:
                out.starts[r.index].number = next++;
                break;
            case RecordKind::sound:
                out.sounds[r.index].number = next++;
                break;
            case RecordKind::path:
                out.paths[r.index].number = next++;
                break;
            case RecordKind::region:
                out.regions[r.index].number = next++;
                break;
            default:
                break;
        }
    }
    for (std::size_t i = 0; i < pre.size(); ++i) {
        out.objects[pre[i]].number = static_cast<std::int64_t>(i);
    }
    for (Object& o : out.objects) {
        if (!o.class_text.empty() && !kind_from_class_name(o.class_text)) continue;
        o.class_text.clear();
        if (target == Dialect::wmp2_a6) o.wmpb = {};
    }
    // Model records in text repeat the owning object's scale.
    for (const Object& o : out.objects) {
        if (o.kind == Kind::model && o.payload >= 0 &&
            static_cast<std::size_t>(o.payload) < out.models.size()) {
            Model& m = out.models[static_cast<std::size_t>(o.payload)];
            m.scale = o.transform.scale;
        }
    }
    if (target == Dialect::wmp2_a6) {
        // WED 7+ text saves label entity records with the entity's name and the level record
        // with its object's name.
        for (const Object& o : out.objects) {
            if (o.payload < 0 || static_cast<std::size_t>(o.payload) >= out.count(o.kind)) continue;
            const auto i = static_cast<std::size_t>(o.payload);
            auto set = [](std::optional<std::string>& label, const std::string& s) {
                if (!label && !s.empty()) label = s;
            };
            switch (o.kind) {
                case Kind::level:
                    set(out.levels[i].label, o.name.value_or(""));
                    break;
                case Kind::model:
                    set(out.models[i].label, out.models[i].name);
                    break;
                case Kind::start:
                    set(out.starts[i].label, out.starts[i].name);
                    break;
                case Kind::path:
                    set(out.paths[i].label, out.paths[i].name);
                    break;
                case Kind::region:
                    set(out.regions[i].label, out.regions[i].name);
                    break;
                case Kind::light:
                    set(out.lights[i].label, o.name.value_or(""));
                    break;
                case Kind::sound:
                    set(out.sounds[i].label, o.name.value_or(""));
                    break;
                default:
                    break;
            }
        }
    }
    for (Model& m : out.models) {
        m.text_extended = true;
        m.text_material_lines = m.material.has_value() || !m.strings.empty();
        m.text_quoted_flags = false;
    }
    Header& h = out.header;
    h.blocks = static_cast<std::int64_t>(out.blocks.size());
    h.entities = static_cast<std::int64_t>(out.entity_count());
    h.objects = static_cast<std::int64_t>(out.objects.size());
    if (target == Dialect::wmpb) {
        if (is_wmp2(in.dialect)) round_to_single(out);
        h.wmpb_version = 710;
        h.wmpb_format = 2;
        h.wmpb_reserved = 0;
        if (h.wmpb_banner.empty()) {
            h.wmpb_banner = "file created: " + h.created.value_or("") + ", levelkit\n";
        }
        out.wed.present = true;
        out.record_order.clear();
    } else {
        h.version = 710;
        if (!h.editor || in.dialect == Dialect::wmpb) h.editor = "levelkit";
        if (!h.created) h.created = date_from_banner(h.wmpb_banner);
        h.created_prefix = true;
        out.wed.present = true;
        out.wed.has_palette = out.wed.has_palette || !out.wed.palette.empty();
        out.wed.has_wad_section = true;
        for (LevelInfo& li : out.levels) {
            if (li.wad.empty()) li.wad = "level.$$w";
        }
    }
    return out;
}

void validate(const Level& lv, Diagnostics& out) {
    std::vector<std::uint32_t> owners(payload_slot_count(lv), 0);
    for (std::size_t i = 0; i < lv.objects.size(); ++i) {
        const Object& o = lv.objects[i];
        const std::string path = "object[" + std::to_string(o.number) + "]";
        for (std::uint32_t c : o.children) {
            if (c >= lv.objects.size()) {
                out.add(Diagnostic::error("wmp.dangling-reference", "child index out of range")
                            .with_path(path));
            }
        }
        if (o.kind == Kind::group) continue;
        if (o.payload < 0 || static_cast<std::size_t>(o.payload) >= lv.count(o.kind)) {
            out.add(Diagnostic::error("wmp.dangling-reference", "payload reference out of range")
                        .with_path(path));
            continue;
        }
        ++owners[payload_slot(lv, o.kind, static_cast<std::size_t>(o.payload))];
    }
    if (lv.dialect != Dialect::mm) {
        for (Kind k : {Kind::block, Kind::level, Kind::model, Kind::light, Kind::start, Kind::sound,
                       Kind::path, Kind::region}) {
            for (std::size_t i = 0; i < lv.count(k); ++i) {
                const std::uint32_t n = owners[payload_slot(lv, k, i)];
                if (n == 1 || lv.objects.empty()) continue;
                out.add(
                    Diagnostic::warning(n == 0 ? "wmp.unreferenced-record" : "wmp.shared-record",
                                        std::string(class_name(k)) + " record is owned by " +
                                            std::to_string(n) + " objects")
                        .with_path(std::string(class_name(k)) + "[" +
                                   std::to_string(payload_number(lv, k, i)) + "]"));
            }
        }
    }
    for (std::size_t bi = 0; bi < lv.blocks.size(); ++bi) {
        const Block& b = lv.blocks[bi];
        const std::string path = "block[" + std::to_string(b.number) + "]";
        if (b.plane_syntax) {
            Block copy = b;
            if (!plane_block_to_polygons(copy)) {
                out.add(Diagnostic::warning("wmp.open-block",
                                            "the block's planes do not close a convex volume")
                            .with_path(path));
            }
            continue;
        }
        for (std::size_t fi = 0; fi < b.faces.size(); ++fi) {
            const Face& f = b.faces[fi];
            if (f.indices.size() < 3) {
                out.add(Diagnostic::warning("wmp.degenerate-face", "face has fewer than 3 vertices")
                            .with_path(path + "/face[" + std::to_string(fi) + "]"));
            }
            for (std::uint32_t v : f.indices) {
                if (v >= b.vertices.size()) {
                    out.add(Diagnostic::error("wmp.bad-vertex-index", "vertex index out of range")
                                .with_path(path + "/face[" + std::to_string(fi) + "]"));
                    break;
                }
            }
        }
    }
    auto count_check = [&](std::string_view what, std::int64_t said, std::size_t has) {
        if (said == static_cast<std::int64_t>(has)) return;
        out.add(Diagnostic::warning(
            "wmp.count-mismatch", "header says " + std::to_string(said) + " " + std::string(what) +
                                      ", the level has " + std::to_string(has)));
    };
    if (lv.dialect != Dialect::mm) {
        count_check("blocks", lv.header.blocks, lv.blocks.size());
        count_check("entities", lv.header.entities, lv.entity_count());
        count_check("objects", lv.header.objects, lv.objects.size());
    }
}

Result<File> read(Blob data, Diagnostics& warnings, const ReadOptions& opt) {
    return read_file(std::move(data), &warnings, opt);
}

}  // namespace lk::wmp
