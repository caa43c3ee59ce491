// Corpus checks for static and detail props: layouts resolve, values are plausible, and
// re-encoding reproduces the game lumps exactly.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "levelkit/bsp/bsp.hpp"
#include "levelkit/bsp/lumps.hpp"
#include "levelkit/bsp/props.hpp"
#include "support/corpus.hpp"

using namespace lk;
using namespace lk::bsp;

TEST(BspPropsCorpus, StaticPropsArePlausibleAndReencodeExactly) {
    LK_REQUIRE_CORPUS();
    std::size_t maps_with_props = 0, props_total = 0, detail_total = 0;
    std::map<std::string, int> layouts;
    for (const auto& p : lk::test::corpus_files("bsp", {".bsp"})) {
        SCOPED_TRACE(p.string());
        auto blob = Blob::map_file(p);
        ASSERT_TRUE(blob);
        auto r = Bsp::read(*blob);
        ASSERT_TRUE(r);
        const Bsp& b = *r;
        auto sp = static_props(b);
        ASSERT_TRUE(sp) << sp.error().to_string();
        if (const GameLump* g = b.find_game_lump(kStaticPropsId)) {
            auto bytes = encode(b, *sp);
            ASSERT_TRUE(bytes) << bytes.error().to_string();
            EXPECT_TRUE(
                std::equal(g->bytes().begin(), g->bytes().end(), bytes->begin(), bytes->end()));
            ++layouts[fmt::format("v{} {}", sp->version, describe(sp->layout))];
        }
        if (!sp->props.empty()) {
            ++maps_with_props;
            props_total += sp->props.size();
            auto lf = leafs(b);
            auto mdl = models(b);
            ASSERT_TRUE(lf && mdl && !mdl->empty());
            const dmodel_t& world = (*mdl)[0];
            for (std::size_t i = 0; i < sp->props.size(); ++i) {
                SCOPED_TRACE(fmt::format("prop {}", i));
                const StaticPropLump_t& prop = sp->props[i];
                ASSERT_LT(prop.m_PropType, sp->dict.size());
                const std::string_view name = sp->model_name(prop.m_PropType);
                EXPECT_TRUE(name.size() > 4 && lk::iends_with(name, ".mdl")) << name;
                EXPECT_LE(prop.m_FirstLeaf + prop.m_LeafCount, sp->leaves.size());
                for (std::size_t k = prop.m_FirstLeaf;
                     k < std::size_t{prop.m_FirstLeaf} + prop.m_LeafCount && k < sp->leaves.size();
                     ++k) {
                    EXPECT_LT(sp->leaves[k], lf->size());
                }
                constexpr float kSlack = 1.0f;
                EXPECT_GE(prop.m_Origin.x, world.mins.x - kSlack);
                EXPECT_GE(prop.m_Origin.y, world.mins.y - kSlack);
                EXPECT_GE(prop.m_Origin.z, world.mins.z - kSlack);
                EXPECT_LE(prop.m_Origin.x, world.maxs.x + kSlack);
                EXPECT_LE(prop.m_Origin.y, world.maxs.y + kSlack);
                EXPECT_LE(prop.m_Origin.z, world.maxs.z + kSlack);
            }
        }
        auto dp = detail_props(b);
        ASSERT_TRUE(dp) << dp.error().to_string();
        if (const GameLump* g = b.find_game_lump(kDetailPropsId)) {
            auto bytes = encode(b, *dp);
            ASSERT_TRUE(bytes);
            EXPECT_TRUE(
                std::equal(g->bytes().begin(), g->bytes().end(), bytes->begin(), bytes->end()));
            detail_total += dp->props.size();
        }
    }
    fmt::print("static props: {} maps with props, {} props, {} detail props; layouts:",
               maps_with_props, props_total, detail_total);
    for (const auto& [k, n] : layouts) fmt::print(" [{}]x{}", k, n);
    fmt::print("\n");
}
