"""DMX documents: elements and typed attributes (scalars, arrays as NumPy views or lists),
editing, encodings, VMAPs, byte-identical corpus round trips."""
from __future__ import annotations

import numpy as np
import pytest

import levelkit
from conftest import corpus_files

DMX_FILES = (corpus_files("dmx", (".dmx", ".vmap", ".pcf", ".txt", ".vtex", ".dmx.gz"))
             + corpus_files("model", (".dmx", ".dmx.gz")))


@pytest.mark.parametrize("path", DMX_FILES, ids=lambda p: p.name)
def test_corpus_round_trip_is_byte_identical(path):
    doc = levelkit.read(path)
    assert isinstance(doc, levelkit.DmxDocument)
    assert doc.to_bytes() == path.read_bytes()


def test_corpus_present_for_dmx(corpus):
    assert DMX_FILES, "no DMX files in the corpus"


def new_doc():
    kv2 = (b'<!-- dmx encoding keyvalues2 4 format dmx 1 -->\n'
           b'"DmElement"\n{\n\t"id" "elementid" "9d7a9dd2-4d3c-4b65-8c7d-6b4e4e1d3a01"\n'
           b'\t"name" "string" "root"\n}\n')
    return levelkit.read(kv2)


def test_typed_attributes_read_and_write():
    doc = new_doc()
    assert doc.encoding == "keyvalues2" and doc.encoding_version == 4
    root = doc.root
    assert root.type == "DmElement" and root.name == "root"
    assert root.id == "9d7a9dd2-4d3c-4b65-8c7d-6b4e4e1d3a01"
    child = doc.add_element("DmeDag", "child")
    root["child"] = child
    root["children"] = [child, None]
    root["count"] = 3
    root["scale"] = 0.5
    root["visible"] = True
    root["label"] = "héllo"
    root["blob"] = b"\x00\x01"
    root["pos"] = (1.0, 2.0, 3.0)
    root.set("angles", (0, 90, 0), type="qangle")
    root.set("color", (255, 128, 0, 255), type="color")
    root["positions"] = np.arange(12, dtype=np.float32).reshape(4, 3)
    root["indices"] = [0, 1, 2, 3]
    root["names"] = ["a", "b"]
    root.set("time", 1.25, type="time")
    again = levelkit.read(doc.to_bytes())
    r = again.root
    assert r["child"].name == "child" and r["child"].type == "DmeDag"
    assert [c.name if c is not None else None for c in r["children"]] == ["child", None]
    assert r["count"] == 3 and r.type_of("count") == "int"
    assert r["scale"] == 0.5 and r["visible"] is True and r["label"] == "héllo"
    assert r["blob"] == b"\x00\x01"
    assert r["pos"] == (1.0, 2.0, 3.0) and r.type_of("pos") == "vector3"
    assert r.type_of("angles") == "qangle" and r["angles"] == (0.0, 90.0, 0.0)
    assert r["color"] == (255, 128, 0, 255)
    pos = r["positions"]
    assert isinstance(pos, np.ndarray) and pos.shape == (4, 3) and pos.dtype == np.float32
    assert np.array_equal(pos, np.arange(12, dtype=np.float32).reshape(4, 3))
    assert list(r["indices"]) == [0, 1, 2, 3] and r.type_of("indices") == "int_array"
    assert r["names"] == ["a", "b"]
    assert r["time"] == 1.25
    assert list(r)[:3] == ["child", "children", "count"]
    # an existing attribute keeps its type
    r["count"] = 7.0
    assert r.type_of("count") == "int" and r["count"] == 7
    del r["blob"]
    assert "blob" not in r
    with pytest.raises(KeyError):
        r["blob"]


def test_arrays_are_views_into_the_document():
    doc = new_doc()
    doc.root["positions"] = np.zeros((3, 3), dtype=np.float32)
    view = doc.root["positions"]
    view[1] = (4, 5, 6)
    assert tuple(doc.root["positions"][1]) == (4.0, 5.0, 6.0)


def test_encodings():
    doc = new_doc()
    doc.root["pos"] = (1.0, 2.0, 3.0)
    doc.set_encoding("binary", 9)
    data = doc.to_bytes()
    assert data.startswith(b"<!-- dmx encoding binary 9")
    b = levelkit.read(data)
    assert b.encoding == "binary" and b.root["pos"] == (1.0, 2.0, 3.0)
    assert "DmElement" in b.dump_text()


def test_walk_elements_of_a_model(corpus):
    meshes = []
    for path in corpus_files("model", (".dmx",)):
        doc = levelkit.read(path)
        seen = list(levelkit.walk(doc.root))
        assert seen[0] == doc.root
        assert len(seen) == len(set(seen))
        meshes = [e for e in seen if e.type == "DmeVertexData" and "positions" in e]
        if meshes:
            break
    assert meshes, "no model with vertex data in the corpus"
    positions = meshes[0]["positions"]
    assert isinstance(positions, np.ndarray) and positions.ndim == 2 and positions.shape[1] == 3
    assert positions.dtype == np.float32


def test_vmap_is_a_dmx_document(corpus):
    vmap = next(p for p in DMX_FILES if p.suffix == ".vmap")
    doc = levelkit.read(vmap)
    assert doc.format == "vmap" and doc.format_name == "vmap"
    assert doc.root.type == "CMapRootElement"


VMAPS = [p for p in DMX_FILES if p.name.endswith((".vmap", ".vmap.txt"))]


@pytest.mark.parametrize("path", VMAPS, ids=lambda p: p.name)
def test_vmap_entities_and_meshes(path):
    doc = levelkit.read(path)
    try:
        ents, meshes = doc.map_entities, doc.map_meshes
    except levelkit.Error as err:  # files whose root is not a Hammer map (kept as DMX)
        pytest.skip(f"not a Hammer map: {err}")
    for e in ents:
        assert e.element.type == "CMapEntity"
        assert e.properties[0][0] == "classname" or not e.properties
        assert len(e.origin) == 3
    for m in meshes:
        assert m.element.type == "CMapMesh"
        if m.mesh is not None:
            assert m.mesh.type == "CDmePolygonMesh"


def test_vmap_entity_edit_round_trip(corpus):
    path = next(p for p in VMAPS if p.name.startswith("s1i_box_b9"))
    doc = levelkit.read(path)
    start = next(e for e in doc.map_entities if e.classname == "info_player_start")
    start.keyvalues["targetname"] = "py_start"
    again = levelkit.read(doc.to_bytes())
    names = [dict(e.properties).get("targetname") for e in again.map_entities]
    assert "py_start" in names
    mesh = again.map_meshes[0].mesh
    streams = [el for el in levelkit.walk(mesh) if el.type == "CDmePolygonMeshDataStream"]
    assert any(isinstance(s["data"], np.ndarray) for s in streams)


MODELS = [p for p in DMX_FILES if p.parent.name == "model"]


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_dmx_model_views(path):
    doc = levelkit.read(path)
    model = doc.model()
    assert model.nodes or model.controls or model.clips  # flex-only files have no nodes
    for node in model.nodes:
        assert node.kind in ("model", "joint", "dag")
        assert -1 <= node.parent < len(model.nodes)
    for mesh in model.meshes:
        assert mesh.vertex_data is not None
        for field in mesh.fields:
            values = mesh.vertex_data[field]
            assert isinstance(values, (np.ndarray, list))  # arrays: NumPy views or lists
            if field.startswith("position"):
                assert isinstance(values, np.ndarray) and values.shape[1] == 3
        for fs in mesh.face_sets:
            assert isinstance(fs.material, str)
    for clip in model.clips:
        assert clip.frame_count >= 1


def test_views_outlive_replaced_attributes():
    doc = new_doc()
    doc.root["positions"] = np.ones((1000, 3), dtype=np.float32)
    view = doc.root["positions"]
    doc.root["positions"] = np.zeros((2, 3), dtype=np.float32)  # the old array is kept alive
    del doc.root["positions"]
    assert view.shape == (1000, 3) and float(view.sum()) == 3000.0
