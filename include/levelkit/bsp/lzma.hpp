// LZMA as Source uses it: Valve's 17-byte "LZMA" header in BSP lumps and game lumps, and the raw
// LZMA1 streams inside ZIP method 14 pakfile entries.
//
// Valve header (always little-endian, also in big-endian console maps):
//   char id[4] = "LZMA"; u32 actual_size; u32 lzma_size; u8 properties[5];
// followed by a raw LZMA1 stream without an end marker (the decoder stops at actual_size).
//
// Decoders never allocate more than the output they actually produce, capped by `max_output`,
// so a forged size field cannot make them allocate gigabytes.
#pragma once

#include <array>
#include <cstdint>

#include "levelkit/core/bytes.hpp"
#include "levelkit/core/result.hpp"

namespace lk::bsp {

inline constexpr std::size_t kValveLzmaHeaderSize = 17;
// Default ceiling for one decompressed lump/entry (the BSP format limits files to 2 GiB).
inline constexpr std::size_t kDefaultMaxDecompressed = std::size_t{1} << 31;

struct LzmaProperties {
    std::array<std::uint8_t, 5> bytes{};  // lc/lp/pb byte, then the dictionary size (LE)
};

struct ValveLzmaHeader {
    std::uint32_t actual_size = 0;
    std::uint32_t lzma_size = 0;
    LzmaProperties properties;
};

// True if `data` starts with the "LZMA" magic.
bool has_valve_lzma_magic(ByteSpan data);
// Parses the 17-byte header (error "bsp.lzma-header" if too short or the magic is wrong).
Result<ValveLzmaHeader> parse_valve_lzma_header(ByteSpan data);

// Decompresses a Valve-header LZMA block. The stream may be followed by padding.
Result<Bytes> valve_lzma_decompress(ByteSpan data,
                                    std::size_t max_output = kDefaultMaxDecompressed);
// Compresses into a Valve-header LZMA block (LZMA1, no end marker), as the engine expects.
Result<Bytes> valve_lzma_compress(ByteSpan data);

// Raw LZMA1 decoding of exactly `size` bytes; `allow_end_marker` accepts streams that end with
// the optional end-of-payload marker (ZIP general-purpose flag bit 1).
Result<Bytes> lzma1_decode(const LzmaProperties& props, ByteSpan stream, std::size_t size,
                           bool allow_end_marker, std::size_t max_output = kDefaultMaxDecompressed);
// Raw LZMA1 encoding without an end marker; returns the stream and fills `props`.
Result<Bytes> lzma1_encode(ByteSpan data, LzmaProperties& props);

}  // namespace lk::bsp
