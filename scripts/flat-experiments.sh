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
#   table  session 23: kBatch's offset table (flat.hpp) up to 64 rows at 1 B (the old rule),
#          128 rows at 1 B (the new default), 128 rows at 1-8 B, on the batched shapes of the
#          full and probe presets (smem_flat, bulk_flat, reg_tile, auto, memcpy), and the
#          skinny class at the default (the table's new layout); the flat tests at 1-8 B too
# Builds tmakit_bench and tmakit_gpu_tests first (cuTENSOR from .cutensor when carried; step
# table: ARCHS=90 TARGETS="tmakit_bench tmakit_gpu_tests tmakit_sm90_tests"). Logs and JSON
# under $OUT; a compact table of each benchmark (scripts/bench_table.py) last.
set -uo pipefail
build=${1:-build-gpu}
steps=${2:-test,bench}
out=${OUT:-$build}
mkdir -p "$out"
source scripts/gpu-experiment-lib.sh
gpu_build "${ARCHS:-80-real;90}"  # ARCHS, TARGETS: gpu-experiment-lib.sh
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
if has table; then
  gpu_tests flat-table '*smem_flat*:*bulk_flat*:Registry/Layout.*:AutoVariant*' || rc=1
  TMAKIT_FLAT_BATCH_TABLE_BYTES=8 gpu_tests flat-table8 '*smem_flat*:*bulk_flat*:Registry/Layout.*' || rc=1
  TMAKIT_FLAT_BATCH_TABLE_BYTES=8 TMAKIT_REQUIRE_GPU=1 "$build/tests/tmakit_sm90_tests" \
    --gtest_brief=1 --gtest_filter='BulkFlat.*' > "$out/gtest-bulk-flat-table8.log" 2>&1 || rc=1
  grep -E "FAILED|PASSED|Failure" "$out/gtest-bulk-flat-table8.log"
  sel='^(memcpy|smem_flat|bulk_flat|reg_tile|auto)/e(1|2|4|8)/batched/'
  for cfg in rows64:TMAKIT_FLAT_TABLE_MAX_ROWS=64 rows128:TMAKIT_FLAT_TABLE_MAX_ROWS=128 \
    bytes8:TMAKIT_FLAT_BATCH_TABLE_BYTES=8; do
    tag=${cfg%%:*}
    (export "${cfg#*:}"; bench "table-$tag" full "$sel"; bench "table-probe-$tag" probe "$sel")
  done
  for p in table table-probe; do
    python3 scripts/bench_compare.py smem_flat,bulk_flat,auto "$out/bench-$p"-{rows64,rows128,bytes8}.json
  done
  bench table-skinny full '^(memcpy|smem_flat|bulk_flat|auto)/e(1|2|4|8)/skinny/'
  python3 scripts/bench_compare.py smem_flat,bulk_flat,auto "$out/bench-table-skinny.json"
  (cd "$out" && tar cJf table.tar.xz ./*.json ./*.log ./*.txt && rm -f ./*.json ./*.log ./*.txt)
fi
exit $rc
