// Valve's string gather (notes/dmx.md §3.8), shared by the string-table policies (layout.cpp)
// and the subtree packer (binary_writer.cpp), so that the rule is stated once.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "internal.hpp"

namespace lk::dmx::detail {

constexpr std::string_view kPrefixAttribute = "$prefix_attribute$";
constexpr std::uint32_t kNotASymbol = UINT32_MAX;

// Names of attributes Valve holds but does not save, which its table still gathers.
enum class Phantoms {
    none,     // only what is written (the strings a table must hold)
    file,     // every element's "name", and "$prefix_attribute$" on a root with a prefix
    subtree,  // every element's "name": a packed subtree's root is never the file's root
};

struct NoExpand {
    template <class F>
    bool operator()(ElementRef, const F&) const {
        return false;
    }
};

// Strings in Valve's GatherSymbols order over `order`: per element its class, its name, its
// attributes from the last-added to the first (name, then a string value), and the phantoms.
// `add(text, symbol)` gets each string with its symbol id (kNotASymbol for string values and
// element names), so that repeats of a symbol can be told without hashing its text.
// `expand(r, add)` may give an element's strings instead (a packed subtree's placeholder) and
// return true. Repeats are the caller's to drop.
template <class F, class X = NoExpand>
void gather(const Document& doc, const std::vector<ElementRef>& order, int version,
            Phantoms phantoms, F&& add, X expand = {}) {
    const bool names = version >= 4;
    const bool name_phantom = phantoms != Phantoms::none;
    const bool prefix_phantom = phantoms == Phantoms::file && in_binary_index(doc, doc.prefix);
    auto symbol_id = [&](std::string_view s) {
        const auto sym = doc.symbols().find(s);
        return sym ? sym->id() : kNotASymbol;
    };
    const std::uint32_t name_id = name_phantom ? symbol_id("name") : kNotASymbol;
    const std::uint32_t prefix_id = prefix_phantom ? symbol_id(kPrefixAttribute) : kNotASymbol;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const ElementRef r = order[i];
        const Element& e = doc[r];
        if (i + 1 < order.size()) prefetch_attributes(doc[order[i + 1]]);
        if (expand(r, add)) continue;
        add(e.type.str(), e.type.id());
        if (names && !e.null_name) add(std::string_view(e.name), kNotASymbol);
        if (prefix_phantom && r == doc.root) add(kPrefixAttribute, prefix_id);
        for (auto it = e.attributes.rbegin(); it != e.attributes.rend(); ++it) {
            add(it->name.str(), it->name.id());
            if (names && !it->null_string) {
                if (auto* s = it->value.get_if<std::string>()) {
                    add(std::string_view(*s), kNotASymbol);
                }
            }
        }
        if (name_phantom) add("name", name_id);
    }
}

}  // namespace lk::dmx::detail
