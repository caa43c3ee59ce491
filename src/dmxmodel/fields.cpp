#include <fmt/format.h>

#include <charconv>

#include "levelkit/core/text.hpp"
#include "levelkit/dmxmodel/dmxmodel.hpp"

namespace lk::dmxmodel {

namespace {

struct Known {
    std::string_view source1;  // standard field name below model 22 (dmevertexdata.cpp)
    std::string_view source2;  // HLSL semantic of the "semantic$index" names
    Semantic semantic;
};

// Source 1 names come from the datamodel's standard field list; Source 2 ones are the lowercase
// vertex semantics ModelDoc reads (notes/model-wmp.md A.4).
constexpr Known kKnown[] = {
    {"positions", "position", Semantic::position},
    {"normals", "normal", Semantic::normal},
    {"tangents", "tangent", Semantic::tangent},
    {"textureCoordinates", "texcoord", Semantic::texcoord},
    {"colors", "color", Semantic::color},
    {"jointWeights", "blendweights", Semantic::joint_weights},
    {"jointIndices", "blendindices", Semantic::joint_indices},
    {"balance", "balance", Semantic::balance},
    {"speed", "speed", Semantic::speed},
    {"wrinkle", "wrinkle", Semantic::wrinkle},
    {"weight", "weight", Semantic::weight},
};

}  // namespace

std::string_view to_string(Semantic s) {
    for (const Known& k : kKnown) {
        if (k.semantic == s) return k.source2;
    }
    return "other";
}

FieldId parse_field_name(std::string_view name) {
    const std::size_t dollar = name.find('$');
    if (dollar == std::string_view::npos) {
        for (const Known& k : kKnown) {
            if (name == k.source1) return {k.semantic, 0};
        }
        return {};
    }
    const std::string_view base = name.substr(0, dollar);
    const std::string_view index = name.substr(dollar + 1);
    int set = 0;
    const auto [p, ec] = std::from_chars(index.data(), index.data() + index.size(), set);
    if (ec != std::errc() || p != index.data() + index.size() || set < 0 || set > 255) return {};
    // CS:GO's studiomdl spells extra texture coordinate sets "texcoord$N" next to the Source 1
    // names, and Source 2 files spell semantics in lower case; compare without case.
    for (const Known& k : kKnown) {
        if (iequals(base, k.source2)) return {k.semantic, set};
    }
    return {};
}

std::string field_name(Semantic s, int set, int format_version) {
    for (const Known& k : kKnown) {
        if (k.semantic != s) continue;
        if (format_version >= 22 || set != 0) return fmt::format("{}${}", k.source2, set);
        return std::string(k.source1);
    }
    return fmt::format("other${}", set);
}

std::string_view corrective_separator(int format_version) {
    return format_version >= 22 ? "__" : "_";
}

std::optional<Target> Target::parse(std::string_view text) {
    const std::string t = to_lower(trim(text));
    if (t == "source1" || t == "s1") return source1();
    if (t == "source1-legacy" || t == "source1_legacy" || t == "legacy") return source1_legacy();
    if (t == "source2" || t == "s2" || t == "modeldoc") return source2();
    // "<encoding>:<n>/model:<m>"
    const std::size_t slash = t.find('/');
    if (slash == std::string::npos) return std::nullopt;
    const std::string_view enc = std::string_view(t).substr(0, slash);
    const std::string_view fmt_part = std::string_view(t).substr(slash + 1);
    auto split = [](std::string_view s, std::string_view& name, int& n) {
        const std::size_t c = s.find(':');
        if (c == std::string_view::npos) return false;
        name = s.substr(0, c);
        const std::string_view num = s.substr(c + 1);
        const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
        return ec == std::errc() && p == num.data() + num.size();
    };
    Target out;
    std::string_view name, fname;
    if (!split(enc, name, out.encoding_version) || !split(fmt_part, fname, out.format_version)) {
        return std::nullopt;
    }
    if (fname != "model" || (name != "binary" && name != "keyvalues2")) return std::nullopt;
    if (out.format_version < 1 || out.format_version > 22) return std::nullopt;
    if (name == "binary" && (out.encoding_version < 1 || out.encoding_version > 9)) {
        return std::nullopt;
    }
    if (name == "keyvalues2" && (out.encoding_version < 1 || out.encoding_version > 4)) {
        return std::nullopt;
    }
    out.encoding = std::string(name);
    return out;
}

}  // namespace lk::dmxmodel
