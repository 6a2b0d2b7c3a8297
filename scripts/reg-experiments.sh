#!/usr/bin/env bash
# reg_permute on the GPU machine (issue 16, session 12), in one device call:
#   scripts/reg-experiments.sh [build-dir] [steps]
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
tokens='memcpy|copy|reg_permute|smem_flat|smem_strip|smem_padded|vec_padded|tma_load_store|tma_pipeline|tma_wide|auto|cutensor|cublaslt|cublas_geam'
if has bench; then
  bench reg full "^($tokens)/.*/(skinny|batched)/"
  python3 scripts/bench_table.py "$out/bench-reg.json" --tokens reg_permute,smem_flat,auto
fi
if has probe; then
  bench probe probe '^(memcpy|reg_permute|smem_flat|smem_sector|auto|cutensor|cublaslt)/.*/(skinny|batched)/'
  python3 scripts/bench_table.py "$out/bench-probe.json" --tokens reg_permute,smem_flat,auto
fi
exit $rc
