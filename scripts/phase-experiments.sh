#!/usr/bin/env bash
# tma_phase on the GPU machine (issue 16, session 11), in one device call:
#   scripts/phase-experiments.sh [build-dir] [steps]
# steps, comma-separated (default test,bench):
#   test   the TMA-store shifted-box reproducer, tma_phase's registry tests (GPU and sm90 suites,
#          TMAKIT_REQUIRE_GPU=1)
#   bench  the odd class of the full preset (every technique and peer), and the square class
#          for tma_phase, tma_wide, tma_pipeline and memcpy
#   ncu    tma_phase and smem_realign on 12345x6789 at 1 and 2 B: DRAM throughput, issue
#          activity, the stall reasons that dominate, L2 sectors
#   full   the whole full preset: bench-full.json
# Builds tmakit_bench, tmakit_gpu_tests and tmakit_sm90_tests first (cuTENSOR from .cutensor
# when carried). Logs and JSON under $OUT; a compact table (scripts/bench_table.py) last.
set -uo pipefail
build=${1:-build-gpu}
steps=${2:-test,bench}
out=${OUT:-$build}
mkdir -p "$out"
has() { [[ ",$steps," == *",$1,"* ]]; }
if [ -f .cutensor/lib/libcutensor.so.2.xz ] && [ ! -f .cutensor/lib/libcutensor.so.2 ]; then
  xz -d -k .cutensor/lib/libcutensor.so.2.xz
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" \
  -DCUTENSOR_ROOT="$PWD/.cutensor" > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target tmakit_bench tmakit_gpu_tests tmakit_sm90_tests \
  > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
if has test; then
  TMAKIT_REQUIRE_GPU=1 "$build/tests/tmakit_sm90_tests" --gtest_brief=1 \
    --gtest_filter='Reproducer/TmaStoreShifted.*:*tma_phase*' > "$out/gtest-phase-sm90.log" 2>&1 || rc=1
  grep -E "\[ shifted \]" "$out/gtest-phase-sm90.log" | awk '{print $3, $7, $8, $13}' | sort | uniq -c | head -5
  grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-phase-sm90.log" | head -20
  TMAKIT_REQUIRE_GPU=1 "$build/tests/tmakit_gpu_tests" --gtest_brief=1 \
    --gtest_filter='*tma_phase*' > "$out/gtest-phase.log" 2>&1 || rc=1
  grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-phase.log" | head -20
fi
bench() {  # tag preset filter
  "$build/bench/tmakit_bench" --preset="$2" --benchmark_filter="$3" \
    --benchmark_out="$out/bench-$1.json" --benchmark_out_format=json > "$out/bench-$1.txt" 2>&1
}
if has bench; then
  bench odd full '/odd/'
  python3 scripts/bench_table.py "$out/bench-odd.json" --tokens tma_phase,smem_realign,smem_sector
  bench square full '^(memcpy|copy|tma_phase|tma_wide|tma_pipeline|tma_load_store)/.*/square/'
  python3 scripts/bench_table.py "$out/bench-square.json" --tokens tma_phase,tma_wide,tma_pipeline
fi
if has ncu; then
  m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,sm__inst_executed.sum,sm__instruction_throughput.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_shared_mem,launch__registers_per_thread,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
  for e in 1 2; do
    for v in tma_phase smem_realign; do
      echo "== ncu $v e$e 12345x6789"
      ncu --clock-control none --metrics "$m" -k regex:"${v}_kernel" -c 1 "$build/tmakit" \
        --rows 12345 --cols 6789 --elem-bytes $e --variant $v --iters 1 2>&1 |
        grep -E "gpu__|dram__|lts__|sm__|smsp__|launch__" | sed 's/  */ /g' | tee -a "$out/ncu-phase.txt"
    done
  done
fi
if has full; then
  bench full full '.'
  python3 scripts/bench_table.py "$out/bench-full.json" | grep -E "^(odd|square|#|class)"
fi
exit $rc
