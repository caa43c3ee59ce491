"""BSP documents: header and lumps, the entity lump as editable entities, static props,
texinfo/texdata, vertices, the pakfile, (de)compression, byte-identical corpus round trips."""
from __future__ import annotations

import numpy as np
import pytest

import levelkit
from conftest import corpus_files

BSP_FILES = corpus_files("bsp", (".bsp",))


def small_bsp(corpus):
    files = [p for p in BSP_FILES if p.stat().st_size < 2_000_000]
    return max(files, key=lambda p: p.stat().st_size)  # a real map, still quick


@pytest.mark.parametrize("path", BSP_FILES, ids=lambda p: p.name)
def test_corpus_round_trip_is_byte_identical(path):
    doc = levelkit.read(path)
    assert isinstance(doc, levelkit.BspDocument)
    assert doc.to_bytes() == path.read_bytes()
    # parsing the entity lump without editing it changes nothing either
    assert len(doc.entities) >= 1
    assert doc.to_bytes() == path.read_bytes()


def test_header_lumps_and_typed_views(corpus):
    doc = levelkit.read(small_bsp(corpus))
    assert doc.magic == "VBSP" and doc.version >= 17
    lumps = doc.lumps
    assert len(lumps) == 64
    assert lumps[0].size == len(doc.lump_bytes(0))
    verts = doc.vertices
    assert verts.dtype == np.float32 and verts.ndim == 2 and verts.shape[1] == 3
    assert verts.shape[0] == lumps[3].size // 12
    assert not verts.flags.writeable
    texinfo, texdata = doc.texinfo, doc.texdata
    assert texinfo and texdata
    assert all(0 <= t.texdata < len(texdata) or t.texdata == -1 for t in texinfo)
    assert any(t.name for t in texdata)
    for prop in doc.static_props[:5]:
        assert prop.model.lower().startswith("models/")
        assert len(prop.origin) == 3


def test_static_props_on_the_corpus(corpus):
    with_props = 0
    for path in BSP_FILES[:15]:
        doc = levelkit.read(path)
        try:
            props = doc.static_props
        except levelkit.Error:
            continue
        with_props += bool(props)
    assert with_props > 0


def test_edit_entities_and_write(corpus, tmp_path):
    src = small_bsp(corpus)
    doc = levelkit.read(src)
    world = doc.by_class("worldspawn")[0]
    assert doc.entities[0] == world
    n = len(doc.entities)
    lights = doc.by_class("light*")
    target = doc.add_entity("info_target", targetname="py_target", origin=(1, 2, 3))
    target.add("OnUser1", "py_target,Kill,,0,-1")
    world["message"] = "edited from Python"
    for light in lights:
        light["_light"] = "255 0 0 200"
    out = tmp_path / "edited.bsp"
    doc.write(out)
    again = levelkit.read(out)
    assert len(again.entities) == n + 1
    t = again.by_target("py_target")[0]
    assert t["origin"] == "1 2 3" and t.classname == "info_target"
    assert t.outputs[0].target == "py_target" and t.outputs[0].input == "Kill"
    assert again.by_class("worldspawn")[0]["message"] == "edited from Python"
    assert all(e["_light"] == "255 0 0 200" for e in again.by_class("light*"))
    # every other lump is untouched
    for i in range(1, 64):
        if i in (35, 40):  # game lump and pakfile may move; compare contents below
            continue
        assert again.lump_bytes(i) == levelkit.read(src).lump_bytes(i), i
    again.remove_entity(t)
    assert len(again.entities) == n


def test_pakfile_add_read_remove(corpus, tmp_path):
    doc = levelkit.read(small_bsp(corpus))
    before = doc.pak_names()
    payload = b"\"VertexLitGeneric\" { \"$basetexture\" \"dev/dev_measuregeneric01\" }\n" * 20
    doc.pak_add("materials/python/test.vmt", payload, method="deflate")
    doc.pak_add("materials\\python\\raw.txt", b"stored bytes")
    out = tmp_path / "pak.bsp"
    doc.write(out)
    again = levelkit.read(out)
    names = again.pak_names()
    assert "materials/python/test.vmt" in names and "materials/python/raw.txt" in names
    assert again.pak_read("materials/python/test.vmt") == payload
    assert again.pak_read("MATERIALS/PYTHON/RAW.TXT") == b"stored bytes"
    listing = {e.name: e for e in again.pak_list()}
    assert listing["materials/python/test.vmt"].method == "deflate"
    assert listing["materials/python/test.vmt"].stored_size < len(payload)
    again.pak_remove("materials/python/test.vmt")
    again.pak_remove("materials/python/raw.txt")
    assert again.pak_names() == before
    with pytest.raises(levelkit.Error) as e:
        again.pak_remove("materials/python/none.vmt")
    assert e.value.code == "pak.no-entry"
    with pytest.raises(levelkit.Error) as e:
        again.pak_add("../escape.txt", b"x")
    assert e.value.code == "usage.unsafe-name"


def test_compress_and_decompress(corpus):
    src = small_bsp(corpus)
    doc = levelkit.read(src)
    ents = doc.lump_bytes(0)
    doc.compress()
    packed = doc.to_bytes()
    c = levelkit.read(packed)
    assert any(l.compressed for l in c.lumps)
    assert c.lump_bytes(0) == ents
    c.decompress()
    d = levelkit.read(c.to_bytes())
    assert not any(l.compressed for l in d.lumps)
    assert d.lump_bytes(0) == ents
    assert [len(d.lump_bytes(i)) for i in range(64) if i not in (35, 40)] == \
           [len(levelkit.read(src).lump_bytes(i)) for i in range(64) if i not in (35, 40)]


def test_corpus_present_for_bsp(corpus):
    assert BSP_FILES, "no BSP files in the corpus"


def test_entity_handles_after_the_lump_is_replaced(corpus):
    doc = levelkit.read(small_bsp(corpus))
    ent = doc.entities[0]
    text = doc.lump_bytes(0)
    doc.set_lump(0, text)
    with pytest.raises(IndexError):
        ent["classname"]
    assert doc.entities[0]["classname"] == "worldspawn"
