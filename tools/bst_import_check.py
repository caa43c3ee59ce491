"""Import model files with Blender Source Tools (BST) and print what came in.

Run inside Blender (3.x, background):

    blender -b --factory-startup --python tools/bst_import_check.py -- \
        [--bst DIR] FILE [FILE...]

DIR is the folder holding BST's ``io_scene_valvesource`` package (or set the
environment variable BST_DIR). BST is not part of levelkit and is not fetched
here; point the script at a checkout of it.

Each FILE is imported into an emptied scene with ``import_scene.smd`` (BST's
importer for .smd, .vta and .dmx). Several paths joined with ``+`` are imported
one after another into the same scene, e.g. ``model.smd+model.vta+anims/a.smd``
(a reference SMD, then its flexes onto the mesh, then an animation onto the
armature), as a modeller would import what levelkit's DMX -> SMD conversion
writes.

One JSON object per FILE is printed on stdout on a line starting with
``BSTCHECK `` (Blender prints its own chatter on stdout too): import status,
BST's errors and warnings, and figures of the scene: meshes, vertices,
polygons, triangles, surface area, world bounding box, materials, shape keys,
bones with their rest heads, actions with their frame ranges and the posed bone
heads at the first and last frame.
"""

import json
import math
import os
import sys
import traceback

import numpy

numpy.bool = bool  # Debian's Blender 3.4 with a newer numpy (BST's imports need numpy.bool)

import bpy  # noqa: E402


def parse_args(argv):
    argv = argv[argv.index("--") + 1:] if "--" in argv else []
    bst_dir = os.environ.get("BST_DIR", "")
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--bst" and i + 1 < len(argv):
            bst_dir = argv[i + 1]
            i += 2
            continue
        files.append(argv[i])
        i += 1
    return bst_dir, files


def load_bst(bst_dir):
    if not bst_dir or not os.path.isdir(os.path.join(bst_dir, "io_scene_valvesource")):
        raise SystemExit("bst_import_check: no io_scene_valvesource in BST_DIR / --bst ({!r})".format(bst_dir))
    sys.path.insert(0, bst_dir)
    import io_scene_valvesource  # noqa: E402

    io_scene_valvesource.register()
    return io_scene_valvesource


LOG = {"errors": [], "warnings": []}


def hook_logger(bst):
    """Keep BST's error and warning messages (it reports them, it does not raise)."""
    Logger = bst.utils.Logger
    orig_warning, orig_error = Logger.warning, Logger.error

    def warning(self, *s):
        LOG["warnings"].append(" ".join(str(x) for x in s))
        return orig_warning(self, *s)

    def error(self, *s):
        LOG["errors"].append(" ".join(str(x) for x in s))
        return orig_error(self, *s)

    Logger.warning, Logger.error = warning, error


def empty_scene():
    scene = bpy.context.scene
    if bpy.context.object and bpy.context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    ids = []
    for coll in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions,
                 bpy.data.materials, bpy.data.curves, bpy.data.cameras, bpy.data.lights, bpy.data.images):
        ids.extend(coll)
    ids.extend(c for c in bpy.data.collections)
    if ids:
        bpy.data.batch_remove(ids)
    for s in list(bpy.data.scenes):
        if s != scene:
            bpy.data.scenes.remove(s)
    scene.name = "Scene"
    scene.frame_start, scene.frame_end = 1, 250
    scene.frame_set(1)


def r(x, nd=4):
    return round(float(x), nd)


def world_coords(ob):
    n = len(ob.data.vertices)
    co = numpy.empty(n * 3, dtype=numpy.float64)
    ob.data.vertices.foreach_get("co", co)
    co = co.reshape(n, 3)
    m = numpy.array(ob.matrix_world, dtype=numpy.float64)
    return co @ m[:3, :3].T + m[:3, 3]


def figures():
    scene = bpy.context.scene
    out = {}
    meshes = [o for o in scene.objects if o.type == "MESH"]
    out["mesh_objects"] = len(meshes)
    out["vertices"] = sum(len(o.data.vertices) for o in meshes)
    out["polygons"] = sum(len(o.data.polygons) for o in meshes)
    out["triangles"] = sum(len(p.vertices) - 2 for o in meshes for p in o.data.polygons)
    area = tri_area = 0.0
    lo, hi = None, None
    for o in meshes:
        s = o.matrix_world.to_scale()
        k = abs(s[0] * s[1] * s[2]) ** (2.0 / 3.0)
        area += sum(p.area for p in o.data.polygons) * k
        o.data.calc_loop_triangles()
        tri_area += sum(t.area for t in o.data.loop_triangles) * k
        if len(o.data.vertices):
            w = world_coords(o)
            a, b = w.min(axis=0), w.max(axis=0)
            lo = a if lo is None else numpy.minimum(lo, a)
            hi = b if hi is None else numpy.maximum(hi, b)
    out["area"] = r(area, 3)
    out["triangle_area"] = r(tri_area, 3)
    out["bbox"] = [[r(v) for v in lo], [r(v) for v in hi]] if lo is not None else None
    mats = set()
    for o in meshes:
        for p_slot in o.material_slots:
            if p_slot.material:
                mats.add(p_slot.material.name)
    out["materials"] = sorted(mats)
    keys = []
    for o in meshes:
        sk = o.data.shape_keys
        if sk:
            keys.extend(kb.name for kb in sk.key_blocks[1:])
    out["shape_keys"] = len(keys)
    out["shape_key_names"] = sorted(set(keys))
    out["uv_layers"] = max((len(o.data.uv_layers) for o in meshes), default=0)
    out["weighted_vertices"] = sum(sum(1 for v in o.data.vertices if len(v.groups)) for o in meshes)

    arms = [o for o in scene.objects if o.type == "ARMATURE"]
    out["armatures"] = len(arms)
    out["bones"] = sum(len(a.data.bones) for a in arms)
    heads = {}
    for a in arms:
        for b in a.data.bones:
            heads[b.name] = [r(v) for v in a.matrix_world @ b.head_local]
    out["bone_heads"] = heads

    acts = []
    for act in bpy.data.actions:
        if act.name.startswith("ShapeKey") or any(fc.data_path.startswith("key_blocks") for fc in act.fcurves):
            kind = "shape"
        else:
            kind = "bone"
        f0, f1 = act.frame_range
        entry = {"name": act.name, "kind": kind, "first": r(f0, 2), "last": r(f1, 2),
                 "fcurves": len(act.fcurves)}
        if kind == "bone" and arms:
            arm = next((a for a in arms if a.animation_data and a.animation_data.action == act), arms[0])
            if arm.animation_data is None:
                arm.animation_data_create()
            prev = arm.animation_data.action
            arm.animation_data.action = act
            poses = {}
            for f in (int(math.floor(round(f0, 3))), int(math.ceil(round(f1, 3)))):
                scene.frame_set(f)
                bpy.context.view_layer.update()
                poses[str(f)] = {pb.name: [r(v, 3) for v in arm.matrix_world @ pb.head] for pb in arm.pose.bones}
            arm.animation_data.action = prev
            entry["pose_heads"] = poses
        acts.append(entry)
    out["actions"] = acts
    return out


def import_one(spec):
    empty_scene()
    LOG["errors"].clear()
    LOG["warnings"].clear()
    result = {"file": spec, "ok": True, "exception": None}
    for path in spec.split("+"):
        if not os.path.isfile(path):
            result["ok"] = False
            result["exception"] = "missing file: " + path
            break
        # a VTA goes onto the mesh, an animation onto the armature: make them active
        if path.lower().endswith(".vta"):
            target = next((o for o in bpy.context.scene.objects if o.type == "MESH"), None)
        else:
            target = next((o for o in bpy.context.scene.objects if o.type == "ARMATURE"), None)
        if target is not None:
            bpy.ops.object.select_all(action="DESELECT")
            target.select_set(True)
            bpy.context.view_layer.objects.active = target
        try:
            res = bpy.ops.import_scene.smd(filepath=os.path.abspath(path))
            if "FINISHED" not in res:
                result["ok"] = False
                result["exception"] = "operator returned {}".format(sorted(res))
        except Exception as e:  # BST raises on malformed files
            result["ok"] = False
            tb = traceback.format_exception(type(e), e, e.__traceback__)
            lines = [x for x in str(e).strip().splitlines() if x.strip() and not x.startswith("Location:")]
            result["exception"] = (lines or [type(e).__name__])[-1][:400]
            result["traceback"] = "".join(tb[-3:])[-1500:]
            break
    result["bst_errors"] = list(LOG["errors"])
    result["bst_warnings"] = list(LOG["warnings"])
    # BST reports names over Blender's 63 bytes as errors, but imports (truncated): a note, not a failure
    long_names = [m for m in result["bst_errors"] if "is too long to import" in m]
    result["bst_errors"] = [m for m in result["bst_errors"] if m not in long_names]
    result["bst_warnings"] += long_names
    if result["bst_errors"]:
        result["ok"] = False
    try:
        result.update(figures())
    except Exception as e:
        result["figures_error"] = repr(e)
    return result


def main():
    bst_dir, files = parse_args(sys.argv)
    bst = load_bst(bst_dir)
    hook_logger(bst)
    for spec in files:
        res = import_one(spec)
        sys.stdout.write("\nBSTCHECK " + json.dumps(res, sort_keys=True) + "\n")
        sys.stdout.flush()


main()
