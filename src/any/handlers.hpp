// Every format and converter adapter, listed once. Each is defined in src/any/<format>.cpp.
#pragma once

#include "levelkit/any/document.hpp"

namespace lk::handlers {

// Formats.
extern const FormatHandler vmf;
extern const FormatHandler bsp;

// Converters.
extern const ConverterHandler vmf_to_vmf_converter;
extern const ConverterHandler bsp_to_bsp;

}  // namespace lk::handlers
