#!/usr/bin/env bash
# Issue 18 evidence on the GPU machine (docs/perf-notes.md, session 8):
#   1. bench/experiments/tma_levers.cu: L2 cache hints, tensor prefetch, tile order and the cost
#      separation (no in-shared transpose, tile copy) against the tma_load_store baseline, and
#      the size sweep (1 and 4 B, 2048^2 .. 32768^2), % of cudaMemcpyAsync in one process.
#   2. ncu memory mix at 4 B, 16384x16384: DRAM bytes and throughput each way, L2 sectors and
#      hit rates by direction, for tma_load_store, tma_copy, smem_wide (LDG/STG), copy,
#      bulk_roofline and cuBLAS geam; and which DRAM metrics this ncu offers (row buffers?).
# Usage: scripts/tma-levers.sh BUILD_DIR OUT_DIR   (BUILD_DIR holds bench/tmakit_bench; needs ncu)
set -uo pipefail
b=${1:-build-gpu}
out=${2:-/tmp/levers}
mkdir -p "$out"
nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/experiments/tma_levers.cu -o "$out/tma_levers" &&
  "$out/tma_levers" all | tee "$out/tma-levers.txt"
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sector_op_write_hit_rate.pct,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
run() {  # benchmark filter, kernel regex
  echo "== $1 (kernel ~ $2)"
  ncu --clock-control none --metrics "$m" -k regex:"$2" -c 1 "$b/bench/tmakit_bench" --preset=quick \
    --benchmark_filter="$1" 2>&1 | grep -E "^  [A-Za-z_].*\(|gpu__time|dram__|lts__|sm__|==ERROR|==WARNING" |
    sed 's/  */ /g'
}
{
  run '^tma_load_store/e4/square/16384x16384' 'tma_load_store_kernel'
  run '^tma_copy/e4/square/16384x16384' 'tma_copy_kernel'
  run '^smem_wide/e4/square/16384x16384' 'smem_tile_kernel'
  run '^copy/e4/square/16384x16384' 'copy_vec_kernel'
  run '^bulk_roofline/e4/square/16384x16384' 'bulk_copy_kernel'
  run '^cublas_geam/e4/square/16384x16384' 'transpose'
  run '^tma_load_store/e1/square/16384x16384' 'tma_load_store_kernel'
  run '^vec_padded/e1/square/16384x16384' 'vec'
} | tee "$out/ncu-mix.txt"
ncu --query-metrics --chip gh100 2>/dev/null | grep -iE "^(dram|fbpa|fbp)__" > "$out/ncu-dram-metrics.txt"
