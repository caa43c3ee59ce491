// Format-erased access to every format levelkit knows: detect a file's format from its content,
// read it into a Document, ask it for a summary, write it back losslessly, validate it, and
// convert it to another format. The CLI is a thin shell over this header.
//
// Each format module stays free of JSON and of the others; its adapter to this interface lives
// in src/any/<format>.cpp and is listed once in src/any/registry.cpp.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "levelkit/any/options.hpp"
#include "levelkit/core/bytes.hpp"
#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/file.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk {

namespace model {
struct Model;  // the neutral model (levelkit/model/model.hpp)
}

using Json = nlohmann::ordered_json;

struct ReadOptions {
    // Name used in diagnostics (usually the path); readers never open it.
    std::string source_name;
    // The input's directory, for formats that resolve neighbours (VMF instances). May be empty.
    std::filesystem::path base_dir;
    // False when the caller only looks at or converts the document: a format that keeps a
    // lossless form beside its typed one may then build the typed one alone (VMF: the
    // streaming reader on every core, no text tree). write() still gives the input's bytes.
    bool lossless = true;
    // Threads a reader may use for one large input (0 = one per core, 1 = the calling thread
    // only; VMF). Callers that already run one reader per core pass 1.
    unsigned threads = 0;
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
    // The same bytes handed to `out` (a file being written). Formats whose writer can stream
    // override it so that a large output is not held whole in memory as well.
    virtual Result<void> write_to(ByteSink& out) const {
        auto bytes = write();
        if (!bytes) return std::move(bytes).error();
        return out.write(bytes.value());
    }
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

// What a conversion step is given.
struct ConvertOptions {
    std::filesystem::path input_path;   // where the input came from (instances, names)
    std::filesystem::path output_path;  // where the result goes (names inside the output)
    // Checked against the schema of the steps that run (check_options): every declared option
    // has a value, so steps read them with the typed getters.
    Options options;
    Progress progress;
    // Set when the consumer draws the neutral form (OBJ, glTF, pictures) rather than editing
    // it: producers then give what the game shows (a BSP's compiled faces, not its brushes).
    bool for_display = false;
    // Cleared when the consumer cannot hold meshes (VMF): producers then give brushes where
    // they can rebuild them (a WMB's world).
    bool meshes_ok = true;
    // Free memory is handed back to the system as the conversion goes (ConvertJob).
    bool give_back_memory = true;
    // Threads the conversion may use (ConvertJob::threads): 0, one per core; 1, its own only
    // (a batch runs a job per core).
    unsigned threads = 0;
    // Hands over the input document when the caller gives it up (a whole-file job): a
    // conversion through a neutral form takes it once the input is no longer read, or gives it
    // to NeutralSteps::to_spent, so that the input and the output are not both held. Steps that
    // convert directly leave it uncalled.
    std::function<std::unique_ptr<Document>()> take_input;
};

// A file written next to the output (an OBJ's .mtl, a .gltf's .bin, animation SMDs).
struct OutputFile {
    std::filesystem::path path;
    Bytes bytes;
};

struct ConvertResult {
    std::unique_ptr<Document> document;  // the converted document (write() gives the bytes)
    Json report;                         // what was recovered/lost, for --json and stderr
    std::vector<OutputFile> companions;
};

// Steps into and out of a neutral form (scene::Scene for maps, model::Model for models).
// `to` fills `report` with what it recovered and what it could not; `from` returns the report
// of its side in ConvertResult::report. Either may be null.
template <class Neutral>
struct NeutralSteps {
    Result<Neutral> (*to)(const Document& in, const ConvertOptions& opt, Diagnostics& diags,
                          Json& report) = nullptr;
    // Optional: `to` for an input nobody else holds (ConvertOptions::take_input), which it may
    // free as it goes.
    Result<Neutral> (*to_spent)(std::unique_ptr<Document> in, const ConvertOptions& opt,
                                Diagnostics& diags, Json& report) = nullptr;
    std::vector<OptionSpec> to_options;
    Result<ConvertResult> (*from)(const Neutral& in, const ConvertOptions& opt,
                                  Diagnostics& diags) = nullptr;
    // Optional: `from` for a neutral form nobody else holds, which it may free as it goes (a
    // conversion through a neutral form uses it when given: lower peak memory).
    Result<ConvertResult> (*from_spent)(Neutral&& in, const ConvertOptions& opt,
                                        Diagnostics& diags) = nullptr;
    std::vector<OptionSpec> from_options;
    bool draws = false;  // `from` draws the neutral form (sets ConvertOptions::for_display)
    bool meshes = true;  // `from` can hold meshes (clears ConvertOptions::meshes_ok if not)
};

struct FormatHandler {
    std::string_view name;                     // format id, as Document::format()
    std::string_view description;              // one line for `levelkit formats`
    std::vector<std::string_view> extensions;  // lower case, with dot: ".vmf"
    // 0 = not this format, higher = more certain. Content decides; the filename only breaks ties.
    // Null for output-only formats.
    int (*sniff)(ByteSpan data, std::string_view filename) = nullptr;
    Result<std::unique_ptr<Document>> (*read)(Blob data, const ReadOptions& opt) = nullptr;
    // The document `read` makes views the mapped file: it takes little memory of its own however
    // large the file (BSP, WMB).
    bool views_input = false;
    // What `read` and Document::info() give, without keeping the document (a large VMF's
    // solids and entities are counted piece by piece and freed). Null: read, then info().
    Result<Json> (*summarize)(Blob data, const ReadOptions& opt) = nullptr;
    NeutralSteps<scene::Scene> scene;  // maps
    NeutralSteps<model::Model> model;  // models
};

// A hand-written conversion, where a direct path is better than one through a neutral form
// (re-encoding a format as itself, BSP edits, WMP group resolution).
struct ConverterHandler {
    std::string_view from;  // input format id
    std::string_view to;    // output format id
    std::string_view description;
    Result<ConvertResult> (*run)(const Document& in, const ConvertOptions& opt,
                                 Diagnostics& diags) = nullptr;
    std::vector<OptionSpec> options;
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
Result<std::unique_ptr<Document>> read_document(const std::filesystem::path& path,
                                                bool lossless = true, unsigned threads = 0);
Result<std::unique_ptr<Document>> read_document(Blob data, const ReadOptions& opt);
// Document::info() of a file as read_document(path, false, threads) reads it (the same JSON and
// errors), by its format's summarize where it has one.
Result<Json> file_info(const std::filesystem::path& path, unsigned threads = 0);

// --- the conversion graph ---------------------------------------------------------------

// How one format becomes another: a hand-written converter where one exists, else the input's
// step into a neutral form and the output's step out of it (maps through the scene, models
// through the model); a format with neither is written back as it is ("same").
struct ConversionPath {
    enum class Via : std::uint8_t { same, direct, scene, model };
    const FormatHandler* from = nullptr;
    const FormatHandler* to = nullptr;
    Via via = Via::same;
    const ConverterHandler* direct = nullptr;

    // The options the steps of this path read, in order (duplicates across steps once).
    std::vector<const OptionSpec*> options() const;
    // "bsp -> scene -> vmap", "vmf -> vmf (normalised rewrite ...)".
    std::string describe() const;
};

// The path from one format to another, or nullopt if the graph has none.
std::optional<ConversionPath> find_path(const FormatHandler& from, const FormatHandler& to);
// Every path the graph can run, inputs and outputs in registry order.
std::vector<ConversionPath> all_paths();

// Runs `path` on `in` (a document of path.from). `opt.options` must have been checked against
// path.options() (check_options); reports of both steps of a composed path are merged into one
// object. Via::same gives a document that writes `in` unchanged.
Result<ConvertResult> run_path(const ConversionPath& path, const Document& in,
                               const ConvertOptions& opt, Diagnostics& diags);

// Converts `in` to the format named `to` along the graph: the path is found, `options` are
// checked against its schema (defaults filled), then it runs. `base` gives the paths and
// progress hooks. "convert.unsupported" when the graph has no path.
Result<ConvertResult> convert_document(const Document& in, std::string_view to,
                                       const Options& options, Diagnostics& diags,
                                       const ConvertOptions& base = {});

// The neutral scene of a map document, through its format's scene step (for consumers outside
// the graph: `levelkit geometry`, the Python package). `opt.options` are checked against the
// step's schema first. "convert.unsupported" for formats without one.
Result<scene::Scene> document_to_scene(const Document& doc, const ConvertOptions& opt,
                                       Diagnostics& diags, Json* report = nullptr);

}  // namespace lk
