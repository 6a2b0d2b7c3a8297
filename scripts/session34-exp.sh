#!/usr/bin/env bash
# Session 34's experiment (docs/perf-notes.md session 34 item 9): smem_flat's offset table by
# residue class (flat_table_row_at_g, knob TMAKIT_EXP_TABLE_G, branch exp-s34 only) against the
# shipped layout. Binaries built by
#   git checkout exp-s34 && scripts/prebuild-variants.sh kernels/classic/smem_flat.cu base \
#     tg=TMAKIT_EXP_TABLE_G tg2=TMAKIT_EXP_TABLE_G2
# tg computes the layout with divisions per chunk, tg2 with the plan's shift and per (the same
# layout; EXP_VARIANT picks which runs against base, default tg2).
# Model (`tmakit banks --variant smem_flat`, TMAKIT_EXP_TABLE_G=1 for tg), table LDS.128
# wavefronts per request base -> tg: 12 x 1000003 1 B 8.00 -> 4.00, 24 x 1000003 1 B 7.88 ->
# 3.94, 12 x 1000003 2 B 7.88 -> 3.94, 10000 x 24 x 40 1 B 8.00 -> 4.00; 8 x 1000003 and
# 3000 x 97 x 75 unchanged. GPU tests of tg; probe and full presets' skinny and batched cells at
# 1-4 B, two rounds; then ncu of both at four cells (shared-load wavefronts per request, MIO).
#   bash scripts/session34-exp.sh OUT   (NCU=0 skips the ncu)
out=${1:-$OUT}; mkdir -p "$out"
VARIANTS="base ${EXP_VARIANT:-tg2}" TESTS="${EXP_VARIANT:-tg2}" NCU_VARIANTS=- PRESETS="probe full" ROUNDS=2 \
  GTEST_FILTER='*smem_flat*:Registry/Layout.*smem_flat*:*Flat*:*Skinny*:Registry/GpuTables.*smem_flat*' \
  FILTER='^(memcpy|smem_flat)/e(1|2|4)/(skinny|batched)/' \
  TOKENS=smem_flat scripts/run-variants.sh "$out"
[ "${NCU:-1}" = 0 ] && exit 0
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
m=gpu__time_duration.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active
for c in "probe e1/skinny/12x1000003" "probe e1/skinny/24x1000003" "probe e2/skinny/12x1000003" "probe e1/batched/10000x24x40"; do
  set -- $c
  for v in base ${EXP_VARIANT:-tg2}; do
    echo "== ncu $v smem_flat $2" | tee -a "$out/ncu.txt"
    timeout 60 ncu --clock-control none --metrics $m -c 1 -k regex:smem_flat_kernel /tmp/pb/$v-bench \
      --preset=$1 --benchmark_filter="^smem_flat/$2/" 2>&1 | grep -E "gpu__|smsp__" | tr -s ' ' | tee -a "$out/ncu.txt"
  done
done
