#include "levelkit/bsp/entities.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "levelkit/core/text.hpp"

namespace lk::bsp {

namespace {

constexpr char kEsc = '\x1b';

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

Diagnostic entity_error(const kv::Document& doc, kv::Node n, std::string message) {
    const TextPos at = doc.locate(n.offset());
    return Diagnostic::error("bsp.bad-entities", std::move(message))
        .at_line(at.line, at.column)
        .with_path("lump[0]");
}

}  // namespace

std::optional<EntityOutput> EntityLump::parse_output(std::string_view key, std::string_view value) {
    const bool esc = value.find(kEsc) != std::string_view::npos;
    const auto fields = split(value, esc ? kEsc : ',');
    if (fields.size() != 5) return std::nullopt;
    EntityOutput o;
    o.output = key;
    o.target = fields[0];
    o.input = fields[1];
    o.parameter = fields[2];
    o.separator = esc ? OutputSeparator::esc : OutputSeparator::comma;
    const auto delay = parse_double(trim(fields[3]));
    const auto times = parse_int(trim(fields[4]));
    if (!esc && (!delay || !times)) return std::nullopt;
    o.delay = delay.value_or(0);
    o.times = times.value_or(-1);
    return o;
}

Result<EntityLump> EntityLump::parse(Blob lump, Diagnostics* warnings) {
    EntityLump e;
    const std::string_view all = lump.text();
    const std::size_t nul = std::min(all.find('\0'), all.size());
    e.trailer_ = std::string(all.substr(nul));
    // An empty lump (a map without entities) is an empty document.
    if (nul == 0) return e;
    auto doc = kv::Document::parse(lump.slice(0, nul), kv::ParseOptions::vmf(), warnings);
    if (!doc) return std::move(std::move(doc).error().with_path("lump[0]"));
    e.doc_ = std::move(doc).value();
    for (kv::Node ent : e.doc_.root()) {
        if (ent.kind() != kv::NodeKind::block || !ent.key().empty()) {
            return entity_error(
                e.doc_, ent,
                fmt::format("expected an entity block, found \"{}\"", printable(ent.key())));
        }
        for (kv::Node kvn : ent) {
            if (kvn.kind() != kv::NodeKind::value) {
                return entity_error(e.doc_, kvn, "entities cannot contain nested blocks");
            }
            if (e.separator_ == OutputSeparator::none) {
                if (auto o = parse_output(kvn.key(), kvn.value())) e.separator_ = o->separator;
            }
        }
    }
    return e;
}

Bytes EntityLump::write() const {
    std::string text = doc_.write();
    text += trailer_;
    const ByteSpan b = as_bytes(text);
    return Bytes(b.begin(), b.end());
}

std::vector<kv::Node> EntityLump::entities() const {
    std::vector<kv::Node> out;
    for (kv::Node n : doc_.root()) out.push_back(n);
    return out;
}

std::size_t EntityLump::size() const {
    return doc_.root().child_count();
}

Result<EntityLump> entities(const Bsp& bsp, Diagnostics* warnings) {
    return EntityLump::parse(bsp.lump(LumpId::entities).data(), warnings);
}

Result<void> replace_entities(Bsp& bsp, std::string_view text) {
    std::string owned(text);
    if (owned.find('\0') == std::string::npos) owned.push_back('\0');
    Blob blob = Blob::copy_of(std::string_view(owned));
    LK_TRY(EntityLump::parse(blob));
    return bsp.set_lump(LumpId::entities, std::move(blob));
}

}  // namespace lk::bsp
