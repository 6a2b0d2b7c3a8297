#!/usr/bin/env bash
# Knob sweeps of the async-copy family on the GPU machine (docs/perf-notes.md, session 7):
# one sm_90 build per configuration (compile-time knobs through CMAKE_CUDA_FLAGS), then the
# benchmark rows of the knob's techniques against memcpy, medians.
#   CONFIGS   space-separated name=flags, e.g. "b2048x16=-DTMAKIT_BULK_LINE_BYTES=2048%-DTMAKIT_BULK_LINES=16"
#             (% separates flags)
#   FILTER    the benchmark filter (a regex over <token>/e<E>/<class>/<shape>)
# Usage: CONFIGS=... FILTER=... scripts/family-experiments.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp/family}
mkdir -p "$out"
for cfg in $CONFIGS; do
  name=${cfg%%=*}
  flags=${cfg#*=}
  flags=${flags//%/ }
  b=build-exp-$name
  cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DTMAKIT_BUILD_TESTS=OFF -DCMAKE_CUDA_FLAGS="$flags" > "$out/$name-build.log" 2>&1 &&
    cmake --build "$b" --target tmakit_bench >> "$out/$name-build.log" 2>&1 ||
    { echo "$name: build failed"; tail -5 "$out/$name-build.log"; continue; }
  "$b/bench/tmakit_bench" --preset=full --benchmark_filter="$FILTER" \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json > /dev/null 2>&1
  python3 - "$name" "$out/$name.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
for b in json.load(open(path))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    g = b["GBps"] / 1e9 if b["GBps"] > 1e6 else b["GBps"]
    print("%-10s %-48s %7.0f GB/s %6.1f%%" % (name, b["run_name"].split("/iterations")[0], g,
                                             b.get("pct_of_copy", 0)))
PY
done
