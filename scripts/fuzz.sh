#!/usr/bin/env bash
# Long fuzzing runs: builds the libFuzzer targets (clang, ASan + UBSan, as .ci/run does) and runs
# each for MINUTES (default 30), as many at once as there are cores, seeded from fuzz/seeds/<target>
# and the corpus folders the target names, with the input size limit and the dictionary
# (fuzz/dict/) that fuzz/CMakeLists.txt gives the target. Prints executions, coverage and
# features per target; a crash leaves its input in build-fuzz/artifacts/ and makes the script
# exit 1.
# Usage: scripts/fuzz.sh [MINUTES] [TARGET ...]   (default: every target of build-fuzz/fuzzers.txt)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
minutes="${1:-30}"
shift || true
export LEVELKIT_CORPUS="${LEVELKIT_CORPUS:-$root/../shared/corpus}"
jobs="$(nproc)"

"$root/scripts/deps.sh"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1" \
      -DLEVELKIT_LIBFUZZER=ON -DLEVELKIT_SANITIZE=address,undefined \
      -DLEVELKIT_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$jobs"

wanted=" $* "
mkdir -p build-fuzz/artifacts build-fuzz/long
pids=()
names=()
while IFS='|' read -r name subdirs max_len dict; do
    [ -n "$name" ] || continue
    [ $# -eq 0 ] || [[ "$wanted" == *" $name "* ]] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 5; done
    seeds=("fuzz/seeds/$name")
    for d in $subdirs; do
        [ -d "$LEVELKIT_CORPUS/$d" ] && seeds+=("$LEVELKIT_CORPUS/$d")
    done
    extra=()
    [ -n "$dict" ] && extra=(-dict="$dict")
    mkdir -p "build-fuzz/long/$name"
    echo "running $name for $minutes min, inputs up to ${max_len:-4096} bytes ${dict:+(dictionary $dict)}"
    "build-fuzz/fuzz/$name" -max_total_time=$((minutes * 60)) -max_len="${max_len:-4096}" \
        -timeout=60 -rss_limit_mb=2048 -artifact_prefix="build-fuzz/artifacts/$name-" \
        -print_final_stats=1 "${extra[@]}" "build-fuzz/long/$name" "${seeds[@]}" \
        >"build-fuzz/long/$name.log" 2>&1 &
    pids+=("$!")
    names+=("$name")
done < build-fuzz/fuzzers.txt

status=0
for i in "${!pids[@]}"; do
    n="${names[$i]}"
    log="build-fuzz/long/$n.log"
    if wait "${pids[$i]}"; then
        execs="$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')"
        cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')"
        ft="$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}')"
        echo "$n: $execs runs, coverage $cov edges, $ft features, no crash"
    else
        echo "!! $n found a crash (build-fuzz/artifacts/$n-*):"
        tail -n 40 "$log"
        status=1
    fi
done
exit $status
