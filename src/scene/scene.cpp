#include "levelkit/scene/scene.hpp"

#include "levelkit/core/numbers.hpp"
#include "levelkit/core/text.hpp"

namespace lk::scene {

std::string_view Entity::get(std::string_view key, std::string_view fallback) const {
    const std::string* v = find_key(keys, key);
    return v ? std::string_view(*v) : fallback;
}

void Entity::set(std::string_view key, std::string_view value) {
    set_key(keys, key, value);
}

void Entity::erase(std::string_view key) {
    erase_key(keys, key);
}

std::optional<Vec3> Entity::origin() const {
    const std::string_view v = get("origin");
    return v.empty() ? std::nullopt : parse_vec3(v);
}

std::optional<Vec3> Entity::angles() const {
    const std::string_view v = get("angles");
    return v.empty() ? std::nullopt : parse_vec3(v);
}

Counts count(const Scene& s) {
    Counts c;
    auto add = [&](const Entity& e) {
        c.brushes += e.brushes.size();
        for (const Brush& b : e.brushes) {
            c.sides += b.sides.size();
            for (const BrushSide& sd : b.sides) c.displacements += sd.displacement.has_value();
        }
        c.meshes += e.meshes.size();
        for (const Mesh& m : e.meshes) c.faces += m.faces.size();
        c.outputs += e.outputs.size();
    };
    add(s.world);
    for (const Entity& e : s.entities) {
        ++c.entities;
        add(e);
    }
    return c;
}

}  // namespace lk::scene
