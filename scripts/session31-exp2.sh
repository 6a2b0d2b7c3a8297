#!/usr/bin/env bash
# Session 31's second experiment (docs/perf-notes.md): smem_flat's load phase with 8 chunks in
# flight per thread (u8 = TMAKIT_FLAT_UNROLL8) instead of 4 (base), on the skinny and batched
# shapes it serves, 1-8 B, two rounds; GPU tests of u8; ncu at skinny 4000000x16 4 B. The knob
# exists only in the kernel of commit 625a8f0 (removed after it); binaries built here by
# scripts/prebuild-variants.sh and carried in .prebuilt/. Run: bash scripts/session31-exp2.sh OUT
# Results: docs/data/flat-unroll8-h200-2026-11-26-session31.tar.xz and -summary.txt.
out=${1:-$OUT}; mkdir -p "$out"; pb=/tmp/pb; mkdir -p $pb
for f in .prebuilt/*.xz; do b=$(basename "$f" .xz); xz -d -c "$f" > $pb/$b && chmod +x $pb/$b; done
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=${VARIANTS:-base u8}
for v in ${TESTS-u8}; do
  echo "== GPU tests $v"
  TMAKIT_REQUIRE_GPU=1 timeout 200 $pb/$v-tests --gtest_brief=1 \
    --gtest_filter='*smem_flat*:Registry/GpuTables.*:*Flat*' > "$out/gtest-$v.log" 2>&1
  echo "rc $?"; grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-$v.log" | head -10
done
C=${FILTER:-'^(memcpy|smem_flat)/e(1|2|4|8)/(skinny|batched)/'}
for r in 1 2; do
  for v in $V; do
    timeout 150 $pb/$v-bench --preset=full --benchmark_filter="$C" --benchmark_out="$out/bench-$v-f$r.json" \
      --benchmark_out_format=json > /dev/null 2>&1 || echo "bench $v f$r rc $?"
  done
done
args=()
for f in "$out"/bench-*.json; do b=$(basename "$f" .json); b=${b#bench-}; args+=("${b%-*}=$f"); done
python3 scripts/exp_summary.py --tokens smem_flat "${args[@]}" | tee "$out/summary.log"
for v in $V; do
  echo "== ncu $v" | tee -a "$out/summary.log"
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread \
    -c 1 -k regex:smem_flat_kernel $pb/$v-bench --preset=full \
    --benchmark_filter='^smem_flat/e4/skinny/4000000x16/' 2>&1 | grep -E "gpu__|smsp__|sm__|dram__|launch__" | tr -s ' ' | tee -a "$out/summary.log"
done
(cd "$out" && tar cJf exp.tar.xz bench-*.json $(ls gtest-*.log 2>/dev/null) && rm -f bench-*.json gtest-*.log)
ls "$out"
