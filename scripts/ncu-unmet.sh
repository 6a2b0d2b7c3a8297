#!/usr/bin/env bash
# Issue 16's unmet targets under ncu (session 11): for each, the best tmakit technique at a
# representative shape of the full preset, and the peer where a peer wins, as the benchmark
# launches them (tmakit_bench --preset=full, one benchmark; the first launch of the kernel is
# the verification run, the same kernel that is timed).
# Metrics: time; DRAM throughput (% of peak) and bytes; issue activity (% of peak); warps
# active (occupancy); registers; shared-memory bank conflicts; the stall reasons per issued
# instruction that dominate (long scoreboard = global loads, MIO throttle = shared/shuffle
# queue, short scoreboard = shared-memory results, barrier, lg throttle = global queue).
# Usage: scripts/ncu-unmet.sh [BUILD_DIR] [CASES]   (needs ncu; --clock-control none). CASES:
# session11 (default: the cases below as that session profiled them), session13 (the
# techniques `auto` runs there since session 12, reg_permute, and odd 4 B, with their peers) or
# session14 (the H100's large aligned losses at 2048^2, 2 / 8 / 16 B, with their peers) or
# session16 (the H200's skinny 4 B loss at 4000000x16 with its peer, and reg_permute on the two
# batches below 80% of memcpy there) or session19 (reg_tile at 1 B on the 32 x 32 batch, 88% of
# memcpy on the H100, against the 64 x 64 batch of the same bytes at 100%, with memcpy on both)
# or session20 (reg_realign against smem_realign at odd 1 and 4 B, and smem_sector at 4 B) or
# session22 (bulk_flat on the 97 x 75 batch at 1 and 2 B, below 95% of memcpy on both GPUs,
# with smem_flat at 1 B and memcpy of the same bytes) or session24 (the H200's 97 x 75 batch at
# 8 B and odd 4 B, below 90% of memcpy there, with their peers and memcpy) or session25 (the L2
# prefetch experiment, refuted: reg_realign and smem_realign at odd 1 B with the prefetch off, a
# wave ahead per line and in bulk; needs the kernels of commit 716f06c, whose knobs these are) or
# session27 (the H200's lowest cells after the L2 hints: reg_realign at odd 1 and 2 B, bulk_flat
# on the 97 x 75 batch at 1 B) or session29 (async_realign, the cp.async staging ring of commit
# 35b5fa9, against reg_realign at odd 1 B, and reg_realign against tma_load_store on an aligned
# square at 1 B) or session31 (the H200's unmet cells at session 31's kernels: reg_realign at
# odd 6789x12345 1 and 2 B, bulk_flat on the 97 x 75 batch at 1 and 2 B, smem_flat and cuTENSOR
# at skinny 4000000x16 4 B) or targets:RUN.json (session 37: every UNMET target of that final
# run, the cells scripts/targets.py --ncu-cases names). A prebuilt bench: BUILD_DIR is a folder
# with bench/tmakit_bench.
# NCU_EXTRA: more ncu options (session19: --cache-control none, so the kernel meets the L2 as the
# benchmark's own flush leaves it, full of dirty lines, instead of ncu's clean one).
# Output: one block per case; what lies under $OUT/ncu-unmet.txt.
set -uo pipefail
b=${1:-build-gpu}
cases=${2:-session11}
out=${OUT:-$b}/ncu-unmet.txt
: > "$out"
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
m=$m${NCU_METRICS:+,$NCU_METRICS}  # NCU_METRICS: more metrics, comma-separated
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out"
run() {  # label, benchmark filter, kernel regex ('' = the first kernels, for a peer)
  echo "== $1 ($2)" | tee -a "$out"
  local k=(-c 1 -k "regex:$3")
  [ -z "$3" ] && k=(-c 3)
  ncu --clock-control none ${NCU_EXTRA:-} --metrics "$m" "${k[@]}" "$b/bench/tmakit_bench" --preset=full \
    --benchmark_filter="$2" 2>&1 | grep -E "^  [A-Za-z_].*\(|gpu__|dram__|sm__|smsp__|launch__|l1tex__" |
    sed 's/  */ /g' | tee -a "$out"
}
if [[ "$cases" == targets:* ]]; then  # session 37: each UNMET target of a final run
  # scripts/targets.py --ncu-cases names the cell that decides it (the lowest % of memcpy, or the
  # worst ratio to the best peer), tmakit's best technique there with its kernel and, for a
  # ratio, the best peer.
  cases_from=${cases#targets:}
  echo "cases from $cases_from" | tee -a "$out"
  python3 "$(dirname "$0")/targets.py" "$cases_from" --ncu-cases > "$out.cases" || exit 1
  while IFS=$'\t' read -r label filter kernel; do
    [ -n "$label" ] && run "$label" "$filter" "$kernel"
  done < "$out.cases"
  exit 0
fi
if [ "$cases" = session20 ]; then  # reg_realign against smem_realign, and smem_sector at 4 B
  for e in 1 4; do
    run "odd $e B: reg_realign" "^reg_realign/e$e/odd/12345x6789/" reg_realign_kernel
    run "odd $e B: smem_realign" "^smem_realign/e$e/odd/12345x6789/" smem_realign_kernel
  done
  run "odd 4 B: smem_sector" '^smem_sector/e4/odd/12345x6789/' smem_sector_kernel
  exit 0
fi
if [ "$cases" = session31 ]; then  # the H200's unmet cells after session 31
  run "odd 1 B: reg_realign" '^reg_realign/e1/odd/6789x12345/' reg_realign_kernel
  run "odd 2 B: reg_realign" '^reg_realign/e2/odd/6789x12345/' reg_realign_kernel
  run "batched 1 B 97x75: bulk_flat" '^bulk_flat/e1/batched/3000x97x75/' bulk_flat_kernel
  run "batched 2 B 97x75: bulk_flat" '^bulk_flat/e2/batched/3000x97x75/' bulk_flat_kernel
  run "skinny 4 B 4000000x16: smem_flat" '^smem_flat/e4/skinny/4000000x16/' smem_flat_kernel
  run "skinny 4 B 4000000x16: cutensor" '^cutensor/e4/skinny/4000000x16/' ''
  exit 0
fi
if [ "$cases" = session27 ]; then  # the H200's lowest cells after the L2 hints (odd 1-2 B, 97 x 75 1 B)
  run "odd 1 B: reg_realign" '^reg_realign/e1/odd/12345x6789/' reg_realign_kernel
  run "odd 2 B: reg_realign" '^reg_realign/e2/odd/12345x6789/' reg_realign_kernel
  run "batched 1 B 97x75: bulk_flat" '^bulk_flat/e1/batched/3000x97x75/' bulk_flat_kernel
  exit 0
fi
if [ "$cases" = session29 ]; then  # async_realign (commit 35b5fa9's knob) against reg_realign, odd and aligned 1 B
  run "odd 1 B: reg_realign" '^reg_realign/e1/odd/12345x6789/' reg_realign_kernel
  (export TMAKIT_AR_STAGES=1; run "odd 1 B: async_realign, 1 stage" '^async_realign/e1/odd/12345x6789/' async_realign_kernel)
  (export TMAKIT_AR_STAGES=2; run "odd 1 B: async_realign, 2 stages" '^async_realign/e1/odd/12345x6789/' async_realign_kernel)
  run "square 1 B: reg_realign" '^reg_realign/e1/square/16384x16384/' reg_realign_kernel
  run "square 1 B: tma_load_store" '^tma_load_store/e1/square/16384x16384/' tma_load_store_kernel
  exit 0
fi
if [ "$cases" = session22 ]; then  # the 97 x 75 batch, the batches' unmet target
  run "batched 1 B 97x75: bulk_flat" '^bulk_flat/e1/batched/3000x97x75/' bulk_flat_kernel
  run "batched 1 B 97x75: smem_flat" '^smem_flat/e1/batched/3000x97x75/' smem_flat_kernel
  run "batched 2 B 97x75: bulk_flat" '^bulk_flat/e2/batched/3000x97x75/' bulk_flat_kernel
  run "batched 1 B 97x75: memcpy" '^memcpy/e1/batched/3000x97x75/' ''
  exit 0
fi
if [ "$cases" = session25 ]; then  # the L2 prefetch a wave ahead (kernels of 716f06c)
  for k in reg_realign smem_realign; do
    TMAKIT_L2_AHEAD_WAVES=0 run "odd 1 B: $k, no prefetch" "^$k/e1/odd/12345x6789/" ${k}_kernel
    TMAKIT_L2_AHEAD_WAVES=1 TMAKIT_L2_PREFETCH_MODE=1 run "odd 1 B: $k, a wave ahead, per line" \
      "^$k/e1/odd/12345x6789/" ${k}_kernel
    TMAKIT_L2_AHEAD_WAVES=1 run "odd 1 B: $k, a wave ahead, bulk" "^$k/e1/odd/12345x6789/" ${k}_kernel
  done
  exit 0
fi
if [ "$cases" = session24 ]; then  # the H200's batch 8 B and odd 4 B cells below 90% of memcpy
  run "batched 8 B 97x75: smem_padded" '^smem_padded/e8/batched/3000x97x75/' smem_tile_kernel
  run "batched 8 B 97x75: smem_sector" '^smem_sector/e8/batched/3000x97x75/' smem_sector_kernel
  run "batched 8 B 97x75: peer cutensor" '^cutensor/e8/batched/3000x97x75/' ''
  run "batched 8 B 97x75: memcpy" '^memcpy/e8/batched/3000x97x75/' ''
  run "odd 4 B 12345x6789: smem_sector" '^smem_sector/e4/odd/12345x6789/' smem_sector_kernel
  run "odd 4 B 12345x6789: peer cublas_geam" '^cublas_geam/e4/odd/12345x6789/' ''
  run "odd 4 B 12345x6789: memcpy" '^memcpy/e4/odd/12345x6789/' ''
  exit 0
fi
if [ "$cases" = session19b ]; then  # with NCU_EXTRA="--cache-control none --launch-skip 3"
  run "batched 1 B 32x32: reg_tile" '^reg_tile/e1/batched/16384x32x32/' reg_tile_kernel
  run "batched 1 B 64x64: reg_tile" '^reg_tile/e1/batched/4096x64x64/' reg_tile_kernel
  exit 0
fi
if [ "$cases" = session19 ]; then
  run "batched 1 B 32x32: reg_tile" '^reg_tile/e1/batched/16384x32x32/' reg_tile_kernel
  run "batched 1 B 32x32: memcpy" '^memcpy/e1/batched/16384x32x32/' ''
  run "batched 1 B 64x64: reg_tile" '^reg_tile/e1/batched/4096x64x64/' reg_tile_kernel
  run "batched 1 B 64x64: memcpy" '^memcpy/e1/batched/4096x64x64/' ''
  exit 0
fi
if [ "$cases" = session16 ]; then
  run "skinny 4 B: smem_flat" '^smem_flat/e4/skinny/4000000x16/' smem_flat_kernel
  run "skinny 4 B: peer cutensor" '^cutensor/e4/skinny/4000000x16/' ''
  run "batched 1 B: reg_permute" '^reg_permute/e1/batched/16384x32x32/' reg_permute_kernel
  run "batched 2 B: reg_permute" '^reg_permute/e2/batched/3000x97x75/' 'reg_permute_kernel|smem_flat_kernel'
  exit 0
fi
if [ "$cases" = session14 ]; then
  run "square 2 B: tma_wide" '^tma_wide/e2/square/2048x2048/' tma_wide_kernel
  run "square 2 B: peer cutensor" '^cutensor/e2/square/2048x2048/' ''
  run "square 8 B: smem_sector" '^smem_sector/e8/square/2048x2048/' smem_sector_kernel
  run "square 8 B: peer cublas_geam" '^cublas_geam/e8/square/2048x2048/' ''
  run "square 16 B: smem_padded" '^smem_padded/e16/square/2048x2048/' smem_tile_kernel
  run "square 16 B: peer cublas_geam" '^cublas_geam/e16/square/2048x2048/' ''
  exit 0
fi
if [ "$cases" = session13 ]; then
  run "skinny 2 B: reg_permute" '^reg_permute/e2/skinny/16x4000000/' reg_permute_kernel
  run "batched 2 B: reg_permute" '^reg_permute/e2/batched/16384x32x32/' reg_permute_kernel
  run "odd 4 B: smem_sector" '^smem_sector/e4/odd/6789x12345/' smem_sector_kernel
  run "odd 4 B: peer cublas_geam" '^cublas_geam/e4/odd/6789x12345/' ''
  exit 0
fi
run "odd 1 B: smem_realign" '^smem_realign/e1/odd/12345x6789/' smem_realign_kernel
run "odd 2 B: smem_realign" '^smem_realign/e2/odd/12345x6789/' smem_realign_kernel
run "odd 16 B: smem_strip" '^smem_strip/e16/odd/12345x6789/' smem_strip_kernel
run "odd 16 B: peer cublas_geam" '^cublas_geam/e16/odd/12345x6789/' ''
run "skinny 1 B: smem_flat" '^smem_flat/e1/skinny/16x4000000/' smem_flat_kernel
run "skinny 2 B: smem_flat" '^smem_flat/e2/skinny/16x4000000/' smem_flat_kernel
run "skinny 2 B: peer cutensor" '^cutensor/e2/skinny/16x4000000/' ''
run "batched 1 B: smem_flat" '^smem_flat/e1/batched/3000x97x75/' smem_flat_kernel
run "batched 2 B: smem_flat" '^smem_flat/e2/batched/16384x32x32/' smem_flat_kernel
run "batched 2 B: peer cutensor" '^cutensor/e2/batched/16384x32x32/' ''
