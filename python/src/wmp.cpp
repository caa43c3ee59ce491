// Gamestudio levels (WMP, WMPB, $$M): the object tree, blocks (vertices as NumPy, faces) and the
// entity records, read-only; writing gives the file back losslessly.
#include <memory>

#include "common.hpp"
#include "levelkit/wmp/wmp.hpp"

namespace lkpy {

namespace {

namespace wmp = lk::wmp;

struct WmpHolder {
    wmp::File file;
    std::vector<lk::Diagnostic> warnings;
    std::string name;
};
using Holder = std::shared_ptr<WmpHolder>;

struct ObjectRef {
    Holder h;
    std::uint32_t index = 0;
    const wmp::Object& get() const {
        const auto& o = h->file.level.objects;
        if (index >= o.size()) throw py::index_error("no such object");
        return o[index];
    }
};

struct BlockRef {
    Holder h;
    std::uint32_t index = 0;
    wmp::Block& get() const {
        auto& b = h->file.level.blocks;
        if (index >= b.size()) throw py::index_error("no such block");
        return b[index];
    }
};

// Kind as its enumerator's name (class_name() gives WED's spelling, e.g. "object" for a group).
std::string kind_name(wmp::Kind k) {
    static const char* const names[] = {"group", "level", "block", "model", "light",
                                        "start", "sound", "path",  "region"};
    const auto i = static_cast<std::size_t>(k);
    return i < std::size(names) ? names[i] : "group";
}

py::object ns(const py::dict& d) {
    return py::module_::import("types").attr("SimpleNamespace")(**d);
}

py::object opt_str(const std::optional<std::string>& s) {
    return s ? py::object(to_str(*s)) : py::none();
}

py::object model_ns(const wmp::Model& m) {
    py::dict d;
    d["number"] = m.number;
    d["file"] = to_str(m.file);
    d["name"] = to_str(m.name);
    d["action"] = opt_str(m.action);
    d["skills"] = m.skills;
    d["flags"] = m.flags;
    d["ambient"] = m.ambient;
    d["albedo"] = m.albedo;
    d["path"] = opt_str(m.path);
    d["material"] = opt_str(m.material);
    d["scale"] = vec3(m.scale);
    return ns(d);
}

lk::Bytes write_file(const WmpHolder& h) {
    lk::Result<lk::Bytes> r = lk::Diagnostic::error("io.unset", "");
    {
        py::gil_scoped_release release;
        r = wmp::write(h.file);
    }
    return take(std::move(r));
}

}  // namespace

py::object read_wmp(Input in) {
    auto h = std::make_shared<WmpHolder>();
    h->name = in.name;
    lk::Diagnostics warnings;
    lk::Result<wmp::File> r = lk::Diagnostic::error("io.unset", "");
    {
        py::gil_scoped_release release;
        r = wmp::read(std::move(in.blob), warnings);
    }
    h->file = take_read(std::move(r), in);
    h->warnings = read_warnings(warnings, in);
    return py::cast(h);
}

void bind_wmp(py::module_& m) {
    py::class_<WmpHolder, Holder>(m, "WmpDocument",
                                  "A Gamestudio level (WMP text or binary, WED's $$M)")
        .def_property_readonly(
            "format",
            [](const WmpHolder& h) { return h.file.dialect == wmp::Dialect::mm ? "wmp_m" : "wmp"; })
        .def_readonly("name", &WmpHolder::name)
        .def_property_readonly(
            "dialect",
            [](const WmpHolder& h) { return std::string(wmp::to_string(h.file.dialect)); })
        .def_property_readonly("root",
                               [](const Holder& h) -> py::object {
                                   if (h->file.level.objects.empty()) return py::none();
                                   return py::cast(ObjectRef{h, h->file.level.root});
                               })
        .def_property_readonly("objects",
                               [](const Holder& h) {
                                   py::list out;
                                   for (std::uint32_t i = 0; i < h->file.level.objects.size();
                                        ++i) {
                                       out.append(py::cast(ObjectRef{h, i}));
                                   }
                                   return out;
                               })
        .def_property_readonly("blocks",
                               [](const Holder& h) {
                                   py::list out;
                                   for (std::uint32_t i = 0; i < h->file.level.blocks.size(); ++i) {
                                       out.append(py::cast(BlockRef{h, i}));
                                   }
                                   return out;
                               })
        .def_property_readonly(
            "models",
            [](const WmpHolder& h) {
                py::list out;
                for (const auto& mo : h.file.level.models) out.append(model_ns(mo));
                return out;
            },
            "Entity records (models, map entities, terrains, sprites)")
        .def_property_readonly("entity_count",
                               [](const WmpHolder& h) { return h.file.level.entity_count(); })
        .def_property_readonly("face_count",
                               [](const WmpHolder& h) { return h.file.level.face_count(); })
        .def_property_readonly("warnings",
                               [](const WmpHolder& h) { return diagnostics(h.warnings); })
        .def("to_bytes",
             [](const WmpHolder& h) {
                 const lk::Bytes b = write_file(h);
                 return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
             })
        .def(
            "write",
            [](const WmpHolder& h, const py::object& path) { write_output(path, write_file(h)); },
            py::arg("path"))
        .def("__repr__", [](const WmpHolder& h) {
            return "<levelkit.WmpDocument " + h.name + ": " +
                   std::string(wmp::to_string(h.file.dialect)) + ", " +
                   std::to_string(h.file.level.objects.size()) + " objects>";
        });

    py::class_<ObjectRef>(m, "WmpObject", "A node of the level's object tree")
        .def_property_readonly("number", [](const ObjectRef& o) { return o.get().number; })
        .def_property_readonly("name", [](const ObjectRef& o) { return opt_str(o.get().name); })
        .def_property_readonly("kind", [](const ObjectRef& o) { return kind_name(o.get().kind); })
        .def_property_readonly(
            "class_name",
            [](const ObjectRef& o) { return std::string(wmp::class_name(o.get().kind)); },
            "WED's class name of the record")
        .def_property_readonly("position",
                               [](const ObjectRef& o) { return vec3(o.get().transform.position); })
        .def_property_readonly("angles",
                               [](const ObjectRef& o) { return vec3(o.get().transform.angles); })
        .def_property_readonly("scale",
                               [](const ObjectRef& o) { return vec3(o.get().transform.scale); })
        .def_property_readonly("children",
                               [](const ObjectRef& o) {
                                   py::list out;
                                   for (std::uint32_t c : o.get().children)
                                       out.append(py::cast(ObjectRef{o.h, c}));
                                   return out;
                               })
        .def_property_readonly(
            "block",
            [](const ObjectRef& o) -> py::object {
                const wmp::Object& ob = o.get();
                if (ob.kind != wmp::Kind::block || ob.payload < 0) return py::none();
                return py::cast(BlockRef{o.h, static_cast<std::uint32_t>(ob.payload)});
            })
        .def_property_readonly("model",
                               [](const ObjectRef& o) -> py::object {
                                   const wmp::Object& ob = o.get();
                                   const auto& models = o.h->file.level.models;
                                   if (ob.kind != wmp::Kind::model || ob.payload < 0 ||
                                       static_cast<std::size_t>(ob.payload) >= models.size()) {
                                       return py::none();
                                   }
                                   return model_ns(models[static_cast<std::size_t>(ob.payload)]);
                               })
        .def("__repr__", [](const ObjectRef& o) {
            const wmp::Object& ob = o.get();
            return "<WmpObject " + kind_name(ob.kind) + " " +
                   (ob.name ? *ob.name : std::to_string(ob.number)) + ">";
        });

    py::class_<BlockRef>(m, "WmpBlock", "A brush block: vertices and faces")
        .def_property_readonly("number", [](const BlockRef& b) { return b.get().number; })
        .def_property_readonly("flags", [](const BlockRef& b) { return b.get().flags; })
        .def_property_readonly(
            "vertices",
            [](py::object self) {
                auto& v = self.cast<BlockRef&>().get().vertices;
                py::array_t<double> a({static_cast<py::ssize_t>(v.size()), py::ssize_t{3}},
                                      {py::ssize_t{sizeof(lk::Vec3)}, py::ssize_t{sizeof(double)}},
                                      reinterpret_cast<double*>(v.data()), self);
                py::detail::array_proxy(a.ptr())->flags &=
                    ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
                return a;
            },
            "(n, 3) float64 read-only view")
        .def_property_readonly("faces",
                               [](const BlockRef& b) {
                                   py::list out;
                                   for (const auto& f : b.get().faces) {
                                       py::dict d;
                                       d["indices"] = f.indices;
                                       d["texture"] = to_str(f.texture);
                                       d["flags"] = f.flags;
                                       d["material"] = opt_str(f.material);
                                       out.append(ns(d));
                                   }
                                   return out;
                               })
        .def("__repr__", [](const BlockRef& b) {
            return "<WmpBlock " + std::to_string(b.get().number) + ", " +
                   std::to_string(b.get().faces.size()) + " faces>";
        });
}

}  // namespace lkpy
