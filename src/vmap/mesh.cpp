#include "levelkit/vmap/mesh.hpp"

#include "mesh_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <unordered_map>

namespace lk::vmap {

namespace {

using IntArray = std::vector<std::int32_t>;

Diagnostic bad_attribute(const dmx::Element& e, std::string_view attr, std::string_view want) {
    return Diagnostic::error("vmap.bad-attribute",
                             fmt::format("{} attribute '{}' is not {}", e.type.str(), attr, want))
        .with_path(fmt::format("{}/{}", e.type.str(), attr));
}

Result<std::span<const std::int32_t>> int_array(const dmx::Element& e, std::string_view attr) {
    const dmx::Attribute* a = e.find(attr);
    if (!a) return std::span<const std::int32_t>();
    const auto* v = a->value.get_if<IntArray>();
    if (!v) return bad_attribute(e, attr, "an int_array");
    return std::span<const std::int32_t>(*v);
}

Result<DataArrayView> data_array(const dmx::Document& doc, const dmx::Element& mesh,
                                 std::string_view attr) {
    DataArrayView out;
    const dmx::Attribute* a = mesh.find(attr);
    if (!a) return out;
    const auto* ref = a->value.get_if<ElementRef>();
    if (!ref) return bad_attribute(mesh, attr, "an element");
    const dmx::Element* arr = doc.get(*ref);
    if (!arr) return out;
    if (arr->type != "CDmePolygonMeshDataArray") {
        return bad_attribute(mesh, attr, "a CDmePolygonMeshDataArray");
    }
    out.element = *ref;
    out.size = arr->get_or<std::int32_t>("size", 0);
    const dmx::Attribute* streams = arr->find("streams");
    if (!streams) return out;
    const auto* list = streams->value.get_if<std::vector<ElementRef>>();
    if (!list) return bad_attribute(*arr, "streams", "an element_array");
    out.streams.reserve(list->size());
    for (ElementRef r : *list) {
        const dmx::Element* s = doc.get(r);
        if (!s || s->type != "CDmePolygonMeshDataStream") continue;
        StreamView sv;
        sv.element = r;
        sv.name = s->name;  // the element name ("texcoord:0"), not an attribute
        sv.flags = s->get_or<std::int32_t>("dataStateFlags", 0);
        if (const dmx::Attribute* d = s->find("data"); d && d->value.is_array())
            sv.data = &d->value;
        out.streams.push_back(sv);
    }
    return out;
}

}  // namespace

const StreamView* DataArrayView::find(std::string_view name) const {
    for (const StreamView& s : streams) {
        if (s.name == name) return &s;
    }
    return nullptr;
}

Result<MeshView> view_mesh(const dmx::Document& doc, ElementRef ref) {
    const dmx::Element* e = doc.get(ref);
    if (!e) return Diagnostic::error("vmap.bad-mesh", "mesh element reference is out of range");
    MeshView m;
    m.element = ref;
    struct Field {
        const char* name;
        std::span<const std::int32_t>* out;
    };
    const Field fields[] = {
        {"vertexEdgeIndices", &m.vertex_edge}, {"vertexDataIndices", &m.vertex_data},
        {"edgeVertexIndices", &m.edge_vertex}, {"edgeOppositeIndices", &m.edge_opposite},
        {"edgeNextIndices", &m.edge_next},     {"edgeFaceIndices", &m.edge_face},
        {"edgeDataIndices", &m.edge_data},     {"edgeVertexDataIndices", &m.edge_vertex_data},
        {"faceEdgeIndices", &m.face_edge},     {"faceDataIndices", &m.face_data}};
    for (const Field& f : fields) {
        LK_TRY_ASSIGN(*f.out, int_array(*e, f.name));
    }
    if (const dmx::Attribute* a = e->find("materials")) {
        const auto* v = a->value.get_if<std::vector<std::string>>();
        if (!v) return bad_attribute(*e, "materials", "a string_array");
        m.materials = *v;
    }
    LK_TRY_ASSIGN(m.vertices, data_array(doc, *e, "vertexData"));
    LK_TRY_ASSIGN(m.face_vertices, data_array(doc, *e, "faceVertexData"));
    LK_TRY_ASSIGN(m.edges, data_array(doc, *e, "edgeData"));
    LK_TRY_ASSIGN(m.faces, data_array(doc, *e, "faceData"));
    if (const auto* sub = e->get<ElementRef>("subdivisionData")) {
        if (const dmx::Element* s = doc.get(*sub)) {
            LK_TRY_ASSIGN(m.subdivision_levels, int_array(*s, "subdivisionLevels"));
        }
    }
    return m;
}

// --- validation --------------------------------------------------------------------------

namespace {

class Checker {
public:
    Checker(const MeshView& m, std::size_t max) : m_(m), max_(max) {}

    std::vector<MeshProblem> run() {
        // Later checks index with the earlier-checked arrays, so each stage runs only if the
        // previous ones passed.
        if (!sizes() || !ranges()) return std::move(out_);
        if (!opposites()) return std::move(out_);
        if (!next_links()) return std::move(out_);
        faces();
        vertices();
        duplicate_edges();
        streams();
        return std::move(out_);
    }

private:
    template <class... A>
    bool fail(const char* invariant, fmt::format_string<A...> f, A&&... a) {
        if (out_.size() < max_) out_.push_back({invariant, fmt::format(f, std::forward<A>(a)...)});
        return false;
    }
    bool full() const { return out_.size() >= max_; }

    std::int32_t origin(std::int32_t h) const {
        return m_
            .edge_vertex[static_cast<std::size_t>(m_.edge_opposite[static_cast<std::size_t>(h)])];
    }
    std::int32_t at(std::span<const std::int32_t> a, std::int32_t i) const {
        return a[static_cast<std::size_t>(i)];
    }

    // Per-vertex, per-half-edge and per-face arrays must agree on their element counts.
    bool sizes() {
        bool ok = true;
        const std::size_t nv = m_.vertex_edge.size(), nh = m_.edge_vertex.size(),
                          nf = m_.face_edge.size();
        if (m_.vertex_data.size() != nv) {
            ok = fail("array-sizes", "vertexDataIndices has {} entries for {} vertices",
                      m_.vertex_data.size(), nv);
        }
        const std::pair<const char*, std::span<const std::int32_t>> per_edge[] = {
            {"edgeOppositeIndices", m_.edge_opposite},
            {"edgeNextIndices", m_.edge_next},
            {"edgeFaceIndices", m_.edge_face},
            {"edgeDataIndices", m_.edge_data},
            {"edgeVertexDataIndices", m_.edge_vertex_data}};
        for (const auto& [name, a] : per_edge) {
            if (a.size() != nh) {
                ok = fail("array-sizes", "{} has {} entries for {} half-edges", name, a.size(), nh);
            }
        }
        if (nh % 2) ok = fail("array-sizes", "odd number of half-edges ({})", nh);
        if (m_.face_data.size() != nf) {
            ok = fail("array-sizes", "faceDataIndices has {} entries for {} faces",
                      m_.face_data.size(), nf);
        }
        if (!m_.subdivision_levels.empty() && m_.subdivision_levels.size() != nh) {
            ok = fail("array-sizes", "subdivisionLevels has {} entries for {} half-edges",
                      m_.subdivision_levels.size(), nh);
        }
        return ok;
    }

    bool range(const char* what, std::span<const std::int32_t> a, std::size_t n, bool allow_neg) {
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::int32_t v = a[i];
            if ((v < 0 && !(allow_neg && v == -1)) ||
                (v >= 0 && static_cast<std::size_t>(v) >= n)) {
                return fail("index-range", "{}[{}] = {} is outside 0..{}", what, i, v,
                            static_cast<std::int64_t>(n) - 1);
            }
        }
        return true;
    }

    bool data_range(const char* what, std::span<const std::int32_t> a, const DataArrayView& d) {
        if (!d.element.is_null() || d.size > 0) {
            return range(what, a, static_cast<std::size_t>(std::max(d.size, 0)), false);
        }
        return true;
    }

    bool ranges() {
        const std::size_t nv = m_.vertex_edge.size(), nh = m_.edge_vertex.size(),
                          nf = m_.face_edge.size();
        bool ok = true;
        // A vertex with no edges (left by deleting faces) has no outgoing half-edge.
        ok &= range("vertexEdgeIndices", m_.vertex_edge, nh, true);
        ok &= range("edgeVertexIndices", m_.edge_vertex, nv, false);
        ok &= range("edgeOppositeIndices", m_.edge_opposite, nh, false);
        ok &= range("edgeNextIndices", m_.edge_next, nh, false);
        ok &= range("edgeFaceIndices", m_.edge_face, nf, true);
        ok &= range("faceEdgeIndices", m_.face_edge, nh, false);
        ok &= data_range("vertexDataIndices", m_.vertex_data, m_.vertices);
        ok &= data_range("edgeDataIndices", m_.edge_data, m_.edges);
        ok &= data_range("edgeVertexDataIndices", m_.edge_vertex_data, m_.face_vertices);
        ok &= data_range("faceDataIndices", m_.face_data, m_.faces);
        return ok;
    }

    // Twins: an involution without fixed points, stored as pairs (2k, 2k+1), both halves sharing
    // one edge-data row, and at least one half on a face (an edge with no face is debris).
    bool opposites() {
        bool ok = true;
        for (std::int32_t h = 0; h < static_cast<std::int32_t>(m_.edge_opposite.size()) && !full();
             ++h) {
            const std::int32_t o = at(m_.edge_opposite, h);
            if (o != (h ^ 1)) {
                ok = fail("opposite", "half-edge {}: opposite is {}, not its pair {}", h, o, h ^ 1);
            } else if (at(m_.edge_data, h) != at(m_.edge_data, o)) {
                ok = fail("edge-data", "half-edges {} and {} (twins) use edge rows {} and {}", h, o,
                          at(m_.edge_data, h), at(m_.edge_data, o));
            } else if (at(m_.edge_face, h) < 0 && at(m_.edge_face, o) < 0 && h < o) {
                ok = fail("opposite", "edge {}-{} has no face on either side", h, o);
            } else if (at(m_.edge_vertex, h) == at(m_.edge_vertex, o)) {
                ok = fail("opposite", "half-edge {} starts and ends at vertex {}", h,
                          at(m_.edge_vertex, h));
            }
        }
        return ok;
    }

    // next is a permutation that stays on one face and continues where the edge ended.
    bool next_links() {
        const std::size_t nh = m_.edge_next.size();
        std::vector<std::uint8_t> seen(nh, 0);
        bool ok = true;
        for (std::int32_t h = 0; h < static_cast<std::int32_t>(nh) && !full(); ++h) {
            const std::int32_t n = at(m_.edge_next, h);
            if (seen[static_cast<std::size_t>(n)]++) {
                ok = fail("next", "half-edge {} is the next of two half-edges", n);
            } else if (at(m_.edge_face, n) != at(m_.edge_face, h)) {
                ok = fail("next", "half-edge {} (face {}) continues to {} on face {}", h,
                          at(m_.edge_face, h), n, at(m_.edge_face, n));
            } else if (origin(n) != at(m_.edge_vertex, h)) {
                ok = fail("next", "half-edge {} ends at vertex {} but its next {} starts at {}", h,
                          at(m_.edge_vertex, h), n, origin(n));
            }
        }
        return ok;
    }

    // Each face's loop (from faceEdgeIndices) is the whole set of half-edges of that face and has
    // at least 3 corners. A loop may pass a vertex twice: Hammer keeps such faces (a face joined
    // around a hole through a bridge edge, dmnet_error_b9_vmap28.vmap).
    void faces() {
        const std::size_t nh = m_.edge_vertex.size(), nf = m_.face_edge.size();
        std::vector<std::int32_t> loop_of(nh, -1);
        std::vector<std::int32_t> count(nf, 0);
        for (std::int32_t f : m_.edge_face) {
            if (f >= 0) ++count[static_cast<std::size_t>(f)];
        }
        for (std::int32_t f = 0; f < static_cast<std::int32_t>(nf) && !full(); ++f) {
            const std::int32_t start = at(m_.face_edge, f);
            if (at(m_.edge_face, start) != f) {
                fail("face-loop", "face {}: its half-edge {} belongs to face {}", f, start,
                     at(m_.edge_face, start));
                continue;
            }
            // next is a permutation on this face's half-edges (checked), so the loop closes.
            std::int32_t len = 0;
            std::int32_t h = start;
            do {
                ++len;
                h = at(m_.edge_next, h);
            } while (h != start);
            if (len != count[static_cast<std::size_t>(f)]) {
                fail("face-loop", "face {}: loop from half-edge {} has {} of its {} half-edges", f,
                     start, len, count[static_cast<std::size_t>(f)]);
            } else if (len < 3) {
                fail("face-loop", "face {} has {} corners", f, len);
            }
        }
    }

    // vertexEdgeIndices names an outgoing half-edge, and every half-edge leaving a vertex is
    // reached by turning around it (next of opposite): the vertex is a single fan (manifold).
    void vertices() {
        const std::size_t nv = m_.vertex_edge.size(), nh = m_.edge_vertex.size();
        std::vector<std::int32_t> outgoing(nv, 0);
        for (std::size_t h = 0; h < nh; ++h)
            ++outgoing[static_cast<std::size_t>(origin(static_cast<std::int32_t>(h)))];
        for (std::int32_t v = 0; v < static_cast<std::int32_t>(nv) && !full(); ++v) {
            const std::int32_t e = at(m_.vertex_edge, v);
            const std::int32_t n = outgoing[static_cast<std::size_t>(v)];
            if (e < 0) {
                if (n) fail("vertex-edge", "vertex {} has {} half-edges but no edge", v, n);
                continue;
            }
            if (origin(e) != v) {
                fail("vertex-edge", "vertex {}: its half-edge {} starts at vertex {}", v, e,
                     origin(e));
                continue;
            }
            std::int32_t fan = 0;
            std::int32_t h = e;
            do {
                ++fan;
                h = at(m_.edge_next, at(m_.edge_opposite, h));
            } while (h != e && fan <= n);
            if (fan != n) {
                fail("manifold", "vertex {}: {} of its {} half-edges form one fan", v, fan, n);
            }
        }
    }

    void duplicate_edges() {
        std::unordered_map<std::uint64_t, std::int32_t> seen;
        seen.reserve(m_.edge_vertex.size());
        for (std::int32_t h = 0; h < static_cast<std::int32_t>(m_.edge_vertex.size()) && !full();
             ++h) {
            const auto key =
                (static_cast<std::uint64_t>(static_cast<std::uint32_t>(origin(h))) << 32) |
                static_cast<std::uint32_t>(at(m_.edge_vertex, h));
            auto [it, fresh] = seen.emplace(key, h);
            if (!fresh) {
                fail("duplicate-edge", "half-edges {} and {} both run from vertex {} to {}",
                     it->second, h, origin(h), at(m_.edge_vertex, h));
            }
        }
    }

    void stream_sizes(const char* what, const DataArrayView& d) {
        for (const StreamView& s : d.streams) {
            if (s.data && s.size() != static_cast<std::size_t>(std::max(d.size, 0))) {
                fail("stream-size", "{} stream '{}' has {} rows, its array has {}", what, s.name,
                     s.size(), d.size);
            }
        }
    }

    void streams() {
        stream_sizes("vertexData", m_.vertices);
        stream_sizes("faceVertexData", m_.face_vertices);
        stream_sizes("edgeData", m_.edges);
        stream_sizes("faceData", m_.faces);
        const auto mat = m_.faces.get<std::int32_t>("materialindex:0");
        for (std::size_t i = 0; i < mat.size() && !full(); ++i) {
            if (mat[i] < -1 ||
                (mat[i] >= 0 && static_cast<std::size_t>(mat[i]) >= m_.materials.size())) {
                fail("material-index", "face row {}: material index {} of {} materials", i, mat[i],
                     m_.materials.size());
            }
        }
    }

    const MeshView& m_;
    std::size_t max_;
    std::vector<MeshProblem> out_;
};

}  // namespace

std::vector<MeshProblem> validate_mesh(const MeshView& m, std::size_t max_problems) {
    return Checker(m, std::max<std::size_t>(max_problems, 1)).run();
}

bool face_corners(const MeshView& m, std::size_t face, std::vector<Corner>& out) {
    out.clear();
    const std::size_t nh = m.edge_vertex.size();
    if (face >= m.face_edge.size()) return false;
    const std::int32_t start = m.face_edge[face];
    std::int32_t h = start;
    for (std::size_t steps = 0; steps <= nh; ++steps) {
        if (h < 0 || static_cast<std::size_t>(h) >= nh || m.edge_next.size() != nh) return false;
        out.push_back({h, m.edge_vertex[static_cast<std::size_t>(h)]});
        h = m.edge_next[static_cast<std::size_t>(h)];
        if (h == start) return true;
    }
    return false;
}

// --- building ------------------------------------------------------------------------------

namespace {

// (from, to) -> half-edge, by open addressing: a brush has a few dozen corners, and a node per
// entry (std::unordered_map) cost more than the rest of the topology. Vertex indices are below
// 2^31, so no key is all ones.
class EdgeTable {
public:
    explicit EdgeTable(std::size_t entries)
        : slots_(std::bit_ceil(std::max<std::size_t>(16, 2 * entries)), Slot{}),
          mask_(slots_.size() - 1) {}
    const std::int32_t* find(std::uint64_t key) const {
        for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
            if (slots_[i].key == key) return &slots_[i].value;
            if (slots_[i].key == kEmpty) return nullptr;
        }
    }
    // Inserts unless the key is there (as unordered_map::emplace).
    void emplace(std::uint64_t key, std::int32_t value) {
        for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
            if (slots_[i].key == key) return;
            if (slots_[i].key == kEmpty) {
                slots_[i] = {key, value};
                return;
            }
        }
    }

private:
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
    struct Slot {
        std::uint64_t key = kEmpty;
        std::int32_t value = 0;
    };
    std::size_t slot(std::uint64_t key) const {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
    }
    std::vector<Slot> slots_;
    std::size_t mask_;
};

}  // namespace

Result<Topology> build_topology(const Polygons& p) {
    Topology t;
    const std::size_t nv = p.positions.size();
    const std::size_t nf = p.face_count();
    if (nf > 0 && (p.face_begin.front() != 0 || p.face_begin.back() != p.corners.size())) {
        return Diagnostic::error("vmap.bad-polygons", "face_begin does not cover the corners");
    }
    if (p.corners.size() > static_cast<std::size_t>(INT32_MAX / 2) || nv > INT32_MAX) {
        return Diagnostic::error("vmap.bad-polygons", "too many corners for a mesh");
    }
    t.corner_edge.assign(p.corners.size(), -1);
    t.face_edge.resize(nf);
    // A pair of half-edges per corner at most (two entries); exactly one per corner when
    // every edge has a face on each side, so the edge lists are reserved at that.
    EdgeTable directed(2 * p.corners.size());
    t.edge_vertex.reserve(p.corners.size());
    t.edge_face.reserve(p.corners.size());
    t.edge_next.reserve(p.corners.size());
    auto key = [](std::uint32_t a, std::uint32_t b) {
        return (static_cast<std::uint64_t>(a) << 32) | b;
    };
    auto new_pair = [&](std::uint32_t from, std::uint32_t to) {
        const auto h = static_cast<std::int32_t>(t.edge_vertex.size());
        t.edge_vertex.push_back(static_cast<std::int32_t>(to));
        t.edge_vertex.push_back(static_cast<std::int32_t>(from));
        t.edge_face.push_back(-1);
        t.edge_face.push_back(-1);
        t.edge_next.push_back(-1);
        t.edge_next.push_back(-1);
        directed.emplace(key(to, from), h + 1);
        return h;
    };
    std::vector<std::int32_t> loop;
    for (std::size_t f = 0; f < nf; ++f) {
        const std::uint32_t b = p.face_begin[f], e = p.face_begin[f + 1];
        if (e < b || e - b < 3) {
            return Diagnostic::error("vmap.bad-polygons",
                                     fmt::format("face {} has fewer than 3 corners", f));
        }
        loop.clear();
        for (std::uint32_t c = b; c < e; ++c) {
            const std::uint32_t from = p.corners[c];
            const std::uint32_t to = p.corners[c + 1 < e ? c + 1 : b];
            if (from >= nv || to >= nv) {
                return Diagnostic::error("vmap.bad-polygons",
                                         fmt::format("face {} uses a vertex out of range", f));
            }
            for (std::uint32_t d = b; d < c; ++d) {
                if (p.corners[d] == from) {
                    return Diagnostic::error(
                        "vmap.bad-polygons",
                        fmt::format("face {} visits vertex {} twice", f, from));
                }
            }
            std::int32_t h;
            if (const std::int32_t* found = directed.find(key(from, to))) {
                h = *found;
                if (t.edge_face[static_cast<std::size_t>(h)] >= 0) {
                    return Diagnostic::error(
                        "vmap.non-manifold",
                        fmt::format("face {}: edge {}->{} is already used in this direction", f,
                                    from, to));
                }
            } else {
                h = new_pair(from, to);
                directed.emplace(key(from, to), h);
            }
            t.edge_face[static_cast<std::size_t>(h)] = static_cast<std::int32_t>(f);
            // The corner at the half-edge's destination is corner c+1.
            t.corner_edge[c + 1 < e ? c + 1 : b] = h;
            loop.push_back(h);
        }
        for (std::size_t i = 0; i < loop.size(); ++i) {
            t.edge_next[static_cast<std::size_t>(loop[i])] = loop[(i + 1) % loop.size()];
        }
        t.face_edge[f] = loop.front();
    }
    const std::size_t nh = t.edge_vertex.size();
    t.edge_opposite.reserve(nh);
    for (std::size_t h = 0; h < nh; ++h)
        t.edge_opposite.push_back(static_cast<std::int32_t>(h ^ 1));
    // prev of each face half-edge, to turn around a vertex.
    std::vector<std::int32_t> prev(nh, -1);
    for (std::size_t h = 0; h < nh; ++h) {
        if (t.edge_face[h] >= 0)
            prev[static_cast<std::size_t>(t.edge_next[h])] = static_cast<std::int32_t>(h);
    }
    // Border half-edges (face -1) run against their face twin; each continues with the next
    // border half-edge met by turning around its destination through the faces of that fan.
    for (std::size_t b = 0; b < nh; ++b) {
        if (t.edge_face[b] >= 0) continue;
        std::int32_t h = t.edge_opposite[b];  // leaves b's destination, on a face
        std::size_t guard = 0;
        while (t.edge_face[static_cast<std::size_t>(h)] >= 0 && guard++ <= nh) {
            h = t.edge_opposite[static_cast<std::size_t>(prev[static_cast<std::size_t>(h)])];
        }
        t.edge_next[b] = h;
    }
    t.vertex_edge.assign(nv, -1);
    for (std::size_t h = 0; h < nh; ++h) {
        const auto from = static_cast<std::size_t>(t.edge_vertex[h ^ 1]);
        // A border half-edge as the vertex's edge lets a fan walk start at the border.
        if (t.vertex_edge[from] < 0 || t.edge_face[h] < 0) {
            if (t.vertex_edge[from] < 0 ||
                t.edge_face[static_cast<std::size_t>(t.vertex_edge[from])] >= 0)
                t.vertex_edge[from] = static_cast<std::int32_t>(h);
        }
    }
    t.vertex_data.resize(nv);
    for (std::size_t v = 0; v < nv; ++v) t.vertex_data[v] = static_cast<std::int32_t>(v);
    t.edge_data.resize(nh);
    t.edge_vertex_data.resize(nh);
    for (std::size_t h = 0; h < nh; ++h) {
        t.edge_data[h] = static_cast<std::int32_t>(h / 2);
        t.edge_vertex_data[h] = static_cast<std::int32_t>(h);
    }
    t.face_data.resize(nf);
    for (std::size_t f = 0; f < nf; ++f) t.face_data[f] = static_cast<std::int32_t>(f);
    return t;
}

// --- writing -------------------------------------------------------------------------------

std::uint64_t IdSource::next() {
    // splitmix64: well mixed, tiny, and reproducible across platforms.
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

dmx::Guid IdSource::guid() {
    dmx::Guid g;
    const std::uint64_t a = next(), b = next();
    for (int i = 0; i < 8; ++i) {
        g.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(a >> (8 * i));
        g.bytes[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(b >> (8 * i));
    }
    // RFC 4122 version 4 / variant 1 bits, in UniqueId_t layout (Data3 is little-endian).
    g.bytes[7] = static_cast<std::uint8_t>((g.bytes[7] & 0x0F) | 0x40);
    g.bytes[8] = static_cast<std::uint8_t>((g.bytes[8] & 0x3F) | 0x80);
    return g;
}

std::uint64_t IdSource::reference() {
    std::uint64_t r;
    do {
        r = next();
    } while (r == 0);
    return r;
}

namespace detail {

MeshTree::MeshTree(MeshData mesh, IdSource& ids) : mesh_(std::move(mesh)) {
    describe(ids);
}

MeshTree::MeshTree(dmx::PackName node_class, const dmx::Guid& node_id,
                   std::vector<dmx::PackAttr> node, MeshData mesh, IdSource& ids)
    : mesh_(std::move(mesh)), node_(std::move(node)) {
    node_.push_back(dmx::PackAttr::element("meshData", 1));
    elements_.push_back({node_class, "", true, node_id, node_});
    describe(ids);
}

void MeshTree::describe(IdSource& ids) {
    Topology& t = mesh_.topology;
    std::vector<StreamData>* arrays[4] = {&mesh_.vertex_streams, &mesh_.face_vertex_streams,
                                          &mesh_.edge_streams, &mesh_.face_streams};
    const std::size_t rows[4] = {t.vertex_edge.size(), t.edge_vertex.size(), t.edge_count(),
                                 t.face_edge.size()};
    std::size_t streams = 0;
    for (const auto* a : arrays) streams += a->size();
    // Every attribute and string is stored before a span is taken of them: no reallocation.
    attrs_.reserve(16 + 7 * streams + 2 * 4 + 2);
    semantics_.reserve(streams);
    streams_.reserve(streams);
    elements_.reserve(elements_.size() + 1 + streams + 4 + 1);
    levels_.assign(t.edge_vertex.size(), 0);
    auto take = [&](std::size_t from) {
        return std::span<const dmx::PackAttr>(attrs_.data() + from, attrs_.size() - from);
    };
    const auto first = static_cast<std::int32_t>(elements_.size());
    auto pos = [&] { return static_cast<std::int32_t>(elements_.size()); };
    elements_.push_back({"CDmePolygonMesh", "meshData", true, ids.guid(), {}});
    std::int32_t array_pos[4];
    for (int k = 0; k < 4; ++k) {
        const std::size_t from_stream = streams_.size();
        for (StreamData& s : *arrays[k]) {
            const auto colon = s.name.rfind(':');
            semantics_.push_back(s.name.substr(0, colon));
            std::int32_t index = 0;
            if (colon != std::string::npos) index = std::atoi(s.name.c_str() + colon + 1);
            const std::size_t from = attrs_.size();
            attrs_.push_back(dmx::PackAttr::text(
                "standardAttributeName",
                s.standard ? std::string_view(semantics_.back()) : std::string_view()));
            attrs_.push_back(dmx::PackAttr::text("semanticName", semantics_.back()));
            attrs_.push_back(dmx::PackAttr("semanticIndex", index));
            attrs_.push_back(dmx::PackAttr("vertexBufferLocation", s.buffer_location));
            attrs_.push_back(dmx::PackAttr("dataStateFlags", s.flags));
            attrs_.push_back(dmx::PackAttr::element("subdivisionBinding", -1));
            attrs_.push_back(dmx::PackAttr("data", s.data));
            streams_.push_back(pos());
            elements_.push_back(
                {"CDmePolygonMeshDataStream", s.name, false, ids.guid(), take(from)});
        }
        const std::size_t from = attrs_.size();
        attrs_.push_back(dmx::PackAttr("size", static_cast<std::int32_t>(rows[k])));
        attrs_.push_back(dmx::PackAttr::elements(
            "streams", std::span<const std::int32_t>(streams_.data() + from_stream,
                                                     streams_.size() - from_stream)));
        array_pos[k] = pos();
        elements_.push_back({"CDmePolygonMeshDataArray", "", true, ids.guid(), take(from)});
    }
    std::size_t from = attrs_.size();
    attrs_.push_back(dmx::PackAttr("subdivisionLevels", levels_));
    attrs_.push_back(dmx::PackAttr::elements("streams", {}));
    const std::int32_t sub = pos();
    elements_.push_back({"CDmePolygonMeshSubdivisionData", "", true, ids.guid(), take(from)});
    from = attrs_.size();
    attrs_.push_back(dmx::PackAttr("vertexEdgeIndices", t.vertex_edge));
    attrs_.push_back(dmx::PackAttr("vertexDataIndices", t.vertex_data));
    attrs_.push_back(dmx::PackAttr("edgeVertexIndices", t.edge_vertex));
    attrs_.push_back(dmx::PackAttr("edgeOppositeIndices", t.edge_opposite));
    attrs_.push_back(dmx::PackAttr("edgeNextIndices", t.edge_next));
    attrs_.push_back(dmx::PackAttr("edgeFaceIndices", t.edge_face));
    attrs_.push_back(dmx::PackAttr("edgeDataIndices", t.edge_data));
    attrs_.push_back(dmx::PackAttr("edgeVertexDataIndices", t.edge_vertex_data));
    attrs_.push_back(dmx::PackAttr("faceEdgeIndices", t.face_edge));
    attrs_.push_back(dmx::PackAttr("faceDataIndices", t.face_data));
    attrs_.push_back(dmx::PackAttr("materials", std::span<const std::string>(mesh_.materials)));
    attrs_.push_back(dmx::PackAttr::element("vertexData", array_pos[0]));
    attrs_.push_back(dmx::PackAttr::element("faceVertexData", array_pos[1]));
    attrs_.push_back(dmx::PackAttr::element("edgeData", array_pos[2]));
    attrs_.push_back(dmx::PackAttr::element("faceData", array_pos[3]));
    attrs_.push_back(dmx::PackAttr::element("subdivisionData", sub));
    elements_[static_cast<std::size_t>(first)].attributes = take(from);
}

}  // namespace detail

ElementRef add_mesh(dmx::Document& doc, MeshData mesh, IdSource& ids) {
    const detail::MeshTree tree(std::move(mesh), ids);
    return dmx::make_elements(doc, tree.elements());
}

}  // namespace lk::vmap
