// VMF documents: the lossless document (byte-identical write while nothing was edited) and the
// typed map (entities dict-like with duplicate keys kept, outputs, solids, sides, displacements,
// visgroups) that edits go to. An edited map is written from the typed model in Hammer's layout.
#include <algorithm>
#include <memory>

#include "common.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/vmf/geometry.hpp"
#include "levelkit/vmf/vmf.hpp"

namespace lkpy {

namespace {

struct VmfHolder {
    lk::vmf::Document doc;
    std::vector<lk::Diagnostic> warnings;
    std::string name;
    // Set once anything that can edit the model was handed out. Until then the model is the one
    // read; after, it is compared with the model rebuilt from the lossless tree (which is what
    // vmf::Document::read made it from), so an unchanged map still writes its source bytes.
    bool touched = false;
    // Set by every change made through the API (setters, add/remove): modified without
    // comparing. NumPy views only set `touched`.
    bool dirty = false;
    // Removed entities and solids are kept until the document goes: NumPy views handed out
    // (displacement fields) point into them.
    std::vector<lk::vmf::Entity> removed_entities;
    std::vector<lk::vmf::Solid> removed_solids;

    bool modified() const {
        if (dirty) return true;
        if (!touched) return false;
        lk::Diagnostics ignored;
        return !(doc.map() == lk::vmf::map_from_tree(doc.tree(), ignored));
    }
    std::string write() const {
        if (!modified()) return doc.write();
        return lk::vmf::write(doc.map(), {std::string(doc.tree().eol())});
    }
};
using Holder = std::shared_ptr<VmfHolder>;

// Handles name objects by position (entity index, -1 = world; solid; side): they stay valid
// while the map keeps that many, and refer to whatever is at that position after removals.
struct EntityRef {
    Holder h;
    int index = -1;
    // The object for a change: the map counts as modified from then on.
    lk::vmf::Entity& edit() const {
        h->dirty = true;
        return get();
    }
    lk::vmf::Entity& get() const {
        lk::vmf::Map& m = h->doc.map();
        if (index < 0) return m.world;
        if (static_cast<std::size_t>(index) >= m.entities.size()) {
            throw py::index_error("the entity is no longer in the map");
        }
        return m.entities[static_cast<std::size_t>(index)];
    }
};

struct OutputRef {
    EntityRef ent;
    std::size_t index = 0;
    lk::vmf::Connection& edit() const {
        ent.h->dirty = true;
        return get();
    }
    lk::vmf::Connection& get() const {
        auto& c = ent.get().connections;
        if (index >= c.size()) throw py::index_error("the output is no longer on the entity");
        return c[index];
    }
};

struct SolidRef {
    EntityRef ent;
    std::size_t index = 0;
    lk::vmf::Solid& edit() const {
        ent.h->dirty = true;
        return get();
    }
    lk::vmf::Solid& get() const {
        auto& s = ent.get().solids;
        if (index >= s.size()) throw py::index_error("the solid is no longer in the map");
        return s[index];
    }
};

struct SideRef {
    SolidRef solid;
    std::size_t index = 0;
    lk::vmf::Side& edit() const {
        solid.ent.h->dirty = true;
        return get();
    }
    lk::vmf::Side& get() const {
        auto& s = solid.get().sides;
        if (index >= s.size()) throw py::index_error("the side is no longer on the solid");
        return s[index];
    }
};

struct DispRef {
    SideRef side;
    lk::vmf::DispInfo& edit() const {
        side.solid.ent.h->dirty = true;
        return get();
    }
    lk::vmf::DispInfo& get() const {
        lk::vmf::Side& s = side.get();
        if (!s.disp) throw py::value_error("the side has no displacement");
        return *s.disp;
    }
};

py::list entity_list(const Holder& h, const std::function<bool(const lk::vmf::Entity&)>& keep) {
    h->touched = true;
    py::list out;
    auto& ents = h->doc.map().entities;
    for (std::size_t i = 0; i < ents.size(); ++i) {
        if (!keep || keep(ents[i])) out.append(py::cast(EntityRef{h, static_cast<int>(i)}));
    }
    return out;
}

// srctools' name matching: case-insensitive, a trailing '*' matches any suffix.
bool name_matches(std::string_view value, std::string_view pattern) {
    if (!pattern.empty() && pattern.back() == '*') {
        pattern.remove_suffix(1);
        return value.size() >= pattern.size() &&
               lk::iequals(value.substr(0, pattern.size()), pattern);
    }
    return lk::iequals(value, pattern);
}

// A (n, 3) float64 view of a vector of Vec3, owned by `base` (no copy).
py::array vec3_array(std::vector<lk::Vec3>& v, const py::object& base) {
    static_assert(sizeof(lk::Vec3) == 3 * sizeof(double));
    return py::array_t<double>({static_cast<py::ssize_t>(v.size()), py::ssize_t{3}},
                               {py::ssize_t{sizeof(lk::Vec3)}, py::ssize_t{sizeof(double)}},
                               reinterpret_cast<double*>(v.data()), base);
}
py::array double_array(std::vector<double>& v, const py::object& base) {
    return py::array_t<double>({static_cast<py::ssize_t>(v.size())}, {py::ssize_t{sizeof(double)}},
                               v.data(), base);
}

// A brush's polygons: one (n, 3) array of points, faces as slices of it.
struct Polygons {
    lk::BrushPolygons polys;
};

py::tuple uv_tuple(const lk::vmf::UVAxis& a) {
    return py::make_tuple(vec3(a.axis), a.shift, a.scale);
}
lk::vmf::UVAxis to_uv(const py::handle& h) {
    if (py::len(h) != 3) throw py::value_error("a texture axis is (axis (x, y, z), shift, scale)");
    return {to_vec3(h[py::int_(0)]), h[py::int_(1)].cast<double>(), h[py::int_(2)].cast<double>()};
}

py::dict visgroup_dict(const lk::vmf::Visgroup& v) {
    py::dict d;
    d["name"] = to_str(v.name);
    d["id"] = v.id;
    d["color"] = to_str(v.color);
    py::list children;
    for (const auto& c : v.children) children.append(visgroup_dict(c));
    d["children"] = children;
    return d;
}

void set_value(lk::vmf::Entity& e, const std::string& key, const py::handle& value) {
    e.set(key, to_kv_value(value));
}

std::string repr_entity(const lk::vmf::Entity& e) {
    std::string s = "<Entity " + std::string(e.classname());
    s += " #" + std::to_string(e.id());
    const std::string_view name = e.get("targetname");
    if (!name.empty()) s += " '" + std::string(name) + "'";
    return s + ">";
}

}  // namespace

py::object read_vmf(Input in) {
    auto h = std::make_shared<VmfHolder>();
    h->name = in.name;
    lk::Diagnostics warnings;
    lk::Result<lk::vmf::Document> r = lk::Diagnostic::error("io.unset", "");
    {
        py::gil_scoped_release release;
        r = lk::vmf::read(std::move(in.blob), warnings);
    }
    h->doc = take_read(std::move(r), in);
    h->warnings = read_warnings(warnings, in);
    return py::cast(h);
}

void bind_vmf(py::module_& m) {
    using namespace lk::vmf;

    py::class_<VmfHolder, Holder>(m, "VmfDocument",
                                  "A Hammer map: the lossless document and its typed model")
        .def_property_readonly("format", [](const VmfHolder&) { return "vmf"; })
        .def_readonly("name", &VmfHolder::name)
        .def_property_readonly("world",
                               [](const Holder& h) {
                                   h->touched = true;
                                   return EntityRef{h, -1};
                               })
        .def_property_readonly(
            "entities", [](const Holder& h) { return entity_list(h, nullptr); },
            "Entities other than the world, in file order")
        .def(
            "by_class",
            [](const Holder& h, const std::string& cls) {
                return entity_list(
                    h, [&](const Entity& e) { return name_matches(e.classname(), cls); });
            },
            py::arg("classname"),
            "Entities of a class (case-insensitive; 'prop_*' matches a prefix)")
        .def(
            "by_target",
            [](const Holder& h, const std::string& name) {
                return entity_list(
                    h, [&](const Entity& e) { return name_matches(e.get("targetname"), name); });
            },
            py::arg("targetname"),
            "Entities by targetname (case-insensitive; 'door_*' matches a prefix)")
        .def(
            "add_entity",
            [](const Holder& h, const std::string& classname, const py::kwargs& keys) {
                h->touched = h->dirty = true;
                Map& map = h->doc.map();
                const NextIds ids = next_ids(map);
                Entity e;
                e.keys.push_back({"id", std::to_string(ids.entity)});
                e.keys.push_back({"classname", to_text(py::str(classname))});
                for (auto [k, v] : keys) set_value(e, k.cast<std::string>(), v);
                e.editor.present = true;
                e.editor.color = std::array<int, 3>{220, 30, 220};
                e.editor.visgroup_shown = true;
                e.editor.visgroup_autoshown = true;
                map.entities.push_back(std::move(e));
                return EntityRef{h, static_cast<int>(map.entities.size() - 1)};
            },
            py::arg("classname"),
            "Appends an entity with a fresh id; keyword arguments are keyvalues")
        .def(
            "remove_entity",
            [](const Holder& h, const EntityRef& e) {
                if (e.h != h || e.index < 0) throw py::value_error("not an entity of this map");
                e.get();
                h->dirty = true;
                auto& ents = h->doc.map().entities;
                h->removed_entities.push_back(std::move(ents[static_cast<std::size_t>(e.index)]));
                ents.erase(ents.begin() + e.index);
            },
            py::arg("entity"))
        .def_property_readonly("visgroups",
                               [](const Holder& h) {
                                   py::list out;
                                   for (const auto& v : h->doc.map().visgroups)
                                       out.append(visgroup_dict(v));
                                   return out;
                               })
        .def_property_readonly("versioninfo",
                               [](const Holder& h) {
                                   py::dict d;
                                   for (const auto& kv : h->doc.map().versioninfo) {
                                       d[to_str(kv.key)] = to_str(kv.value);
                                   }
                                   return d;
                               })
        .def_property_readonly("stats",
                               [](const Holder& h) {
                                   const Stats s = stats(h->doc.map());
                                   py::dict d;
                                   d["solids"] = s.solids;
                                   d["sides"] = s.sides;
                                   d["entities"] = s.entities;
                                   d["displacements"] = s.displacements;
                                   d["overlays"] = s.overlays;
                                   d["instances"] = s.instances;
                                   d["visgroups"] = s.visgroups;
                                   d["cameras"] = s.cameras;
                                   d["connections"] = s.connections;
                                   d["hidden"] = s.hidden;
                                   return d;
                               })
        .def_property_readonly("modified", &VmfHolder::modified,
                               "True once the typed model differs from the file as read")
        .def_property_readonly("warnings",
                               [](const VmfHolder& h) { return diagnostics(h.warnings); })
        .def("validate",
             [](const VmfHolder& h) {
                 lk::Diagnostics out;
                 {
                     py::gil_scoped_release release;
                     validate(h.doc.map(), out, h.modified() ? nullptr : &h.doc.tree());
                 }
                 return diagnostics(out.items());
             })
        .def(
            "to_bytes",
            [](const VmfHolder& h) {
                std::string text;
                {
                    py::gil_scoped_release release;
                    text = h.write();
                }
                return py::bytes(text);
            },
            "The file: the source bytes while unmodified, else the model in Hammer's layout")
        .def(
            "write",
            [](const VmfHolder& h, const py::object& path) {
                std::string text;
                {
                    py::gil_scoped_release release;
                    text = h.write();
                }
                write_output(path, text);
            },
            py::arg("path"), "Writes the file atomically (see to_bytes)")
        .def("__repr__", [](const VmfHolder& h) {
            return "<levelkit.VmfDocument " + h.name + ": " +
                   std::to_string(h.doc.map().entities.size()) + " entities, " +
                   std::to_string(h.doc.map().world.solids.size()) + " world solids>";
        });

    py::class_<EntityRef>(m, "VmfEntity",
                          "A VMF entity: ordered keyvalues (duplicates kept), outputs, solids")
        .def("__getitem__",
             [](const EntityRef& r, const std::string& key) {
                 const std::string* v = find_key(r.get().keys, key);
                 if (!v) throw py::key_error(key);
                 return to_str(*v);
             })
        .def("__setitem__",
             [](const EntityRef& r, const std::string& key, const py::handle& value) {
                 set_value(r.edit(), to_text(py::str(key)), value);
             })
        .def("__delitem__",
             [](const EntityRef& r, const std::string& key) {
                 Entity& e = r.edit();
                 if (!find_key(e.keys, key)) throw py::key_error(key);
                 lk::erase_key(e.keys, key);
             })
        .def("__contains__",
             [](const EntityRef& r, const std::string& key) {
                 return find_key(r.get().keys, key) != nullptr;
             })
        .def("__len__", [](const EntityRef& r) { return r.get().keys.size(); })
        .def("__iter__",
             [](const EntityRef& r) {
                 py::list keys;
                 for (const auto& kv : r.get().keys) keys.append(to_str(kv.key));
                 return py::iter(keys);
             })
        .def(
            "get",
            [](const EntityRef& r, const std::string& key,
               const py::object& fallback) -> py::object {
                const std::string* v = find_key(r.get().keys, key);
                return v ? py::object(to_str(*v)) : fallback;
            },
            py::arg("key"), py::arg("default") = py::none())
        .def(
            "get_all",
            [](const EntityRef& r, const std::string& key) {
                py::list out;
                for (const auto& kv : r.get().keys) {
                    if (lk::iequals(kv.key, key)) out.append(to_str(kv.value));
                }
                return out;
            },
            py::arg("key"), "Every value of a key, in order (duplicate keys are kept)")
        .def(
            "add",
            [](const EntityRef& r, const std::string& key, const py::handle& value) {
                r.edit().keys.push_back({to_text(py::str(key)), to_kv_value(value)});
            },
            py::arg("key"), py::arg("value"), "Appends a keyvalue even if the key exists")
        .def("keys",
             [](const EntityRef& r) {
                 py::list out;
                 for (const auto& kv : r.get().keys) out.append(to_str(kv.key));
                 return out;
             })
        .def("values",
             [](const EntityRef& r) {
                 py::list out;
                 for (const auto& kv : r.get().keys) out.append(to_str(kv.value));
                 return out;
             })
        .def("items",
             [](const EntityRef& r) {
                 py::list out;
                 for (const auto& kv : r.get().keys) {
                     out.append(py::make_tuple(to_str(kv.key), to_str(kv.value)));
                 }
                 return out;
             })
        .def_property_readonly("id", [](const EntityRef& r) { return r.get().id(); })
        .def_property_readonly("classname",
                               [](const EntityRef& r) { return to_str(r.get().classname()); })
        .def_property_readonly("is_world", [](const EntityRef& r) { return r.index < 0; })
        .def_property_readonly("origin",
                               [](const EntityRef& r) -> py::object {
                                   auto o = r.get().origin_vec();
                                   return o ? py::object(vec3(*o)) : py::none();
                               })
        .def_property(
            "hidden", [](const EntityRef& r) { return r.get().hidden; },
            [](const EntityRef& r, bool v) { r.edit().hidden = v; })
        .def_property(
            "visgroup_ids", [](const EntityRef& r) { return r.get().editor.visgroup_ids; },
            [](const EntityRef& r, std::vector<std::int64_t> ids) {
                r.edit().editor.present = true;
                r.edit().editor.visgroup_ids = std::move(ids);
            })
        .def_property_readonly("outputs",
                               [](const EntityRef& r) {
                                   py::list out;
                                   for (std::size_t i = 0; i < r.get().connections.size(); ++i) {
                                       out.append(py::cast(OutputRef{r, i}));
                                   }
                                   return out;
                               })
        .def(
            "add_output",
            [](const EntityRef& r, const std::string& output, const std::string& target,
               const std::string& input, const std::string& param, double delay, int times) {
                Entity& e = r.edit();
                Connection c;
                c.output = to_text(py::str(output));
                c.target = to_text(py::str(target));
                c.input = to_text(py::str(input));
                c.param = to_text(py::str(param));
                c.delay = delay;
                c.times = times;
                // The map's separator: what its outputs use already (ESC when it has none and
                // was saved by a Hammer that writes ESC, else ',').
                char sep = '\x1b';
                bool found = false;
                auto scan = [&](const Entity& x) {
                    for (const auto& o : x.connections) {
                        if (!found && o.parsed) {
                            sep = o.separator;
                            found = true;
                        }
                    }
                };
                scan(r.h->doc.map().world);
                for (const auto& x : r.h->doc.map().entities) scan(x);
                if (!found && r.h->doc.map().editor_build() > 0 &&
                    r.h->doc.map().editor_build() < 5000) {
                    sep = ',';
                }
                c.separator = sep;
                e.connections.push_back(std::move(c));
                e.has_connections = true;
                return OutputRef{r, e.connections.size() - 1};
            },
            py::arg("output"), py::arg("target"), py::arg("input"), py::arg("param") = "",
            py::arg("delay") = 0.0, py::arg("times") = -1)
        .def(
            "remove_output",
            [](const EntityRef& r, const OutputRef& o) {
                o.get();
                auto& c = r.edit().connections;
                c.erase(c.begin() + static_cast<std::ptrdiff_t>(o.index));
            },
            py::arg("output"))
        .def_property_readonly("solids",
                               [](const EntityRef& r) {
                                   py::list out;
                                   for (std::size_t i = 0; i < r.get().solids.size(); ++i) {
                                       out.append(py::cast(SolidRef{r, i}));
                                   }
                                   return out;
                               })
        .def(
            "add_brush",
            [](const EntityRef& r, const py::handle& mins, const py::handle& maxs,
               const std::string& material) {
                lk::Aabb box;
                box.add(to_vec3(mins));
                box.add(to_vec3(maxs));
                const lk::Vec3 size = box.size();
                if (!(size.x > 0 && size.y > 0 && size.z > 0)) {
                    throw py::value_error("a brush needs a positive size on every axis");
                }
                NextIds ids = next_ids(r.h->doc.map());
                Entity& e = r.edit();
                e.solids.push_back(box_solid(box, to_text(py::str(material)), ids));
                return SolidRef{r, e.solids.size() - 1};
            },
            py::arg("mins"), py::arg("maxs"), py::arg("material") = "TOOLS/TOOLSNODRAW",
            "Adds an axis-aligned box brush (Hammer's block tool) with fresh ids")
        .def(
            "remove_solid",
            [](const EntityRef& r, const SolidRef& s) {
                s.get();
                auto& v = r.edit().solids;
                r.h->removed_solids.push_back(std::move(v[s.index]));
                v.erase(v.begin() + static_cast<std::ptrdiff_t>(s.index));
            },
            py::arg("solid"))
        .def("__eq__", [](const EntityRef& a,
                          const EntityRef& b) { return a.h == b.h && a.index == b.index; })
        .def("__hash__",
             [](const EntityRef& a) {
                 return std::hash<const void*>()(a.h.get()) ^ std::hash<int>()(a.index);
             })
        .def("__repr__", [](const EntityRef& r) { return repr_entity(r.get()); });

#define LK_OUTPUT_FIELD(name, member)                                    \
    def_property(                                                        \
        name, [](const OutputRef& o) { return to_str(o.get().member); }, \
        [](const OutputRef& o, const py::handle& v) {                    \
            Connection& c = o.edit();                                    \
            c.member = to_text(v);                                       \
            c.parsed = true;                                             \
        })
    py::class_<OutputRef>(m, "VmfOutput",
                          "An entity output: output, target, input, param, delay, times")
        .LK_OUTPUT_FIELD("output", output)
        .LK_OUTPUT_FIELD("target", target)
        .LK_OUTPUT_FIELD("input", input)
        .LK_OUTPUT_FIELD("param", param)
        .def_property(
            "delay", [](const OutputRef& o) { return o.get().delay; },
            [](const OutputRef& o, double v) {
                o.edit().delay = v;
                o.edit().parsed = true;
            })
        .def_property(
            "times", [](const OutputRef& o) { return o.get().times; },
            [](const OutputRef& o, int v) {
                o.edit().times = v;
                o.edit().parsed = true;
            })
        .def_property_readonly(
            "value", [](const OutputRef& o) { return to_str(o.get().value_text()); },
            "The keyvalue's value as Hammer writes it")
        .def("__repr__", [](const OutputRef& o) {
            const Connection& c = o.get();
            std::string v = c.value_text();
            std::replace(v.begin(), v.end(), '\x1b', ',');
            return "<VmfOutput " + c.output + " -> " + v + ">";
        });
#undef LK_OUTPUT_FIELD

    py::class_<Polygons>(m, "BrushPolygons",
                         "A brush's face polygons: `points` (n, 3) and one slice per side")
        .def_property_readonly(
            "points",
            [](py::object self) { return vec3_array(self.cast<Polygons&>().polys.points, self); })
        .def_property_readonly("face_begin", [](const Polygons& p) { return p.polys.face_begin; })
        .def_property_readonly("valid", [](const Polygons& p) { return p.polys.valid(); })
        .def_property_readonly(
            "problems",
            [](const Polygons& p) {
                py::list out;
                for (const auto& pr : p.polys.problems) {
                    out.append(py::make_tuple(pr.side, std::string(lk::to_string(pr.problem))));
                }
                return out;
            })
        .def("__len__", [](const Polygons& p) { return p.polys.face_count(); })
        .def("__getitem__", [](py::object self, std::size_t i) {
            Polygons& p = self.cast<Polygons&>();
            if (i >= p.polys.face_count()) throw py::index_error();
            const std::uint32_t b = p.polys.face_begin[i], e = p.polys.face_begin[i + 1];
            return py::array(
                py::array_t<double>({static_cast<py::ssize_t>(e - b), py::ssize_t{3}},
                                    {py::ssize_t{sizeof(lk::Vec3)}, py::ssize_t{sizeof(double)}},
                                    reinterpret_cast<double*>(p.polys.points.data() + b), self));
        });

    py::class_<SolidRef>(m, "VmfSolid", "A brush: its sides and editor data")
        .def_property_readonly("id", [](const SolidRef& s) { return s.get().id; })
        .def_property_readonly("sides",
                               [](const SolidRef& s) {
                                   py::list out;
                                   for (std::size_t i = 0; i < s.get().sides.size(); ++i) {
                                       out.append(py::cast(SideRef{s, i}));
                                   }
                                   return out;
                               })
        .def_property(
            "hidden", [](const SolidRef& s) { return s.get().hidden; },
            [](const SolidRef& s, bool v) { s.edit().hidden = v; })
        .def_property(
            "visgroup_ids", [](const SolidRef& s) { return s.get().editor.visgroup_ids; },
            [](const SolidRef& s, std::vector<std::int64_t> ids) {
                s.edit().editor.present = true;
                s.edit().editor.visgroup_ids = std::move(ids);
            })
        .def(
            "polygons",
            [](const SolidRef& s, bool prefer_stored_vertices) {
                Polygons p;
                PolygonOptions opt;
                opt.prefer_stored_vertices = prefer_stored_vertices;
                const Solid copy = s.get();
                {
                    py::gil_scoped_release release;
                    solid_polygons(copy, p.polys, opt);
                }
                return p;
            },
            py::arg("prefer_stored_vertices") = false,
            "The polygons of every side (VBSP's brush clipping, in double precision)")
        .def("__repr__", [](const SolidRef& s) {
            return "<VmfSolid #" + std::to_string(s.get().id) + ", " +
                   std::to_string(s.get().sides.size()) + " sides>";
        });

    py::class_<SideRef>(m, "VmfSide", "A brush side: plane, material, texture axes, displacement")
        .def_property_readonly("id", [](const SideRef& s) { return s.get().id; })
        .def_property(
            "material", [](const SideRef& s) { return to_str(s.get().material); },
            [](const SideRef& s, const py::handle& v) { s.edit().material = to_text(v); })
        .def_property(
            "plane_points",
            [](const SideRef& s) {
                const auto& p = s.get().plane_points;
                return py::make_tuple(vec3(p[0]), vec3(p[1]), vec3(p[2]));
            },
            [](const SideRef& s, const py::handle& v) {
                if (py::len(v) != 3) throw py::value_error("a plane is three points");
                auto& p = s.edit().plane_points;
                for (int i = 0; i < 3; ++i)
                    p[static_cast<std::size_t>(i)] = to_vec3(v[py::int_(i)]);
            })
        .def_property_readonly("normal",
                               [](const SideRef& s) -> py::object {
                                   auto p = s.get().plane();
                                   return p ? py::object(vec3(p->normal)) : py::none();
                               })
        .def_property_readonly("distance",
                               [](const SideRef& s) -> py::object {
                                   auto p = s.get().plane();
                                   return p ? py::object(py::float_(p->dist)) : py::none();
                               })
        .def_property(
            "uaxis", [](const SideRef& s) { return uv_tuple(s.get().uaxis); },
            [](const SideRef& s, const py::handle& v) { s.edit().uaxis = to_uv(v); })
        .def_property(
            "vaxis", [](const SideRef& s) { return uv_tuple(s.get().vaxis); },
            [](const SideRef& s, const py::handle& v) { s.edit().vaxis = to_uv(v); })
        .def_property(
            "rotation", [](const SideRef& s) { return s.get().rotation; },
            [](const SideRef& s, double v) { s.edit().rotation = v; })
        .def_property(
            "lightmapscale", [](const SideRef& s) { return s.get().lightmapscale; },
            [](const SideRef& s, double v) { s.edit().lightmapscale = v; })
        .def_property(
            "smoothing_groups", [](const SideRef& s) { return s.get().smoothing_groups; },
            [](const SideRef& s, std::uint32_t v) { s.edit().smoothing_groups = v; })
        .def_property_readonly("displacement",
                               [](const SideRef& s) -> py::object {
                                   if (!s.get().disp) return py::none();
                                   return py::cast(DispRef{s});
                               })
        .def("__repr__", [](const SideRef& s) {
            return "<VmfSide #" + std::to_string(s.get().id) + " " + s.get().material + ">";
        });

    py::class_<DispRef>(m, "VmfDisplacement",
                        "A side's displacement; per-vertex fields are NumPy views (no copy)")
        .def_property_readonly("power", [](const DispRef& d) { return d.get().power; })
        .def_property_readonly("grid_size", [](const DispRef& d) { return d.get().grid_size(); })
        .def_property_readonly("start_position",
                               [](const DispRef& d) { return vec3(d.get().start_position); })
        .def_property(
            "elevation", [](const DispRef& d) { return d.get().elevation; },
            [](const DispRef& d, double v) { d.edit().elevation = v; })
        .def_property_readonly(
            "normals",
            [](py::object self) { return vec3_array(self.cast<DispRef&>().get().normals, self); })
        .def_property_readonly("distances",
                               [](py::object self) {
                                   return double_array(self.cast<DispRef&>().get().distances, self);
                               })
        .def_property_readonly(
            "offsets",
            [](py::object self) { return vec3_array(self.cast<DispRef&>().get().offsets, self); })
        .def_property_readonly(
            "alphas",
            [](py::object self) { return double_array(self.cast<DispRef&>().get().alphas, self); })
        .def(
            "grid",
            [](const DispRef& d) -> py::object {
                Polygons p;
                const Solid solid = d.side.solid.get();
                solid_polygons(solid, p.polys);
                if (d.side.index >= p.polys.face_count()) return py::none();
                auto grid =
                    displacement_grid(solid.sides[d.side.index], p.polys.face(d.side.index));
                if (!grid) return py::none();
                Polygons owner;
                owner.polys.points = std::move(*grid);
                py::object o = py::cast(std::move(owner));
                return vec3_array(o.cast<Polygons&>().polys.points, o);
            },
            "The displaced vertex grid ((2^power+1)^2, 3), or None if the face is not a quad");
}

}  // namespace lkpy
