// levelkit._levelkit: the native half of the Python package. Format-erased documents, reading
// with format detection, whole conversion jobs (levelkit/any/jobs.hpp), and the typed document
// classes of vmf.cpp, bsp.cpp and dmx.cpp.
#include <cstring>
#include <memory>

#include "common.hpp"
#include "levelkit/any/jobs.hpp"
#include "levelkit/scene/geometry.hpp"

namespace lkpy {

namespace {

// A document of any format through the levelkit/any facade.
struct AnyDocument {
    std::shared_ptr<lk::Document> doc;
    std::string name;
};

lk::Options to_options(const py::kwargs& kwargs) {
    lk::Options out;
    for (auto [k, v] : kwargs) {
        std::string name = k.cast<std::string>();
        for (char& c : name) {
            if (c == '_') c = '-';
        }
        if (v.is_none()) continue;
        out.set(name, is_pathlike(v) && !py::isinstance<py::str>(v) ? to_path(v).string()
                                                                    : to_kv_value(v));
    }
    return out;
}

py::object wrap_any(std::unique_ptr<lk::Document> doc, std::string name) {
    return py::cast(AnyDocument{std::shared_ptr<lk::Document>(std::move(doc)), std::move(name)});
}

py::object read_any(Input in) {
    lk::ReadOptions opt;
    opt.source_name = in.name;
    opt.base_dir = in.base_dir;
    lk::Result<std::unique_ptr<lk::Document>> r = lk::Diagnostic::error("io.unset", "");
    {
        py::gil_scoped_release release;
        r = lk::read_document(in.blob, opt);
    }
    auto doc = take_read(std::move(r), in);
    if (!in.path.empty()) doc->read_diagnostics().set_file(in.name);
    return wrap_any(std::move(doc), in.name);
}

py::object read_source(const py::object& src, bool typed) {
    Input in = open_input(src);
    const lk::FormatHandler* f = lk::detect_format(in.blob.bytes(), in.path.filename().string());
    if (!f) {
        lk::Diagnostic d =
            lk::Diagnostic::error("usage.unknown-format", "not a format levelkit reads");
        if (!in.path.empty()) d.file = in.name;
        raise(d);
    }
    if (typed) {
        if (f->name == "vmf") return read_vmf(std::move(in));
        if (f->name == "bsp") return read_bsp(std::move(in));
        if (f->name == "dmx") return read_dmx(std::move(in), false);
        if (f->name == "vmap") return read_dmx(std::move(in), true);
        if (f->name == "wmp" || f->name == "wmp_m") return read_wmp(std::move(in));
    }
    return read_any(std::move(in));
}

py::dict convert(const py::object& src, const py::object& dst, const py::object& to, bool in_place,
                 const py::kwargs& kwargs) {
    lk::ConvertJob job;
    job.input = to_path(src);
    job.output = to_path(dst);
    job.options = to_options(kwargs);
    job.in_place = in_place;
    if (!to.is_none()) {
        const std::string name = to.cast<std::string>();
        job.output_format = lk::find_format(name);
        if (!job.output_format) {
            raise(lk::Diagnostic::error("usage.unknown-format", "no output format " + name));
        }
    }
    lk::ConvertJobOutcome out;
    {
        py::gil_scoped_release release;
        out = lk::convert_file(job);
    }
    if (!out.ok()) raise(*out.error);
    py::dict d;
    d["path"] = out.path;
    py::list written;
    for (const auto& p : out.written)
        written.append(py::module_::import("pathlib").attr("Path")(p.string()));
    d["written"] = written;
    d["report"] = json_to_py(out.report);
    d["warnings"] = diagnostics(out.diags.items());
    return d;
}

py::list option_list(const std::vector<const lk::OptionSpec*>& specs) {
    py::list out;
    for (const lk::OptionSpec* s : specs) {
        py::dict d;
        std::string py_name(s->name);
        for (char& c : py_name) {
            if (c == '-') c = '_';
        }
        d["name"] = py_name;
        d["cli"] = "--" + std::string(s->name);
        d["type"] = std::string(lk::to_string(s->type));
        d["default"] = std::string(s->default_value);
        d["help"] = std::string(s->help);
        py::list choices;
        for (auto c : s->choices) choices.append(std::string(c));
        d["choices"] = choices;
        out.append(d);
    }
    return out;
}

// The drawable polygons of a map (scene::build_surfaces), exposed as NumPy views.
struct Geometry {
    lk::scene::Surfaces s;
};

template <class T, class S>
py::array rows(std::vector<T>& v, py::ssize_t cols, const py::object& base) {
    static_assert(sizeof(T) % sizeof(S) == 0);
    std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(v.size())};
    std::vector<py::ssize_t> strides{static_cast<py::ssize_t>(sizeof(T))};
    if (cols > 0) {
        shape.push_back(cols);
        strides.push_back(sizeof(S));
    }
    return py::array_t<S>(shape, strides, reinterpret_cast<S*>(v.data()), base);
}

Geometry geometry_of(const py::object& src, bool tools, bool exact, const py::kwargs& kwargs) {
    Input in = open_input(src);
    lk::ReadOptions ro;
    ro.source_name = in.name;
    ro.base_dir = in.base_dir;
    lk::ConvertOptions opt;
    opt.input_path = in.path;
    opt.for_display = true;
    opt.options = to_options(kwargs);
    Geometry g;
    lk::Diagnostic failure;
    bool ok = true;
    {
        py::gil_scoped_release release;
        auto doc = lk::read_document(in.blob, ro);
        if (!doc) {
            failure = doc.error();
            ok = false;
        } else {
            lk::Diagnostics diags;
            auto sc = lk::document_to_scene(*doc.value(), opt, diags);
            if (!sc) {
                failure = sc.error();
                ok = false;
            } else {
                lk::scene::SurfaceOptions so;
                so.polygons.prefer_exact_polygons = exact;
                so.skip_tool_materials = !tools;
                g.s = lk::scene::build_surfaces(sc.value(), so);
            }
        }
    }
    if (!ok) {
        if (failure.file.empty() && !in.path.empty()) failure.file = in.name;
        raise(failure);
    }
    return g;
}

}  // namespace

}  // namespace lkpy

PYBIND11_MODULE(_levelkit, m) {
    using namespace lkpy;
    m.doc() = "levelkit native module (use the levelkit package)";
    bind_common(m);

    py::class_<AnyDocument>(m, "Document",
                            "A read document of any format (info, lossless write, validate)")
        .def_property_readonly("format",
                               [](const AnyDocument& d) { return std::string(d.doc->format()); })
        .def_readonly("name", &AnyDocument::name)
        .def("info", [](const AnyDocument& d) { return json_to_py(d.doc->info()); })
        .def("to_bytes",
             [](const AnyDocument& d) {
                 lk::Result<lk::Bytes> r = lk::Diagnostic::error("io.unset", "");
                 {
                     py::gil_scoped_release release;
                     r = d.doc->write();
                 }
                 const lk::Bytes b = take(std::move(r));
                 return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
             })
        .def(
            "write",
            [](const AnyDocument& d, const py::object& path) {
                lk::Result<lk::Bytes> r = lk::Diagnostic::error("io.unset", "");
                {
                    py::gil_scoped_release release;
                    r = d.doc->write();
                }
                write_output(path, take(std::move(r)));
            },
            py::arg("path"))
        .def("validate",
             [](const AnyDocument& d) {
                 lk::Diagnostics out;
                 {
                     py::gil_scoped_release release;
                     d.doc->validate(out);
                 }
                 return diagnostics(out.items());
             })
        .def_property_readonly(
            "warnings",
            [](const AnyDocument& d) { return diagnostics(d.doc->read_diagnostics().items()); })
        .def("dump_text",
             [](const AnyDocument& d) -> py::object {
                 auto t = d.doc->dump_text();
                 if (!t) return py::none();
                 return to_str(take(std::move(*t)));
             })
        .def(
            "convert",
            [](const AnyDocument& d, const std::string& to, const py::kwargs& kwargs) {
                lk::Diagnostics diags;
                lk::Result<lk::ConvertResult> r = lk::Diagnostic::error("io.unset", "");
                const lk::Options opts = to_options(kwargs);
                {
                    py::gil_scoped_release release;
                    r = lk::convert_document(*d.doc, to, opts, diags);
                }
                lk::ConvertResult res = take(std::move(r));
                res.document->read_diagnostics().add_all(diags);
                return wrap_any(std::move(res.document), d.name);
            },
            py::arg("to"),
            "Converts along the conversion graph to the format named `to`; options as the CLI's")
        .def("__repr__", [](const AnyDocument& d) {
            return "<levelkit.Document " + std::string(d.doc->format()) + " " + d.name + ">";
        });

    m.def("read", &read_source, py::arg("source"), py::arg("typed") = true,
          "Reads a file (path) or bytes, detecting the format from the content");
    m.def(
        "info",
        [](const py::object& path) {
            const std::filesystem::path p = to_path(path);
            lk::Result<lk::Json> info = lk::Diagnostic::error("io.unset", "");
            {
                py::gil_scoped_release release;
                info = lk::file_info(p);
            }
            if (!info) raise(info.error());
            return json_to_py(*info);
        },
        py::arg("path"),
        "What read(path, typed=False).info() gives, without keeping the document (a VMF is "
        "counted piece by piece): the CLI's info --json");
    m.def("convert", &convert, py::arg("source"), py::arg("destination"), py::kw_only(),
          py::arg("to") = py::none(), py::arg("in_place") = false,
          "Converts a file along the conversion graph; options as the CLI's (--texture-size -> "
          "texture_size=...)");
    m.def("formats", [] {
        py::list out;
        for (const lk::FormatHandler* f : lk::all_formats()) {
            py::dict d;
            d["name"] = std::string(f->name);
            d["description"] = std::string(f->description);
            py::list ext;
            for (auto e : f->extensions) ext.append(std::string(e));
            d["extensions"] = ext;
            d["readable"] = f->read != nullptr;
            out.append(d);
        }
        return out;
    });
    m.def(
        "conversion_options",
        [](const std::string& from, const std::string& to) {
            const lk::FormatHandler* a = lk::find_format(from);
            const lk::FormatHandler* b = lk::find_format(to);
            if (!a || !b) raise(lk::Diagnostic::error("usage.unknown-format", "unknown format"));
            auto path = lk::find_path(*a, *b);
            if (!path) {
                raise(lk::Diagnostic::error("convert.unsupported",
                                            "no conversion " + from + " -> " + to));
            }
            return option_list(path->options());
        },
        py::arg("source_format"), py::arg("target_format"));
    m.def(
        "detect_format",
        [](const py::object& src) -> py::object {
            Input in = open_input(src);
            const lk::FormatHandler* f =
                lk::detect_format(in.blob.bytes(), in.path.filename().string());
            if (!f) return py::none();
            return py::str(std::string(f->name));
        },
        py::arg("source"));

    py::class_<Geometry>(m, "Geometry",
                         "A map's drawable polygons (brush faces, displacements, meshes) as "
                         "NumPy views: corners, then polygons as ranges of corners")
        .def_property_readonly("positions",
                               [](py::object self) {
                                   return rows<lk::Vec3, double>(self.cast<Geometry&>().s.positions,
                                                                 3, self);
                               })
        .def_property_readonly("normals",
                               [](py::object self) {
                                   return rows<lk::Vec3, double>(self.cast<Geometry&>().s.normals,
                                                                 3, self);
                               })
        .def_property_readonly("uvs",
                               [](py::object self) {
                                   return rows<std::array<double, 2>, double>(
                                       self.cast<Geometry&>().s.uvs, 2, self);
                               })
        .def_property_readonly("polygon_begin",
                               [](py::object self) {
                                   return rows<std::uint32_t, std::uint32_t>(
                                       self.cast<Geometry&>().s.polygon_begin, 0, self);
                               })
        .def_property_readonly("polygon_material",
                               [](py::object self) {
                                   return rows<std::uint32_t, std::uint32_t>(
                                       self.cast<Geometry&>().s.polygon_material, 0, self);
                               })
        .def_property_readonly("materials",
                               [](const Geometry& g) {
                                   py::list out;
                                   for (const auto& name : g.s.materials) out.append(to_str(name));
                                   return out;
                               })
        .def_property_readonly("polygon_count",
                               [](const Geometry& g) { return g.s.polygon_count(); })
        .def(
            "triangles",
            [](const Geometry& g) {
                std::vector<std::array<std::uint32_t, 3>> tris;
                {
                    py::gil_scoped_release release;
                    tris.reserve(g.s.triangle_count());
                    std::vector<std::array<std::uint32_t, 3>> local;
                    for (std::size_t i = 0; i < g.s.polygon_count(); ++i) {
                        local.clear();
                        lk::triangulate_polygon(g.s.polygon(i), local);
                        const std::uint32_t base = g.s.polygon_begin[i];
                        for (auto t : local)
                            tris.push_back({t[0] + base, t[1] + base, t[2] + base});
                    }
                }
                py::array_t<std::uint32_t> out(
                    {static_cast<py::ssize_t>(tris.size()), py::ssize_t{3}});
                if (!tris.empty())
                    std::memcpy(out.mutable_data(), tris.data(), tris.size() * sizeof(tris[0]));
                return out;
            },
            "Triangles as (m, 3) indices into positions (ear clipping, windings kept)");
    m.def("geometry", &geometry_of, py::arg("source"), py::kw_only(), py::arg("tools") = false,
          py::arg("exact") = false,
          "The drawable polygons of a map of any format (as `levelkit geometry`); options as the "
          "conversion to the scene takes them");

    bind_vmf(m);
    bind_bsp(m);
    bind_dmx(m);
    bind_wmp(m);
}
