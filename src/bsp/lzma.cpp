#include "levelkit/bsp/lzma.hpp"

#include <fmt/format.h>
#include <lzma.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace lk::bsp {

namespace {

constexpr std::uint8_t kMaxLcLpPb = 9 * 5 * 5;
constexpr std::uint32_t kMinDict = 4096;
constexpr int kEncoderPreset = 6;

Diagnostic lzma_error(std::string message) {
    return Diagnostic::error("bsp.lzma", std::move(message));
}

std::string_view lzma_ret_text(lzma_ret r) {
    switch (r) {
        case LZMA_MEM_ERROR:
            return "out of memory";
        case LZMA_MEMLIMIT_ERROR:
            return "memory limit reached";
        case LZMA_OPTIONS_ERROR:
            return "unsupported LZMA properties";
        case LZMA_DATA_ERROR:
            return "corrupt LZMA data";
        case LZMA_BUF_ERROR:
            return "LZMA stream is truncated";
        default:
            return "LZMA error";
    }
}

}  // namespace

bool has_valve_lzma_magic(ByteSpan data) {
    return data.size() >= 4 && std::memcmp(data.data(), "LZMA", 4) == 0;
}

Result<ValveLzmaHeader> parse_valve_lzma_header(ByteSpan data) {
    if (data.size() < kValveLzmaHeaderSize || !has_valve_lzma_magic(data)) {
        return Diagnostic::error("bsp.lzma-header", "missing or truncated Valve LZMA header")
            .at_offset(0);
    }
    ValveLzmaHeader h;
    h.actual_size = load<std::uint32_t>(data.data() + 4, Endian::little);
    h.lzma_size = load<std::uint32_t>(data.data() + 8, Endian::little);
    std::memcpy(h.properties.bytes.data(), data.data() + 12, 5);
    return h;
}

Result<Bytes> lzma1_decode(const LzmaProperties& props, ByteSpan stream, std::size_t size,
                           bool allow_end_marker, std::size_t max_output) {
    if (size > max_output) {
        return lzma_error(
            fmt::format("uncompressed size {} exceeds the limit of {} bytes", size, max_output));
    }
    std::uint8_t d = props.bytes[0];
    if (d >= kMaxLcLpPb) return lzma_error(fmt::format("invalid LZMA properties byte {}", d));
    lzma_options_lzma opt{};
    opt.lc = d % 9;
    d /= 9;
    opt.lp = d % 5;
    opt.pb = d / 5;
    // A dictionary larger than the output is never used; clamping it keeps a forged property
    // from making the decoder allocate gigabytes.
    const std::uint32_t dict = load<std::uint32_t>(
        reinterpret_cast<const std::byte*>(props.bytes.data()) + 1, Endian::little);
    const std::uint64_t useful = std::max<std::uint64_t>(kMinDict, size);
    opt.dict_size = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(dict, kMinDict, std::min<std::uint64_t>(useful, UINT32_MAX)));
    opt.ext_flags = allow_end_marker ? LZMA_LZMA1EXT_ALLOW_EOPM : 0;
    lzma_set_ext_size(opt, size);
    lzma_filter filters[2] = {{LZMA_FILTER_LZMA1EXT, &opt}, {LZMA_VLI_UNKNOWN, nullptr}};

    lzma_stream strm = LZMA_STREAM_INIT;
    lzma_ret r = lzma_raw_decoder(&strm, filters);
    if (r != LZMA_OK) return lzma_error(std::string(lzma_ret_text(r)));

    // The output grows with what is actually decoded, so a huge claimed size costs nothing
    // unless the stream really expands to it.
    Bytes out(std::min<std::size_t>(size, std::max<std::size_t>(1 << 16, stream.size() * 4)));
    strm.next_in = reinterpret_cast<const std::uint8_t*>(stream.data());
    strm.avail_in = stream.size();
    strm.next_out = reinterpret_cast<std::uint8_t*>(out.data());
    strm.avail_out = out.size();
    for (;;) {
        r = lzma_code(&strm, LZMA_FINISH);
        if (r == LZMA_STREAM_END) break;
        if (r == LZMA_OK && strm.avail_out == 0 && out.size() < size) {
            const std::size_t used = out.size();
            out.resize(std::min(size, used * 2));
            strm.next_out = reinterpret_cast<std::uint8_t*>(out.data()) + used;
            strm.avail_out = out.size() - used;
            continue;
        }
        if (r == LZMA_OK) continue;
        const std::uint64_t produced = strm.total_out;
        lzma_end(&strm);
        return lzma_error(fmt::format("{} after {} of {} bytes", lzma_ret_text(r), produced, size));
    }
    const std::uint64_t produced = strm.total_out;
    lzma_end(&strm);
    if (produced != size) {
        return lzma_error(fmt::format("LZMA stream ended after {} of {} bytes", produced, size));
    }
    out.resize(size);
    return out;
}

Result<Bytes> valve_lzma_decompress(ByteSpan data, std::size_t max_output) {
    LK_TRY_ASSIGN(const ValveLzmaHeader h, parse_valve_lzma_header(data));
    ByteSpan stream = data.subspan(kValveLzmaHeaderSize);
    // Some tools pad the block; the header's lzma_size is advisory, the size bound is what
    // remains.
    if (h.lzma_size < stream.size()) stream = stream.first(h.lzma_size);
    return lzma1_decode(h.properties, stream, h.actual_size, true, max_output);
}

Result<Bytes> lzma1_encode(ByteSpan data, LzmaProperties& props) {
    lzma_options_lzma opt{};
    if (lzma_lzma_preset(&opt, kEncoderPreset)) return lzma_error("LZMA preset unavailable");
    const std::uint64_t want = std::bit_ceil(std::max<std::uint64_t>(kMinDict, data.size()));
    opt.dict_size = static_cast<std::uint32_t>(std::min<std::uint64_t>(opt.dict_size, want));
    opt.ext_flags = 0;  // no end marker: the size travels in the container
    lzma_filter filters[2] = {{LZMA_FILTER_LZMA1EXT, &opt}, {LZMA_VLI_UNKNOWN, nullptr}};

    Bytes out(data.size() + data.size() / 8 + 1024);
    for (;;) {
        std::size_t pos = 0;
        const lzma_ret r = lzma_raw_buffer_encode(
            filters, nullptr, reinterpret_cast<const std::uint8_t*>(data.data()), data.size(),
            reinterpret_cast<std::uint8_t*>(out.data()), &pos, out.size());
        if (r == LZMA_OK) {
            out.resize(pos);
            break;
        }
        if (r != LZMA_BUF_ERROR) return lzma_error(std::string(lzma_ret_text(r)));
        out.resize(out.size() * 2);
    }
    props.bytes[0] = static_cast<std::uint8_t>((opt.pb * 5 + opt.lp) * 9 + opt.lc);
    store<std::uint32_t>(reinterpret_cast<std::byte*>(props.bytes.data()) + 1, opt.dict_size,
                         Endian::little);
    return out;
}

Result<Bytes> valve_lzma_compress(ByteSpan data) {
    if (data.size() > UINT32_MAX) return lzma_error("input too large for a Valve LZMA block");
    LzmaProperties props;
    LK_TRY_ASSIGN(Bytes stream, lzma1_encode(data, props));
    if (stream.size() > UINT32_MAX) return lzma_error("compressed block too large");
    Bytes out(kValveLzmaHeaderSize + stream.size());
    std::memcpy(out.data(), "LZMA", 4);
    store<std::uint32_t>(out.data() + 4, static_cast<std::uint32_t>(data.size()), Endian::little);
    store<std::uint32_t>(out.data() + 8, static_cast<std::uint32_t>(stream.size()), Endian::little);
    std::memcpy(out.data() + 12, props.bytes.data(), 5);
    std::memcpy(out.data() + kValveLzmaHeaderSize, stream.data(), stream.size());
    return out;
}

}  // namespace lk::bsp
