#!/usr/bin/env bash
# The device side of scripts/prebuild-variants.sh: runs experiment binaries carried in
# .prebuilt/ (NAME-bench.xz, NAME-tests.xz, lib/) and summarises them. The session's experiment
# script sets the variables and calls it: scripts/run-variants.sh OUT_DIR.
#   VARIANTS      specs TAG[:NAME[:VAR=VALUE]] (NAME defaults to TAG; VAR=VALUE is set for that
#                 spec's benchmark and ncu runs), e.g. "base m6 b16:base:TMAKIT_FLAT_TILE_BYTES=16384"
#   TESTS         NAMEs whose GPU tests run (TMAKIT_REQUIRE_GPU=1) with GTEST_FILTER
#   FILTER        --benchmark_filter; PRESETS (default full) and ROUNDS (default 2), interleaved
#   TOKENS        the techniques scripts/exp_summary.py tabulates (% of memcpy per tag)
#   NCU_VARIANTS  specs profiled (default VARIANTS; "-": none) at NCU_FILTER, kernel regex NCU_KERNEL
# Output in OUT_DIR: summary.log, exp.tar.xz (the benchmark JSON and the test logs).
out=${1:-$OUT}; mkdir -p "$out"; pb=/tmp/pb; mkdir -p $pb
for f in .prebuilt/*.xz; do b=$(basename "$f" .xz); xz -d -c "$f" > $pb/$b && chmod +x $pb/$b; done
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Binaries linked with cuTENSOR (scripts/prebuild.sh's) need the carried .cutensor.
if [ -f .cutensor/lib/libcutensor.so.2.xz ]; then
  [ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
  export LD_LIBRARY_PATH=$PWD/.cutensor/lib:$LD_LIBRARY_PATH
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in ${TESTS:-}; do
  echo "== GPU tests $v"
  TMAKIT_REQUIRE_GPU=1 timeout 200 $pb/$v-tests --gtest_brief=1 --gtest_filter="$GTEST_FILTER" \
    > "$out/gtest-$v.log" 2>&1
  echo "rc $?"; grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-$v.log" | head -10
done
spec() { IFS=: read -r tag bin env_kv <<< "$1"; bin=${bin:-$tag}; }
for ((r = 1; r <= ${ROUNDS:-2}; ++r)); do
  for s in $VARIANTS; do
    spec "$s"
    for p in ${PRESETS:-full}; do
      env ${env_kv:+"$env_kv"} timeout 150 $pb/$bin-bench --preset=$p --benchmark_filter="$FILTER" \
        --benchmark_out="$out/bench-$tag-${p:0:1}$r.json" --benchmark_out_format=json > /dev/null 2>&1 ||
        echo "bench $tag $p$r rc $?"
    done
  done
done
args=()
for f in "$out"/bench-*.json; do b=$(basename "$f" .json); b=${b#bench-}; args+=("${b%-*}=$f"); done
python3 scripts/exp_summary.py --tokens "$TOKENS" "${args[@]}" | tee "$out/summary.log"
ncu_specs=${NCU_VARIANTS:-$VARIANTS}
[ "$ncu_specs" = - ] && ncu_specs=
for s in $ncu_specs; do
  spec "$s"
  echo "== ncu $tag" | tee -a "$out/summary.log"
  env ${env_kv:+"$env_kv"} timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread \
    -c 1 -k "regex:$NCU_KERNEL" $pb/$bin-bench --preset=full --benchmark_filter="$NCU_FILTER" 2>&1 |
    grep -E "gpu__|smsp__|sm__|dram__|launch__" | tr -s ' ' | tee -a "$out/summary.log"
done
(cd "$out" && tar cJf exp.tar.xz bench-*.json $(ls gtest-*.log 2>/dev/null) && rm -f bench-*.json gtest-*.log)
ls "$out"
