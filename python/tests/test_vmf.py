"""VMF documents: entities (dict-like, duplicates kept, outputs), solids, sides, displacements,
edits written back, and byte-identical round trips of the corpus."""
from __future__ import annotations

import numpy as np
import pytest

import levelkit
from conftest import corpus_files


def test_entities_are_dict_like_and_ordered(demo_vmf):
    vmf = levelkit.read(demo_vmf)
    assert vmf.world.classname == "worldspawn" and vmf.world.is_world
    light = vmf.by_target("room_light")[0]
    assert light["classname"] == "light"
    assert light["CLASSNAME"] == "light"  # keys are case-insensitive, as in Hammer
    assert "targetname" in light and "nope" not in light
    with pytest.raises(KeyError):
        light["nope"]
    assert light.get("nope") is None and light.get("nope", "x") == "x"
    keys = light.keys()
    assert keys[:2] == ["id", "classname"]
    assert list(light) == keys and len(light) == len(keys)
    assert dict(light.items())["targetname"] == "room_light"
    assert light.id == int(light["id"])
    assert light.origin is not None and len(light.origin) == 3
    assert [e.classname for e in vmf.by_class("light")] == ["light"]
    assert vmf.by_class("LOGIC_*") == vmf.by_class("logic_relay")
    assert vmf.by_target("room_*")[0] == light


def test_duplicate_keys_are_kept():
    vmf = levelkit.read(b'world\n{\n\t"id" "1"\n\t"classname" "worldspawn"\n}\n'
                       b'entity\n{\n\t"id" "2"\n\t"classname" "info_target"\n'
                       b'\t"dup" "a"\n\t"dup" "b"\n}\n')
    ent = vmf.entities[0]
    assert ent["dup"] == "a"
    assert ent.get_all("dup") == ["a", "b"]
    ent.add("dup", "c")
    assert ent.get_all("dup") == ["a", "b", "c"]
    ent["dup"] = "A"  # replaces the first
    assert ent.get_all("dup") == ["A", "b", "c"]
    again = levelkit.read(vmf.to_bytes()).entities[0]
    assert again.get_all("dup") == ["A", "b", "c"]
    del ent["dup"]
    assert "dup" not in ent


def test_edit_keyvalues_and_outputs_then_write(demo_vmf, tmp_path):
    vmf = levelkit.read(demo_vmf)
    assert not vmf.modified
    relay = vmf.by_class("logic_relay")[0]
    outs = relay.outputs
    assert [o.output for o in outs] == ["OnTrigger", "OnTrigger"]
    assert outs[0].target == "room_light" and outs[0].input == "Toggle"
    assert outs[0].delay == 0 and outs[0].times == -1
    outs[0].delay = 2.5
    outs[1].param = "room_light,TurnOff,,1,-1"
    new = relay.add_output("OnSpawn", "room_light", "TurnOn", delay=1, times=1)
    assert new.value.split("\x1b") == ["room_light", "TurnOn", "", "1", "1"]
    relay["targetname"] = "renamed_relay"
    relay["spawnflags"] = 1
    relay["origin"] = (1, 2.5, -3)
    assert vmf.modified
    out = tmp_path / "edited.vmf"
    vmf.write(out)
    again = levelkit.read(out)
    r = again.by_target("renamed_relay")[0]
    assert r["spawnflags"] == "1" and r["origin"] == "1 2.5 -3"
    got = [(o.output, o.target, o.input, o.param, o.delay, o.times) for o in r.outputs]
    assert got == [("OnTrigger", "room_light", "Toggle", "", 2.5, -1),
                   ("OnTrigger", "!self", "AddOutput", "room_light,TurnOff,,1,-1", 0.5, 1),
                   ("OnSpawn", "room_light", "TurnOn", "", 1.0, 1)]
    r.remove_output(r.outputs[0])
    assert len(r.outputs) == 2


def test_add_and_remove_entities_and_brushes(demo_vmf):
    vmf = levelkit.read(demo_vmf)
    n_ent = len(vmf.entities)
    ids = {e.id for e in vmf.entities} | {vmf.world.id}
    ent = vmf.add_entity("func_detail", targetname="new_detail")
    assert ent.id not in ids
    solid = ent.add_brush((0, 0, 0), (64, 32, 16), material="DEV/DEV_MEASUREGENERIC01")
    assert [s.material for s in solid.sides] == ["DEV/DEV_MEASUREGENERIC01"] * 6
    polys = solid.polygons()
    assert polys.valid and len(polys) == 6
    pts = polys.points
    assert pts.shape == (24, 3) and pts.dtype == np.float64
    assert np.allclose(pts.min(axis=0), [0, 0, 0]) and np.allclose(pts.max(axis=0), [64, 32, 16])
    w = vmf.world.add_brush((-16, -16, -16), (16, 16, 16))
    assert w.sides[0].material == "TOOLS/TOOLSNODRAW"
    again = levelkit.read(vmf.to_bytes())
    assert len(again.entities) == n_ent + 1
    d = again.by_target("new_detail")[0]
    assert d.classname == "func_detail" and len(d.solids) == 1
    assert d.solids[0].polygons().valid
    assert len(again.world.solids) == len(vmf.world.solids)
    vmf.remove_entity(ent)
    assert len(vmf.entities) == n_ent
    with pytest.raises(ValueError):
        vmf.world.add_brush((0, 0, 0), (0, 10, 10))


def test_sides_planes_materials_axes(demo_vmf):
    vmf = levelkit.read(demo_vmf)
    side = vmf.world.solids[0].sides[0]
    p0, p1, p2 = side.plane_points
    assert len(p0) == 3
    assert side.normal is not None and abs(sum(c * c for c in side.normal) - 1) < 1e-9
    axis, shift, scale = side.uaxis
    assert len(axis) == 3 and scale != 0
    side.material = "TOOLS/TOOLSSKYBOX"
    side.uaxis = ((0, 1, 0), 16, 0.5)
    again = levelkit.read(vmf.to_bytes()).world.solids[0].sides[0]
    assert again.material == "TOOLS/TOOLSSKYBOX"
    assert again.uaxis == ((0.0, 1.0, 0.0), 16.0, 0.5)


def test_displacement_fields_are_numpy_views(demo_vmf):
    vmf = levelkit.read(demo_vmf)
    disps = [s.displacement for e in [vmf.world, *vmf.entities] for so in e.solids
             for s in so.sides if s.displacement is not None]
    assert len(disps) == 1
    d = disps[0]
    n = d.grid_size ** 2
    assert d.normals.shape == (n, 3) and d.distances.shape == (n,)
    # a view: writing through it edits the map
    d.distances[0] = 42.0
    assert d.distances[0] == 42.0
    assert vmf.modified
    grid = d.grid()
    assert grid.shape == (n, 3)


def test_visgroups_and_stats(demo_vmf):
    vmf = levelkit.read(demo_vmf)
    assert vmf.stats["visgroups"] == 3
    assert vmf.visgroups and {"name", "id", "color", "children"} <= set(vmf.visgroups[0])
    assert vmf.versioninfo["editorversion"] == "400"
    assert vmf.validate() == [] or all(isinstance(d, levelkit.Diagnostic) for d in vmf.validate())


VMF_FILES = corpus_files("vmf", (".vmf",)) + corpus_files("bsp", (".vmf",))


@pytest.mark.parametrize("path", VMF_FILES, ids=lambda p: p.name)
def test_corpus_round_trip_is_byte_identical(path):
    doc = levelkit.read(path)
    assert not doc.modified
    data = path.read_bytes()
    assert doc.to_bytes() == data
    # looking at entities, keys, solids and sides changes nothing either
    for ent in [doc.world, *doc.entities]:
        ent.items()
        for solid in ent.solids[:3]:
            [side.material for side in solid.sides]
    assert not doc.modified
    assert doc.to_bytes() == data


def test_modified_tracks_edits_and_views(demo_vmf):
    data = demo_vmf.read_bytes()
    vmf = levelkit.read(demo_vmf)
    disp = next(s.displacement for so in vmf.world.solids for s in so.sides
                if s.displacement is not None)
    view = disp.distances  # a writable view: compared with the file when writing
    assert not vmf.modified and vmf.to_bytes() == data
    old = float(view[0])
    view[0] = old + 1
    assert vmf.modified and vmf.to_bytes() != data
    view[0] = old
    assert not vmf.modified and vmf.to_bytes() == data
    light = vmf.by_class("light")[0]
    light["targetname"] = light["targetname"]  # an edit through the API counts as one
    assert vmf.modified
    again = levelkit.read(vmf.to_bytes())
    assert [e.items() for e in again.entities] == [e.items() for e in vmf.entities]


def test_corpus_present_for_vmf(corpus):
    assert VMF_FILES, "no VMF files in the corpus"


def test_displacement_views_outlive_removed_solids(demo_vmf):
    vmf = levelkit.read(demo_vmf)
    owner, solid, disp = next((e, so, s.displacement) for e in [vmf.world, *vmf.entities]
                              for so in e.solids for s in so.sides if s.displacement is not None)
    normals = disp.normals
    before = normals.copy()
    owner.remove_solid(solid)
    assert np.array_equal(normals, before)  # still readable: the removed solid is kept
