#!/usr/bin/env bash
# Session 31's experiment (docs/perf-notes.md): smem_sector at 4 B with twice the loads in flight
# per thread, against the shipped kernel (base):
#   c128  = TMAKIT_SECTOR_C128 (tile 128 columns x 64 owned rows), SPLIT, INC
#   r128  = TMAKIT_SECTOR_R128 (64 columns x 128 owned rows), SPLIT, INC
#   r128n = TMAKIT_SECTOR_R128, INC
# SPLIT: the load loop compiled twice, for interior tiles without edge checks; INC: one row
# pointer advanced by 8 rows per load row (both only to keep the hinted 4 B kernel unspilled at
# 64 registers). The knobs exist only in the kernel of commit c140afe (81d0d08 ships r128n at 4 B
# on HBM3e); the
# binaries were built here by scripts/prebuild-variants.sh (no cuTENSOR) and carried in
# .prebuilt/. Run on the device: bash scripts/session31-exp.sh OUT_DIR. Results:
# docs/data/sector-tall-h{200,100}-2026-11-26-session31.tar.xz and -summary.txt.
out=${1:-$OUT}; mkdir -p "$out"; pb=/tmp/pb; mkdir -p $pb
for f in .prebuilt/*.xz; do b=$(basename "$f" .xz); xz -d -c "$f" > $pb/$b && chmod +x $pb/$b; done
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=${VARIANTS:-base c128 r128 r128n}
for v in ${TESTS-c128 r128 r128n}; do
  echo "== GPU tests $v"
  TMAKIT_REQUIRE_GPU=1 timeout 200 $pb/$v-tests --gtest_brief=1 \
    --gtest_filter='*smem_sector*:Registry/GpuTables.*:*AutoVariant*' > "$out/gtest-$v.log" 2>&1
  echo "rc $?"; grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-$v.log" | head -10
done
C=${FILTER:-'^(memcpy|smem_sector)/e(4|8)/(odd|batched|square)/'}
for r in 1 2; do
  for v in $V; do
    for p in full probe; do
      timeout 150 $pb/$v-bench --preset=$p --benchmark_filter="$C" --benchmark_out="$out/bench-$v-${p:0:1}$r.json" \
        --benchmark_out_format=json > /dev/null 2>&1 || echo "bench $v $p$r rc $?"
    done
  done
done
args=()
for f in "$out"/bench-*.json; do b=$(basename "$f" .json); b=${b#bench-}; args+=("${b%-*}=$f"); done
python3 scripts/exp_summary.py --tokens smem_sector "${args[@]}" | tee "$out/summary.log"
for v in $V; do
  echo "== ncu $v" | tee -a "$out/summary.log"
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread \
    -c 1 -k regex:smem_sector_kernel $pb/$v-bench --preset=full \
    --benchmark_filter='^smem_sector/e4/odd/6789x12345/' 2>&1 | grep -E "gpu__|smsp__|sm__|dram__|launch__" | tr -s ' ' | tee -a "$out/summary.log"
done
(cd "$out" && tar cJf exp.tar.xz bench-*.json $(ls gtest-*.log 2>/dev/null) && rm -f bench-*.json gtest-*.log)
ls "$out"
