#!/usr/bin/env bash
# Issue 16's unmet targets under ncu, read from a final run: for each UNMET kernel target,
# scripts/targets.py --ncu-cases names the cell that decides it (the lowest % of memcpy, or the
# worst ratio to the best peer), tmakit's best technique there and, for a ratio, the best peer;
# each is profiled as the benchmark launches it (tmakit_bench --preset=full, that one benchmark;
# the first launch is the verification run of the kernel that is then timed). Metrics as in
# scripts/ncu-unmet.sh: time, DRAM throughput (% of peak) and bytes, issue activity, warps
# active, registers, bank conflicts, the dominant stall reasons per issued instruction.
#   scripts/ncu-targets.sh RUN.json [BENCH]   (BENCH default build-gpu/bench/tmakit_bench;
#   output $OUT/ncu-targets.txt, or ./ncu-targets.txt without OUT)
set -uo pipefail
run=${1:?usage: ncu-targets.sh RUN.json [BENCH]}
bench=${2:-build-gpu/bench/tmakit_bench}
out=${OUT:-.}/ncu-targets.txt
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
cases=$(python3 "$(dirname "$0")/targets.py" "$run" --ncu-cases) || exit 1
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "cases from $run"; } | tee "$out"
while IFS=$'\t' read -r label filter kernel; do
  [ -n "$label" ] || continue
  echo "== $label ($filter)" | tee -a "$out"
  k=(-c 1 -k "regex:$kernel")
  [ -z "$kernel" ] && k=(-c 3)  # a peer: its first kernels (their names are printed)
  timeout 120 ncu --clock-control none --metrics "$m" "${k[@]}" "$bench" --preset=full \
    --benchmark_filter="$filter" 2>&1 | grep -E "^  [A-Za-z_].*\(|gpu__|dram__|sm__|smsp__|launch__|l1tex__|ERR" |
    sed 's/  */ /g' | tee -a "$out"
done <<< "$cases"
