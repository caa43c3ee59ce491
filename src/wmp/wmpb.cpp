// WMPB: WED's binary level format (WED 7.8x/8 default save). No public description exists; the
// layout below was inferred from every WMPB file in the research corpus (98 files).
//
// After the magic `WMPB` comes a sequence of chunks. A chunk header is 8 bytes, little-endian:
// u8 id, u8 kind, u16 kind+1, u32 size (including the header). Kinds: 0 doubles, 1 bytes (a
// NUL-terminated string unless noted), 2 packed binary, 3 a 4-byte scalar, 4 a section (fixed
// prefix, then child chunks), 5 an object/payload container (fixed prefix, then child chunks).
// The meaning of an id depends on the container. Top level: section 1 (prefix: version 710,
// format 2, object/block/entity counts, 0; child: the banner string), section 2 (palette,
// WAD paths, texture folders) and the root object container.
//
// Object container prefix (8 bytes): u8 code, u8 subtype, u16 child count, u32 0. Children:
// class string (2,1), name (3,1, optional), position (1,0), angles (3,0), scale (5,0), the
// payload container (id by class, kind 5; none for groups), then child objects (1,5).
//
// Chunks the reader does not expect at their place are kept verbatim with their position, so
// the writer reproduces any file whose known chunks come in WED's order.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

#include "levelkit/wmp/wmp.hpp"
#include "model_util.hpp"

namespace lk::wmp {

namespace {

constexpr std::size_t kHeader = 8;
constexpr int kMaxDepth = 200;

struct Chunk {
    std::uint8_t id = 0, kind = 0;
    ByteSpan body;
    std::uint64_t offset = 0;  // absolute offset of the chunk header
    std::uint64_t body_offset() const { return offset + kHeader; }
};

struct Slot {
    std::uint8_t id, kind;
    bool repeat;
    bool active = true;
};

// Payload container ids and prefix sizes by class.
struct PayloadInfo {
    Kind kind;
    std::uint8_t id;
    std::size_t prefix;
};
constexpr PayloadInfo kPayloads[] = {
    {Kind::level, 4, 20}, {Kind::block, 2, 8},  {Kind::start, 6, 8}, {Kind::light, 7, 24},
    {Kind::sound, 8, 24}, {Kind::model, 9, 20}, {Kind::path, 10, 8}, {Kind::region, 11, 8},
};
const PayloadInfo* payload_info(Kind k) {
    for (const auto& p : kPayloads) {
        if (p.kind == k) return &p;
    }
    return nullptr;
}

std::uint8_t default_code(Kind k, const Level& lv, std::int32_t payload) {
    switch (k) {
        case Kind::level:
            return 0x01;
        case Kind::group:
            return 0x03;
        case Kind::block:
            return 0x04;
        case Kind::start:
            return 0x15;
        case Kind::light:
            return 0x25;
        case Kind::model:
            return payload >= 0 && lv.models[static_cast<std::size_t>(payload)].skills.size() > 8
                       ? 0x45
                       : 0x35;
        case Kind::sound:
            return 0x55;
        case Kind::path:
            return 0x65;
        case Kind::region:
            return 0x75;
    }
    return 0;
}

std::uint32_t default_payload_type(Kind k) {
    switch (k) {
        case Kind::level:
            return 0;
        case Kind::start:
            return 1;
        case Kind::light:
            return 2;
        case Kind::model:
            return 3;
        case Kind::sound:
            return 4;
        case Kind::path:
            return 6;
        case Kind::region:
            return 8;
        default:
            return 0;
    }
}

// Colours: WMPB bytes <-> text percentages (exact in both directions for 0..255).
double byte_to_percent(std::uint32_t b) {
    return b * 100.0 / 255.0;
}
std::uint32_t percent_to_byte(double p) {
    const double v = std::round(p * 255.0 / 100.0);
    if (!(v >= 0)) return 0;
    if (v > 4294967295.0) return 0xFFFFFFFFu;
    return static_cast<std::uint32_t>(v);
}
std::uint32_t to_u32(double v) {
    if (!(v >= 0)) return 0;
    if (v > 4294967295.0) return 0xFFFFFFFFu;
    return static_cast<std::uint32_t>(std::llround(v));
}

// 4-byte floats live in the model as doubles. Widening and narrowing are exact for every float
// except a signalling NaN, whose quiet bit the hardware conversion sets; NaNs are therefore
// moved bit by bit (sign, payload) so that a WMPB file writes back to its own bytes.
double widen_f32(float f) {
    if (!std::isnan(f)) return f;
    const auto b = std::bit_cast<std::uint32_t>(f);
    const std::uint64_t d = (std::uint64_t{b >> 31} << 63) | (std::uint64_t{0x7FF} << 52) |
                            (std::uint64_t{b & 0x7FFFFFu} << 29);
    return std::bit_cast<double>(d);
}
float narrow_f32(double v) {
    if (!std::isnan(v)) return static_cast<float>(v);
    const auto d = std::bit_cast<std::uint64_t>(v);
    std::uint32_t payload = static_cast<std::uint32_t>(d >> 29) & 0x7FFFFFu;
    if (payload == 0) payload = 0x400000u;  // a NaN whose payload is all below float precision
    return std::bit_cast<float>((static_cast<std::uint32_t>(d >> 63) << 31) | 0x7F800000u |
                                payload);
}

class Reader {
public:
    Reader(ByteSpan data, Level& lv, Diagnostics* warnings)
        : data_(data), lv_(lv), warnings_(warnings) {}

    Result<void> run();

private:
    Diagnostic error_at(std::uint64_t offset, std::string code, std::string msg,
                        std::string path) const {
        return Diagnostic::error(std::move(code), std::move(msg))
            .at_offset(static_cast<std::int64_t>(offset))
            .with_path(std::move(path));
    }

    Result<std::vector<Chunk>> split(ByteSpan body, std::uint64_t base, const std::string& path);
    // Slot index for each chunk, -1 for chunks kept raw.
    static std::vector<int> match(const std::vector<Chunk>& chunks, std::span<const Slot> slots);
    static RawChunk raw(const Chunk& c, std::size_t position);

    Result<std::string> string_of(const Chunk& c, const std::string& path) const;
    Result<void> need_size(const Chunk& c, std::size_t n, std::string_view what,
                           const std::string& path) const;
    Result<Vec3> vec3_of(const Chunk& c, const std::string& path) const;

    Result<void> section1(const Chunk& c);
    Result<void> section2(const Chunk& c);
    Result<std::uint32_t> object(const Chunk& c, int depth, const std::string& path);
    Result<void> payload(const Chunk& c, std::uint32_t obj, const std::string& path);
    Result<void> block(ByteReader& prefix, const std::vector<Chunk>& cs, Block& b, WmpbExtra& x,
                       const std::string& path);
    Result<void> face_record(const Chunk& c, Block& b, std::uint32_t& last,
                             const std::string& path);

    ByteSpan data_;
    Level& lv_;
    Diagnostics* warnings_;
};

Result<std::vector<Chunk>> Reader::split(ByteSpan body, std::uint64_t base,
                                         const std::string& path) {
    std::vector<Chunk> out;
    ByteReader r(body, Endian::little, base);
    while (!r.at_end()) {
        const std::uint64_t at = r.abs_pos();
        const std::uint8_t id = r.u8("chunk id");
        const std::uint8_t kind = r.u8("chunk kind");
        const std::uint16_t k2 = r.u16("chunk kind check");
        const std::uint32_t size = r.u32("chunk size");
        if (!r.ok()) return r.take_error().with_path(path);
        if (kind > 5 || k2 != kind + 1) {
            return error_at(at, "wmpb.bad-chunk-header",
                            "chunk header has kind " + std::to_string(kind) + " / " +
                                std::to_string(k2) + " (expected a kind 0..5 followed by kind+1)",
                            path);
        }
        if (size < kHeader || size - kHeader > r.remaining()) {
            return error_at(at, "wmpb.bad-chunk-size",
                            "chunk size " + std::to_string(size) + " does not fit (" +
                                std::to_string(r.remaining() + kHeader) + " bytes remain)",
                            path);
        }
        out.push_back({id, kind, r.bytes(size - kHeader, "chunk body"), at});
    }
    return out;
}

std::vector<int> Reader::match(const std::vector<Chunk>& chunks, std::span<const Slot> slots) {
    std::vector<int> out(chunks.size(), -1);
    std::size_t s = 0;
    std::vector<std::uint8_t> used(slots.size(), 0);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        for (std::size_t t = s; t < slots.size(); ++t) {
            if (!slots[t].active || slots[t].id != chunks[i].id || slots[t].kind != chunks[i].kind)
                continue;
            if (used[t] && !slots[t].repeat) continue;
            out[i] = static_cast<int>(t);
            used[t] = 1;
            s = t;
            break;
        }
    }
    return out;
}

RawChunk Reader::raw(const Chunk& c, std::size_t position) {
    RawChunk r;
    r.id = c.id;
    r.kind = c.kind;
    r.position = static_cast<std::uint32_t>(position);
    r.payload.resize(c.body.size());
    if (!c.body.empty()) std::memcpy(r.payload.data(), c.body.data(), c.body.size());
    return r;
}

Result<std::string> Reader::string_of(const Chunk& c, const std::string& path) const {
    const auto* p = reinterpret_cast<const char*>(c.body.data());
    const void* nul = c.body.empty() ? nullptr : std::memchr(p, 0, c.body.size());
    if (!nul || static_cast<const char*>(nul) != p + c.body.size() - 1) {
        return error_at(c.body_offset(), "wmpb.bad-string",
                        "string chunk must end with its only NUL byte", path);
    }
    return std::string(p, c.body.size() - 1);
}

Result<void> Reader::need_size(const Chunk& c, std::size_t n, std::string_view what,
                               const std::string& path) const {
    if (c.body.size() == n) return {};
    return error_at(c.offset, "wmpb.bad-chunk-size",
                    std::string(what) + " chunk has " + std::to_string(c.body.size()) +
                        " bytes, expected " + std::to_string(n),
                    path);
}

Result<Vec3> Reader::vec3_of(const Chunk& c, const std::string& path) const {
    LK_TRY(need_size(c, 24, "vector", path));
    ByteReader r(c.body, Endian::little, c.body_offset());
    return Vec3{r.f64("x"), r.f64("y"), r.f64("z")};
}

Result<void> Reader::run() {
    ByteReader r(data_);
    const ByteSpan magic = r.bytes(4, "magic");
    if (!r.ok() || std::memcmp(magic.data(), "WMPB", 4) != 0) {
        return Diagnostic::error("wmpb.bad-magic", "not a WMPB file (magic is not 'WMPB')")
            .at_offset(0);
    }
    LK_TRY_ASSIGN(auto top, split(data_.subspan(4), 4, "file"));
    static constexpr Slot kSlots[] = {{1, 4, false}, {2, 4, false}, {1, 5, false}};
    const auto slot = match(top, kSlots);
    bool have_root = false, have_s1 = false;
    for (std::size_t i = 0; i < top.size(); ++i) {
        switch (slot[i]) {
            case 0:
                LK_TRY(section1(top[i]));
                have_s1 = true;
                break;
            case 1:
                LK_TRY(section2(top[i]));
                break;
            case 2: {
                LK_TRY_ASSIGN(lv_.root, object(top[i], 0, "object[0]"));
                have_root = true;
                break;
            }
            default:
                lv_.wmpb_top_chunks.push_back(raw(top[i], i));
        }
    }
    if (!have_s1) {
        return error_at(4, "wmpb.missing-chunk", "the header section (1,4) is missing", "file");
    }
    if (!have_root) {
        return error_at(data_.size(), "wmpb.missing-chunk", "the root object container is missing",
                        "file");
    }
    if (warnings_) {
        auto warn = [&](std::string_view what, std::int64_t said, std::size_t has) {
            if (said == static_cast<std::int64_t>(has)) return;
            warnings_->add(Diagnostic::warning(
                "wmp.count-mismatch", "header says " + std::to_string(said) + " " +
                                          std::string(what) + ", file has " + std::to_string(has)));
        };
        warn("blocks", lv_.header.blocks, lv_.blocks.size());
        warn("entities", lv_.header.entities, lv_.entity_count());
        warn("objects", lv_.header.objects, lv_.objects.size());
    }
    return {};
}

Result<void> Reader::section1(const Chunk& c) {
    const std::string path = "header";
    ByteReader r(c.body, Endian::little, c.body_offset());
    lv_.header.wmpb_version = r.u32("version");
    lv_.header.wmpb_format = r.u32("format");
    lv_.header.objects = r.u32("object count");
    lv_.header.blocks = r.u32("block count");
    lv_.header.entities = r.u32("entity count");
    lv_.header.wmpb_reserved = r.u32("reserved");
    if (!r.ok()) return r.take_error().with_path(path);
    lv_.header.version = lv_.header.wmpb_version;
    LK_TRY_ASSIGN(auto cs, split(c.body.subspan(24), c.body_offset() + 24, path));
    static constexpr Slot kSlots[] = {{1, 1, false}};
    const auto slot = match(cs, kSlots);
    bool have_banner = false;
    for (std::size_t i = 0; i < cs.size(); ++i) {
        if (slot[i] == 0) {
            LK_TRY_ASSIGN(lv_.header.wmpb_banner, string_of(cs[i], path + "/banner"));
            have_banner = true;
        } else {
            lv_.wmpb_section1_chunks.push_back(raw(cs[i], i));
        }
    }
    if (!have_banner) {
        return error_at(c.offset, "wmpb.missing-chunk", "the header section has no banner", path);
    }
    return {};
}

Result<void> Reader::section2(const Chunk& c) {
    const std::string path = "wed";
    WedData& w = lv_.wed;
    w.present = true;
    w.has_palette = false;
    LK_TRY_ASSIGN(auto cs, split(c.body, c.body_offset(), path));
    static constexpr Slot kSlots[] = {{10, 1, false}, {4, 1, true}, {7, 1, true}};
    const auto slot = match(cs, kSlots);
    for (std::size_t i = 0; i < cs.size(); ++i) {
        switch (slot[i]) {
            case 0: {
                w.has_palette = true;
                const auto* p = reinterpret_cast<const std::uint8_t*>(cs[i].body.data());
                w.palette.assign(p, p + cs[i].body.size());
                break;
            }
            case 1: {
                LK_TRY_ASSIGN(std::string s, string_of(cs[i], path + "/wad"));
                w.wads.push_back({std::move(s), 1});
                break;
            }
            case 2: {
                LK_TRY_ASSIGN(std::string s, string_of(cs[i], path + "/texture_folder"));
                w.texture_folders.push_back(std::move(s));
                break;
            }
            default:
                lv_.wmpb_section2_chunks.push_back(raw(cs[i], i));
        }
    }
    return {};
}

Result<std::uint32_t> Reader::object(const Chunk& c, int depth, const std::string& path) {
    if (depth > kMaxDepth) {
        return error_at(c.offset, "wmpb.too-deep",
                        "objects are nested deeper than " + std::to_string(kMaxDepth), path);
    }
    const auto idx = static_cast<std::uint32_t>(lv_.objects.size());
    lv_.objects.emplace_back();
    {
        Object& o = lv_.objects.back();
        o.number = idx;
    }
    ByteReader r(c.body, Endian::little, c.body_offset());
    WmpbExtra x;
    x.has_code = true;
    x.code = r.u8("object code");
    x.subtype = r.u8("object subtype");
    const std::uint16_t child_count = r.u16("child count");
    x.reserved = r.u32("reserved");
    if (!r.ok()) return r.take_error().with_path(path);
    LK_TRY_ASSIGN(auto cs, split(c.body.subspan(8), c.body_offset() + 8, path));

    // The class decides the payload id, so read it first.
    std::optional<Kind> kind;
    std::string class_text;
    for (const Chunk& ch : cs) {
        if (ch.id == 2 && ch.kind == 1) {
            LK_TRY_ASSIGN(class_text, string_of(ch, path + "/class"));
            kind = kind_from_class_name(class_text);
            break;
        }
    }
    const PayloadInfo* pi = kind ? payload_info(*kind) : nullptr;
    const Slot slots[] = {{2, 1, false}, {3, 1, false},
                          {1, 0, false}, {3, 0, false},
                          {5, 0, false}, {pi ? pi->id : std::uint8_t{0}, 5, false, pi != nullptr},
                          {1, 5, true}};
    const auto slot = match(cs, slots);
    std::vector<std::uint32_t> children;
    bool have[5] = {};
    for (std::size_t i = 0; i < cs.size(); ++i) {
        const Chunk& ch = cs[i];
        switch (slot[i]) {
            case 0:
                have[0] = true;
                break;
            case 1: {
                LK_TRY_ASSIGN(std::string name, string_of(ch, path + "/name"));
                lv_.objects[idx].name = std::move(name);
                break;
            }
            case 2: {
                LK_TRY_ASSIGN(lv_.objects[idx].transform.position, vec3_of(ch, path + "/position"));
                have[2] = true;
                break;
            }
            case 3: {
                LK_TRY_ASSIGN(lv_.objects[idx].transform.angles, vec3_of(ch, path + "/angles"));
                have[3] = true;
                break;
            }
            case 4: {
                LK_TRY_ASSIGN(lv_.objects[idx].transform.scale, vec3_of(ch, path + "/scale"));
                have[4] = true;
                break;
            }
            case 5: {
                lv_.objects[idx].kind = *kind;
                LK_TRY(payload(ch, idx, path + "/payload"));
                break;
            }
            case 6: {
                const std::string cp = path + "/object[" + std::to_string(children.size()) + "]";
                LK_TRY_ASSIGN(std::uint32_t ci, object(ch, depth + 1, cp));
                children.push_back(ci);
                break;
            }
            default:
                x.object_chunks.push_back(raw(ch, i));
        }
    }
    for (int k : {0, 2, 3, 4}) {
        if (!have[k]) {
            static constexpr const char* kWhat[] = {"class", "", "position", "angles", "scale"};
            return error_at(c.offset, "wmpb.missing-chunk",
                            std::string("object container has no ") + kWhat[k] + " chunk", path);
        }
    }
    if (child_count != children.size()) {
        return error_at(c.body_offset() + 2, "wmpb.bad-child-count",
                        "object prefix announces " + std::to_string(child_count) +
                            " children, the container holds " + std::to_string(children.size()),
                        path);
    }
    Object& o = lv_.objects[idx];
    o.class_text = std::move(class_text);
    o.children = std::move(children);
    // Keep payload-specific extras gathered by payload().
    x.payload_type = o.wmpb.payload_type;
    x.payload_word = o.wmpb.payload_word;
    x.payload_chunks = std::move(o.wmpb.payload_chunks);
    o.wmpb = std::move(x);
    return idx;
}

Result<void> Reader::payload(const Chunk& c, std::uint32_t obj, const std::string& path) {
    const Kind kind = lv_.objects[obj].kind;
    const PayloadInfo* pi = payload_info(kind);
    if (c.body.size() < pi->prefix) {
        return error_at(c.offset, "wmpb.bad-chunk-size",
                        std::string(class_name(kind)) + " payload is shorter than its " +
                            std::to_string(pi->prefix) + "-byte prefix",
                        path);
    }
    ByteReader pre(c.body.first(pi->prefix), Endian::little, c.body_offset());
    LK_TRY_ASSIGN(auto cs, split(c.body.subspan(pi->prefix), c.body_offset() + pi->prefix, path));
    WmpbExtra& x = lv_.objects[obj].wmpb;
    auto keep_raw = [&](const std::vector<int>& slot) {
        for (std::size_t i = 0; i < cs.size(); ++i) {
            if (slot[i] < 0) x.payload_chunks.push_back(raw(cs[i], i));
        }
    };
    auto count_of = [&](const std::vector<int>& slot, int s) {
        return static_cast<std::size_t>(std::count(slot.begin(), slot.end(), s));
    };
    auto set_payload = [&](std::size_t index) {
        lv_.objects[obj].payload = static_cast<std::int32_t>(index);
    };
    switch (kind) {
        case Kind::level: {
            LevelInfo& li = lv_.levels.emplace_back();
            set_payload(lv_.levels.size() - 1);
            x.payload_type = pre.u32("type");
            x.payload_word = pre.u32("flags");
            li.nexus = pre.u32("nexus");
            li.sun_azimuth = widen_f32(pre.f32("sun azimuth"));
            li.sun_elevation = widen_f32(pre.f32("sun elevation"));
            static constexpr Slot kSlots[] = {{4, 3, false}, {5, 1, false}, {6, 1, false},
                                              {1, 3, true},  {2, 3, false}, {3, 3, false}};
            auto slot = match(cs, kSlots);
            // At most four fog colours; any further ones stay raw.
            for (std::size_t i = 0, fog = 0; i < cs.size(); ++i) {
                if (slot[i] == 3 && ++fog > 4) slot[i] = -1;
            }
            if (count_of(slot, 0) != 1 || count_of(slot, 2) != 1 || count_of(slot, 3) != 4 ||
                count_of(slot, 4) != 1 || count_of(slot, 5) != 1) {
                return error_at(c.offset, "wmpb.missing-chunk",
                                "level payload lacks one of its scalar, palette or colour chunks",
                                path);
            }
            std::size_t fog = 0;
            for (std::size_t i = 0; i < cs.size(); ++i) {
                const Chunk& ch = cs[i];
                auto colour = [&](std::size_t ci) -> Result<void> {
                    LK_TRY(need_size(ch, 4, "colour", path));
                    const auto* p = reinterpret_cast<const std::uint8_t*>(ch.body.data());
                    li.wmpb_color_tags[ci] = p[0];
                    li.colors.resize(6);
                    li.colors[ci] = {byte_to_percent(p[1]), byte_to_percent(p[2]),
                                     byte_to_percent(p[3])};
                    return {};
                };
                switch (slot[i]) {
                    case 0: {
                        LK_TRY(need_size(ch, 4, "scalar", path));
                        ByteReader br(ch.body, Endian::little, ch.body_offset());
                        li.wmpb_scalar = br.u32("scalar");
                        break;
                    }
                    case 1: {
                        LK_TRY_ASSIGN(std::string s, string_of(ch, path + "/script"));
                        li.script = std::move(s);
                        break;
                    }
                    case 2: {
                        LK_TRY_ASSIGN(li.palette, string_of(ch, path + "/palette"));
                        break;
                    }
                    case 3:
                        LK_TRY(colour(fog++));
                        break;
                    case 4:
                        LK_TRY(colour(4));
                        break;
                    case 5:
                        LK_TRY(colour(5));
                        break;
                    default:
                        break;
                }
            }
            keep_raw(slot);
            break;
        }
        case Kind::block: {
            Block& b = lv_.blocks.emplace_back();
            b.number = static_cast<std::int64_t>(lv_.blocks.size() - 1);
            set_payload(lv_.blocks.size() - 1);
            LK_TRY(block(pre, cs, b, x, path));
            break;
        }
        case Kind::model: {
            Model& m = lv_.models.emplace_back();
            set_payload(lv_.models.size() - 1);
            x.payload_type = pre.u32("type");
            m.flags = pre.u32("flags");
            x.payload_word = pre.u32("file type");
            m.ambient = widen_f32(pre.f32("ambient"));
            m.albedo = widen_f32(pre.f32("albedo"));
            static constexpr Slot kSlots[] = {{3, 1, false},  {11, 1, false}, {12, 1, false},
                                              {11, 2, false}, {8, 1, false},  {13, 1, false},
                                              {14, 1, false}, {15, 1, true}};
            const auto slot = match(cs, kSlots);
            if (count_of(slot, 0) != 1 || count_of(slot, 1) != 1 || count_of(slot, 3) != 1) {
                return error_at(c.offset, "wmpb.missing-chunk",
                                "model payload lacks its name, file or skills chunk", path);
            }
            for (std::size_t i = 0; i < cs.size(); ++i) {
                const Chunk& ch = cs[i];
                switch (slot[i]) {
                    case 0: {
                        LK_TRY_ASSIGN(m.name, string_of(ch, path + "/name"));
                        break;
                    }
                    case 1: {
                        LK_TRY_ASSIGN(m.file, string_of(ch, path + "/file"));
                        break;
                    }
                    case 2: {
                        LK_TRY_ASSIGN(std::string s, string_of(ch, path + "/action"));
                        m.action = std::move(s);
                        break;
                    }
                    case 3: {
                        ByteReader br(ch.body, Endian::little, ch.body_offset());
                        const std::uint32_t n = br.u32("skill count");
                        if (!br.check_count(n, 8, "skills")) {
                            return br.take_error().with_path(path + "/skills");
                        }
                        LK_TRY(need_size(ch, 4 + std::size_t{n} * 8, "skills", path + "/skills"));
                        m.skills.resize(n);
                        for (double& s : m.skills) s = br.f64("skill");
                        break;
                    }
                    case 4: {
                        LK_TRY_ASSIGN(std::string s, string_of(ch, path + "/material"));
                        m.material = std::move(s);
                        break;
                    }
                    case 5: {
                        LK_TRY_ASSIGN(std::string s, string_of(ch, path + "/path"));
                        m.path = std::move(s);
                        break;
                    }
                    case 6: {
                        LK_TRY_ASSIGN(std::string s, string_of(ch, path + "/string2"));
                        m.string2 = std::move(s);
                        break;
                    }
                    case 7: {
                        if (ch.body.size() < 2) {
                            return error_at(ch.offset, "wmpb.bad-chunk-size",
                                            "tagged string chunk is shorter than its tag",
                                            path + "/strings");
                        }
                        Chunk tail = ch;
                        tail.body = ch.body.subspan(2);
                        tail.offset += 2;
                        LK_TRY_ASSIGN(std::string s, string_of(tail, path + "/strings"));
                        TaggedString ts;
                        ts.tag = load<std::uint16_t>(ch.body.data(), Endian::little);
                        ts.text = std::move(s);
                        m.strings.push_back(std::move(ts));
                        break;
                    }
                    default:
                        break;
                }
            }
            // WMPB models spell out everything the extended text record has.
            m.text_extended = true;
            m.text_material_lines = m.material.has_value() || !m.strings.empty();
            keep_raw(slot);
            break;
        }
        case Kind::light: {
            Light& l = lv_.lights.emplace_back();
            set_payload(lv_.lights.size() - 1);
            x.payload_type = pre.u32("type");
            l.flags = pre.u32("flags");
            l.color.r = byte_to_percent(pre.u32("red"));
            l.color.g = byte_to_percent(pre.u32("green"));
            l.color.b = byte_to_percent(pre.u32("blue"));
            l.range = widen_f32(pre.f32("range"));
            keep_raw(std::vector<int>(cs.size(), -1));
            break;
        }
        case Kind::sound: {
            Sound& s = lv_.sounds.emplace_back();
            set_payload(lv_.sounds.size() - 1);
            x.payload_type = pre.u32("type");
            s.flags = pre.u32("flags");
            s.volume = pre.u32("volume");
            s.param2 = pre.u32("value");
            s.param3 = pre.u32("value");
            s.range = pre.u32("range");
            static constexpr Slot kSlots[] = {{11, 1, false}};
            const auto slot = match(cs, kSlots);
            if (count_of(slot, 0) != 1) {
                return error_at(c.offset, "wmpb.missing-chunk", "sound payload has no file", path);
            }
            for (std::size_t i = 0; i < cs.size(); ++i) {
                if (slot[i] == 0) {
                    LK_TRY_ASSIGN(s.file, string_of(cs[i], path + "/file"));
                }
            }
            keep_raw(slot);
            break;
        }
        case Kind::start:
        case Kind::region:
        case Kind::path: {
            x.payload_type = pre.u32("type");
            const std::uint32_t flags = pre.u32("flags");
            std::string name;
            bool have_name = false;
            if (kind == Kind::start) {
                static constexpr Slot kSlots[] = {{3, 1, false}};
                const auto slot = match(cs, kSlots);
                for (std::size_t i = 0; i < cs.size(); ++i) {
                    if (slot[i] == 0) {
                        LK_TRY_ASSIGN(name, string_of(cs[i], path + "/name"));
                        have_name = true;
                    }
                }
                Start& s = lv_.starts.emplace_back();
                set_payload(lv_.starts.size() - 1);
                s.flags = flags;
                s.name = std::move(name);
                keep_raw(slot);
            } else if (kind == Kind::region) {
                static constexpr Slot kSlots[] = {{9, 0, false}, {3, 1, false}};
                const auto slot = match(cs, kSlots);
                Region& g = lv_.regions.emplace_back();
                set_payload(lv_.regions.size() - 1);
                g.flags = flags;
                bool have_box = false;
                for (std::size_t i = 0; i < cs.size(); ++i) {
                    if (slot[i] == 0) {
                        LK_TRY(need_size(cs[i], 48, "region bounds", path + "/bounds"));
                        ByteReader br(cs[i].body, Endian::little, cs[i].body_offset());
                        g.mins = {br.f64("x"), br.f64("y"), br.f64("z")};
                        g.maxs = {br.f64("x"), br.f64("y"), br.f64("z")};
                        have_box = true;
                    } else if (slot[i] == 1) {
                        LK_TRY_ASSIGN(g.name, string_of(cs[i], path + "/name"));
                        have_name = true;
                    }
                }
                if (!have_box) {
                    return error_at(c.offset, "wmpb.missing-chunk", "region has no bounds", path);
                }
                keep_raw(slot);
            } else {
                static constexpr Slot kSlots[] = {
                    {3, 1, false}, {1, 2, false}, {13, 2, false}, {15, 2, false}};
                const auto slot = match(cs, kSlots);
                Path& p = lv_.paths.emplace_back();
                set_payload(lv_.paths.size() - 1);
                p.flags = flags;
                if (count_of(slot, 1) != 1 || count_of(slot, 2) != 1 || count_of(slot, 3) != 1) {
                    return error_at(c.offset, "wmpb.missing-chunk",
                                    "path payload lacks its nodes, skills or edges", path);
                }
                for (std::size_t i = 0; i < cs.size(); ++i) {
                    const Chunk& ch = cs[i];
                    ByteReader br(ch.body, Endian::little, ch.body_offset());
                    switch (slot[i]) {
                        case 0: {
                            LK_TRY_ASSIGN(p.name, string_of(ch, path + "/name"));
                            have_name = true;
                            break;
                        }
                        case 1: {
                            const std::uint32_t n = br.u32("node count");
                            if (!br.check_count(n, 24, "path nodes")) {
                                return br.take_error().with_path(path + "/nodes");
                            }
                            LK_TRY(need_size(ch, 4 + std::size_t{n} * 24, "path nodes",
                                             path + "/nodes"));
                            p.nodes.resize(n);
                            for (Vec3& v : p.nodes) v = {br.f64("x"), br.f64("y"), br.f64("z")};
                            break;
                        }
                        case 2: {
                            const std::uint32_t n = br.u32("node count");
                            const std::uint32_t k = br.u32("skills per node");
                            if (!br.check_count(std::uint64_t{n} * k, 8, "node skills")) {
                                return br.take_error().with_path(path + "/skills");
                            }
                            LK_TRY(need_size(ch, 8 + std::size_t{n} * k * 8, "node skills",
                                             path + "/skills"));
                            if (k == 0 && n != 0) {
                                return error_at(ch.offset, "wmpb.bad-count",
                                                "node skills with zero skills per node",
                                                path + "/skills");
                            }
                            p.skills_per_node = k;
                            p.node_skills.resize(std::size_t{n} * k);
                            for (double& v : p.node_skills) v = br.f64("skill");
                            break;
                        }
                        case 3: {
                            const std::uint32_t n = br.u32("edge count");
                            if (!br.check_count(n, 40, "path edges")) {
                                return br.take_error().with_path(path + "/edges");
                            }
                            LK_TRY(need_size(ch, 4 + std::size_t{n} * 40, "path edges",
                                             path + "/edges"));
                            p.edges.resize(n);
                            for (PathEdge& e : p.edges) {
                                e.from = br.u32("from");
                                e.to = br.u32("to");
                                for (double& v : e.values) v = br.f64("edge value");
                            }
                            break;
                        }
                        default:
                            break;
                    }
                }
                keep_raw(slot);
            }
            if (!have_name) {
                return error_at(c.offset, "wmpb.missing-chunk",
                                std::string(class_name(kind)) + " payload has no name", path);
            }
            break;
        }
        case Kind::group:
            break;
    }
    if (!pre.ok()) return pre.take_error().with_path(path);
    return {};
}

Result<void> Reader::block(ByteReader& pre, const std::vector<Chunk>& cs, Block& b, WmpbExtra& x,
                           const std::string& path) {
    b.index = pre.u32("block index");
    b.flags = pre.u32("block flags");
    static constexpr Slot kSlots[] = {{8, 1, false}, {1, 2, false}, {17, 2, false}, {18, 2, true}};
    const auto slot = match(cs, kSlots);
    if (std::count(slot.begin(), slot.end(), 1) != 1 ||
        std::count(slot.begin(), slot.end(), 2) != 1) {
        return error_at(cs.empty() ? pre.abs_pos() : cs.front().offset, "wmpb.missing-chunk",
                        "block payload lacks its vertex or face list", path);
    }
    std::uint32_t last = 0;
    bool first_record = true;
    for (std::size_t i = 0; i < cs.size(); ++i) {
        const Chunk& ch = cs[i];
        ByteReader br(ch.body, Endian::little, ch.body_offset());
        switch (slot[i]) {
            case 0: {
                LK_TRY_ASSIGN(std::string s, string_of(ch, path + "/function"));
                b.function = std::move(s);
                break;
            }
            case 1: {
                const std::uint32_t n = br.u32("vertex count");
                if (!br.check_count(n, 24, "vertices"))
                    return br.take_error().with_path(path + "/vertices");
                LK_TRY(need_size(ch, 4 + std::size_t{n} * 24, "vertex list", path + "/vertices"));
                b.vertices.resize(n);
                for (Vec3& v : b.vertices) v = {br.f64("x"), br.f64("y"), br.f64("z")};
                break;
            }
            case 2: {
                const std::uint32_t n = br.u32("face count");
                if (!br.check_count(n, 2, "faces"))
                    return br.take_error().with_path(path + "/faces");
                b.faces.resize(n);
                for (std::uint32_t f = 0; f < n; ++f) {
                    const std::uint16_t k = br.u16("face vertex count");
                    if (!br.check_count(k, 2, "face vertex indices")) break;
                    auto& idx = b.faces[f].indices;
                    idx.resize(k);
                    for (auto& v : idx) {
                        const std::uint64_t at = br.abs_pos();
                        v = br.u16("vertex index");
                        if (br.ok() && v >= b.vertices.size()) {
                            return error_at(at, "wmp.bad-vertex-index",
                                            "vertex index " + std::to_string(v) +
                                                " is out of range (the block has " +
                                                std::to_string(b.vertices.size()) + " vertices)",
                                            path + "/face[" + std::to_string(f) + "]");
                        }
                    }
                    b.faces[f].has_surface = false;
                    b.faces[f].texture = "#default";
                }
                if (!br.ok()) return br.take_error().with_path(path + "/faces");
                if (!br.at_end()) {
                    return error_at(br.abs_pos(), "wmpb.trailing-bytes",
                                    "face list has bytes after its last face", path + "/faces");
                }
                break;
            }
            case 3: {
                if (!first_record) ++last;
                LK_TRY(face_record(ch, b, last, path));
                first_record = false;
                break;
            }
            default:
                x.payload_chunks.push_back(raw(ch, i));
        }
    }
    return {};
}

Result<void> Reader::face_record(const Chunk& c, Block& b, std::uint32_t& last,
                                 const std::string& path) {
    ByteReader r(c.body, Endian::little, c.body_offset());
    const std::uint64_t at = r.abs_pos();
    const std::uint32_t fi = r.u32("face index");
    if (!r.ok()) return r.take_error().with_path(path);
    const std::string fp = path + "/face[" + std::to_string(fi) + "]";
    if (fi >= b.faces.size()) {
        return error_at(at, "wmpb.bad-face-index",
                        "surface record for face " + std::to_string(fi) + " but the block has " +
                            std::to_string(b.faces.size()) + " faces",
                        path);
    }
    if (fi < last || b.faces[fi].has_surface) {
        return error_at(at, "wmpb.face-record-order",
                        "surface records must come in increasing face order", fp);
    }
    last = fi;
    Face& f = b.faces[fi];
    f.has_surface = true;
    f.texture.clear();
    f.flags = r.u32("surface flags");
    f.ambient = widen_f32(r.f32("ambient"));
    f.albedo = widen_f32(r.f32("albedo"));
    if (!r.ok()) return r.take_error().with_path(fp);
    LK_TRY_ASSIGN(auto cs, split(c.body.subspan(16), c.body_offset() + 16, fp));
    static constexpr Slot kSlots[] = {{3, 1, false}, {7, 2, false}, {5, 2, false}, {9, 2, false}};
    const auto slot = match(cs, kSlots);
    bool have_tex = false;
    for (std::size_t i = 0; i < cs.size(); ++i) {
        const Chunk& ch = cs[i];
        ByteReader br(ch.body, Endian::little, ch.body_offset());
        switch (slot[i]) {
            case 0: {
                LK_TRY_ASSIGN(f.texture, string_of(ch, fp + "/texture"));
                have_tex = true;
                break;
            }
            case 1: {
                const std::uint32_t n = br.u32("uv count");
                if (!br.check_count(n, 16, "uvs")) return br.take_error().with_path(fp + "/uv");
                LK_TRY(need_size(ch, 4 + std::size_t{n} * 16, "uv list", fp + "/uv"));
                f.uvs.resize(n);
                for (auto& uv : f.uvs) uv = {br.f64("u"), br.f64("v")};
                f.empty_uv_list = n == 0;
                break;
            }
            case 2: {
                LK_TRY(need_size(ch, 64, "texture vectors", fp + "/texture_vectors"));
                TexAxis a, b2;
                a.axis = {br.f64("x"), br.f64("y"), br.f64("z")};
                a.offset = br.f64("offset");
                b2.axis = {br.f64("x"), br.f64("y"), br.f64("z")};
                b2.offset = br.f64("offset");
                f.t1 = a;
                f.t2 = b2;
                break;
            }
            case 3: {
                LK_TRY(need_size(ch, 40, "texture transform", fp + "/texture_transform"));
                TexTransform t;
                t.offset_x = br.f64("x offset");
                t.offset_y = br.f64("y offset");
                t.rotation = br.f64("rotation");
                t.scale_x = br.f64("x scale");
                t.scale_y = br.f64("y scale");
                f.transform = t;
                break;
            }
            default:
                f.wmpb_chunks.push_back(raw(ch, i));
        }
    }
    if (!have_tex) {
        return error_at(c.offset, "wmpb.missing-chunk", "surface record has no texture", fp);
    }
    return {};
}

// --- writer ------------------------------------------------------------------------------

class Writer {
public:
    explicit Writer(const Level& lv) : lv_(lv) { w_.reserve(1 << 16); }
    Result<Bytes> run();

private:
    std::size_t open(std::uint8_t id, std::uint8_t kind) {
        const std::size_t at = w_.size();
        w_.u8(id);
        w_.u8(kind);
        w_.u16(static_cast<std::uint16_t>(kind + 1));
        w_.u32(0);
        return at;
    }
    void close(std::size_t at) {
        w_.patch<std::uint32_t>(at + 4, static_cast<std::uint32_t>(w_.size() - at));
    }
    void string(std::uint8_t id, std::string_view s) {
        const std::size_t at = open(id, 1);
        w_.cstring(s);
        close(at);
    }
    void vec3(std::uint8_t id, const Vec3& v) {
        const std::size_t at = open(id, 0);
        w_.f64(v.x);
        w_.f64(v.y);
        w_.f64(v.z);
        close(at);
    }
    void raw(const RawChunk& r) {
        const std::size_t at = open(r.id, r.kind);
        w_.bytes({reinterpret_cast<const std::byte*>(r.payload.data()), r.payload.size()});
        close(at);
    }

    // Interleaves raw chunks at their recorded positions among the known ones.
    class Mixer {
    public:
        Mixer(Writer& w, const std::vector<RawChunk>& raws) : w_(w), raws_(raws) {}
        // Call before writing each known chunk.
        void known() {
            while (next_ < raws_.size() && raws_[next_].position <= n_) {
                w_.raw(raws_[next_++]);
                ++n_;
            }
            ++n_;
        }
        void finish() {
            while (next_ < raws_.size()) w_.raw(raws_[next_++]);
        }

    private:
        Writer& w_;
        const std::vector<RawChunk>& raws_;
        std::size_t next_ = 0;
        std::uint32_t n_ = 0;
    };

    Result<void> object(std::uint32_t idx, int depth);
    void payload(const Object& o);
    void face_record(const Face& f, std::uint32_t index);

    const Level& lv_;
    ByteWriter w_;
};

Result<Bytes> Writer::run() {
    if (lv_.objects.empty() || lv_.root >= lv_.objects.size()) {
        return Diagnostic::error("wmp.no-root", "a WMPB file needs a root object");
    }
    w_.text("WMPB");
    Mixer top(*this, lv_.wmpb_top_chunks);
    {
        top.known();
        const std::size_t at = open(1, 4);
        const Header& h = lv_.header;
        w_.u32(h.wmpb_version);
        w_.u32(h.wmpb_format);
        w_.u32(static_cast<std::uint32_t>(h.objects));
        w_.u32(static_cast<std::uint32_t>(h.blocks));
        w_.u32(static_cast<std::uint32_t>(h.entities));
        w_.u32(h.wmpb_reserved);
        Mixer m(*this, lv_.wmpb_section1_chunks);
        m.known();
        string(1, h.wmpb_banner);
        m.finish();
        close(at);
    }
    if (lv_.wed.present) {
        top.known();
        const std::size_t at = open(2, 4);
        Mixer m(*this, lv_.wmpb_section2_chunks);
        const WedData& wed = lv_.wed;
        if (wed.has_palette) {
            m.known();
            const std::size_t p = open(10, 1);
            w_.bytes({reinterpret_cast<const std::byte*>(wed.palette.data()), wed.palette.size()});
            close(p);
        }
        for (const Wad& wad : wed.wads) {
            m.known();
            string(4, wad.path);
        }
        for (const std::string& f : wed.texture_folders) {
            m.known();
            string(7, f);
        }
        m.finish();
        close(at);
    }
    top.known();
    LK_TRY(object(lv_.root, 0));
    top.finish();
    return w_.take();
}

Result<void> Writer::object(std::uint32_t idx, int depth) {
    if (depth > kMaxDepth) {
        return Diagnostic::error("wmp.too-deep", "objects are nested too deeply (or form a cycle)");
    }
    const Object& o = lv_.objects[idx];
    const WmpbExtra& x = o.wmpb;
    const std::size_t at = open(1, 5);
    const bool has_payload = o.kind != Kind::group && o.payload >= 0 &&
                             static_cast<std::size_t>(o.payload) < lv_.count(o.kind);
    std::uint8_t code = x.code, subtype = x.subtype;
    if (!x.has_code) {
        code = default_code(o.kind, lv_, has_payload ? o.payload : -1);
        subtype = 0;
        if (o.kind == Kind::block && has_payload) {
            subtype = (lv_.blocks[static_cast<std::size_t>(o.payload)].flags &
                       block_flag::world_texture_offsets)
                          ? 2
                          : 1;
        } else if (o.kind == Kind::model && has_payload) {
            subtype = static_cast<std::uint8_t>(
                model_file_type(lv_.models[static_cast<std::size_t>(o.payload)].file));
        }
    }
    w_.u8(code);
    w_.u8(subtype);
    w_.u16(static_cast<std::uint16_t>(o.children.size()));
    w_.u32(x.reserved);
    Mixer m(*this, x.object_chunks);
    m.known();
    string(2, o.class_text.empty() ? class_name(o.kind) : std::string_view(o.class_text));
    if (o.name) {
        m.known();
        string(3, *o.name);
    }
    m.known();
    vec3(1, o.transform.position);
    m.known();
    vec3(3, o.transform.angles);
    m.known();
    vec3(5, o.transform.scale);
    if (has_payload) {
        m.known();
        payload(o);
    }
    for (std::uint32_t c : o.children) {
        m.known();
        LK_TRY(object(c, depth + 1));
    }
    m.finish();
    close(at);
    return {};
}

void Writer::payload(const Object& o) {
    const PayloadInfo* pi = payload_info(o.kind);
    const WmpbExtra& x = o.wmpb;
    const auto pi_index = static_cast<std::size_t>(o.payload);
    const std::uint32_t type = x.has_code ? x.payload_type : default_payload_type(o.kind);
    const std::size_t at = open(pi->id, 5);
    Mixer m(*this, x.payload_chunks);
    switch (o.kind) {
        case Kind::level: {
            const LevelInfo& li = lv_.levels[pi_index];
            w_.u32(type);
            w_.u32(x.has_code ? x.payload_word : 0);
            w_.u32(to_u32(li.nexus));
            w_.f32(narrow_f32(li.sun_azimuth));
            w_.f32(narrow_f32(li.sun_elevation));
            auto scalar = [&](std::uint8_t id, std::uint32_t v) {
                m.known();
                const std::size_t c = open(id, 3);
                w_.u32(v);
                close(c);
            };
            // WED's defaults for colours a text level does not spell out: black fog, sun
            // 150,150,150, ambient 50,50,50.
            auto colour_value = [&](std::size_t i) {
                if (i < li.colors.size()) return li.colors[i];
                const double v = i == 4 ? byte_to_percent(150) : i == 5 ? byte_to_percent(50) : 0.0;
                return Rgb{v, v, v};
            };
            auto colour = [&](std::uint8_t id, std::size_t i) {
                const Rgb rgb = colour_value(i);
                m.known();
                const std::size_t c = open(id, 3);
                w_.u8(li.wmpb_color_tags[i]);
                w_.u8(static_cast<std::uint8_t>(
                    std::min<std::uint32_t>(255, percent_to_byte(rgb.r))));
                w_.u8(static_cast<std::uint8_t>(
                    std::min<std::uint32_t>(255, percent_to_byte(rgb.g))));
                w_.u8(static_cast<std::uint8_t>(
                    std::min<std::uint32_t>(255, percent_to_byte(rgb.b))));
                close(c);
            };
            scalar(4, li.wmpb_scalar);
            if (li.script) {
                m.known();
                string(5, *li.script);
            }
            m.known();
            string(6, li.palette);
            for (std::size_t i = 0; i < 4; ++i) colour(1, i);
            colour(2, 4);
            colour(3, 5);
            break;
        }
        case Kind::block: {
            const Block& b = lv_.blocks[pi_index];
            w_.u32(static_cast<std::uint32_t>(b.index.value_or(0)));
            w_.u32(b.flags);
            if (b.function) {
                m.known();
                string(8, *b.function);
            }
            m.known();
            std::size_t c = open(1, 2);
            w_.u32(static_cast<std::uint32_t>(b.vertices.size()));
            for (const Vec3& v : b.vertices) {
                w_.f64(v.x);
                w_.f64(v.y);
                w_.f64(v.z);
            }
            close(c);
            m.known();
            c = open(17, 2);
            w_.u32(static_cast<std::uint32_t>(b.faces.size()));
            for (const Face& f : b.faces) {
                w_.u16(static_cast<std::uint16_t>(f.indices.size()));
                for (std::uint32_t i : f.indices) w_.u16(static_cast<std::uint16_t>(i));
            }
            close(c);
            for (std::size_t i = 0; i < b.faces.size(); ++i) {
                if (!b.faces[i].has_surface) continue;
                m.known();
                face_record(b.faces[i], static_cast<std::uint32_t>(i));
            }
            break;
        }
        case Kind::model: {
            const Model& md = lv_.models[pi_index];
            w_.u32(type);
            w_.u32(md.flags);
            w_.u32(x.has_code ? x.payload_word
                              : static_cast<std::uint32_t>(model_file_type(md.file)) << 8);
            w_.f32(narrow_f32(md.ambient));
            w_.f32(narrow_f32(md.albedo));
            m.known();
            string(3, md.name);
            m.known();
            string(11, md.file);
            if (md.action) {
                m.known();
                string(12, *md.action);
            }
            m.known();
            const std::size_t c = open(11, 2);
            w_.u32(static_cast<std::uint32_t>(md.skills.size()));
            for (double s : md.skills) w_.f64(s);
            close(c);
            auto opt = [&](std::uint8_t id, const std::optional<std::string>& s) {
                if (!s) return;
                m.known();
                string(id, *s);
            };
            opt(8, md.material);
            opt(13, md.path);
            opt(14, md.string2);
            for (const TaggedString& t : md.strings) {
                m.known();
                const std::size_t sc = open(15, 1);
                w_.u16(t.tag);
                w_.cstring(t.text);
                close(sc);
            }
            break;
        }
        case Kind::light: {
            const Light& l = lv_.lights[pi_index];
            w_.u32(type);
            w_.u32(l.flags);
            w_.u32(percent_to_byte(l.color.r));
            w_.u32(percent_to_byte(l.color.g));
            w_.u32(percent_to_byte(l.color.b));
            w_.f32(narrow_f32(l.range));
            break;
        }
        case Kind::sound: {
            const Sound& s = lv_.sounds[pi_index];
            w_.u32(type);
            w_.u32(s.flags);
            w_.u32(to_u32(s.volume));
            w_.u32(to_u32(s.param2));
            w_.u32(to_u32(s.param3));
            w_.u32(to_u32(s.range));
            m.known();
            string(11, s.file);
            break;
        }
        case Kind::start: {
            const Start& s = lv_.starts[pi_index];
            w_.u32(type);
            w_.u32(s.flags);
            m.known();
            string(3, s.name);
            break;
        }
        case Kind::region: {
            const Region& g = lv_.regions[pi_index];
            w_.u32(type);
            w_.u32(g.flags);
            m.known();
            const std::size_t c = open(9, 0);
            for (const Vec3& v : {g.mins, g.maxs}) {
                w_.f64(v.x);
                w_.f64(v.y);
                w_.f64(v.z);
            }
            close(c);
            m.known();
            string(3, g.name);
            break;
        }
        case Kind::path: {
            const Path& p = lv_.paths[pi_index];
            w_.u32(type);
            w_.u32(p.flags);
            m.known();
            string(3, p.name);
            m.known();
            std::size_t c = open(1, 2);
            w_.u32(static_cast<std::uint32_t>(p.nodes.size()));
            for (const Vec3& v : p.nodes) {
                w_.f64(v.x);
                w_.f64(v.y);
                w_.f64(v.z);
            }
            close(c);
            m.known();
            c = open(13, 2);
            const std::uint32_t k = p.has_node_skills ? p.skills_per_node : 6;
            const std::size_t rows =
                p.has_node_skills && k ? p.node_skills.size() / k : p.nodes.size();
            w_.u32(static_cast<std::uint32_t>(rows));
            w_.u32(k);
            if (p.has_node_skills) {
                for (double v : p.node_skills) w_.f64(v);
            } else {
                w_.zeros(rows * k * 8);
            }
            close(c);
            m.known();
            c = open(15, 2);
            std::vector<PathEdge> edges = p.edges;
            if (!p.has_node_skills) {
                // Old text paths are polylines: connect the nodes in order.
                for (std::uint32_t i = 0; i + 1 < p.nodes.size(); ++i) edges.push_back({i, i + 1});
            }
            w_.u32(static_cast<std::uint32_t>(edges.size()));
            for (const PathEdge& e : edges) {
                w_.u32(e.from);
                w_.u32(e.to);
                for (double v : e.values) w_.f64(v);
            }
            close(c);
            break;
        }
        case Kind::group:
            break;
    }
    m.finish();
    close(at);
}

void Writer::face_record(const Face& f, std::uint32_t index) {
    const std::size_t at = open(18, 2);
    w_.u32(index);
    w_.u32(f.flags);
    w_.f32(narrow_f32(f.ambient));
    w_.f32(narrow_f32(f.albedo));
    Mixer m(*this, f.wmpb_chunks);
    m.known();
    string(3, f.texture);
    if (!f.uvs.empty() || f.empty_uv_list) {
        m.known();
        const std::size_t c = open(7, 2);
        w_.u32(static_cast<std::uint32_t>(f.uvs.size()));
        for (const auto& uv : f.uvs) {
            w_.f64(uv[0]);
            w_.f64(uv[1]);
        }
        close(c);
    }
    if (f.t1 && f.t2) {
        m.known();
        const std::size_t c = open(5, 2);
        for (const TexAxis* a : {&*f.t1, &*f.t2}) {
            w_.f64(a->axis.x);
            w_.f64(a->axis.y);
            w_.f64(a->axis.z);
            w_.f64(a->offset);
        }
        close(c);
    }
    if (f.transform) {
        m.known();
        const std::size_t c = open(9, 2);
        w_.f64(f.transform->offset_x);
        w_.f64(f.transform->offset_y);
        w_.f64(f.transform->rotation);
        w_.f64(f.transform->scale_x);
        w_.f64(f.transform->scale_y);
        close(c);
    }
    m.finish();
    close(at);
}

}  // namespace

Result<Level> read_wmpb(Blob data, Diagnostics* warnings) {
    Level lv;
    lv.dialect = Dialect::wmpb;
    lv.wed.present = lv.wed.has_palette = lv.wed.has_wad_section = false;
    Reader r(data.bytes(), lv, warnings);
    LK_TRY(r.run());
    return lv;
}

// WMPB stores face vertex counts and vertex indices in 16 bits, child counts in 16 bits and
// block indices in 32: a level from text (or built in code) that needs more cannot be written.
Result<void> check_wmpb_ranges(const Level& lv) {
    auto too_big = [](std::string path, std::string what) {
        return Diagnostic::error("wmpb.value-out-of-range", std::move(what)).with_path(path);
    };
    for (std::size_t b = 0; b < lv.blocks.size(); ++b) {
        const Block& bl = lv.blocks[b];
        if (bl.index && !std::in_range<std::uint32_t>(*bl.index)) {
            return too_big(fmt::format("block[{}]/index", b),
                           fmt::format("block index {} does not fit WMPB's 32 bits", *bl.index));
        }
        for (std::size_t f = 0; f < bl.faces.size(); ++f) {
            const auto& idx = bl.faces[f].indices;
            if (idx.size() > 0xFFFF) {
                return too_big(
                    fmt::format("block[{}]/face[{}]", b, f),
                    fmt::format("a face of {} vertices: WMPB holds at most 65535", idx.size()));
            }
            for (std::uint32_t i : idx) {
                if (i > 0xFFFF) {
                    return too_big(fmt::format("block[{}]/face[{}]", b, f),
                                   fmt::format("vertex index {}: WMPB holds at most 65535", i));
                }
            }
        }
    }
    for (std::size_t o = 0; o < lv.objects.size(); ++o) {
        if (lv.objects[o].children.size() > 0xFFFF) {
            return too_big(fmt::format("object[{}]", o),
                           fmt::format("{} children: WMPB holds at most 65535",
                                       lv.objects[o].children.size()));
        }
    }
    return {};
}

Result<Bytes> write_wmpb(const Level& lv) {
    LK_TRY(check_wmpb_ranges(lv));
    Writer w(lv);
    return w.run();
}

}  // namespace lk::wmp
