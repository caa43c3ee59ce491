"""levelkit.geometry: the drawable polygons of any map format as NumPy arrays."""
from __future__ import annotations

import numpy as np
import pytest

import levelkit
from conftest import corpus_files


def check(g):
    n = g.positions.shape[0]
    assert g.positions.shape == (n, 3) and g.positions.dtype == np.float64
    assert g.normals.shape == (n, 3) and g.uvs.shape == (n, 2)
    assert g.polygon_begin.shape == (g.polygon_count + 1,) and g.polygon_begin[-1] == n
    assert g.polygon_material.shape == (g.polygon_count,)
    assert g.polygon_material.max(initial=0) < max(len(g.materials), 1)
    tris = g.triangles()
    sizes = np.diff(g.polygon_begin.astype(np.int64))
    assert tris.shape == (int((sizes - 2).sum()), 3) and tris.dtype == np.uint32
    assert tris.max(initial=0) < n
    assert np.allclose(np.linalg.norm(g.normals, axis=1), 1.0, atol=1e-6)


def test_vmf_geometry(demo_vmf):
    g = levelkit.geometry(demo_vmf)
    check(g)
    assert g.polygon_count > 0
    with_tools = levelkit.geometry(demo_vmf, tools=True)
    assert with_tools.polygon_count >= g.polygon_count
    # the brushes' polygons agree with the VMF document's own clipping
    vmf = levelkit.read(demo_vmf)
    pts = np.concatenate([s.polygons().points for s in vmf.world.solids])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    assert np.all(g.positions.min(axis=0) >= lo - 1e-6)


def test_wmp_geometry(demo_wmp):
    check(levelkit.geometry(demo_wmp))


@pytest.mark.parametrize("path", corpus_files("bsp", (".bsp",))[:3], ids=lambda p: p.name)
def test_bsp_geometry(path):
    g = levelkit.geometry(path)
    check(g)
    assert g.polygon_count > 0


def test_geometry_of_a_model_is_an_error(tmp_path):
    with pytest.raises(levelkit.Error) as e:
        levelkit.geometry(b"version 1\nnodes\n0 \"root\" -1\nend\n")
    assert e.value.code
