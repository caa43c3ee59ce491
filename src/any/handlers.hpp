// Every format and converter adapter, listed once. Each is defined in src/any/<format>.cpp.
#pragma once

#include "levelkit/any/document.hpp"

namespace lk::handlers {

// Formats (registry.cpp lists them; detection keeps the most certain).
extern const FormatHandler vmf;
extern const FormatHandler dmx_format;
extern const FormatHandler bsp;
extern const FormatHandler wmp;
extern const FormatHandler wmp_m;

// Converters.
extern const ConverterHandler vmf_to_vmf_converter;
extern const ConverterHandler dmx_to_dmx;
extern const ConverterHandler bsp_to_bsp;
extern const ConverterHandler wmp_to_wmp_m_converter;
extern const ConverterHandler wmp_to_wmp_converter;
extern const ConverterHandler wmp_to_vmf_converter;
extern const ConverterHandler wmp_m_to_vmf_converter;

}  // namespace lk::handlers
