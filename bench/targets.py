#!/usr/bin/env python3
"""Measures every row of the performance targets (issue 16) in one sitting and prints the
README's table: each round runs every row once, so that a drift of the machine's speed shows as
a spread across rounds instead of one row measured on a fast hour and another on a slow one.

    python3 bench/targets.py [--rounds 3] [--build build] [--runs 21] [--batch-runs 9]
                             [--vs OTHER_BUILD]

Library rows come from the Google Benchmark programs in BUILD/bench (medians of --reps
repetitions a round; their rates are bytes / 2^20 a second, MiB/s, and a target written in MB/s
is compared in MiB/s, which asks 4.9% more); whole-process rows come from bench/cli_bench.py's
timing of the CLI (medians of --runs runs a round). The batch runs -j 1 and -j 2 in turn,
--batch-runs pairs, and gives the median of the pairs' ratios: "on two cores against one" holds
the -j 1 run to one processor, as a lone job's VMF reader would otherwise use both. A cell
gives each round's median; "met" counts the rounds whose median meets the target. Needs the
corpus ($LEVELKIT_CORPUS, default ../shared/corpus) and a Release build with the benchmarks.

Each round also measures the machine itself (BUILD/bench/yardstick_bench: fixed work that is
not levelkit's: parsing numbers, small allocations, page faults) and prints it under the table:
this is a virtual machine whose speed drifts by hours, and a round that misses a target while
the yardstick is slow too was measured on a slow machine, not a slower levelkit.

--vs OTHER_BUILD (the build folder of another checkout, e.g. the release a target was set
against) measures every row of that build too, in turn with this one within each round (the
same benchmark run, the same whole-process command), and prints a second table: this build's
speed over the other's, the median of the rounds' ratios (above 1: this build is faster; for
memory, the other's peak over this one's). A ratio holds when the machine's speed drifts
between rounds, which the absolute figures do not. A row the other build cannot run (a
benchmark it does not have) is left out.
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
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cli_bench  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MIB = 1 << 20


def gbench(exe: Path, pattern: str, reps: int) -> dict[str, dict]:
    """Median aggregate of every benchmark of `exe` matching `pattern`, by run name."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([str(exe), f"--benchmark_filter={pattern}",
                        f"--benchmark_repetitions={reps}",
                        "--benchmark_report_aggregates_only=true",
                        f"--benchmark_out={out.name}", "--benchmark_out_format=json"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        got = json.load(open(out.name))["benchmarks"]
    # With one repetition Google Benchmark prints no aggregates: the run is its own median.
    want = "median" if reps > 1 else None
    return {b["run_name"]: b for b in got if b.get("aggregate_name") == want}


def mib_s(b: dict | None) -> float | None:
    return None if b is None else b["bytes_per_second"] / MIB


def pick(rows: dict[str, dict], *names: str) -> dict | None:
    """The first of `names` that `rows` has (builds of other dates name benchmarks otherwise:
    BM_VmfParseTyped/1 before the light tokenizer had an argument of its own)."""
    for n in names:
        if n in rows:
            return rows[n]
    return None


def largest(rows: dict[str, dict], prefix: str) -> dict:
    """The row of the largest input among those whose name starts with `prefix`: bytes per
    iteration are the rate times the time."""
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    cands = [b for name, b in rows.items() if name.startswith(prefix)]
    if not cands:
        return None
    return max(cands, key=lambda b: b["bytes_per_second"] * b["real_time"] * scale[b["time_unit"]])


# (row, unit, target, compare) with compare "ge" or "le"
ROWS = [
    ("`levelkit info`, largest VMF, whole process", "ms", 30.0, "le"),
    ("VMF typed read, one thread (3 largest maps)", "MiB/s", 500.0, "ge"),
    ("VMF typed read, default threads (here 2)", "MiB/s", 300.0, "ge"),
    ("VMF normalised write", "MiB/s", 500.0, "ge"),
    ("DMX keyvalues2 read, largest", "MiB/s", 600.0, "ge"),
    ("DMX keyvalues2 write, largest", "MiB/s", 600.0, "ge"),
    ("WMP2 text read, largest", "MiB/s", 300.0, "ge"),
    ("`$$M` text read, largest", "MiB/s", 300.0, "ge"),
    ("VMF → VMAP, largest VMF, whole process", "ms", 100.0, "le"),
    ("VMF → VMAP peak memory", "× the VMF", 6.0, "le"),
    ("batch `convert -o DIR --to vmap`, every corpus map: -j 2 on two cores against -j 1 held "
     "to one", "×", 1.8, "ge"),
    ("same, against -j 1 free to use both cores (its VMF reader does)", "×", 1.8, "ge"),
]


def library_rows(build: Path, reps: int) -> list[float | None]:
    bench = build / "bench"
    vmf_rows = gbench(bench / "vmf_bench",
                      "BM_VmfParseTyped/(threads:[01]/light:1|[01]/)|BM_VmfWriteNormalised", reps)
    dmx_rows = gbench(bench / "dmx_bench", "kv2_", reps)
    wmp_rows = gbench(bench / "wmp_bench", "BM_ReadText", reps)
    return [
        mib_s(pick(vmf_rows, "BM_VmfParseTyped/threads:1/light:1/real_time",
                   "BM_VmfParseTyped/1/real_time")),
        mib_s(pick(vmf_rows, "BM_VmfParseTyped/threads:0/light:1/real_time",
                   "BM_VmfParseTyped/0/real_time")),
        mib_s(pick(vmf_rows, "BM_VmfWriteNormalised")),
        mib_s(largest(dmx_rows, "kv2_read/")),
        mib_s(largest(dmx_rows, "kv2_write/")),
        mib_s(pick(wmp_rows, "BM_ReadText/mm:0")),
        mib_s(pick(wmp_rows, "BM_ReadText/mm:1")),
    ]


# The machine's speed in a round: fixed work that is not levelkit's (bench/yardstick_bench.cpp),
# so that a slow round shows as a slow machine. (name, benchmark, unit, rate key)
YARDSTICK = [
    ("parsing numbers (std::from_chars, 1 MiB)", "BM_YardstickParse", "MiB/s", "bytes_per_second"),
    ("small allocations made and freed (200,000)", "BM_YardstickAlloc", "M/s", "items_per_second"),
    ("fresh memory touched (32 MiB, page faults)", "BM_YardstickFault", "MiB/s", "bytes_per_second"),
]


def yardstick(build: Path, reps: int) -> list[float | None]:
    exe = build / "bench" / "yardstick_bench"
    if not exe.is_file():
        return [None] * len(YARDSTICK)
    got = gbench(exe, "BM_Yardstick", reps)
    out = []
    for _, name, unit, key in YARDSTICK:
        b = got.get(name)
        out.append(None if b is None else b[key] / (MIB if unit == "MiB/s" else 1e6))
    return out


def one_round(args, builds: list[Path], vmf: Path, maps: list[str], tmp: Path) -> list[list]:
    """Every row for each build (this one first), the builds in turn within each row."""
    lib = [library_rows(b, args.reps) for b in builds]
    clis = [str(b / "cli" / "levelkit") for b in builds]
    info = cli_bench.measure_paired([[c, "info", str(vmf)] for c in clis], args.runs)
    vmap = cli_bench.measure_paired(
        [[c, "convert", "-q", str(vmf), str(tmp / f"out{i}.vmap")] for i, c in enumerate(clis)],
        args.runs)
    out = tmp / "batch"

    def clean():
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()

    one_core = {min(os.sched_getaffinity(0))}
    rows = []
    for i, cli in enumerate(clis):
        batch = [[cli, "convert", "-q", "-j", str(j), "--to", "vmap", "-o", str(out), *maps]
                 for j in (1, 2)]
        try:
            pinned = cli_bench.measure_paired(batch, args.batch_runs, before=clean,
                                              cpus=[one_core, None])[1]["pairs"][0]
            free = cli_bench.measure_paired(batch, args.batch_runs, before=clean)[1]["pairs"][0]
        except SystemExit:
            if i == 0:
                raise
            pinned = free = None  # the other build has no batch conversion
        rows.append([
            info[i]["wall_s"][0] * 1e3,
            *lib[i][:7],
            vmap[i]["wall_s"][0] * 1e3,
            vmap[i]["peak_mib"][0] * MIB / vmf.stat().st_size,
            pinned,
            free,
        ])
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", type=Path, default=REPO / "build")
    corpus = os.environ.get("LEVELKIT_CORPUS") or REPO.parent / "shared" / "corpus"
    ap.add_argument("--corpus", type=Path, default=Path(corpus))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5, help="Google Benchmark repetitions a round")
    ap.add_argument("--runs", type=int, default=21, help="whole-process runs a round")
    ap.add_argument("--batch-runs", type=int, default=9, help="batch pairs a round")
    ap.add_argument("--json", action="store_true", help="print every round's figures as JSON")
    ap.add_argument("--vs", type=Path, help="another build folder, measured in turn with this one")
    args = ap.parse_args()
    builds = [args.build] + ([args.vs] if args.vs else [])
    for b in builds:
        if not (b / "cli" / "levelkit").is_file() or not (b / "bench" / "vmf_bench").is_file():
            print(f"{b}: the CLI and the benchmarks are not built", file=sys.stderr)
            return 2
    vmfs = sorted((args.corpus / "vmf").glob("*.vmf"), key=lambda p: p.stat().st_size,
                  reverse=True)
    if not vmfs:
        print(f"corpus not found at {args.corpus}: skipped", file=sys.stderr)
        return 0
    maps = cli_bench.batch_maps(args.corpus)
    tmp = Path(tempfile.mkdtemp(prefix="lk-targets-"))
    start = datetime.now(timezone.utc)
    try:
        rounds, others, machine = [], [], []
        for r in range(args.rounds):
            machine.append(yardstick(args.build, args.reps))
            got = one_round(args, builds, vmfs[0], maps, tmp)
            rounds.append(got[0])
            if args.vs:
                others.append(got[1])
            print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    end = datetime.now(timezone.utc)
    if args.json:
        print(json.dumps({"start": start.isoformat(), "end": end.isoformat(),
                          "vs": str(args.vs) if args.vs else None,
                          "rows": [{"row": row[0], "unit": row[1], "target": row[2],
                                    "rounds": [rd[i] for rd in rounds],
                                    "vs_rounds": [rd[i] for rd in others]}
                                   for i, row in enumerate(ROWS)],
                          "yardstick": [{"work": y[0], "unit": y[2],
                                         "rounds": [m[i] for m in machine]}
                                        for i, y in enumerate(YARDSTICK)]}, indent=2))
        return 0
    print(f"{start:%Y-%m-%d %H:%M}–{end:%H:%M} UTC, {args.rounds} rounds, "
          f"{os.cpu_count()} processors\n")
    print("| job | round medians | target | met |")
    print("|---|---|---|---|")
    for i, (name, unit, target, cmp) in enumerate(ROWS):
        vals = [rd[i] for rd in rounds]
        digits = 2 if unit in ("×", "× the VMF") else 1 if unit == "ms" else 0
        cell = " / ".join(f"{v:.{digits}f}" for v in vals)
        met = sum((v >= target) if cmp == "ge" else (v <= target) for v in vals)
        sign = "≥" if cmp == "ge" else "≤"
        print(f"| {name} | {cell} {unit} | {sign} {target:g} {unit} | {met} of {len(vals)} |")
    if any(v is not None for m in machine for v in m):
        print("\nThe machine in each round (bench/yardstick_bench.cpp: fixed work, not levelkit's; "
              "a slow round of the rows above with a slow yardstick is the machine):\n")
        print("| yardstick | round medians |")
        print("|---|---|")
        for i, (name, _, unit, _) in enumerate(YARDSTICK):
            vals = [m[i] for m in machine]
            cell = " / ".join("-" if v is None else f"{v:.0f}" for v in vals)
            print(f"| {name} | {cell} {unit} |")
    if args.vs:
        print(f"\nAgainst {args.vs} (each round: both builds, in turn), this build's speed over "
              "the other's (above 1: faster; for memory, the other's peak over this one's):\n")
        print("| job | this build | other build | ratio, median of rounds [min-max] |")
        print("|---|---|---|---|")
        for i, (name, unit, target, cmp) in enumerate(ROWS):
            pairs = [(a[i], b[i]) for a, b in zip(rounds, others)
                     if a[i] is not None and b[i] is not None]
            if not pairs or i >= len(ROWS) - 2:  # the batch rows are ratios themselves
                continue
            ratios = [(a / b) if cmp == "ge" else (b / a) for a, b in pairs]
            digits = 2 if unit in ("×", "× the VMF") else 1 if unit == "ms" else 0
            mine = statistics.median(a for a, _ in pairs)
            theirs = statistics.median(b for _, b in pairs)
            print(f"| {name} | {mine:.{digits}f} {unit} | {theirs:.{digits}f} {unit} | "
                  f"{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}] |")
        for i in (len(ROWS) - 2, len(ROWS) - 1):
            a = [r[i] for r in rounds]
            b = [r[i] for r in others if r[i] is not None]
            if b:
                print(f"| {ROWS[i][0]} | {statistics.median(a):.2f} × | "
                      f"{statistics.median(b):.2f} × | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
