#include "levelkit/any/options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "levelkit/core/text.hpp"

namespace lk {

std::string_view to_string(OptionSpec::Type t) {
    switch (t) {
        case OptionSpec::Type::flag:
            return "flag";
        case OptionSpec::Type::integer:
            return "integer";
        case OptionSpec::Type::number:
            return "number";
        case OptionSpec::Type::text:
            return "text";
        case OptionSpec::Type::path:
            return "path";
    }
    return "text";
}

namespace {

std::optional<bool> parse_flag(std::string_view v) {
    const std::string s = to_lower(trim(v));
    if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
    if (s == "0" || s == "false" || s == "no" || s == "off") return false;
    return std::nullopt;
}

}  // namespace

void Options::erase(std::string_view name) {
    if (auto it = values_.find(name); it != values_.end()) values_.erase(it);
}

std::optional<std::string_view> Options::get(std::string_view name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return std::string_view(it->second);
}

std::string Options::text(std::string_view name, std::string_view fallback) const {
    auto v = get(name);
    return std::string(v ? *v : fallback);
}

bool Options::flag(std::string_view name) const {
    auto v = get(name);
    return v && parse_flag(*v).value_or(false);
}

std::optional<double> Options::number(std::string_view name) const {
    auto v = get(name);
    if (!v) return std::nullopt;
    auto d = parse_double(trim(*v));
    if (!d || !std::isfinite(*d)) return std::nullopt;
    return d;
}

std::optional<std::int64_t> Options::integer(std::string_view name) const {
    auto v = get(name);
    if (!v) return std::nullopt;
    return parse_int(trim(*v));
}

Result<Options> check_options(const Options& given, std::span<const OptionSpec* const> schema,
                              std::string_view context) {
    auto find = [&](std::string_view name) -> const OptionSpec* {
        for (const OptionSpec* s : schema) {
            if (s->name == name) return s;
        }
        // An alias counts only where no option of the schema has it as its own name.
        for (const OptionSpec* s : schema) {
            for (std::string_view a : s->aliases) {
                if (a == name) return s;
            }
        }
        return nullptr;
    };
    auto valid_names = [&] {
        std::vector<std::string_view> seen;
        std::string names;
        for (const OptionSpec* s : schema) {
            if (std::find(seen.begin(), seen.end(), s->name) != seen.end()) continue;
            seen.push_back(s->name);
            names += names.empty() ? "" : ", ";
            names += s->name;
        }
        return names.empty() ? std::string("none") : names;
    };
    Options out;
    for (const auto& given_value : given.values()) {
        // (No structured bindings: lambdas below capture these, which clang 14 refuses.)
        const auto& name = given_value.first;
        const auto& value = given_value.second;
        const OptionSpec* spec = find(name);
        if (!spec) {
            return Diagnostic::error("option.unknown",
                                     fmt::format("option '{}' does not apply to {} (its options: "
                                                 "{})",
                                                 name, context, valid_names()))
                .with_path(name);
        }
        auto bad = [&](std::string_view what) {
            return Diagnostic::error(
                       "option.bad-value",
                       fmt::format("option '{}' needs {} (got '{}')", spec->name, what, value))
                .with_path(std::string(spec->name));
        };
        switch (spec->type) {
            case OptionSpec::Type::flag:
                if (!parse_flag(value)) return bad("on/off (1/0, true/false, yes/no)");
                break;
            case OptionSpec::Type::integer: {
                auto v = parse_int(trim(value));
                if (!v) return bad("a whole number");
                if (static_cast<double>(*v) < spec->min || static_cast<double>(*v) > spec->max)
                    return bad(fmt::format("a whole number in {}..{}", spec->min, spec->max));
                break;
            }
            case OptionSpec::Type::number: {
                auto v = parse_double(trim(value));
                if (!v || !std::isfinite(*v)) return bad("a number");
                if (*v < spec->min || *v > spec->max)
                    return bad(fmt::format("a number in {}..{}", spec->min, spec->max));
                break;
            }
            case OptionSpec::Type::text:
                if (!spec->choices.empty()) {
                    bool ok = false;
                    for (std::string_view c : spec->choices) ok |= iequals(c, value);
                    if (!ok) {
                        std::string list;
                        for (std::string_view c : spec->choices) {
                            list += list.empty() ? "" : ", ";
                            list += c;
                        }
                        return bad("one of " + list);
                    }
                }
                break;
            case OptionSpec::Type::path:
                if (value.empty()) return bad("a path");
                break;
        }
        if (out.has(spec->name) && out.get(spec->name) != std::string_view(value)) {
            return Diagnostic::error(
                       "option.conflict",
                       fmt::format("option '{}' is given twice (also as an alias)", spec->name))
                .with_path(std::string(spec->name));
        }
        out.set(spec->name, value);
    }
    for (const OptionSpec* s : schema) {
        if (!out.has(s->name) && !s->default_value.empty()) {
            out.set(s->name, std::string(s->default_value));
        }
    }
    return out;
}

Diagnostic Progress::cancelled_error() {
    return Diagnostic::error("job.cancelled", "cancelled");
}

}  // namespace lk
