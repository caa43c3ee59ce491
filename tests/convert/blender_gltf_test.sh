#!/usr/bin/env bash
# glTF files exported by Blender (Debian's blender, headless) through levelkit: the skinned,
# shape-keyed and animated scenes of tools/blender_gltf_samples.py, as .glb and as .gltf + .bin,
# go glTF -> model -> DMX -> model and glTF -> model -> glTF -> model with the same content
# (ModelGltfCorpus.OtherToolsFilesToDmxAndBack over $LEVELKIT_GLTF_SAMPLES).
# Usage: blender_gltf_test.sh SOURCE_DIR TEST_BINARY WORK_DIR. Exit 77 (skipped) without Blender.
set -euo pipefail
src="$1" test_bin="$2" work="$3"
if ! command -v blender >/dev/null; then
    echo "blender is not installed (apt-get install blender python3-numpy): skipped"
    exit 77
fi
out="$work/blender_gltf_samples"
rm -rf "$out"
mkdir -p "$out"
if ! blender -b --factory-startup --python "$src/tools/blender_gltf_samples.py" -- "$out" \
        >"$work/blender_gltf_samples.log" 2>&1; then
    cat "$work/blender_gltf_samples.log"
    exit 1
fi
n=$(find "$out" -name '*.glb' -o -name '*.gltf' | wc -l)
if [ "$n" -ne 6 ]; then
    echo "Blender wrote $n glTF files, expected 6:"
    cat "$work/blender_gltf_samples.log"
    exit 1
fi
LEVELKIT_GLTF_SAMPLES="$out" "$test_bin" --gtest_filter=ModelGltfCorpus.OtherToolsFilesToDmxAndBack
