// The datamodel API a schema layer stands on: lookup, typed access, coercions, graph walks.
#include <gtest/gtest.h>

#include "levelkit/dmx/document.hpp"

namespace lk::dmx {
namespace {

TEST(DmxDatamodel, TypedAccessAndValveCoercions) {
    Document doc;
    doc.root = doc.add_element("CMapMesh", "mesh");
    Element& e = doc[doc.root];
    e.set("disableShadows", true);      // bool in old maps, int in newer ones
    e.set("snaprotationangle", 15.0f);  // int in vmap 29, float in vmap 30
    e.set("referenceID", std::uint64_t{7});
    e.set("angles", QAngle{1, 2, 3});
    EXPECT_EQ(e.get_as<std::int32_t>("disableShadows"), 1);
    EXPECT_EQ(e.get_as<std::int32_t>("snaprotationangle"), 15);
    EXPECT_EQ(e.get_as<float>("referenceID"), 7.0f);
    EXPECT_EQ(e.get_as<Vector3>("angles"), (Vector3{1, 2, 3}));
    EXPECT_EQ(e.get_as<std::string>("angles"), std::nullopt);
    EXPECT_EQ(e.get<std::int32_t>("disableShadows"), nullptr);  // exact type only
    EXPECT_EQ(e.get_or<std::int32_t>("missing", 4), 4);
    e.set("referenceID", std::uint64_t{1} << 40);
    EXPECT_EQ(e.get_as<std::int32_t>("referenceID"), std::nullopt);  // out of range
    e.set("disableShadows", std::int32_t{0});  // replaces value and type in place
    EXPECT_EQ(e.attributes.front().name.str(), "disableShadows");
    EXPECT_EQ(e.attributes.front().value.type(), Type::int32);
    EXPECT_TRUE(e.remove("angles"));
    EXPECT_FALSE(e.has("angles"));
    EXPECT_FALSE(e.remove("angles"));
}

// A file may repeat an attribute's name; lookups see the first. Removing the name removes them
// all, so that a shadowed value does not take its place (fuzz_dmxmodel: a model's second
// "axisSystem", a transform, became its axis system once the first was removed).
TEST(DmxDatamodel, RemoveTakesEveryAttributeOfTheName) {
    Document doc;
    doc.root = doc.add_element("DmElement", "root");
    Element& e = doc[doc.root];
    e.set("a", std::int32_t{1});
    e.set("b", std::int32_t{2});
    Attribute dup = *e.find("a");
    dup.value = std::int32_t{3};
    e.attributes.push_back(dup);
    EXPECT_EQ(e.get_as<std::int32_t>("a"), 1);
    EXPECT_TRUE(e.remove("a"));
    EXPECT_FALSE(e.has("a"));
    ASSERT_EQ(e.attributes.size(), 1u);
    EXPECT_EQ(e.attributes.front().name.str(), "b");
}

// A float read as an integer type must lie in the type's range: UINT64_MAX as a double is
// 2^64, which the old `<= max` bound let through to an undefined cast.
// set() matches names by their interned symbol; an attribute copied from another document
// carries the other document's symbol and must still be the one set() replaces.
TEST(DmxDatamodel, SetReplacesAnAttributeCopiedFromAnotherDocument) {
    Document a, b;
    a.root = a.add_element("DmElement", "a");
    a[a.root].set("scale", 1.0f);
    b.root = b.add_element("DmElement", "b");
    b[b.root].attributes.push_back(a[a.root].attributes.front());
    b[b.root].set("scale", 2.0f);
    ASSERT_EQ(b[b.root].attributes.size(), 1u);
    EXPECT_EQ(b[b.root].get_as<float>("scale"), 2.0f);
}

TEST(DmxDatamodel, FloatsCoercedToIntegersAreRangeChecked) {
    Document doc;
    doc.root = doc.add_element("DmElement", "e");
    Element& e = doc[doc.root];
    e.set("f", 18446744073709551616.0f);  // 2^64
    EXPECT_EQ(e.get_as<std::uint64_t>("f"), std::nullopt);
    e.set("f", 18446742974197923840.0f);  // the largest float below 2^64
    EXPECT_EQ(e.get_as<std::uint64_t>("f"), std::uint64_t{18446742974197923840ull});
    e.set("f", 2147483648.0f);
    EXPECT_EQ(e.get_as<std::int32_t>("f"), std::nullopt);
    e.set("f", -2147483648.0f);
    EXPECT_EQ(e.get_as<std::int32_t>("f"), INT32_MIN);
    e.set("f", 255.5f);
    EXPECT_EQ(e.get_as<std::uint8_t>("f"), 255);
    e.set("f", 256.0f);
    EXPECT_EQ(e.get_as<std::uint8_t>("f"), std::nullopt);
}

TEST(DmxDatamodel, WalksSharedAndCyclicGraphs) {
    Document doc;
    const ElementRef a = doc.add_element("A");
    const ElementRef b = doc.add_element("B");
    const ElementRef c = doc.add_element("C");
    doc.root = a;
    doc[a].set("kids", std::vector<ElementRef>{b, c, b});
    doc[b].set("back", a);   // cycle
    doc[c].set("other", b);  // shared
    const auto order = doc.reachable(a);
    ASSERT_EQ(order.size(), 3u);
    EXPECT_EQ(order[0], a);
    EXPECT_EQ(order[1], b);
    EXPECT_EQ(order[2], c);
    int refs = 0;
    doc.for_each_ref(doc[a], [&](const Attribute&, ElementRef) { ++refs; });
    EXPECT_EQ(refs, 3);
}

TEST(DmxDatamodel, IdsAndClones) {
    Document doc;
    const Guid g = *Guid::parse("C73E29A3-B55D-40DB-AFDC-61203FABCE54");
    EXPECT_EQ(g.to_string(), "c73e29a3-b55d-40db-afdc-61203fabce54");
    EXPECT_EQ(g.bytes[0], 0xa3);  // Data1 is little-endian
    doc.root = doc.add_element("A", "root", g);
    doc[doc.root].set("x", std::vector<Vector3>{{1, 2, 3}});
    EXPECT_EQ(doc.find_by_id(g), doc.root);
    Document copy = doc.clone();
    EXPECT_EQ(compare(doc, copy), std::nullopt);
    copy[copy.root].set("x", std::vector<Vector3>{{1, 2, 4}});
    ASSERT_TRUE(compare(doc, copy).has_value());
    EXPECT_NE(compare(doc, copy)->find("'x'"), std::string::npos);
}

}  // namespace
}  // namespace lk::dmx
