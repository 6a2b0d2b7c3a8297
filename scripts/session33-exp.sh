#!/usr/bin/env bash
# Session 33's experiment (docs/perf-notes.md): kTall's phase-2 chunk pairs start on 32-byte
# sectors (flat_dst_chunk in kernels/common/flat.hpp), for smem_flat and bulk_flat. base = the
# binary at 7f40161 (.prebuilt/base-bench.xz), new = build/ with the change. GPU tests of new
# (the flat family); the probe preset's skinny and batched shapes (N = 1000003: runs off 16 and
# 32 bytes) and the full preset's, two rounds interleaved; then ncu of smem_flat at
# 1000003 x 24 4 B, base and new (L1 and L2 store sectors). Run: bash scripts/session33-exp.sh OUT
out=${1:-$OUT}; mkdir -p "$out"
VARIANTS="base new" TESTS=${TESTS-new} NCU_VARIANTS=- PRESETS="probe full" ROUNDS=${ROUNDS:-2} \
  GTEST_FILTER=${GTEST_FILTER:-'*smem_flat*:*bulk_flat*:Registry/Layout.*:*Flat*:*Skinny*:*AutoVariant*'} \
  FILTER=${FILTER:-'^(memcpy|smem_flat|bulk_flat|auto)/e(1|2|4|8)/(skinny|batched)/'} \
  TOKENS=smem_flat,bulk_flat,auto scripts/run-variants.sh "$out"
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
m=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,smsp__sass_inst_executed_op_global_st.sum
for v in base new; do
  for s in e4/skinny/1000003x24 e1/skinny/1000003x24; do
    echo "== ncu $v smem_flat $s" | tee -a "$out/ncu.txt"
    timeout 60 ncu --clock-control none --metrics $m -c 1 -k regex:smem_flat_kernel /tmp/pb/$v-bench --preset=probe \
      --benchmark_filter="^smem_flat/$s/" 2>&1 | grep -E "gpu__|lts__|l1tex__|smsp__" | tr -s ' ' | tee -a "$out/ncu.txt"
  done
done
