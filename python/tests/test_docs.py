"""The task scripts of docs/python.md run as written (in a folder with the files they name)."""
from __future__ import annotations

import os
import re
import shutil

import pytest

import levelkit
from conftest import REPO, corpus_dir

DOC = REPO / "docs" / "python.md"


def blocks() -> dict[str, str]:
    """The ```python blocks under each '### ' heading (and the errors section)."""
    text = DOC.read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"^#{2,3} (.+?)\n(.*?)(?=^#{2,3} |\Z)", text, re.S | re.M):
        code = re.findall(r"```python\n(.*?)```", m.group(2), re.S)
        if code:
            out[m.group(1).strip()] = "\n".join(code)
    return out


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    shutil.copy(REPO / "samples" / "demo.vmf", tmp_path / "map.vmf")
    root = corpus_dir()
    if root is not None:
        bsp = min((root / "bsp").glob("*.bsp"), key=lambda p: p.stat().st_size)
        shutil.copy(bsp, tmp_path / "map.bsp")
        model = next(p for p in sorted((root / "model").glob("*.dmx"))
                     if b"DmeVertexData" in p.read_bytes())
        shutil.copy(model, tmp_path / "model.dmx")
        maps = tmp_path / "maps"
        maps.mkdir()
        for p in sorted((root / "vmf").glob("*.vmf"), key=lambda p: p.stat().st_size)[:4]:
            shutil.copy(p, maps / p.name)
    else:
        (tmp_path / "maps").mkdir()
        shutil.copy(REPO / "samples" / "demo.vmf", tmp_path / "maps" / "demo.vmf")
    (tmp_path / "vmaps").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(title: str) -> None:
    code = blocks()[title]
    exec(compile(code, f"docs/python.md: {title}", "exec"), {"__name__": "__doc_example__"})


def test_the_doc_has_the_four_tasks():
    titles = list(blocks())
    for t in ("Open a VMF", "Open a BSP", "Read a DMX", "Convert a folder"):
        assert any(x.startswith(t) for x in titles), t


def title(prefix: str) -> str:
    return next(t for t in blocks() if t.startswith(prefix))


def test_vmf_task(workdir):
    run(title("Open a VMF"))
    vmf = levelkit.read(workdir / "map_edited.vmf")
    assert vmf.by_class("light")[0]["_light"] == "255 220 180 300"
    relay = vmf.by_target("lights_relay")[0]
    assert [o.input for o in relay.outputs][-1] == "TurnOn"
    assert [o.delay for o in relay.outputs if o.input == "Toggle"] == [0.5]
    block = vmf.by_target("py_block")[0]
    assert block.solids[0].polygons().valid
    assert vmf.world["comment"] == "edited with levelkit"


def test_bsp_task(workdir):
    if corpus_dir() is None:
        pytest.skip("corpus not found: the BSP task needs a corpus map")
    run(title("Open a BSP"))
    bsp = levelkit.read(workdir / "map_edited.bsp")
    assert bsp.by_class("worldspawn")[0]["message"] == "Edited with levelkit"
    assert bsp.by_target("py_marker")[0]["origin"] == "0 0 64"
    assert bsp.pak_read("materials/py/marker.vmt").startswith(b'"UnlitGeneric"')


def test_dmx_task(workdir, capsys):
    if corpus_dir() is None:
        pytest.skip("corpus not found: the DMX task needs a corpus model")
    run(title("Read a DMX"))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] in ("binary", "keyvalues2")
    assert any(", 3)" in line for line in lines[1:]), lines  # a (n, 3) positions array


def test_convert_task(workdir, capsys):
    run(title("Convert a folder"))
    out = capsys.readouterr().out
    converted = sorted(p.name for p in (workdir / "vmaps").iterdir())
    assert converted, out
    for name in converted:
        assert levelkit.read(workdir / "vmaps" / name).format == "vmap"


def test_errors_example(capsys):
    run("Errors and warnings")
    code, line, column, *_ = capsys.readouterr().out.split()
    assert code.startswith("kv.") and int(line) >= 3 and int(column) >= 1
