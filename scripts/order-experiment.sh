#!/usr/bin/env bash
# Does a benchmark's figure depend on what ran before it? (issue 16, session 15)
#   scripts/order-experiment.sh
# In the full runs, `auto` (registered after every named technique) timed 0.94-1.21x of the
# named technique it runs, the same kernel through the same transpose() call. This runs five
# such cells in registration order and then with Google Benchmark's random interleaving
# (every repetition of every benchmark in a random order), into $OUT/bench-{keep,order,random}.json,
# and summarises them with scripts/order_summary.py.
set -uo pipefail
build=build-order out=${OUT:-build-order/out}
mkdir -p "$out"
steps=
source scripts/gpu-experiment-lib.sh
TARGETS=tmakit_bench gpu_build 90
filter='/(e1/skinny/4000000x16|e1/batched/16384x32x32|e2/skinny/16x4000000|e(1|2|4|8|16)/square/2048x2048|e8/square/4096x4096)/'
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 100 > "$build/smi.csv" 2>&1 &
smi=$!
# keep: the flush before session 15 (evict_last lines survive it); order / random: the flush
# that demotes them first (host/tools/timing.cpp). All three in the benchmark's old order and without
# the launch gate (--order=fixed --gate=off: how session 15 ran them, before either existed).
run_bench() {  # TAG [more flags]
  local tag=$1
  shift
  "$build"/bench/tmakit_bench --preset=full --benchmark_filter="$filter" --order=fixed --gate=off \
    "$@" --benchmark_out="$out/bench-$tag.json" --benchmark_out_format=json > "$out/bench-$tag.txt" 2>&1
}
TMAKIT_FLUSH_KEEP_PERSISTING=1 run_bench keep
run_bench order
run_bench random --benchmark_enable_random_interleaving=true
# The load-hint levers of session 8 (bench/experiments/tma_levers.cu) under both flushes.
nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/experiments/tma_levers.cu -o "$build/tma_levers" &&
  for k in 1 0; do TMAKIT_FLUSH_KEEP_PERSISTING=$k "$build/tma_levers" hints; done > "$out/hints.txt" 2>&1
kill $smi
python3 scripts/order_summary.py keep="$out/bench-keep.json" order="$out/bench-order.json" \
  random="$out/bench-random.json"
cat "$out/hints.txt"
sort -t, -k2 "$build/smi.csv" | awk -F, 'NR>1{print $2,$3,$6}' | uniq -c | sort -rn | head -12
