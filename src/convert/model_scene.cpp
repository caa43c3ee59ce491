#include "levelkit/convert/model_scene.hpp"

#include "gltf_axes.hpp"

namespace lk::convert {

scene::Scene model_to_scene(const model::Model& m) {
    scene::Scene s;
    s.source_format = "model";
    s.world.set("classname", "worldspawn");
    if (!m.nodes.empty()) s.world.set("model", m.name());
    // Through glTF's Y-up metres, which every up axis and unit maps to, back to Z-up inches.
    const detail::GltfAxes to_y = detail::GltfAxes::of(m, 1.0 / 39.37007874015748);
    const detail::GltfAxes from_z =
        detail::GltfAxes::of(model::Axis::z, 39.37007874015748, 1.0 / 39.37007874015748);
    auto point = [&](const model::Vec3f& p) {
        const model::Vec3f z = from_z.vector_back(to_y.vector(p));
        return Vec3{z.x, z.y, z.z};
    };
    auto direction = [&](const model::Vec3f& p) {
        const model::Vec3f z = from_z.direction_back(to_y.direction(p));
        return Vec3{z.x, z.y, z.z};
    };
    const std::vector<model::Affine> world = model::world_bind(m);
    for (const model::Mesh& mesh : m.meshes) {
        if (mesh.node >= world.size()) continue;
        const model::Affine& w = world[mesh.node];
        scene::Mesh out;
        out.positions.reserve(mesh.positions.values.size());
        for (const model::Vec3f& p : mesh.positions.values)
            out.positions.push_back(point(w.point(p)));
        const bool normals = mesh.normals.present();
        const model::Indexed<model::Vec2f>* uv =
            !mesh.texcoords.empty() && mesh.texcoords[0].present() ? &mesh.texcoords[0] : nullptr;
        for (const model::FaceSet& fs : mesh.face_sets) {
            const std::string& mat =
                fs.material < m.materials.size() ? m.materials[fs.material].name : std::string();
            std::uint32_t mi = 0;
            while (mi < out.materials.size() && out.materials[mi] != mat) ++mi;
            if (mi == out.materials.size()) out.materials.push_back(mat);
            std::size_t at = 0;
            for (std::uint32_t n : fs.sizes) {
                if (at + n > fs.corners.size()) break;
                scene::Mesh::Face f;
                f.first = static_cast<std::uint32_t>(out.face_vertices.size());
                f.count = n;
                f.material = mi;
                for (std::uint32_t k = 0; k < n; ++k) {
                    const std::uint32_t c = fs.corners[at + k];
                    out.face_vertices.push_back(mesh.positions.indices[c]);
                    if (uv) {
                        const model::Vec2f t = uv->at(c);
                        out.uvs.push_back({t.x, 1.0 - t.y});
                    } else {
                        out.uvs.push_back({0, 0});
                    }
                    if (normals)
                        out.normals.push_back(normalize(direction(w.normal(mesh.normals.at(c)))));
                }
                out.faces.push_back(f);
                at += n;
            }
        }
        s.world.meshes.push_back(std::move(out));
    }
    return s;
}

}  // namespace lk::convert
