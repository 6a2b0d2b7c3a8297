#!/usr/bin/env bash
# Issue 6 evidence on the GPU machine: what the peers launch and what DRAM sees.
#   1. cudaMemcpyAsync D2D and cuBLAS geam (4-byte, 16384x16384) under ncu: every kernel the
#      benchmark launches for them (name, grid, block, registers, shared memory, time, DRAM
#      bytes and throughput). A memcpy that launches no kernel runs on a copy engine.
#   2. DRAM bytes and throughput of `copy`, `smem_xor`, `tma_pipeline` at the same shape.
# Usage: scripts/ncu-peers.sh [BUILD_DIR]   (needs ncu; --clock-control none)
set -uo pipefail
b=${1:-build-sm90}
m=launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for f in memcpy cublas_geam; do
  echo "== $f/e4/16384x16384 (first 6 kernels launched by the benchmark)"
  ncu --clock-control none --metrics "$m" -c 6 "$b/bench/tmakit_bench" --preset=quick \
    --benchmark_filter="^$f/e4/16384x16384" 2>&1 |
    grep -E "^  [A-Za-z_].*\(|launch__|gpu__time|dram__" | sed 's/  */ /g'
done
for v in copy smem_xor tma_pipeline; do
  echo "== tmakit --variant $v, 4-byte, 16384x16384"
  ncu --clock-control none --metrics "$m" -k regex:'copy_vec_kernel|smem_tile_kernel|tma_pipeline_kernel' -c 1 \
    "$b/tmakit" --rows 16384 --cols 16384 --elem-bytes 4 --variant $v --iters 1 2>&1 |
    grep -E "^  [A-Za-z_].*\(|gpu__time|dram__|launch__grid|launch__block" | sed 's/  */ /g'
done
