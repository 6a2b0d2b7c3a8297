#!/usr/bin/env bash
# tma_classes on the GPU machine (issue 16, session 13), in one device call:
#   scripts/classes-experiments.sh [build-dir] [steps]
# steps, comma-separated (default test,bench,probe):
#   test   tma_classes' tests, its layout tests included, and the sm_90 TMA-store probe
#          (TMAKIT_REQUIRE_GPU=1), or TEST_FILTER / SM90_FILTER
#   bench  the odd class of the full preset: tma_classes against memcpy, smem_realign (the
#          odd shapes' best before) and the peers (TOKENS overrides the list)
#   probe  the probe preset's odd shapes
# Builds tmakit_bench and tmakit_gpu_tests first (sm_90 only; scripts/gpu-experiment-lib.sh).
# Logs and JSON under $OUT; a compact table of each benchmark (scripts/bench_table.py) last.
set -uo pipefail
build=${1:-build-gpu}
steps=${2:-test,bench,probe}
out=${OUT:-$build}
mkdir -p "$out"
source scripts/gpu-experiment-lib.sh
EXTRA_TARGETS=tmakit_sm90_tests gpu_build 90
rc=0
if has test; then
  TMAKIT_REQUIRE_GPU=1 timeout 300 "$build/tests/tmakit_gpu_tests" --gtest_brief=1 \
    --gtest_filter="${TEST_FILTER:-*tma_classes*}" > "$out/gtest-classes.log" 2>&1
  rc=$?
  TMAKIT_REQUIRE_GPU=1 timeout 300 "$build/tests/tmakit_sm90_tests" --gtest_brief=1 \
    --gtest_filter="${SM90_FILTER:-TmaStoreAt.*:*tma_classes*}" > "$out/gtest-classes-sm90.log" 2>&1 ||
    rc=1
  grep -E "FAILED|Failure|PASSED|tests ran|rror" "$out"/gtest-classes*.log | head -30
fi
tokens=${TOKENS:-memcpy|tma_classes|smem_realign|cutensor|cublaslt|cublas_geam}
# Medians from the console, when a time limit cut the JSON short.
medians() { grep median "$1" | awk '{print $1, $NF, $(NF-1)}' | sed 's|/iterations[^ ]*||'; }
if has bench; then
  bench classes full "^($tokens)/.*/odd/"
  python3 scripts/bench_table.py "$out/bench-classes.json" --tokens tma_classes,smem_realign ||
    medians "$out/bench-classes.txt"
fi
if has probe; then
  bench probe probe "^($tokens)/.*/odd/"
  python3 scripts/bench_table.py "$out/bench-probe.json" --tokens tma_classes,smem_realign ||
    medians "$out/bench-probe.txt"
fi
exit $rc
