// WED's own `$$M` files next to the levels they were compiled from: our group resolution must
// reproduce them (same blocks, faces and entities; vertices within 0.01 quants; texture vectors
// within 1e-4). Prints one line of figures per pair.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

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
    const std::size_t nb = std::min(f.blocks[0], f.blocks[1]);
    for (std::size_t bi = 0; bi < nb; ++bi) {
        const Block& a = ours.blocks[bi];
        const Block& b = wed.blocks[bi];
        if (a.vertices.size() != b.vertices.size() || a.faces.size() != b.faces.size()) {
            note(f, "block " + std::to_string(bi) + " shape");
            continue;
        }
        if (a.flags != b.flags || a.index != b.index || a.function != b.function) {
            ++f.field_mismatches;
            note(f, "block " + std::to_string(bi) + " trailer");
        }
        for (std::size_t v = 0; v < a.vertices.size(); ++v) {
            const Vec3 d = a.vertices[v] - b.vertices[v];
            f.vertex_dev = std::max({f.vertex_dev, std::abs(d.x), std::abs(d.y), std::abs(d.z)});
        }
        for (std::size_t fi = 0; fi < a.faces.size(); ++fi) {
            const Face& x = a.faces[fi];
            const Face& y = b.faces[fi];
            if (x.indices != y.indices || x.texture != y.texture || x.flags != y.flags ||
                x.ambient != y.ambient || std::abs(x.albedo - y.albedo) > 1e-4 ||
                x.uvs.size() != y.uvs.size()) {
                ++f.field_mismatches;
                note(f, "block " + std::to_string(bi) + " face " + std::to_string(fi) + " fields");
            }
            if (!x.t1 || !y.t1) continue;
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
                note(f, "block " + std::to_string(bi) + " face " + std::to_string(fi) + " axes");
            }
            if (od > 1e-4) ++f.offsets_over;
        }
    }
    if (f.entities[0] != f.entities[1]) note(f, "entity count");
    auto entities = [&](Kind k, auto member) {
        const auto& va = ours.*member;
        const auto& vb = wed.*member;
        if (va.size() != vb.size()) return;
        for (std::size_t i = 0; i < va.size(); ++i) {
            const Object* oa = owner(ours, k, i);
            const Object* ob = owner(wed, k, i);
            if (!oa || !ob) continue;
            const Vec3 d = oa->transform.position - ob->transform.position;
            f.entity_pos_dev =
                std::max({f.entity_pos_dev, std::abs(d.x), std::abs(d.y), std::abs(d.z)});
            const double rd =
                mat_dev(mm_rotation(oa->transform.angles), mm_rotation(ob->transform.angles));
            f.entity_rot_dev = std::max(f.entity_rot_dev, rd);
            if (rd > 1e-3) ++f.rot_over;
        }
    };
    entities(Kind::model, &Level::models);
    entities(Kind::light, &Level::lights);
    entities(Kind::start, &Level::starts);
    entities(Kind::sound, &Level::sounds);
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
            note(f, "model " + std::to_string(i) + " (" + b.name + ") fields");
        }
    }
    for (std::size_t i = 0; i < std::min(ours.lights.size(), wed.lights.size()); ++i) {
        const Light& a = ours.lights[i];
        const Light& b = wed.lights[i];
        if (std::abs(a.color.r - b.color.r) > 1e-4 || std::abs(a.color.g - b.color.g) > 1e-4 ||
            std::abs(a.color.b - b.color.b) > 1e-4 || a.range != b.range || a.flags != b.flags) {
            ++f.field_mismatches;
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
            note(f, "path " + std::to_string(i) + " fields");
        }
    }
    return f;
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
                        f.field_mismatches == 0 && f.first_problem.empty();
        exact += ok;
        std::printf(
            "  pair %-58.58s blocks %4zu/%-4zu faces %5zu/%-5zu ents %4zu/%-4zu vdev %.2g "
            "axisdev %.2g offdev %.2g (over %zu) epos %.2g erot %.2g (over %zu) fieldmis %zu "
            "%s%s\n",
            mm_path.stem().string().c_str(), f.blocks[0], f.blocks[1], f.faces[0], f.faces[1],
            f.entities[0], f.entities[1], f.vertex_dev, f.axis_dev, f.offset_dev, f.offsets_over,
            f.entity_pos_dev, f.entity_rot_dev, f.rot_over, f.field_mismatches,
            ok ? "MATCH" : "DIFF: ", f.first_problem.c_str());
    }
    std::printf("  pairs: %d, matching WED's $$M: %d\n", pairs, exact);
    EXPECT_GT(pairs, 0);
}

}  // namespace
}  // namespace lk::wmp
