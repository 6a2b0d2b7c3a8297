# Session 29's second experiment (docs/perf-notes.md): reg_realign with fewer instructions
# (TMAKIT_RR_V2=1: phase 3 reads both chunks from OUT instead of four shuffles, walks its items
# by a fixed row step, and the realignment's word select is two-level) against the shipped
# kernel (TMAKIT_RR_V2=0), on the odd class (full and probe presets), 1-2 B (4-8 B too), two
# processes each, with smem_realign and memcpy; GPU tests at V2=1 first; ncu's instruction count
# and mix at odd 12345x6789 1 B both ways. Run on the device: bash scripts/session29-exp2.sh
# OUT_DIR. The knob exists only in the kernels of the commit that added this script.
out=${1:-$OUT}; mkdir -p "$out"; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
gpu_build 90
TMAKIT_RR_V2=1 gpu_tests v2 '*reg_realign*:Registry/GpuTables.*:*AutoVariant*:BadCalls.*' || echo "GPU TESTS FAILED (V2)"
C='^(memcpy|reg_realign|smem_realign)/e(1|2|4|8)/odd/'
for r in 1 2; do
  for v in 0 1; do
    TMAKIT_RR_V2=$v BENCH_TIMEOUT=240 bench v$v-r$r full "$C"
    TMAKIT_RR_V2=$v BENCH_TIMEOUT=240 bench q$v-r$r probe "$C"
  done
done
args=()
for f in "$out"/bench-*.json; do b=$(basename "$f" .json); args+=("${b:6:2}=$f"); done
python3 scripts/exp_summary.py --tokens reg_realign,smem_realign "${args[@]}" | tee "$out/summary.log"
for v in 0 1; do
  echo "== ncu V2=$v" | tee -a "$out/summary.log"
  TMAKIT_RR_V2=$v ncu --clock-control none --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sass__inst_executed_per_opcode,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio \
    --print-metric-instances details -c 1 -k regex:reg_realign_kernel "$build/bench/tmakit_bench" --preset=full \
    --benchmark_filter='^reg_realign/e1/odd/12345x6789/' 2>&1 | grep -A45 -E "gpu__time|smsp__|sass__" | grep -E "gpu__|smsp__|sass__|IMAD|SEL" | tr -s ' ' | cut -c1-600 | tee -a "$out/summary.log"
done
(cd "$out" && tar cJf exp2.tar.xz bench-*.json gtest-*.log && rm -f bench-* gtest-* configure.log build.log)
ls "$out"
