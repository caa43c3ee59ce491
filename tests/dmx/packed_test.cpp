// Packed subtrees: a document written with its subtrees packed as they were made gives the bytes
// of the whole datamodel written at once.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "levelkit/dmx/io.hpp"
#include "levelkit/dmx/packed.hpp"

namespace lk::dmx {
namespace {

Guid guid(std::uint32_t n) {
    Guid g;
    for (std::size_t i = 0; i < 16; ++i) g.bytes[i] = static_cast<std::uint8_t>(n * 31 + i * 7);
    g.bytes[0] = static_cast<std::uint8_t>(n);
    g.bytes[1] = static_cast<std::uint8_t>(n >> 8);
    return g;
}

Document binary9() {
    Document d;
    d.header.encoding = "binary";
    d.header.encoding_version = 9;
    d.header.format = "test";
    d.header.format_version = 1;
    return d;
}

// A subtree of every kind of attribute a binary 9 table indexes (names, string values, null
// strings, element names) or references (scalar and array, inner and to null), with a large
// array between two indices (longer than a two-byte step) and inner elements under it.
ElementRef add_subtree(Document& d, std::uint32_t k, std::uint32_t& next_id, bool big = false) {
    std::string name = "s";
    name += std::to_string(k);  // (not "s" + ...: GCC 12 warns wrongly about that)
    const ElementRef root = d.add_element("Sub", name, guid(next_id++));
    const ElementRef a = d.add_element("Leaf", "", guid(next_id++));
    const ElementRef b = d.add_element("Leaf", "b", guid(next_id++));
    d[a].add("value", std::int32_t(k));
    d[a].add("label", std::string("leaf ").append(std::to_string(k)));
    d[b].add("value", 2.5f);
    d[b].add("self", a);
    Element& e = d[root];
    e.add("count", std::int32_t(7));
    e.add("text", std::string("hello"));
    e.add("empty", std::string());
    e.attributes.back().null_string = true;
    e.add("points", std::vector<float>(big ? 20000 : 3, 1.5f));
    e.add("after", std::string("unique ").append(std::to_string(k)));
    e.add("names", std::vector<std::string>{"x", "y"});
    e.add("leaves", std::vector<ElementRef>{a, b, ElementRef::null()});
    e.add("first", a);
    e.add("none", ElementRef::null());
    return root;
}

struct Built {
    Document doc;
    PackedSubtrees packs;
};

// The same document whole (`packed` false) or with each subtree packed as it is made (by the
// packing thread when `on_thread`, in trees from take_tree(); `move_at`: the packs are moved
// to another PackedSubtrees before that subtree, the thread still busy).
Built build(bool packed, bool on_thread = false, std::uint32_t move_at = 99) {
    Built out{binary9(), {}};
    Document& d = out.doc;
    std::uint32_t next_id = 1;
    d.root = d.add_element("Root", "root", guid(next_id++));
    d[d.root].add("title", std::string("hello"));
    std::vector<ElementRef> kids;
    Document tree = binary9();
    out.packs.pack_on_thread(on_thread);
    for (std::uint32_t k = 0; k < 4; ++k) {
        if (k == move_at) {
            PackedSubtrees moved = std::move(out.packs);
            out.packs = std::move(moved);
        }
        if (on_thread) {
            std::unique_ptr<Document> t = out.packs.take_tree();
            t->clear_elements();
            t->header = d.header;
            t->root = add_subtree(*t, k, next_id, k == 2);
            kids.push_back(out.packs.add(d, std::move(t)));
        } else if (packed) {
            tree.clear_elements();
            tree.header = d.header;
            tree.root = add_subtree(tree, k, next_id, k == 2);
            kids.push_back(out.packs.add(d, tree));
        } else {
            kids.push_back(add_subtree(d, k, next_id, k == 2));
        }
    }
    d[d.root].add("kids", kids);
    // References to a subtree's root from elsewhere are fine (here: before the array in
    // Valve's order, which visits attributes last to first).
    d[d.root].add("favourite", kids[2]);
    const ElementRef tail = d.add_element("Tail", "", guid(next_id++));
    d[tail].add("note", std::string("unique 1"));
    d[d.root].add("tail", tail);
    return out;
}

TEST(PackedSubtrees, WriteTheBytesOfTheWholeDatamodel) {
    const Built whole = build(false);
    const Built packed = build(true);
    EXPECT_EQ(packed.packs.size(), 4u);
    EXPECT_EQ(packed.doc.size(), 6u);  // root, four placeholders, tail
    auto a = write(whole.doc);
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    auto b = write(packed.doc, packed.packs);
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    EXPECT_TRUE(*a == *b);
    // In pieces, as the CLI writes it.
    struct Sink final : ByteSink {
        Bytes got;
        Result<void> write(ByteSpan b) override {
            got.insert(got.end(), b.begin(), b.end());
            return success();
        }
    } sink;
    ASSERT_TRUE(write_to(packed.doc, packed.packs, sink).ok());
    EXPECT_TRUE(sink.got == *a);
    auto back = unpack(packed.doc, packed.packs);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(compare_graphs(whole.doc, *back), std::nullopt);
}

TEST(PackedSubtrees, OnAThreadTheSameBytes) {
    const Built whole = build(false);
    auto a = write(whole.doc);
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    for (std::uint32_t move_at : {99u, 1u, 3u}) {
        const Built packed = build(true, true, move_at);
        auto b = write(packed.doc, packed.packs);
        ASSERT_TRUE(b.ok()) << b.error().to_string();
        EXPECT_TRUE(*a == *b) << move_at;
        EXPECT_EQ(packed.packs.size(), 4u);
        auto back = unpack(packed.doc, packed.packs);
        ASSERT_TRUE(back.ok()) << back.error().to_string();
        EXPECT_EQ(compare_graphs(whole.doc, *back), std::nullopt);
    }
    // Trees taken and not yet handed back are new ones, never a wait for the thread.
    {
        PackedSubtrees packs;
        packs.pack_on_thread(true);
        std::vector<std::unique_ptr<Document>> held;
        for (int i = 0; i < 20; ++i) held.push_back(packs.take_tree());
        EXPECT_EQ(held.size(), 20u);
    }
    // A subtree that cannot be packed is the error writing returns, as without the thread.
    Built b = build(true, true);
    std::unique_ptr<Document> t = b.packs.take_tree();
    t->clear_elements();
    t->header = b.doc.header;
    t->root = t->add_element("Sub", "", guid(950));
    (*t)[t->root].add("bad", std::string("a\0b", 3));
    const ElementRef placeholder = b.packs.add(b.doc, std::move(t));
    b.doc[b.doc.root].add("extra", placeholder);
    auto w = write(b.doc, b.packs);
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.error().code, "dmx.string-not-representable");
}

// Trees made in documents of their own: each table numbers its symbols from 0, so the same
// symbol id names another string in each (the pool's symbol cache must not mix them up).
TEST(PackedSubtrees, TreesOfDifferentSymbolTables) {
    auto make = [](bool packed) {
        Built out{binary9(), {}};
        Document& d = out.doc;
        std::uint32_t next_id = 1;
        d.root = d.add_element("Root", "root", guid(next_id++));
        std::vector<ElementRef> kids;
        for (std::uint32_t k = 0; k < 3; ++k) {
            Document tree = binary9();
            Document& into = packed ? tree : d;
            const std::string cls = k == 1 ? "Beta" : "Alpha";
            const ElementRef r = into.add_element(cls, "t", guid(next_id++));
            into[r].add(k == 1 ? "y" : "x", std::int32_t(k));
            into[r].add(k == 1 ? "x" : "y", std::string(cls));
            if (packed) {
                tree.root = r;
                kids.push_back(out.packs.add(d, tree));
            } else {
                kids.push_back(r);
            }
        }
        d[d.root].add("kids", kids);
        return out;
    };
    const Built whole = make(false), packed = make(true);
    auto a = write(whole.doc);
    auto b = write(packed.doc, packed.packs);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(*a == *b);
    auto back = unpack(packed.doc, packed.packs);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(compare_graphs(whole.doc, *back), std::nullopt);
}

// The error writing gives once `make` has filled a tree that is packed into the document.
template <class F>
std::string error_with_tree(F&& make) {
    Built b = build(true);
    Document tree = binary9();
    make(tree);
    const ElementRef placeholder = b.packs.add(b.doc, tree);  // (may move the elements)
    b.doc[b.doc.root].add("extra", placeholder);
    auto w = write(b.doc, b.packs);
    return w.ok() ? std::string("(written)") : w.error().code;
}

TEST(PackedSubtrees, SubtreesThatCannotBePackedAreErrorsWhenWritten) {
    EXPECT_EQ(error_with_tree([](Document& tree) {
                  tree.root = tree.add_element("Sub", "", guid(900));
                  tree.add_element("Stray", "", guid(901));  // not reachable from the root
              }),
              "dmx.pack-not-a-tree");
    EXPECT_EQ(error_with_tree([](Document& tree) {
                  tree.root = tree.add_element("Sub", "");  // no GUID
              }),
              "dmx.pack-without-id");
    EXPECT_EQ(error_with_tree([](Document& tree) {
                  tree.root = tree.add_element("Sub", "", guid(902));
                  tree[tree.root].add("bad", std::vector<std::string>{std::string("a\0b", 3)});
              }),
              "dmx.string-not-representable");
    // A document whose layout the packs do not fit.
    auto error_with_header = [](auto&& change) {
        Built b = build(true);
        change(b.doc);
        auto w = write(b.doc, b.packs);
        return w.ok() ? std::string("(written)") : w.error().code;
    };
    EXPECT_EQ(error_with_header([](Document& d) {
                  d.binary.element_order = BinaryLayout::ElementOrder::breadth_first;
              }),
              "dmx.unsupported");
    EXPECT_EQ(error_with_header([](Document& d) { d.header.encoding_version = 5; }),
              "dmx.unsupported");  // packed for 9
    EXPECT_EQ(error_with_header([](Document& d) {
                  d.header.encoding = "keyvalues2";
                  d.header.encoding_version = 4;
              }),
              "dmx.unsupported");
}

TEST(PackedSubtrees, VersionsWithoutFourByteIndicesAreNotPacked) {
    Document d = binary9();
    d.header.encoding_version = 3;
    d.root = d.add_element("Root", "", guid(1));
    PackedSubtrees packs;
    Document tree = binary9();
    tree.header.encoding_version = 3;
    tree.root = tree.add_element("Sub", "", guid(2));
    const ElementRef placeholder = packs.add(d, tree);  // (may move the elements)
    d[d.root].add("sub", placeholder);
    ASSERT_TRUE(packs.error().has_value());
    EXPECT_EQ(packs.error()->code, "dmx.unsupported");
}

// A subtree described without a datamodel (PackSource): the elements of add_subtree but the
// null string, in another order than Valve's (the root first), with a dynamic name and text.
class Described final : public PackSource {
public:
    Described(std::uint32_t k, std::uint32_t& next_id, bool big)
        : name_("s" + std::to_string(k)),
          label_("leaf " + std::to_string(k)),
          after_("unique " + std::to_string(k)),
          points_(big ? 20000 : 3, 1.5f) {
        const Guid root = guid(next_id++), a = guid(next_id++), b = guid(next_id++);
        attrs_.reserve(16);
        attrs_.push_back(PackAttr("value", 2.5f));
        attrs_.push_back(PackAttr::element("self", 2));
        const std::span<const PackAttr> b_attrs(attrs_.data(), 2);
        attrs_.push_back(PackAttr("value", std::int32_t(k)));
        attrs_.push_back(PackAttr::text("label", label_));
        const std::span<const PackAttr> a_attrs(attrs_.data() + 2, 2);
        attrs_.push_back(PackAttr("count", std::int32_t(7)));
        attrs_.push_back(PackAttr::literal_text("text", "hello"));
        attrs_.push_back(PackAttr("points", points_));
        attrs_.push_back(PackAttr::named_text(dynamic_, after_));
        attrs_.push_back(PackAttr("names", std::span<const std::string>(names_)));
        attrs_.push_back(PackAttr::elements("leaves", leaves_));
        attrs_.push_back(PackAttr::element("first", 2));
        attrs_.push_back(PackAttr::element("none", -1));
        attrs_.push_back(PackAttr("colour", Color{1, 2, 3, 4}));
        attrs_.push_back(PackAttr("big", std::uint64_t{0x0102030405060708ull}));
        attrs_.push_back(PackAttr("flag", true));
        elements_.push_back({"Sub", name_, false, root, {attrs_.data() + 4, 11}});
        elements_.push_back({"Leaf", "b", true, b, b_attrs});
        elements_.push_back({"Leaf", "", true, a, a_attrs});
    }
    std::span<const PackElement> elements() const override { return elements_; }

private:
    std::string name_, label_, after_, dynamic_ = "after";
    std::vector<float> points_;
    std::vector<std::string> names_{"x", "y"};
    std::vector<std::int32_t> leaves_{2, 1, -1};
    std::vector<PackAttr> attrs_;
    std::vector<PackElement> elements_;
};

// The document with its subtrees made from their descriptions (`packed` false), or packed from
// them (by the packing thread when `on_thread`).
Built build_described(bool packed, bool on_thread) {
    Built out{binary9(), {}};
    Document& d = out.doc;
    std::uint32_t next_id = 1;
    d.root = d.add_element("Root", "root", guid(next_id++));
    d[d.root].add("title", std::string("hello"));
    out.packs.pack_on_thread(on_thread);
    std::vector<ElementRef> kids;
    for (std::uint32_t k = 0; k < 12; ++k) {
        auto s = std::make_unique<Described>(k, next_id, k == 2);
        kids.push_back(packed ? out.packs.add(d, std::move(s)) : make_elements(d, s->elements()));
    }
    d[d.root].add("kids", kids);
    d[d.root].add("favourite", kids[2]);
    return out;
}

TEST(PackedSubtrees, DescribedSubtreesWriteTheBytesOfTheirElements) {
    const Built whole = build_described(false, false);
    auto a = write(whole.doc);
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    for (bool on_thread : {false, true}) {
        const Built packed = build_described(true, on_thread);
        EXPECT_EQ(packed.packs.size(), 12u);
        auto b = write(packed.doc, packed.packs);
        ASSERT_TRUE(b.ok()) << b.error().to_string();
        EXPECT_TRUE(*a == *b) << on_thread;
        auto back = unpack(packed.doc, packed.packs);
        ASSERT_TRUE(back.ok()) << back.error().to_string();
        EXPECT_EQ(compare_graphs(whole.doc, *back), std::nullopt);
    }
    // Made from its description, a subtree is the datamodel written by hand.
    Document by_hand = binary9();
    std::uint32_t next_id = 1;
    const ElementRef root = by_hand.add_element("Sub", "s0", guid(next_id++));
    const ElementRef la = by_hand.add_element("Leaf", "", guid(next_id++));
    const ElementRef lb = by_hand.add_element("Leaf", "b", guid(next_id++));
    by_hand[la].add("value", std::int32_t(0));
    by_hand[la].add("label", std::string("leaf 0"));
    by_hand[lb].add("value", 2.5f);
    by_hand[lb].add("self", la);
    Element& e = by_hand[root];
    e.add("count", std::int32_t(7));
    e.add("text", std::string("hello"));
    e.add("points", std::vector<float>(3, 1.5f));
    e.add("after", std::string("unique 0"));
    e.add("names", std::vector<std::string>{"x", "y"});
    e.add("leaves", std::vector<ElementRef>{la, lb, ElementRef::null()});
    e.add("first", la);
    e.add("none", ElementRef::null());
    e.add("colour", Color{1, 2, 3, 4});
    e.add("big", std::uint64_t{0x0102030405060708ull});
    e.add("flag", true);
    by_hand.root = root;
    Document made = binary9();
    next_id = 1;
    const Described s(0, next_id, false);
    made.root = make_elements(made, s.elements());
    EXPECT_EQ(compare_graphs(by_hand, made), std::nullopt);
    auto x = write(by_hand), y = write(made);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_TRUE(*x == *y);
}

// What cannot be packed from a description is the error writing returns, as for a tree.
TEST(PackedSubtrees, DescribedSubtreesThatCannotBePacked) {
    struct Bad final : PackSource {
        std::vector<std::string> texts{std::string("a\0b", 3)};
        std::vector<PackAttr> attrs;
        std::vector<PackElement> els;
        std::span<const PackElement> elements() const override { return els; }
    };
    auto error_of = [](auto&& fill, bool on_thread) {
        Built b = build(true);
        b.packs.pack_on_thread(on_thread);
        auto s = std::make_unique<Bad>();
        fill(*s);
        const ElementRef placeholder = b.packs.add(b.doc, std::move(s));
        b.doc[b.doc.root].add("extra", placeholder);
        auto w = write(b.doc, b.packs);
        return w.ok() ? std::string("(written)") : w.error().code;
    };
    for (bool on_thread : {false, true}) {
        EXPECT_EQ(error_of(
                      [](Bad& s) {
                          s.attrs.push_back(PackAttr("bad", std::span<const std::string>(s.texts)));
                          s.els.push_back({"Sub", "", true, guid(900), s.attrs});
                      },
                      on_thread),
                  "dmx.string-not-representable");
        EXPECT_EQ(error_of(
                      [](Bad& s) {
                          s.els.push_back({"Sub", "", true, guid(901), {}});
                          s.els.push_back({"Stray", "", true, guid(902), {}});
                      },
                      on_thread),
                  "dmx.pack-not-a-tree");
        EXPECT_EQ(error_of(
                      [](Bad& s) {
                          s.els.push_back({"Sub", "", true, guid(903), {}});
                      },
                      on_thread),
                  "(written)");
    }
}

}  // namespace
}  // namespace lk::dmx
