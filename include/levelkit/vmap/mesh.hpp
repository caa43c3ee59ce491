// CDmePolygonMesh, Hammer's half-edge mesh (notes/dmx.md §5.3): read one from a DMX document
// without copying its arrays, check every topological invariant, build one from polygons, and
// read its faces back as polygons.
//
// Layout: half-edges come in twin pairs; `edgeVertexIndices[h]` is the vertex h points TO, its
// origin is the destination of its twin. `edgeNextIndices` links the half-edges of a face loop
// counter-clockwise around the face normal; half-edges on an open border have face -1 and their
// own next-loop. Data rows: one per vertex (`vertexData`), per half-edge ("face-vertex" corner,
// `faceVertexData`, the corner at the half-edge's destination), per full edge (`edgeData`, shared
// by both halves) and per face (`faceData`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/geometry.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/dmx/document.hpp"

namespace lk::vmap {

using dmx::ElementRef;

// --- reading -----------------------------------------------------------------------------

// One CDmePolygonMeshDataStream: a typed array named "semantic:index" ("texcoord:0").
struct StreamView {
    ElementRef element;
    std::string_view name;
    const dmx::Value* data = nullptr;  // an array value, or null when the stream has no data
    std::int32_t flags = 0;            // dataStateFlags

    std::size_t size() const { return data ? data->array_size() : 0; }
    // The stream's items if its data has exactly type std::vector<T>, else empty.
    template <class T>
    std::span<const T> as() const {
        const auto* v = data ? data->get_if<std::vector<T>>() : nullptr;
        return v ? std::span<const T>(*v) : std::span<const T>();
    }
};

// A CDmePolygonMeshDataArray: `size` rows shared by its streams.
struct DataArrayView {
    ElementRef element;
    std::int32_t size = 0;
    std::vector<StreamView> streams;

    const StreamView* find(std::string_view name) const;
    template <class T>
    std::span<const T> get(std::string_view name) const {
        const StreamView* s = find(name);
        return s ? s->as<T>() : std::span<const T>();
    }
};

// The arrays of one CDmePolygonMesh, as spans into the document (valid while it lives).
struct MeshView {
    ElementRef element;
    std::span<const std::int32_t> vertex_edge, vertex_data;
    std::span<const std::int32_t> edge_vertex, edge_opposite, edge_next, edge_face, edge_data,
        edge_vertex_data;
    std::span<const std::int32_t> face_edge, face_data;
    std::span<const std::string> materials;
    DataArrayView vertices, face_vertices, edges, faces;
    std::span<const std::int32_t> subdivision_levels;  // per half-edge, may be empty

    std::size_t vertex_count() const { return vertex_edge.size(); }
    std::size_t half_edge_count() const { return edge_vertex.size(); }
    std::size_t face_count() const { return face_edge.size(); }
};

// Views the CDmePolygonMesh element `mesh`. Missing arrays read as empty (the validator reports
// them); an attribute of the wrong type or a data array that is not a CDmePolygonMeshDataArray is
// an error whose path names the attribute.
Result<MeshView> view_mesh(const dmx::Document& doc, ElementRef mesh);

// --- validation --------------------------------------------------------------------------

struct MeshProblem {
    // Stable invariant id: "array-sizes", "index-range", "opposite", "edge-data", "next",
    // "face-loop", "vertex-edge", "manifold", "duplicate-edge", "stream-size", "material-index".
    std::string invariant;
    std::string detail;  // which element broke it ("half-edge 12: opposite 13 has opposite 14")
};

// Checks every invariant of the half-edge layout (see mesh.cpp for the list and the reason for
// each). Stops after `max_problems`. Empty result = valid.
std::vector<MeshProblem> validate_mesh(const MeshView& m, std::size_t max_problems = 8);

// --- faces as polygons ---------------------------------------------------------------------

// A face's corners in loop order: the half-edge whose destination is the corner, and that
// vertex. Returns false (and leaves `out` partial) if the loop does not close within the mesh's
// half-edge count or leaves the index ranges; validate_mesh explains why.
struct Corner {
    std::int32_t half_edge = 0;
    std::int32_t vertex = 0;
};
bool face_corners(const MeshView& m, std::size_t face, std::vector<Corner>& out);

// --- building ------------------------------------------------------------------------------

// A polygon soup to build a mesh from. Faces are counter-clockwise around their outward normal
// (Hammer's convention: the opposite of VMF/VBSP windings).
struct Polygons {
    std::vector<Vec3> positions;
    std::vector<std::uint32_t> corners;     // vertex index per face corner, faces in order
    std::vector<std::uint32_t> face_begin;  // face i = corners[face_begin[i] .. face_begin[i+1])
    std::size_t face_count() const { return face_begin.empty() ? 0 : face_begin.size() - 1; }
};

// The index arrays of a CDmePolygonMesh.
struct Topology {
    std::vector<std::int32_t> vertex_edge, vertex_data;
    std::vector<std::int32_t> edge_vertex, edge_opposite, edge_next, edge_face, edge_data,
        edge_vertex_data;
    std::vector<std::int32_t> face_edge, face_data;
    // Not stored: for each input corner, the half-edge whose destination it is (its row in
    // faceVertexData), so callers can lay out per-corner streams.
    std::vector<std::int32_t> corner_edge;
    std::size_t edge_count() const { return edge_vertex.size() / 2; }
};

// Links polygons into a half-edge mesh: shared vertices, twins as pairs (2k, 2k+1), face loops,
// open borders as face -1 loops. Data rows are one per vertex / half-edge / edge / face in index
// order. Errors: a face with fewer than 3 corners or a repeated vertex, a corner index out of
// range, or an edge used twice in the same direction (two faces wound against each other, or
// more than two faces on an edge): such input is not a manifold oriented surface.
Result<Topology> build_topology(const Polygons& p);

struct StreamData {
    std::string name;  // "texcoord:0"
    std::int32_t flags = 0;
    dmx::Value data;  // an array with one item per row of its data array
    // Hammer's own streams repeat the semantic as standardAttributeName and use vertex buffer 0;
    // paint streams (VertexPaintBlendParams, VertexPaintTintColor) have "" and buffer 1.
    bool standard = true;
    std::int32_t buffer_location = 0;
};

struct MeshData {
    Topology topology;
    std::vector<std::string> materials;
    std::vector<StreamData> vertex_streams, face_vertex_streams, edge_streams, face_streams;
};

// Source of element GUIDs and node reference ids. Deterministic for a given seed, so converting
// the same input twice gives the same bytes.
class IdSource {
public:
    explicit IdSource(std::uint64_t seed) : state_(seed) {}
    dmx::Guid guid();           // random-looking version 4 GUID
    std::uint64_t reference();  // non-zero
private:
    std::uint64_t next();
    std::uint64_t state_;
};

// Adds a CDmePolygonMesh element (named "meshData", streams in the given order, attributes in
// the order Hammer writes them) and returns it.
ElementRef add_mesh(dmx::Document& doc, MeshData mesh, IdSource& ids);  // moved into the document

}  // namespace lk::vmap
