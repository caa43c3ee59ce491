#include "levelkit/vmf/instances.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "levelkit/core/file.hpp"
#include "levelkit/core/text.hpp"

namespace lk::vmf {

namespace {

// Keys VBSP transforms or renames through the FGD. levelkit has no FGD, so these are the base
// FGD's common ones; other keys are copied unchanged (reported in the docs).
constexpr std::string_view kPositionKeys[] = {"origin", "BasisOrigin"};
constexpr std::string_view kDirectionKeys[] = {"BasisNormal", "BasisU", "BasisV"};
constexpr std::string_view kAngleKeys[] = {"angles", "movedir", "gibdir", "pushdir"};
constexpr std::string_view kNameKeys[] = {
    "targetname",     "parentname",     "target",           "filtername",
    "damagefilter",   "lightingorigin", "SourceEntityName", "TargetEntityName",
    "attach1",        "attach2",        "constraintsystem", "enableshadowcaster",
    "LightingOrigin", "measuretarget",  "landmark",         "master",
    "NextKey",        "ropename",       "globalname"};

bool in(std::string_view key, std::span<const std::string_view> list) {
    return std::any_of(list.begin(), list.end(),
                       [&](std::string_view k) { return iequals(k, key); });
}

std::string fmt_vec(const Vec3& v) {
    auto n = [](double x) { return format_fixed(x, 6); };
    return fmt::format("{} {} {}", n(v.x), n(v.y), n(v.z));
}

struct Transform {
    Mat3 rot;
    Vec3 origin;
    Vec3 point(const Vec3& p) const { return rot * p + origin; }
    Vec3 dir(const Vec3& d) const { return rot * d; }
};

struct Fixup {
    std::string name;
    int style = 0;                                               // 0 prefix, 1 postfix, 2 none
    std::vector<std::pair<std::string, std::string>> replace;    // $var -> value
    std::vector<std::pair<std::string, std::string>> materials;  // #old -> new

    std::string name_of(std::string_view v) const {
        if (style == 2 || v.empty() || v[0] == '!' || v[0] == '@') return std::string(v);
        return style == 0 ? fmt::format("{}-{}", name, v) : fmt::format("{}-{}", v, name);
    }
    std::string substitute(std::string s) const {
        for (const auto& [var, value] : replace) {
            if (var.empty()) continue;
            for (std::size_t at = 0; (at = s.find(var, at)) != std::string::npos;
                 at += value.size()) {
                s.replace(at, var.size(), value);
            }
        }
        return s;
    }
};

class Collapser {
public:
    Collapser(const InstanceLoader& loader, Diagnostics& diags, const CollapseOptions& opt,
              CollapseReport& report)
        : loader_(loader), diags_(diags), opt_(opt), report_(report) {}

    void run(Map& map, const std::filesystem::path& dir) {
        next_id_ = max_id(map) + 1;
        expand(map, dir, 0);
    }

private:
    static std::int64_t max_id(const Map& m) {
        std::int64_t best = 0;
        auto walk = [&](const Entity& e) {
            best = std::max(best, e.id());
            for (const Solid& s : e.solids) {
                best = std::max(best, s.id);
                for (const Side& sd : s.sides) best = std::max(best, sd.id);
            }
            for (const Group& g : e.groups) best = std::max(best, g.id);
        };
        walk(m.world);
        for (const Entity& e : m.entities) walk(e);
        return best;
    }

    void expand(Map& map, const std::filesystem::path& dir, int depth) {
        std::vector<Entity> kept;
        kept.reserve(map.entities.size());
        std::vector<Entity> added;
        for (Entity& e : map.entities) {
            if (!iequals(e.classname(), "func_instance")) {
                kept.push_back(std::move(e));
                continue;
            }
            if (!merge_one(map, e, dir, depth, added) || opt_.keep_instance_entities) {
                kept.push_back(std::move(e));
            }
        }
        for (Entity& e : added) kept.push_back(std::move(e));
        map.entities = std::move(kept);
    }

    bool merge_one(Map& outer, const Entity& inst, const std::filesystem::path& dir, int depth,
                   std::vector<Entity>& added) {
        std::string file(inst.get("file"));
        std::replace(file.begin(), file.end(), '\\', '/');
        if (file.empty()) return false;
        if (!iends_with(file, ".vmf")) {
            const auto dot = file.rfind('.');
            if (dot != std::string::npos && file.find('/', dot) == std::string::npos)
                file.resize(dot);
            file += ".vmf";
        }
        if (depth >= opt_.max_depth) {
            ++report_.unresolved;
            diags_.add(Diagnostic::warning(
                "vmf.instance-depth",
                fmt::format("instance '{}' nested deeper than {}; left in place", file,
                            opt_.max_depth)));
            return false;
        }
        auto loaded = loader_(file, dir);
        if (!loaded) {
            ++report_.unresolved;
            Diagnostic d = std::move(loaded).error();
            d.severity = Severity::warning;
            d.message = fmt::format("func_instance {} ('{}'): {}", inst.id(), file, d.message);
            diags_.add(std::move(d));
            return false;
        }
        Map inner = std::move(loaded).value();
        // Nested instances first, relative to the instance file's own folder.
        std::filesystem::path inner_dir = dir / std::filesystem::path(file).parent_path();
        expand(inner, inner_dir, depth + 1);

        ++report_.instances;
        Transform t;
        t.rot = angle_matrix(parse_vec(inst.get("angles")).value_or(Vec3{}));
        t.origin = parse_vec(inst.get("origin")).value_or(Vec3{});
        Fixup fx;
        fx.name = std::string(inst.get("targetname"));
        if (fx.name.empty()) fx.name = fmt::format("InstanceAuto{}", ++auto_names_);
        fx.style = static_cast<int>(parse_int(trim(inst.get("fixup_style", "0"))).value_or(0));
        for (const KeyValue& kv : inst.keys) {
            if (!istarts_with(kv.key, "replace")) continue;
            const std::string_view v = kv.value;
            const std::size_t sp = v.find(' ');
            const std::string var(v.substr(0, sp));
            const std::string value(sp == std::string_view::npos ? std::string_view{}
                                                                 : v.substr(sp + 1));
            if (!var.empty() && var[0] == '#') {
                fx.materials.emplace_back(var.substr(1), value);
            } else if (!var.empty()) {
                fx.replace.emplace_back(var, value);
            }
        }

        // Fresh ids; instance side ids map to the new ones for `sides` lists.
        std::unordered_map<std::int64_t, std::int64_t> side_ids;
        for (Solid& s : inner.world.solids) {
            place_solid(s, t, fx, side_ids);
            outer.world.solids.push_back(std::move(s));
            ++report_.solids;
        }
        for (Entity& e : inner.entities) {
            if (iequals(e.classname(), "func_instance_parms")) continue;
            for (Solid& s : e.solids) {
                place_solid(s, t, fx, side_ids);
                ++report_.solids;
            }
            place_entity(e, t, fx);
            added.push_back(std::move(e));
            ++report_.entities;
        }
        for (Entity& e : added) {
            for (KeyValue& kv : e.keys) {
                if (!iequals(kv.key, "sides")) continue;
                std::string out;
                for (std::string_view tok : split_ws(kv.value)) {
                    auto id = parse_int(tok);
                    auto it = id ? side_ids.find(*id) : side_ids.end();
                    if (!out.empty()) out += ' ';
                    out += it == side_ids.end() ? std::string(tok) : std::to_string(it->second);
                }
                kv.value = std::move(out);
            }
        }
        return true;
    }

    static std::optional<Vec3> parse_vec(std::string_view s) {
        const auto parts = split_ws(s);
        if (parts.size() != 3) return std::nullopt;
        Vec3 v;
        for (int i = 0; i < 3; ++i) {
            auto d = parse_double(parts[static_cast<std::size_t>(i)]);
            if (!d) return std::nullopt;
            v[i] = *d;
        }
        return v;
    }

    void place_solid(Solid& s, const Transform& t, const Fixup& fx,
                     std::unordered_map<std::int64_t, std::int64_t>& side_ids) {
        s.id = next_id_++;
        // Visgroup and group ids belong to the instance file's own lists.
        s.editor.visgroup_ids.clear();
        s.editor.group_id.reset();
        for (Side& sd : s.sides) {
            const std::int64_t id = next_id_++;
            side_ids.emplace(sd.id, id);
            sd.id = id;
            for (Vec3& p : sd.plane_points) p = t.point(p);
            for (Vec3& p : sd.vertices_plus) p = t.point(p);
            for (Vec3& p : sd.point_data) p = t.point(p);
            // Texture lock: u(p) = p.a/s + shift must give the same texel after moving.
            for (UVAxis* a : {&sd.uaxis, &sd.vaxis}) {
                a->axis = t.dir(a->axis);
                if (a->scale != 0) a->shift -= dot(t.origin, a->axis) / a->scale;
            }
            for (const auto& [from, to] : fx.materials) {
                if (iequals(sd.material, from)) sd.material = to;
            }
            if (sd.disp) {
                DispInfo& d = *sd.disp;
                d.start_position = t.point(d.start_position);
                for (Vec3& v : d.normals) v = t.dir(v);
                for (Vec3& v : d.offsets) v = t.dir(v);
                for (Vec3& v : d.offset_normals) v = t.dir(v);
            }
        }
    }

    void place_entity(Entity& e, const Transform& t, const Fixup& fx) {
        for (KeyValue& kv : e.keys) {
            if (iequals(kv.key, "id")) {
                kv.value = std::to_string(next_id_++);
                continue;
            }
            kv.value = fx.substitute(kv.value);
            if (in(kv.key, kPositionKeys)) {
                if (auto v = parse_vec(kv.value)) kv.value = fmt_vec(t.point(*v));
            } else if (in(kv.key, kDirectionKeys)) {
                if (auto v = parse_vec(kv.value)) kv.value = fmt_vec(t.dir(*v));
            } else if (in(kv.key, kAngleKeys)) {
                if (auto v = parse_vec(kv.value))
                    kv.value = fmt_vec(matrix_angles(t.rot * angle_matrix(*v)));
            } else if (in(kv.key, kNameKeys)) {
                kv.value = fx.name_of(kv.value);
            }
        }
        // Point entities without an origin sit at the instance origin.
        if (!find_key(e.keys, "origin") && e.solids.empty()) e.set("origin", fmt_vec(t.origin));
        for (Connection& c : e.connections) {
            if (c.parsed) {
                c.target = fx.name_of(fx.substitute(c.target));
                c.input = fx.substitute(c.input);
                c.param = fx.substitute(c.param);
            } else {
                c.raw = fx.substitute(c.raw);
            }
        }
        e.editor.visgroup_ids.clear();
        e.editor.group_id.reset();
    }

    const InstanceLoader& loader_;
    Diagnostics& diags_;
    const CollapseOptions& opt_;
    CollapseReport& report_;
    std::int64_t next_id_ = 1;
    int auto_names_ = 0;
};

}  // namespace

std::optional<std::filesystem::path> find_case_insensitive(const std::filesystem::path& base,
                                                           std::string_view rel) {
    std::filesystem::path cur = base;
    std::error_code ec;
    std::string r(rel);
    std::replace(r.begin(), r.end(), '\\', '/');
    std::size_t start = 0;
    while (start <= r.size()) {
        const std::size_t slash = r.find('/', start);
        const std::string part =
            r.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        start = slash == std::string::npos ? r.size() + 1 : slash + 1;
        if (part.empty() || part == ".") continue;
        if (part == "..") {
            cur = cur.parent_path();
            continue;
        }
        const std::filesystem::path exact = cur / part;
        if (std::filesystem::exists(exact, ec)) {
            cur = exact;
            continue;
        }
        bool found = false;
        for (const auto& entry : std::filesystem::directory_iterator(cur, ec)) {
            if (iequals(entry.path().filename().string(), part)) {
                cur = entry.path();
                found = true;
                break;
            }
        }
        if (!found) return std::nullopt;
    }
    if (!std::filesystem::is_regular_file(cur, ec)) return std::nullopt;
    return cur;
}

InstanceLoader filesystem_instance_loader() {
    return [](std::string_view file, const std::filesystem::path& from_dir) -> Result<Map> {
        std::vector<std::filesystem::path> bases{from_dir.empty() ? "." : from_dir};
        // VBSP also tries relative to the enclosing maps folder.
        for (std::filesystem::path p = from_dir; !p.empty() && p != p.parent_path();
             p = p.parent_path()) {
            const std::string name = p.filename().string();
            if (iequals(name, "maps") || iequals(name, "mapsrc")) bases.push_back(p);
        }
        for (const auto& base : bases) {
            if (auto found = find_case_insensitive(base, file)) {
                auto blob = Blob::map_file(*found);
                if (!blob) return std::move(blob).error();
                Diagnostics d;
                auto map = read_map(blob.value(), d);
                if (!map) {
                    Diagnostic e = std::move(map).error();
                    e.file = found->string();
                    return e;
                }
                return map;
            }
        }
        return Diagnostic::error("vmf.instance-not-found",
                                 fmt::format("instance file '{}' not found (searched from {})",
                                             file, from_dir.string()));
    };
}

CollapseReport collapse_instances(Map& map, const std::filesystem::path& map_dir,
                                  const InstanceLoader& loader, Diagnostics& diags,
                                  const CollapseOptions& opt) {
    CollapseReport report;
    Collapser(loader, diags, opt, report).run(map, map_dir);
    return report;
}

}  // namespace lk::vmf
