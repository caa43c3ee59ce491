"""Cross-check: do the DMX / SMD models levelkit writes import in Blender Source Tools
like the originals do?

    BST_DIR=/path/to/BlenderSourceTools python3 tools/bst_cross_check.py \
        [--levelkit build/cli/levelkit] [--blender blender] [--bst DIR] \
        [--json report.jsonl] [--keep DIR] MODEL_OR_DIR...

BST_DIR (or --bst) is the folder holding BST's io_scene_valvesource package (BST is a
separate GPL add-on: it is not part of levelkit and this script does not fetch it).
Without Blender or BST the script prints why and exits 0 (not part of ctest).

Every .dmx / .dmx.gz / .smd given (folders are searched, non-recursively) is converted
with levelkit into a temporary folder:
    DMX: dmx>smd   reference SMD + VTA + anims/*.smd, as levelkit writes them
         dmx>b2m1  --format model:1  --encoding binary:2
         dmx>b5m18 --format model:18 --encoding binary:5
         dmx>b9m22 --format model:22 --encoding binary:9
    SMD: smd>dmx   default target (binary 5 / model 18)
         smd>dmx22 --target source2 (binary 9 / model 22)
Then the original and every output are imported with BST (tools/bst_import_check.py,
one scene per file) and their figures compared. DMX -> DMX compares everything
(meshes, vertices, polygons, area, bounds, materials, UV layers, weights, shape keys,
bones and rest heads, actions with frame ranges, fcurves and posed bone heads at the
first and last frame). Across formats (DMX <-> SMD) the figures that an SMD cannot keep
are left out: mesh objects (SMD has one mesh), vertices and polygons (SMD is triangles,
BST merges SMD vertices by position and weights), UV layers, fcurve counts and weights;
triangles, area, bounds, materials, shape keys, bones, rest heads and animation poses
are compared. Prints a table and a summary; exits 1 if any output fails or differs.
"""
import argparse
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

DMX_CONVERSIONS = [
    ("dmx>smd", ".smd", []),
    ("dmx>b2m1", ".dmx", ["--format", "model:1", "--encoding", "binary:2"]),
    ("dmx>b5m18", ".dmx", ["--format", "model:18", "--encoding", "binary:5"]),
    ("dmx>b9m22", ".dmx", ["--format", "model:22", "--encoding", "binary:9"]),
]
SMD_CONVERSIONS = [
    ("smd>dmx", ".dmx", []),
    ("smd>dmx22", ".dmx", ["--target", "source2"]),
]

STRICT = ["mesh_objects", "vertices", "polygons", "triangles", "area", "bbox", "materials", "uv_layers",
          "weighted_vertices", "shape_keys", "shape_key_names", "bones", "bone_heads", "actions"]
CROSS = ["triangles", "triangle_area", "bbox", "materials", "shape_keys", "shape_key_names", "bones", "bone_heads",
         "actions"]


def close(a, b, rel=1e-4, abs_=2e-3):
    return abs(a - b) <= abs_ + rel * max(abs(a), abs(b))


def same(a, b, rel=1e-4, abs_=2e-3):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return close(a, b, rel, abs_)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, rel, abs_) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], rel, abs_) for k in a)
    return a == b


def compare_actions(a, b, strict):
    """Bone actions by order (names follow the file names); shape-key actions by count."""
    def bones(acts):  # BST leaves an empty action behind on DMX animation imports: skip those
        return [x for x in acts if x["kind"] == "bone" and x["fcurves"]]
    ab, bb = bones(a), bones(b)
    if len(ab) != len(bb):
        return "bone actions {} vs {}".format(len(ab), len(bb))
    ab.sort(key=lambda x: (x["last"] - x["first"], x["name"]))
    bb.sort(key=lambda x: (x["last"] - x["first"], x["name"]))
    for x, y in zip(ab, bb):
        if not same([x["first"], x["last"]], [y["first"], y["last"]]):
            return "frames {}..{} vs {}..{}".format(x["first"], x["last"], y["first"], y["last"])
        if strict and x["fcurves"] != y["fcurves"]:
            return "fcurves {} vs {}".format(x["fcurves"], y["fcurves"])
        # first and last frame (the frame numbers can differ by rounding: 8 vs 8.0003 -> 9)
        px, py = x.get("pose_heads", {}), y.get("pose_heads", {})
        kx, ky = sorted(px, key=float), sorted(py, key=float)
        if len(kx) != len(ky):
            return "pose frames {} vs {}".format(kx, ky)
        for fx, fy in zip(kx, ky):
            a, b = px[fx], py[fy]
            if a.keys() != b.keys():
                return "posed bones differ at frame {}: -{} +{}".format(
                    fx, sorted(set(a) - set(b))[:3], sorted(set(b) - set(a))[:3])
            worst = max(((max(abs(u - v) for u, v in zip(a[n], b[n])), n) for n in a), default=(0, ""))
            if worst[0] > 0.02:
                return "pose at frame {}: bone {} moved {:.3f}".format(fx, worst[1], worst[0])
    return None


IMPLICIT = "blender_implicit"  # the bone BST's SMD exporter (and levelkit's) puts first in every SMD


def without_implicit(f):
    """Across formats: an SMD always has a node; BST's exporter calls the extra one blender_implicit."""
    f = dict(f)
    heads = dict(f.get("bone_heads", {}))
    heads.pop(IMPLICIT, None)
    f["bone_heads"] = heads
    f["bones"] = len(heads)
    acts = []
    for a in f.get("actions", []):
        a = dict(a)
        if "pose_heads" in a:
            a["pose_heads"] = {k: {n: v for n, v in p.items() if n != IMPLICIT} for k, p in a["pose_heads"].items()}
        acts.append(a)
    f["actions"] = acts
    return f


def compare(orig, out, keys, strict):
    diffs = []
    if not orig.get("ok"):
        return ["original does not import: " + str(orig.get("exception") or orig.get("bst_errors"))]
    if not out.get("ok"):
        return ["output does not import: " + str(out.get("exception") or out.get("bst_errors"))]
    # levelkit re-targets a model 22 file without joints to model < 22 with one joint at the origin
    # in the DmeModel's slot ("root", or "blender_implicit" as BST names it): one bone more in Blender
    added = set(out.get("bone_heads", {})) - set(orig.get("bone_heads", {}))
    if strict and len(added) == 1 and added <= {"root", IMPLICIT} and \
            not any(out["bone_heads"][n] != [0.0, 0.0, 0.0] for n in added):
        out = dict(out)
        out["bone_heads"] = {k: v for k, v in out["bone_heads"].items() if k not in added}
        out["bones"] -= 1
        if out.get("weighted_vertices") and not orig.get("weighted_vertices"):
            out["weighted_vertices"] = 0
    if not strict:
        orig, out = without_implicit(orig), without_implicit(out)
        # a model without bones gets one node in an SMD: not a difference
        if sorted([orig["bones"], out["bones"]]) == [0, 1] and orig.get("mesh_objects") and out.get("mesh_objects"):
            orig["bones"] = out["bones"] = 0
            orig["bone_heads"] = out["bone_heads"] = {}
        # an animation-only SMD has no bind pose: BST takes the rest pose from its first frame
        if not orig.get("mesh_objects") and not out.get("mesh_objects"):
            keys = [k for k in keys if k != "bone_heads"]
    for k in keys:
        if k == "actions":
            d = compare_actions(orig.get(k, []), out.get(k, []), strict)
            if d:
                diffs.append("actions: " + d)
        elif k == "bone_heads":
            a, b = orig.get(k, {}), out.get(k, {})
            if a.keys() != b.keys():
                diffs.append("bone names: -{} +{}".format(sorted(set(a) - set(b))[:3], sorted(set(b) - set(a))[:3]))
            else:
                worst = max(((max(abs(u - v) for u, v in zip(a[n], b[n])), n) for n in a), default=(0, ""))
                if worst[0] > 0.02:
                    diffs.append("rest head of {} moved {:.3f}".format(worst[1], worst[0]))
        elif k == "triangle_area":
            if not same(orig.get(k), out.get(k), rel=1e-2):
                diffs.append("{}: {} vs {}".format(k, orig.get(k), out.get(k)))
        elif not same(orig.get(k), out.get(k)):
            x, y = orig.get(k), out.get(k)
            if isinstance(x, list) and isinstance(y, list) and k in ("materials", "shape_key_names"):
                diffs.append("{}: -{} +{}".format(k, sorted(set(x) - set(y))[:3], sorted(set(y) - set(x))[:3]))
            else:
                diffs.append("{}: {} vs {}".format(k, x, y))
    return diffs


def summary(f):
    if not f:
        return "-"
    if not f.get("ok"):
        return "FAILED"
    acts = [a for a in f.get("actions", []) if a["kind"] == "bone" and a["fcurves"]]
    frames = ",".join("{:g}".format(a["last"] - a["first"] + 1) for a in acts)
    return "m{} v{} t{} b{} sk{} a{}{}".format(f.get("mesh_objects"), f.get("vertices"), f.get("triangles"),
                                              f.get("bones"), f.get("shape_keys"), len(acts),
                                              "({}f)".format(frames) if acts else "")


def run_blender(blender, bst, specs, log):
    """Import every spec; restart Blender after the spec it died on."""
    results = {}
    todo = list(specs)
    # Debian's Blender embeds the system Python and takes its prefix from the first python3 on
    # PATH: run under pyenv or a venv, it would miss the system numpy. Hide this interpreter's bin.
    env = dict(os.environ)
    own_bin = os.path.dirname(os.path.realpath(sys.executable))
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and os.path.realpath(d) != own_bin and "/.pyenv/" not in d + "/"
                                  and not (os.environ.get("VIRTUAL_ENV") and d.startswith(os.environ["VIRTUAL_ENV"])))
    while todo:
        cmd = [blender, "-b", "--factory-startup", "--python", os.path.join(HERE, "bst_import_check.py"), "--",
               "--bst", bst] + todo
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                           env=env)
        log.write(p.stdout)
        if "BSTCHECK " not in p.stdout and "Error: Python:" in p.stdout:
            sys.exit("bst_cross_check: the import script failed in Blender:\n" + p.stdout[-2000:])
        for line in p.stdout.splitlines():
            if "BSTCHECK " in line:
                r = json.loads(line[line.index("BSTCHECK ") + len("BSTCHECK "):])
                results[r["file"]] = r
        done = [s for s in todo if s in results]
        if len(done) == len(todo):
            break
        first = next(i for i, s in enumerate(todo) if s not in results)
        results[todo[first]] = {"file": todo[first], "ok": False,
                                "exception": "Blender exited {} while importing".format(p.returncode)}
        todo = todo[first + 1:]
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--levelkit", default=os.path.join(REPO, "build", "cli", "levelkit"))
    ap.add_argument("--blender", default=os.environ.get("BLENDER", "blender"))
    ap.add_argument("--bst", default=os.environ.get("BST_DIR", ""))
    ap.add_argument("--json", help="write every comparison as a JSON line here")
    ap.add_argument("--keep", help="write the conversions here instead of a temporary folder")
    args = ap.parse_args()

    blender = shutil.which(args.blender)
    if not blender:
        print("bst_cross_check: skipped, no Blender ({!r} not found)".format(args.blender))
        return 0
    if not args.bst or not os.path.isdir(os.path.join(args.bst, "io_scene_valvesource")):
        print("bst_cross_check: skipped, BST_DIR / --bst does not hold io_scene_valvesource ({!r})".format(args.bst))
        return 0
    if not os.access(args.levelkit, os.X_OK):
        print("bst_cross_check: no levelkit at {}".format(args.levelkit))
        return 2

    inputs = []
    for p in args.inputs:
        if os.path.isdir(p):
            for pat in ("*.dmx", "*.dmx.gz", "*.smd"):
                inputs.extend(glob.glob(os.path.join(p, pat)))
        else:
            inputs.append(p)
    inputs = sorted(set(inputs))

    work = args.keep or tempfile.mkdtemp(prefix="bst_cross_")
    os.makedirs(work, exist_ok=True)
    jobs = []  # (input, original spec, kind, output spec or error)
    for n, path in enumerate(inputs):
        base = os.path.basename(path)
        stem = base[:-len(".dmx.gz")] if base.endswith(".dmx.gz") else os.path.splitext(base)[0]
        # BST names meshes and armatures after the file and reports long names as errors: import the
        # original under a short name, as the outputs are
        d = os.path.join(work, "{:03d}_orig".format(n))
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "in" + (".dmx" if base.endswith(".gz") else os.path.splitext(base)[1]))
        if base.endswith(".gz"):  # BST reads plain DMX only
            with gzip.open(path, "rb") as f, open(src, "wb") as g:
                g.write(f.read())
        elif not os.path.exists(src):
            os.symlink(os.path.abspath(path), src)
        orig_spec = src
        vta = os.path.splitext(path)[0] + ".vta"  # levelkit reads the VTA next to an SMD: so does BST here
        if base.lower().endswith(".smd") and os.path.exists(vta):
            if not os.path.exists(os.path.join(d, "in.vta")):
                os.symlink(os.path.abspath(vta), os.path.join(d, "in.vta"))
            orig_spec += "+" + os.path.join(d, "in.vta")
        convs = SMD_CONVERSIONS if base.lower().endswith(".smd") else DMX_CONVERSIONS
        for kind, ext, opts in convs:
            d = os.path.join(work, "{:03d}_{}".format(n, kind.replace(">", "_")))
            os.makedirs(d, exist_ok=True)
            out = os.path.join(d, "out" + ext)
            p = subprocess.run([args.levelkit, "convert", "-q", path, out] + opts, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            if p.returncode != 0 or not os.path.exists(out):
                jobs.append((path, orig_spec, kind, None, (p.stderr or p.stdout).strip()[-300:]))
                continue
            spec = out
            if ext == ".smd":
                if os.path.exists(os.path.join(d, "out.vta")):
                    spec += "+" + os.path.join(d, "out.vta")
                for a in sorted(glob.glob(os.path.join(d, "anims", "*.smd"))):
                    spec += "+" + a
            jobs.append((path, orig_spec, kind, spec, None))

    specs = sorted({j[1] for j in jobs} | {j[3] for j in jobs if j[3]})
    with open(os.path.join(work, "blender.log"), "w") as log:
        results = run_blender(blender, args.bst, specs, log)

    rows, tally = [], {}
    jf = open(args.json, "w") if args.json else None
    for path, src, kind, spec, err in jobs:
        orig = results.get(src, {})
        out = results.get(spec, {}) if spec else {}
        if err:
            diffs = ["levelkit convert failed: " + err]
        else:
            diffs = compare(orig, out, CROSS if ("smd" in kind.split(">")[0] or kind == "dmx>smd") else STRICT,
                            strict=(kind.startswith("dmx>b")))
        t = tally.setdefault(kind, [0, 0, 0, 0])  # files, output imports, original imports, match
        t[0] += 1
        t[1] += bool(out.get("ok"))
        t[2] += bool(orig.get("ok"))
        t[3] += not diffs
        rows.append((os.path.basename(path), kind, summary(orig), summary(out), "yes" if not diffs else "no",
                     "; ".join(diffs)))
        if jf:
            jf.write(json.dumps({"file": path, "conversion": kind, "match": not diffs, "diffs": diffs,
                                 "original": orig, "output": out, "output_spec": spec}) + "\n")
    if jf:
        jf.close()

    w0 = min(60, max(len(r[0]) for r in rows)) if rows else 10
    w2 = max([len(r[2]) for r in rows] + [8])
    w3 = max([len(r[3]) for r in rows] + [8])
    print("{:<{}}  {:<9}  {:<{}}  {:<{}}  {}".format("file", w0, "conv", "original", w2, "levelkit", w3, "match"))
    for r in rows:
        name = r[0] if len(r[0]) <= w0 else "..." + r[0][-(w0 - 3):]
        print("{:<{}}  {:<9}  {:<{}}  {:<{}}  {}{}".format(name, w0, r[1], r[2], w2, r[3], w3, r[4],
                                                        ("  " + r[5]) if r[5] else ""))
    print()
    print("(m meshes, v vertices, t triangles, b bones, sk shape keys, a actions (frames))")
    for kind, (n, ok_out, ok_orig, match) in tally.items():
        print("{:<9}  {} files: original imports {}, levelkit output imports {}, match {}".format(
            kind, n, ok_orig, ok_out, match))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r[4] == "yes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
