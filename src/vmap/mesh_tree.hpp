// A CDmePolygonMesh and the elements under it described for packing (dmx::PackSource), so that
// a map's meshes are encoded straight from their arrays; made in a document (make_elements) it
// is the datamodel add_mesh makes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "levelkit/dmx/packed.hpp"
#include "levelkit/vmap/mesh.hpp"

namespace lk::vmap::detail {

class MeshTree final : public dmx::PackSource {
public:
    // The polygon mesh first, or a node above it: `node` (the node's attributes but the last,
    // "meshData", which is added; they may not refer to elements) and the node's GUID. The
    // mesh's GUIDs are drawn from `ids` in the order add_mesh has always drawn them: the
    // polygon mesh, each data array's streams then the array, the subdivision data.
    MeshTree(MeshData mesh, IdSource& ids);
    MeshTree(dmx::PackName node_class, const dmx::Guid& node_id, std::vector<dmx::PackAttr> node,
             MeshData mesh, IdSource& ids);
    MeshTree(const MeshTree&) = delete;  // its elements point into it
    MeshTree& operator=(const MeshTree&) = delete;

    std::span<const dmx::PackElement> elements() const override { return elements_; }
    const MeshData& mesh() const { return mesh_; }

private:
    void describe(IdSource& ids);
    MeshData mesh_;
    std::vector<dmx::PackAttr> node_, attrs_;
    std::vector<std::string> semantics_;  // per stream, in the order of the data arrays
    std::vector<std::int32_t> streams_;   // positions of the streams, array by array
    std::vector<std::int32_t> levels_;    // subdivisionLevels
    std::vector<dmx::PackElement> elements_;
};

}  // namespace lk::vmap::detail
