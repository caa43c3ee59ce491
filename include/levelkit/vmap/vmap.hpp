// Source 2 Hammer maps (.vmap): a typed layer over the DMX datamodel (notes/dmx.md §5).
//
// A vmap is a DMX document with format name "vmap" whose root is a CMapRootElement. `Map` reads
// it without copying: node lists, entities, meshes and editor data are element references into
// the dmx::Document, which stays the single owner of the data, so a read → write round trip is
// the DMX one (byte-identical, unknown elements and attributes included).
//
// `MapBuilder` creates a new vmap with the element classes and attributes Hammer writes for
// format version 29 (the version VRF writes and every later Hammer upgrades on load).
//
// Transforms: a node's origin/angles/scales place it in world space; children do not compose
// with their parent (Hammer stores a mesh tied to an entity with the entity's own origin and
// angles, so the two coincide in the editor).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "levelkit/core/geometry.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/dmx/document.hpp"
#include "levelkit/dmx/packed.hpp"
#include "levelkit/vmap/mesh.hpp"

namespace lk::vmap {

enum class NodeKind : std::uint8_t {
    world,     // CMapWorld
    entity,    // CMapEntity
    mesh,      // CMapMesh
    group,     // CMapGroup
    instance,  // CMapInstance (refers to a CMapGroup through `target`)
    prefab,    // CMapPrefab (refers to another .vmap)
    layer,     // CMapWorldLayer
    other,     // any other class under `children`
};
std::string_view to_string(NodeKind k);
NodeKind node_kind(std::string_view class_name);

struct Node {
    ElementRef element;
    NodeKind kind = NodeKind::other;
    std::int32_t parent = -1;  // index into Map::nodes, -1 for the world
    std::uint32_t depth = 0;
};

struct Transform {
    Vec3 origin;
    Vec3 angles;  // pitch yaw roll, degrees
    Vec3 scales{1, 1, 1};
    // world = origin + R(angles) * (scales * local)
    Vec3 apply(const Vec3& local) const;
    bool is_identity() const;
};

// One DmeConnectionData (an entity output).
struct Connection {
    std::string_view output, target, input, param;
    float delay = 0;
    std::int32_t times = -1;       // -1 = every time
    std::int32_t target_type = 0;  // Hammer's target kind; 7 = by name in every corpus file
};

class Map;
struct ReadOptions {};
// The reader every module has: the typed map over a read DMX document (which must outlive it),
// warnings (a root class other than Hammer's CMapRootElement), options.
Result<Map> read(const dmx::Document& doc, Diagnostics& warnings, const ReadOptions& opt = {});

class Map {
public:
    // Fails if the document has no root or the root's `world` is not a CMapWorld. Hammer's root
    // class is CMapRootElement; hand-written files use others, which `root_is_hammer` tells.
    static Result<Map> open(const dmx::Document& doc);

    const dmx::Document& doc() const { return *doc_; }
    int version() const { return doc_->header.format_version; }
    bool root_is_hammer() const { return doc_->get(root)->type == "CMapRootElement"; }

    ElementRef root, world, visibility, variables, selection_sets, default_camera, cameras;

    // Every node reachable through `children` from the world (world first, depth-first, each
    // element once: instances share groups by reference, not by child lists).
    std::vector<Node> nodes;
    // CMapMesh nodes, CMapEntity nodes (in node order).
    std::vector<std::uint32_t> meshes, entities;

    const dmx::Element& element(const Node& n) const { return (*doc_)[n.element]; }
    Transform transform(ElementRef node) const;
    // The CDmePolygonMesh of a CMapMesh node (null if it has none).
    ElementRef mesh_data(ElementRef node) const;
    // entity_properties keys and values in order (classname first in Hammer files); values that
    // are not strings are skipped.
    std::vector<std::pair<std::string_view, std::string_view>> properties(ElementRef node) const;
    std::string_view property(ElementRef node, std::string_view key) const;
    std::vector<Connection> connections(ElementRef node) const;
    std::string_view classname(ElementRef node) const { return property(node, "classname"); }
    // `nodeID` of a node, or -1.
    std::int32_t node_id(ElementRef node) const;

private:
    const dmx::Document* doc_ = nullptr;
};

// Problems of every mesh in the map, keyed by the CMapMesh node.
struct MeshReport {
    std::uint32_t node = 0;  // index into Map::nodes
    std::int32_t node_id = -1;
    std::vector<MeshProblem> problems;
    std::string view_error;  // set when the mesh arrays could not be viewed at all
};
std::vector<MeshReport> validate_meshes(const Map& map, std::size_t max_problems_per_mesh = 8);

// --- writing -------------------------------------------------------------------------------

struct EntityData {
    std::vector<std::pair<std::string, std::string>> properties;  // classname first
    struct Output {
        std::string output, target, input, param;
        float delay = 0;
        std::int32_t times = -1;
    };
    std::vector<Output> outputs;
    Transform transform;
};

// A CMapPrefab: another .vmap placed in this one (Source 1's func_instance).
struct PrefabData {
    Transform transform;
    std::string target_map;   // "maps/prefabs/x.vmap", relative to the content root
    std::string target_name;  // name used to fix up the prefab's entity names
    bool fixup_names = true;
};

struct BuildOptions {
    int format_version = 29;
    std::int32_t editor_build = 8600;  // what VRF writes; Hammer upgrades older builds on load
    std::int32_t editor_version = 400;
};

// Builds a new vmap document. Elements are added as nodes are; `finish` fills the prefix asset
// list and returns the document (header binary 9; callers may dmx::convert it to another
// encoding).
class MapBuilder {
public:
    MapBuilder(std::uint64_t seed, const BuildOptions& opt = {});

    dmx::Document& doc() { return doc_; }
    ElementRef world() const { return world_; }

    // A CMapEntity under `parent` (the world or a group). `leaf`: nothing will be placed under
    // it (it may then be packed, see pack_meshes).
    ElementRef add_entity(ElementRef parent, const EntityData& e, bool leaf = false);
    // Sets the world's entity_properties (classname worldspawn is added when missing).
    void set_world_properties(const std::vector<std::pair<std::string, std::string>>& props);
    // A CMapMesh holding `mesh` under `parent`.
    ElementRef add_mesh(ElementRef parent, MeshData mesh, const Transform& t = {});
    ElementRef add_group(ElementRef parent, const Transform& t = {});
    ElementRef add_prefab(ElementRef parent, const PrefabData& p);
    // Visibility: hide a node (CVisibilityMgr nodes/hiddenFlags).
    void hide(ElementRef node);
    void set_default_camera(const Vec3& position, const Vec3& look_at);
    void add_camera(const Vec3& position, const Vec3& look_at);
    void set_active_camera(std::int32_t index);
    void set_cordoning(bool cordoning);
    // A named CMapSelectionSet (Hammer's equivalent of a visgroup) under `parent` (null = the
    // root set), and membership of a node in one.
    ElementRef add_selection_set(ElementRef parent, std::string_view name);
    void select(ElementRef set, ElementRef node);

    // From here on each mesh (its CMapMesh node and the elements under it), each leaf entity
    // and each prefab is encoded into `packs` as it is made and the document holds its placeholder,
    // which add_* return: write the document with dmx::write_to(doc, *packs, sink) (the same
    // bytes as unpacked). A packed node holds no children: nodes added under it go under the
    // world.
    void pack_meshes(dmx::PackedSubtrees* packs);

    dmx::Document finish();

private:
    // A node with the attributes every node has (kNodeAttributes), room reserved for
    // `more_attributes` the caller adds.
    ElementRef add_node(std::string_view cls, ElementRef parent, const Transform& t,
                        std::size_t more_attributes = 0);
    // The same in `d` (the document or a tree to pack), not yet under `parent`.
    ElementRef add_node(dmx::Document& d, std::string_view cls, ElementRef parent,
                        const Transform& t, std::size_t more_attributes);
    // Puts `n` (made in `d` by add_node) under `parent`, packed first when `d` is a tree;
    // returns what the document holds for it.
    ElementRef finish_node(dmx::Document& d, ElementRef parent, ElementRef n);
    void attach(ElementRef parent, ElementRef n);
    // The document a packed node is made in (emptied).
    dmx::Document& packed_tree();
    static constexpr std::size_t kNodeAttributes = 11;
    // A new node's GUID, nodeID and referenceID (0 for a node without a parent), drawn in
    // that order; the node's other elements draw their GUIDs after them.
    struct NodeIds {
        dmx::Guid guid;
        std::int32_t node_id = 0;
        std::uint64_t reference = 0;
    };
    NodeIds next_node_ids(ElementRef parent);
    // A described node (its tree) under `parent`: packed (`pack`) or made in the document;
    // returns what the document holds for it.
    ElementRef place(ElementRef parent, std::unique_ptr<dmx::PackSource> tree, bool pack);
    // relayPlugData, connectionsData and (unless `props` is null) entity_properties.
    void add_entity_parts(ElementRef node,
                          const std::vector<std::pair<std::string, std::string>>* props,
                          const std::vector<EntityData::Output>& outputs);
    void add_entity_parts(dmx::Document& d, ElementRef node,
                          const std::vector<std::pair<std::string, std::string>>* props,
                          const std::vector<EntityData::Output>& outputs);
    ElementRef new_element(std::string_view cls);
    ElementRef new_element(dmx::Document& d, std::string_view cls);

    dmx::Document doc_;
    IdSource ids_;
    BuildOptions opt_;
    ElementRef world_, visibility_, cameras_, default_camera_, selection_root_;
    std::int32_t next_node_id_ = 2;
    std::vector<std::string> materials_;  // map_asset_references, first use first
    std::unordered_set<std::string> material_set_;
    dmx::PackedSubtrees* packs_ = nullptr;
    // The tree the next packed node is made in (from packs_->take_tree(); handed back to the
    // packs with the node).
    std::unique_ptr<dmx::Document> tree_;
};

}  // namespace lk::vmap
