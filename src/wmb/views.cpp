// Decoding WMB lists into typed views (layouts: see views.hpp).
//
// Each list is decoded from its own bytes with a ByteReader whose base is the list's file
// offset, so every diagnostic names an absolute byte offset. Fixed-size records are checked
// once per list (the list length must be a multiple of the record size) and then read from the
// checked bytes; variable records (textures, objects, blocks, terrain lightmaps) check every
// count with check_count() and every offset against the list before use.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "levelkit/core/text.hpp"
#include "levelkit/wmb/wmb.hpp"

namespace lk::wmb {

namespace {

template <class T>
T le(const std::byte* p, std::size_t off) {
    return load<T>(p + off, Endian::little);
}

Vec3f vec3f(const std::byte* p, std::size_t off) {
    return {le<float>(p, off), le<float>(p, off + 4), le<float>(p, off + 8)};
}

// A fixed char[n] field: the text up to the first NUL (bytes after it are padding).
std::string fixed_string(const std::byte* p, std::size_t off, std::size_t n) {
    const char* s = reinterpret_cast<const char*>(p + off);
    const void* nul = std::memchr(s, 0, n);
    return std::string(s, nul ? static_cast<const char*>(nul) - s : n);
}

std::array<std::int16_t, 3> short3(const std::byte* p, std::size_t off) {
    return {le<std::int16_t>(p, off), le<std::int16_t>(p, off + 2), le<std::int16_t>(p, off + 4)};
}

class Decoder {
public:
    Decoder(const File& f, Diagnostics& warnings, bool strict)
        : f_(f), warnings_(warnings), strict_(strict), wide_(f.version >= 3) {}

    Result<Views> run() {
        Views& v = views_;
        // Objects first: the lightmap page size comes from the level info.
        step(ListId::objects, [&](ByteReader& r) { return objects(r); });
        step(ListId::palettes, [&](ByteReader& r) { return palette(r); });
        step(ListId::planes, [&](ByteReader& r) {
            return records(r, 20, "plane", v.planes, [](const std::byte* p) {
                return Plane{vec3f(p, 0), le<float>(p, 12), le<std::int32_t>(p, 16)};
            });
        });
        step(ListId::textures, [&](ByteReader& r) { return textures(r); });
        step(ListId::vertices, [&](ByteReader& r) {
            return records(r, 12, "vertex", v.vertices,
                           [](const std::byte* p) { return vec3f(p, 0); });
        });
        step(ListId::pvs, [&](ByteReader& r) {
            v.pvs = r.data();
            return true;
        });
        step(ListId::bsp_nodes, [&](ByteReader& r) { return nodes(r); });
        step(ListId::materials, [&](ByteReader& r) {
            return records(r, 64, "material", v.materials, [](const std::byte* p) {
                Material m;
                m.s_axis = vec3f(p, 0);
                m.s_offset = le<float>(p, 12);
                m.t_axis = vec3f(p, 16);
                m.t_offset = le<float>(p, 28);
                m.texture = le<std::uint32_t>(p, 32);
                m.flags = le<std::uint16_t>(p, 36);
                m.user_flags = le<std::uint32_t>(p, 38);
                m.ambient = le<std::int8_t>(p, 42);
                m.albedo = le<std::uint8_t>(p, 43);
                m.name = fixed_string(p, 44, 20);
                return m;
            });
        });
        step(ListId::faces, [&](ByteReader& r) { return faces(r); });
        step(ListId::lighting, [&](ByteReader& r) {
            v.lighting = r.data();
            return true;
        });
        step(ListId::aabb_hulls, [&](ByteReader& r) {
            if (wide_) {
                return records(r, 16, "clip node", v.clip_nodes, [](const std::byte* p) {
                    return ClipNode{le<std::int32_t>(p, 0),
                                    le<std::int32_t>(p, 4),
                                    {le<std::int32_t>(p, 8), le<std::int32_t>(p, 12)}};
                });
            }
            return records(r, 8, "clip node", v.clip_nodes, [](const std::byte* p) {
                return ClipNode{
                    le<std::int32_t>(p, 0), 0, {le<std::int16_t>(p, 4), le<std::int16_t>(p, 6)}};
            });
        });
        step(ListId::bsp_leafs, [&](ByteReader& r) { return leafs(r); });
        step(ListId::bsp_blocks, [&](ByteReader& r) {
            if (wide_) {
                return records(r, 4, "leaf face", v.leaf_faces,
                               [](const std::byte* p) { return le<std::uint32_t>(p, 0); });
            }
            return records(r, 2, "leaf face", v.leaf_faces, [](const std::byte* p) {
                return std::uint32_t{le<std::uint16_t>(p, 0)};
            });
        });
        step(ListId::edges, [&](ByteReader& r) {
            if (wide_) {
                return records(r, 8, "edge", v.edges, [](const std::byte* p) {
                    return Edge{le<std::uint32_t>(p, 0), le<std::uint32_t>(p, 4)};
                });
            }
            return records(r, 4, "edge", v.edges, [](const std::byte* p) {
                return Edge{le<std::uint16_t>(p, 0), le<std::uint16_t>(p, 2)};
            });
        });
        step(ListId::edge_list, [&](ByteReader& r) {
            return records(r, 4, "edge reference", v.edge_list,
                           [](const std::byte* p) { return le<std::int32_t>(p, 0); });
        });
        step(ListId::models, [&](ByteReader& r) {
            return records(r, 160, "model", v.models, [](const std::byte* p) {
                Model m;
                m.mins = vec3f(p, 0);
                m.maxs = vec3f(p, 12);
                m.origin = vec3f(p, 24);
                for (int i = 0; i < 4; ++i) m.head_nodes[i] = le<std::int32_t>(p, 36 + 4 * i);
                for (int i = 0; i < 4; ++i) {
                    for (int k = 0; k < 3; ++k) {
                        m.hull_mins[i][k] = le<std::int32_t>(p, 52 + 12 * i + 4 * k);
                        m.hull_maxs[i][k] = le<std::int32_t>(p, 100 + 12 * i + 4 * k);
                    }
                }
                m.vis_leafs = le<std::int32_t>(p, 148);
                m.first_face = le<std::int32_t>(p, 152);
                m.face_count = le<std::int32_t>(p, 156);
                return m;
            });
        });
        if (f_.version >= 6) {
            step(ListId::lightmaps, [&](ByteReader& r) { return lightmaps(r); });
        }
        if (f_.version >= 7) {
            step(ListId::blocks, [&](ByteReader& r) { return blocks(r); });
            step(ListId::terrain_lightmaps, [&](ByteReader& r) { return terrain_lightmaps(r); });
        }
        if (failed_) return std::move(error_);
        return std::move(views_);
    }

private:
    // Decodes one list if the file has it and it is not empty. A failure leaves the view
    // empty and becomes a warning, or the result's error when strict.
    template <class Fn>
    void step(ListId id, Fn&& fn) {
        const std::size_t i = index_of(id);
        if (failed_ || i >= f_.lists.size() || f_.lists[i].empty()) return;
        const List& l = f_.lists[i];
        ByteReader r(l.bytes(), Endian::little, l.offset);
        path_ = list_path(i);
        if (fn(r) && r.ok()) return;
        Diagnostic d;
        if (!pending_.code.empty()) {
            d = std::move(pending_);
        } else if (!r.ok()) {
            d = r.take_error();
        } else {
            d = Diagnostic::error("wmb.bad-list", "the list does not decode").at_offset(l.offset);
        }
        pending_ = {};
        if (d.path.empty()) d.path = path_;
        d.message = list_name(i) + ": " + d.message;
        views_.undecoded.push_back(i);
        clear_view(id);
        if (strict_) {
            d.severity = Severity::error;
            error_ = std::move(d);
            failed_ = true;
        } else {
            d.severity = Severity::warning;
            warnings_.add(std::move(d));
        }
    }

    void clear_view(ListId id) {
        Views& v = views_;
        switch (id) {
            case ListId::palettes:
                v.palette.reset();
                break;
            case ListId::planes:
                v.planes.clear();
                break;
            case ListId::textures:
                v.textures.clear();
                break;
            case ListId::vertices:
                v.vertices.clear();
                break;
            case ListId::bsp_nodes:
                v.nodes.clear();
                break;
            case ListId::materials:
                v.materials.clear();
                break;
            case ListId::faces:
                v.faces.clear();
                break;
            case ListId::aabb_hulls:
                v.clip_nodes.clear();
                break;
            case ListId::bsp_leafs:
                v.leafs.clear();
                break;
            case ListId::bsp_blocks:
                v.leaf_faces.clear();
                break;
            case ListId::edges:
                v.edges.clear();
                break;
            case ListId::edge_list:
                v.edge_list.clear();
                break;
            case ListId::models:
                v.models.clear();
                break;
            case ListId::objects:
                v.objects.clear();
                break;
            case ListId::lightmaps:
                v.lightmaps.clear();
                break;
            case ListId::blocks:
                v.blocks.clear();
                break;
            case ListId::terrain_lightmaps:
                v.terrain_lightmaps.clear();
                break;
            default:
                break;
        }
    }

    // Records a problem found after the bytes were read (a bad value rather than bad bounds),
    // located at `pos` within the list and named by `path`.
    bool fail(ByteReader& r, std::size_t pos, std::string code, std::string message,
              std::string path) {
        r.fail_at(pos, std::move(code), std::move(message));
        pending_ = r.take_error();
        pending_.path = std::move(path);
        return false;
    }

    template <class T, class Fn>
    bool records(ByteReader& r, std::size_t size, const char* what, std::vector<T>& out, Fn&& fn) {
        const std::size_t n = r.size() / size;
        if (r.size() % size != 0) {
            return fail(r, 0, "wmb.bad-list-size",
                        fmt::format("{} bytes are not a whole number of {}-byte {} records",
                                    r.size(), size, what),
                        path_);
        }
        out.resize(n);
        const std::byte* p = r.data().data();
        for (std::size_t i = 0; i < n; ++i) out[i] = fn(p + i * size);
        return true;
    }

    bool palette(ByteReader& r) {
        if (!r.need(784, "palette (16-byte prefix and 256 colours)")) return false;
        Palette pal;
        const std::byte* p = r.data().data();
        for (int i = 0; i < 4; ++i) pal.prefix[i] = le<std::uint32_t>(p, 4 * i);
        std::memcpy(pal.colors.data(), p + 16, 768);
        pal.tables = r.data().subspan(784);
        views_.palette = pal;
        return true;
    }

    bool nodes(ByteReader& r) {
        if (wide_) {
            return records(r, 40, "node", views_.nodes, [](const std::byte* p) {
                Node n;
                n.plane = le<std::int32_t>(p, 0);
                n.unknown1 = le<std::uint32_t>(p, 4);
                n.mins = short3(p, 8);
                n.maxs = short3(p, 14);
                n.unknown2 = le<std::uint32_t>(p, 20);
                n.children = {le<std::int32_t>(p, 24), le<std::int32_t>(p, 28)};
                n.first_face = le<std::uint32_t>(p, 32);
                n.face_count = le<std::uint32_t>(p, 36);
                return n;
            });
        }
        return records(r, 24, "node", views_.nodes, [](const std::byte* p) {
            Node n;
            n.plane = le<std::int32_t>(p, 0);
            n.children = {le<std::int16_t>(p, 4), le<std::int16_t>(p, 6)};
            n.mins = short3(p, 8);
            n.maxs = short3(p, 14);
            n.first_face = le<std::uint16_t>(p, 20);
            n.face_count = le<std::uint16_t>(p, 22);
            return n;
        });
    }

    bool faces(ByteReader& r) {
        auto common = [](const std::byte* p) {
            Face f;
            f.plane = le<std::uint16_t>(p, 0);
            f.side = le<std::uint16_t>(p, 2);
            f.first_edge = le<std::uint32_t>(p, 4);
            f.edge_count = le<std::uint16_t>(p, 8);
            f.material = le<std::uint16_t>(p, 10);
            for (int i = 0; i < 4; ++i) f.styles[i] = le<std::uint8_t>(p, 12 + i);
            f.light_offset = le<std::int32_t>(p, 16);
            return f;
        };
        if (wide_) {
            return records(r, 24, "face", views_.faces, [&](const std::byte* p) {
                Face f = common(p);
                f.extra = le<std::uint32_t>(p, 20);
                return f;
            });
        }
        return records(r, 20, "face", views_.faces, common);
    }

    bool leafs(ByteReader& r) {
        if (wide_) {
            return records(r, 36, "leaf", views_.leafs, [](const std::byte* p) {
                Leaf l;
                l.contents = le<std::int32_t>(p, 0);
                l.vis_offset = le<std::int32_t>(p, 4);
                l.mins = short3(p, 8);
                l.maxs = short3(p, 14);
                l.unknown = {le<std::uint32_t>(p, 20), le<std::uint32_t>(p, 24)};
                l.first_leaf_face = le<std::uint32_t>(p, 28);
                l.leaf_face_count = le<std::uint32_t>(p, 32);
                return l;
            });
        }
        return records(r, 28, "leaf", views_.leafs, [](const std::byte* p) {
            Leaf l;
            l.contents = le<std::int32_t>(p, 0);
            l.vis_offset = le<std::int32_t>(p, 4);
            l.mins = short3(p, 8);
            l.maxs = short3(p, 14);
            l.first_leaf_face = le<std::uint16_t>(p, 20);
            l.leaf_face_count = le<std::uint16_t>(p, 22);
            l.unknown = {le<std::uint32_t>(p, 24), 0};
            return l;
        });
    }

    // --- textures ---------------------------------------------------------------------------

    bool textures(ByteReader& r) {
        const std::uint32_t count = r.u32("texture count");
        if (!r.check_count(count, 4, "texture offsets")) return false;
        std::vector<Texture>& out = views_.textures;
        out.resize(count);
        const ByteSpan list = r.data();
        const std::byte* base = list.data();
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint32_t off = r.u32("texture offset");
            const std::string path = path_ + "/texture[" + std::to_string(i) + "]";
            if (off > list.size() || list.size() - off < 40) {
                return fail(
                    r, 4 + 4 * std::size_t{i}, "wmb.bad-offset",
                    fmt::format("texture {} at {} has no room for its 40-byte header", i, off),
                    path);
            }
            Texture& t = out[i];
            const std::byte* p = base + off;
            t.offset = off;
            t.name = fixed_string(p, 0, 16);
            t.width = le<std::uint32_t>(p, 16);
            t.height = le<std::uint32_t>(p, 20);
            for (int k = 0; k < 4; ++k) t.words[k] = le<std::uint32_t>(p, 24 + 4 * k);
            if (!texture_pixels(r, t, path)) return false;
        }
        return true;
    }

    // Finds the pixel data of texture `t` (whose header was read) and checks it lies inside the
    // list.
    bool texture_pixels(ByteReader& r, Texture& t, const std::string& path) {
        const ByteSpan list = r.data();
        const std::uint64_t w = t.width, h = t.height;
        auto mip = [&](int k, std::uint64_t rel, std::uint64_t size) {
            const std::uint64_t at = t.offset + rel;
            if (rel < 40 || at > list.size() || size > list.size() - at) {
                return fail(r, t.offset + 24, "wmb.bad-texture",
                            fmt::format("mip level {} of texture '{}' ({} bytes at {}) lies "
                                        "outside the list",
                                        k, printable(t.name), size, at),
                            path);
            }
            t.mips[static_cast<std::size_t>(k)] = list.subspan(at, size);
            return true;
        };
        if (f_.version >= 6 && (t.words[0] & ~0xFu) == 0) {
            t.type_code = t.words[0];
            std::uint64_t bpp = 0;
            switch (t.type_code & 7u) {
                case 0:
                    t.format = PixelFormat::pal8, bpp = 1;
                    break;
                case 2:
                    t.format = PixelFormat::rgb565, bpp = 2;
                    break;
                case 4:
                    t.format = PixelFormat::rgb888, bpp = 3;
                    break;
                case 5:
                    t.format = PixelFormat::rgba8888, bpp = 4;
                    break;
                case 6:
                    t.format = PixelFormat::dds;
                    break;
                default:
                    t.format = PixelFormat::unknown;
                    return true;
            }
            if (t.format == PixelFormat::dds) {
                t.mip_count = 1;
                return mip(0, 40, w);
            }
            if (w > 65536 || h > 65536) {
                return fail(r, t.offset + 16, "wmb.bad-texture",
                            fmt::format("texture '{}' is {}x{}", printable(t.name), w, h), path);
            }
            t.mip_count = (t.type_code & 8u) ? 4 : 1;
            if (!mip(0, 40, w * h * bpp)) return false;
            for (std::uint32_t k = 1; k < t.mip_count; ++k) {
                if (!mip(static_cast<int>(k), t.words[k], (w >> k) * (h >> k) * bpp)) return false;
            }
            return true;
        }
        t.miptex_layout = true;
        if (w > 65536 || h > 65536) {
            return fail(r, t.offset + 16, "wmb.bad-texture",
                        fmt::format("texture '{}' is {}x{}", printable(t.name), w, h), path);
        }
        // 8-bit or 16-bit pixels: the first mip level fills the space up to the second.
        const std::uint64_t pixels = w * h;
        std::uint64_t bpp = 1;
        if (pixels != 0 && t.words[1] > t.words[0]) {
            const std::uint64_t span = t.words[1] - t.words[0];
            if (span == 2 * pixels) bpp = 2;
        }
        t.format = bpp == 2 ? PixelFormat::rgb565 : PixelFormat::pal8;
        t.mip_count = 0;
        for (int k = 0; k < 4; ++k) {
            if (t.words[static_cast<std::size_t>(k)] == 0) break;
            if (!mip(k, t.words[static_cast<std::size_t>(k)], (w >> k) * (h >> k) * bpp)) {
                return false;
            }
            ++t.mip_count;
        }
        return true;
    }

    // --- objects ----------------------------------------------------------------------------

    bool objects(ByteReader& r) {
        const std::uint32_t count = r.u32("object count");
        if (!r.check_count(count, 4, "object offsets")) return false;
        std::vector<std::uint32_t> offsets(count);
        for (auto& o : offsets) o = r.u32("object offset");
        std::vector<std::uint32_t> sorted = offsets;
        std::sort(sorted.begin(), sorted.end());
        const ByteSpan list = r.data();
        auto& out = views_.objects;
        out.resize(count);
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint32_t off = offsets[i];
            const std::string path = path_ + "/object[" + std::to_string(i) + "]";
            if (off > list.size() || list.size() - off < 4) {
                return fail(r, 4 + 4 * std::size_t{i}, "wmb.bad-offset",
                            fmt::format("object {} at {} lies outside the {}-byte list", i, off,
                                        list.size()),
                            path);
            }
            auto next = std::upper_bound(sorted.begin(), sorted.end(), off);
            const std::size_t end =
                next == sorted.end() ? list.size() : std::min<std::size_t>(*next, list.size());
            Object& o = out[i];
            o.offset = off;
            o.record = list.subspan(off, end - off);
            o.type = le<std::uint32_t>(o.record.data(), 0);
            ByteReader rec(o.record, Endian::little, r.base() + off);
            if (!object(rec, o) || !rec.ok()) {
                Diagnostic d =
                    rec.ok() ? Diagnostic::error("wmb.bad-object", "bad object") : rec.take_error();
                d.path = path;
                d.message = fmt::format("object {} (type {}): {}", i, o.type, d.message);
                o.value = std::monostate{};
                if (strict_) {
                    pending_ = std::move(d);
                    return false;
                }
                d.severity = Severity::warning;
                warnings_.add(std::move(d));
            }
        }
        return true;
    }

    bool object(ByteReader& r, Object& o) {
        const std::byte* p = o.record.data();
        switch (o.type) {
            case 1: {
                if (!r.need(56, "position record")) return false;
                Position v{vec3f(p, 4),
                           vec3f(p, 16),
                           {le<std::uint32_t>(p, 28), le<std::uint32_t>(p, 32)},
                           fixed_string(p, 36, 20)};
                o.value = std::move(v);
                return true;
            }
            case 2: {
                if (!r.need(36, "light record")) return false;
                o.value =
                    Light{vec3f(p, 4), vec3f(p, 16), le<float>(p, 28), le<std::uint32_t>(p, 32)};
                return true;
            }
            case 3: {
                if (!r.need(133, "old entity record")) return false;
                Entity e;
                e.old_layout = true;
                e.origin = vec3f(p, 4);
                e.angles = vec3f(p, 16);
                e.scale = vec3f(p, 28);
                e.name = fixed_string(p, 40, 20);
                // The compiler copies file names longer than the 13-byte field on into the
                // action field (corpus: "lotter_dummy.mdl"); the action is then lost.
                e.file = fixed_string(p, 60, 33);
                if (e.file.size() < 13) e.action = fixed_string(p, 73, 20);
                e.skills.resize(8);
                for (std::size_t k = 0; k < 8; ++k) e.skills[k] = le<float>(p, 93 + 4 * k);
                e.ambient = le<float>(p, 125);
                e.flags = le<std::uint32_t>(p, 129);
                o.value = std::move(e);
                return true;
            }
            case 4: {
                if (!r.need(69, "sound record")) return false;
                o.value = Sound{vec3f(p, 4),
                                le<float>(p, 16),
                                {le<float>(p, 20), le<float>(p, 24)},
                                le<std::int32_t>(p, 28),
                                le<std::uint32_t>(p, 32),
                                fixed_string(p, 36, 33)};
                return true;
            }
            case 5: {
                if (!r.need(36, "info record")) return false;
                Info v;
                v.origin = vec3f(p, 4);
                v.azimuth = le<float>(p, 16);
                v.elevation = le<float>(p, 20);
                v.flags = le<std::uint32_t>(p, 24);
                v.compiler_version = le<float>(p, 28);
                v.gamma = le<std::uint8_t>(p, 32);
                v.lightmap_size = le<std::uint8_t>(p, 33);
                v.unused = {le<std::uint8_t>(p, 34), le<std::uint8_t>(p, 35)};
                std::size_t at = 36;
                const std::size_t n = o.record.size();
                if (n >= at + 8) {
                    v.sun_color = le<std::uint32_t>(p, at);
                    v.ambient_color = le<std::uint32_t>(p, at + 4);
                    at += 8;
                }
                while (v.fog_colors.size() < 4 && n >= at + 4) {
                    v.fog_colors.push_back(le<std::uint32_t>(p, at));
                    at += 4;
                }
                v.extra = o.record.subspan(at);
                o.value = std::move(v);
                return true;
            }
            case 6:
                return path(r, o);
            case 7: {
                if (!r.need(371, "entity record")) return false;
                Entity e;
                e.origin = vec3f(p, 4);
                e.angles = vec3f(p, 16);
                e.scale = vec3f(p, 28);
                e.name = fixed_string(p, 40, 33);
                e.file = fixed_string(p, 73, 33);
                e.action = fixed_string(p, 106, 33);
                e.skills.resize(20);
                for (std::size_t k = 0; k < 20; ++k) e.skills[k] = le<float>(p, 139 + 4 * k);
                e.flags = le<std::uint32_t>(p, 219);
                e.ambient = le<float>(p, 223);
                e.albedo = le<float>(p, 227);
                e.path = le<std::uint32_t>(p, 231);
                e.attached = le<std::uint32_t>(p, 235);
                e.material = fixed_string(p, 239, 33);
                e.string1 = fixed_string(p, 272, 33);
                e.string2 = fixed_string(p, 305, 33);
                e.unused = fixed_string(p, 338, 33);
                o.value = std::move(e);
                return true;
            }
            case 8: {
                if (!r.need(56, "region record")) return false;
                o.value = Region{vec3f(p, 4),
                                 vec3f(p, 16),
                                 {le<std::uint32_t>(p, 28), le<std::uint32_t>(p, 32)},
                                 fixed_string(p, 36, 20)};
                return true;
            }
            default:
                return true;  // unknown type: kept as its record bytes
        }
    }

    bool path(ByteReader& r, Object& o) {
        if (!r.need(44, "path record")) return false;
        const std::byte* p = o.record.data();
        Path v;
        v.name = fixed_string(p, 4, 20);
        v.node_count_field = le<float>(p, 24);
        v.unused = {le<std::uint32_t>(p, 28), le<std::uint32_t>(p, 32), le<std::uint32_t>(p, 36)};
        v.value_count = le<std::uint32_t>(p, 40);
        r.skip(44, "path header");
        if (f_.version <= 5) {
            v.old_layout = true;
            if (!r.check_count(v.value_count, 12, "path nodes")) return false;
            v.nodes.resize(v.value_count);
            for (std::size_t k = 0; k < v.nodes.size(); ++k) v.nodes[k] = vec3f(p, 44 + 12 * k);
            o.value = std::move(v);
            return true;
        }
        const float nf = v.node_count_field;
        if (!(nf >= 0 && nf <= 1e9f) || static_cast<float>(static_cast<std::uint32_t>(nf)) != nf) {
            r.fail_at(24, "wmb.bad-count", fmt::format("path node count {} is not a count", nf));
            return false;
        }
        const auto n = static_cast<std::uint32_t>(nf);
        if (!r.check_count(n, 36, "path nodes and node skills")) return false;
        v.nodes.resize(n);
        v.skills.resize(n);
        for (std::size_t k = 0; k < n; ++k) v.nodes[k] = vec3f(p, 44 + 12 * k);
        const std::size_t skills_at = 44 + 12 * std::size_t{n};
        for (std::size_t k = 0; k < n; ++k) {
            for (std::size_t j = 0; j < 6; ++j) {
                v.skills[k][j] = le<float>(p, skills_at + 24 * k + 4 * j);
            }
        }
        const std::size_t edges_at = skills_at + 24 * std::size_t{n};
        const std::size_t room = (o.record.size() - edges_at) / 24;
        // The value count is 3 per node plus 2 per edge; records padded to the next object may
        // hold room for more edges than there are.
        std::size_t e = room;
        if (v.value_count >= 3 * std::uint64_t{n} && (v.value_count - 3 * n) % 2 == 0 &&
            (v.value_count - 3 * n) / 2 <= room) {
            e = (v.value_count - 3 * n) / 2;
        }
        v.edges.resize(e);
        for (std::size_t k = 0; k < e; ++k) {
            const std::size_t at = edges_at + 24 * k;
            v.edges[k] = {le<float>(p, at),      le<float>(p, at + 4),  le<float>(p, at + 8),
                          le<float>(p, at + 12), le<float>(p, at + 16), le<float>(p, at + 20)};
        }
        o.value = std::move(v);
        return true;
    }

    // --- WMB6/7 lightmaps and blocks --------------------------------------------------------

    bool lightmaps(ByteReader& r) {
        std::uint64_t dim = 256;
        if (const Info* info = views_.info()) {
            if (info->lightmap_size <= 2) dim <<= info->lightmap_size;
        }
        const std::uint64_t page = dim * dim * 3;
        const std::size_t n = r.size() / page;
        if (r.size() % page != 0) {
            return fail(r, 0, "wmb.bad-list-size",
                        fmt::format("{} bytes are not a whole number of {}x{} lightmap pages",
                                    r.size(), dim, dim),
                        path_);
        }
        views_.lightmaps.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            Lightmap& lm = views_.lightmaps[i];
            lm.width = lm.height = static_cast<std::uint32_t>(dim);
            lm.pixels = r.data().subspan(i * page, page);
        }
        return true;
    }

    bool terrain_lightmaps(ByteReader& r) {
        const std::uint32_t count = r.u32("terrain lightmap count");
        if (!r.check_count(count, 12, "terrain lightmaps")) return false;
        auto& out = views_.terrain_lightmaps;
        out.resize(count);
        for (auto& lm : out) {
            lm.object = r.u32("terrain lightmap object");
            lm.width = r.u32("terrain lightmap width");
            lm.height = r.u32("terrain lightmap height");
            const std::uint64_t size = std::uint64_t{lm.width} * lm.height;
            if (!r.check_count(size, 3, "terrain lightmap pixels")) return false;
            lm.pixels = r.bytes(static_cast<std::size_t>(size * 3), "terrain lightmap pixels");
        }
        return true;
    }

    bool blocks(ByteReader& r) {
        const std::uint32_t count = r.u32("block count");
        if (!r.check_count(count, 40, "blocks")) return false;
        auto& out = views_.blocks;
        out.resize(count);
        for (std::uint32_t i = 0; i < count; ++i) {
            Block& b = out[i];
            const ByteSpan head = r.bytes(40, "block header");
            if (!r.ok()) return false;
            const std::byte* h = head.data();
            b.mins = vec3f(h, 0);
            b.maxs = vec3f(h, 12);
            b.content = le<std::uint32_t>(h, 24);
            const std::uint32_t nv = le<std::uint32_t>(h, 28), nt = le<std::uint32_t>(h, 32),
                                ns = le<std::uint32_t>(h, 36);
            const std::uint64_t need =
                std::uint64_t{nv} * 28 + std::uint64_t{nt} * 12 + std::uint64_t{ns} * 20;
            if (!r.check_count(need, 1,
                               "block " + std::to_string(i) +
                                   " vertices, triangles and "
                                   "skins")) {
                return false;
            }
            const std::byte* p = r.bytes(static_cast<std::size_t>(need), "block body").data();
            b.vertices.resize(nv);
            for (std::size_t k = 0; k < nv; ++k, p += 28) {
                b.vertices[k] = {vec3f(p, 0), le<float>(p, 12), le<float>(p, 16), le<float>(p, 20),
                                 le<float>(p, 24)};
            }
            b.triangles.resize(nt);
            for (std::size_t k = 0; k < nt; ++k, p += 12) {
                b.triangles[k] = {
                    {le<std::uint16_t>(p, 0), le<std::uint16_t>(p, 2), le<std::uint16_t>(p, 4)},
                    le<std::uint16_t>(p, 6),
                    le<std::uint32_t>(p, 8)};
            }
            b.skins.resize(ns);
            for (std::size_t k = 0; k < ns; ++k, p += 20) {
                b.skins[k] = {le<std::uint16_t>(p, 0), le<std::uint16_t>(p, 2),
                              le<std::uint32_t>(p, 4), le<float>(p, 8),
                              le<float>(p, 12),        le<std::uint32_t>(p, 16)};
            }
        }
        return true;
    }

    const File& f_;
    Diagnostics& warnings_;
    bool strict_;
    bool wide_;
    Views views_;
    std::string path_;
    Diagnostic pending_;
    Diagnostic error_;
    bool failed_ = false;
};

}  // namespace

std::string_view to_string(PixelFormat f) {
    switch (f) {
        case PixelFormat::pal8:
            return "pal8";
        case PixelFormat::rgb565:
            return "rgb565";
        case PixelFormat::rgb888:
            return "rgb888";
        case PixelFormat::rgba8888:
            return "rgba8888";
        case PixelFormat::dds:
            return "dds";
        case PixelFormat::unknown:
            break;
    }
    return "unknown";
}

const Info* Views::info() const {
    for (const Object& o : objects) {
        if (const Info* i = o.get<Info>()) return i;
    }
    return nullptr;
}

std::vector<std::uint32_t> Views::face_vertices(std::size_t i) const {
    std::vector<std::uint32_t> out;
    if (i >= faces.size()) return out;
    const Face& f = faces[i];
    if (f.first_edge > edge_list.size() || f.edge_count > edge_list.size() - f.first_edge) {
        return out;
    }
    out.reserve(f.edge_count);
    for (std::size_t k = 0; k < f.edge_count; ++k) {
        const std::int32_t e = edge_list[f.first_edge + k];
        const std::uint64_t idx = e >= 0 ? std::uint64_t(e) : std::uint64_t(-std::int64_t{e});
        if (idx >= edges.size()) return {};
        const std::uint32_t v = e >= 0 ? edges[idx].v0 : edges[idx].v1;
        if (v >= vertices.size()) return {};
        out.push_back(v);
    }
    return out;
}

Result<Views> decode(const File& file, Diagnostics& warnings, bool strict) {
    return Decoder(file, warnings, strict).run();
}

}  // namespace lk::wmb
