// Shared pieces of the native module: the levelkit.Error exception, inputs (paths or bytes),
// atomic output, conversions between levelkit values and Python objects.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/any/document.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/geometry.hpp"
#include "levelkit/core/result.hpp"

namespace py = pybind11;

namespace lkpy {

// Raises levelkit.Error carrying `d` (a levelkit.Diagnostic).
[[noreturn]] void raise(const lk::Diagnostic& d);

// The value of a Result, or levelkit.Error.
template <class T>
T take(lk::Result<T>&& r) {
    if (!r) raise(r.error());
    return std::move(r).value();
}
inline void check(const lk::Result<void>& r) {
    if (!r) raise(r.error());
}

// A read input: a path (str or os.PathLike, mapped) or bytes-like (copied once).
struct Input {
    lk::Blob blob;
    std::string name;                // for diagnostics: the path, or "<bytes>"
    std::filesystem::path path;      // empty for bytes
    std::filesystem::path base_dir;  // the path's directory
};
// The value of a read, or levelkit.Error naming the input file when the reader did not.
template <class T>
T take_read(lk::Result<T>&& r, const Input& in) {
    if (!r) {
        lk::Diagnostic d = r.error();
        if (d.file.empty() && !in.path.empty()) d.file = in.name;
        raise(d);
    }
    return std::move(r).value();
}
// A read's warnings, named by the input file.
inline std::vector<lk::Diagnostic> read_warnings(lk::Diagnostics& warnings, const Input& in) {
    if (!in.path.empty()) warnings.set_file(in.name);
    return warnings.items();
}
bool is_pathlike(const py::handle& h);
std::filesystem::path to_path(const py::handle& h);
// Maps or copies `src`; the GIL is released while a file is mapped.
Input open_input(const py::object& src);

// Writes `bytes` to `path` atomically (GIL released).
void write_output(const py::object& path, const lk::Bytes& bytes);
void write_output(const py::object& path, std::string_view text);

// Text from a format: UTF-8 where valid, undecodable bytes as surrogates (round-trips through
// to_text).
py::str to_str(std::string_view s);
// Python text (or bytes) back to the raw bytes levelkit stores.
std::string to_text(const py::handle& h);
// A keyvalue as VMF/BSP entities store it: str as is, bool as 0/1, numbers via str(), sequences
// of numbers joined by spaces ("0 0 64").
std::string to_kv_value(const py::handle& h);

py::tuple vec3(const lk::Vec3& v);
lk::Vec3 to_vec3(const py::handle& h);

// A Python list of diagnostics.
py::list diagnostics(const std::vector<lk::Diagnostic>& items);

// A JSON value as Python objects (dict, list, str, int, float, bool, None).
py::object json_to_py(const lk::Json& j);

void bind_common(py::module_& m);
void bind_vmf(py::module_& m);
void bind_bsp(py::module_& m);
void bind_dmx(py::module_& m);
void bind_wmp(py::module_& m);

// Read entry points of the typed documents (module.cpp dispatches on the detected format).
py::object read_vmf(Input in);
py::object read_bsp(Input in);
py::object read_dmx(Input in, bool vmap);
py::object read_wmp(Input in);

}  // namespace lkpy
