#!/usr/bin/env bash
# Run a benchmark preset on the GPU machine and turn it into docs/results.md + docs/img/*.png.
#   scripts/bench.sh quick|full [build-dir]
# Writes under $OUT (the device tool brings it back) when set, else under the build dir.
set -euo pipefail
preset=${1:-quick}
build=${2:-build-gpu}
out=${OUT:-$build}
"$build/bench/tmakit_bench" --preset="$preset" --benchmark_out="$out/bench-$preset.json" \
  --benchmark_out_format=json --benchmark_counters_tabular=true > "$out/bench-$preset.txt"
python3 bench/report.py "$out/bench-$preset.json" --md "$out/results.md" --img "$out" \
  --command "scripts/bench.sh $preset"
