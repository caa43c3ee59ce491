#include "levelkit/convert/texture_sizes.hpp"

#include <algorithm>
#include <cstring>
#include <system_error>
#include <unordered_map>

#include "levelkit/core/file.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/kv/keyvalues.hpp"

namespace lk::convert {

namespace {

constexpr int kMaxSide = 65536;

std::optional<std::array<int, 2>> checked(std::int64_t w, std::int64_t h) {
    if (w <= 0 || h <= 0 || w > kMaxSide || h > kMaxSide) return std::nullopt;
    return std::array<int, 2>{static_cast<int>(w), static_cast<int>(h)};
}

std::uint32_t le16(ByteSpan d, std::size_t at) {
    return std::to_integer<std::uint32_t>(d[at]) | (std::to_integer<std::uint32_t>(d[at + 1]) << 8);
}
std::uint32_t le32(ByteSpan d, std::size_t at) {
    return le16(d, at) | (le16(d, at + 2) << 16);
}
std::uint8_t byte_at(ByteSpan d, std::size_t at) {
    return std::to_integer<std::uint8_t>(d[at]);
}
bool starts_with(ByteSpan d, std::string_view magic) {
    return d.size() >= magic.size() && std::memcmp(d.data(), magic.data(), magic.size()) == 0;
}

// Material paths compare with '/' separators, lower case, without a leading "materials/".
std::string key_of(std::string_view path) {
    std::string k = to_lower(path);
    std::replace(k.begin(), k.end(), '\\', '/');
    while (!k.empty() && k.front() == '/') k.erase(0, 1);
    return k;
}

kv::Node find_ci(kv::Node block, std::string_view key) {
    for (kv::Node n : block) {
        if (iequals(n.key(), key)) return n;
    }
    return {};
}

}  // namespace

std::optional<std::array<int, 2>> vtf_size(ByteSpan d) {
    // "VTF\0", version[2], header size, then width and height as uint16.
    if (d.size() < 20 || !starts_with(d, std::string_view("VTF\0", 4))) return std::nullopt;
    return checked(le16(d, 16), le16(d, 18));
}

std::optional<std::array<int, 2>> pcx_size(ByteSpan d) {
    // Manufacturer 10, version 0-5, RLE encoding 0/1, then the window xmin ymin xmax ymax.
    if (d.size() < 128 || byte_at(d, 0) != 10 || byte_at(d, 1) > 5 || byte_at(d, 2) > 1)
        return std::nullopt;
    const std::int64_t w = std::int64_t(le16(d, 8)) - le16(d, 4) + 1;
    const std::int64_t h = std::int64_t(le16(d, 10)) - le16(d, 6) + 1;
    return checked(w, h);
}

std::optional<std::array<int, 2>> bmp_size(ByteSpan d) {
    if (d.size() < 26 || !starts_with(d, "BM")) return std::nullopt;
    const std::uint32_t dib = le32(d, 14);
    if (dib == 12) return checked(le16(d, 18), le16(d, 20));  // BITMAPCOREHEADER
    if (dib < 40) return std::nullopt;
    const auto w = static_cast<std::int32_t>(le32(d, 18));
    const auto h = static_cast<std::int32_t>(le32(d, 22));  // negative: rows top-down
    return checked(w, h < 0 ? -std::int64_t(h) : h);
}

std::optional<std::array<int, 2>> tga_size(ByteSpan d) {
    // No magic: check the fields that have few valid values.
    if (d.size() < 18) return std::nullopt;
    const std::uint8_t cmap = byte_at(d, 1), type = byte_at(d, 2), depth = byte_at(d, 16);
    const bool type_ok =
        type == 1 || type == 2 || type == 3 || type == 9 || type == 10 || type == 11;
    const bool depth_ok = depth == 8 || depth == 15 || depth == 16 || depth == 24 || depth == 32;
    if (cmap > 1 || !type_ok || !depth_ok) return std::nullopt;
    return checked(le16(d, 12), le16(d, 14));
}

std::optional<VmtInfo> parse_vmt(std::string_view text) {
    kv::ParseOptions po;
    po.warn_long_values = false;
    auto doc = kv::Document::parse(text, po);
    if (!doc) return std::nullopt;
    kv::Node shader;
    for (kv::Node n : doc->root()) {
        if (n.is_block()) {
            shader = n;
            break;
        }
    }
    if (!shader) return std::nullopt;
    VmtInfo info;
    auto base_in = [&](kv::Node block) {
        if (kv::Node b = find_ci(block, "$basetexture"); b && b.is_value())
            info.base_texture = std::string(b.value());
    };
    base_in(shader);
    if (iequals(shader.key(), "patch")) {
        for (const char* sub : {"insert", "replace"}) {
            if (kv::Node b = find_ci(shader, sub); b && b.is_block()) base_in(b);
        }
        if (kv::Node inc = find_ci(shader, "include"); inc && inc.is_value())
            info.include = std::string(inc.value());
    }
    return info;
}

std::optional<std::vector<WadTexture>> wad_textures(ByteSpan d) {
    if (d.size() < 12 || !(starts_with(d, "WAD2") || starts_with(d, "WAD3"))) return std::nullopt;
    const std::uint32_t count = le32(d, 4), dir = le32(d, 8);
    constexpr std::size_t kEntry = 32;
    if (dir > d.size() || count > (d.size() - dir) / kEntry) return std::nullopt;
    std::vector<WadTexture> out;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::size_t e = dir + std::size_t{i} * kEntry;
        const std::uint32_t pos = le32(d, e), disk = le32(d, e + 4);
        const std::uint8_t type = byte_at(d, e + 12), compressed = byte_at(d, e + 13);
        const char* name = reinterpret_cast<const char*>(d.data() + e + 16);
        WadTexture t;
        t.name.assign(name, strnlen(name, 16));
        if (compressed || pos > d.size() || disk > d.size() - pos) continue;
        const ByteSpan item = d.subspan(pos, disk);
        std::optional<std::array<int, 2>> size;
        if ((type == 0x43 || type == 0x44) && item.size() >= 24) {
            size = checked(le32(item, 16), le32(item, 20));  // miptex: name[16] width height
        } else if (type == 0x42 && item.size() >= 8) {
            size = checked(le32(item, 0), le32(item, 4));  // qpic: width height
        }
        if (!size) continue;
        t.size = *size;
        out.push_back(std::move(t));
    }
    return out;
}

struct TextureSizes::Impl {
    std::filesystem::path dir;
    bool indexed = false;
    // Lower-case relative path -> file, for every file under dir (and dir/materials).
    std::unordered_map<std::string, std::filesystem::path> files;
    std::unordered_map<std::string, std::array<int, 2>> wad;  // lower-case texture name
    std::unordered_map<std::string, std::optional<std::array<double, 2>>> cache;
    std::size_t found = 0, missing = 0;

    void index() {
        if (indexed) return;
        indexed = true;
        std::error_code ec;
        std::filesystem::recursive_directory_iterator it(
            dir, std::filesystem::directory_options::skip_permission_denied, ec);
        for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            if (!it->is_regular_file(ec)) continue;
            const std::filesystem::path rel = it->path().lexically_relative(dir);
            std::string k = key_of(rel.generic_string());
            if (k.rfind("materials/", 0) == 0) k.erase(0, 10);
            files.try_emplace(std::move(k), it->path());
            const std::string ext = to_lower(it->path().extension().string());
            if (ext == ".wad") load_wad(it->path());
        }
    }

    void load_wad(const std::filesystem::path& p) {
        auto bytes = read_file(p);
        if (!bytes) return;
        auto list = wad_textures(*bytes);
        if (!list) return;
        for (const WadTexture& t : *list) wad.try_emplace(to_lower(t.name), t.size);
    }

    std::optional<Bytes> read(const std::string& key) {
        auto it = files.find(key);
        if (it == files.end()) return std::nullopt;
        auto b = read_file(it->second);
        if (!b) return std::nullopt;
        return std::move(b).value();
    }

    std::optional<std::array<int, 2>> vtf(std::string name) {
        std::string k = key_of(name);
        if (k.rfind("materials/", 0) == 0) k.erase(0, 10);
        if (!iends_with(k, ".vtf")) k += ".vtf";
        auto b = read(k);
        return b ? vtf_size(*b) : std::nullopt;
    }

    std::optional<std::array<int, 2>> source(std::string material, int depth = 0) {
        std::string k = key_of(material);
        if (k.rfind("materials/", 0) == 0) k.erase(0, 10);
        if (iends_with(k, ".vmt")) k.resize(k.size() - 4);
        if (auto b = read(k + ".vmt")) {
            if (auto vmt = parse_vmt(as_text(*b))) {
                if (vmt->base_texture) {
                    if (auto s = vtf(*vmt->base_texture)) return s;
                }
                if (vmt->include && depth < 4) {
                    if (auto s = source(*vmt->include, depth + 1)) return s;
                }
            }
        }
        return vtf(k);
    }

    std::optional<std::array<int, 2>> gamestudio(const std::string& name) {
        const std::string k = key_of(name);
        if (auto it = wad.find(k); it != wad.end()) return it->second;
        for (const char* ext : {".pcx", ".bmp", ".tga"}) {
            if (auto b = read(k + ext)) {
                const std::string e = ext;
                auto s = e == ".pcx" ? pcx_size(*b) : e == ".bmp" ? bmp_size(*b) : tga_size(*b);
                if (s) return s;
            }
        }
        return std::nullopt;
    }
};

TextureSizes::TextureSizes(std::filesystem::path dir) : impl_(std::make_unique<Impl>()) {
    impl_->dir = std::move(dir);
}
TextureSizes::~TextureSizes() = default;
TextureSizes::TextureSizes(TextureSizes&&) noexcept = default;
TextureSizes& TextureSizes::operator=(TextureSizes&&) noexcept = default;

std::optional<std::array<double, 2>> TextureSizes::size(std::string_view material) {
    Impl& m = *impl_;
    const std::string key = key_of(material);
    if (auto it = m.cache.find(key); it != m.cache.end()) return it->second;
    m.index();
    std::optional<std::array<int, 2>> s = m.source(key);
    if (!s) s = m.gamestudio(key);
    std::optional<std::array<double, 2>> out;
    if (s) out = std::array<double, 2>{double((*s)[0]), double((*s)[1])};
    ++(out ? m.found : m.missing);
    m.cache.emplace(key, out);
    return out;
}

std::function<std::array<double, 2>(std::string_view)> TextureSizes::function() {
    return [this](std::string_view material) {
        return size(material).value_or(std::array<double, 2>{0, 0});
    };
}

std::size_t TextureSizes::found() const {
    return impl_->found;
}
std::size_t TextureSizes::missing() const {
    return impl_->missing;
}

}  // namespace lk::convert
