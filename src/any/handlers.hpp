// Every format and converter adapter, listed once. Each is defined in src/any/<format>.cpp.
#pragma once

#include "levelkit/any/document.hpp"

namespace lk::bsp {
class Bsp;
}

namespace lk::handlers {

// Formats (registry.cpp lists them; detection keeps the most certain).
extern const FormatHandler vmf;
extern const FormatHandler bsp;
extern const FormatHandler dmx_format;

// Converters.
extern const ConverterHandler vmf_to_vmf_converter;
extern const ConverterHandler bsp_to_bsp;
extern const ConverterHandler dmx_to_dmx;
extern const ConverterHandler bsp_to_vmf;

// The map inside a document read by the bsp handler (nullptr for other formats).
const bsp::Bsp* as_bsp(const Document& doc);

}  // namespace lk::handlers
