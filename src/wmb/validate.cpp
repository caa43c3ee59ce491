// Semantic checks and counts over the typed views.
#include <fmt/format.h>

#include <set>

#include "levelkit/wmb/wmb.hpp"

namespace lk::wmb {

namespace {

class Checker {
public:
    Checker(const File& f, Diagnostics& out) : f_(f), v_(f.views), out_(out) {}

    void run() {
        for (std::size_t i : v_.undecoded) {
            add(i, 0, "", fmt::format("list {} ({}) did not decode", i, list_name(i)),
                "wmb.undecoded-list", Severity::warning);
        }
        const std::size_t nv = v_.vertices.size(), nl = v_.edge_list.size(),
                          nm = v_.materials.size(), nt = v_.textures.size(), np = v_.planes.size();
        for (std::size_t i = 0; i < v_.edges.size(); ++i) {
            const Edge& e = v_.edges[i];
            if (e.v0 >= nv || e.v1 >= nv) {
                add(index_of(ListId::edges), i * (f_.version >= 3 ? 8 : 4),
                    "edge[" + std::to_string(i) + "]",
                    fmt::format("edge {} joins vertices {} and {} of {}", i, e.v0, e.v1, nv));
            }
        }
        const std::size_t face_size = f_.version >= 3 ? 24 : 20;
        for (std::size_t i = 0; i < v_.faces.size(); ++i) {
            const Face& fc = v_.faces[i];
            const std::string at = "face[" + std::to_string(i) + "]";
            const std::size_t off = i * face_size;
            if (std::uint64_t{fc.first_edge} + fc.edge_count > nl || fc.edge_count < 3) {
                add(7, off + 4, at,
                    fmt::format("face {} uses edge references {}..+{} of {}", i, fc.first_edge,
                                fc.edge_count, nl));
            } else if (v_.face_vertices(i).size() != fc.edge_count) {
                add(7, off + 4, at, fmt::format("face {} refers to a missing edge or vertex", i));
            }
            if (fc.material >= nm) {
                add(7, off + 10, at,
                    fmt::format("face {} uses surface {} of {}", i, fc.material, nm));
            }
            if (fc.plane >= np) {
                add(7, off, at, fmt::format("face {} uses plane {} of {}", i, fc.plane, np));
            }
        }
        for (std::size_t i = 0; i < v_.materials.size(); ++i) {
            if (v_.materials[i].texture >= nt && nt > 0) {
                add(6, i * 64 + 32, "material[" + std::to_string(i) + "]",
                    fmt::format("surface {} uses texture {} of {}", i, v_.materials[i].texture,
                                nt));
            }
        }
        for (std::size_t i = 0; i < v_.nodes.size(); ++i) {
            const Node& n = v_.nodes[i];
            for (std::int32_t c : n.children) {
                const bool bad = c >= 0 ? std::size_t(c) >= v_.nodes.size()
                                        : std::size_t(-std::int64_t{c} - 1) >= v_.leafs.size();
                if (bad) {
                    add(5, i * (f_.version >= 3 ? 40 : 24), "node[" + std::to_string(i) + "]",
                        fmt::format("node {} has child {} (nodes {}, leaves {})", i, c,
                                    v_.nodes.size(), v_.leafs.size()));
                }
            }
        }
        for (std::size_t i = 0; i < v_.leafs.size(); ++i) {
            const Leaf& l = v_.leafs[i];
            if (std::uint64_t{l.first_leaf_face} + l.leaf_face_count > v_.leaf_faces.size()) {
                add(10, i * (f_.version >= 3 ? 36 : 28), "leaf[" + std::to_string(i) + "]",
                    fmt::format("leaf {} lists faces {}..+{} of {}", i, l.first_leaf_face,
                                l.leaf_face_count, v_.leaf_faces.size()));
            }
        }
        blocks();
        objects();
    }

private:
    void blocks() {
        for (std::size_t b = 0; b < v_.blocks.size(); ++b) {
            const Block& bl = v_.blocks[b];
            const std::string at = "block[" + std::to_string(b) + "]";
            for (std::size_t t = 0; t < bl.triangles.size(); ++t) {
                const Triangle& tr = bl.triangles[t];
                if (tr.v[0] >= bl.vertices.size() || tr.v[1] >= bl.vertices.size() ||
                    tr.v[2] >= bl.vertices.size() || tr.skin >= bl.skins.size()) {
                    add(17, 0, at + "/triangle[" + std::to_string(t) + "]",
                        fmt::format("triangle {} of block {} refers to a missing vertex or skin", t,
                                    b));
                }
            }
            for (std::size_t s = 0; s < bl.skins.size(); ++s) {
                const Skin& sk = bl.skins[s];
                if (sk.texture >= v_.textures.size() || sk.material >= v_.materials.size()) {
                    add(17, 0, at + "/skin[" + std::to_string(s) + "]",
                        fmt::format("skin {} of block {} uses texture {} of {}, surface {} of {}",
                                    s, b, sk.texture, v_.textures.size(), sk.material,
                                    v_.materials.size()));
                }
            }
        }
    }

    void objects() {
        std::size_t paths = 0;
        for (const Object& o : v_.objects) paths += o.get<Path>() != nullptr;
        for (std::size_t i = 0; i < v_.objects.size(); ++i) {
            const Object& o = v_.objects[i];
            const std::string at = "object[" + std::to_string(i) + "]";
            if (std::holds_alternative<std::monostate>(o.value)) {
                add(15, o.offset, at, fmt::format("object {} of type {} is not known", i, o.type),
                    "wmb.unknown-object", Severity::warning);
            }
            if (const Entity* e = o.get<Entity>(); e && e->path > paths) {
                add(15, o.offset + 231, at,
                    fmt::format("entity {} is attached to path {} of {}", i, e->path, paths));
            }
        }
    }

    // A problem at byte `rel` of list `list`, path `list[N]/<at>`.
    void add(std::size_t list, std::size_t rel, const std::string& at, std::string message,
             std::string code = "wmb.bad-reference", Severity sev = Severity::error) {
        Diagnostic d = Diagnostic::error(std::move(code), std::move(message));
        d.severity = sev;
        if (list < f_.lists.size())
            d.offset = static_cast<std::int64_t>(f_.lists[list].offset + rel);
        d.path = list_path(list) + (at.empty() ? "" : "/" + at);
        out_.add(std::move(d));
    }

    const File& f_;
    const Views& v_;
    Diagnostics& out_;
};

}  // namespace

Counts count(const File& file) {
    const Views& v = file.views;
    Counts c;
    c.lists = file.lists.size();
    c.faces = v.faces.size();
    c.blocks = v.blocks.size();
    for (const Block& b : v.blocks) {
        c.triangles += b.triangles.size();
        std::set<std::uint32_t> faces;
        for (const Triangle& t : b.triangles) faces.insert(t.face);
        c.block_faces += faces.size();
    }
    for (const Object& o : v.objects) {
        c.entities += o.get<Entity>() != nullptr;
        c.positions += o.get<Position>() != nullptr;
        c.lights += o.get<Light>() != nullptr;
        c.sounds += o.get<Sound>() != nullptr;
        c.paths += o.get<Path>() != nullptr;
        c.regions += o.get<Region>() != nullptr;
    }
    c.textures = v.textures.size();
    c.lightmaps = v.lightmaps.size();
    c.terrain_lightmaps = v.terrain_lightmaps.size();
    c.materials = v.materials.size();
    return c;
}

void validate(const File& file, Diagnostics& out) {
    Checker(file, out).run();
}

}  // namespace lk::wmb
