#include "levelkit/dmx/document.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>

namespace lk::dmx {

std::uint64_t SymbolTable::next_uid() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

Symbol SymbolTable::intern(std::string_view s) {
    // The address's bits mixed (literals sit a few bytes apart), the top ones taken.
    const auto h = reinterpret_cast<std::uintptr_t>(s.data()) * 0x9E3779B97F4A7C15ull;
    CacheSlot& slot = cache_[static_cast<std::size_t>(h >> 54) % kCacheSlots];
    if (slot.data == s.data() && slot.entry && std::string_view(slot.entry->text) == s) {
        return Symbol(slot.entry);
    }
    const detail::SymbolEntry* found = nullptr;
    if (auto it = index_.find(s); it != index_.end()) {
        found = it->second;
    } else {
        detail::SymbolEntry& e = entries_.emplace_back();
        e.text.assign(s);
        e.id = static_cast<std::uint32_t>(entries_.size() - 1);
        index_.emplace(std::string_view(e.text), &e);
        found = &e;
    }
    slot = {s.data(), found};
    return Symbol(found);
}

std::optional<Symbol> SymbolTable::find(std::string_view s) const {
    if (auto it = index_.find(s); it != index_.end()) return Symbol(it->second);
    return std::nullopt;
}

const Attribute* Element::find(std::string_view attr) const {
    for (const Attribute& a : attributes) {
        if (a.name.str() == attr) return &a;
    }
    return nullptr;
}

Attribute* Element::find(std::string_view attr) {
    return const_cast<Attribute*>(std::as_const(*this).find(attr));
}

Attribute& Element::set(std::string_view attr, Value v) {
    // Names of one document are one symbol each: the interned name compares by identity. A name
    // interned elsewhere (an attribute copied from another document) is matched by its text.
    const Symbol name = symbols_->intern(attr);
    for (Attribute& a : attributes) {
        if (a.name == name || (a.name.str().size() == attr.size() && a.name.str() == attr)) {
            a.value = std::move(v);
            a.null_string = false;
            return a;
        }
    }
    return attributes.emplace_back(Attribute{name, std::move(v)});
}

Attribute& Element::add(std::string_view attr, Value v) {
    const Symbol name = symbols_->intern(attr);
    assert(std::none_of(attributes.begin(), attributes.end(),
                        [&](const Attribute& a) { return a.name == name; }));
    Attribute& a = attributes.emplace_back();
    a.name = name;
    a.value = std::move(v);
    return a;
}

bool Element::remove(std::string_view attr) {
    // Every attribute of that name: a file may repeat one (lookups see the first), and removing
    // it must not bring a shadowed one to light.
    return std::erase_if(attributes, [&](const Attribute& a) { return a.name.str() == attr; }) > 0;
}

const std::string* Kv2Trivia::find(std::uint32_t slot) const {
    for (const auto& [s, text] : entries) {
        if (s == slot) return &text;
    }
    return nullptr;
}

bool Header::is_binary() const {
    return legacy ? encoding != "keyvalues2" : encoding.rfind("binary", 0) == 0;
}

bool Header::is_kv2() const {
    return encoding.rfind("keyvalues2", 0) == 0;
}

std::string Header::to_string() const {
    return encoding + " " + std::to_string(encoding_version) + " / " + format + " " +
           std::to_string(format_version);
}

Document::Document() : symbols_(std::make_unique<SymbolTable>()) {}
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;
Document::~Document() = default;

Document Document::clone() const {
    Document d;
    d.header = header;
    d.root = root;
    d.prefix = prefix;
    d.binary = binary;
    d.container = container;
    d.kv2_ = kv2_;
    // Same symbol ids in the copy, so symbols map by id.
    for (std::uint32_t i = 0; i < symbols_->size(); ++i) d.symbols_->intern(symbols_->at(i).str());
    auto remap = [&](Symbol s) { return s.valid() ? d.symbols_->at(s.id()) : Symbol(); };
    d.elements_ = elements_;
    for (Element& e : d.elements_) {
        e.symbols_ = d.symbols_.get();
        e.type = remap(e.type);
        for (Attribute& a : e.attributes) a.name = remap(a.name);
    }
    return d;
}

void Document::clear_elements() {
    elements_.clear();
    root = ElementRef::null();
    prefix = ElementRef::null();
    binary = {};
    kv2_ = {};
    id_index_.clear();
    id_index_size_ = 0;
}

ElementRef Document::add_element(std::string_view type, std::string_view name,
                                 std::optional<Guid> id) {
    Element& e = elements_.emplace_back();
    e.symbols_ = symbols_.get();
    e.type = symbols_->intern(type);
    e.name.assign(name);
    if (id) e.set_id(*id);
    return ElementRef{static_cast<std::int32_t>(elements_.size() - 1)};
}

ElementRef Document::add_external(const Guid& id) {
    ElementRef r = add_element({}, {}, id);
    elements_.back().external_ = true;
    return r;
}

ElementRef Document::find_by_id(const Guid& id) const {
    if (id_index_size_ > elements_.size()) {
        id_index_.clear();
        id_index_size_ = 0;
    }
    for (; id_index_size_ < elements_.size(); ++id_index_size_) {
        const Element& e = elements_[id_index_size_];
        if (e.has_id()) {
            id_index_.emplace(e.id, ElementRef{static_cast<std::int32_t>(id_index_size_)});
        }
    }
    auto it = id_index_.find(id);
    if (it == id_index_.end()) return {};
    // The index is append-only; an element whose id changed since is checked here.
    const Element* e = get(it->second);
    if (e && e->has_id() && e->id == id) return it->second;
    for (std::size_t i = 0; i < elements_.size(); ++i) {
        if (elements_[i].has_id() && elements_[i].id == id) {
            return ElementRef{static_cast<std::int32_t>(i)};
        }
    }
    return {};
}

std::span<const Attribute> Document::prefix_attributes() const {
    const Element* e = get(prefix);
    return e ? std::span<const Attribute>(e->attributes) : std::span<const Attribute>();
}

void Document::walk(ElementRef start, const std::function<bool(ElementRef)>& visit) const {
    if (!valid(start)) return;
    std::vector<char> seen(elements_.size(), 0);
    // Explicit stack of (element, next attribute, next array item) so deep graphs cannot
    // overflow the call stack.
    struct Frame {
        std::int32_t element;
        std::size_t attr = 0, item = 0;
    };
    std::vector<Frame> stack;
    auto enter = [&](ElementRef r) {
        seen[static_cast<std::size_t>(r.index)] = 1;
        if (visit(r)) stack.push_back({r.index});
    };
    enter(start);
    while (!stack.empty()) {
        Frame& f = stack.back();
        const Element& e = elements_[static_cast<std::size_t>(f.element)];
        if (f.attr >= e.attributes.size()) {
            stack.pop_back();
            continue;
        }
        const Value& v = e.attributes[f.attr].value;
        ElementRef next;
        if (auto* r = v.get_if<ElementRef>()) {
            next = *r;
            ++f.attr;
        } else if (auto* arr = v.get_if<std::vector<ElementRef>>()) {
            if (f.item < arr->size()) {
                next = (*arr)[f.item++];
            } else {
                ++f.attr;
                f.item = 0;
                continue;
            }
        } else {
            ++f.attr;
            continue;
        }
        if (valid(next) && !seen[static_cast<std::size_t>(next.index)]) enter(next);
    }
}

std::vector<ElementRef> Document::reachable(ElementRef start) const {
    std::vector<ElementRef> out;
    walk(start, [&](ElementRef r) {
        out.push_back(r);
        return true;
    });
    return out;
}

std::size_t Document::attribute_count() const {
    std::size_t n = 0;
    for (const Element& e : elements_) n += e.attributes.size();
    return n;
}

namespace {

std::string element_label(const Document& d, ElementRef r) {
    const Element& e = d[r];
    return "element[" + std::to_string(r.index) + "] " + std::string(e.type.str());
}

std::optional<std::string> compare_element(const Document& a, ElementRef ra, const Document& b,
                                           ElementRef rb,
                                           const std::function<bool(ElementRef, ElementRef)>& same,
                                           bool exact_ids) {
    const Element& x = a[ra];
    const Element& y = b[rb];
    const std::string where = element_label(a, ra);
    if (x.external() != y.external()) return where + ": external differs";
    if (x.type.str() != y.type.str()) return where + ": class differs";
    if (x.name != y.name) return where + ": name differs";
    // An element without an id (keyvalues2_noids) gets a new one when written with ids.
    if (x.has_id() && y.has_id() && x.id != y.id) return where + ": id differs";
    if (exact_ids && x.has_id() != y.has_id())
        return where + (x.has_id() ? ": id missing in the second" : ": id added in the second");
    if (x.attributes.size() != y.attributes.size()) return where + ": attribute count differs";
    for (std::size_t i = 0; i < x.attributes.size(); ++i) {
        const Attribute& p = x.attributes[i];
        const Attribute& q = y.attributes[i];
        const std::string at = where + "/attribute '" + std::string(p.name.str()) + "'";
        if (p.name.str() != q.name.str()) return at + ": name differs";
        if (p.value.type() != q.value.type()) return at + ": type differs";
        if (auto* r = p.value.get_if<ElementRef>()) {
            if (!same(*r, q.value.get<ElementRef>())) return at + ": reference differs";
        } else if (auto* v = p.value.get_if<std::vector<ElementRef>>()) {
            const auto& w = q.value.get<std::vector<ElementRef>>();
            if (v->size() != w.size()) return at + ": array size differs";
            for (std::size_t k = 0; k < v->size(); ++k) {
                if (!same((*v)[k], w[k]))
                    return at + "[" + std::to_string(k) + "]: reference differs";
            }
        } else if (!(p.value == q.value)) {
            return at + ": values differ";
        }
    }
    return std::nullopt;
}

bool same_header(const Document& a, const Document& b) {
    return a.header.format == b.header.format && a.header.format_version == b.header.format_version;
}

}  // namespace

std::optional<std::string> compare(const Document& a, const Document& b, bool exact_ids) {
    if (!same_header(a, b)) return "format differs";
    if (a.size() != b.size()) return "element count differs";
    if (a.root != b.root) return "root differs";
    if (a.prefix != b.prefix) return "prefix element differs";
    auto same = [](ElementRef x, ElementRef y) { return x == y; };
    for (std::size_t i = 0; i < a.size(); ++i) {
        const ElementRef r{static_cast<std::int32_t>(i)};
        if (auto d = compare_element(a, r, b, r, same, exact_ids)) return d;
    }
    return std::nullopt;
}

std::optional<std::string> compare_graphs(const Document& a, const Document& b, bool exact_ids) {
    if (!same_header(a, b)) return "format differs";
    // Pair elements up by walking both graphs in lockstep; a mismatch in pairing is a difference.
    std::vector<std::int32_t> map_ab(a.size(), -1), map_ba(b.size(), -1);
    std::vector<std::pair<ElementRef, ElementRef>> work;
    std::optional<std::string> error;
    auto pair_up = [&](ElementRef x, ElementRef y) {
        if (x.is_null() || y.is_null()) return x.is_null() && y.is_null();
        if (!a.valid(x) || !b.valid(y)) return false;
        auto& m = map_ab[static_cast<std::size_t>(x.index)];
        auto& n = map_ba[static_cast<std::size_t>(y.index)];
        if (m < 0 && n < 0) {
            m = y.index;
            n = x.index;
            work.emplace_back(x, y);
            return true;
        }
        return m == y.index && n == x.index;
    };
    std::size_t done = 0;
    auto drain = [&]() -> std::optional<std::string> {
        while (done < work.size()) {
            auto [x, y] = work[done++];
            if (auto d = compare_element(a, x, b, y, pair_up, exact_ids)) return d;
        }
        return std::nullopt;
    };
    if (!pair_up(a.root, b.root)) return "root differs";
    if (!pair_up(a.prefix, b.prefix)) return "prefix element differs";
    if (auto d = drain()) return d;
    // Elements reachable from neither root nor prefix: paired by id, else in order.
    std::size_t next_b = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (map_ab[i] >= 0) continue;
        const ElementRef x{static_cast<std::int32_t>(i)};
        ElementRef y;
        if (a[x].has_id()) y = b.find_by_id(a[x].id);
        if (!b.valid(y) || map_ba[static_cast<std::size_t>(y.index)] >= 0) {
            while (next_b < b.size() && map_ba[next_b] >= 0) ++next_b;
            if (next_b == b.size()) return element_label(a, x) + ": no counterpart";
            y = ElementRef{static_cast<std::int32_t>(next_b)};
        }
        if (!pair_up(x, y)) return element_label(a, x) + ": no counterpart";
        if (auto d = drain()) return d;
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (map_ba[i] < 0)
            return "element[" + std::to_string(i) + "] of the second has no counterpart";
    }
    return std::nullopt;
}

}  // namespace lk::dmx
