#include "common.hpp"

#include <pybind11/eval.h>

namespace lkpy {

namespace {

// Never destroyed: it must outlive every module-level object at interpreter shutdown.
py::object& error_class() {
    static auto* cls = new py::object();
    return *cls;
}

}  // namespace

void raise(const lk::Diagnostic& d) {
    py::object inst = error_class()(py::cast(d));
    PyErr_SetObject(error_class().ptr(), inst.ptr());
    throw py::error_already_set();
}

bool is_pathlike(const py::handle& h) {
    return py::isinstance<py::str>(h) || py::hasattr(h, "__fspath__");
}

std::filesystem::path to_path(const py::handle& h) {
    py::object p = py::module_::import("os").attr("fspath")(h);
    if (py::isinstance<py::bytes>(p)) return std::filesystem::path(p.cast<std::string>());
    return std::filesystem::path(p.cast<std::string>());
}

Input open_input(const py::object& src) {
    Input in;
    if (is_pathlike(src)) {
        in.path = to_path(src);
        in.name = in.path.string();
        in.base_dir = in.path.parent_path();
        lk::Result<lk::Blob> blob = lk::Diagnostic::error("io.unset", "");
        {
            py::gil_scoped_release release;
            blob = lk::Blob::map_file(in.path);
        }
        if (!blob) {
            lk::Diagnostic d = blob.error();
            if (d.file.empty()) d.file = in.name;
            raise(d);
        }
        in.blob = std::move(blob).value();
        return in;
    }
    py::buffer_info info;
    try {
        info = py::buffer(src).request();
    } catch (const py::error_already_set&) {
        throw py::type_error("expected a path (str or os.PathLike) or a bytes-like object, not " +
                             std::string(py::str(src.get_type().attr("__name__"))));
    }
    const auto* p = static_cast<const std::byte*>(info.ptr);
    in.blob =
        lk::Blob::copy_of(lk::ByteSpan(p, static_cast<std::size_t>(info.size * info.itemsize)));
    in.name = "<bytes>";
    return in;
}

void write_output(const py::object& path, const lk::Bytes& bytes) {
    const std::filesystem::path p = to_path(path);
    lk::Result<void> r;
    {
        py::gil_scoped_release release;
        r = lk::write_file_atomic(p, bytes);
    }
    if (!r) {
        lk::Diagnostic d = r.error();
        if (d.file.empty()) d.file = p.string();
        raise(d);
    }
}

void write_output(const py::object& path, std::string_view text) {
    const std::filesystem::path p = to_path(path);
    lk::Result<void> r;
    {
        py::gil_scoped_release release;
        r = lk::write_file_atomic(p, text);
    }
    if (!r) {
        lk::Diagnostic d = r.error();
        if (d.file.empty()) d.file = p.string();
        raise(d);
    }
}

py::str to_str(std::string_view s) {
    PyObject* o =
        PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
    if (!o) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

std::string to_text(const py::handle& h) {
    if (py::isinstance<py::bytes>(h)) return h.cast<std::string>();
    if (!py::isinstance<py::str>(h)) {
        throw py::type_error("expected str, not " +
                             std::string(py::str(h.get_type().attr("__name__"))));
    }
    PyObject* b = PyUnicode_AsEncodedString(h.ptr(), "utf-8", "surrogateescape");
    if (!b) throw py::error_already_set();
    py::bytes bytes = py::reinterpret_steal<py::bytes>(b);
    return bytes.cast<std::string>();
}

std::string to_kv_value(const py::handle& h) {
    if (py::isinstance<py::str>(h) || py::isinstance<py::bytes>(h)) return to_text(h);
    if (py::isinstance<py::bool_>(h)) return h.cast<bool>() ? "1" : "0";
    if (py::isinstance<py::int_>(h) || py::isinstance<py::float_>(h)) {
        return py::str(h).cast<std::string>();
    }
    if (py::isinstance<py::sequence>(h) || py::hasattr(h, "__iter__")) {
        std::string out;
        for (py::handle item : py::iter(h)) {
            if (!out.empty()) out += ' ';
            out += to_kv_value(item);
        }
        return out;
    }
    return to_text(py::str(h));
}

py::tuple vec3(const lk::Vec3& v) {
    return py::make_tuple(v.x, v.y, v.z);
}

lk::Vec3 to_vec3(const py::handle& h) {
    py::sequence s = py::reinterpret_borrow<py::sequence>(h);
    if (!py::isinstance<py::sequence>(h) && !py::hasattr(h, "__len__")) {
        throw py::type_error("expected a sequence of 3 numbers");
    }
    if (py::len(h) != 3) throw py::value_error("expected a sequence of 3 numbers");
    return {py::float_(h[py::int_(0)]).cast<double>(), py::float_(h[py::int_(1)]).cast<double>(),
            py::float_(h[py::int_(2)]).cast<double>()};
}

py::list diagnostics(const std::vector<lk::Diagnostic>& items) {
    py::list out;
    for (const lk::Diagnostic& d : items) out.append(py::cast(d));
    return out;
}

py::object json_to_py(const lk::Json& j) {
    switch (j.type()) {
        case lk::Json::value_t::null:
            return py::none();
        case lk::Json::value_t::boolean:
            return py::bool_(j.get<bool>());
        case lk::Json::value_t::number_integer:
            return py::int_(j.get<std::int64_t>());
        case lk::Json::value_t::number_unsigned:
            return py::int_(j.get<std::uint64_t>());
        case lk::Json::value_t::number_float:
            return py::float_(j.get<double>());
        case lk::Json::value_t::string:
            return to_str(j.get_ref<const std::string&>());
        case lk::Json::value_t::array: {
            py::list l;
            for (const auto& x : j) l.append(json_to_py(x));
            return l;
        }
        case lk::Json::value_t::object: {
            py::dict d;
            for (const auto& [k, v] : j.items()) d[to_str(k)] = json_to_py(v);
            return d;
        }
        default:
            return py::none();
    }
}

void bind_common(py::module_& m) {
    py::enum_<lk::Severity>(m, "Severity")
        .value("note", lk::Severity::note)
        .value("warning", lk::Severity::warning)
        .value("error", lk::Severity::error);

    py::class_<lk::Diagnostic>(m, "Diagnostic",
                               "A levelkit error or warning: code, message and where it is")
        .def(py::init([](std::string code, std::string message, lk::Severity severity,
                         std::string file, std::uint32_t line, std::uint32_t column,
                         std::int64_t offset, std::string path) {
                 lk::Diagnostic d;
                 d.code = std::move(code);
                 d.message = std::move(message);
                 d.severity = severity;
                 d.file = std::move(file);
                 d.line = line;
                 d.column = column;
                 d.offset = offset;
                 d.path = std::move(path);
                 return d;
             }),
             py::arg("code"), py::arg("message"), py::arg("severity") = lk::Severity::error,
             py::arg("file") = "", py::arg("line") = 0, py::arg("column") = 0,
             py::arg("offset") = -1, py::arg("path") = "")
        .def_readonly("severity", &lk::Diagnostic::severity)
        .def_readonly("code", &lk::Diagnostic::code)
        .def_readonly("message", &lk::Diagnostic::message)
        .def_readonly("file", &lk::Diagnostic::file)
        .def_property_readonly("line",
                               [](const lk::Diagnostic& d) -> py::object {
                                   return d.has_line() ? py::object(py::int_(d.line)) : py::none();
                               })
        .def_property_readonly("column",
                               [](const lk::Diagnostic& d) -> py::object {
                                   return d.column ? py::object(py::int_(d.column)) : py::none();
                               })
        .def_property_readonly("offset",
                               [](const lk::Diagnostic& d) -> py::object {
                                   return d.has_offset() ? py::object(py::int_(d.offset))
                                                         : py::none();
                               })
        .def_readonly("path", &lk::Diagnostic::path)
        .def("__str__", &lk::Diagnostic::to_string)
        .def("__repr__",
             [](const lk::Diagnostic& d) { return "<Diagnostic " + d.to_string() + ">"; })
        .def(py::pickle(
            [](const lk::Diagnostic& d) {
                return py::make_tuple(static_cast<int>(d.severity), d.code, d.message, d.file,
                                      d.line, d.column, d.offset, d.path);
            },
            [](const py::tuple& t) {
                lk::Diagnostic d;
                d.severity = static_cast<lk::Severity>(t[0].cast<int>());
                d.code = t[1].cast<std::string>();
                d.message = t[2].cast<std::string>();
                d.file = t[3].cast<std::string>();
                d.line = t[4].cast<std::uint32_t>();
                d.column = t[5].cast<std::uint32_t>();
                d.offset = t[6].cast<std::int64_t>();
                d.path = t[7].cast<std::string>();
                return d;
            }));

    // levelkit.Error: an Exception subclass with the Diagnostic and its fields; picklable (it
    // crosses process boundaries under Dask).
    py::dict scope;
    scope["__name__"] = "levelkit";
    py::exec(R"(
class Error(Exception):
    """A levelkit failure. `diagnostic` is the levelkit.Diagnostic (code, message, file, line,
    column, offset, path); its fields are also attributes of the exception."""

    def __init__(self, diagnostic):
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic

    def __reduce__(self):
        return (type(self), (self.diagnostic,))

    code = property(lambda self: self.diagnostic.code)
    message = property(lambda self: self.diagnostic.message)
    file = property(lambda self: self.diagnostic.file)
    line = property(lambda self: self.diagnostic.line)
    column = property(lambda self: self.diagnostic.column)
    offset = property(lambda self: self.diagnostic.offset)
    path = property(lambda self: self.diagnostic.path)
)",
             scope);
    error_class() = scope["Error"];
    m.attr("Error") = error_class();
}

}  // namespace lkpy
