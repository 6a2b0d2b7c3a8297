#!/usr/bin/env bash
# Session 31's third experiment (docs/perf-notes.md, item 7): smem_flat with more blocks per SM
# and fewer registers, the "more warps" that cuTENSOR's skinny kernel has on the H200 (item 6):
#   base = launch bounds (256, 4) as shipped (48 registers used); m6 = (256, 6), 40 registers;
#   m8 = (256, 8), 32 registers (spills 32 bytes at 2-16 B);
# each at the default unit (32 KB on HBM3e for k >= 16) and base / m8 also at 16 KB units
# (TMAKIT_FLAT_TILE_BYTES=16384: 8 blocks of 16 KB fit an SM's shared memory, 8 of 32 KB do
# not). Skinny k = 16 and 32 at 1-8 B, two rounds; GPU tests of m6 and m8. The knobs exist only
# in the kernel of commit 4362df8 (removed after it); binaries built here by
# scripts/prebuild-variants.sh, carried in .prebuilt/. Run: bash scripts/session31-exp3.sh OUT
# Results: docs/data/flat-minblocks-h200-2026-11-26-session31.tar.xz and -summary.txt.
out=${1:-$OUT}; mkdir -p "$out"; pb=/tmp/pb; mkdir -p $pb
for f in .prebuilt/*.xz; do b=$(basename "$f" .xz); xz -d -c "$f" > $pb/$b && chmod +x $pb/$b; done
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in ${TESTS-m6 m8}; do
  echo "== GPU tests $v"
  TMAKIT_REQUIRE_GPU=1 timeout 200 $pb/$v-tests --gtest_brief=1 \
    --gtest_filter='*smem_flat*:Registry/GpuTables.*smem_flat*' > "$out/gtest-$v.log" 2>&1
  echo "rc $?"; grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-$v.log" | head -10
done
C=${FILTER:-'^(memcpy|smem_flat)/e(1|2|4|8)/skinny/(4000000x(16|32)|(16|32)x4000000)/'}
for r in 1 2; do
  for spec in base:base: m6:m6: m8:m8: b16:base:16384 m8t16:m8:16384; do
    IFS=: read -r tag bin tb <<< "$spec"
    env ${tb:+TMAKIT_FLAT_TILE_BYTES=$tb} timeout 150 $pb/$bin-bench --preset=full --benchmark_filter="$C" \
      --benchmark_out="$out/bench-$tag-f$r.json" --benchmark_out_format=json > /dev/null 2>&1 || echo "bench $tag f$r rc $?"
  done
done
args=()
for f in "$out"/bench-*.json; do b=$(basename "$f" .json); b=${b#bench-}; args+=("${b%-*}=$f"); done
python3 scripts/exp_summary.py --tokens smem_flat "${args[@]}" | tee "$out/summary.log"
for spec in base:base: m6:m6: m8t16:m8:16384; do
  IFS=: read -r tag bin tb <<< "$spec"
  echo "== ncu $tag" | tee -a "$out/summary.log"
  env ${tb:+TMAKIT_FLAT_TILE_BYTES=$tb} timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread \
    -c 1 -k regex:smem_flat_kernel $pb/$bin-bench --preset=full \
    --benchmark_filter='^smem_flat/e4/skinny/4000000x16/' 2>&1 | grep -E "gpu__|smsp__|sm__|dram__|launch__" | tr -s ' ' | tee -a "$out/summary.log"
done
(cd "$out" && tar cJf exp.tar.xz bench-*.json $(ls gtest-*.log 2>/dev/null) && rm -f bench-*.json gtest-*.log)
ls "$out"
