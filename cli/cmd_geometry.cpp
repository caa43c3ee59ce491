#include <cmath>

#include <fmt/format.h>

#include "cli.hpp"
#include "levelkit/core/text.hpp"
#include "levelkit/vmf/geometry.hpp"

namespace lk::cli {

namespace {

// Coordinates to 1e-6: clipping leaves ~1e-12 noise that would only clutter the output.
double tidy(double v) {
    const double r = std::round(v * 1e6) / 1e6;
    return r == 0 ? 0.0 : r;
}

struct GeometryArgs {
    std::string file;
    bool json = false;
    std::string obj;
    bool stored = false;
};

void run_geometry(const GeometryArgs& a) {
    auto blob = Blob::map_file(a.file);
    if (!blob) {
        print_diagnostic(blob.error());
        exit_status() = kIo;
        return;
    }
    auto doc = vmf::Document::read(blob.value());
    if (!doc) {
        Diagnostic d = std::move(doc).error();
        d.file = a.file;
        print_diagnostic(d);
        exit_status() = kBadInput;
        return;
    }
    vmf::PolygonOptions popt;
    popt.prefer_stored_vertices = a.stored;
    BrushPolygons polys;
    Json solids = Json::array();
    std::string obj;
    std::size_t obj_vertices = 0, invalid = 0, total = 0;
    if (!a.obj.empty()) obj = "# levelkit brush geometry of " + a.file + "\n";
    auto emit_entity = [&](const vmf::Entity& e) {
        for (const vmf::Solid& s : e.solids) {
            ++total;
            vmf::solid_polygons(s, polys, popt);
            if (!polys.valid()) ++invalid;
            Json js;
            js["id"] = s.id;
            js["valid"] = polys.valid();
            if (!polys.valid()) {
                Json probs = Json::array();
                for (const auto& p : polys.problems) {
                    Json jp;
                    jp["problem"] = std::string(to_string(p.problem));
                    if (p.side < s.sides.size()) jp["side"] = s.sides[p.side].id;
                    probs.push_back(jp);
                }
                js["problems"] = probs;
            }
            Json sides = Json::array();
            if (!obj.empty()) obj += "o solid_" + std::to_string(s.id) + "\n";
            for (std::size_t i = 0; i < s.sides.size(); ++i) {
                const vmf::Side& sd = s.sides[i];
                const auto face = polys.face(i);
                Json verts = Json::array();
                for (const Vec3& p : face) verts.push_back({tidy(p.x), tidy(p.y), tidy(p.z)});
                Json jside;
                jside["id"] = sd.id;
                jside["vertices"] = std::move(verts);
                std::optional<std::vector<Vec3>> grid;
                if (sd.disp) grid = vmf::displacement_grid(sd, face);
                if (grid) {
                    Json g = Json::array();
                    for (const Vec3& p : *grid) g.push_back({tidy(p.x), tidy(p.y), tidy(p.z)});
                    jside["displacement"] = {{"power", sd.disp->power}, {"vertices", std::move(g)}};
                }
                sides.push_back(std::move(jside));
                if (obj.empty()) continue;
                // OBJ wants counter-clockwise faces seen from outside; Hammer winds clockwise.
                if (grid) {
                    for (const Vec3& p : *grid)
                        obj += fmt::format("v {} {} {}\n", tidy(p.x), tidy(p.y), tidy(p.z));
                    for (const auto& t : vmf::displacement_triangles(sd.disp->power)) {
                        obj += fmt::format("f {} {} {}\n", obj_vertices + t[2] + 1,
                                           obj_vertices + t[1] + 1, obj_vertices + t[0] + 1);
                    }
                    obj_vertices += grid->size();
                } else if (face.size() >= 3 && !sd.disp) {
                    for (const Vec3& p : face)
                        obj += fmt::format("v {} {} {}\n", tidy(p.x), tidy(p.y), tidy(p.z));
                    obj += "f";
                    for (std::size_t k = face.size(); k-- > 0;)
                        obj += fmt::format(" {}", obj_vertices + k + 1);
                    obj += "\n";
                    obj_vertices += face.size();
                }
            }
            js["sides"] = std::move(sides);
            solids.push_back(std::move(js));
        }
    };
    emit_entity(doc->map().world);
    for (const vmf::Entity& e : doc->map().entities) emit_entity(e);
    if (a.json) {
        Json out;
        out["solids"] = std::move(solids);
        std::printf("%s\n", out.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
    } else {
        std::printf("%s: %zu solids, %zu valid, %zu invalid\n", a.file.c_str(), total,
                    total - invalid, invalid);
    }
    std::fflush(stdout);
    if (!a.obj.empty()) {
        auto w = write_output(a.obj, as_bytes(obj), a.file, false);
        if (!w) {
            print_diagnostic(w.error());
            exit_status() = kIo;
            return;
        }
        std::fprintf(stderr, "wrote %s (%zu vertices)\n", a.obj.c_str(), obj_vertices);
    }
    exit_status() = invalid ? kProblems : kOk;
}

}  // namespace

void add_geometry_command(CLI::App& app) {
    auto a = std::make_shared<GeometryArgs>();
    CLI::App* cmd = app.add_subcommand(
        "geometry", "Brush polygons (and displacement grids) of a VMF's solids, in file order");
    cmd->add_option("file", a->file, "Input .vmf")->required();
    cmd->add_flag("--json", a->json,
                  "Print {\"solids\":[{\"id\",\"valid\",\"sides\":[{\"id\",\"vertices\"}]}]}");
    cmd->add_option("-o,--obj", a->obj, "Also write the geometry as a Wavefront OBJ file");
    cmd->add_flag("--stored-vertices", a->stored,
                  "Use Hammer++ vertices_plus / Strata point_data polygons where present");
    cmd->callback([a] { run_geometry(*a); });
}

}  // namespace lk::cli
