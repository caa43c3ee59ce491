#!/usr/bin/env bash
# Builds levelkit and runs its main jobs on the samples bundled in samples/.
# Usage: scripts/demo.sh   (from anywhere; output files go to build/demo/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# The demo needs no glTF validator (only the tests do): Debian packages only.
LEVELKIT_NO_NPM=1 "$root/scripts/deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" -j"$(nproc)" --target levelkit_tool
lk="$root/build/cli/levelkit"
out="$root/build/demo"
mkdir -p "$out"
sample="$root/samples/demo.vmf"
level="$root/samples/demo.wmp"
model="$root/samples/demo.smd"

step() { printf '\n== %s\n' "$*"; }

step "levelkit info samples/demo.vmf"
"$lk" info "$sample"

step "levelkit roundtrip: read, write back, compare bytes"
"$lk" roundtrip "$sample"

step "levelkit validate: brushes, displacements, references"
"$lk" validate "$sample"

step "levelkit geometry: brush polygons and displacement grids -> build/demo/demo.obj"
"$lk" geometry "$sample" -o "$out/demo.obj"
"$lk" geometry --json "$sample" >"$out/demo_geometry.json"
head -c 300 "$out/demo_geometry.json"
echo " ..."

step "levelkit convert: normalised rewrite -> build/demo/demo_normalised.vmf"
"$lk" convert "$sample" "$out/demo_normalised.vmf"
"$lk" info --json "$out/demo_normalised.vmf"

step "levelkit convert: VMF -> Source 2 VMAP (binary 9) -> build/demo/demo.vmap, mesh validation"
"$lk" convert "$sample" "$out/demo.vmap"
"$lk" info "$out/demo.vmap"
"$lk" validate "$out/demo.vmap"

step "levelkit convert: VMAP -> VMF (closed convex meshes back to brushes)"
# Exit 1: the displacement mesh has no brush form and is reported (the VMF is still written).
"$lk" convert "$out/demo.vmap" "$out/demo_from_vmap.vmf" || true

step "Gamestudio: samples/demo.wmp read, round trip, group resolution to \$\$M, conversion to VMF"
"$lk" info "$level"
"$lk" roundtrip "$level"
"$lk" convert "$level" "$out/demo.\$\$M"
"$lk" convert "$level" "$out/demo_from_wmp.vmf"
"$lk" validate "$out/demo_from_wmp.vmf"

step "levelkit convert: VMF -> glTF 2.0 (binary .glb: opens in Blender, a browser, a game engine)"
"$lk" convert "$sample" "$out/demo.glb"

step "levelkit render: pictures without a GPU (isometric; top-down overview with its .txt)"
"$lk" render "$sample" -o "$out/demo_iso.png" --view iso
"$lk" render "$sample" -o "$out/demo_overview.png" --view top

step "Models: samples/demo.smd (a crate with a lid bone) -> DMX model (binary 5 / model 18) -> SMD"
"$lk" info "$model"
"$lk" convert "$model" "$out/demo_model.dmx"
"$lk" info "$out/demo_model.dmx"
"$lk" validate "$out/demo_model.dmx"
"$lk" convert "$out/demo_model.dmx" "$out/demo_model.smd"

step "Models to glTF 2.0 (skin, materials) and back to a Source 2 DMX model (binary 9 / model 22)"
"$lk" convert "$model" "$out/demo_model.glb"
"$lk" convert "$out/demo_model.glb" "$out/demo_model_s2.dmx" --format model:22 --encoding binary:9
"$lk" validate "$out/demo_model_s2.dmx"

step "Python: the levelkit package (build/python), reading the sample and editing an entity"
cmake --build "$root/build" -j"$(nproc)" --target _levelkit
py="$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$root/build/CMakeCache.txt")"
PYTHONPATH="$root/build/python" "${py:-python3}" - "$sample" "$out/demo_from_python.vmf" <<'PY'
import sys
import levelkit
vmf = levelkit.read(sys.argv[1])
print(vmf)
for light in vmf.by_class("light"):
    light["_light"] = "255 220 180 300"
vmf.write(sys.argv[2])
print("wrote", sys.argv[2], "with", len(vmf.by_class("light")), "lights retinted")
PY

step "levelkit formats: every format and the conversions the graph runs between them"
"$lk" formats

printf '\nOutputs are in %s\n' "$out"
