#!/usr/bin/env bash
# Issue 19 evidence on the GPU machine: where the async-copy family's time goes.
#   1. transpose-accumulate, f32 16384x16384, beta = 1: smem_accumulate (LDG/STG) against
#      tma_reduce (TMA reduce-add store): DRAM bytes each way, L2 sectors by operation
#      (read / write / reduction), L2 and DRAM throughput.
#   2. the copy rooflines at 4 B, 16384x16384: copy (LDG/STG), async_roofline (cp.async),
#      bulk_roofline (1-D bulk): DRAM throughput, occupancy, the stall that dominates.
# Usage: scripts/ncu-family.sh [BUILD_DIR]   (needs ncu; --clock-control none)
set -uo pipefail
b=${1:-build-gpu}
m=launch__grid_size,launch__block_size,launch__registers_per_thread,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_red.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
run() {  # benchmark filter, kernel regex
  echo "== $1 (kernel ~ $2)"
  ncu --clock-control none --metrics "$m" -k regex:"$2" -c 1 "$b/bench/tmakit_bench" --preset=quick \
    --benchmark_filter="$1" 2>&1 | grep -E "^  [A-Za-z_].*\(|launch__|gpu__time|dram__|lts__|sm__|smsp__" |
    sed 's/  */ /g'
}
run '^smem_accumulate/e4/accumulate/16384x16384' 'smem_accumulate_kernel'
run '^tma_reduce/e4/accumulate/16384x16384' 'tma_reduce_kernel'
run '^copy/e4/square/16384x16384' 'copy_vec_kernel'
run '^async_roofline/e4/square/16384x16384' 'async_copy_kernel'
run '^bulk_roofline/e4/square/16384x16384' 'bulk_copy_kernel'
run '^async_copy/e4/square/16384x16384' 'async_copy_kernel'
run '^tma_load/e4/square/16384x16384' 'tma_load_kernel'
