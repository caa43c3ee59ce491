#include "levelkit/dmx/io.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <charconv>
#include <cstring>

#include "internal.hpp"
#include "levelkit/core/text.hpp"

namespace lk::dmx {

namespace {

constexpr std::byte kGzip0{0x1f}, kGzip1{0x8b};

bool is_gzip(ByteSpan d) {
    return d.size() >= 2 && d[0] == kGzip0 && d[1] == kGzip1;
}

// Locates the deflate stream of a gzip member (RFC 1952 §2.3).
Result<std::size_t> gzip_body_offset(ByteSpan d) {
    ByteReader r(d);
    r.skip(2, "gzip magic");
    const std::uint8_t method = r.u8("gzip method");
    const std::uint8_t flags = r.u8("gzip flags");
    r.skip(6, "gzip mtime/xfl/os");
    if (r.ok() && method != 8) r.fail("dmx.bad-gzip", "gzip compression method is not deflate");
    if (flags & 4) {
        const std::uint16_t n = r.u16("gzip extra length");
        r.skip(n, "gzip extra field");
    }
    if (flags & 8) (void)r.cstring("gzip file name");
    if (flags & 16) (void)r.cstring("gzip comment");
    if (flags & 2) r.skip(2, "gzip header CRC");
    if (!r.ok()) return r.take_error().with_path("gzip header");
    return r.pos();
}

Result<Bytes> inflate_gzip(ByteSpan d, const ReadOptions& opt, Container& c) {
    LK_TRY_ASSIGN(const std::size_t body, gzip_body_offset(d));
    if (d.size() < body + 8) {
        return Diagnostic::error("dmx.bad-gzip", "gzip stream is truncated")
            .at_offset(static_cast<std::int64_t>(d.size()))
            .with_path("gzip");
    }
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
        return Diagnostic::error("dmx.bad-gzip", "zlib initialisation failed").with_path("gzip");
    }
    Bytes out;
    // The trailer's size field (mod 2^32) is a hint, never trusted for allocation beyond the cap.
    const std::uint32_t isize = load<std::uint32_t>(d.data() + d.size() - 4, Endian::little);
    out.reserve(std::min<std::uint64_t>({isize, opt.max_inflated_size, d.size() * 64ull}));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(d.data() + body));
    z.avail_in = static_cast<uInt>(d.size() - body - 8);
    int rc = Z_OK;
    while (rc == Z_OK) {
        if (out.size() >= opt.max_inflated_size) {
            inflateEnd(&z);
            return Diagnostic::error("dmx.too-large", "gzip content exceeds the size limit")
                .with_path("gzip");
        }
        const std::size_t at = out.size();
        const std::size_t chunk = std::max<std::size_t>(out.capacity() - at, 1 << 16);
        out.resize(at + chunk);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + at);
        z.avail_out = static_cast<uInt>(chunk);
        rc = inflate(&z, Z_NO_FLUSH);
        out.resize(at + chunk - z.avail_out);
        if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
        if (rc == Z_BUF_ERROR) rc = Z_OK;
    }
    const std::size_t consumed = body + (d.size() - body - 8 - z.avail_in);
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        return Diagnostic::error("dmx.bad-gzip", "deflate stream is corrupt or truncated")
            .at_offset(static_cast<std::int64_t>(consumed))
            .with_path("gzip");
    }
    if (consumed + 8 != d.size()) {
        return Diagnostic::error("dmx.bad-gzip", "data follows the gzip member")
            .at_offset(static_cast<std::int64_t>(consumed + 8))
            .with_path("gzip");
    }
    const std::uint32_t crc = load<std::uint32_t>(d.data() + consumed, Endian::little);
    const std::uint32_t actual = static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())));
    if (crc != actual || isize != static_cast<std::uint32_t>(out.size())) {
        return Diagnostic::error("dmx.bad-gzip", "gzip CRC or size does not match the content")
            .at_offset(static_cast<std::int64_t>(consumed))
            .with_path("gzip trailer");
    }
    c.gzip = true;
    c.gzip_header.assign(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(body));
    c.original.assign(d.begin(), d.end());
    c.inner_crc = crc;
    c.inner_size = out.size();
    return out;
}

Result<Bytes> deflate_gzip(const Container& c, const Bytes& inner) {
    const std::uint32_t crc = static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(inner.data()), static_cast<uInt>(inner.size())));
    if (!c.original.empty() && crc == c.inner_crc && inner.size() == c.inner_size) {
        return c.original;
    }
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        return Diagnostic::error("dmx.gzip", "zlib initialisation failed");
    }
    Bytes out = c.gzip_header;
    if (out.size() < 10) {
        // A minimal header: magic, deflate, no flags, no mtime, max compression, unknown OS.
        out = {kGzip0,       kGzip1,       std::byte{8}, std::byte{0}, std::byte{0},
               std::byte{0}, std::byte{0}, std::byte{0}, std::byte{2}, std::byte{255}};
    }
    const std::size_t at = out.size();
    out.resize(at + deflateBound(&z, static_cast<uLong>(inner.size())) + 8);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(inner.data()));
    z.avail_in = static_cast<uInt>(inner.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data() + at);
    z.avail_out = static_cast<uInt>(out.size() - at);
    const int rc = deflate(&z, Z_FINISH);
    const std::size_t n = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) return Diagnostic::error("dmx.gzip", "deflate failed");
    out.resize(at + n);
    ByteWriter w;
    w.u32(crc);
    w.u32(static_cast<std::uint32_t>(inner.size()));
    out.insert(out.end(), w.buffer().begin(), w.buffer().end());
    return out;
}

}  // namespace

bool looks_like_dmx(ByteSpan data) {
    Bytes head;
    if (is_gzip(data)) {
        // Inflate just enough to see the header.
        auto body = gzip_body_offset(data);
        if (!body || body.value() >= data.size()) return false;
        z_stream z{};
        if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return false;
        head.resize(64);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(data.data() + body.value()));
        z.avail_in = static_cast<uInt>(data.size() - body.value());
        z.next_out = reinterpret_cast<Bytef*>(head.data());
        z.avail_out = static_cast<uInt>(head.size());
        inflate(&z, Z_SYNC_FLUSH);
        head.resize(head.size() - z.avail_out);
        inflateEnd(&z);
        data = head;
    }
    const std::string_view t = as_text(data.first(std::min<std::size_t>(data.size(), 64)));
    return t.rfind("<!--", 0) == 0 && (t.find("dmx") != std::string_view::npos ||
                                       t.find("DMXVersion") != std::string_view::npos);
}

Result<Document> read(ByteSpan data, const ReadOptions& opt) {
    Document doc;
    Bytes inflated;
    if (is_gzip(data)) {
        LK_TRY_ASSIGN(inflated, inflate_gzip(data, opt, doc.container));
        data = inflated;
    }
    const std::string_view text = as_text(data);
    LK_TRY_ASSIGN(detail::ParsedHeader ph, detail::parse_header(text));
    doc.header = std::move(ph.header);
    if (doc.header.is_binary()) {
        LK_TRY(detail::read_binary(data, ph.end, doc));
    } else if (doc.header.is_kv2()) {
        LK_TRY(detail::read_kv2(text, ph.end, doc, opt));
    } else {
        return Diagnostic::error("dmx.unsupported",
                                 "unknown DMX encoding '" + printable(doc.header.encoding) + "'")
            .at_line(1, 1)
            .with_path("header");
    }
    // Ids levelkit invented when it wrote the file are recognised and marked, so the elements
    // read back as the id-less elements they were (document.hpp, Element::id_invented).
    for (std::size_t i = 0; i < doc.size(); ++i) {
        Element& e = doc[ElementRef{static_cast<std::int32_t>(i)}];
        if (e.has_id() && !e.external() && is_generated_id(e.id)) e.set_invented_id(e.id);
    }
    return doc;
}

Result<Bytes> write(const Document& doc, const WriteOptions& opt) {
    Bytes out;
    if (doc.header.is_binary()) {
        ByteWriter w;
        LK_TRY(detail::write_binary(doc, w));
        out = w.take();
    } else if (doc.header.is_kv2()) {
        detail::Kv2WriteOptions ko;
        ko.layout_hints = opt.layout_hints;
        LK_TRY(detail::write_kv2(doc, out, ko));
    } else {
        return Diagnostic::error("dmx.unsupported",
                                 "cannot write DMX encoding '" + doc.header.encoding + "'")
            .with_path("header");
    }
    if (doc.container.gzip) return deflate_gzip(doc.container, out);
    return out;
}

Result<void> write_to(const Document& doc, ByteSink& out, const WriteOptions& opt) {
    if (doc.header.is_binary() && !doc.container.gzip) {
        ByteWriter w;
        w.drain_to(out, std::size_t{1} << 20);
        LK_TRY(detail::write_binary(doc, w));
        return w.finish();
    }
    auto bytes = write(doc, opt);
    if (!bytes) return std::move(bytes).error();
    return out.write(bytes.value());
}

Result<std::string> dump_text(const Document& doc) {
    std::string text;
    detail::Kv2WriteOptions ko;
    ko.layout_hints = false;
    ko.dump = true;
    LK_TRY(detail::write_kv2(doc, text, ko));
    return text;
}

std::optional<Encoding> Encoding::parse(std::string_view text) {
    const std::size_t sep = text.find_first_of(": ");
    if (sep == std::string_view::npos) return std::nullopt;
    Encoding e;
    e.name = std::string(text.substr(0, sep));
    const std::string_view v = text.substr(sep + 1);
    auto r = std::from_chars(v.data(), v.data() + v.size(), e.version);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size()) return std::nullopt;
    const bool binary = e.name == "binary" || e.name == "binary_seqids";
    const bool kv2 =
        e.name == "keyvalues2" || e.name == "keyvalues2_flat" || e.name == "keyvalues2_noids";
    if (binary && detail::binary_version_supported(e.version)) return e;
    if (kv2 && e.version >= 1 && e.version <= 4) return e;
    return std::nullopt;
}

namespace {

std::string element_path(const Document& doc, std::size_t i) {
    const Element& e = doc.elements()[i];
    return fmt::format("element[{}] {}", i, e.type.str()) +
           (e.name.empty() ? std::string() : " '" + printable(e.name) + "'");
}

// uint8 / uint64 (scalars and arrays) as int32; false if a uint64 does not fit.
bool coerce_to_int(Value& v) {
    bool ok = true;
    auto fits = [&](std::uint64_t x) {
        ok = ok && x <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
        return static_cast<std::int32_t>(x);
    };
    if (auto* u = v.get_if<std::uint8_t>()) {
        v = static_cast<std::int32_t>(*u);
    } else if (auto* w = v.get_if<std::uint64_t>()) {
        v = fits(*w);
    } else if (auto* ua = v.get_if<std::vector<std::uint8_t>>()) {
        v = std::vector<std::int32_t>(ua->begin(), ua->end());
    } else if (auto* wa = v.get_if<std::vector<std::uint64_t>>()) {
        std::vector<std::int32_t> out;
        out.reserve(wa->size());
        for (std::uint64_t x : *wa) out.push_back(fits(x));
        v = std::move(out);
    }
    return ok;
}

}  // namespace

Result<void> convert(Document& doc, const Encoding& target, const ConvertOptions& opt) {
    if (!Encoding::parse(target.name + ":" + std::to_string(target.version))) {
        return Diagnostic::error(
            "dmx.bad-encoding", fmt::format("unknown encoding {} {}", target.name, target.version));
    }
    const bool to_binary = target.name.rfind("binary", 0) == 0;
    auto can_hold = [&](Type t) {
        return to_binary ? detail::binary_can_hold(target.version, t)
                         : detail::kv2_can_hold(target.version, t);
    };
    const bool prefix_ok = to_binary ? target.version >= 7 : target.version >= 4;
    if (!prefix_ok && doc.valid(doc.prefix)) {
        if (!opt.demote_prefix && !doc[doc.prefix].attributes.empty()) {
            return Diagnostic::error(
                       "dmx.prefix-not-representable",
                       fmt::format("{} {} cannot hold prefix attributes (first: '{}'); the "
                                   "demote_prefix option (CLI: --dmx-demote-prefix) keeps "
                                   "them as an ordinary element",
                                   target.name, target.version,
                                   printable(doc[doc.prefix].attributes.front().name.str())))
                .with_path("prefix");
        }
        doc.prefix = ElementRef::null();
    }
    for (std::size_t i = 0; i < doc.size(); ++i) {
        Element& e = doc.elements()[i];
        for (Attribute& a : e.attributes) {
            const Type t = a.value.type();
            if (can_hold(t)) continue;
            const Type s = scalar_of(t);
            if (opt.coerce_integers && (s == Type::uint8 || s == Type::uint64) &&
                can_hold(Type::int32)) {
                if (coerce_to_int(a.value)) continue;
                return Diagnostic::error("dmx.value-not-representable",
                                         "uint64 value does not fit int32")
                    .with_path(element_path(doc, i) + "/attribute '" + printable(a.name.str()) +
                               "'");
            }
            return Diagnostic::error("dmx.type-not-representable",
                                     fmt::format("type {} cannot be stored in {} {}{}",
                                                 type_name(t), target.name, target.version,
                                                 s == Type::uint8 || s == Type::uint64
                                                     ? " (the coerce_integers option, CLI: "
                                                       "--dmx-coerce-integers, stores it as int)"
                                                     : ""))
                .with_path(element_path(doc, i) + "/attribute '" + printable(a.name.str()) + "'");
        }
    }

    Header& h = doc.header;
    const bool was_binary = h.is_binary();
    if (to_binary) {
        if (doc.binary.version != 0 && doc.binary.version != target.version) {
            // The recorded layout describes another version (its table holds other strings).
            if (doc.binary.string_order != BinaryLayout::StringOrder::sorted) {
                doc.binary.string_order = BinaryLayout::StringOrder::valve;
            }
            doc.binary.string_table.clear();
            doc.binary.string_inserts.clear();
            doc.binary.version = target.version;
        }
    } else if (was_binary || h.encoding != target.name) {
        doc.kv2().placement_known = false;
        doc.kv2().toplevel.clear();
    }
    if (was_binary != to_binary) h.binary_eol = "\n";
    h.encoding = target.name;
    h.encoding_version = target.version;
    h.legacy = false;
    if (opt.format) {
        h.format = opt.format->first;
        h.format_version = opt.format->second;
    }
    h.text.clear();
    return success();
}

Result<Document> read(ByteSpan data, Diagnostics& warnings, const ReadOptions& opt) {
    (void)warnings;
    return read(data, opt);
}

}  // namespace lk::dmx
