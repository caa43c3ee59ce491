// DMX documents (and VMAPs, which are DMX files): elements with typed attributes. Scalars become
// Python values, arrays of numbers and vectors NumPy views of the attribute's storage (no copy),
// arrays of elements and strings lists. Writing re-encodes losslessly (byte-identical when
// nothing changed).
#include <memory>

#include "common.hpp"
#include "levelkit/dmx/document.hpp"
#include "levelkit/dmx/io.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"
#include "levelkit/vmap/vmap.hpp"

namespace lkpy {

namespace {

namespace dmx = lk::dmx;

struct DmxHolder {
    dmx::Document doc;
    std::vector<lk::Diagnostic> warnings;
    std::string name;
    bool vmap = false;
    // Replaced and removed attribute values are kept until the document goes: NumPy views
    // handed out point into their arrays.
    std::vector<dmx::Value> replaced;
};
using Holder = std::shared_ptr<DmxHolder>;

struct ElemHandle {
    Holder h;
    std::int32_t index = -1;
    dmx::Element& get() const {
        dmx::Element* e = h->doc.get(dmx::ElementRef{index});
        if (!e) throw py::index_error("no such element");
        return *e;
    }
};

py::object element_or_none(const Holder& h, dmx::ElementRef r) {
    if (r.is_null() || !h->doc.valid(r)) return py::none();
    return py::cast(ElemHandle{h, r.index});
}

template <class T, class S>
py::array view(std::vector<T>& v, std::vector<py::ssize_t> inner, const py::object& base) {
    std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(v.size())};
    std::vector<py::ssize_t> strides{static_cast<py::ssize_t>(sizeof(T))};
    py::ssize_t stride = sizeof(S);
    for (auto it = inner.rbegin(); it != inner.rend(); ++it) (void)it;
    // inner dims are row-major inside one T
    std::vector<py::ssize_t> inner_strides(inner.size());
    for (std::size_t i = inner.size(); i-- > 0;) {
        inner_strides[i] = stride;
        stride *= inner[i];
    }
    shape.insert(shape.end(), inner.begin(), inner.end());
    strides.insert(strides.end(), inner_strides.begin(), inner_strides.end());
    return py::array_t<S>(shape, strides, reinterpret_cast<S*>(v.data()), base);
}

py::object to_py(const Holder& h, dmx::Value& v, const py::object& base) {
    using namespace dmx;
    switch (v.type()) {
        case Type::element:
            return element_or_none(h, v.get<ElementRef>());
        case Type::int32:
            return py::int_(v.get<std::int32_t>());
        case Type::float32:
            return py::float_(v.get<float>());
        case Type::boolean:
            return py::bool_(v.get<bool>());
        case Type::string:
            return to_str(v.get<std::string>());
        case Type::binary: {
            const auto& b = v.get<Binary>();
            return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
        }
        case Type::time:
            return py::float_(v.get<Time>().seconds());
        case Type::color: {
            const Color c = v.get<Color>();
            return py::make_tuple(c.r, c.g, c.b, c.a);
        }
        case Type::vector2: {
            const auto& x = v.get<Vector2>();
            return py::make_tuple(x.x, x.y);
        }
        case Type::vector3: {
            const auto& x = v.get<Vector3>();
            return py::make_tuple(x.x, x.y, x.z);
        }
        case Type::vector4: {
            const auto& x = v.get<Vector4>();
            return py::make_tuple(x.x, x.y, x.z, x.w);
        }
        case Type::qangle: {
            const auto& x = v.get<QAngle>();
            return py::make_tuple(x.x, x.y, x.z);
        }
        case Type::quaternion: {
            const auto& x = v.get<Quaternion>();
            return py::make_tuple(x.x, x.y, x.z, x.w);
        }
        case Type::matrix: {
            py::tuple t(16);
            const auto& mm = v.get<Matrix>().m;
            for (std::size_t i = 0; i < 16; ++i) t[i] = mm[i];
            return t;
        }
        case Type::uint64:
            return py::int_(v.get<std::uint64_t>());
        case Type::uint8:
            return py::int_(v.get<std::uint8_t>());
        case Type::elementid:
            return py::str(v.get<Guid>().to_string());
        case Type::element_array: {
            py::list out;
            for (ElementRef r : v.get<std::vector<ElementRef>>()) out.append(element_or_none(h, r));
            return out;
        }
        case Type::int32_array:
            return view<std::int32_t, std::int32_t>(v.get<std::vector<std::int32_t>>(), {}, base);
        case Type::float32_array:
            return view<float, float>(v.get<std::vector<float>>(), {}, base);
        case Type::boolean_array: {
            py::list out;
            for (bool b : v.get<std::vector<bool>>()) out.append(py::bool_(b));
            return out;
        }
        case Type::string_array: {
            py::list out;
            for (const auto& s : v.get<std::vector<std::string>>()) out.append(to_str(s));
            return out;
        }
        case Type::binary_array: {
            py::list out;
            for (const auto& b : v.get<std::vector<Binary>>()) {
                out.append(py::bytes(reinterpret_cast<const char*>(b.data()), b.size()));
            }
            return out;
        }
        case Type::time_array: {
            py::list out;
            for (Time t : v.get<std::vector<Time>>()) out.append(t.seconds());
            return out;
        }
        case Type::color_array:
            return view<Color, std::uint8_t>(v.get<std::vector<Color>>(), {4}, base);
        case Type::vector2_array:
            return view<Vector2, float>(v.get<std::vector<Vector2>>(), {2}, base);
        case Type::vector3_array:
            return view<Vector3, float>(v.get<std::vector<Vector3>>(), {3}, base);
        case Type::vector4_array:
            return view<Vector4, float>(v.get<std::vector<Vector4>>(), {4}, base);
        case Type::qangle_array:
            return view<QAngle, float>(v.get<std::vector<QAngle>>(), {3}, base);
        case Type::quaternion_array:
            return view<Quaternion, float>(v.get<std::vector<Quaternion>>(), {4}, base);
        case Type::matrix_array:
            return view<Matrix, float>(v.get<std::vector<Matrix>>(), {4, 4}, base);
        case Type::uint64_array:
            return view<std::uint64_t, std::uint64_t>(v.get<std::vector<std::uint64_t>>(), {},
                                                      base);
        case Type::uint8_array:
            return view<std::uint8_t, std::uint8_t>(v.get<std::vector<std::uint8_t>>(), {}, base);
        case Type::elementid_array: {
            py::list out;
            for (const Guid& g : v.get<std::vector<Guid>>()) out.append(g.to_string());
            return out;
        }
    }
    return py::none();
}

dmx::ElementRef to_ref(const Holder& h, const py::handle& o) {
    if (o.is_none()) return dmx::ElementRef::null();
    const ElemHandle& r = o.cast<const ElemHandle&>();
    if (r.h != h) throw py::value_error("the element belongs to another document");
    return {r.index};
}

template <class S, std::size_t N>
std::array<S, N> fixed(const py::handle& o) {
    py::array_t<S, py::array::c_style | py::array::forcecast> a(
        py::reinterpret_borrow<py::object>(o));
    if (static_cast<std::size_t>(a.size()) != N) {
        throw py::value_error("expected " + std::to_string(N) + " numbers");
    }
    std::array<S, N> out{};
    std::memcpy(static_cast<void*>(out.data()), a.data(), sizeof(S) * N);
    return out;
}

template <class T, class S, std::size_t N>
std::vector<T> fixed_array(const py::handle& o) {
    static_assert(sizeof(T) == sizeof(S) * N);
    py::array_t<S, py::array::c_style | py::array::forcecast> a(
        py::reinterpret_borrow<py::object>(o));
    if (a.size() % static_cast<py::ssize_t>(N) != 0) {
        throw py::value_error("expected groups of " + std::to_string(N) + " numbers");
    }
    std::vector<T> out(static_cast<std::size_t>(a.size()) / N);
    if (!out.empty()) std::memcpy(static_cast<void*>(out.data()), a.data(), sizeof(T) * out.size());
    return out;
}

// An integer attribute from an int, or from a float with no fraction (7.0).
template <class I>
I to_int(const py::handle& o) {
    if (py::isinstance<py::float_>(o)) {
        const double d = o.cast<double>();
        if (d != static_cast<double>(static_cast<std::int64_t>(d))) {
            throw py::value_error("an integer attribute cannot hold " + std::to_string(d));
        }
        return py::int_(py::reinterpret_borrow<py::object>(o)).cast<I>();
    }
    return o.cast<I>();
}

dmx::Binary to_binary(const py::handle& o) {
    const std::string s = py::bytes(py::reinterpret_borrow<py::object>(o)).cast<std::string>();
    dmx::Binary b(s.size());
    std::memcpy(b.data(), s.data(), s.size());
    return b;
}

dmx::Time to_time(const py::handle& o) {
    const double ticks = o.cast<double>() * dmx::Time::kTicksPerSecond;
    return {static_cast<std::int32_t>(ticks < 0 ? ticks - 0.5 : ticks + 0.5)};
}

dmx::Guid to_guid(const py::handle& o) {
    auto g = dmx::Guid::parse(o.cast<std::string>());
    if (!g) throw py::value_error("not an element id (8-4-4-4-12 hex)");
    return *g;
}

dmx::Value from_py(const Holder& h, dmx::Type t, const py::handle& o) {
    using namespace dmx;
    switch (t) {
        case Type::element:
            return to_ref(h, o);
        case Type::int32:
            return to_int<std::int32_t>(o);
        case Type::float32:
            return o.cast<float>();
        case Type::boolean:
            return o.cast<bool>();
        case Type::string:
            return to_text(o);
        case Type::binary:
            return to_binary(o);
        case Type::time:
            return to_time(o);
        case Type::color: {
            auto a = fixed<std::uint8_t, 4>(o);
            return Color{a[0], a[1], a[2], a[3]};
        }
        case Type::vector2: {
            auto a = fixed<float, 2>(o);
            return Vector2{a[0], a[1]};
        }
        case Type::vector3: {
            auto a = fixed<float, 3>(o);
            return Vector3{a[0], a[1], a[2]};
        }
        case Type::vector4: {
            auto a = fixed<float, 4>(o);
            return Vector4{a[0], a[1], a[2], a[3]};
        }
        case Type::qangle: {
            auto a = fixed<float, 3>(o);
            return QAngle{a[0], a[1], a[2]};
        }
        case Type::quaternion: {
            auto a = fixed<float, 4>(o);
            return Quaternion{a[0], a[1], a[2], a[3]};
        }
        case Type::matrix: {
            Matrix mm;
            mm.m = fixed<float, 16>(o);
            return mm;
        }
        case Type::uint64:
            return to_int<std::uint64_t>(o);
        case Type::uint8:
            return to_int<std::uint8_t>(o);
        case Type::elementid:
            return to_guid(o);
        case Type::element_array: {
            std::vector<ElementRef> out;
            for (py::handle x : py::iter(o)) out.push_back(to_ref(h, x));
            return out;
        }
        case Type::int32_array:
            return fixed_array<std::int32_t, std::int32_t, 1>(o);
        case Type::float32_array:
            return fixed_array<float, float, 1>(o);
        case Type::boolean_array: {
            std::vector<bool> out;
            for (py::handle x : py::iter(o)) out.push_back(x.cast<bool>());
            return out;
        }
        case Type::string_array: {
            std::vector<std::string> out;
            for (py::handle x : py::iter(o)) out.push_back(to_text(x));
            return out;
        }
        case Type::binary_array: {
            std::vector<Binary> out;
            for (py::handle x : py::iter(o)) out.push_back(to_binary(x));
            return out;
        }
        case Type::time_array: {
            std::vector<Time> out;
            for (py::handle x : py::iter(o)) out.push_back(to_time(x));
            return out;
        }
        case Type::color_array:
            return fixed_array<Color, std::uint8_t, 4>(o);
        case Type::vector2_array:
            return fixed_array<Vector2, float, 2>(o);
        case Type::vector3_array:
            return fixed_array<Vector3, float, 3>(o);
        case Type::vector4_array:
            return fixed_array<Vector4, float, 4>(o);
        case Type::qangle_array:
            return fixed_array<QAngle, float, 3>(o);
        case Type::quaternion_array:
            return fixed_array<Quaternion, float, 4>(o);
        case Type::matrix_array:
            return fixed_array<Matrix, float, 16>(o);
        case Type::uint64_array:
            return fixed_array<std::uint64_t, std::uint64_t, 1>(o);
        case Type::uint8_array:
            return fixed_array<std::uint8_t, std::uint8_t, 1>(o);
        case Type::elementid_array: {
            std::vector<Guid> out;
            for (py::handle x : py::iter(o)) out.push_back(to_guid(x));
            return out;
        }
    }
    throw py::value_error("unknown DMX type");
}

// The type a Python value gets when the attribute is new and no type was named.
dmx::Type infer(const py::handle& o) {
    using dmx::Type;
    if (o.is_none() || py::isinstance<ElemHandle>(o)) return Type::element;
    if (py::isinstance<py::bool_>(o)) return Type::boolean;
    if (py::isinstance<py::int_>(o)) return Type::int32;
    if (py::isinstance<py::float_>(o)) return Type::float32;
    if (py::isinstance<py::str>(o)) return Type::string;
    if (py::isinstance<py::bytes>(o)) return Type::binary;
    if (py::isinstance<py::array>(o)) {
        py::array a = py::reinterpret_borrow<py::array>(o);
        const bool ints =
            py::dtype::of<std::int64_t>().kind() == a.dtype().kind() || a.dtype().kind() == 'u';
        if (a.ndim() == 1) return ints ? Type::int32_array : Type::float32_array;
        if (a.ndim() == 2 && a.shape(1) == 2) return Type::vector2_array;
        if (a.ndim() == 2 && a.shape(1) == 3) return Type::vector3_array;
        if (a.ndim() == 2 && a.shape(1) == 4) return Type::vector4_array;
        if (a.ndim() == 3 && a.shape(1) == 4 && a.shape(2) == 4) return Type::matrix_array;
        throw py::value_error("cannot infer a DMX type for this array shape; pass type=");
    }
    if (py::isinstance<py::tuple>(o)) {
        const auto n = py::len(o);
        if (n == 2) return Type::vector2;
        if (n == 3) return Type::vector3;
        if (n == 4) return Type::vector4;
    }
    if (py::isinstance<py::sequence>(o)) {
        py::sequence s = py::reinterpret_borrow<py::sequence>(o);
        if (py::len(s) == 0)
            throw py::value_error("cannot infer the type of an empty list; pass type=");
        const py::object first = s[0];
        if (first.is_none() || py::isinstance<ElemHandle>(first)) return Type::element_array;
        if (py::isinstance<py::str>(first)) return Type::string_array;
        if (py::isinstance<py::bool_>(first)) return Type::boolean_array;
        if (py::isinstance<py::int_>(first)) return Type::int32_array;
        if (py::isinstance<py::float_>(first)) return Type::float32_array;
        if (py::isinstance<py::bytes>(first)) return Type::binary_array;
        if (py::isinstance<py::tuple>(first) || py::isinstance<py::list>(first)) {
            const auto n = py::len(first);
            if (n == 2) return Type::vector2_array;
            if (n == 3) return Type::vector3_array;
            if (n == 4) return Type::vector4_array;
        }
    }
    throw py::type_error("cannot infer a DMX type for this value; pass type=");
}

void set_attr(const ElemHandle& r, const std::string& name, const py::handle& value,
              const py::object& type) {
    dmx::Element& e = r.get();
    dmx::Type t;
    if (!type.is_none()) {
        auto tt = dmx::type_from_name(type.cast<std::string>());
        if (!tt) throw py::value_error("unknown DMX type " + type.cast<std::string>());
        t = *tt;
    } else if (const dmx::Attribute* a = e.find(name)) {
        t = a->value.type();
    } else {
        t = infer(value);
    }
    dmx::Value v = from_py(r.h, t, value);
    if (dmx::Attribute* old = r.get().find(name)) r.h->replaced.push_back(std::move(old->value));
    r.get().set(name, std::move(v));
}

py::object ns(py::dict d) {
    return py::module_::import("types").attr("SimpleNamespace")(**d);
}

// The entities and meshes of a VMAP (vmap::Map over the document): what they are, and the
// elements that hold them, so edits go through DmxElement.
py::dict vmap_view(const Holder& h) {
    lk::Diagnostics warnings;
    const lk::vmap::Map map = take(lk::vmap::read(h->doc, warnings));
    py::list entities, meshes;
    for (std::uint32_t i : map.entities) {
        const lk::vmap::Node& n = map.nodes[i];
        py::dict d;
        d["element"] = element_or_none(h, n.element);
        d["classname"] = to_str(map.classname(n.element));
        py::list props;
        for (auto [k, v] : map.properties(n.element))
            props.append(py::make_tuple(to_str(k), to_str(v)));
        d["properties"] = props;
        const dmx::Element& e = map.element(n);
        const dmx::Attribute* kv = e.find("entity_properties");
        d["keyvalues"] = kv && kv->value.get_if<dmx::ElementRef>()
                             ? element_or_none(h, kv->value.get<dmx::ElementRef>())
                             : py::none();
        const lk::vmap::Transform t = map.transform(n.element);
        d["origin"] = vec3(t.origin);
        d["angles"] = vec3(t.angles);
        d["scales"] = vec3(t.scales);
        py::list conns;
        for (const auto& c : map.connections(n.element)) {
            py::dict cd;
            cd["output"] = to_str(c.output);
            cd["target"] = to_str(c.target);
            cd["input"] = to_str(c.input);
            cd["param"] = to_str(c.param);
            cd["delay"] = c.delay;
            cd["times"] = c.times;
            conns.append(ns(cd));
        }
        d["outputs"] = conns;
        entities.append(ns(d));
    }
    for (std::uint32_t i : map.meshes) {
        const lk::vmap::Node& n = map.nodes[i];
        py::dict d;
        d["element"] = element_or_none(h, n.element);
        d["mesh"] = element_or_none(h, map.mesh_data(n.element));
        const lk::vmap::Transform t = map.transform(n.element);
        d["origin"] = vec3(t.origin);
        d["angles"] = vec3(t.angles);
        d["scales"] = vec3(t.scales);
        meshes.append(ns(d));
    }
    py::dict out;
    out["entities"] = entities;
    out["meshes"] = meshes;
    out["world"] = element_or_none(h, map.world);
    return out;
}

// A DMX model's skeleton, meshes (vertex data element, fields, face sets), shapes, clips.
py::object model_view(const Holder& h) {
    lk::Diagnostics warnings;
    const lk::dmxmodel::Model m = take(lk::dmxmodel::open(h->doc, warnings));
    py::list nodes;
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
        const auto& n = m.nodes[i];
        py::dict d;
        d["name"] = to_str(n.name);
        d["kind"] = n.kind == lk::dmxmodel::NodeKind::model   ? "model"
                    : n.kind == lk::dmxmodel::NodeKind::joint ? "joint"
                                                              : "dag";
        d["parent"] = n.parent;
        d["element"] = element_or_none(h, n.element);
        d["transform"] = element_or_none(h, n.transform);
        d["path"] = to_str(m.node_path(static_cast<std::uint32_t>(i)));
        nodes.append(ns(d));
    }
    py::list meshes;
    for (const auto& mesh : m.meshes) {
        py::dict d;
        d["node"] = mesh.node;
        d["element"] = element_or_none(h, mesh.element);
        d["vertex_data"] = element_or_none(h, mesh.bind.element);
        py::list fields;
        for (const auto& f : mesh.bind.fields) fields.append(to_str(f.name));
        d["fields"] = fields;
        py::list sets;
        for (const auto& fs : mesh.face_sets) {
            py::dict sd;
            sd["material"] = to_str(fs.material_name);
            sd["element"] = element_or_none(h, fs.element);
            sets.append(ns(sd));
        }
        d["face_sets"] = sets;
        py::list shapes;
        for (const auto& delta : mesh.deltas) {
            py::dict dd;
            dd["name"] = to_str(delta.name);
            dd["element"] = element_or_none(h, delta.element);
            shapes.append(ns(dd));
        }
        d["shapes"] = shapes;
        meshes.append(ns(d));
    }
    py::list clips;
    for (const auto& c : m.clips) {
        py::dict d;
        d["name"] = to_str(c.name);
        d["frame_rate"] = c.frame_rate;
        d["frame_count"] = c.frame_count();
        d["channels"] = c.channels.size();
        d["element"] = element_or_none(h, c.element);
        clips.append(ns(d));
    }
    py::list attachments;
    for (const auto& a : m.attachments) attachments.append(to_str(a.name));
    py::list controls;
    for (const auto& c : m.controls) controls.append(to_str(c.name));
    py::dict out;
    out["nodes"] = nodes;
    out["joints"] = m.joints;
    out["meshes"] = meshes;
    out["clips"] = clips;
    out["attachments"] = attachments;
    out["controls"] = controls;
    out["up_axis"] = m.axes.up;
    out["warnings"] = diagnostics(warnings.items());
    return ns(out);
}

}  // namespace

py::object read_dmx(Input in, bool vmap) {
    auto h = std::make_shared<DmxHolder>();
    h->name = in.name;
    h->vmap = vmap;
    lk::Diagnostics warnings;
    lk::Result<dmx::Document> r = lk::Diagnostic::error("io.unset", "");
    {
        py::gil_scoped_release release;
        dmx::ReadOptions opt;
        opt.source_name = in.name;
        r = dmx::read(in.blob.bytes(), warnings, opt);
    }
    h->doc = take_read(std::move(r), in);
    h->warnings = read_warnings(warnings, in);
    return py::cast(h);
}

void bind_dmx(py::module_& m) {
    py::class_<DmxHolder, Holder>(m, "DmxDocument",
                                  "A DMX file (models, VMAPs, particles, sessions...)")
        .def_property_readonly("format", [](const DmxHolder& h) { return h.vmap ? "vmap" : "dmx"; })
        .def_readonly("name", &DmxHolder::name)
        .def_property_readonly("encoding", [](const DmxHolder& h) { return h.doc.header.encoding; })
        .def_property_readonly("encoding_version",
                               [](const DmxHolder& h) { return h.doc.header.encoding_version; })
        .def_property_readonly("format_name",
                               [](const DmxHolder& h) { return h.doc.header.format; })
        .def_property_readonly("format_version",
                               [](const DmxHolder& h) { return h.doc.header.format_version; })
        .def_property_readonly("root",
                               [](const Holder& h) { return element_or_none(h, h->doc.root); })
        .def_property_readonly("prefix",
                               [](const Holder& h) { return element_or_none(h, h->doc.prefix); })
        .def_property_readonly(
            "elements",
            [](const Holder& h) {
                py::list out;
                for (std::size_t i = 0; i < h->doc.size(); ++i) {
                    out.append(py::cast(ElemHandle{h, static_cast<std::int32_t>(i)}));
                }
                return out;
            })
        .def("__len__", [](const DmxHolder& h) { return h.doc.size(); })
        .def(
            "find",
            [](const Holder& h, const std::string& id) {
                auto g = dmx::Guid::parse(id);
                if (!g) throw py::value_error("not an element id");
                return element_or_none(h, h->doc.find_by_id(*g));
            },
            py::arg("id"), "The element with this id, or None")
        .def(
            "add_element",
            [](const Holder& h, const std::string& type, const std::string& name) {
                const dmx::ElementRef r = h->doc.add_element(type, name);
                return ElemHandle{h, r.index};
            },
            py::arg("type"), py::arg("name") = "",
            "A new element (reference it from an attribute to make it part of the tree)")
        .def(
            "set_encoding",
            [](DmxHolder& h, const std::string& encoding, int version) {
                auto enc = dmx::Encoding::parse(encoding + " " + std::to_string(version));
                if (!enc) throw py::value_error("unknown encoding " + encoding);
                check(dmx::convert(h.doc, *enc));
            },
            py::arg("encoding"), py::arg("version"),
            "Re-encodes the document: binary 1-9, keyvalues2 1-4, keyvalues2_flat, ...")
        .def("dump_text", [](const DmxHolder& h) { return to_str(take(dmx::dump_text(h.doc))); })
        .def_property_readonly(
            "map_entities", [](const Holder& h) { return py::object(vmap_view(h)["entities"]); },
            "VMAP: the CMapEntity nodes (element, classname, properties, keyvalues element, "
            "origin/angles/scales, outputs)")
        .def_property_readonly(
            "map_meshes", [](const Holder& h) { return py::object(vmap_view(h)["meshes"]); },
            "VMAP: the CMapMesh nodes (element, mesh: the CDmePolygonMesh, transform)")
        .def("model", &model_view,
             "DMX model: nodes (skeleton), joints, meshes (vertex data, fields, face sets, "
             "shapes), clips, attachments, controls")
        .def_property_readonly("warnings",
                               [](const DmxHolder& h) { return diagnostics(h.warnings); })
        .def("to_bytes",
             [](const DmxHolder& h) {
                 lk::Result<lk::Bytes> r = lk::Diagnostic::error("io.unset", "");
                 {
                     py::gil_scoped_release release;
                     r = dmx::write(h.doc);
                 }
                 const lk::Bytes b = take(std::move(r));
                 return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
             })
        .def(
            "write",
            [](const DmxHolder& h, const py::object& path) {
                lk::Result<lk::Bytes> r = lk::Diagnostic::error("io.unset", "");
                {
                    py::gil_scoped_release release;
                    r = dmx::write(h.doc);
                }
                write_output(path, take(std::move(r)));
            },
            py::arg("path"))
        .def("__repr__", [](const DmxHolder& h) {
            return "<levelkit.DmxDocument " + h.name + ": " + h.doc.header.to_string() + ", " +
                   std::to_string(h.doc.size()) + " elements>";
        });

    py::class_<ElemHandle>(m, "DmxElement",
                           "A DMX element: type, name, id and ordered typed attributes")
        .def_property(
            "type", [](const ElemHandle& r) { return std::string(r.get().type.str()); },
            [](const ElemHandle& r, const std::string& t) { r.get().type = r.h->doc.intern(t); })
        .def_property(
            "name", [](const ElemHandle& r) { return to_str(r.get().name); },
            [](const ElemHandle& r, const py::handle& n) { r.get().name = to_text(n); })
        .def_property_readonly("id",
                               [](const ElemHandle& r) -> py::object {
                                   const dmx::Element& e = r.get();
                                   if (!e.has_id()) return py::none();
                                   return py::str(e.id.to_string());
                               })
        .def_property_readonly("index", [](const ElemHandle& r) { return r.index; })
        .def("__getitem__",
             [](py::object self, const std::string& name) {
                 const ElemHandle& r = self.cast<const ElemHandle&>();
                 dmx::Attribute* a = r.get().find(name);
                 if (!a) throw py::key_error(name);
                 return to_py(r.h, a->value, self);
             })
        .def("__setitem__", [](const ElemHandle& r, const std::string& name,
                               const py::handle& value) { set_attr(r, name, value, py::none()); })
        .def(
            "set",
            [](const ElemHandle& r, const std::string& name, const py::handle& value,
               const py::object& type) { set_attr(r, name, value, type); },
            py::arg("name"), py::arg("value"), py::arg("type") = py::none(),
            "Sets an attribute; `type` is a keyvalues2 type name ('vector3_array', 'int', ...)")
        .def("__delitem__",
             [](const ElemHandle& r, const std::string& name) {
                 dmx::Attribute* old = r.get().find(name);
                 if (!old) throw py::key_error(name);
                 r.h->replaced.push_back(std::move(old->value));
                 r.get().remove(name);
             })
        .def("__contains__",
             [](const ElemHandle& r, const std::string& name) { return r.get().has(name); })
        .def("__len__", [](const ElemHandle& r) { return r.get().attributes.size(); })
        // An element is never "empty": `if el:` tests for a null reference (None).
        .def("__bool__", [](const ElemHandle&) { return true; })
        .def("__iter__",
             [](const ElemHandle& r) {
                 py::list keys;
                 for (const auto& a : r.get().attributes) keys.append(to_str(a.name.str()));
                 return py::iter(keys);
             })
        .def("keys",
             [](const ElemHandle& r) {
                 py::list keys;
                 for (const auto& a : r.get().attributes) keys.append(to_str(a.name.str()));
                 return keys;
             })
        .def("items",
             [](py::object self) {
                 const ElemHandle& r = self.cast<const ElemHandle&>();
                 py::list out;
                 for (auto& a : r.get().attributes) {
                     out.append(py::make_tuple(to_str(a.name.str()), to_py(r.h, a.value, self)));
                 }
                 return out;
             })
        .def(
            "get",
            [](py::object self, const std::string& name, const py::object& fallback) -> py::object {
                const ElemHandle& r = self.cast<const ElemHandle&>();
                dmx::Attribute* a = r.get().find(name);
                return a ? to_py(r.h, a->value, self) : fallback;
            },
            py::arg("name"), py::arg("default") = py::none())
        .def(
            "type_of",
            [](const ElemHandle& r, const std::string& name) {
                const dmx::Attribute* a = r.get().find(name);
                if (!a) throw py::key_error(name);
                return std::string(dmx::type_name(a->value.type()));
            },
            py::arg("name"), "The keyvalues2 type name of an attribute")
        .def("__eq__", [](const ElemHandle& a,
                          const ElemHandle& b) { return a.h == b.h && a.index == b.index; })
        .def("__hash__",
             [](const ElemHandle& a) {
                 return std::hash<const void*>()(a.h.get()) ^ std::hash<std::int32_t>()(a.index);
             })
        .def("__repr__", [](const ElemHandle& r) {
            const dmx::Element& e = r.get();
            return "<DmxElement " + std::string(e.type.str()) + " '" + e.name + "'>";
        });
}

}  // namespace lkpy
