#!/usr/bin/env bash
# smem_flat on the GPU machine (issue 16, session 10), in one device call:
#   scripts/flat-experiments.sh [build-dir] [steps]
# steps, comma-separated (default test,bench):
#   test   smem_flat's tests and the registry-wide skinny, layout and huge-skinny tests
#          (TMAKIT_REQUIRE_GPU=1)
#   bench  the skinny and batched classes of the full preset (every technique and peer)
#   probe  the probe preset (skinny and batched shapes the full preset does not name)
#   tiles  smem_flat's unit size (TMAKIT_FLAT_TILE_BYTES 8192 / 16384 / 32768) on both classes
#   full   the whole full preset (every class, accumulate and host overhead): bench-full.json
# Builds tmakit_bench and tmakit_gpu_tests first (cuTENSOR from .cutensor when carried). Logs
# and JSON under $OUT; a compact table of each benchmark (scripts/bench_table.py) last.
set -uo pipefail
build=${1:-build-gpu}
steps=${2:-test,bench}
out=${OUT:-$build}
mkdir -p "$out"
source scripts/gpu-experiment-lib.sh
gpu_build "80-real;90"
rc=0
if has test; then
  gpu_tests flat '*smem_flat*:*Skinny*:Registry/Layout.*'
  rc=$?
fi
if has bench; then
  bench full-skinny-batched full '/(skinny|batched)/'
  python3 scripts/bench_table.py "$out/bench-full-skinny-batched.json"
fi
if has probe; then
  bench probe probe '/(skinny|batched)/'
  python3 scripts/bench_table.py "$out/bench-probe.json"
fi
if has full; then
  bench full full '.'
  python3 scripts/bench_table.py "$out/bench-full.json" | grep -E "^(skinny|batched|#|class)"
fi
if has tiles; then
  for t in 8192 16384 32768; do
    TMAKIT_FLAT_TILE_BYTES=$t bench "tiles-$t" full '^(memcpy|smem_flat)/.*/(skinny|batched)/'
    echo "TMAKIT_FLAT_TILE_BYTES=$t"
    python3 scripts/bench_table.py "$out/bench-tiles-$t.json" --tokens smem_flat
  done
fi
exit $rc
