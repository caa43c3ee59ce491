// Every format and converter adapter, listed once. Each is defined in src/any/<format>.cpp.
#pragma once

#include <memory>

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

// Converters.
extern const ConverterHandler vmf_to_vmf_converter;
extern const ConverterHandler dmx_to_dmx;
extern const ConverterHandler bsp_to_bsp;
extern const ConverterHandler vmap_to_vmap;
extern const ConverterHandler vmap_to_dmx;
extern const ConverterHandler vmf_to_vmap;
extern const ConverterHandler vmap_to_vmf;
extern const ConverterHandler bsp_to_vmf;
extern const ConverterHandler wmp_to_wmp_m_converter;
extern const ConverterHandler wmp_to_wmp_converter;
extern const ConverterHandler wmp_to_vmf_converter;
extern const ConverterHandler wmp_m_to_vmf_converter;

// The map inside a document read by the bsp handler (nullptr for other formats).
const bsp::Bsp* as_bsp(const Document& doc);

}  // namespace lk::handlers

namespace lk {

// Shared between adapters (a vmap is a DMX file; VMF is the input or output of conversions).
Json dmx_info(const dmx::Document& doc);
// Re-encodes a DMX document as `--encoding` / `--format` ask (the dmx -> dmx converter).
Result<ConvertResult> convert_dmx(const dmx::Document& doc, const ConvertOptions& opt);
// The VMF behind a "vmf" Document, or null.
const vmf::Document* vmf_source(const Document& doc);
// A "vmf" Document for a map built in memory (written in Hammer's layout, then read back).
Result<std::unique_ptr<Document>> make_vmf_document(const vmf::Map& map);

}  // namespace lk
