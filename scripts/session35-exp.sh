#!/usr/bin/env bash
# Session 35's experiment (docs/perf-notes.md session 35 item 2): reg_permute's realigned reads
# (kWide k x N whose src lines break the 16-byte rules, e.g. 12 x 1000003 at 1 B). Binaries in
# .prebuilt: rr-{bench,tests,cli,san}.xz (tmakit_bench, tmakit_gpu_tests, tmakit_cli and
# tmakit_sanitize_target of the change, xz-packed from build/), base-bench.xz = main before it
# (524a8de's kernels). Ran twice: the first form (cp.async for lane 31) and the second (30
# blocks per warp, clamped loads).
# 1. GPU tests of rr (reg_permute, skinny, layouts) and compute-sanitizer memcheck / racecheck
#    on reg_permute (tests/tools/sanitize_target.cpp: 7 x 1001 and a 5 x 1000 with rows 1003
#    apart take the realigned path at 1-8 B).
# 2. The probe preset's skinny cells (k x 1000003 and N x k), two rounds of base and rr.
# 3. CLI sweep: k x 1000001 for k = 2, 3, 4, 7, 12, 16, 24, 31, 32 at 1-8 B, every output
#    verified, reg_permute against smem_flat, smem_strip, reg_tile, bulk_flat and auto.
# 4. ncu of the realigned kernel at 12 x 1000003 and 24 x 1000003, 1 B.
#   bash scripts/session35-exp.sh OUT
out=${1:-$OUT}; mkdir -p "$out"
VARIANTS="base rr" TESTS="rr" PRESETS=probe ROUNDS=2 \
  GTEST_FILTER='*reg_permute*:*Skinny*:*RegBlock*' \
  FILTER='^(memcpy|smem_flat|reg_permute|bulk_flat|smem_strip|reg_tile|auto)/e(1|2|4|8)/skinny/' \
  TOKENS=smem_flat,reg_permute,bulk_flat,smem_strip,reg_tile,auto NCU_VARIANTS=- \
  scripts/run-variants.sh "$out"
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for tool in memcheck racecheck; do
  echo "== compute-sanitizer $tool reg_permute" | tee -a "$out/sanitizer.txt"
  timeout 240 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/pb/rr-san reg_permute \
    > "$out/san-$tool.log" 2>&1
  echo "rc $?" | tee -a "$out/sanitizer.txt"; tail -3 "$out/san-$tool.log" | tee -a "$out/sanitizer.txt"
done
for e in 1 2 4 8; do
  for k in 2 3 4 7 12 16 24 31 32; do
    echo "== ${k}x1000001 e$e" >> "$out/cli.txt"
    timeout 60 /tmp/pb/rr-cli --rows $k --cols 1000001 --elem-bytes $e --iters 30 \
      --variant reg_permute,smem_flat,smem_strip,reg_tile,bulk_flat,auto >> "$out/cli.txt" 2>&1 ||
      echo "rc $?" >> "$out/cli.txt"
  done
done
m=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum
for c in 12x1000003 24x1000003; do
  echo "== ncu reg_permute e1/skinny/$c" | tee -a "$out/ncu.txt"
  timeout 90 ncu --clock-control none --metrics $m -c 1 -k regex:reg_permute_kernel /tmp/pb/rr-bench \
    --preset=probe --benchmark_filter="^reg_permute/e1/skinny/$c/" 2>&1 | grep -E "gpu__|smsp__|sm__|dram__|launch__|l1tex__|lts__" |
    tr -s ' ' | tee -a "$out/ncu.txt"
done
