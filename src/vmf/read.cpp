#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <type_traits>
#include <utility>

#include "levelkit/vmf/vmf.hpp"
#include "lite_tree.hpp"
#include "parse_util.hpp"

namespace lk::vmf {

using detail::LiteNode;
using detail::LiteTree;
using detail::NumberCursor;

namespace {

// The typed reader runs over the lossless kv::Document or the streaming reader's LiteTree: the
// helpers below take either's node.
template <LowerKey K, class N>
bool is(const N& n) {
    return iequals_lower<K>(n.key());
}

template <class N>
RawNode to_raw(const N& n) {
    RawNode r;
    r.key = std::string(n.key());
    r.value = std::string(n.value());
    r.block = n.is_block();
    for (N c : n) r.children.push_back(to_raw(c));
    return r;
}

// Appends n's key and value to `to`, each string made at its size (assigned into an empty
// string, a long one would get libstdc++'s growth step of 30 bytes at least).
template <class N>
void add_kv(std::vector<KeyValue>& to, const N& n) {
    to.push_back(KeyValue{std::string(n.key()), std::string(n.value())});
}

// Where we are in the map, built into a string only when a diagnostic needs it.
struct Path {
    const Path* parent = nullptr;
    std::string_view name;
    std::int64_t index = -1;

    std::string str() const {
        std::string out = parent ? parent->str() : std::string();
        if (!out.empty()) out += '/';
        out += name;
        if (index >= 0) out += fmt::format("[{}]", index);
        return out;
    }
    std::string str(std::string_view field) const {
        std::string out = str();
        out += '/';
        out += field;
        return out;
    }
};

enum class SideKey {
    id,
    plane,
    material,
    uaxis,
    vaxis,
    rotation,
    lightmapscale,
    smoothing_groups,
    other
};

// Dispatch on length first: one case-insensitive compare per key instead of eight.
SideKey side_key(std::string_view k) {
    switch (k.size()) {
        case 2:
            return iequals_lower<"id">(k) ? SideKey::id : SideKey::other;
        case 5:
            if (iequals_lower<"plane">(k)) return SideKey::plane;
            if (iequals_lower<"uaxis">(k)) return SideKey::uaxis;
            if (iequals_lower<"vaxis">(k)) return SideKey::vaxis;
            return SideKey::other;
        case 8:
            if (iequals_lower<"material">(k)) return SideKey::material;
            if (iequals_lower<"rotation">(k)) return SideKey::rotation;
            return SideKey::other;
        case 13:
            return iequals_lower<"lightmapscale">(k) ? SideKey::lightmapscale : SideKey::other;
        case 16:
            return iequals_lower<"smoothing_groups">(k) ? SideKey::smoothing_groups
                                                        : SideKey::other;
        default:
            return SideKey::other;
    }
}

// The end of the text `v` lies in, or null if it is not in the tree's source text (kv keeps
// escaped and concatenated strings elsewhere).
const char* readable_end(std::string_view text, std::string_view v) {
    const auto b = reinterpret_cast<std::uintptr_t>(text.data());
    const auto x = reinterpret_cast<std::uintptr_t>(v.data());
    return x >= b && x + v.size() <= b + text.size() ? text.data() + text.size() : nullptr;
}
const char* readable_end(const kv::Document& tree, std::string_view v) {
    return readable_end(tree.source().text(), v);
}
const char* readable_end(const LiteTree& tree, std::string_view v) {
    return readable_end(tree.text(), v);
}

// Values parsed from a value's text, remembered by that text: a reader keeps the value last
// parsed for each of 2^Bits texts (chosen by a hash of the text) and copies it when the same
// text comes again. The same value, since parsing depends on the text alone; only texts that
// parsed are kept, so diagnostics are unchanged. The slots are one block, allocated at the
// first use (not among the model's allocations).
template <class Value, std::size_t MaxText, unsigned Bits>
class TextMemo {
public:
    static constexpr std::size_t kMinText = 8, kMaxText = MaxText;
    struct Slot {
        std::uint32_t len = 0;  // 0: empty (a kept text has at least kMinText bytes)
        char text[kMaxText];
        Value value;
    };

    // The slot `v` would be kept in, or null if texts of its length are not kept.
    Slot* slot_for(std::string_view v) {
        if (v.size() < kMinText || v.size() > kMaxText) return nullptr;
        if (!slots_) slots_.reset(new Slot[kSlots]);
        std::uint64_t first = 0, middle = 0, last = 0;
        std::memcpy(&first, v.data(), 8);
        std::memcpy(&middle, v.data() + (v.size() - 8) / 2, 8);
        std::memcpy(&last, v.data() + v.size() - 8, 8);
        const std::uint64_t h =
            (first ^ std::rotl(middle, 17) ^ std::rotl(last, 29) ^ v.size()) * 0x9E3779B97F4A7C15u;
        return &slots_[h >> (64 - Bits)];
    }
    static bool holds(const Slot& s, std::string_view v) {
        return s.len == v.size() && std::memcmp(s.text, v.data(), v.size()) == 0;
    }
    // Records `v` in the slot; the caller stores the value.
    static Value& keep(Slot& s, std::string_view v) {
        std::memcpy(s.text, v.data(), v.size());
        s.len = static_cast<std::uint32_t>(v.size());
        return s.value;
    }

private:
    static constexpr std::size_t kSlots = std::size_t{1} << Bits;
    std::unique_ptr<Slot[]> slots_;
};

// Texture axes repeat: most faces are axis-aligned with their material's usual scale, so a map
// has a few hundred different "uaxis"/"vaxis" texts for tens of thousands of sides. 256 slots,
// 22 KiB.
using AxisMemo = TextMemo<TextureAxis, 40, 8>;

// Displacement rows repeat too: flat stretches have the same normals, zero distances, offsets
// and alphas, row after row. A row's numbers and their count (one text may be read as rows of
// different lengths: good for one, bad for the other). 128 slots of up to 120 bytes, 77 KiB.
struct MemoRow {
    static constexpr int kMaxValues = 60;
    int count = 0;
    double values[kMaxValues];
};
using RowMemo = TextMemo<MemoRow, 120, 7>;

// Builds the typed model from a kv::Document (Node = kv::Node) or a LiteTree (LiteNode). Paths
// name the field: `world/solid[12]/side[3]/plane`.
template <class Tree, class Node>
class TypedReader {
public:
    // `streaming`: node ids are not kept in Origins (the tree drops subtrees as it goes).
    // `offset_base`: where the tree's text starts in the file (a piece of a threaded read).
    TypedReader(const Tree& tree, Diagnostics& diags, bool streaming, std::uint32_t offset_base = 0)
        : tree_(&tree), diags_(diags), streaming_(streaming), offset_base_(offset_base) {}

    // Whole-tree mode: every top-level item of the tree.
    Map run();
    // Streaming mode: called as each block closes; true = consumed (drop it from the tree).
    bool stream_block(const Node& block, std::span<const kv::NodeId> ancestors);
    Map take() { return std::move(map_); }
    // The tree moved (kv::Document::parse returned the one its callbacks saw); its nodes are
    // where they were.
    void rebind(const Tree& tree) { tree_ = &tree; }
    // Top-level `world` blocks read so far (a piece that starts inside one counts it too).
    std::size_t worlds() const { return worlds_; }
    // Streaming: top-level key/values never close, so each is read when the next top-level
    // block closes (with `before` that block's id), or at the end (kv::kNone): in file order.
    void top_level_values(kv::NodeId before = kv::kNone) {
        Node v = last_value_ == kv::kNone ? tree_->root().first_child()
                                          : tree_->node(last_value_).next_sibling();
        for (; v.valid() && v.id() != before; v = v.next_sibling()) {
            top_level(v);
            last_value_ = v.id();
        }
    }

    // LiteTree::parse's on_open. A `side` or the first `editor` block of a solid that
    // stream_block will read (directly in a top-level entity or in the map's world), and the
    // first `editor` block of such an entity or world, are read from the text as the parser
    // meets them, when they hold only what read_side or read_editor would read without a
    // diagnostic or keeping anything as text, in the layout Hammer writes (a side: its keys and
    // a `vertices_plus` block, each once). read_solid and read_entity then take them from here
    // (a taken side, in order; the one taken editor). Anything else is left to the tree (0, p
    // unchanged).
    enum Taken : std::uint8_t { kNotTaken = 0, kTakenSide, kTakenEditor };
    std::uint8_t take_block(std::string_view key, std::uint32_t at,
                            std::span<const kv::NodeId> ancestors, const char*& p, const char* end);

private:
    bool take_side(const char*& p, const char* end, std::uint32_t at);
    bool take_editor(const char*& p, const char* end, std::size_t tabs,
                     std::optional<Editor>& slot);
    // The block of `id` (a top-level one) is one read_entity reads as it closes.
    bool streamed_owner(kv::NodeId id) const {
        const std::string_view owner = tree_->node(id).key();
        return (iequals_lower<"world">(owner) && !map_.has_world) || iequals_lower<"entity">(owner);
    }
    void top_level(const Node& top);
    // How far past a value's end its bytes may be read (NumberCursor): the tree's text.
    const char* limit(std::string_view v) const { return readable_end(*tree_, v); }
    Origin origin_of(const Node& n) const {
        return {streaming_ ? kv::kNone : n.id(),
                offset_base_ + static_cast<std::uint32_t>(n.offset())};
    }
    void field_error(const Node& n, std::string_view path, std::string msg) {
        const TextPos p = tree_->locate(n.offset());
        diags_.add(Diagnostic::error("vmf.bad-field", std::move(msg))
                       .at_line(p.line, p.column)
                       .at_offset(static_cast<std::int64_t>(n.offset()))
                       .with_path(std::string(path)));
    }
    void bad_value(const Node& n, const Path& path, std::string_view what) {
        field_error(n, path.str(n.key()),
                    fmt::format("{} '{}' is not {}", n.key(), printable(n.value()), what));
    }
    enum class IntRead { ok, out_of_range, bad };
    // An integer field's value: an integer, or a float with an integer value ("16.000000", as
    // some tools write integers).
    template <class Int>
    IntRead int_value(std::string_view v, Int& out) const {
        if (auto i = parse_int(trim(v))) {
            // A value the field's type cannot hold is refused, not wrapped ("power"
            // "4294967299" would pass as 3): the key is then kept as text.
            if (!std::in_range<Int>(*i)) return IntRead::out_of_range;
            out = static_cast<Int>(*i);
            return IntRead::ok;
        }
        // Range first: casting an out-of-range double to an integer is undefined behaviour.
        constexpr int kBits = std::numeric_limits<Int>::digits;
        const double hi = std::ldexp(1.0, kBits), lo = std::is_signed_v<Int> ? -hi : 0.0;
        if (auto d = detail::parse_number(v, limit(v));
            d && *d >= lo && *d < hi && *d == static_cast<double>(static_cast<Int>(*d))) {
            out = static_cast<Int>(*d);
            return IntRead::ok;
        }
        return IntRead::bad;
    }
    template <class Int>
    bool read_int(const Node& n, Int& out, const Path& path) {
        switch (int_value(n.value(), out)) {
            case IntRead::ok:
                return true;
            case IntRead::out_of_range:
                bad_value(n, path,
                          fmt::format("an integer from {} to {}", std::numeric_limits<Int>::min(),
                                      std::numeric_limits<Int>::max()));
                return false;
            case IntRead::bad:
                break;
        }
        bad_value(n, path, "an integer");
        return false;
    }
    bool read_double(const Node& n, double& out, const Path& path) {
        if (auto d = detail::parse_number(n.value(), limit(n.value()))) {
            out = *d;
            return true;
        }
        bad_value(n, path, "a number");
        return false;
    }

    // One key/value of an `editor` block read into e: false where read_editor keeps it as
    // text instead (unknown, repeated, or a value that does not read).
    bool editor_key(Editor& e, std::string_view k, std::string_view v) const {
        auto flag = [&](std::optional<bool>& dst) {
            if (dst) return false;
            auto i = parse_int(trim(v));
            if (!i || (*i != 0 && *i != 1)) return false;
            dst = *i != 0;
            return true;
        };
        switch (k.size()) {
            case 5:
                if (iequals_lower<"color">(k) && !e.color) {
                    // "r g b" as three integers.
                    NumberCursor nc(v, limit(v));
                    double rgb[3];
                    bool ok =
                        nc.number(rgb[0]) && nc.number(rgb[1]) && nc.number(rgb[2]) && nc.at_end();
                    // Range first: casting an out-of-range double to int is UB.
                    for (double x : rgb)
                        ok = ok && x >= INT_MIN && x <= INT_MAX &&
                             x == static_cast<double>(static_cast<int>(x));
                    if (ok)
                        e.color =
                            std::array<int, 3>{static_cast<int>(rgb[0]), static_cast<int>(rgb[1]),
                                               static_cast<int>(rgb[2])};
                    return ok;
                }
                return false;
            case 7:
                if (iequals_lower<"groupid">(k) && !e.group_id) {
                    if (auto i = parse_int(trim(v))) {
                        e.group_id = *i;
                        return true;
                    }
                }
                return false;
            case 8:
                if (iequals_lower<"comments">(k) && !e.comments) {
                    e.comments = std::string(v);
                    return true;
                }
                return false;
            case 10:
                if (iequals_lower<"visgroupid">(k)) {
                    if (auto i = parse_int(trim(v))) {
                        e.visgroup_ids.push_back(*i);
                        return true;
                    }
                } else if (iequals_lower<"logicalpos">(k) && !e.logical_pos) {
                    double x = 0, y = 0;
                    if (detail::parse_vec2_bracket(v, x, y, limit(v))) {
                        e.logical_pos = std::array<double, 2>{x, y};
                        return true;
                    }
                }
                return false;
            case 11:
                return iequals_lower<"cordonsolid">(k) && flag(e.cordon_solid);
            case 13:
                return iequals_lower<"visgroupshown">(k) && flag(e.visgroup_shown);
            case 17:
                return iequals_lower<"visgroupautoshown">(k) && flag(e.visgroup_autoshown);
            default:
                return false;
        }
    }
    Editor read_editor(const Node& n) {
        Editor e;
        e.present = true;
        for (Node c : n) {
            if (c.is_block()) {
                e.extra_blocks.push_back(to_raw(c));
                continue;
            }
            if (!editor_key(e, c.key(), c.value())) add_kv(e.extra_keys, c);
        }
        return e;
    }
    bool read_uvaxis(const Node& n, UVAxis& a, const Path& path) {
        if (parse_axis(n.value(), a)) return true;
        bad_value(n, path, "an axis \"[x y z shift] scale\"");
        return false;
    }
    // `plain`: the text from v on holds detail::plain::kReach bytes, so that the plain reader
    // may read it first.
    bool parse_axis(std::string_view v, UVAxis& a, bool plain = false);
    void read_disp(const Node& n, Side& side, const Path& path);
    bool read_rows(const Node& n, int rows, int per_row, std::vector<double>& out,
                   const Path& path);
    // Fills `s` in place: sides are large and there are many, so no temporary is moved.
    void read_side(const Node& n, const Path& path, Side& s);
    void read_solid(const Node& n, const Path& path, bool hidden, Solid& s);
    Entity read_entity(const Node& n, const Path& path, bool hidden);
    Visgroup read_visgroup(const Node& n);
    void read_cordon_box(const Node& n, Cordon& c);

    const Tree* tree_;
    Diagnostics& diags_;
    AxisMemo axes_;
    RowMemo rows_;
    bool streaming_;
    std::uint32_t offset_base_;
    Map map_;
    std::vector<Solid> pending_solids_;  // streaming: solids of the entity still open
    std::vector<Side> taken_sides_;      // the open solid's sides take_block read
    std::size_t last_side_count_ = 6;    // sides of the solid read last
    std::vector<Vec3> taken_points_;     // a taken side's vertices_plus as they are read
    std::optional<Editor> taken_solid_editor_, taken_entity_editor_;
    // Whether an `editor` block opened in the open solid, and in the open top-level block.
    bool solid_editor_seen_ = false, entity_editor_seen_ = false;
    std::size_t worlds_ = 0;
    kv::NodeId last_value_ = kv::kNone;  // the last top-level key/value read
};

template <class Tree, class Node>
bool TypedReader<Tree, Node>::parse_axis(std::string_view v, UVAxis& a, bool plain) {
    AxisMemo::Slot* slot = axes_.slot_for(v);
    if (slot && AxisMemo::holds(*slot, v)) {
        a = slot->value;
        return true;
    }
    UVAxis out;
    if (plain && detail::plain::kLittle &&
        detail::plain::axis(v.data(), out.axis, out.shift, out.scale) == v.data() + v.size()) {
        a = out;
        if (slot) AxisMemo::keep(*slot, v) = out;
        return true;
    }
    NumberCursor c(v, limit(v));
    if (c.expect('[') && c.vec3(out.axis) && c.number(out.shift) && c.expect(']') &&
        c.number(out.scale) && c.at_end()) {
        a = out;
        if (slot) AxisMemo::keep(*slot, v) = out;
        return true;
    }
    return false;
}

template <class Tree, class Node>
bool TypedReader<Tree, Node>::read_rows(const Node& n, int rows, int per_row,
                                        std::vector<double>& out, const Path& path) {
    // An empty block (decompilers write `triangle_tags { }`) is kept as present and empty.
    if (n.child_count() == 0) {
        out.clear();
        return true;
    }
    out.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(per_row), 0.0);
    std::vector<char> seen(static_cast<std::size_t>(rows), 0);
    const Path here{&path, n.key()};
    for (Node r : n) {
        const std::string_view k = r.key();
        std::optional<std::int64_t> idx;
        if (r.is_value() && istarts_with(k, "row")) idx = parse_int(k.substr(3));
        if (!idx || *idx < 0 || *idx >= rows || seen[static_cast<std::size_t>(*idx)]) {
            field_error(r, here.str(),
                        fmt::format("unexpected '{}' (a {}-row block has row0..row{})",
                                    printable(k), rows, rows - 1));
            return false;
        }
        seen[static_cast<std::size_t>(*idx)] = 1;
        double* dst =
            out.data() + static_cast<std::size_t>(*idx) * static_cast<std::size_t>(per_row);
        const std::string_view v = r.value();
        RowMemo::Slot* slot = per_row <= MemoRow::kMaxValues ? rows_.slot_for(v) : nullptr;
        if (slot && RowMemo::holds(*slot, v) && slot->value.count == per_row) {
            std::copy_n(slot->value.values, per_row, dst);
            continue;
        }
        NumberCursor c(v, limit(v));
        for (int i = 0; i < per_row; ++i) {
            if (!c.number(dst[i])) {
                field_error(r, here.str(k),
                            fmt::format("{} has fewer than {} numbers", k, per_row));
                return false;
            }
        }
        if (!c.at_end()) {
            field_error(r, here.str(k), fmt::format("{} has more than {} numbers", k, per_row));
            return false;
        }
        if (slot) {
            MemoRow& kept = RowMemo::keep(*slot, v);
            kept.count = per_row;
            std::copy_n(dst, per_row, kept.values);
        }
    }
    for (int i = 0; i < rows; ++i) {
        if (!seen[static_cast<std::size_t>(i)]) {
            field_error(n, here.str(), fmt::format("row{} is missing", i));
            return false;
        }
    }
    return true;
}

template <class Tree, class Node>
void TypedReader<Tree, Node>::read_disp(const Node& n, Side& side, const Path& side_path) {
    DispInfo d;
    d.origin = origin_of(n);
    const Path path{&side_path, "dispinfo"};
    // Scalars first: the grid size depends on power.
    for (Node c : n) {
        if (c.is_block()) continue;
        bool ok = true;
        if (is<"power">(c)) {
            // Only a power in range is taken: the grid is sized by it (1 << power).
            int power = 0;
            const bool number = read_int(c, power, path);
            ok = number && power >= 0 && power <= 4;
            if (ok) {
                d.power = power;
                d.present |= DispInfo::kPower;
            } else if (number) {
                bad_value(c, path, "a power in 0..4");
            }
        } else if (is<"startposition">(c)) {
            ok = detail::parse_vec3(c.value(), d.start_position, limit(c.value()));
            if (ok)
                d.present |= DispInfo::kStartPosition;
            else
                bad_value(c, path, "a point \"[x y z]\"");
        } else if (is<"flags">(c)) {
            if ((ok = read_int(c, d.flags, path))) d.present |= DispInfo::kFlags;
        } else if (is<"elevation">(c)) {
            if ((ok = read_double(c, d.elevation, path))) d.present |= DispInfo::kElevation;
        } else if (is<"subdiv">(c)) {
            if ((ok = read_int(c, d.subdiv, path))) d.present |= DispInfo::kSubdiv;
        } else {
            ok = false;
        }
        if (!ok) add_kv(d.extra_keys, c);
    }
    const int size = d.has(DispInfo::kPower) ? d.grid_size() : 0;
    const int tri_rows = d.has(DispInfo::kPower) ? 1 << d.power : 0;
    std::vector<double> tmp;
    auto vec3s = [&](std::vector<Vec3>& dst) {
        dst.resize(tmp.size() / 3);
        for (std::size_t i = 0; i < dst.size(); ++i)
            dst[i] = {tmp[3 * i], tmp[3 * i + 1], tmp[3 * i + 2]};
    };
    auto vec4s = [&](std::vector<std::array<double, 4>>& dst) {
        dst.resize(tmp.size() / 4);
        for (std::size_t i = 0; i < dst.size(); ++i) {
            dst[i] = {tmp[4 * i], tmp[4 * i + 1], tmp[4 * i + 2], tmp[4 * i + 3]};
        }
    };
    for (Node c : n) {
        if (!c.is_block()) continue;
        bool ok = d.has(DispInfo::kPower);
        const std::string_view k = c.key();
        if (!ok) {
            // Without a power the row blocks cannot be sized; keep them as they are.
        } else if (iequals_lower<"normals">(k)) {
            if ((ok = read_rows(c, size, 3 * size, tmp, path)))
                vec3s(d.normals), d.present |= DispInfo::kNormals;
        } else if (iequals_lower<"distances">(k)) {
            if ((ok = read_rows(c, size, size, d.distances, path)))
                d.present |= DispInfo::kDistances;
        } else if (iequals_lower<"offsets">(k)) {
            if ((ok = read_rows(c, size, 3 * size, tmp, path)))
                vec3s(d.offsets), d.present |= DispInfo::kOffsets;
        } else if (iequals_lower<"offset_normals">(k)) {
            if ((ok = read_rows(c, size, 3 * size, tmp, path))) {
                vec3s(d.offset_normals);
                d.present |= DispInfo::kOffsetNormals;
            }
        } else if (iequals_lower<"alphas">(k)) {
            if ((ok = read_rows(c, size, size, d.alphas, path))) d.present |= DispInfo::kAlphas;
        } else if (iequals_lower<"triangle_tags">(k)) {
            if ((ok = read_rows(c, tri_rows, 2 * tri_rows, tmp, path))) {
                // Tags are small integers; a value no int holds cannot be converted (and would
                // be undefined behaviour to cast): keep the rows as written.
                ok = std::all_of(tmp.begin(), tmp.end(),
                                 [](double v) { return v >= INT_MIN && v <= INT_MAX; });
                if (ok) {
                    d.triangle_tags.assign(tmp.begin(), tmp.end());
                    d.present |= DispInfo::kTriangleTags;
                } else {
                    field_error(c, path.str("triangle_tags"),
                                "triangle_tags holds a value out of the integer range");
                }
            }
        } else if (iequals_lower<"allowed_verts">(k)) {
            // One key ("10", or "5" with int64s in Strata) holding space-separated integers.
            ok = c.child_count() == 1 && c.first_child().is_value();
            if (ok) {
                Node v = c.first_child();
                d.allowed_verts_key = std::string(v.key());
                for (std::string_view t : split_ws(v.value())) {
                    auto i = parse_int(t);
                    if (!i) {
                        ok = false;
                        break;
                    }
                    d.allowed_verts.push_back(*i);
                }
            }
            if (ok) {
                d.present |= DispInfo::kAllowedVerts;
            } else {
                d.allowed_verts.clear();
                field_error(c, path.str("allowed_verts"),
                            "allowed_verts must hold one row of integers");
            }
        } else if (iequals_lower<"multiblend">(k)) {
            if ((ok = read_rows(c, size, 4 * size, tmp, path)))
                vec4s(d.multiblend), d.present |= DispInfo::kMultiblend;
        } else if (iequals_lower<"alphablend">(k)) {
            if ((ok = read_rows(c, size, 4 * size, tmp, path)))
                vec4s(d.alphablend), d.present |= DispInfo::kAlphablend;
        } else if (istarts_with(k, "multiblend_color_") && k.size() == 18 && k[17] >= '0' &&
                   k[17] <= '3') {
            const int i = k[17] - '0';
            if ((ok = read_rows(c, size, 3 * size, tmp, path))) {
                vec3s(d.multiblend_color[static_cast<std::size_t>(i)]);
                d.present |= DispInfo::kMultiblendColor0 << i;
            }
        } else {
            ok = false;
        }
        if (!ok) d.extra_blocks.push_back(to_raw(c));
    }
    if (!d.has(DispInfo::kPower)) {
        field_error(n, path.str(), "dispinfo has no valid power; its rows are kept but not typed");
    }
    side.disp = std::move(d);
}

template <class Tree, class Node>
void TypedReader<Tree, Node>::read_side(const Node& n, const Path& path, Side& s) {
    s.origin = origin_of(n);
    for (Node c : n) {
        const std::string_view k = c.key();
        bool ok = true;
        if (c.is_block()) {
            if (iequals_lower<"dispinfo">(k) && !s.disp) {
                read_disp(c, s, path);
            } else if (iequals_lower<"vertices_plus">(k)) {
                s.vertices_plus.reserve(c.child_count());  // one allocation, not one per doubling
                for (Node v : c) {
                    Vec3 p;
                    if (!v.is_value() || !iequals_lower<"v">(v.key()) ||
                        !detail::parse_vec3(v.value(), p, limit(v.value()))) {
                        ok = false;
                        s.vertices_plus.clear();
                        field_error(v, path.str("vertices_plus"), "expected \"v\" \"x y z\" lines");
                        break;
                    }
                    s.vertices_plus.push_back(p);
                }
                if (ok) s.present |= Side::kVerticesPlus;
            } else if (iequals_lower<"point_data">(k)) {
                // "numpts" N then N "point" "index x y z" lines.
                std::int64_t numpts = -1;
                s.point_data.reserve(c.child_count());
                for (Node v : c) {
                    if (v.is_value() && iequals_lower<"numpts">(v.key()) && numpts < 0) {
                        numpts = parse_int(v.value()).value_or(-2);
                        continue;
                    }
                    NumberCursor nc(v.value(), limit(v.value()));
                    double idx = 0;
                    Vec3 p;
                    if (!v.is_value() || !iequals_lower<"point">(v.key()) || !nc.number(idx) ||
                        idx != static_cast<double>(s.point_data.size()) || !nc.vec3(p) ||
                        !nc.at_end()) {
                        ok = false;
                        break;
                    }
                    s.point_data.push_back(p);
                }
                if (ok && numpts != static_cast<std::int64_t>(s.point_data.size())) ok = false;
                if (ok) {
                    s.present |= Side::kPointData;
                } else {
                    s.point_data.clear();
                    field_error(c, path.str("point_data"),
                                "expected \"numpts\" N followed by N \"point\" \"i x y z\" lines");
                }
            } else {
                ok = false;
            }
            if (!ok) s.extra_blocks.push_back(to_raw(c));
            continue;
        }
        const std::uint32_t before = s.present;
        switch (side_key(k)) {
            case SideKey::id:
                if (!s.has(Side::kId) && read_int(c, s.id, path)) s.present |= Side::kId;
                break;
            case SideKey::plane:
                if (s.has(Side::kPlane)) break;
                if (detail::parse_plane_points(c.value(), s.plane_points, limit(c.value()))) {
                    s.present |= Side::kPlane;
                } else {
                    bad_value(c, path, "three points \"(x y z) (x y z) (x y z)\"");
                }
                break;
            case SideKey::material:
                if (s.has(Side::kMaterial)) break;
                s.material.assign(c.value());
                s.present |= Side::kMaterial;
                break;
            case SideKey::uaxis:
                if (!s.has(Side::kUAxis) && read_uvaxis(c, s.uaxis, path))
                    s.present |= Side::kUAxis;
                break;
            case SideKey::vaxis:
                if (!s.has(Side::kVAxis) && read_uvaxis(c, s.vaxis, path))
                    s.present |= Side::kVAxis;
                break;
            case SideKey::rotation:
                if (!s.has(Side::kRotation) && read_double(c, s.rotation, path)) {
                    s.present |= Side::kRotation;
                }
                break;
            case SideKey::lightmapscale:
                if (!s.has(Side::kLightmapScale) && read_double(c, s.lightmapscale, path)) {
                    s.present |= Side::kLightmapScale;
                }
                break;
            case SideKey::smoothing_groups: {
                std::int64_t g = 0;
                if (!s.has(Side::kSmoothingGroups) && read_int(c, g, path) && g >= INT32_MIN &&
                    g <= UINT32_MAX) {
                    s.smoothing_groups = static_cast<std::uint32_t>(g);
                    s.present |= Side::kSmoothingGroups;
                }
                break;
            }
            case SideKey::other:
                break;
        }
        if (s.present == before) add_kv(s.extra_keys, c);
    }
}

template <class Tree, class Node>
void TypedReader<Tree, Node>::read_solid(const Node& n, const Path& path, bool hidden, Solid& s) {
    s.origin = origin_of(n);
    s.hidden = hidden;
    bool have_id = false;
    std::size_t side_index = 0, taken = 0;
    bool sides_whole = false;  // s.sides is taken_sides_, moved in whole
    if constexpr (std::is_same_v<Node, LiteNode>) {
        // Where every side was taken, the reader's vector becomes the solid's (no side is
        // moved) if it has at most one spare side; otherwise the sides move into a vector of
        // their number. Spare room is kept for the whole read: two sides a solid were 0.8 MB
        // of the read's 11.6 MB heap peak on the largest corpus VMF (4.16 MB).
        std::size_t tree_sides = 0;
        for (Node c : n) tree_sides += c.taken() != kTakenSide && c.is_block() && is<"side">(c);
        last_side_count_ = taken_sides_.size() + tree_sides;
        sides_whole = tree_sides == 0 && taken_sides_.capacity() <= taken_sides_.size() + 1;
        if (sides_whole) {
            s.sides = std::move(taken_sides_);
        } else {
            s.sides.reserve(last_side_count_);
        }
    } else {
        s.sides.reserve(n.child_count());
    }
    for (Node c : n) {
        if constexpr (std::is_same_v<Node, LiteNode>) {
            if (c.taken() == kTakenSide) {
                if (!sides_whole) s.sides.push_back(std::move(taken_sides_.at(taken)));
                ++taken;
                ++side_index;
                continue;
            }
            if (c.taken() == kTakenEditor) {
                s.editor = std::move(taken_solid_editor_.value());
                continue;
            }
        }
        if (c.is_block()) {
            if (is<"side">(c)) {
                read_side(c, Path{&path, "side", static_cast<std::int64_t>(side_index++)},
                          s.sides.emplace_back());
            } else if (is<"editor">(c) && !s.editor.present) {
                s.editor = read_editor(c);
            } else {
                s.extra_blocks.push_back(to_raw(c));
            }
        } else if (is<"id">(c) && !have_id && read_int(c, s.id, path)) {
            have_id = true;
        } else {
            add_kv(s.extra_keys, c);
        }
    }
    // Moved from or moved out: the next solid's sides start in a new vector.
    if constexpr (std::is_same_v<Node, LiteNode>) std::vector<Side>().swap(taken_sides_);
}

template <class Tree, class Node>
std::uint8_t TypedReader<Tree, Node>::take_block(std::string_view key, std::uint32_t at,
                                                 std::span<const kv::NodeId> ancestors,
                                                 const char*& p, const char* end) {
    // Which blocks read_solid and read_entity read is stream_block's and top_level's rule.
    switch (ancestors.size()) {
        case 1:  // a top-level block
            entity_editor_seen_ = false;
            return kNotTaken;
        case 2:  // in a top-level block: a solid, an editor...
            solid_editor_seen_ = false;
            if (!iequals_lower<"editor">(key) || entity_editor_seen_) return kNotTaken;
            entity_editor_seen_ = true;
            return streamed_owner(ancestors[1]) && take_editor(p, end, 2, taken_entity_editor_)
                       ? kTakenEditor
                       : kNotTaken;
        case 3:  // in a block of a top-level block: a side, a solid's editor...
            if (!iequals_lower<"solid">(tree_->node(ancestors[2]).key())) return kNotTaken;
            if (iequals_lower<"side">(key)) {
                return streamed_owner(ancestors[1]) && take_side(p, end, at) ? kTakenSide
                                                                             : kNotTaken;
            }
            if (!iequals_lower<"editor">(key) || solid_editor_seen_) return kNotTaken;
            solid_editor_seen_ = true;
            return streamed_owner(ancestors[1]) && take_editor(p, end, 3, taken_solid_editor_)
                       ? kTakenEditor
                       : kNotTaken;
        default:
            return kNotTaken;
    }
}

// A quoted token `"..."` at p (p[0] is '"') as the light tokenizer reads it: false if it would
// give up (no closing quote, a CR inside, too long). p is left past the closing quote.
inline bool quoted_token(const char*& p, const char* end, std::string_view& text) {
    const char* close = find_quote_or_cr(p + 1, end);
    if (close >= end || *close != '"' || close - p - 1 > detail::lite::kMaxValueLen) return false;
    text = std::string_view(p + 1, static_cast<std::size_t>(close - p - 1));
    p = close + 1;
    return true;
}

// A `"key" "value"` line of a taken block: the key's token at p, one space, the value's token,
// then the line's end (so that the tokenizer's `"a" + "b"` test cannot apply).
inline bool taken_line(const char*& p, const char* end, std::string_view& key,
                       std::string_view& value) {
    if (!quoted_token(p, end, key)) return false;
    if (end - p < 2 || p[0] != ' ' || p[1] != '"') return false;
    ++p;
    if (!quoted_token(p, end, value)) return false;
    return p < end && (*p == '\n' || *p == '\r');
}

// The gap before a taken block's next line, as lite::skip_gap finds it; a line ending and
// `tabs` tabs (the block's depth) are tested here first.
[[gnu::always_inline]] inline const char* taken_gap(const char* p, const char* end,
                                                    std::size_t tabs) {
    using detail::lite::tabs_then_token;
    if (end - p >= 10) {
        if (p[0] == '\n' && tabs_then_token(p + 1, tabs)) return p + 1 + tabs;
        if (p[0] == '\r' && p[1] == '\n' && tabs_then_token(p + 2, tabs)) return p + 2 + tabs;
    }
    return detail::lite::skip_gap(p, end, tabs);
}

// Whether the text at p starts with `k` (its bytes but the NUL; 4 to 24 of them), compared as
// words (a memcmp call otherwise); the caller checks they are there.
template <std::size_t N>
[[gnu::always_inline]] inline bool starts(const char* p, const char (&k)[N]) {
    constexpr std::size_t L = N - 1;
    static_assert(L >= 4 && L <= 24);
    auto word = [](const char* at) {
        std::uint64_t w;
        std::memcpy(&w, at, 8);
        return w;
    };
    if constexpr (L < 8) {
        std::uint32_t a, b, x, y;
        std::memcpy(&a, p, 4);
        std::memcpy(&b, p + L - 4, 4);
        std::memcpy(&x, k, 4);
        std::memcpy(&y, k + L - 4, 4);
        return ((a ^ x) | (b ^ y)) == 0;
    } else {
        // Words at 0, 8, ... and one ending at L (overlapping the one before).
        std::uint64_t diff = word(p + L - 8) ^ word(k + L - 8);
        for (std::size_t i = 0; i + 8 < L; i += 8) diff |= word(p + i) ^ word(k + i);
        return diff == 0;
    }
}

// A number field's value (parse_number's).
inline bool number_value(std::string_view v, double& out, const char* limit) {
    if (auto d = detail::parse_number(v, limit)) {
        out = *d;
        return true;
    }
    return false;
}

template <class Tree, class Node>
bool TypedReader<Tree, Node>::take_side(const char*& p_io, const char* end, std::uint32_t at) {
    namespace plain = detail::plain;
    // The side's lines are one tab deeper than the side (world/solid/side: three), its
    // vertices_plus lines two.
    constexpr std::size_t kTabs = 3;
    // A key with its quotes, the space and the value's opening quote take at most 20 bytes.
    constexpr std::size_t kLineReach = 24 + plain::kReach;
    // Room for as many sides as the solid before had (a box's six before any): read_solid
    // keeps the vector as the solid's where that was right (or one too many).
    if (taken_sides_.capacity() == 0)
        taken_sides_.reserve(std::max<std::size_t>(last_side_count_, 1));
    Side& s = taken_sides_.emplace_back();
    s.origin = {kv::kNone, offset_base_ + at};
    const char* p = p_io;
    auto decline = [&] {
        taken_sides_.pop_back();
        return false;
    };
    for (;;) {
        p = taken_gap(p, end, kTabs);
        if (p >= end) return decline();
        if (*p == '}') break;
        if (*p != '"') {
            // A bare key: only `vertices_plus {`, once, with its "v" "x y z" lines.
            const char* b = p;
            while (p < end && !detail::lite::ends_bare(*p)) ++p;
            if (!iequals_lower<"vertices_plus">(std::string_view(b, p - b)) ||
                s.has(Side::kVerticesPlus))
                return decline();
            p = detail::lite::skip_gap(p, end, kTabs);
            if (p >= end || *p != '{') return decline();
            ++p;
            taken_points_.clear();
            for (;;) {
                p = taken_gap(p, end, kTabs + 1);
                if (p >= end) return decline();
                if (*p == '}') break;
                Vec3 point;
                // "v" "x y z" in Hammer's spelling, else as the tree path reads it.
                const char* q = plain::kLittle && static_cast<std::size_t>(end - p) >= kLineReach &&
                                        starts(p, "\"v\" \"")
                                    ? plain::vec3(p + 5, point)
                                    : nullptr;
                if (q != nullptr && *q == '"' && (q[1] == '\n' || q[1] == '\r')) {
                    p = q + 1;
                } else {
                    std::string_view k, v;
                    if (*p != '"' || !taken_line(p, end, k, v) || !iequals_lower<"v">(k) ||
                        !detail::parse_vec3(v, point, end))
                        return decline();
                }
                taken_points_.push_back(point);
            }
            ++p;
            s.vertices_plus.assign(taken_points_.begin(), taken_points_.end());
            s.present |= Side::kVerticesPlus;
            continue;
        }
        // Hammer's lines: the key and the value's opening quote compared whole, the value read
        // in place up to its closing quote (numbers by the plain readers). q: that quote, or null
        // where the line is left to the general reading below.
        const char* q = nullptr;
        if (plain::kLittle && static_cast<std::size_t>(end - p) >= kLineReach) {
            switch (p[1]) {
                case 'i':
                    if (starts(p, "\"id\" \"")) {
                        if (s.has(Side::kId)) return decline();
                        q = plain::integer(p + 6, s.id);
                        if (q && *q == '"') s.present |= Side::kId;
                    }
                    break;
                case 'p':
                    if (starts(p, "\"plane\" \"")) {
                        if (s.has(Side::kPlane)) return decline();
                        q = plain::plane_points(p + 9, s.plane_points);
                        if (q && *q == '"') s.present |= Side::kPlane;
                    }
                    break;
                case 'm':
                    if (starts(p, "\"material\" \"")) {
                        if (s.has(Side::kMaterial)) return decline();
                        const char* b = p + 12;
                        q = find_quote_or_cr(b, end);
                        if (q < end && *q == '"' && q - b <= detail::lite::kMaxValueLen) {
                            s.material = std::string(b, static_cast<std::size_t>(q - b));
                            s.present |= Side::kMaterial;
                        } else {
                            return decline();
                        }
                    }
                    break;
                case 'u':
                case 'v':
                    if (starts(p + 2, "axis\" \"")) {
                        const Side::Field f = p[1] == 'u' ? Side::kUAxis : Side::kVAxis;
                        if (s.has(f)) return decline();
                        const char* b = p + 9;
                        q = find_quote_or_cr(b, end);
                        if (q >= end || *q != '"' || q - b > detail::lite::kMaxValueLen ||
                            !parse_axis(std::string_view(b, static_cast<std::size_t>(q - b)),
                                        f == Side::kUAxis ? s.uaxis : s.vaxis, true))
                            return decline();
                        s.present |= f;
                    }
                    break;
                case 'r':
                    if (starts(p, "\"rotation\" \"")) {
                        if (s.has(Side::kRotation)) return decline();
                        q = plain::number(p + 12, s.rotation);
                        if (q && *q == '"') s.present |= Side::kRotation;
                    }
                    break;
                case 'l':
                    if (starts(p, "\"lightmapscale\" \"")) {
                        if (s.has(Side::kLightmapScale)) return decline();
                        q = plain::number(p + 17, s.lightmapscale);
                        if (q && *q == '"') s.present |= Side::kLightmapScale;
                    }
                    break;
                case 's':
                    if (starts(p, "\"smoothing_groups\" \"")) {
                        if (s.has(Side::kSmoothingGroups)) return decline();
                        std::int64_t g = 0;  // seven digits at most: in range
                        q = plain::integer(p + 20, g);
                        if (q && *q == '"') {
                            s.smoothing_groups = static_cast<std::uint32_t>(g);
                            s.present |= Side::kSmoothingGroups;
                        }
                    }
                    break;
                default:
                    break;
            }
            if (q != nullptr && *q != '"') q = nullptr;  // a number not in the plain spelling
        }
        if (q != nullptr) {
            if (end - q < 2 || (q[1] != '\n' && q[1] != '\r')) return decline();
            p = q + 1;
            continue;
        }
        std::string_view k, v;
        if (!taken_line(p, end, k, v)) return decline();
        // As read_side reads them, where that gives no diagnostic and keeps nothing as text.
        switch (side_key(k)) {
            case SideKey::id:
                if (s.has(Side::kId) || int_value(v, s.id) != IntRead::ok) return decline();
                s.present |= Side::kId;
                break;
            case SideKey::plane:
                if (s.has(Side::kPlane) || !detail::parse_plane_points(v, s.plane_points, end))
                    return decline();
                s.present |= Side::kPlane;
                break;
            case SideKey::material:
                if (s.has(Side::kMaterial)) return decline();
                s.material = std::string(v);
                s.present |= Side::kMaterial;
                break;
            case SideKey::uaxis:
                if (s.has(Side::kUAxis) || !parse_axis(v, s.uaxis)) return decline();
                s.present |= Side::kUAxis;
                break;
            case SideKey::vaxis:
                if (s.has(Side::kVAxis) || !parse_axis(v, s.vaxis)) return decline();
                s.present |= Side::kVAxis;
                break;
            case SideKey::rotation:
                if (s.has(Side::kRotation) || !number_value(v, s.rotation, end)) return decline();
                s.present |= Side::kRotation;
                break;
            case SideKey::lightmapscale:
                if (s.has(Side::kLightmapScale) || !number_value(v, s.lightmapscale, end))
                    return decline();
                s.present |= Side::kLightmapScale;
                break;
            case SideKey::smoothing_groups: {
                std::int64_t g = 0;
                if (s.has(Side::kSmoothingGroups) || int_value(v, g) != IntRead::ok ||
                    g < INT32_MIN || g > UINT32_MAX)
                    return decline();
                s.smoothing_groups = static_cast<std::uint32_t>(g);
                s.present |= Side::kSmoothingGroups;
                break;
            }
            case SideKey::other:
                return decline();
        }
    }
    p_io = p + 1;
    return true;
}

template <class Tree, class Node>
bool TypedReader<Tree, Node>::take_editor(const char*& p_io, const char* end, std::size_t tabs,
                                          std::optional<Editor>& slot) {
    namespace plain = detail::plain;
    Editor& e = slot.emplace();
    e.present = true;
    const char* p = p_io;
    // "0" or "1" and the closing quote at v, for a flag not yet read.
    auto flag = [](const char* v, std::optional<bool>& dst) -> const char* {
        if (dst || (v[0] != '0' && v[0] != '1') || v[1] != '"') return nullptr;
        dst = v[0] == '1';
        return v + 1;
    };
    for (;;) {
        p = taken_gap(p, end, tabs);
        if (p >= end) return false;
        if (*p == '}') break;
        if (*p != '"') return false;
        // Hammer's lines read in place as take_side reads a side's (q: the value's closing
        // quote, or null for the general reading of the line).
        const char* q = nullptr;
        if (plain::kLittle && static_cast<std::size_t>(end - p) >= plain::kReach + 32) {
            if (starts(p, "\"color\" \"")) {
                std::int64_t rgb[3];
                q = e.color ? nullptr : plain::integer(p + 9, rgb[0]);
                if (q && *q++ == ' ' && (q = plain::integer(q, rgb[1])) && *q++ == ' ' &&
                    (q = plain::integer(q, rgb[2])) && *q == '"') {
                    e.color = std::array<int, 3>{static_cast<int>(rgb[0]), static_cast<int>(rgb[1]),
                                                 static_cast<int>(rgb[2])};
                } else {
                    q = nullptr;
                }
            } else if (starts(p, "\"visgroupshown\" \"")) {
                q = flag(p + 17, e.visgroup_shown);
            } else if (starts(p, "\"visgroupautoshown\" \"")) {
                q = flag(p + 21, e.visgroup_autoshown);
            } else if (starts(p, "\"visgroupid\" \"")) {
                std::int64_t id = 0;
                q = plain::integer(p + 14, id);
                if (q && *q == '"') {
                    e.visgroup_ids.push_back(id);
                } else {
                    q = nullptr;
                }
            } else if (starts(p, "\"logicalpos\" \"[")) {
                double x = 0, y = 0;
                q = e.logical_pos ? nullptr : plain::number(p + 15, x);
                if (q && *q++ == ' ' && (q = plain::number(q, y)) && *q++ == ']' && *q == '"') {
                    e.logical_pos = std::array<double, 2>{x, y};
                } else {
                    q = nullptr;
                }
            }
        }
        if (q != nullptr) {
            if (end - q < 2 || (q[1] != '\n' && q[1] != '\r')) return false;
            p = q + 1;
            continue;
        }
        std::string_view k, v;
        if (!taken_line(p, end, k, v) || !editor_key(e, k, v)) return false;
    }
    p_io = p + 1;
    return true;
}

template <class Tree, class Node>
Entity TypedReader<Tree, Node>::read_entity(const Node& n, const Path& path, bool hidden) {
    Entity e;
    e.origin = origin_of(n);
    e.hidden = hidden;
    e.solids = std::move(pending_solids_);  // streaming: read as they closed
    pending_solids_.clear();
    std::size_t solid_index = e.solids.size();
    {
        std::size_t values = 0;
        for (Node c : n) values += c.is_value();
        e.keys.reserve(values);
    }
    for (Node c : n) {
        if (!c.is_block()) {
            add_kv(e.keys, c);
            continue;
        }
        if constexpr (std::is_same_v<Node, LiteNode>) {
            if (c.taken() == kTakenEditor) {
                e.editor = std::move(taken_entity_editor_.value());
                continue;
            }
        }
        if (is<"solid">(c)) {
            read_solid(c, Path{&path, "solid", static_cast<std::int64_t>(solid_index++)}, false,
                       e.solids.emplace_back());
        } else if (is<"hidden">(c) && c.child_count() == 1 && is<"solid">(c.first_child()) &&
                   c.first_child().is_block()) {
            read_solid(c.first_child(),
                       Path{&path, "solid", static_cast<std::int64_t>(solid_index++)}, true,
                       e.solids.emplace_back());
        } else if (is<"connections">(c) && !e.has_connections) {
            e.has_connections = true;
            for (Node o : c) {
                if (o.is_block()) {
                    e.extra_blocks.push_back(to_raw(o));
                    continue;
                }
                if (auto conn = parse_connection(o.key(), o.value())) {
                    conn->origin = origin_of(o);
                    e.connections.push_back(std::move(*conn));
                } else {
                    Connection raw;
                    raw.output = std::string(o.key());
                    raw.parsed = false;
                    raw.raw = std::string(o.value());
                    raw.origin = origin_of(o);
                    e.connections.push_back(std::move(raw));
                    const TextPos p = tree_->locate(o.offset());
                    diags_.add(
                        Diagnostic::warning("vmf.bad-connection",
                                            fmt::format("output '{}' value '{}' does not have "
                                                        "5 fields; kept as written",
                                                        printable(o.key()), printable(o.value())))
                            .at_line(p.line, p.column)
                            .with_path(path.str("connections")));
                }
            }
        } else if (is<"editor">(c) && !e.editor.present) {
            e.editor = read_editor(c);
        } else if (is<"group">(c)) {
            Group g;
            for (Node k : c) {
                if (k.is_block() && is<"editor">(k) && !g.editor.present) {
                    g.editor = read_editor(k);
                } else if (k.is_block()) {
                    g.extra_blocks.push_back(to_raw(k));
                } else if (!(is<"id">(k) && g.id == 0 && read_int(k, g.id, Path{&path, "group"}))) {
                    add_kv(g.extra_keys, k);
                }
            }
            e.groups.push_back(std::move(g));
        } else {
            e.extra_blocks.push_back(to_raw(c));
        }
    }
    return e;
}

template <class Tree, class Node>
Visgroup TypedReader<Tree, Node>::read_visgroup(const Node& n) {
    Visgroup v;
    bool have_id = false;
    for (Node c : n) {
        if (c.is_block() && is<"visgroup">(c)) {
            v.children.push_back(read_visgroup(c));
        } else if (!c.is_block() && is<"name">(c) && v.name.empty()) {
            v.name = std::string(c.value());
        } else if (!c.is_block() && is<"visgroupid">(c) && !have_id &&
                   read_int(c, v.id, Path{nullptr, "visgroups"})) {
            have_id = true;
        } else if (!c.is_block() && is<"color">(c) && v.color.empty()) {
            v.color = std::string(c.value());
        } else if (!c.is_block()) {
            add_kv(v.extra_keys, c);
        } else {
            v.extra_blocks.push_back(to_raw(c));
        }
    }
    return v;
}

template <class Tree, class Node>
void TypedReader<Tree, Node>::read_cordon_box(const Node& n, Cordon& c) {
    Aabb b;
    Vec3 mins, maxs;
    const bool ok =
        detail::parse_vec3(n.get("mins"), mins) && detail::parse_vec3(n.get("maxs"), maxs);
    if (!ok) field_error(n, "cordon", "cordon box needs \"mins\" and \"maxs\" as \"(x y z)\"");
    b.mins = mins;
    b.maxs = maxs;
    c.boxes.push_back(b);
}

template <class Tree, class Node>
void TypedReader<Tree, Node>::top_level(const Node& top) {
    Map& m = map_;
    {
        if (!top.is_block()) {
            m.extra_blocks.push_back(to_raw(top));
            return;
        }
        worlds_ += is<"world">(top);
        if (is<"versioninfo">(top) && !m.has_versioninfo) {
            m.has_versioninfo = true;
            for (Node c : top) {
                if (c.is_block()) {
                    m.extra_blocks.push_back(to_raw(top));
                    m.versioninfo.clear();
                    m.has_versioninfo = false;
                    break;
                }
                add_kv(m.versioninfo, c);
            }
        } else if (is<"visgroups">(top) && !m.has_visgroups) {
            m.has_visgroups = true;
            for (Node c : top) {
                if (c.is_block() && is<"visgroup">(c)) m.visgroups.push_back(read_visgroup(c));
            }
        } else if (is<"viewsettings">(top) && !m.viewsettings) {
            m.viewsettings = to_raw(top);
        } else if (is<"world">(top) && !m.has_world) {
            m.has_world = true;
            m.world = read_entity(top, Path{nullptr, "world"}, false);
        } else if (is<"entity">(top)) {
            m.entities.push_back(read_entity(
                top, Path{nullptr, "entity", static_cast<std::int64_t>(m.entities.size())}, false));
        } else if (is<"hidden">(top) && top.child_count() == 1 && is<"entity">(top.first_child()) &&
                   top.first_child().is_block()) {
            m.entities.push_back(read_entity(
                top.first_child(),
                Path{nullptr, "entity", static_cast<std::int64_t>(m.entities.size())}, true));
        } else if (is<"cameras">(top) && !m.has_cameras) {
            m.has_cameras = true;
            for (Node c : top) {
                if (!c.is_block() && is<"activecamera">(c)) {
                    m.active_camera = static_cast<int>(parse_int(c.value()).value_or(-1));
                } else if (c.is_block() && is<"camera">(c)) {
                    Camera cam;
                    if (!detail::parse_vec3(c.get("position"), cam.position) ||
                        !detail::parse_vec3(c.get("look"), cam.look)) {
                        field_error(c, "cameras/camera",
                                    "camera needs \"position\" and \"look\" as \"[x y z]\"");
                    }
                    m.cameras.push_back(cam);
                }
            }
        } else if (is<"cordon">(top) && m.cordon_style == Map::CordonStyle::none) {
            m.cordon_style = Map::CordonStyle::single;
            Cordon c;
            c.active = parse_int(top.get("active")).value_or(0) != 0;
            if (top.find("mins")) read_cordon_box(top, c);
            for (Node b : top) {
                if (b.is_block() && is<"box">(b)) read_cordon_box(b, c);
                if (!b.is_block() && !is<"active">(b) && !is<"mins">(b) && !is<"maxs">(b)) {
                    add_kv(c.extra_keys, b);
                }
            }
            m.cordons.push_back(std::move(c));
        } else if (is<"cordons">(top) && m.cordon_style == Map::CordonStyle::none) {
            m.cordon_style = Map::CordonStyle::multiple;
            m.cordons_active = parse_int(top.get("active")).value_or(0) != 0;
            for (Node cn : top) {
                if (!cn.is_block() || !is<"cordon">(cn)) continue;
                Cordon c;
                c.name = std::string(cn.get("name"));
                c.active = parse_int(cn.get("active")).value_or(0) != 0;
                for (Node b : cn) {
                    if (b.is_block() && is<"box">(b)) read_cordon_box(b, c);
                    if (!b.is_block() && !is<"active">(b) && !is<"name">(b)) {
                        add_kv(c.extra_keys, b);
                    }
                }
                m.cordons.push_back(std::move(c));
            }
        } else {
            m.extra_blocks.push_back(to_raw(top));
        }
    }
}

template <class Tree, class Node>
Map TypedReader<Tree, Node>::run() {
    for (Node top : tree_->root()) top_level(top);
    return std::move(map_);
}

template <class Tree, class Node>
bool TypedReader<Tree, Node>::stream_block(const Node& block,
                                           std::span<const kv::NodeId> ancestors) {
    const std::size_t depth = ancestors.size() - 1;  // ancestors[0] is the root
    if (depth == 0) {
        top_level_values(block.id());
        top_level(block);
        pending_solids_.clear();
        return true;
    }
    if (!block.is_block()) return false;
    // Solids are taken as they close only where the tree reader would take them: directly in a
    // top-level entity or in the map's world (the first top-level `world`; a later one is kept
    // whole as an unknown block), or as the one child of a `hidden` block there. Anywhere else
    // they stay in the tree, and the block around them is read, or kept whole, as it closes.
    const std::size_t parent = ancestors.size() - 1;
    if (parent != 1) return false;
    const std::string_view owner = tree_->node(ancestors[1]).key();
    const bool is_world = iequals_lower<"world">(owner);
    if (!(is_world && !map_.has_world) && !iequals_lower<"entity">(owner)) return false;
    const Path entity_path =
        is_world ? Path{nullptr, "world"}
                 : Path{nullptr, "entity", static_cast<std::int64_t>(map_.entities.size())};
    const auto index = static_cast<std::int64_t>(pending_solids_.size());
    if (is<"solid">(block)) {
        read_solid(block, Path{&entity_path, "solid", index}, false,
                   pending_solids_.emplace_back());
        return true;
    }
    if (is<"hidden">(block) && block.child_count() == 1 && is<"solid">(block.first_child()) &&
        block.first_child().is_block()) {
        read_solid(block.first_child(), Path{&entity_path, "solid", index}, true,
                   pending_solids_.emplace_back());
        return true;
    }
    return false;
}

}  // namespace

Map map_from_tree(const kv::Document& tree, Diagnostics& diags) {
    return TypedReader<kv::Document, kv::Node>(tree, diags, false).run();
}

namespace {

// One streaming read of `source` (the whole file, or a piece of it starting at byte `base`).
// A piece cut inside the world block starts with `world` open (in_world) and/or ends with it
// open (world_open_at_end: the parser closes it at the end of the piece).
struct Piece {
    Result<Map> map = Map{};
    Diagnostics diags;
    bool ends_in_world = false;  // the block left open at the end of the piece was `world`
    std::size_t worlds = 0;      // top-level `world` blocks begun in this piece
    // As read: the piece's entities and world solids (which a summary frees once counted).
    std::size_t entities = 0, world_solids = 0;
};

void add_counts(Stats& to, const Stats& s) {
    to.solids += s.solids;
    to.sides += s.sides;
    to.entities += s.entities;
    to.displacements += s.displacements;
    to.overlays += s.overlays;
    to.instances += s.instances;
    to.visgroups += s.visgroups;
    to.cameras += s.cameras;
    to.connections += s.connections;
    to.hidden += s.hidden;
}

// A summary's piece: its world solids and entities counted into `s` and freed (their memory is
// the next piece's on this thread). What join() looks at stays.
void count_and_free(Piece& p, Stats& s) {
    if (!p.map) return;
    Map& m = *p.map;
    add_solid_stats(m.world.solids, s);
    for (const Entity& e : m.entities) add_entity_stats(e, s);
    std::vector<Solid>().swap(m.world.solids);
    std::vector<Entity>().swap(m.entities);
}

// The streaming read with the light tokenizer; false when the text needs kv::Document::parse
// (see lite_tree.hpp), and then `out` holds nothing of this attempt.
bool read_piece_lite(const Blob& source, std::uint32_t base, bool starts_in_world,
                     bool ends_in_world, Piece& out) {
    LiteTree tree(source.text());
    TypedReader<LiteTree, LiteNode> reader(tree, out.diags, true, base);
    bool last_top_is_world = false;
    const bool parsed = tree.parse(
        starts_in_world ? std::string_view("world") : std::string_view(), ends_in_world,
        [&](LiteNode block, std::span<const kv::NodeId> ancestors) {
            if (ancestors.size() == 1) last_top_is_world = is<"world">(block);
            return reader.stream_block(block, ancestors);
        },
        [&](std::string_view key, std::uint32_t at, std::span<const kv::NodeId> ancestors,
            const char*& p,
            const char* end) { return reader.take_block(key, at, ancestors, p, end); });
    if (!parsed) {
        out.diags = Diagnostics{};
        return false;
    }
    out.ends_in_world = tree.closed_at_end() != kv::kNone && last_top_is_world;
    reader.top_level_values();  // those after the last block
    out.worlds = reader.worlds() - (starts_in_world ? 1 : 0);
    out.map = reader.take();
    return true;
}

Piece read_piece(Blob source, ReadOptions opt, std::uint32_t base, bool starts_in_world,
                 bool ends_in_world) {
    Piece out;
    if (opt.light_tokenizer && !opt.kv.escapes && !opt.kv.conditions && !opt.kv.directives &&
        read_piece_lite(source, base, starts_in_world, ends_in_world, out)) {
        return out;
    }
    if (starts_in_world) opt.kv.open_block = "world";
    opt.kv.close_at_end = ends_in_world;
    bool last_top_is_world = false;
    // The reader refers to the tree being built; the tree is only ever touched through the
    // callback, while the parser holds it at a fixed address.
    std::optional<TypedReader<kv::Document, kv::Node>> reader;
    auto tree = kv::Document::parse(
        std::move(source), opt.kv, &out.diags,
        [&](const kv::Document& doc, kv::Node block, std::span<const kv::NodeId> ancestors) {
            if (!reader) reader.emplace(doc, out.diags, true, base);
            if (ancestors.size() == 1) last_top_is_world = is<"world">(block);
            return reader->stream_block(block, ancestors);
        });
    if (!tree) {
        out.map = std::move(tree).error();
        return out;
    }
    out.ends_in_world = tree->closed_at_end() != kv::kNone && last_top_is_world;
    if (reader) {
        reader->rebind(tree.value());
    } else {
        reader.emplace(tree.value(), out.diags, true, base);
    }
    reader->top_level_values();  // those after the last block
    out.worlds = reader->worlds() - (starts_in_world ? 1 : 0);
    out.map = reader->take();
    return out;
}

// Where a piece may start: a line holding just `marker` (`entity` for a top-level entity, or
// `\tsolid` for a solid of the world), then a line starting with `{` at the same indent, which
// is how Hammer and every exporter write them. Whether the cut really is where it looks is
// checked by reading: the piece before it must parse cleanly to its end, with `world` the one
// block open there for a solid cut.
std::size_t find_cut(std::string_view text, std::size_t from, std::string_view marker,
                     std::size_t limit = std::string_view::npos) {
    const std::string nl_marker = "\n" + std::string(marker);
    const std::string_view indent = marker.substr(0, marker.find_first_not_of('\t'));
    limit = std::min(limit, text.size());
    while (from < limit) {
        // memmem (two-way search) rather than string_view::find, which stops at every newline.
        const void* hit =
            memmem(text.data() + from, limit - from, nl_marker.data(), nl_marker.size());
        if (!hit) break;
        const auto at = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
        std::size_t p = at + nl_marker.size();
        if (p < text.size() && text[p] == '\r') ++p;
        if (p < text.size() && text[p] == '\n' &&
            text.substr(p + 1, indent.size() + 1) == std::string(indent) + "{") {
            return at + 1;
        }
        from = at + 1;
    }
    return std::string_view::npos;
}

// Index in a path segment `name[i]` at the start of `path`, shifted by `by`.
void shift_index(std::string& path, std::string_view name, std::size_t by) {
    if (by == 0 || !path.starts_with(name) || path.size() <= name.size() ||
        path[name.size()] != '[') {
        return;
    }
    const std::size_t open = name.size() + 1;
    const std::size_t close = path.find(']', open);
    if (close == std::string::npos) return;
    if (auto i = parse_int(std::string_view(path).substr(open, close - open))) {
        path = fmt::format("{}[{}]{}", name, *i + static_cast<std::int64_t>(by),
                           std::string_view(path).substr(close + 1));
    }
}

// Moves diagnostics of a piece into `into`: positions relative to the piece become positions in
// the file, and `entity[i]` / `world/solid[i]` paths count what the pieces before it hold.
void add_piece_diags(Diagnostics& into, Diagnostics& from, std::uint32_t base,
                     std::uint32_t base_line, std::size_t entity_base, std::size_t world_solids) {
    for (Diagnostic& d : from.items()) {
        if (base != 0) {
            if (d.offset >= 0) d.offset += base;
            if (d.line != 0) d.line += base_line - 1;  // pieces start at a line start
        }
        shift_index(d.path, "entity", entity_base);
        shift_index(d.path, "world/solid", world_solids);
        into.add(std::move(d));
    }
}

// Appends piece `b` (which follows `a` in the file) to `a`. `b_continues_world`: b starts
// inside the world block a left open. False when the pieces cannot be joined into exactly what
// a one-thread read gives (a "first one wins" block such as `cameras` in both); the caller then
// reads the file whole.
bool join(Map& a, Map& b, bool b_continues_world) {
    if (b_continues_world) {
        // The rest of the world: solids (and groups) only; its keys were all in a.
        Entity& w = b.world;
        if (!a.has_world || !b.has_world || !w.keys.empty() || w.has_connections ||
            !w.connections.empty() || w.editor.present || w.hidden || !w.extra_blocks.empty()) {
            return false;
        }
        a.world.solids.insert(a.world.solids.end(), std::make_move_iterator(w.solids.begin()),
                              std::make_move_iterator(w.solids.end()));
        a.world.groups.insert(a.world.groups.end(), std::make_move_iterator(w.groups.begin()),
                              std::make_move_iterator(w.groups.end()));
        b.has_world = false;
    }
    if ((a.has_versioninfo && b.has_versioninfo) || (a.has_visgroups && b.has_visgroups) ||
        (a.viewsettings && b.viewsettings) || (a.has_world && b.has_world) ||
        (a.has_cameras && b.has_cameras) ||
        (a.cordon_style != Map::CordonStyle::none && b.cordon_style != Map::CordonStyle::none)) {
        return false;
    }
    if (b.has_versioninfo) {
        a.has_versioninfo = true;
        a.versioninfo = std::move(b.versioninfo);
    }
    if (b.has_visgroups) {
        a.has_visgroups = true;
        a.visgroups = std::move(b.visgroups);
    }
    if (b.viewsettings) a.viewsettings = std::move(b.viewsettings);
    if (b.has_world) {
        a.has_world = true;
        a.world = std::move(b.world);
    }
    if (b.has_cameras) {
        a.has_cameras = true;
        a.active_camera = b.active_camera;
        a.cameras = std::move(b.cameras);
    }
    if (b.cordon_style != Map::CordonStyle::none) {
        a.cordon_style = b.cordon_style;
        a.cordons_active = b.cordons_active;
        a.cordons = std::move(b.cordons);
    }
    a.entities.insert(a.entities.end(), std::make_move_iterator(b.entities.begin()),
                      std::make_move_iterator(b.entities.end()));
    a.extra_blocks.insert(a.extra_blocks.end(), std::make_move_iterator(b.extra_blocks.begin()),
                          std::make_move_iterator(b.extra_blocks.end()));
    return true;
}

struct Cut {
    std::size_t at;
    bool in_world;  // before a world solid (else before a top-level entity)
};

// The model, or nullopt when a piece did not parse or the pieces do not join exactly. With
// `counts` (a summary), each piece's world solids and entities are counted there and freed as
// soon as the piece is read, and the model returned has none.
std::optional<Map> read_map_threaded(const Blob& source, Diagnostics& diags, const ReadOptions& opt,
                                     std::size_t threads, std::size_t pieces,
                                     Stats* counts = nullptr) {
    const std::string_view text = source.text();
    // Hammer writes the world (usually most of the file) before the entities: cut at world
    // solids before the first top-level entity, at entities after it.
    const std::size_t first_entity = find_cut(text, 0, "entity");
    std::vector<Cut> cuts{{0, false}};
    for (std::size_t i = 1; i < pieces; ++i) {
        const std::size_t from = std::max(cuts.back().at + 1, text.size() * i / pieces);
        Cut c{std::string_view::npos, false};
        if (from < first_entity) c = {find_cut(text, from, "\tsolid", first_entity), true};
        if (c.at == std::string_view::npos) c = {find_cut(text, from, "entity"), false};
        if (c.at == std::string_view::npos) break;
        cuts.push_back(c);
    }
    cuts.push_back({text.size(), false});
    const std::size_t n = cuts.size() - 1;
    std::vector<Piece> parts(n);
    std::vector<Stats> part_counts(counts ? n : 0);
    auto work = [&](std::size_t i) {
        parts[i] = read_piece(source.slice(cuts[i].at, cuts[i + 1].at - cuts[i].at), opt,
                              static_cast<std::uint32_t>(cuts[i].at), cuts[i].in_world,
                              cuts[i + 1].in_world);
        if (parts[i].map) {
            parts[i].entities = parts[i].map->entities.size();
            parts[i].world_solids = parts[i].map->world.solids.size();
        }
        if (counts) count_and_free(parts[i], part_counts[i]);
    };
    {
        // Pieces are handed out in order from a shared counter: a thread that finishes early
        // (or a core that was busy elsewhere) evens out the load.
        std::atomic<std::size_t> next{0};
        std::vector<std::exception_ptr> errors(threads);
        auto loop = [&](std::size_t t) {
            try {
                for (std::size_t i; (i = next.fetch_add(1)) < n;) work(i);
            } catch (...) {
                errors[t] = std::current_exception();
                next = n;
            }
        };
        std::vector<std::jthread> pool;
        for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(loop, t);
        loop(0);
        pool.clear();  // joins
        for (auto& e : errors) {
            if (e) std::rethrow_exception(e);
        }
    }
    // A cut before a world solid is only known to be in the map's world if the text has one
    // world block: a later one is kept whole by the one-thread read.
    std::size_t worlds = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!parts[i].map) return std::nullopt;
        if (cuts[i + 1].in_world && !parts[i].ends_in_world) return std::nullopt;
        worlds += parts[i].worlds;
    }
    if (worlds > 1) return std::nullopt;
    Map map = std::move(parts[0].map).value();
    Diagnostics all = std::move(parts[0].diags);
    // Room for every piece's entities and world solids at once: joined one piece at a time,
    // the vectors would be moved to new memory at each growth.
    std::size_t entities = map.entities.size(), world_solids = map.world.solids.size();
    for (std::size_t i = 1; i < n; ++i) {
        entities += parts[i].map->entities.size();
        if (cuts[i].in_world) world_solids += parts[i].map->world.solids.size();
    }
    map.entities.reserve(entities);
    map.world.solids.reserve(world_solids);
    // Line numbers where pieces start (CR LF, lone CR and LF each end a line), found only when
    // a piece has diagnostics to place.
    std::optional<LineMap> lines;
    std::size_t entities_read = parts[0].entities, world_solids_read = parts[0].world_solids;
    for (std::size_t i = 1; i < n; ++i) {
        std::uint32_t line = 1;
        if (!parts[i].diags.empty()) {
            if (!lines) lines.emplace(text);
            line = lines->locate(cuts[i].at).line;
        }
        const std::size_t world_solids_before = cuts[i].in_world ? world_solids_read : 0;
        if (!join(map, parts[i].map.value(), cuts[i].in_world)) return std::nullopt;
        // The piece's emptied vectors go now rather than all at once when the join ends.
        parts[i].map = Map{};
        add_piece_diags(all, parts[i].diags, static_cast<std::uint32_t>(cuts[i].at), line,
                        entities_read, world_solids_before);
        entities_read += parts[i].entities;
        world_solids_read += parts[i].world_solids;
    }
    diags.add_all(all);
    for (const Stats& c : part_counts) add_counts(*counts, c);
    return map;
}

}  // namespace

Result<Map> read_map(Blob source, Diagnostics& diags, const ReadOptions& opt) {
    const std::size_t cores =
        opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    // Three pieces a thread (at least min_piece_bytes each) keep every thread busy to the end.
    const std::size_t pieces =
        std::min<std::size_t>(opt.pieces ? opt.pieces : 3 * cores,
                              source.size() / std::max<std::size_t>(1, opt.min_piece_bytes));
    const std::size_t threads = std::min(cores, pieces);
    const bool cut = opt.pieces ? pieces >= 2 : threads >= 2;
    if (cut && source.size() < (std::size_t{1} << 31)) {
        if (auto map = read_map_threaded(source, diags, opt, threads, pieces)) {
            return std::move(*map);
        }
        // A piece failed to parse or the pieces do not join exactly: the one-thread read
        // below gives the same model or the error with its true position.
    }
    Piece whole = read_piece(std::move(source), opt, 0, false, false);
    diags.add_all(whole.diags);
    return std::move(whole.map);
}

Result<Summary> summarize(Blob source, Diagnostics& diags, const ReadOptions& opt) {
    // Pieces of 64 KiB (a model of about 250 KiB each): one a thread in memory at a time instead
    // of the whole model, and the memory one frees is the next one's on that thread. Smaller
    // pieces touch less fresh memory: `levelkit info` on a 4 MB map (2026-11-29, 2 threads):
    // 466 page faults with 64 KiB, 1,016 with 256 KiB, 2,300 with 1 MiB; 32 KiB gained no more.
    constexpr std::size_t kPieceBytes = std::size_t{1} << 16;
    const std::size_t cores =
        opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t piece_bytes =
        std::max<std::size_t>(1, std::min(opt.min_piece_bytes, kPieceBytes));
    const std::size_t pieces =
        std::min(opt.pieces ? opt.pieces : std::numeric_limits<std::size_t>::max(),
                 source.size() / piece_bytes);
    Summary out;
    if (pieces >= 2 && source.size() < (std::size_t{1} << 31)) {
        Stats counts;
        if (auto map =
                read_map_threaded(source, diags, opt, std::min(cores, pieces), pieces, &counts)) {
            out.head = std::move(*map);
            out.stats = stats(out.head);  // the world's connections, the visgroups, the cameras
            add_counts(out.stats, counts);
            return out;
        }
    }
    // In one piece, as read_map would read it; counted and freed as a piece of it would be.
    Piece whole = read_piece(std::move(source), opt, 0, false, false);
    diags.add_all(whole.diags);
    Stats counts;
    count_and_free(whole, counts);
    if (!whole.map) return std::move(whole.map).error();
    out.head = std::move(whole.map).value();
    out.stats = stats(out.head);  // the world's connections, the visgroups, the cameras
    add_counts(out.stats, counts);
    return out;
}

Result<Document> Document::read(Blob source, const ReadOptions& opt) {
    Document doc;
    auto tree = kv::Document::parse(std::move(source), opt.kv, &doc.diags_);
    if (!tree) return std::move(tree).error();
    doc.tree_ = std::move(tree).value();
    doc.map_ = map_from_tree(doc.tree_, doc.diags_);
    return doc;
}

Result<Document> Document::read(std::string_view text, const ReadOptions& opt) {
    return read(Blob::copy_of(text), opt);
}

Result<Document> read(Blob source, Diagnostics& warnings, const ReadOptions& opt) {
    auto doc = Document::read(std::move(source), opt);
    if (doc) warnings.add_all(doc->diagnostics());
    return doc;
}

}  // namespace lk::vmf
