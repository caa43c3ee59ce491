#include "levelkit/core/diagnostic.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lk {

std::string_view to_string(Severity s) {
    switch (s) {
        case Severity::note:
            return "note";
        case Severity::warning:
            return "warning";
        case Severity::error:
            return "error";
    }
    return "error";
}

std::string Diagnostic::to_string() const {
    std::string out;
    out.reserve(file.size() + message.size() + path.size() + 48);
    if (!file.empty()) out += file;
    if (has_line()) {
        out += fmt::format(":{}:{}", line, column ? column : 1);
    } else if (has_offset()) {
        out += fmt::format("{}byte {}", file.empty() ? "" : ": ", offset);
    }
    if (!out.empty()) out += ": ";
    out += lk::to_string(severity);
    out += ": ";
    out += message;
    if (!path.empty()) {
        out += " [";
        out += path;
        out += ']';
    }
    return out;
}

Diagnostic Diagnostic::error(std::string code, std::string message) {
    Diagnostic d;
    d.severity = Severity::error;
    d.code = std::move(code);
    d.message = std::move(message);
    return d;
}

Diagnostic Diagnostic::warning(std::string code, std::string message) {
    Diagnostic d = error(std::move(code), std::move(message));
    d.severity = Severity::warning;
    return d;
}

Diagnostic Diagnostic::note(std::string code, std::string message) {
    Diagnostic d = error(std::move(code), std::move(message));
    d.severity = Severity::note;
    return d;
}

Diagnostic&& Diagnostic::at_offset(std::int64_t off) && {
    offset = off;
    return std::move(*this);
}

Diagnostic&& Diagnostic::at_line(std::uint32_t l, std::uint32_t c) && {
    line = l;
    column = c;
    return std::move(*this);
}

Diagnostic&& Diagnostic::with_path(std::string p) && {
    path = std::move(p);
    return std::move(*this);
}

Diagnostic&& Diagnostic::in_file(std::string f) && {
    file = std::move(f);
    return std::move(*this);
}

Diagnostic&& Diagnostic::under(std::string_view parent) && {
    if (parent.empty()) return std::move(*this);
    if (path.empty()) {
        path = std::string(parent);
    } else {
        path = fmt::format("{}/{}", parent, path);
    }
    return std::move(*this);
}

void Diagnostics::add_all(const Diagnostics& other) {
    items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

std::size_t Diagnostics::count(Severity s) const {
    return static_cast<std::size_t>(std::count_if(
        items_.begin(), items_.end(), [s](const Diagnostic& d) { return d.severity == s; }));
}

void Diagnostics::set_file(std::string_view file) {
    for (auto& d : items_) {
        if (d.file.empty()) d.file = std::string(file);
    }
}

}  // namespace lk
