// `levelkit geometry`: the drawable polygons of any map, as every exporter sees them (the scene's
// surfaces), with a summary, JSON, or an OBJ file.
#include <fmt/format.h>

#include <cmath>

#include "cli.hpp"
#include "levelkit/scene/geometry.hpp"

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
    bool tools = false;
};

std::string_view kind_name(scene::Surfaces::PieceKind k) {
    switch (k) {
        case scene::Surfaces::PieceKind::brush:
            return "brush";
        case scene::Surfaces::PieceKind::displacement:
            return "displacement";
        case scene::Surfaces::PieceKind::mesh:
            return "mesh";
    }
    return "";
}

void run_geometry(Context& ctx, const GeometryArgs& a) {
    if (!a.obj.empty()) {
        // The OBJ is the graph's OBJ consumer, so `geometry -o` and `convert x.obj` agree.
        ConvertJob job;
        job.input = a.file;
        job.output = a.obj;
        if (a.tools) job.options.set("tools", "1");
        job.options.set("z-up", "1");
        ConvertJobOutcome r = convert_file(job);
        ctx.diagnostics(r.diags);
        if (r.error) {
            ctx.diagnostic(*r.error);
            ctx.fail(exit_code_for(*r.error));
            return;
        }
        ctx.err(fmt::format("wrote {}\n", a.obj));
    }
    auto doc = read_document(a.file);
    if (!doc) {
        ctx.diagnostic(doc.error());
        ctx.fail(exit_code_for(doc.error()));
        return;
    }
    Diagnostics diags;
    ConvertOptions opt;
    opt.input_path = a.file;
    opt.for_display = true;
    auto sc = document_to_scene(*doc.value(), opt, diags);
    if (!sc) {
        ctx.diagnostic(std::move(sc).error().in_file(a.file));
        ctx.fail(exit_code_for(sc.error()));
        return;
    }
    scene::SurfaceOptions so;
    so.polygons.prefer_exact_polygons = a.stored;
    so.skip_tool_materials = !a.tools;
    const scene::Surfaces sf = scene::build_surfaces(sc.value(), so);
    if (a.json) {
        Json out;
        out["file"] = a.file;
        out["pieces"] = sf.pieces.size();
        out["polygons"] = sf.polygon_count();
        out["triangles"] = sf.triangle_count();
        out["materials"] = sf.materials;
        out["tool_faces_skipped"] = sf.tool_faces_skipped;
        Json invalid = Json::array();
        for (const auto& s : sf.skipped) {
            invalid.push_back({{"entity", s.entity}, {"id", s.id}, {"reason", s.reason}});
        }
        out["invalid"] = std::move(invalid);
        Json pieces = Json::array();
        for (const scene::Surfaces::Piece& p : sf.pieces) {
            Json jp;
            jp["entity"] = p.entity;
            jp["kind"] = kind_name(p.kind);
            jp["id"] = p.id;
            Json polys = Json::array();
            for (std::uint32_t i = p.first_polygon; i < p.first_polygon + p.polygon_count; ++i) {
                Json verts = Json::array();
                for (const Vec3& v : sf.polygon(i))
                    verts.push_back({tidy(v.x), tidy(v.y), tidy(v.z)});
                polys.push_back(
                    {{"material", sf.polygon_material[i]}, {"vertices", std::move(verts)}});
            }
            jp["polygons"] = std::move(polys);
            pieces.push_back(std::move(jp));
        }
        out["geometry"] = std::move(pieces);
        ctx.json_line(out);
    } else {
        ctx.out(fmt::format("{}: {} pieces, {} polygons, {} triangles, {} materials, {} invalid\n",
                            a.file, sf.pieces.size(), sf.polygon_count(), sf.triangle_count(),
                            sf.materials.size(), sf.skipped.size()));
        for (const auto& s : sf.skipped) {
            ctx.err(fmt::format(
                "{}: warning: {} {} not drawn: {}\n", a.file,
                s.entity == 0 ? std::string("world") : fmt::format("entity[{}]", s.entity - 1),
                s.id, s.reason));
        }
    }
    ctx.fail(sf.skipped.empty() ? kOk : kProblems);
}

}  // namespace

void add_geometry_command(CLI::App& app, Context& ctx) {
    auto a = std::make_shared<GeometryArgs>();
    CLI::App* cmd = app.add_subcommand(
        "geometry", "The drawable polygons of any map (brush faces, displacements, meshes)");
    cmd->add_option("file", a->file, "Input map (VMF, BSP, VMAP, WMP, $$M)")->required();
    cmd->add_flag("--json", a->json, "Print every piece's polygons as JSON");
    cmd->add_option("-o,--obj", a->obj,
                    "Also write them as Wavefront OBJ (+ .mtl), in the map's own axes");
    cmd->add_flag("--stored-vertices", a->stored,
                  "Use Hammer++ vertices_plus / Strata point_data polygons where present");
    cmd->add_flag("--tools", a->tools, "Keep faces with tool materials (nodraw, clip, ...)");
    cmd->callback([a, &ctx] { run_geometry(ctx, *a); });
}

}  // namespace lk::cli
