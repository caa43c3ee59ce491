#!/usr/bin/env python3
"""Whole-process timing of the levelkit CLI, as users run it: start-up, reading, the work, the
output written, exit. Each job runs --runs times after one warm-up run; wall time, CPU time
(user + system of the child) and peak RSS of the child are printed as median [min-max].

    python3 bench/cli_bench.py [--cli build/cli/levelkit] [--runs 11] [--json]

Jobs, on the largest corpus files ($LEVELKIT_CORPUS, default ../shared/corpus):
  info          levelkit info on the largest VMF
  vmf-vmap      levelkit convert of the largest VMF to binary VMAP (peak RSS also as a multiple
                of the VMF's size)
  bsp-vmf       levelkit convert of the largest BSP to VMF (the decompiler)
  batch-j1/j2   levelkit convert -o DIR --to vmap over every corpus map (VMF, BSP, WMP, WMPB,
                $$M; one file per name) with one job and with two; the ratio j1/j2 is the batch
                speed-up on two cores. The output folder is emptied before each run, outside the
                timing. --paired runs the two in turn (j1, j2, j1, ...) and reports the ratio of
                each pair (median [min-max]), which holds when the machine's speed drifts;
                --one-core keeps the one-job run on one processor (the VMF reader would
                otherwise use every core even with one job)
Only the Python standard library is used (os.wait4 gives the child's own CPU time and peak RSS).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_once(cmd: list[str], cpus: set[int] | None = None) -> tuple[float, float, float]:
    """(wall s, cpu s, peak RSS MiB) of one run of `cmd` (on the processors `cpus`, if given);
    fails on a non-zero exit."""
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, preexec_fn=pin)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):  # 1: finished with warnings (see `levelkit --help`)
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def summary(cmd: list[str], runs: list[tuple[float, float, float]]) -> dict:
    walls, cpus, rss = (list(x) for x in zip(*runs))
    return {
        "cmd": cmd,
        "wall_s": [statistics.median(walls), min(walls), max(walls)],
        "cpu_s": [statistics.median(cpus), min(cpus), max(cpus)],
        "peak_mib": [statistics.median(rss), min(rss), max(rss)],
        "wall_runs": walls,
    }


def measure_paired(cmds: list[list[str]], runs: int, before=None,
                   cpus: list[set[int] | None] | None = None) -> list[dict]:
    """The commands run in turn, `runs` rounds after a warm-up round (page cache, first touch
    of the binary); the summary of each command after the first also holds `pairs`, the first
    one's wall time over its own, round by round."""
    cpus = cpus or [None] * len(cmds)
    got: list[list[tuple[float, float, float]]] = [[] for _ in cmds]
    for k in range(runs + 1):
        for i, cmd in enumerate(cmds):
            if before:
                before()
            r = run_once(cmd, cpus[i])
            if k > 0:
                got[i].append(r)
    res = [summary(cmd, g) for cmd, g in zip(cmds, got)]
    for r, g in zip(res[1:], got[1:]):
        ratios = [a[0] / b[0] for a, b in zip(got[0], g)]
        r["pairs"] = [statistics.median(ratios), min(ratios), max(ratios)]
    return res


def measure(cmd: list[str], runs: int, before=None, cpus: set[int] | None = None) -> dict:
    return measure_paired([cmd], runs, before, [cpus])[0]


def batch_maps(corpus: Path) -> list[str]:
    """Every corpus map the batch converts: VMF, BSP, WMP, WMPB and $$M, one file per name."""
    maps, seen = [], set()
    for sub, exts in [("vmf", {".vmf"}), ("bsp", {".bsp"}), ("wmp", {".wmp", ".wmpb", ".$$m"})]:
        for p in sorted((corpus / sub).glob("*")):
            if p.suffix.lower() in exts and p.stem.lower() not in seen:
                seen.add(p.stem.lower())
                maps.append(str(p))
    return maps


def fmt(fig: list[float], scale: float, unit: str, digits: int = 1) -> str:
    med, lo, hi = (x * scale for x in fig)
    return f"{med:.{digits}f} {unit} [{lo:.{digits}f}-{hi:.{digits}f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", type=Path, default=REPO / "build" / "cli" / "levelkit")
    ap.add_argument("--corpus", type=Path,
                    default=Path(os.environ.get("LEVELKIT_CORPUS") or REPO.parent / "shared" / "corpus"))
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--batch-runs", type=int, default=3)
    ap.add_argument("--only", action="append", help="run only these jobs (repeatable)")
    ap.add_argument("--paired", action="store_true",
                    help="batch: run -j 1 and -j 2 in turn and report the ratio of each pair")
    ap.add_argument("--one-core", action="store_true",
                    help="batch: run -j 1 on one processor")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.cli.is_file():
        print(f"{args.cli}: not built", file=sys.stderr)
        return 2
    vmfs = sorted((args.corpus / "vmf").glob("*.vmf"), key=lambda p: p.stat().st_size, reverse=True)
    bsps = sorted((args.corpus / "bsp").glob("*.bsp"), key=lambda p: p.stat().st_size, reverse=True)
    if not vmfs or not bsps:
        print(f"corpus not found at {args.corpus}: skipped", file=sys.stderr)
        return 0
    cli = str(args.cli)
    tmp = Path(tempfile.mkdtemp(prefix="lk-cli-bench-"))
    want = lambda name: not args.only or name in args.only  # noqa: E731
    res: dict[str, dict] = {}
    try:
        if want("info"):
            res["info"] = measure([cli, "info", str(vmfs[0])], args.runs)
        if want("vmf-vmap"):
            res["vmf-vmap"] = measure([cli, "convert", "-q", str(vmfs[0]), str(tmp / "out.vmap")],
                                      args.runs)
            res["vmf-vmap"]["input_bytes"] = vmfs[0].stat().st_size
        if want("bsp-vmf"):
            res["bsp-vmf"] = measure([cli, "convert", "-q", str(bsps[0]), str(tmp / "out.vmf")],
                                     args.runs)
        if want("batch-j1") or want("batch-j2"):
            maps = batch_maps(args.corpus)
            out = tmp / "batch"

            def clean():
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir()

            cmds = {f"batch-j{jobs}": [cli, "convert", "-q", "-j", str(jobs), "--to", "vmap",
                                       "-o", str(out), *maps]
                    for jobs in (1, 2) if want(f"batch-j{jobs}")}
            one = {min(os.sched_getaffinity(0))} if args.one_core else None
            cpus = [one if name == "batch-j1" else None for name in cmds]
            if args.paired and len(cmds) == 2:
                res.update(zip(cmds, measure_paired(list(cmds.values()), args.batch_runs,
                                                    before=clean, cpus=cpus)))
            else:
                for (name, cmd), c in zip(cmds.items(), cpus):
                    res[name] = measure(cmd, args.batch_runs, before=clean, cpus=c)
            for name in cmds:
                res[name]["cmd"] = res[name]["cmd"][:9] + [f"... {len(maps)} maps"]
                res[name]["inputs"] = len(maps)
                res[name]["input_bytes"] = sum(Path(m).stat().st_size for m in maps)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    for name, r in res.items():
        line = (f"{name:10} wall {fmt(r['wall_s'], 1e3, 'ms')}  cpu {fmt(r['cpu_s'], 1e3, 'ms')}  "
                f"peak {fmt(r['peak_mib'], 1, 'MiB')}")
        if "input_bytes" in r and name == "vmf-vmap":
            line += f"  ({r['peak_mib'][0] * 1048576 / r['input_bytes']:.1f}x the VMF)"
        if "inputs" in r:
            line += f"  ({r['inputs']} maps, {r['input_bytes'] / 1e6:.0f} MB)"
        print(line)
    if "batch-j1" in res and "batch-j2" in res:
        j1 = "-j 1 on one processor" if args.one_core else "-j 1"
        if "pairs" in res["batch-j2"]:
            print(f"batch speed-up, -j 2 against {j1}: "
                  f"{fmt(res['batch-j2']['pairs'], 1, 'x', 2)} (ratio of each pair)")
        else:
            print(f"batch speed-up, -j 2 against {j1}: "
                  f"{res['batch-j1']['wall_s'][0] / res['batch-j2']['wall_s'][0]:.2f}x (medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
