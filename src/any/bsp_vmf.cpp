// Converter: compiled map (BSP) -> Hammer source (VMF), through the neutral scene.
#include "handlers.hpp"
#include "levelkit/bsp/bsp.hpp"
#include "levelkit/convert/bsp_scene.hpp"
#include "levelkit/convert/vmf_scene.hpp"
#include "levelkit/vmf/vmf.hpp"

namespace lk {

namespace {

Json report_json(const convert::BspToSceneReport& r, const convert::SceneToVmfReport& v,
                 bool faces_mode) {
    const auto& a = r.recovered;
    const auto& l = r.lost;
    Json j;
    j["mode"] = faces_mode ? "faces" : "brushes";
    Json rec;
    rec["world_brushes"] = a.world_brushes;
    rec["detail_brushes"] = a.detail_brushes;
    rec["func_detail"] = a.func_detail;
    rec["entity_brushes"] = a.entity_brushes;
    rec["areaportal_brushes"] = a.areaportal_brushes;
    rec["occluder_brushes"] = a.occluder_brushes;
    rec["ladder_brushes"] = a.ladder_brushes;
    rec["closed_brushes"] = a.closed_brushes;
    rec["displacements"] = a.displacements;
    rec["face_brushes"] = a.face_brushes;
    rec["sides"] = a.sides;
    rec["visible_sides"] = a.visible_sides;
    rec["tool_textured_sides"] = a.tool_sides;
    rec["unpatched_materials"] = a.unpatched_materials;
    rec["entities"] = a.entities;
    rec["brush_entities"] = a.brush_entities;
    rec["outputs"] = a.outputs;
    rec["static_props"] = a.static_props;
    rec["lighting_origins"] = a.lighting_origins;
    rec["overlays"] = a.overlays;
    rec["cubemaps"] = a.cubemaps;
    rec["cubemap_sides"] = a.cubemap_sides;
    rec["areaportals"] = a.areaportals;
    rec["occluders"] = a.occluders;
    rec["ladders"] = a.ladders;
    j["recovered"] = std::move(rec);
    Json lost;
    lost["invalid_brushes"] = l.invalid_brushes;
    lost["dropped_sides"] = l.dropped_sides;
    lost["unowned_brushes"] = l.unowned_brushes;
    lost["areaportals_unmatched"] = l.areaportals_unmatched;
    lost["occluders_unmatched"] = l.occluders_unmatched;
    lost["overlays_skipped"] = l.overlays_skipped;
    lost["overlays_without_sides"] = l.overlay_sides_unmapped;
    lost["water_overlays"] = l.water_overlays;
    lost["static_props_skipped"] = l.static_props_skipped;
    lost["detail_props"] = l.detail_props;
    lost["world_lights"] = l.worldlights;
    lost["compiler_entities"] = l.compiler_entities;
    lost["displacement_multiblend"] = l.displacement_multiblend;
    lost["cubemap_sides"] = l.cubemap_sides;
    lost["visibility"] = l.visibility;
    lost["unreadable_lumps"] = r.unreadable_lumps;
    // Never in a compiled map at all.
    lost["editor_state"] = Json::array({"visgroups", "groups", "hidden objects", "cameras",
                                        "instances (collapsed by vbsp)", "func_viscluster"});
    j["not_recovered"] = std::move(lost);
    Json vmf;
    vmf["solids"] = v.solids;
    vmf["renumbered_ids"] = v.renumbered_ids;
    j["vmf"] = std::move(vmf);
    return j;
}

Result<ConvertResult> bsp_to_vmf_run(const Document& in, const ConvertOptions& opt,
                                     Diagnostics& diags) {
    if (opt.compress || opt.decompress || opt.entities_file) {
        return Diagnostic::error("convert.bad-options",
                                 "--compress, --decompress and --entities need a .bsp output");
    }
    const bsp::Bsp* map = handlers::as_bsp(in);
    if (!map) return Diagnostic::error("convert.bad-input", "the input is not a BSP map");
    convert::BspToSceneOptions o;
    o.merge_detail = !opt.no_detail_merge;
    o.faces_mode = opt.faces_mode;
    o.static_props = !opt.no_props;
    o.overlays = !opt.no_overlays;
    convert::BspToSceneReport rep;
    LK_TRY_ASSIGN(scene::Scene s, convert::bsp_to_scene(*map, diags, o, &rep));
    convert::SceneToVmfReport vrep;
    const vmf::Map m = convert::scene_to_vmf(s, diags, {}, &vrep);
    ReadOptions ro;
    ro.source_name = opt.output_path.string();
    LK_TRY_ASSIGN(std::unique_ptr<Document> doc,
                  handlers::vmf.read(Blob::copy_of(vmf::write(m, {"\r\n"})), ro));
    ConvertResult r;
    r.document = std::move(doc);
    r.report = report_json(rep, vrep, opt.faces_mode);
    return r;
}

}  // namespace

namespace handlers {

const ConverterHandler bsp_to_vmf{
    "bsp", "vmf",
    "Decompile a compiled map into Hammer source (--no-detail-merge, --faces, --no-props, "
    "--no-overlays)",
    bsp_to_vmf_run};

}  // namespace handlers

}  // namespace lk
