// Binary element order and string table policies (notes/dmx.md §3.3, §3.8).
#include <algorithm>
#include <unordered_set>

#include "flat_map.hpp"
#include "gather.hpp"
#include "internal.hpp"
#include "levelkit/dmx/packed.hpp"

namespace lk::dmx::detail {

bool in_binary_index(const Document& doc, ElementRef e) {
    const Element* el = doc.get(e);
    if (!el || el->external()) return false;
    return !(e == doc.prefix && !el->has_id() && !el->id_invented());
}

std::vector<ElementRef> policy_order(const Document& doc, BinaryLayout::ElementOrder policy) {
    std::vector<ElementRef> out;
    if (!in_binary_index(doc, doc.root)) return out;
    std::vector<char> seen(doc.size(), 0);
    auto take = [&](ElementRef r) {
        if (!in_binary_index(doc, r) || seen[static_cast<std::size_t>(r.index)]) return false;
        seen[static_cast<std::size_t>(r.index)] = 1;
        out.push_back(r);
        return true;
    };
    if (policy == BinaryLayout::ElementOrder::breadth_first) {
        take(doc.root);
        for (std::size_t i = 0; i < out.size(); ++i) {
            doc.for_each_ref(doc[out[i]], [&](const Attribute&, ElementRef r) { take(r); });
        }
        return out;
    }
    // Depth-first pre-order; Valve visits attributes from the last-added to the first and the
    // items of an array first to last. A frame's attributes are scanned in a loop of their own
    // up to the next reference, so that attributes that hold none cost a type test each.
    const bool reverse = policy == BinaryLayout::ElementOrder::valve;
    struct Frame {
        const std::vector<Attribute>* attrs;
        std::size_t attr;  // attributes still to visit (counting down when reverse)
        std::size_t item;
    };
    std::vector<Frame> stack;
    stack.reserve(16);
    out.reserve(doc.size());
    auto enter = [&](ElementRef r) {
        if (take(r)) {
            const Element& e = doc[r];
            prefetch_attributes(e);
            stack.push_back({&e.attributes, reverse ? e.attributes.size() : 0, 0});
        }
    };
    enter(doc.root);
    while (!stack.empty()) {
        Frame& f = stack.back();
        const std::vector<Attribute>& attrs = *f.attrs;
        ElementRef next;
        while (reverse ? f.attr != 0 : f.attr < attrs.size()) {
            const Value& v = attrs[reverse ? f.attr - 1 : f.attr].value;
            bool advance = true;
            if (auto* r = v.get_if<ElementRef>()) {
                next = *r;
            } else if (auto* arr = v.get_if<std::vector<ElementRef>>()) {
                if (f.item < arr->size()) {
                    next = (*arr)[f.item++];
                    advance = false;
                }
            }
            if (advance) {
                f.attr = reverse ? f.attr - 1 : f.attr + 1;
                f.item = 0;
            }
            if (!next.is_null()) break;
        }
        if (next.is_null()) {
            stack.pop_back();
        } else {
            enter(next);  // may move the stack: f is not used after
        }
    }
    return out;
}

std::vector<ElementRef> binary_element_order(const Document& doc) {
    const BinaryLayout& L = doc.binary;
    std::vector<ElementRef> out;
    if (L.element_order == BinaryLayout::ElementOrder::stored) {
        if (in_binary_index(doc, doc.root)) out.push_back(doc.root);
        for (std::size_t i = 0; i < doc.size(); ++i) {
            const ElementRef r{static_cast<std::int32_t>(i)};
            if (r != doc.root && in_binary_index(doc, r)) out.push_back(r);
        }
        return out;
    }
    if (L.element_order == BinaryLayout::ElementOrder::listed) {
        std::vector<char> placed(doc.size(), 0);
        auto take = [&](ElementRef r) {
            if (in_binary_index(doc, r) && !placed[static_cast<std::size_t>(r.index)]) {
                placed[static_cast<std::size_t>(r.index)] = 1;
                out.push_back(r);
            }
        };
        take(doc.root);
        for (ElementRef r : L.order) take(r);
        for (std::size_t i = 0; i < doc.size(); ++i) take(ElementRef{static_cast<std::int32_t>(i)});
        return out;
    }
    std::vector<ElementRef> reached = policy_order(doc, L.element_order);
    std::vector<char> placed(doc.size(), 0);
    for (ElementRef r : reached) placed[static_cast<std::size_t>(r.index)] = 1;
    // Unreachable index elements: at their recorded positions, Hammer's prefix duplicate right
    // after the root (Valve reaches it through the root's unsaved "$prefix_attribute$"), the
    // rest at the end in document order.
    std::vector<std::pair<std::uint32_t, ElementRef>> at = L.unreachable;
    std::erase_if(at, [&](const auto& p) {
        if (!in_binary_index(doc, p.second) || placed[static_cast<std::size_t>(p.second.index)]) {
            return true;
        }
        placed[static_cast<std::size_t>(p.second.index)] = 1;
        return false;
    });
    if (in_binary_index(doc, doc.prefix) && !placed[static_cast<std::size_t>(doc.prefix.index)]) {
        placed[static_cast<std::size_t>(doc.prefix.index)] = 1;
        at.emplace_back(1, doc.prefix);
    }
    std::stable_sort(at.begin(), at.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t k = 0, ai = 0;
    while (k < reached.size() || ai < at.size()) {
        if (ai < at.size() && (at[ai].first <= out.size() || k == reached.size())) {
            out.push_back(at[ai++].second);
        } else {
            out.push_back(reached[k++]);
        }
    }
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const ElementRef r{static_cast<std::int32_t>(i)};
        if (!placed[i] && in_binary_index(doc, r)) out.push_back(r);
    }
    // The root is element 0 whatever the recorded positions say.
    if (!out.empty() && out.front() != doc.root && in_binary_index(doc, doc.root)) {
        std::erase(out, doc.root);
        out.insert(out.begin(), doc.root);
    }
    return out;
}

namespace {

// First sightings of gathered strings: symbols are checked by id, other strings by text.
class FirstSeen {
public:
    explicit FirstSeen(const Document& doc) : symbol_seen_(doc.symbols().size(), 0) {}
    // Strings already counted as seen (a stored table's).
    void insert(std::string_view s) { seen_.try_emplace(s, 1); }
    bool operator()(std::string_view s, std::uint32_t symbol) {
        if (symbol != kNotASymbol && symbol < symbol_seen_.size()) {
            if (symbol_seen_[symbol]) return false;
            symbol_seen_[symbol] = 1;
        }
        return seen_.try_emplace(s, 1).second;
    }
    // A packed subtree's string by its pool id (of `pool_size`): repeats are told by the id,
    // the first sighting by the text, which an unpacked element may have gathered already.
    bool pooled(std::string_view s, std::uint32_t id, std::size_t pool_size) {
        if (pool_seen_.size() < pool_size) pool_seen_.resize(pool_size, 0);
        if (pool_seen_[id]) return false;
        pool_seen_[id] = 1;
        return seen_.try_emplace(s, 1).second;
    }

private:
    std::vector<char> symbol_seen_, pool_seen_;
    FlatStringMap<char> seen_;
};

}  // namespace

std::vector<std::string_view> valve_gather(const Document& doc,
                                           const std::vector<ElementRef>& order, int version) {
    std::vector<std::string_view> out;
    FirstSeen first(doc);
    gather(doc, order, version, Phantoms::file, [&](std::string_view s, std::uint32_t sym) {
        if (first(s, sym)) out.push_back(s);
    });
    return out;
}

std::vector<std::string_view> valve_gather(const Document& doc,
                                           const std::vector<ElementRef>& order, int version,
                                           const PackedSubtrees& packed,
                                           const std::vector<std::int32_t>& pack_of) {
    std::vector<std::string_view> out;
    FirstSeen first(doc);
    auto expand = [&](ElementRef r, const auto&) {
        const std::int32_t p = pack_of[static_cast<std::size_t>(r.index)];
        if (p < 0) return false;
        for (std::uint32_t id : packed.pack(static_cast<std::size_t>(p)).strings) {
            const std::string_view s = packed.string(id);
            if (first.pooled(s, id, packed.strings())) out.push_back(s);
        }
        return true;
    };
    gather(
        doc, order, version, Phantoms::file,
        [&](std::string_view s, std::uint32_t sym) {
            if (first(s, sym)) out.push_back(s);
        },
        expand);
    return out;
}

std::vector<std::string> merge_inserts(
    const std::vector<std::string_view>& gather,
    const std::vector<std::pair<std::uint32_t, std::string>>& inserts) {
    std::vector<std::string> out;
    std::unordered_set<std::string_view> inserted;
    for (const auto& [pos, s] : inserts) inserted.insert(s);
    std::size_t k = 0;
    auto flush = [&] {
        while (k < inserts.size() && inserts[k].first <= out.size())
            out.push_back(inserts[k++].second);
    };
    flush();
    for (std::string_view s : gather) {
        if (inserted.count(s)) continue;
        out.emplace_back(s);
        flush();
    }
    for (; k < inserts.size(); ++k) out.push_back(inserts[k].second);
    return out;
}

std::vector<std::string_view> needed_strings(const Document& doc,
                                             const std::vector<ElementRef>& order, int version) {
    std::vector<std::string_view> out;
    FirstSeen first(doc);
    gather(doc, order, version, Phantoms::none, [&](std::string_view s, std::uint32_t sym) {
        if (first(s, sym)) out.push_back(s);
    });
    return out;
}

std::vector<std::string> binary_string_table(const Document& doc,
                                             const std::vector<ElementRef>& order, int version) {
    const BinaryLayout& L = doc.binary;
    std::vector<std::string> out;
    FirstSeen first(doc);
    switch (L.string_order) {
        case BinaryLayout::StringOrder::stored: {
            out = L.string_table;
            for (const std::string& s : out) first.insert(s);
            std::vector<std::string> missing;
            gather(doc, order, version, Phantoms::none, [&](std::string_view s, std::uint32_t sym) {
                if (first(s, sym)) missing.emplace_back(s);
            });
            out.insert(out.end(), missing.begin(), missing.end());
            break;
        }
        case BinaryLayout::StringOrder::sorted: {
            gather(doc, order, version, Phantoms::none, [&](std::string_view s, std::uint32_t sym) {
                if (first(s, sym)) out.emplace_back(s);
            });
            std::sort(out.begin(), out.end());
            break;
        }
        case BinaryLayout::StringOrder::valve:
            out = merge_inserts(valve_gather(doc, order, version), L.string_inserts);
            break;
    }
    return out;
}

}  // namespace lk::dmx::detail

namespace lk::dmx {

namespace {
// FNV-1a, 32 bits, over the mark's twelve bytes, seeded with a constant of levelkit's.
std::uint32_t generated_check(const Guid& g) {
    std::uint32_t h = 0x811c9dc5u ^ 0x6c6b6964u;  // "lkid"
    for (std::size_t i = 0; i < 12; ++i) {
        h ^= g.bytes[i];
        h *= 0x01000193u;
    }
    return h;
}
}  // namespace

Guid generated_id(const Document& doc, ElementRef e) {
    // FNV-1a over the format, the element's index and class, spread to twelve bytes; then the
    // version/variant bits of an RFC 9562 version-8 UUID (byte 7 holds the version nibble in
    // the little-endian GUID layout the binary encoding stores) and the checksum.
    std::uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&](std::string_view s) {
        for (unsigned char c : s) {
            h ^= c;
            h *= 0x100000001b3ull;
        }
    };
    mix(doc.header.format);
    mix(std::to_string(e.index));
    mix(doc.valid(e) ? doc[e].type.str() : std::string_view{});
    Guid g;
    for (std::size_t i = 0; i < 12; ++i) {
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ull;
        g.bytes[i] = static_cast<std::uint8_t>(h >> 56);
    }
    g.bytes[7] = static_cast<std::uint8_t>((g.bytes[7] & 0x0F) | 0x80);
    g.bytes[8] = static_cast<std::uint8_t>((g.bytes[8] & 0x3F) | 0x80);
    const std::uint32_t c = generated_check(g);
    for (std::size_t i = 0; i < 4; ++i) g.bytes[12 + i] = static_cast<std::uint8_t>(c >> (8 * i));
    return g;
}

bool is_generated_id(const Guid& g) {
    if ((g.bytes[7] & 0xF0) != 0x80 || (g.bytes[8] & 0xC0) != 0x80) return false;
    const std::uint32_t c = generated_check(g);
    for (std::size_t i = 0; i < 4; ++i) {
        if (g.bytes[12 + i] != static_cast<std::uint8_t>(c >> (8 * i))) return false;
    }
    return true;
}

}  // namespace lk::dmx
