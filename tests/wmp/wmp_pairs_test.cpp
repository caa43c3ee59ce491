// WED's own `$$M` files next to the levels they were compiled from: our group resolution must
// reproduce them (same blocks, faces and entities; vertices within 0.01 quants; texture vectors
// within 1e-4). Prints one line of figures per pair; every pair must match except the few in
// kKnown, whose `$$M` is not what WED makes of the WMP as it is in the corpus.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/file.hpp"
#include "levelkit/wmp/resolve.hpp"
#include "levelkit/wmp/wmp.hpp"
#include "support/corpus.hpp"

namespace lk::wmp {
namespace {

struct PairFigures {
    std::size_t blocks[2]{}, faces[2]{}, entities[2]{};
    double vertex_dev = 0;  // quants
    double axis_dev = 0;    // texture axis components
    double offset_dev = 0;  // texture offsets, relative to max(1, |offset|)
    std::size_t faces_over = 0, offsets_over = 0;
    double entity_pos_dev = 0;
    double entity_rot_dev = 0;  // max |R_ours - R_wed| element
    std::size_t rot_over = 0, field_mismatches = 0;
    // Faces (of WED's) and entities that differ in any way, counting missing ones.
    std::size_t bad_faces = 0, bad_entities = 0;
    std::string first_problem;
};

void note(PairFigures& f, std::string s) {
    if (f.first_problem.empty()) f.first_problem = std::move(s);
}

double mat_dev(const Mat3& a, const Mat3& b) {
    double d = 0;
    for (int i = 0; i < 9; ++i) d = std::max(d, std::abs(a.m[i] - b.m[i]));
    return d;
}

const Object* owner(const Level& lv, Kind k, std::size_t i) {
    for (const Object& o : lv.objects) {
        if (o.kind == k && o.payload == static_cast<std::int32_t>(i)) return &o;
    }
    return nullptr;
}

PairFigures compare(const Level& ours, const Level& wed) {
    PairFigures f;
    f.blocks[0] = ours.blocks.size();
    f.blocks[1] = wed.blocks.size();
    f.faces[0] = ours.face_count();
    f.faces[1] = wed.face_count();
    f.entities[0] = ours.entity_count();
    f.entities[1] = wed.entity_count();
    if (f.blocks[0] != f.blocks[1]) note(f, "block count");
    for (std::size_t bi = ours.blocks.size(); bi < wed.blocks.size(); ++bi) {
        f.bad_faces += wed.blocks[bi].faces.size();
    }
    const std::size_t nb = std::min(f.blocks[0], f.blocks[1]);
    for (std::size_t bi = 0; bi < nb; ++bi) {
        const Block& a = ours.blocks[bi];
        const Block& b = wed.blocks[bi];
        if (a.vertices.size() != b.vertices.size() || a.faces.size() != b.faces.size()) {
            note(f, "block " + std::to_string(bi) + " shape");
            f.bad_faces += b.faces.size();
            continue;
        }
        bool block_bad = false;
        if (a.flags != b.flags || a.index != b.index || a.function != b.function) {
            ++f.field_mismatches;
            block_bad = true;
            note(f, "block " + std::to_string(bi) + " trailer");
        }
        for (std::size_t v = 0; v < a.vertices.size(); ++v) {
            const Vec3 d = a.vertices[v] - b.vertices[v];
            const double dev = std::max({std::abs(d.x), std::abs(d.y), std::abs(d.z)});
            f.vertex_dev = std::max(f.vertex_dev, dev);
            block_bad = block_bad || dev > 0.01;
        }
        for (std::size_t fi = 0; fi < a.faces.size(); ++fi) {
            const Face& x = a.faces[fi];
            const Face& y = b.faces[fi];
            bool face_bad = block_bad;
            if (x.indices != y.indices || x.texture != y.texture || x.flags != y.flags ||
                x.ambient != y.ambient || std::abs(x.albedo - y.albedo) > 1e-4 ||
                x.uvs.size() != y.uvs.size() || x.t1.has_value() != y.t1.has_value()) {
                ++f.field_mismatches;
                face_bad = true;
                note(f, "block " + std::to_string(bi) + " face " + std::to_string(fi) + " fields");
            }
            if (!x.t1 || !y.t1) {
                f.bad_faces += face_bad;
                continue;
            }
            double ad = 0, od = 0;
            for (const auto& [p, q] : {std::pair{*x.t1, *y.t1}, std::pair{*x.t2, *y.t2}}) {
                const Vec3 d = p.axis - q.axis;
                ad = std::max({ad, std::abs(d.x), std::abs(d.y), std::abs(d.z)});
                od =
                    std::max(od, std::abs(p.offset - q.offset) / std::max(1.0, std::abs(q.offset)));
            }
            f.axis_dev = std::max(f.axis_dev, ad);
            f.offset_dev = std::max(f.offset_dev, od);
            if (ad > 1e-4) {
                ++f.faces_over;
                face_bad = true;
                note(f, "block " + std::to_string(bi) + " face " + std::to_string(fi) + " axes");
            }
            if (od > 1e-4) {
                ++f.offsets_over;
                face_bad = true;
                note(f, "block " + std::to_string(bi) + " face " + std::to_string(fi) + " offsets");
            }
            f.bad_faces += face_bad;
        }
    }
    if (f.entities[0] != f.entities[1]) note(f, "entity count");
    // Entities are compared in order within each kind; a kind whose counts differ counts all
    // of WED's entities of that kind as bad.
    std::vector<std::uint8_t> bad_model(std::min(ours.models.size(), wed.models.size()), 0);
    std::vector<std::uint8_t> bad_light(std::min(ours.lights.size(), wed.lights.size()), 0);
    std::vector<std::uint8_t> bad_path(std::min(ours.paths.size(), wed.paths.size()), 0);
    std::vector<std::uint8_t> bad_other;
    auto entities = [&](Kind k, const std::string& name, auto member,
                        std::vector<std::uint8_t>& bad) {
        const auto& va = ours.*member;
        const auto& vb = wed.*member;
        if (va.size() != vb.size()) {
            f.bad_entities += std::max(va.size(), vb.size());
            bad.clear();
            return;
        }
        bad.resize(va.size(), 0);
        for (std::size_t i = 0; i < va.size(); ++i) {
            const Object* oa = owner(ours, k, i);
            const Object* ob = owner(wed, k, i);
            if (!oa || !ob) continue;
            const Vec3 d = oa->transform.position - ob->transform.position;
            const double pd = std::max({std::abs(d.x), std::abs(d.y), std::abs(d.z)});
            f.entity_pos_dev = std::max(f.entity_pos_dev, pd);
            const double rd =
                mat_dev(mm_rotation(oa->transform.angles), mm_rotation(ob->transform.angles));
            f.entity_rot_dev = std::max(f.entity_rot_dev, rd);
            if (rd > 1e-3) {
                ++f.rot_over;
                note(f, name + " " + std::to_string(i) + " rotation");
            }
            if (pd > 0.01) note(f, name + " " + std::to_string(i) + " position");
            if (rd > 1e-3 || pd > 0.01) bad[i] = 1;
        }
    };
    entities(Kind::model, "model", &Level::models, bad_model);
    entities(Kind::light, "light", &Level::lights, bad_light);
    entities(Kind::start, "start", &Level::starts, bad_other);
    for (std::uint8_t b : bad_other) f.bad_entities += b;
    entities(Kind::sound, "sound", &Level::sounds, bad_other);
    for (std::uint8_t b : bad_other) f.bad_entities += b;
    entities(Kind::path, "path", &Level::paths, bad_path);
    if (ours.regions.size() != wed.regions.size()) {
        f.bad_entities += std::max(ours.regions.size(), wed.regions.size());
    }
    for (std::size_t i = 0; i < std::min(ours.models.size(), wed.models.size()); ++i) {
        const Model& a = ours.models[i];
        const Model& b = wed.models[i];
        bool skills_differ = a.skills.size() != b.skills.size();
        for (std::size_t k = 0; !skills_differ && k < a.skills.size(); ++k) {
            // WED keeps skills as floats and prints them rounded.
            skills_differ =
                std::abs(a.skills[k] - b.skills[k]) > 1e-6 * std::max(1.0, std::abs(b.skills[k]));
        }
        if (a.file != b.file || a.name != b.name || a.action != b.action || skills_differ ||
            a.flags != b.flags || a.ambient != b.ambient || a.number != b.number ||
            (a.text_extended && (a.albedo != b.albedo || a.mm_path_index != b.mm_path_index ||
                                 a.material != b.material))) {
            ++f.field_mismatches;
            if (i < bad_model.size()) bad_model[i] = 1;
            note(f, "model " + std::to_string(i) + " (" + b.name + ") fields");
        }
    }
    for (std::size_t i = 0; i < std::min(ours.lights.size(), wed.lights.size()); ++i) {
        const Light& a = ours.lights[i];
        const Light& b = wed.lights[i];
        if (std::abs(a.color.r - b.color.r) > 1e-4 || std::abs(a.color.g - b.color.g) > 1e-4 ||
            std::abs(a.color.b - b.color.b) > 1e-4 || a.range != b.range || a.flags != b.flags) {
            ++f.field_mismatches;
            if (i < bad_light.size()) bad_light[i] = 1;
            note(f, "light " + std::to_string(i) + " fields");
        }
    }
    for (std::size_t i = 0; i < std::min(ours.paths.size(), wed.paths.size()); ++i) {
        const Path& a = ours.paths[i];
        const Path& b = wed.paths[i];
        bool bad = a.name != b.name || a.nodes.size() != b.nodes.size() ||
                   a.edges.size() != b.edges.size() || a.mm_value_count != b.mm_value_count;
        for (std::size_t n = 0; !bad && n < a.nodes.size(); ++n) {
            bad = distance(a.nodes[n], b.nodes[n]) > 0.01;
        }
        for (std::size_t e = 0; !bad && e < a.edges.size(); ++e) {
            bad = a.edges[e].from != b.edges[e].from || a.edges[e].to != b.edges[e].to ||
                  std::abs(a.edges[e].values[0] - b.edges[e].values[0]) > 0.01;
        }
        if (bad) {
            ++f.field_mismatches;
            if (i < bad_path.size()) bad_path[i] = 1;
            note(f, "path " + std::to_string(i) + " fields");
        }
    }
    for (const auto* v : {&bad_model, &bad_light, &bad_path}) {
        for (std::uint8_t b : *v) f.bad_entities += b;
    }
    return f;
}

// Pairs whose `$$M` WED wrote from a different state of the level (or with textures missing)
// than the WMP in the corpus, with the most faces and entities that may differ.
struct Known {
    std::string_view stem;
    std::size_t max_bad_faces, max_bad_entities;
    std::string_view why;
};
constexpr Known kKnown[] = {
    {"Acknex-Ackmania__resources__old__PrinceOfLotteria__levels__level01_v7", 36, 6,
     "edited after the compile: 6 models moved by 3..36 quants, and 36 triangles of one "
     "UV-mapped block (the rest of it agrees) had other texture offsets"},
    {"VoroneTZ-Gex4__l2", 0, 7,
     "edited after the compile: the $$M has an apple_tree.mdl that is nowhere in the WMP "
     "(whose header counts 7 entities)"},
    {"VoroneTZ-Satmond__house", 37, 0,
     "textures missing at compile time: every face (37) using greenplain, shinglewall, "
     "stones1 or wooddark became #default with default axes, the others agree"},
    {"VoroneTZ-Satmond__zone1", 82, 360,
     "the WMP was saved on 10.01.2024, after the $$M (13.12.2023): its 14 blocks are gone "
     "(header: 0 blocks) and 360 models' albedo went from 0 to 50"},
};
const Known* known(std::string_view stem) {
    for (const Known& k : kKnown) {
        if (k.stem == stem) return &k;
    }
    return nullptr;
}

TEST(WmpPairs, ResolutionMatchesWedsOwnMM) {
    LK_REQUIRE_CORPUS();
    const auto mms = lk::test::corpus_files("wmp", {".$$m"});
    int pairs = 0, exact = 0;
    for (const auto& mm_path : mms) {
        std::filesystem::path wmp_path = mm_path;
        wmp_path.replace_extension(".wmp");
        if (!std::filesystem::exists(wmp_path)) continue;
        ++pairs;
        auto wed_blob = Blob::map_file(mm_path);
        auto src_blob = Blob::map_file(wmp_path);
        ASSERT_TRUE(wed_blob && src_blob);
        auto wed = read(wed_blob.value());
        auto src = read(src_blob.value());
        ASSERT_TRUE(wed.ok()) << wed.error().to_string();
        ASSERT_TRUE(src.ok()) << src.error().to_string();
        auto ours = resolve(src->level);
        ASSERT_TRUE(ours.ok()) << ours.error().to_string();
        const PairFigures f = compare(ours.value(), wed->level);
        const bool ok = f.blocks[0] == f.blocks[1] && f.faces[0] == f.faces[1] &&
                        f.entities[0] == f.entities[1] && f.vertex_dev <= 0.01 &&
                        f.faces_over == 0 && f.offsets_over == 0 && f.rot_over == 0 &&
                        f.field_mismatches == 0 && f.bad_faces == 0 && f.bad_entities == 0 &&
                        f.first_problem.empty();
        exact += ok;
        const std::string stem = mm_path.stem().string();
        if (const Known* k = known(stem)) {
            EXPECT_LE(f.bad_faces, k->max_bad_faces) << stem << ": " << f.first_problem;
            EXPECT_LE(f.bad_entities, k->max_bad_entities) << stem << ": " << f.first_problem;
            if (ok) std::printf("  %s matches now: drop it from kKnown\n", stem.c_str());
        } else {
            EXPECT_TRUE(ok) << stem << ": " << f.first_problem;
        }
        std::printf(
            "  pair %-58.58s blocks %4zu/%-4zu faces %5zu/%-5zu ents %4zu/%-4zu vdev %.2g "
            "axisdev %.2g offdev %.2g (over %zu) epos %.2g erot %.2g (over %zu) fieldmis %zu "
            "differ: %zu faces %zu ents %s%s\n",
            stem.c_str(), f.blocks[0], f.blocks[1], f.faces[0], f.faces[1], f.entities[0],
            f.entities[1], f.vertex_dev, f.axis_dev, f.offset_dev, f.offsets_over, f.entity_pos_dev,
            f.entity_rot_dev, f.rot_over, f.field_mismatches, f.bad_faces, f.bad_entities,
            ok ? "MATCH" : "DIFF: ", f.first_problem.c_str());
    }
    std::printf("  pairs: %d, matching WED's $$M: %d (known to differ: %zu)\n", pairs, exact,
                std::size(kKnown));
    EXPECT_GT(pairs, 0);
}

}  // namespace
}  // namespace lk::wmp
