#!/usr/bin/env python3
"""Times the same map-scripting tasks with levelkit (from Python) and with srctools (pure Python,
run by ../shared/tools/srctools-run.sh) on the largest corpus files, in one run, and compares a
whole-file VMF parse from Python with the C++ benchmark (vmf_bench BM_VmfReadDocument).

    PYTHONPATH=build/python python3 python/bench/bench_srctools.py [--cpp-bench build/bench/vmf_bench]

Tasks (both libraries do the same steps; outputs stay in memory or a temporary folder):
  vmf-parse        parse the largest VMF into entities and brushes
  vmf-entities     parse it, set a keyvalue on every prop_* entity, find an entity by
                   targetname, add an output to it, serialise the map
  vmf-write        serialise the largest VMF, parsed (and for levelkit edited, so it is not
                   written back verbatim) beforehand, untimed
  dmx-kv2-read     parse the largest keyvalues2 DMX into its elements
  bsp-query        open the largest BSP, parse its entity lump, list the light* entities and
                   every targetname
  bsp-entities     open the largest BSP, parse its entity lump, set a keyvalue on every entity,
                   add an entity, write the map to a file (levelkit's write is atomic and
                   fsyncs the file; srctools' save does neither)
Times are the minimum of --repeat runs (levelkit) and --srctools-repeat runs (srctools).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SRCTOOLS_SCRIPT = r'''
import io, json, sys, time, tempfile, os
from srctools.keyvalues import Keyvalues
from srctools.vmf import VMF, Output
from srctools.bsp import BSP
from srctools.dmx import Element

vmf_path, bsp_path, repeat, dmx_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tmp = tempfile.mkdtemp()

def vmf_parse():
    with open(vmf_path, encoding="utf-8", errors="surrogateescape") as f:
        return VMF.parse(Keyvalues.parse(f, vmf_path))

def vmf_entities():
    vmf = vmf_parse()
    name = None
    for ent in vmf.entities:
        if ent["classname"].startswith("prop_"):
            ent["skin"] = "1"
        if name is None and ent["targetname"]:
            name = ent["targetname"]
    found = list(vmf.search(name)) if name else []
    if found:
        found[0].add_out(Output("OnUser1", "!self", "Kill"))
    buf = io.StringIO()
    vmf.export(buf)
    return len(buf.getvalue())

parsed = vmf_parse()

def vmf_write():
    buf = io.StringIO()
    parsed.export(buf)
    return len(buf.getvalue())

def dmx_kv2_read():
    with open(dmx_path, "rb") as f:
        return Element.parse(f)

def bsp_query():
    bsp = BSP(bsp_path)
    ents = bsp.ents
    lights = [e for e in ents.entities if e["classname"].startswith("light")]
    named = [e["targetname"] for e in ents.entities if e["targetname"]]
    return len(lights) + len(named)

def bsp_entities():
    bsp = BSP(bsp_path)
    ents = bsp.ents
    for ent in ents.entities:
        ent["lk_bench"] = "1"
    ents.create_ent("info_target", targetname="lk_bench_target")
    bsp.save(os.path.join(tmp, "out.bsp"))

out = {}
for name, fn in [("vmf-parse", vmf_parse), ("vmf-entities", vmf_entities),
                 ("vmf-write", vmf_write), ("dmx-kv2-read", dmx_kv2_read),
                 ("bsp-query", bsp_query), ("bsp-entities", bsp_entities)]:
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    out[name] = best
print(json.dumps(out))
'''


def levelkit_tasks(vmf_path: Path, bsp_path: Path, repeat: int,
                   dmx_path: Path) -> dict[str, float]:
    import levelkit

    tmp = Path(tempfile.mkdtemp())

    def vmf_parse():
        return levelkit.read(vmf_path)

    def vmf_entities():
        vmf = levelkit.read(vmf_path)
        name = None
        for ent in vmf.entities:
            if ent.classname.startswith("prop_"):
                ent["skin"] = "1"
            if name is None and ent.get("targetname"):
                name = ent["targetname"]
        found = vmf.by_target(name) if name else []
        if found:
            found[0].add_output("OnUser1", "!self", "Kill")
        return len(vmf.to_bytes())

    parsed = levelkit.read(vmf_path)
    # One edit, so the map is serialised from the typed model as srctools does (an unedited
    # map is written back as its original bytes).
    parsed.world["comment"] = "levelkit bench"

    def vmf_write():
        return len(parsed.to_bytes())

    def dmx_kv2_read():
        return levelkit.read(dmx_path)

    def bsp_query():
        bsp = levelkit.read(bsp_path)
        ents = bsp.entities
        lights = [e for e in ents if e.classname.startswith("light")]
        named = [e["targetname"] for e in ents if "targetname" in e]
        return len(lights) + len(named)

    def bsp_entities():
        bsp = levelkit.read(bsp_path)
        for ent in bsp.entities:
            ent["lk_bench"] = "1"
        bsp.add_entity("info_target", targetname="lk_bench_target")
        bsp.write(tmp / "out.bsp")

    out = {}
    for name, fn in [("vmf-parse", vmf_parse), ("vmf-entities", vmf_entities),
                     ("vmf-write", vmf_write), ("dmx-kv2-read", dmx_kv2_read),
                     ("bsp-query", bsp_query), ("bsp-entities", bsp_entities)]:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        out[name] = min(times)
    return out


def cpp_read_document(bench: Path) -> float | None:
    """Seconds per iteration of BM_VmfReadDocument (the 3 largest VMFs, lossless tree + model)."""
    if not bench.is_file():
        return None
    r = subprocess.run([str(bench), "--benchmark_filter=BM_VmfReadDocument$",
                        "--benchmark_format=json", "--benchmark_repetitions=5",
                        "--benchmark_report_aggregates_only=true"],
                       capture_output=True, text=True, check=True)
    data = json.loads(r.stdout[r.stdout.index("{"):])
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
            return b["real_time"] * unit
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path,
                    default=Path(os.environ.get("LEVELKIT_CORPUS") or REPO.parent / "shared" / "corpus"))
    ap.add_argument("--srctools", type=Path, default=REPO.parent / "shared" / "tools" / "srctools-run.sh")
    ap.add_argument("--cpp-bench", type=Path, default=REPO / "build" / "bench" / "vmf_bench")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--srctools-repeat", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()

    vmfs = sorted((args.corpus / "vmf").glob("*.vmf"), key=lambda p: p.stat().st_size, reverse=True)
    bsps = sorted((args.corpus / "bsp").glob("*.bsp"), key=lambda p: p.stat().st_size, reverse=True)
    if not vmfs or not bsps:
        print(f"corpus not found at {args.corpus}", file=sys.stderr)
        return 2
    vmf_path, bsp_path = vmfs[0], bsps[0]
    kv2 = [p for sub in ("dmx", "model") for p in (args.corpus / sub).glob("*.dmx")
           if b"encoding keyvalues2 " in p.read_bytes()[:120]]
    if not kv2:
        print(f"no keyvalues2 DMX under {args.corpus}", file=sys.stderr)
        return 2
    dmx_path = max(kv2, key=lambda p: p.stat().st_size)

    lk = levelkit_tasks(vmf_path, bsp_path, args.repeat, dmx_path)
    st = None
    if args.srctools.is_file():
        r = subprocess.run([str(args.srctools), "-c", SRCTOOLS_SCRIPT, str(vmf_path), str(bsp_path),
                            str(args.srctools_repeat), str(dmx_path)], capture_output=True, text=True)
        if r.returncode == 0:
            st = json.loads(r.stdout.strip().splitlines()[-1])
        else:
            print("srctools failed:\n" + r.stderr[-2000:], file=sys.stderr)

    # Whole-file parse from Python vs C++: the 3 largest VMFs, as vmf_bench reads them.
    import levelkit
    three = vmfs[:3]
    py_times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        for p in three:
            levelkit.read(p)
        py_times.append(time.perf_counter() - t)
    py_times.sort()
    py_three = py_times[len(py_times) // 2]
    cpp_three = cpp_read_document(args.cpp_bench)

    figures = {"vmf": vmf_path.name, "vmf_bytes": vmf_path.stat().st_size, "bsp": bsp_path.name,
               "dmx": dmx_path.name, "dmx_bytes": dmx_path.stat().st_size,
               "bsp_bytes": bsp_path.stat().st_size, "levelkit": lk, "srctools": st,
               "python_read_3_largest_vmf_s": py_three, "cpp_read_3_largest_vmf_s": cpp_three}
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"VMF: {vmf_path.name} ({vmf_path.stat().st_size / 1e6:.2f} MB); "
          f"BSP: {bsp_path.name} ({bsp_path.stat().st_size / 1e6:.2f} MB); "
          f"DMX: {dmx_path.name} ({dmx_path.stat().st_size / 1e6:.2f} MB)")
    print(f"{'task':<14} {'levelkit':>12} {'srctools':>12} {'ratio':>9}")
    for task, t in lk.items():
        s = st.get(task) if st else None
        ratio = f"{s / t:8.0f}x" if s else "      n/a"
        s_text = f"{s * 1e3:10.1f}ms" if s else "         n/a"
        print(f"{task:<14} {t * 1e3:10.1f}ms {s_text} {ratio}")
    mb = sum(p.stat().st_size for p in three) / 1e6
    print(f"whole-file VMF read, 3 largest maps ({mb:.1f} MB): Python {py_three * 1e3:.1f} ms"
          + (f", C++ {cpp_three * 1e3:.1f} ms (BM_VmfReadDocument median), "
             f"Python/C++ = {py_three / cpp_three:.2f}" if cpp_three else ", C++ bench not found"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
