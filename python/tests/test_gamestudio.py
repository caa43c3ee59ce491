"""Gamestudio levels (WMP) and the other formats without a typed Python class: lossless writing
through the format-erased Document."""
from __future__ import annotations

import pytest

import levelkit
from conftest import corpus_files

WMP_FILES = corpus_files("wmp", (".wmp",))


@pytest.mark.parametrize("path", WMP_FILES, ids=lambda p: p.name)
def test_corpus_wmp_round_trip_is_byte_identical(path):
    doc = levelkit.read(path)
    assert doc.format == "wmp"
    assert doc.to_bytes() == path.read_bytes()


def test_corpus_present_for_wmp(corpus):
    assert WMP_FILES, "no WMP files in the corpus"


def test_demo_wmp_info(demo_wmp):
    info = levelkit.read(demo_wmp).info()
    assert info["format"] == "wmp"
