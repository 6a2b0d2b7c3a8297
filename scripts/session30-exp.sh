# Session 30's experiment (docs/perf-notes.md): reg_realign with its edge checks moved out of
# interior tiles (spec: phase 1 specialised on `interior`, phase 3 on `whole`) and, on top of
# that, each lane loading its own next vector instead of four shuffles and a select (nosh,
# TMAKIT_RR_NOSHFL=1), and either with pass 1's rows prefetched to the L2 as the tile starts
# (npf = nosh + TMAKIT_RR_PF=1, spf = spec + TMAKIT_RR_PF=1), against the shipped kernel (base), at odd 1-2 B (4-8 B too), full and
# probe presets, two rounds interleaved; GPU tests of spec and nosh; ncu instruction count, time
# and L2 read sectors at odd 12345x6789 1 B. The binaries were built on the development machine
# (no cuTENSOR) and carried xz-compressed in .prebuilt/ (base-bench, spec-bench, spec-tests,
# nosh-bench, nosh-tests), so the device builds nothing.
# Run on the device: bash scripts/session30-exp.sh OUT_DIR (carry .prebuilt). The knobs
# (TMAKIT_RR_NOSHFL, TMAKIT_RR_PF) exist only in the kernels of commits 4f2ac5d and 2719ffd:
# each binary was that commit's reg_realign.cu with `#define KNOB 1` added at its top, built
# with `cmake --build build --target tmakit_bench tmakit_gpu_tests` and packed with xz, what
# scripts/prebuild-variants.sh now does.
# Results: docs/data/reg-realign-ownnext-h200-2026-11-26-session30.txt.
out=${1:-$OUT}; mkdir -p "$out"; pb=/tmp/pb; mkdir -p $pb
for f in .prebuilt/*.xz; do b=$(basename "$f" .xz); xz -d -c "$f" > $pb/$b && chmod +x $pb/$b; done
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in ${TESTS-npf spf}; do
  echo "== GPU tests $v"
  TMAKIT_REQUIRE_GPU=1 timeout 200 $pb/$v-tests --gtest_brief=1 \
    --gtest_filter='*reg_realign*:Registry/GpuTables.*:*AutoVariant*:BadCalls.*' > "$out/gtest-$v.log" 2>&1
  echo "rc $?"; grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-$v.log" | head -10
done
C='^(memcpy|reg_realign)/e(1|2|4|8)/odd/'
for r in 1 2; do
  for v in ${VARIANTS:-base nosh npf spf}; do
    timeout 120 $pb/$v-bench --preset=full --benchmark_filter="$C" --benchmark_out="$out/bench-$v-f$r.json" \
      --benchmark_out_format=json > /dev/null 2>&1 || echo "bench $v f$r rc $?"
    timeout 120 $pb/$v-bench --preset=probe --benchmark_filter="$C" --benchmark_out="$out/bench-$v-p$r.json" \
      --benchmark_out_format=json > /dev/null 2>&1 || echo "bench $v p$r rc $?"
  done
done
args=()
for f in "$out"/bench-*.json; do b=$(basename "$f" .json); b=${b#bench-}; args+=("${b%-*}=$f"); done
python3 scripts/exp_summary.py --tokens reg_realign "${args[@]}" | tee "$out/summary.log"
for v in ${VARIANTS:-base nosh npf spf}; do
  echo "== ncu $v" | tee -a "$out/summary.log"
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,launch__registers_per_thread \
    -c 1 -k regex:reg_realign_kernel $pb/$v-bench --preset=full \
    --benchmark_filter='^reg_realign/e1/odd/12345x6789/' 2>&1 | grep -E "gpu__|smsp__|lts__|dram__|launch__" | tr -s ' ' | tee -a "$out/summary.log"
done
(cd "$out" && tar cJf exp.tar.xz bench-*.json $(ls gtest-*.log 2>/dev/null) && rm -f bench-*.json gtest-*.log)
ls "$out"
