#!/usr/bin/env bash
# reg_permute on the GPU machine (issue 16, session 12), in one device call:
#   scripts/reg-experiments.sh [build-dir] [steps]
# Environment: TEST_FILTER, TOKENS / PROBE_TOKENS (techniques benchmarked), CLASSES (default
# skinny|batched), TABLE_TOKENS (the table's columns).
# steps, comma-separated (default test,bench,probe):
#   test   reg_permute's tests, the registry-wide chunk-aligned skinny tests and the layout
#          tests (TMAKIT_REQUIRE_GPU=1)
#   bench  the skinny and batched classes of the full preset: reg_permute against memcpy, the
#          techniques `auto` picks there, and the peers
#   probe  the probe preset's skinny and batched shapes
# Builds tmakit_bench and tmakit_gpu_tests first (sm_90 only, for a quicker build; cuTENSOR from
# .cutensor when carried; scripts/gpu-experiment-lib.sh). Logs
# and JSON under $OUT; a compact table of each benchmark (scripts/bench_table.py) last.
set -uo pipefail
build=${1:-build-gpu}
steps=${2:-test,bench,probe}
out=${OUT:-$build}
mkdir -p "$out"
source scripts/gpu-experiment-lib.sh
gpu_build 90
rc=0
if has test; then
  gpu_tests reg "${TEST_FILTER:-*reg_permute*:*ChunkAligned*:Registry/Layout.*}"
  rc=$?
fi
tokens=${TOKENS:-'memcpy|copy|reg_permute|smem_flat|smem_strip|smem_padded|vec_padded|tma_load_store|tma_pipeline|tma_wide|auto|cutensor|cublaslt|cublas_geam'}
classes=${CLASSES:-skinny|batched}
table=${TABLE_TOKENS:-reg_permute,smem_flat,auto}
if has bench; then
  bench reg full "^($tokens)/.*/($classes)/"
  python3 scripts/bench_table.py "$out/bench-reg.json" --tokens $table
fi
if has probe; then
  bench probe probe "^(${PROBE_TOKENS:-memcpy|reg_permute|smem_flat|smem_sector|auto|cutensor|cublaslt})/.*/($classes)/"
  python3 scripts/bench_table.py "$out/bench-probe.json" --tokens $table
fi
exit $rc
