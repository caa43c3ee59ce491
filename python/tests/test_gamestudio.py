"""Gamestudio levels (WMP) and the other formats without a typed Python class: lossless writing
through the format-erased Document."""
from __future__ import annotations

import pytest

import levelkit
from conftest import corpus_files

WMP_FILES = corpus_files("wmp", (".wmp", ".$$m"))


@pytest.mark.parametrize("path", WMP_FILES, ids=lambda p: p.name)
def test_corpus_wmp_round_trip_is_byte_identical(path):
    doc = levelkit.read(path)
    assert isinstance(doc, levelkit.WmpDocument)
    assert doc.format == ("wmp_m" if path.suffix.lower() == ".$$m" else "wmp")
    assert doc.to_bytes() == path.read_bytes()


def test_corpus_present_for_wmp(corpus):
    assert WMP_FILES, "no WMP files in the corpus"


def test_demo_wmp_info(demo_wmp):
    info = levelkit.read(demo_wmp, typed=False).info()
    assert info["format"] == "wmp"


def test_objects_and_blocks(demo_wmp):
    wmp = levelkit.read(demo_wmp)
    assert isinstance(wmp, levelkit.WmpDocument)
    info = levelkit.read(demo_wmp, typed=False).info()
    root = wmp.root
    seen, stack = [], [root]
    while stack:
        o = stack.pop()
        seen.append(o)
        stack.extend(o.children)
    assert len(seen) <= len(wmp.objects)
    blocks = [o.block for o in wmp.objects if o.kind == "block"]
    assert blocks and all(b is not None for b in blocks)
    b = blocks[0]
    v = b.vertices
    assert v.ndim == 2 and v.shape[1] == 3 and not v.flags.writeable
    for face in b.faces:
        assert all(0 <= i < len(v) for i in face.indices)
    assert sum(len(b.faces) for b in wmp.blocks) == wmp.face_count
    models = [o.model for o in wmp.objects if o.kind == "model"]
    assert [m.file for m in models] == [m.file for m in wmp.models]
    # the same counts as `levelkit info`
    assert (len(wmp.blocks), wmp.face_count, wmp.entity_count, len(wmp.models)) == \
           (info["blocks"], info["faces"], info["entities"], info["models"])
    assert wmp.dialect == info["variant"]


@pytest.mark.parametrize("path", WMP_FILES[::10], ids=lambda p: p.name)
def test_corpus_objects_and_blocks(path):
    wmp = levelkit.read(path)
    for b in wmp.blocks:
        n = len(b.vertices)
        for f in b.faces:
            assert all(0 <= i < n for i in f.indices) or not f.indices
    for o in wmp.objects:
        assert o.kind in ("group", "level", "block", "model", "light", "start", "sound",
                          "path", "region")
