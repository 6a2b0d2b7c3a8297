#!/usr/bin/env bash
# Session 32's ncu of smem_flat on N x 24 against N x 12 at 4 B, N = 1000003 (the probe preset's
# weakest misaligned skinny cells after the partial-chunk change): the shipped kernel
# (.prebuilt/new-bench.xz, built at this session's HEAD). Run: bash scripts/session32-ncu.sh OUT
out=${1:-$OUT}; mkdir -p "$out"
xz -d -c .prebuilt/new-bench.xz > /tmp/bench && chmod +x /tmp/bench
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,smsp__sass_inst_executed_op_global_st.sum
for s in 1000003x24 1000003x12; do
  echo "== smem_flat e4 $s" | tee -a "$out/ncu.txt"
  timeout 70 ncu --clock-control none --metrics $m -c 1 -k regex:smem_flat_kernel /tmp/bench --preset=probe \
    --benchmark_filter="^smem_flat/e4/skinny/$s/" 2>&1 | grep -E "gpu__|dram__|sm__|smsp__|launch__|lts__" | tr -s ' ' | tee -a "$out/ncu.txt"
done
