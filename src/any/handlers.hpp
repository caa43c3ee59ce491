// Every format and converter adapter, listed once. Each is defined in src/any/<format>.cpp.
#pragma once

#include "levelkit/any/document.hpp"

namespace lk::handlers {

// Formats.
extern const FormatHandler vmf;

// Converters.
extern const ConverterHandler vmf_to_vmf_converter;

}  // namespace lk::handlers
