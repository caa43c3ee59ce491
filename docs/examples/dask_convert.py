#!/usr/bin/env python3
"""Converts a folder of maps on a Dask cluster: one levelkit.convert per file, spread over worker
processes (levelkit releases the GIL, so threads work too; processes also spread over machines).

    python3 docs/examples/dask_convert.py MAPS_DIR OUT_DIR [--to vmap] [--workers 2]
    python3 docs/examples/dask_convert.py MAPS_DIR OUT_DIR --scheduler tcp://host:8786

Every task writes its own output atomically; a map that fails is reported with its
levelkit.Error (which pickles with its Diagnostic) and the others still convert.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import levelkit


def convert_one(src: str, dst: str, options: dict) -> dict:
    """One job, run on a worker. Returns what levelkit.convert returns, or the error."""
    try:
        result = levelkit.convert(src, dst, **options)
        return {"source": src, "ok": True, "path": result["path"],
                "written": [str(p) for p in result["written"]],
                "warnings": len(result["warnings"])}
    except levelkit.Error as err:
        return {"source": src, "ok": False, "error": str(err), "code": err.code}


def jobs(src_dir: Path, dst_dir: Path, to: str, pattern: str = "*.vmf") -> list[tuple[str, str]]:
    return [(str(p), str(dst_dir / (p.stem + "." + to))) for p in sorted(src_dir.glob(pattern))]


def convert_folder(client, src_dir: Path, dst_dir: Path, to: str = "vmap",
                   pattern: str = "*.vmf", **options) -> list[dict]:
    """Submits one task per file to a dask.distributed Client and gathers the results in order."""
    dst_dir.mkdir(parents=True, exist_ok=True)
    pairs = jobs(src_dir, dst_dir, to, pattern)
    futures = [client.submit(convert_one, s, d, options, pure=False) for s, d in pairs]
    return client.gather(futures)


def main() -> int:
    from dask.distributed import Client, LocalCluster

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument("--to", default="vmap")
    ap.add_argument("--pattern", default="*.vmf")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler", help="address of a running scheduler (default: a local one)")
    args = ap.parse_args()
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                     processes=True, dashboard_address=None))
    with client:
        results = convert_folder(client, args.src, args.dst, args.to, args.pattern)
    failed = [r for r in results if not r["ok"]]
    for r in results:
        print(("ok   " if r["ok"] else "FAIL ") + r["source"] + ("" if r["ok"] else ": " + r["error"]))
    print(f"{len(results) - len(failed)}/{len(results)} converted")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
