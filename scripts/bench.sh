#!/usr/bin/env bash
# Run a benchmark preset on the GPU machine and turn it into results.md + charts.
#   scripts/bench.sh quick|full [build-dir] [tmakit_bench flags...]
# e.g. scripts/bench.sh full build-gpu --benchmark_filter=/square/   (one class; BENCH_TAG names
# the output, so several parts of one run can be merged: bench/report.py a.json b.json ...)
# Writes bench-<preset>[-<tag>].json/.txt under $OUT (the device tool brings it back) when set,
# else under the build dir, then bench/report.py over every bench-<preset>*.json there.
# cuTENSOR is a peer when the build found it (CUTENSOR_ROOT at configure time); the JSON's
# context says "cutensor": "not found" otherwise.
set -euo pipefail
preset=${1:-quick}
build=${2:-build-gpu}
shift $(( $# >= 2 ? 2 : $# ))
out=${OUT:-$build}
tag=${BENCH_TAG:+-$BENCH_TAG}
"$build/bench/tmakit_bench" --preset="$preset" --benchmark_out="$out/bench-$preset$tag.json" \
  --benchmark_out_format=json --benchmark_counters_tabular=true "$@" > "$out/bench-$preset$tag.txt"
python3 bench/report.py "$out"/bench-"$preset"*.json --md "$out/results.md" --img "$out" \
  --command "scripts/bench.sh $preset"
