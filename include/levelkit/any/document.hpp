// Format-erased access to every format levelkit knows: detect a file's format from its content,
// read it into a Document, ask it for a summary, write it back losslessly, validate it, and
// convert it to another format. The CLI is a thin shell over this header.
//
// Each format module stays free of JSON and of the others; its adapter to this interface lives
// in src/any/<format>.cpp and is listed once in src/any/registry.cpp.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/result.hpp"

namespace lk {

using Json = nlohmann::ordered_json;

struct ReadOptions {
    // Name used in diagnostics (usually the path); readers never open it.
    std::string source_name;
    // The input's directory, for formats that resolve neighbours (VMF instances). May be empty.
    std::filesystem::path base_dir;
};

// A read document of any format.
class Document {
public:
    virtual ~Document() = default;

    // Short format id: "vmf", "kv", "dmx", "vmap", "bsp", "wmp", "wmp_m".
    virtual std::string_view format() const = 0;
    // Summary for `levelkit info --json` (without "file"); always has "format".
    virtual Json info() const = 0;
    // Lossless re-serialisation in the document's own encoding: write(read(f)) == f.
    virtual Result<Bytes> write() const = 0;
    // Semantic checks beyond parsing (brush validity, mesh invariants, ...).
    virtual void validate(Diagnostics& out) const { (void)out; }
    // Warnings gathered while reading.
    const Diagnostics& read_diagnostics() const { return read_diags_; }
    Diagnostics& read_diagnostics() { return read_diags_; }
    // Text rendering for `levelkit dump` (DMX: keyvalues2); nullopt if the format has none.
    virtual std::optional<Result<std::string>> dump_text() const { return std::nullopt; }
    // 1-based line of a byte offset for text formats (for "differs at byte N (line L)").
    virtual std::optional<std::uint32_t> line_of(std::size_t offset) const {
        (void)offset;
        return std::nullopt;
    }

private:
    Diagnostics read_diags_;
};

struct FormatHandler {
    std::string_view name;                     // format id, as Document::format()
    std::string_view description;              // one line for `levelkit formats`
    std::vector<std::string_view> extensions;  // lower case, with dot: ".vmf"
    // 0 = not this format, higher = more certain. Content decides; the filename only breaks ties.
    int (*sniff)(ByteSpan data, std::string_view filename) = nullptr;
    Result<std::unique_ptr<Document>> (*read)(Blob data, const ReadOptions& opt) = nullptr;
};

// Options for conversions; each converter reads the fields it understands and rejects
// combinations that make no sense for it.
struct ConvertOptions {
    std::filesystem::path input_path;   // where the input came from (instances, names)
    std::filesystem::path output_path;  // where the result goes (names inside the output)
    // DMX / VMAP: "keyvalues2:4", "binary:9" ...; empty = format default.
    std::string encoding;
    // DMX: override format name/version "vmap:35"; empty = keep.
    std::string dmx_format;
    // BSP: per-lump compression change.
    bool compress = false;
    bool decompress = false;
    std::optional<std::filesystem::path> entities_file;  // BSP: replace the entity lump
    // BSP -> VMF decompiler modes.
    bool no_detail_merge = false;
    bool faces_mode = false;
    bool no_props = false;
    bool no_overlays = false;
    // VMF -> VMAP.
    bool collapse_instances = false;
    // Free-form extra options (`--set key=value`) for converters still growing.
    std::map<std::string, std::string> extra;
};

struct ConvertResult {
    std::unique_ptr<Document> document;  // the converted document (write() gives the bytes)
    Json report;                         // what was recovered/lost, for --json and stderr
};

struct ConverterHandler {
    std::string_view from;  // input format id
    std::string_view to;    // output format id
    std::string_view description;
    Result<ConvertResult> (*run)(const Document& in, const ConvertOptions& opt,
                                 Diagnostics& diags) = nullptr;
};

// --- registry ----------------------------------------------------------------------------

const std::vector<const FormatHandler*>& all_formats();
const std::vector<const ConverterHandler*>& all_converters();
const FormatHandler* find_format(std::string_view name);
const ConverterHandler* find_converter(std::string_view from, std::string_view to);

// The most likely format of `data` (nullptr if none claims it).
const FormatHandler* detect_format(ByteSpan data, std::string_view filename);
// The output format implied by a path's extension (case-insensitive), or nullptr.
const FormatHandler* format_for_extension(const std::filesystem::path& path);

// Maps and reads a file, detecting its format. Diagnostics carry the path.
Result<std::unique_ptr<Document>> read_document(const std::filesystem::path& path);
Result<std::unique_ptr<Document>> read_document(Blob data, const ReadOptions& opt);

}  // namespace lk
