# Writes glTF files as Blender exports them, for levelkit's "files of other tools" model test:
#   blender -b --factory-startup --python tools/blender_gltf_samples.py -- OUT_DIR
# Three scenes, each built from scratch (no .blend file needed), each exported as .glb and as
# .gltf with a separate .bin:
#   skinned   an armature of three bones in a chain and a subdivided column weighted to them
#             (smooth falloff, so most vertices have two influences)
#   shapes    a UV sphere with two shape keys (one moves a few vertices, one moves every vertex)
#   animated  the skinned scene with a 24-frame action (rotation and translation keys) and the
#             shapes scene's keys animated, so both joint and morph weight channels are written
import math
import os
import sys

import numpy

# Debian's numpy dropped the alias Blender 3.4's glTF add-on still uses.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy  # noqa: E402


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def column_with_armature():
    bpy.ops.object.armature_add(enter_editmode=True, location=(0, 0, 0))
    arm = bpy.context.object
    arm.name = "rig"
    bones = arm.data.edit_bones
    root = bones[0]
    root.name = "root"
    root.head, root.tail = (0, 0, 0), (0, 0, 1)
    mid = bones.new("mid")
    mid.head, mid.tail, mid.parent = (0, 0, 1), (0, 0, 2), root
    tip = bones.new("tip")
    tip.head, tip.tail, tip.parent = (0, 0, 2), (0, 0.2, 3), mid
    bpy.ops.object.mode_set(mode="OBJECT")

    bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.3, depth=3, location=(0, 0, 1.5))
    col = bpy.context.object
    col.name = "column"
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.subdivide(number_cuts=5)
    bpy.ops.object.mode_set(mode="OBJECT")
    mat = bpy.data.materials.new("models/test/column_stone")
    col.data.materials.append(mat)
    groups = {name: col.vertex_groups.new(name=name) for name in ("root", "mid", "tip")}
    for v in col.data.vertices:
        z = (col.matrix_world @ v.co).z
        for name, centre in (("root", 0.5), ("mid", 1.5), ("tip", 2.5)):
            w = max(0.0, 1.0 - abs(z - centre))
            if w > 0:
                groups[name].add([v.index], w, "REPLACE")
    col.parent = arm
    mod = col.modifiers.new("rig", "ARMATURE")
    mod.object = arm
    return arm, col


def sphere_with_shapes():
    bpy.ops.mesh.primitive_uv_sphere_add(segments=16, ring_count=8, radius=1, location=(3, 0, 1))
    sph = bpy.context.object
    sph.name = "blob"
    mat = bpy.data.materials.new("models/test/blob_skin")
    sph.data.materials.append(mat)
    sph.shape_key_add(name="Basis")
    bulge = sph.shape_key_add(name="bulge_top")
    for i, v in enumerate(sph.data.vertices):
        if v.co.z > 0.7:
            bulge.data[i].co = v.co * 1.4
    squash = sph.shape_key_add(name="squash")
    for i, v in enumerate(sph.data.vertices):
        squash.data[i].co = (v.co.x * 1.2, v.co.y * 1.2, v.co.z * 0.6)
    return sph


def animate(arm, sph):
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 24
    scene.render.fps = 24
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="POSE")
    mid = arm.pose.bones["mid"]
    tip = arm.pose.bones["tip"]
    mid.rotation_mode = tip.rotation_mode = "QUATERNION"
    for frame, angle, lift in ((1, 0.0, 0.0), (12, 0.6, 0.2), (24, -0.4, 0.0)):
        scene.frame_set(frame)
        mid.rotation_quaternion = (math.cos(angle / 2), math.sin(angle / 2), 0, 0)
        mid.keyframe_insert("rotation_quaternion", frame=frame)
        tip.location = (0, lift, 0)
        tip.keyframe_insert("location", frame=frame)
    bpy.ops.object.mode_set(mode="OBJECT")
    arm.animation_data.action.name = "sway"
    keys = sph.data.shape_keys
    for frame, bulge, squash in ((1, 0.0, 0.0), (12, 1.0, 0.3), (24, 0.0, 1.0)):
        keys.key_blocks["bulge_top"].value = bulge
        keys.key_blocks["squash"].value = squash
        keys.key_blocks["bulge_top"].keyframe_insert("value", frame=frame)
        keys.key_blocks["squash"].keyframe_insert("value", frame=frame)
    keys.animation_data.action.name = "breathe"


def export(out_dir, name):
    for fmt, ext in (("GLB", ".glb"), ("GLTF_SEPARATE", ".gltf")):
        path = os.path.join(out_dir, name + ext)
        bpy.ops.export_scene.gltf(filepath=path, export_format=fmt, export_apply=False)
        print("levelkit-samples: wrote", path)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 1:
        raise SystemExit("usage: blender -b --python blender_gltf_samples.py -- OUT_DIR")
    out_dir = argv[0]
    os.makedirs(out_dir, exist_ok=True)

    reset()
    column_with_armature()
    export(out_dir, "blender_skinned")

    reset()
    sphere_with_shapes()
    export(out_dir, "blender_shapes")

    reset()
    arm, _ = column_with_armature()
    sph = sphere_with_shapes()
    animate(arm, sph)
    export(out_dir, "blender_animated")


main()
