#!/usr/bin/env bash
# Session 34's prepared experiment (not run in session 34; docs/perf-notes.md session 34 items
# 8-10): the flat kernels' offset table in three layouts, binaries in .prebuilt:
#   base  main at 02c693b (rows V apart in adjacent slots):
#           git checkout main && scripts/prebuild-variants.sh kernels/classic/smem_flat.cu base
#   tgs   branch ship-table-g (kernels of 71c64c3): by residue class mod gcd(V, n1) where a class has <= 8
#         rows (session 34 item 8 measured this layout in smem_flat alone as tg2):
#           git checkout exp-table-cycle && scripts/prebuild-variants.sh \
#             kernels/primitives/flat_gather.cuh tgs cyc=TMAKIT_EXP_TABLE_CYCLE
#   cyc   branch exp-table-cycle: cycle order for every n1 (a modulo per chunk where inv != 1)
# Both flat kernels (smem_flat and bulk_flat) read the variant's layout. Model (`tmakit banks
# --variant smem_flat`, a branch build; TMAKIT_EXP_TABLE_CYCLE=1 for cyc), table LDS.128
# wavefronts per request base / tgs / cyc: 3000x97x75 1 B 7.83 / 7.83 / 4.22, 2 B 6.21 / 6.21 /
# 4.22; 5000x33x65 2 B 7.77 / 7.77 / 4.70; 12 x 1000003 1 B 8.00 / 4.00 / 4.00; 24 x 1000003
# 1 B 7.88 / 3.94 / 3.94; 10000x24x40 1 B 8.00 / 4.00 / 4.00.
# GPU tests of tgs and cyc; probe and full presets' skinny and batched cells at 1-4 B, two
# rounds; ncu of the three at four cells. Carry .prebuilt without tmakit_bench.xz /
# tmakit_gpu_tests.xz (the final-run pair) or with docs/data moved out: 64 MiB.
#   bash scripts/session34-exp2.sh OUT   (NCU=0 skips the ncu)
out=${1:-$OUT}; mkdir -p "$out"
VARIANTS="base tgs cyc" TESTS="tgs cyc" NCU_VARIANTS=- PRESETS="probe full" ROUNDS=2 \
  GTEST_FILTER='*smem_flat*:*bulk_flat*:BulkFlat.*:Registry/Layout.*flat*:*Flat*:*Skinny*:Registry/GpuTables.*flat*' \
  FILTER='^(memcpy|smem_flat|bulk_flat)/e(1|2|4)/(skinny|batched)/' \
  TOKENS=smem_flat,bulk_flat scripts/run-variants.sh "$out"
[ "${NCU:-1}" = 0 ] && exit 0
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
m=gpu__time_duration.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for c in "full bulk_flat e1/batched/3000x97x75" "full smem_flat e1/batched/3000x97x75" \
         "probe smem_flat e2/batched/5000x33x65" "probe smem_flat e1/skinny/12x1000003"; do
  set -- $c
  for v in base tgs cyc; do
    echo "== ncu $v $2 $3" | tee -a "$out/ncu.txt"
    timeout 60 ncu --clock-control none --metrics $m -c 1 -k regex:${2}_kernel /tmp/pb/$v-bench \
      --preset=$1 --benchmark_filter="^$2/$3/" 2>&1 | grep -E "gpu__|smsp__" | tr -s ' ' | tee -a "$out/ncu.txt"
  done
done
