"""levelkit.convert under Dask: a folder of corpus maps converted on a LocalCluster of worker
processes gives exactly the files of a serial run (docs/examples/dask_convert.py)."""
from __future__ import annotations

import importlib.util
import shutil

import pytest

from conftest import REPO

distributed = pytest.importorskip("distributed")


def load_example():
    spec = importlib.util.spec_from_file_location("dask_convert",
                                                  REPO / "docs" / "examples" / "dask_convert.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_folder_to_vmap_on_a_local_cluster_equals_serial(corpus, tmp_path):
    example = load_example()
    # a handful of small maps, so the test stays quick
    maps = sorted((corpus / "vmf").glob("*.vmf"), key=lambda p: p.stat().st_size)[:6]
    src = tmp_path / "maps"
    src.mkdir()
    for p in maps:
        (src / p.name).symlink_to(p)

    serial_dir = tmp_path / "serial"
    serial_dir.mkdir()
    serial = [example.convert_one(s, d, {}) for s, d in example.jobs(src, serial_dir, "vmap")]

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    try:
        with distributed.Client(cluster, timeout=60) as client:
            parallel = example.convert_folder(client, src, tmp_path / "dask", "vmap")
            workers = client.run(lambda: __import__("os").getpid())
    finally:
        cluster.close()
    assert len(workers) == 2 and len(set(workers.values())) == 2

    assert [r["ok"] for r in parallel] == [r["ok"] for r in serial]
    assert any(r["ok"] for r in serial)
    for s, p in zip(serial, parallel):
        assert s["source"] == p["source"]
        if not s["ok"]:
            assert s["code"] == p["code"]
            continue
        for a, b in zip(s["written"], p["written"]):
            with open(a, "rb") as fa, open(b, "rb") as fb:
                assert fa.read() == fb.read(), f"{b} differs from the serial run"
    shutil.rmtree(tmp_path / "dask")
