// BSP documents: header and lumps, the entity lump as editable entities (lossless KeyValues, so
// an unedited lump writes back as read), static props, texinfo/texdata, vertices as NumPy, the
// pakfile (list, read, add, remove) and LZMA (de)compression of the lumps.
#include <algorithm>
#include <memory>
#include <optional>

#include "common.hpp"
#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/entities.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/map.hpp"
#include "levelkit/bsp/pak.hpp"
#include "levelkit/bsp/props.hpp"
#include "levelkit/core/text.hpp"

namespace lkpy {

namespace {

namespace bsp = lk::bsp;

struct BspHolder {
    bsp::Bsp map;
    std::optional<bsp::EntityLump> ents;  // parsed on first use
    std::uint32_t generation = 0;         // bumped when `ents` is replaced (set_lump(0))
    std::vector<lk::Diagnostic> warnings;
    std::string name;

    bsp::EntityLump& entities() {
        if (!ents) ents = take(bsp::entities(map));
        return *ents;
    }
    // Stores edited entities as lump 0 (only when its bytes changed).
    void flush() {
        if (!ents) return;
        const lk::Bytes bytes = ents->write();
        const lk::ByteSpan now = map.lump(bsp::LumpId::entities).bytes();
        if (now.size() == bytes.size() && std::equal(now.begin(), now.end(), bytes.begin())) return;
        check(map.set_lump(bsp::LumpId::entities, lk::Blob::from_bytes(bytes)));
    }
    lk::Bytes write() {
        flush();
        lk::Result<lk::Bytes> r = lk::Diagnostic::error("io.unset", "");
        {
            py::gil_scoped_release release;
            r = map.write();
        }
        return take(std::move(r));
    }
};
using Holder = std::shared_ptr<BspHolder>;

struct BspEntityRef {
    Holder h;
    lk::kv::NodeId id = lk::kv::kNone;
    std::uint32_t generation = 0;
    lk::kv::Document& doc() const {
        lk::kv::Document& d = h->entities().document();
        if (generation != h->generation || id >= d.node_count()) {
            throw py::index_error("the entity lump was replaced: fetch the entities again");
        }
        return d;
    }
    lk::kv::Node node() const { return doc().node(id); }
};

py::object ns() {
    return py::module_::import("types").attr("SimpleNamespace");
}

py::bytes to_bytes(lk::ByteSpan b) {
    return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

std::string_view first_value(const lk::kv::Node& n, std::string_view key, bool* found = nullptr) {
    for (lk::kv::Node c : n) {
        if (c.is_value() && lk::iequals(c.key(), key)) {
            if (found) *found = true;
            return c.value();
        }
    }
    if (found) *found = false;
    return {};
}

py::list entity_list(const Holder& h, std::string_view key, std::string_view pattern) {
    py::list out;
    for (lk::kv::Node n : h->entities().entities()) {
        if (!key.empty()) {
            bool found = false;
            std::string_view v = first_value(n, key, &found);
            if (!found) continue;
            std::string_view p = pattern;
            if (!p.empty() && p.back() == '*') {
                p.remove_suffix(1);
                if (v.size() < p.size() || !lk::iequals(v.substr(0, p.size()), p)) continue;
            } else if (!lk::iequals(v, p)) {
                continue;
            }
        }
        out.append(py::cast(BspEntityRef{h, n.id(), h->generation}));
    }
    return out;
}

lk::Result<bsp::Pak> pak_of(const BspHolder& h) {
    return bsp::pakfile(h.map);
}

std::string pak_name(const std::string& name) {
    std::string n = name;
    std::replace(n.begin(), n.end(), '\\', '/');
    if (!bsp::safe_entry_name(n)) {
        raise(lk::Diagnostic::error("usage.unsafe-name",
                                    "entry names must be relative paths without '..': " + n));
    }
    return n;
}

// A (n, k) float32 view of lump records, kept alive by a capsule owning the LumpView.
template <class T>
py::array float_view(bsp::LumpView<T> view, std::size_t columns) {
    auto* owned = new bsp::LumpView<T>(std::move(view));
    py::capsule base(owned, [](void* p) { delete static_cast<bsp::LumpView<T>*>(p); });
    py::array_t<float> a(
        {static_cast<py::ssize_t>(owned->size()), static_cast<py::ssize_t>(columns)},
        {static_cast<py::ssize_t>(sizeof(T)), py::ssize_t{sizeof(float)}},
        reinterpret_cast<const float*>(owned->span().data()), base);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return a;
}

}  // namespace

py::object read_bsp(Input in) {
    auto h = std::make_shared<BspHolder>();
    h->name = in.name;
    lk::Diagnostics warnings;
    lk::Result<bsp::Bsp> r = lk::Diagnostic::error("io.unset", "");
    {
        py::gil_scoped_release release;
        r = bsp::read(std::move(in.blob), warnings);
    }
    h->map = take_read(std::move(r), in);
    h->warnings = read_warnings(warnings, in);
    return py::cast(h);
}

void bind_bsp(py::module_& m) {
    py::class_<BspHolder, Holder>(m, "BspDocument", "A compiled Source map")
        .def_property_readonly("format", [](const BspHolder&) { return "bsp"; })
        .def_readonly("name", &BspHolder::name)
        .def_property_readonly("version", [](const BspHolder& h) { return h.map.version(); })
        .def_property_readonly(
            "magic", [](const BspHolder& h) { return std::string(h.map.magic().data(), 4); })
        .def_property_readonly(
            "endian",
            [](const BspHolder& h) { return h.map.endian() == lk::Endian::big ? "big" : "little"; })
        .def_property(
            "map_revision", [](const BspHolder& h) { return h.map.map_revision(); },
            [](BspHolder& h, std::int32_t r) { h.map.set_map_revision(r); })
        .def_property_readonly(
            "lumps",
            [](const BspHolder& h) {
                py::list out;
                const auto& headers = h.map.headers_as_read();
                for (int i = 0; i < bsp::kLumpCount; ++i) {
                    const bsp::Lump& l = h.map.lump(i);
                    py::dict d;
                    d["index"] = i;
                    d["size"] = l.size();
                    d["version"] = l.version;
                    d["compressed"] = l.compression() == bsp::Compression::lzma;
                    if (static_cast<std::size_t>(i) < headers.size()) {
                        d["offset"] = headers[static_cast<std::size_t>(i)].offset;
                        d["length"] = headers[static_cast<std::size_t>(i)].length;
                    } else {
                        d["offset"] = py::none();
                        d["length"] = py::none();
                    }
                    out.append(ns()(**d));
                }
                return out;
            },
            "The 64 lumps: index, size (uncompressed), version, compressed, offset/length as read")
        .def(
            "lump_bytes",
            [](BspHolder& h, int index) {
                if (index < 0 || index >= bsp::kLumpCount) throw py::index_error("lump index");
                if (index == 0) h.flush();
                return to_bytes(h.map.lump(index).bytes());
            },
            py::arg("index"), "A lump's contents (decompressed)")
        .def(
            "set_lump",
            [](BspHolder& h, int index, const py::bytes& data) {
                if (index < 0 || index >= bsp::kLumpCount) throw py::index_error("lump index");
                if (index == 0) {
                    h.ents.reset();
                    ++h.generation;
                }
                check(h.map.set_lump(static_cast<bsp::LumpId>(index),
                                     lk::Blob::copy_of(std::string_view(data))));
            },
            py::arg("index"), py::arg("data"))
        .def_property_readonly("entities", [](const Holder& h) { return entity_list(h, {}, {}); })
        .def(
            "by_class",
            [](const Holder& h, const std::string& cls) {
                return entity_list(h, "classname", cls);
            },
            py::arg("classname"))
        .def(
            "by_target",
            [](const Holder& h, const std::string& name) {
                return entity_list(h, "targetname", name);
            },
            py::arg("targetname"))
        .def(
            "add_entity",
            [](const Holder& h, const std::string& classname, const py::kwargs& keys) {
                lk::kv::Document& doc = h->entities().document();
                const lk::kv::NodeId id = doc.add_block(doc.root().id(), "");
                doc.add_value(id, "classname", to_text(py::str(classname)));
                for (auto [k, v] : keys) doc.add_value(id, to_text(k), to_kv_value(v));
                return BspEntityRef{h, id, h->generation};
            },
            py::arg("classname"))
        .def(
            "remove_entity",
            [](const Holder& h, const BspEntityRef& e) {
                if (e.h != h) throw py::value_error("not an entity of this map");
                e.doc().remove(e.id);
            },
            py::arg("entity"))
        .def_property_readonly(
            "static_props",
            [](const BspHolder& h) {
                const bsp::StaticProps sp = take(bsp::static_props(h.map));
                py::list out;
                for (const auto& p : sp.props) {
                    py::dict d;
                    d["model"] = p.m_PropType < sp.dict.size() ? to_str(sp.model_name(p.m_PropType))
                                                               : py::str();
                    d["origin"] = py::make_tuple(p.m_Origin.x, p.m_Origin.y, p.m_Origin.z);
                    d["angles"] = py::make_tuple(p.m_Angles.x, p.m_Angles.y, p.m_Angles.z);
                    d["skin"] = p.m_Skin;
                    d["solid"] = p.m_Solid;
                    d["flags"] = p.m_Flags;
                    d["fade_min"] = p.m_FadeMinDist;
                    d["fade_max"] = p.m_FadeMaxDist;
                    d["lighting_origin"] = py::make_tuple(
                        p.m_LightingOrigin.x, p.m_LightingOrigin.y, p.m_LightingOrigin.z);
                    d["scale"] = py::make_tuple(p.m_flScale[0], p.m_flScale[1], p.m_flScale[2]);
                    out.append(ns()(**d));
                }
                return out;
            },
            "Static props of the sprp game lump (model, origin, angles, skin, solid, ...)")
        .def_property_readonly(
            "texinfo",
            [](const BspHolder& h) {
                const auto ti = take(bsp::texinfo(h.map));
                py::list out;
                for (const bsp::texinfo_t& t : ti.span()) {
                    py::dict d;
                    const auto& v = t.textureVecsTexelsPerWorldUnits;
                    const auto& l = t.lightmapVecsLuxelsPerWorldUnits;
                    d["s"] = py::make_tuple(v[0][0], v[0][1], v[0][2], v[0][3]);
                    d["t"] = py::make_tuple(v[1][0], v[1][1], v[1][2], v[1][3]);
                    d["lightmap_s"] = py::make_tuple(l[0][0], l[0][1], l[0][2], l[0][3]);
                    d["lightmap_t"] = py::make_tuple(l[1][0], l[1][1], l[1][2], l[1][3]);
                    d["flags"] = t.flags;
                    d["texdata"] = t.texdata;
                    out.append(ns()(**d));
                }
                return out;
            })
        .def_property_readonly("texdata",
                               [](const BspHolder& h) {
                                   const auto td = take(bsp::texdata(h.map));
                                   const auto names = take(bsp::texdata_strings(h.map));
                                   py::list out;
                                   for (const bsp::dtexdata_t& t : td.span()) {
                                       py::dict d;
                                       const auto i = static_cast<std::size_t>(t.nameStringTableID);
                                       d["name"] =
                                           t.nameStringTableID >= 0 && i < names.names.size()
                                               ? to_str(names.names[i])
                                               : py::str();
                                       d["width"] = t.width;
                                       d["height"] = t.height;
                                       d["view_width"] = t.view_width;
                                       d["view_height"] = t.view_height;
                                       d["reflectivity"] = py::make_tuple(
                                           t.reflectivity.x, t.reflectivity.y, t.reflectivity.z);
                                       out.append(ns()(**d));
                                   }
                                   return out;
                               })
        .def_property_readonly(
            "vertices",
            [](const BspHolder& h) { return float_view(take(bsp::vertexes(h.map)), 3); },
            "The vertex lump as a read-only (n, 3) float32 NumPy array (no copy)")
        .def("pak_list",
             [](const BspHolder& h) {
                 const bsp::Pak pak = take(pak_of(h));
                 py::list out;
                 for (const bsp::PakEntry& e : pak.entries()) {
                     py::dict d;
                     d["name"] = to_str(e.name());
                     d["size"] = e.size();
                     d["stored_size"] = e.central.compressed_size;
                     d["method"] = std::string(bsp::method_name(e.method()));
                     d["crc32"] = e.central.crc32;
                     out.append(ns()(**d));
                 }
                 return out;
             })
        .def("pak_names",
             [](const BspHolder& h) {
                 const bsp::Pak pak = take(pak_of(h));
                 py::list out;
                 for (const bsp::PakEntry& e : pak.entries()) out.append(to_str(e.name()));
                 return out;
             })
        .def(
            "pak_read",
            [](const BspHolder& h, const std::string& name) {
                const bsp::Pak pak = take(pak_of(h));
                const bsp::PakEntry* e = pak.find(name);
                if (!e) raise(lk::Diagnostic::error("pak.no-entry", "no pakfile entry " + name));
                lk::Result<lk::Bytes> r = lk::Diagnostic::error("io.unset", "");
                {
                    py::gil_scoped_release release;
                    r = bsp::Pak::contents(*e);
                }
                const lk::Bytes b = take(std::move(r));
                return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
            },
            py::arg("name"), "An entry's contents (decompressed, CRC-checked)")
        .def(
            "pak_add",
            [](BspHolder& h, const std::string& name, const py::bytes& data,
               const std::string& method) {
                const std::string n = pak_name(name);
                const auto mth = bsp::parse_method(method);
                if (!mth) {
                    raise(lk::Diagnostic::error(
                        "usage.bad-method",
                        "pakfile methods are stored, deflate and lzma, not " + method));
                }
                bsp::Pak pak = take(pak_of(h));
                const std::string_view bytes(data);
                {
                    py::gil_scoped_release release;
                    lk::Result<void> r = pak.put(n, lk::as_bytes(bytes), *mth);
                    if (r) r = bsp::set_pakfile(h.map, pak);
                    if (!r) {
                        py::gil_scoped_acquire acquire;
                        raise(r.error());
                    }
                }
            },
            py::arg("name"), py::arg("data"), py::arg("method") = "stored",
            "Adds or replaces a pakfile entry (method: stored, deflate or lzma)")
        .def(
            "pak_remove",
            [](BspHolder& h, const std::string& name) {
                bsp::Pak pak = take(pak_of(h));
                if (!pak.remove(pak_name(name))) {
                    raise(lk::Diagnostic::error("pak.no-entry", "no pakfile entry " + name));
                }
                check(bsp::set_pakfile(h.map, pak));
            },
            py::arg("name"))
        .def(
            "compress",
            [](BspHolder& h) {
                h.flush();
                py::gil_scoped_release release;
                lk::Result<void> r = h.map.repack(bsp::Compression::lzma);
                if (!r) {
                    py::gil_scoped_acquire acquire;
                    raise(r.error());
                }
            },
            "LZMA-compresses every lump (Valve's bspzip -repack)")
        .def(
            "decompress",
            [](BspHolder& h) {
                h.flush();
                py::gil_scoped_release release;
                lk::Result<void> r = h.map.repack(bsp::Compression::none);
                if (!r) {
                    py::gil_scoped_acquire acquire;
                    raise(r.error());
                }
            },
            "Stores every lump uncompressed")
        .def_property_readonly("warnings",
                               [](const BspHolder& h) { return diagnostics(h.warnings); })
        .def("validate",
             [](BspHolder& h) {
                 h.flush();
                 lk::Diagnostics out;
                 {
                     py::gil_scoped_release release;
                     bsp::validate(h.map, out);
                 }
                 return diagnostics(out.items());
             })
        .def("to_bytes",
             [](BspHolder& h) {
                 const lk::Bytes b = h.write();
                 return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
             })
        .def(
            "write", [](BspHolder& h, const py::object& path) { write_output(path, h.write()); },
            py::arg("path"), "Writes the map atomically (an unchanged map gives the bytes read)")
        .def("__repr__", [](const BspHolder& h) {
            return "<levelkit.BspDocument " + h.name + ": VBSP " + std::to_string(h.map.version()) +
                   ">";
        });

    py::class_<BspEntityRef>(m, "BspEntity",
                             "An entity of the entity lump: ordered keyvalues, duplicates kept")
        .def("__getitem__",
             [](const BspEntityRef& r, const std::string& key) {
                 bool found = false;
                 const std::string_view v = first_value(r.node(), key, &found);
                 if (!found) throw py::key_error(key);
                 return to_str(v);
             })
        .def("__setitem__",
             [](const BspEntityRef& r, const std::string& key, const py::handle& value) {
                 const std::string v = to_kv_value(value);
                 for (lk::kv::Node c : r.node()) {
                     if (c.is_value() && lk::iequals(c.key(), key)) {
                         r.doc().set_value(c.id(), v);
                         return;
                     }
                 }
                 r.doc().add_value(r.id, to_text(py::str(key)), v);
             })
        .def("__delitem__",
             [](const BspEntityRef& r, const std::string& key) {
                 std::vector<lk::kv::NodeId> gone;
                 for (lk::kv::Node c : r.node()) {
                     if (c.is_value() && lk::iequals(c.key(), key)) gone.push_back(c.id());
                 }
                 if (gone.empty()) throw py::key_error(key);
                 for (auto id : gone) r.doc().remove(id);
             })
        .def("__contains__",
             [](const BspEntityRef& r, const std::string& key) {
                 bool found = false;
                 first_value(r.node(), key, &found);
                 return found;
             })
        .def("__len__",
             [](const BspEntityRef& r) {
                 std::size_t n = 0;
                 for (lk::kv::Node c : r.node()) n += c.is_value();
                 return n;
             })
        .def("__iter__",
             [](const BspEntityRef& r) {
                 py::list keys;
                 for (lk::kv::Node c : r.node()) {
                     if (c.is_value()) keys.append(to_str(c.key()));
                 }
                 return py::iter(keys);
             })
        .def(
            "get",
            [](const BspEntityRef& r, const std::string& key,
               const py::object& fallback) -> py::object {
                bool found = false;
                const std::string_view v = first_value(r.node(), key, &found);
                return found ? py::object(to_str(v)) : fallback;
            },
            py::arg("key"), py::arg("default") = py::none())
        .def("get_all",
             [](const BspEntityRef& r, const std::string& key) {
                 py::list out;
                 for (lk::kv::Node c : r.node()) {
                     if (c.is_value() && lk::iequals(c.key(), key)) out.append(to_str(c.value()));
                 }
                 return out;
             })
        .def("add",
             [](const BspEntityRef& r, const std::string& key, const py::handle& value) {
                 r.doc().add_value(r.id, to_text(py::str(key)), to_kv_value(value));
             })
        .def("keys",
             [](const BspEntityRef& r) {
                 py::list out;
                 for (lk::kv::Node c : r.node()) {
                     if (c.is_value()) out.append(to_str(c.key()));
                 }
                 return out;
             })
        .def("values",
             [](const BspEntityRef& r) {
                 py::list out;
                 for (lk::kv::Node c : r.node()) {
                     if (c.is_value()) out.append(to_str(c.value()));
                 }
                 return out;
             })
        .def("items",
             [](const BspEntityRef& r) {
                 py::list out;
                 for (lk::kv::Node c : r.node()) {
                     if (c.is_value())
                         out.append(py::make_tuple(to_str(c.key()), to_str(c.value())));
                 }
                 return out;
             })
        .def_property_readonly(
            "classname",
            [](const BspEntityRef& r) { return to_str(first_value(r.node(), "classname")); })
        .def_property_readonly(
            "outputs",
            [](const BspEntityRef& r) {
                py::list out;
                for (lk::kv::Node c : r.node()) {
                    if (!c.is_value()) continue;
                    auto o = bsp::EntityLump::parse_output(c.key(), c.value());
                    if (!o) continue;
                    py::dict d;
                    d["output"] = to_str(o->output);
                    d["target"] = to_str(o->target);
                    d["input"] = to_str(o->input);
                    d["param"] = to_str(o->parameter);
                    d["delay"] = o->delay;
                    d["times"] = o->times;
                    out.append(ns()(**d));
                }
                return out;
            },
            "The keyvalues that are outputs, parsed (edit them as keyvalues)")
        .def("__eq__", [](const BspEntityRef& a,
                          const BspEntityRef& b) { return a.h == b.h && a.id == b.id; })
        .def("__hash__",
             [](const BspEntityRef& a) {
                 return std::hash<const void*>()(a.h.get()) ^ std::hash<std::uint32_t>()(a.id);
             })
        .def("__repr__", [](const BspEntityRef& r) {
            std::string s = "<BspEntity " + std::string(first_value(r.node(), "classname"));
            const std::string_view name = first_value(r.node(), "targetname");
            if (!name.empty()) s += " '" + std::string(name) + "'";
            return s + ">";
        });
}

}  // namespace lkpy
