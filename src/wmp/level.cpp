#include <algorithm>

#include "levelkit/core/text.hpp"
#include "levelkit/wmp/level.hpp"
#include "model_util.hpp"

namespace lk::wmp {

std::string_view to_string(Dialect d) {
    switch (d) {
        case Dialect::a3:
            return "a3";
        case Dialect::wmp2_a4:
            return "wmp2-a4";
        case Dialect::wmp2_a5:
            return "wmp2-a5";
        case Dialect::wmp2_a6:
            return "wmp2-a6";
        case Dialect::wmpb:
            return "wmpb";
        case Dialect::mm:
            return "$$m";
    }
    return "?";
}

bool is_wmp2(Dialect d) {
    return d == Dialect::wmp2_a4 || d == Dialect::wmp2_a5 || d == Dialect::wmp2_a6;
}

namespace {
constexpr std::string_view kClassNames[] = {"object", "level", "block", "model", "light",
                                            "start",  "sound", "path",  "region"};
}

std::string_view class_name(Kind k) {
    return kClassNames[static_cast<int>(k)];
}

std::optional<Kind> kind_from_class_name(std::string_view s) {
    for (int i = 0; i < 9; ++i) {
        if (kClassNames[i] == s) return static_cast<Kind>(i);
    }
    return std::nullopt;
}

ModelFileType model_file_type(std::string_view file) {
    if (iends_with(file, ".dds")) return ModelFileType::dds_sprite;
    if (iends_with(file, ".pcx") || iends_with(file, ".tga") || iends_with(file, ".bmp"))
        return ModelFileType::sprite;
    if (iends_with(file, ".wmb")) return ModelFileType::wmb;
    if (iends_with(file, ".hmp")) return ModelFileType::hmp;
    return ModelFileType::mdl;
}

std::size_t Level::count(Kind k) const {
    switch (k) {
        case Kind::group: {
            return static_cast<std::size_t>(
                std::count_if(objects.begin(), objects.end(),
                              [](const Object& o) { return o.kind == Kind::group; }));
        }
        case Kind::level:
            return levels.size();
        case Kind::block:
            return blocks.size();
        case Kind::model:
            return models.size();
        case Kind::light:
            return lights.size();
        case Kind::start:
            return starts.size();
        case Kind::sound:
            return sounds.size();
        case Kind::path:
            return paths.size();
        case Kind::region:
            return regions.size();
    }
    return 0;
}

std::size_t Level::entity_count() const {
    return levels.size() + models.size() + lights.size() + starts.size() + sounds.size() +
           paths.size() + regions.size();
}

std::size_t Level::face_count() const {
    std::size_t n = 0;
    for (const Block& b : blocks) n += b.faces.size();
    return n;
}

Kind kind_of(RecordKind k) {
    switch (k) {
        case RecordKind::object:
            return Kind::group;
        case RecordKind::block:
            return Kind::block;
        case RecordKind::level:
        case RecordKind::sun:
            return Kind::level;
        case RecordKind::model:
            return Kind::model;
        case RecordKind::light:
            return Kind::light;
        case RecordKind::start:
            return Kind::start;
        case RecordKind::sound:
            return Kind::sound;
        case RecordKind::path:
            return Kind::path;
        case RecordKind::region:
            return Kind::region;
        case RecordKind::unknown:
            break;
    }
    return Kind::group;
}

RecordKind record_kind_of(Kind k) {
    static constexpr RecordKind kMap[] = {
        RecordKind::object, RecordKind::level, RecordKind::block,
        RecordKind::model,  RecordKind::light, RecordKind::start,
        RecordKind::sound,  RecordKind::path,  RecordKind::region};
    return kMap[static_cast<int>(k)];
}

std::size_t payload_slot(const Level& lv, Kind k, std::size_t index) {
    std::size_t base = 0;
    for (Kind x : {Kind::block, Kind::level, Kind::model, Kind::light, Kind::start, Kind::sound,
                   Kind::path, Kind::region}) {
        if (x == k) return base + index;
        base += lv.count(x);
    }
    return base;
}

std::size_t payload_slot_count(const Level& lv) {
    return payload_slot(lv, Kind::group, 0);
}

std::vector<const Object*> payload_owners(const Level& lv) {
    std::vector<const Object*> owners(payload_slot_count(lv), nullptr);
    for (const Object& o : lv.objects) {
        if (o.kind == Kind::group || o.payload < 0) continue;
        if (static_cast<std::size_t>(o.payload) >= lv.count(o.kind)) continue;
        const std::size_t s = payload_slot(lv, o.kind, static_cast<std::size_t>(o.payload));
        if (!owners[s]) owners[s] = &o;
    }
    return owners;
}

std::int64_t payload_number(const Level& lv, Kind k, std::size_t i) {
    switch (k) {
        case Kind::group:
            return lv.objects[i].number;
        case Kind::level:
            return lv.levels[i].number;
        case Kind::block:
            return lv.blocks[i].number;
        case Kind::model:
            return lv.models[i].number;
        case Kind::light:
            return lv.lights[i].number;
        case Kind::start:
            return lv.starts[i].number;
        case Kind::sound:
            return lv.sounds[i].number;
        case Kind::path:
            return lv.paths[i].number;
        case Kind::region:
            return lv.regions[i].number;
    }
    return 0;
}

std::vector<std::uint32_t> object_preorder(const Level& lv) {
    std::vector<std::uint32_t> out;
    out.reserve(lv.objects.size());
    std::vector<std::uint8_t> seen(lv.objects.size(), 0);
    auto walk = [&](std::uint32_t start) {
        std::vector<std::uint32_t> stack{start};
        while (!stack.empty()) {
            const std::uint32_t o = stack.back();
            stack.pop_back();
            if (seen[o]) continue;  // shared children are listed once
            seen[o] = 1;
            out.push_back(o);
            const auto& ch = lv.objects[o].children;
            for (auto it = ch.rbegin(); it != ch.rend(); ++it) {
                if (*it < lv.objects.size() && !seen[*it]) stack.push_back(*it);
            }
        }
    };
    if (!lv.objects.empty() && lv.root < lv.objects.size()) walk(lv.root);
    for (std::uint32_t i = 0; i < lv.objects.size(); ++i) {
        if (!seen[i]) walk(i);
    }
    return out;
}

std::vector<RecordRef> canonical_record_order(const Level& lv) {
    std::vector<RecordRef> out;
    const std::vector<std::uint32_t> pre = object_preorder(lv);
    std::vector<std::uint8_t> listed(payload_slot_count(lv), 0);
    auto entities = [&] {
        for (std::uint32_t oi : pre) {
            const Object& o = lv.objects[oi];
            if (o.kind == Kind::group || o.kind == Kind::level || o.kind == Kind::block) continue;
            if (o.payload < 0 || static_cast<std::size_t>(o.payload) >= lv.count(o.kind)) continue;
            const std::size_t s = payload_slot(lv, o.kind, static_cast<std::size_t>(o.payload));
            if (listed[s]) continue;
            listed[s] = 1;
            out.push_back({record_kind_of(o.kind), static_cast<std::uint32_t>(o.payload)});
        }
        for (Kind k :
             {Kind::model, Kind::light, Kind::start, Kind::sound, Kind::path, Kind::region}) {
            for (std::size_t i = 0; i < lv.count(k); ++i) {
                if (!listed[payload_slot(lv, k, i)]) {
                    out.push_back({record_kind_of(k), static_cast<std::uint32_t>(i)});
                }
            }
        }
    };
    if (lv.dialect == Dialect::mm) {
        if (!lv.levels.empty()) {
            out.push_back({RecordKind::level, 0});
            out.push_back({RecordKind::sun, 0});
        }
        entities();
        return out;
    }
    for (std::uint32_t i = 0; i < lv.blocks.size(); ++i) out.push_back({RecordKind::block, i});
    for (std::uint32_t i = 0; i < lv.levels.size(); ++i) out.push_back({RecordKind::level, i});
    entities();
    for (std::uint32_t oi : pre) out.push_back({RecordKind::object, oi});
    for (std::uint32_t i = 0; i < lv.unknown_records.size(); ++i) {
        out.push_back({RecordKind::unknown, i});
    }
    return out;
}

}  // namespace lk::wmp
