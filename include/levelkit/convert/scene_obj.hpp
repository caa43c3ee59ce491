// Neutral scene -> Wavefront OBJ + MTL: every drawable polygon of the scene (scene::build_surfaces:
// brush faces, displaced grids, mesh faces), one OBJ object per brush or mesh, a material per map
// material in the .mtl (a stable colour each, so the map reads in any viewer).
//
// Axes: Y up by default, as OBJ readers (Blender, three.js) expect: a Z-up point (x, y, z) is
// written (x, z, -y) times `scale`; `z_up` keeps the scene's axes. Faces are counter-clockwise
// seen from outside; texture coordinates have V up (1 - v of the texture's row coordinate).
#pragma once

#include <string>

#include "levelkit/scene/geometry.hpp"
#include "levelkit/scene/scene.hpp"

namespace lk::convert {

struct SceneToObjOptions {
    scene::SurfaceOptions surfaces;
    double scale = 1;      // output units per scene unit
    bool z_up = false;     // keep the scene's Z-up axes
    std::string mtl_name;  // the .mtl file name the OBJ refers to; empty: no mtllib line
};

struct ObjFiles {
    std::string obj;
    std::string mtl;
    std::size_t objects = 0, polygons = 0, vertices = 0, materials = 0;
};

ObjFiles scene_to_obj(const scene::Scene& s, const SceneToObjOptions& opt = {});
// The same from surfaces already built (`names[i]` names piece i's OBJ object).
ObjFiles surfaces_to_obj(const scene::Surfaces& surfaces, const std::vector<std::string>& names,
                         const SceneToObjOptions& opt = {});
// OBJ object names for the pieces of `surfaces`: "<entity>_<kind>_<id>", where <entity> is the
// entity's targetname, else its classname ("world" for the world); spaces become '_'.
std::vector<std::string> piece_names(const scene::Scene& s, const scene::Surfaces& surfaces);

}  // namespace lk::convert
