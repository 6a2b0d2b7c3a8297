#!/usr/bin/env bash
# tma_classes on the GPU machine (issue 16, session 13), in one device call:
#   scripts/classes-experiments.sh [build-dir] [steps]
# steps, comma-separated (default test,bench,probe):
#   test   tma_classes' tests and the registry-wide layout tests (TMAKIT_REQUIRE_GPU=1), or
#          TEST_FILTER
#   bench  the odd class of the full preset and its 16384^2 squares: tma_classes against
#          memcpy, smem_realign (the odd shapes' best before), the TMA tile techniques, auto
#          and the peers
#   probe  the probe preset's odd shapes
# Builds tmakit_bench and tmakit_gpu_tests first (sm_90 only; scripts/gpu-experiment-lib.sh).
# Logs and JSON under $OUT; a compact table of each benchmark (scripts/bench_table.py) last.
set -uo pipefail
build=${1:-build-gpu}
steps=${2:-test,bench,probe}
out=${OUT:-$build}
mkdir -p "$out"
source scripts/gpu-experiment-lib.sh
gpu_build 90
rc=0
if has test; then
  TMAKIT_REQUIRE_GPU=1 timeout 300 "$build/tests/tmakit_gpu_tests" --gtest_brief=1 \
    --gtest_filter="${TEST_FILTER:-*tma_classes*:Registry/Layout.*}" > "$out/gtest-classes.log" 2>&1
  rc=$?
  grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-classes.log" | head -30
fi
tokens='memcpy|copy|tma_classes|smem_realign|smem_wide|smem_sector|tma_pipeline|tma_wide|auto|cutensor|cublaslt|cublas_geam'
if has bench; then
  bench classes full "^($tokens)/.*/(odd/|square/16384x16384)"
  python3 scripts/bench_table.py "$out/bench-classes.json" --tokens tma_classes,smem_realign,auto
fi
if has probe; then
  bench probe probe "^($tokens)/.*/odd/"
  python3 scripts/bench_table.py "$out/bench-probe.json" --tokens tma_classes,smem_realign,auto
fi
exit $rc
