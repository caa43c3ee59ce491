// Diagnostics: the one error/warning record every levelkit reader, writer and converter returns.
//
// A Diagnostic carries where a problem is in two coordinate systems at once: a text position
// (line:column, 1-based, bytes) for text formats, or a byte offset for binary formats, plus a
// logical path inside the document (`world/solid[12]/side[3]/uaxis`, `lump[35]/sprp/prop[140]`)
// that names the field. Libraries never print diagnostics; they return or collect them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lk {

enum class Severity : std::uint8_t { note, warning, error };

std::string_view to_string(Severity s);

struct Diagnostic {
    Severity severity = Severity::error;
    std::string code;          // stable machine-readable id, e.g. "kv.unterminated-string"
    std::string message;       // human sentence, no trailing period
    std::string file;          // filled by path-based wrappers / the CLI; empty for in-memory input
    std::uint32_t line = 0;    // 1-based; 0 = not a text position
    std::uint32_t column = 0;  // 1-based byte column; 0 = unknown
    std::int64_t offset = -1;  // byte offset into the input; -1 = unknown
    std::string path;          // logical path inside the document

    bool has_line() const { return line != 0; }
    bool has_offset() const { return offset >= 0; }

    // `file:line:col: error: message [path]` for text positions,
    // `file: byte N: error: message [path]` for binary ones.
    std::string to_string() const;

    // Builders, so call sites stay one line.
    static Diagnostic error(std::string code, std::string message);
    static Diagnostic warning(std::string code, std::string message);
    static Diagnostic note(std::string code, std::string message);
    Diagnostic&& at_offset(std::int64_t off) &&;
    Diagnostic&& at_line(std::uint32_t l, std::uint32_t c) &&;
    Diagnostic&& with_path(std::string p) &&;
    Diagnostic&& in_file(std::string f) &&;
    // Prepends a path segment: `solid[3]` + `side[1]` -> `solid[3]/side[1]`.
    Diagnostic&& under(std::string_view parent) &&;
};

// An ordered collection of warnings/notes/errors gathered while processing one input.
class Diagnostics {
public:
    void add(Diagnostic d) { items_.push_back(std::move(d)); }
    void add_all(const Diagnostics& other);
    const std::vector<Diagnostic>& items() const { return items_; }
    std::vector<Diagnostic>& items() { return items_; }
    bool empty() const { return items_.empty(); }
    std::size_t size() const { return items_.size(); }
    std::size_t count(Severity s) const;
    bool has_errors() const { return count(Severity::error) != 0; }
    void set_file(std::string_view file);  // fills `file` where empty
    void clear() { items_.clear(); }

private:
    std::vector<Diagnostic> items_;
};

}  // namespace lk
