// Every format and converter adapter, listed once. Each is defined in src/any/<format>.cpp.
#pragma once

#include <memory>
#include <vector>

#include "levelkit/any/document.hpp"
#include "levelkit/dmx/document.hpp"
#include "levelkit/vmf/vmf.hpp"

namespace lk::bsp {
class Bsp;
}

namespace lk::handlers {

// Formats (registry.cpp lists them; detection keeps the most certain).
extern const FormatHandler vmf;
extern const FormatHandler dmx_format;
extern const FormatHandler bsp;
extern const FormatHandler vmap_format;
extern const FormatHandler wmp;
extern const FormatHandler wmp_m;
extern const FormatHandler wmb;
extern const FormatHandler smd;
extern const FormatHandler obj;
extern const FormatHandler gltf;
extern const FormatHandler png;

// Hand-written converters (every other pair goes through the scene or the model).
extern const ConverterHandler vmf_to_vmf;
extern const ConverterHandler dmx_to_dmx;
extern const ConverterHandler bsp_to_bsp;
extern const ConverterHandler vmap_to_vmap;
extern const ConverterHandler vmap_to_dmx;
extern const ConverterHandler wmp_to_wmp;
extern const ConverterHandler wmp_to_wmp_m;

// The map inside a document read by the bsp handler (nullptr for other formats).
const bsp::Bsp* as_bsp(const Document& doc);

}  // namespace lk::handlers

namespace lk {

// Shared between adapters (a vmap is a DMX file).
Json dmx_info(const dmx::Document& doc);
// Re-encodes a DMX document as the "encoding" / "format" options ask (dmx_options()).
Result<ConvertResult> convert_dmx(const dmx::Document& doc, const ConvertOptions& opt);
std::vector<OptionSpec> dmx_options();
// The typed map behind a "vmf" Document (read or converted), or null.
const vmf::Map* vmf_map(const Document& doc);
// Options of every consumer that draws a scene (OBJ, glTF, pictures): tools, texture-size.
std::vector<OptionSpec> drawing_options();
// What a model producer reports: meshes, nodes, shapes, clips.
void report_model(const model::Model& m, Json& report);

}  // namespace lk
