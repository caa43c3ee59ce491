#include <fmt/format.h>

#include "levelkit/vmf/vmf.hpp"
#include "parse_util.hpp"

namespace lk::vmf {

namespace {

using kv::NodeId;

class TreeWriter {
public:
    explicit TreeWriter(const WriteOptions& opt) { doc_.set_layout(opt.eol, "\t"); }

    kv::Document take() { return std::move(doc_); }

    void map(const Map& m) {
        if (m.has_versioninfo) {
            const NodeId v = doc_.add_block(0, "versioninfo");
            keys(v, m.versioninfo);
        }
        if (m.has_visgroups) {
            const NodeId v = doc_.add_block(0, "visgroups");
            for (const Visgroup& g : m.visgroups) visgroup(v, g);
        }
        if (m.viewsettings) raw(0, *m.viewsettings);
        if (m.has_world) entity(0, m.world, "world");
        for (const Entity& e : m.entities) {
            const NodeId parent = e.hidden ? doc_.add_block(0, "hidden") : 0;
            entity(parent, e, "entity");
        }
        if (m.has_cameras) {
            const NodeId c = doc_.add_block(0, "cameras");
            value(c, "activecamera", std::to_string(m.active_camera));
            for (const Camera& cam : m.cameras) {
                const NodeId b = doc_.add_block(c, "camera");
                value(b, "position", bracket(cam.position));
                value(b, "look", bracket(cam.look));
            }
        }
        if (m.cordon_style == Map::CordonStyle::single && !m.cordons.empty()) {
            const Cordon& c = m.cordons.front();
            const NodeId b = doc_.add_block(0, "cordon");
            if (!c.boxes.empty()) box_keys(b, c.boxes.front());
            value(b, "active", c.active ? "1" : "0");
            keys(b, c.extra_keys);
            for (std::size_t i = 1; i < c.boxes.size(); ++i)
                box_keys(doc_.add_block(b, "box"), c.boxes[i]);
        } else if (m.cordon_style == Map::CordonStyle::multiple) {
            const NodeId cs = doc_.add_block(0, "cordons");
            value(cs, "active", m.cordons_active ? "1" : "0");
            for (const Cordon& c : m.cordons) {
                const NodeId b = doc_.add_block(cs, "cordon");
                value(b, "name", c.name);
                value(b, "active", c.active ? "1" : "0");
                keys(b, c.extra_keys);
                for (const Aabb& box : c.boxes) box_keys(doc_.add_block(b, "box"), box);
            }
        }
        for (const RawNode& r : m.extra_blocks) raw(0, r);
    }

private:
    static std::string num(double v) { return format_double(v); }
    static std::string paren(const Vec3& v) {
        return fmt::format("({} {} {})", num(v.x), num(v.y), num(v.z));
    }
    static std::string bracket(const Vec3& v) {
        return fmt::format("[{} {} {}]", num(v.x), num(v.y), num(v.z));
    }
    static std::string axis(const UVAxis& a) {
        return fmt::format("[{} {} {} {}] {}", num(a.axis.x), num(a.axis.y), num(a.axis.z),
                           num(a.shift), num(a.scale));
    }

    void value(NodeId parent, std::string_view k, std::string_view v) {
        doc_.add_value(parent, k, v);
    }
    void keys(NodeId parent, const std::vector<KeyValue>& kvs) {
        for (const KeyValue& kv : kvs) value(parent, kv.key, kv.value);
    }
    void raw(NodeId parent, const RawNode& r) {
        if (!r.block) {
            value(parent, r.key, r.value);
            return;
        }
        const NodeId b = doc_.add_block(parent, r.key);
        for (const RawNode& c : r.children) raw(b, c);
    }
    void raws(NodeId parent, const std::vector<RawNode>& rs) {
        for (const RawNode& r : rs) raw(parent, r);
    }
    void box_keys(NodeId b, const Aabb& box) {
        value(b, "mins", paren(box.mins));
        value(b, "maxs", paren(box.maxs));
    }

    void editor(NodeId parent, const Editor& e) {
        if (!e.present) return;
        const NodeId b = doc_.add_block(parent, "editor");
        if (e.color)
            value(b, "color", fmt::format("{} {} {}", (*e.color)[0], (*e.color)[1], (*e.color)[2]));
        for (std::int64_t id : e.visgroup_ids) value(b, "visgroupid", std::to_string(id));
        if (e.group_id) value(b, "groupid", std::to_string(*e.group_id));
        if (e.visgroup_shown) value(b, "visgroupshown", *e.visgroup_shown ? "1" : "0");
        if (e.visgroup_autoshown) value(b, "visgroupautoshown", *e.visgroup_autoshown ? "1" : "0");
        if (e.cordon_solid) value(b, "cordonsolid", *e.cordon_solid ? "1" : "0");
        if (e.comments) value(b, "comments", *e.comments);
        if (e.logical_pos) {
            value(b, "logicalpos",
                  fmt::format("[{} {}]", num((*e.logical_pos)[0]), num((*e.logical_pos)[1])));
        }
        keys(b, e.extra_keys);
        raws(b, e.extra_blocks);
    }

    void visgroup(NodeId parent, const Visgroup& g) {
        const NodeId b = doc_.add_block(parent, "visgroup");
        value(b, "name", g.name);
        value(b, "visgroupid", std::to_string(g.id));
        value(b, "color", g.color);
        keys(b, g.extra_keys);
        for (const Visgroup& c : g.children) visgroup(b, c);
        raws(b, g.extra_blocks);
    }

    template <class T, class F>
    void rows(NodeId parent, std::string_view name, const std::vector<T>& data, int rows,
              int per_row, F&& append_item) {
        const NodeId b = doc_.add_block(parent, name);
        if (data.empty()) return;  // an empty block stays empty
        std::string line;
        const auto per = static_cast<std::size_t>(per_row);
        for (int r = 0; r < rows; ++r) {
            line.clear();
            for (std::size_t i = 0; i < per && r * per + i < data.size(); ++i) {
                if (i) line += ' ';
                append_item(line, data[static_cast<std::size_t>(r) * per + i]);
            }
            value(b, "row" + std::to_string(r), line);
        }
    }

    void dispinfo(NodeId parent, const DispInfo& d) {
        const NodeId b = doc_.add_block(parent, "dispinfo");
        using F = DispInfo::Field;
        if (d.has(F::kPower)) value(b, "power", std::to_string(d.power));
        if (d.has(F::kStartPosition)) value(b, "startposition", bracket(d.start_position));
        if (d.has(F::kFlags)) value(b, "flags", std::to_string(d.flags));
        if (d.has(F::kElevation)) value(b, "elevation", num(d.elevation));
        if (d.has(F::kSubdiv)) value(b, "subdiv", std::to_string(d.subdiv));
        keys(b, d.extra_keys);
        const int n = d.grid_size();
        const int t = 1 << d.power;
        auto v3 = [](std::string& s, const Vec3& v) {
            append_double(s, v.x);
            s += ' ';
            append_double(s, v.y);
            s += ' ';
            append_double(s, v.z);
        };
        auto v4 = [](std::string& s, const std::array<double, 4>& v) {
            for (int i = 0; i < 4; ++i) {
                if (i) s += ' ';
                append_double(s, v[static_cast<std::size_t>(i)]);
            }
        };
        auto f = [](std::string& s, double v) { append_double(s, v); };
        auto i = [](std::string& s, int v) { append_int(s, v); };
        if (d.has(F::kNormals)) rows(b, "normals", d.normals, n, n, v3);
        if (d.has(F::kDistances)) rows(b, "distances", d.distances, n, n, f);
        if (d.has(F::kOffsets)) rows(b, "offsets", d.offsets, n, n, v3);
        if (d.has(F::kOffsetNormals)) rows(b, "offset_normals", d.offset_normals, n, n, v3);
        if (d.has(F::kAlphas)) rows(b, "alphas", d.alphas, n, n, f);
        if (d.has(F::kTriangleTags)) rows(b, "triangle_tags", d.triangle_tags, t, 2 * t, i);
        if (d.has(F::kAllowedVerts)) {
            const NodeId a = doc_.add_block(b, "allowed_verts");
            std::string line;
            for (std::size_t k = 0; k < d.allowed_verts.size(); ++k) {
                if (k) line += ' ';
                append_int(line, d.allowed_verts[k]);
            }
            value(a, d.allowed_verts_key.empty() ? "10" : d.allowed_verts_key, line);
        }
        if (d.has(F::kMultiblend)) rows(b, "multiblend", d.multiblend, n, n, v4);
        if (d.has(F::kAlphablend)) rows(b, "alphablend", d.alphablend, n, n, v4);
        for (int c = 0; c < 4; ++c) {
            if (d.present & (F::kMultiblendColor0 << c)) {
                rows(b, "multiblend_color_" + std::to_string(c),
                     d.multiblend_color[static_cast<std::size_t>(c)], n, n, v3);
            }
        }
        raws(b, d.extra_blocks);
    }

    void side(NodeId parent, const Side& s) {
        const NodeId b = doc_.add_block(parent, "side");
        using F = Side::Field;
        if (s.has(F::kId)) value(b, "id", std::to_string(s.id));
        if (s.has(F::kPlane)) {
            value(b, "plane",
                  fmt::format("{} {} {}", paren(s.plane_points[0]), paren(s.plane_points[1]),
                              paren(s.plane_points[2])));
        }
        if (s.has(F::kVerticesPlus)) {
            const NodeId v = doc_.add_block(b, "vertices_plus");
            for (const Vec3& p : s.vertices_plus) {
                value(v, "v", fmt::format("{} {} {}", num(p.x), num(p.y), num(p.z)));
            }
        }
        if (s.has(F::kPointData)) {
            const NodeId v = doc_.add_block(b, "point_data");
            value(v, "numpts", std::to_string(s.point_data.size()));
            for (std::size_t k = 0; k < s.point_data.size(); ++k) {
                const Vec3& p = s.point_data[k];
                value(v, "point", fmt::format("{} {} {} {}", k, num(p.x), num(p.y), num(p.z)));
            }
        }
        if (s.has(F::kMaterial)) value(b, "material", s.material);
        if (s.has(F::kUAxis)) value(b, "uaxis", axis(s.uaxis));
        if (s.has(F::kVAxis)) value(b, "vaxis", axis(s.vaxis));
        if (s.has(F::kRotation)) value(b, "rotation", num(s.rotation));
        if (s.has(F::kLightmapScale)) value(b, "lightmapscale", num(s.lightmapscale));
        if (s.has(F::kSmoothingGroups))
            value(b, "smoothing_groups", std::to_string(s.smoothing_groups));
        keys(b, s.extra_keys);
        if (s.disp) dispinfo(b, *s.disp);
        raws(b, s.extra_blocks);
    }

    void solid(NodeId parent, const Solid& s) {
        const NodeId b = doc_.add_block(parent, "solid");
        value(b, "id", std::to_string(s.id));
        keys(b, s.extra_keys);
        for (const Side& sd : s.sides) side(b, sd);
        editor(b, s.editor);
        raws(b, s.extra_blocks);
    }

    void entity(NodeId parent, const Entity& e, std::string_view name) {
        const NodeId b = doc_.add_block(parent, name);
        keys(b, e.keys);
        if (e.has_connections || !e.connections.empty()) {
            const NodeId c = doc_.add_block(b, "connections");
            for (const Connection& conn : e.connections) value(c, conn.output, conn.value_text());
        }
        for (const Solid& s : e.solids) {
            solid(s.hidden ? doc_.add_block(b, "hidden") : b, s);
        }
        for (const Group& g : e.groups) {
            const NodeId gb = doc_.add_block(b, "group");
            value(gb, "id", std::to_string(g.id));
            keys(gb, g.extra_keys);
            editor(gb, g.editor);
            raws(gb, g.extra_blocks);
        }
        // Editor first so a second (duplicate) editor block, kept in extra_blocks, stays second.
        editor(b, e.editor);
        raws(b, e.extra_blocks);
    }

    kv::Document doc_;
};

}  // namespace

kv::Document to_tree(const Map& map, const WriteOptions& opt) {
    TreeWriter w(opt);
    w.map(map);
    return w.take();
}

std::string write(const Map& map, const WriteOptions& opt) {
    return to_tree(map, opt).write();
}

// --- small model helpers --------------------------------------------------------------------

std::string Connection::value_text() const {
    if (!parsed) return raw;
    std::string out;
    out.reserve(target.size() + input.size() + param.size() + 16);
    out += target;
    out += separator;
    out += input;
    out += separator;
    out += param;
    out += separator;
    append_double(out, delay);
    out += separator;
    append_int(out, times);
    return out;
}

std::optional<Connection> parse_connection(std::string_view output, std::string_view value) {
    const char sep = value.find('\x1b') != std::string_view::npos ? '\x1b' : ',';
    std::vector<std::string_view> f;
    std::size_t start = 0;
    for (;;) {
        const std::size_t p = value.find(sep, start);
        f.push_back(
            value.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
        if (p == std::string_view::npos) break;
        start = p + 1;
    }
    if (f.size() < 5) return std::nullopt;
    auto delay = detail::parse_number(f[f.size() - 2]);
    auto times = parse_int(trim(f.back()));
    if (!delay || !times) return std::nullopt;
    Connection c;
    c.output = std::string(output);
    c.target = std::string(f[0]);
    c.input = std::string(f[1]);
    // The parameter may itself contain the separator (e.g. AddOutput "key,value").
    const std::size_t pb = static_cast<std::size_t>(f[2].data() - value.data());
    const std::size_t pe = static_cast<std::size_t>(f[f.size() - 2].data() - value.data()) - 1;
    c.param = std::string(value.substr(pb, pe - pb));
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
void count_entity(const Entity& e, Stats& s) {
    s.solids += e.solids.size();
    for (const Solid& so : e.solids) {
        s.sides += so.sides.size();
        if (so.hidden) ++s.hidden;
        for (const Side& sd : so.sides) {
            if (sd.disp) ++s.displacements;
        }
    }
    s.connections += e.connections.size();
}
}  // namespace

Stats stats(const Map& map) {
    Stats s;
    count_entity(map.world, s);
    for (const Entity& e : map.entities) {
        count_entity(e, s);
        ++s.entities;
        if (e.hidden) ++s.hidden;
        const std::string_view cls = e.classname();
        if (iequals(cls, "info_overlay") || iequals(cls, "info_overlay_transition")) ++s.overlays;
        if (iequals(cls, "func_instance")) ++s.instances;
    }
    s.visgroups = count_visgroups(map.visgroups);
    s.cameras = map.cameras.size();
    return s;
}

}  // namespace lk::vmf
