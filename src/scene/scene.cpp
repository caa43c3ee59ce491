#include "levelkit/scene/scene.hpp"

#include "levelkit/core/text.hpp"

namespace lk::scene {

std::string_view Entity::get(std::string_view key, std::string_view fallback) const {
    for (const KeyValue& kv : keys) {
        if (iequals(kv.key, key)) return kv.value;
    }
    return fallback;
}

void Entity::set(std::string_view key, std::string_view value) {
    for (KeyValue& kv : keys) {
        if (iequals(kv.key, key)) {
            kv.value = std::string(value);
            return;
        }
    }
    keys.push_back({std::string(key), std::string(value)});
}

void Entity::erase(std::string_view key) {
    std::erase_if(keys, [&](const KeyValue& kv) { return iequals(kv.key, key); });
}

std::optional<Vec3> parse_vec3(std::string_view s) {
    const auto parts = split_ws(s);
    if (parts.size() != 3) return std::nullopt;
    Vec3 v;
    for (int i = 0; i < 3; ++i) {
        auto d = parse_double(parts[static_cast<std::size_t>(i)]);
        if (!d) return std::nullopt;
        v[i] = *d;
    }
    return v;
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
