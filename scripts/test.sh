#!/usr/bin/env bash
# Builds levelkit with its tests and runs the whole suite (unit, corpus, fuzz seed replays,
# the find_package consumer check, the Python package's pytest suite). Corpus tests read
# ../shared/corpus (or $LEVELKIT_CORPUS) and skip with a message when it is absent.
# Usage: scripts/test.sh [build-dir]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
"$root/scripts/deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLEVELKIT_PYTHON=ON >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" -j"$(nproc)" --output-on-failure
