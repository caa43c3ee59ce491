#!/usr/bin/env bash
# Long fuzzing runs: builds the libFuzzer targets (clang, ASan + UBSan, as .ci/run does) and runs
# each for MINUTES (default 30), as many at once as there are cores, seeded from fuzz/seeds/<target>
# and the corpus folders the target names, with fuzz/dict/<dict> where the target reads a text
# format. Prints executions, coverage and features per target; a crash leaves its input in
# build-fuzz/artifacts/ and makes the script exit 1.
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

dict_for() {
    case "$1" in
        fuzz_kv | fuzz_vmf | vmf_to_vmap_fuzz) echo fuzz/dict/keyvalues.dict ;;
        dmx_kv2_fuzz | vmap_fuzz | fuzz_dmxmodel) echo fuzz/dict/dmx_kv2.dict ;;
        fuzz_wmp_text) echo fuzz/dict/wmp_text.dict ;;
        fuzz_smd) echo fuzz/dict/smd.dict ;;
    esac
}

wanted=" $* "
mkdir -p build-fuzz/artifacts build-fuzz/long
pids=()
names=()
while IFS='|' read -r name subdirs; do
    [ -n "$name" ] || continue
    [ $# -eq 0 ] || [[ "$wanted" == *" $name "* ]] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 5; done
    seeds=("fuzz/seeds/$name")
    for d in $subdirs; do
        [ -d "$LEVELKIT_CORPUS/$d" ] && seeds+=("$LEVELKIT_CORPUS/$d")
    done
    dict=()
    d="$(dict_for "$name")"
    [ -n "$d" ] && dict=(-dict="$d")
    mkdir -p "build-fuzz/long/$name"
    echo "running $name for $minutes min ${d:+(dictionary $d)}"
    "build-fuzz/fuzz/$name" -max_total_time=$((minutes * 60)) -max_len=131072 -timeout=20 \
        -rss_limit_mb=2048 -artifact_prefix="build-fuzz/artifacts/$name-" -print_final_stats=1 \
        "${dict[@]}" "build-fuzz/long/$name" "${seeds[@]}" >"build-fuzz/long/$name.log" 2>&1 &
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
