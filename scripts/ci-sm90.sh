#!/usr/bin/env bash
# The one command an sm_90 runner executes. Exit non-zero on any failure.
#   1. configure and build for sm_90 and the fallback architecture (80-real;90)
#   2. refuse a runner whose GPU is missing or not compute capability 9.x
#   3. cuobjdump: TMA kernels have sm_90 code, the fallbacks pre-sm_90 code
#      (ctest cubins_tma_and_fallbacks, run first and on its own)
#   4. every test with TMAKIT_REQUIRE_GPU=1 and TMAKIT_REQUIRE_NCU=1 (no skip passes), which
#      includes the compute-sanitizer (every technique), fault and ncu tests (labels gpu, sm90)
#   5. a second build with the mbarrier watchdog on (-DTMAKIT_MBARRIER_WATCHDOG=ON): the TMA
#      transpose tests again, so no real wait trips it
#   6. an arch-80-only build (CMAKE_CUDA_ARCHITECTURES=80) on this GPU: BuildCode and the TMA
#      transpose tests with TMAKIT_EXPECT_NO_SM90_CODE=1 (every TMA technique falls back and
#      says the build is why; results correct), and the CLI's TMA rows
#   7. the `quick` benchmark: JSON, and a one-page markdown summary (GPU, driver, date, pass
#      counts, fp32 and bf16 headline ratios) in the results folder
# Usage: scripts/ci-sm90.sh [RESULTS_DIR]   (default: $OUT when set, else ci-results/)
# TMAKIT_CI_PART=main runs steps 1-4 and 7 (the summary), =extras steps 1-2, 5 and 6; unset or
# all runs everything. The whole script outgrew one 10-minute device call (measured 2026-11-26: the
# main tests stopped at 1240 of 1508 after 585 s with the extra builds competing for the
# CPUs); each part builds what it needs, so the two fit separate calls on separate machines.
# TMAKIT_CI_PREBUILT=DIR (extras): run the binaries `scripts/prebuild.sh extras` packed into DIR
# (the same two configurations, built on another machine) instead of building them here.
set -uo pipefail
cd "$(dirname "$0")/.."
results=${1:-${OUT:-ci-results}}
part=${TMAKIT_CI_PART:-all}
case "$part" in all | main | extras) ;; *) echo "FAIL: TMAKIT_CI_PART must be all, main or extras (got '$part')"; exit 2 ;; esac
runs() { [ "$part" = all ] || [ "$part" = "$1" ]; }
build=${TMAKIT_CI_BUILD:-build-sm90}
mkdir -p "$results"
status=0
step() { echo "== $*"; }
fail() { echo "FAIL: $*"; status=1; }

step "GPU"
if ! nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader > "$results/gpu.txt" 2>&1; then
  cat "$results/gpu.txt"; echo "FAIL: no GPU visible (nvidia-smi failed): an sm_90 runner must have one"; exit 1
fi
cat "$results/gpu.txt"
cap=$(head -1 "$results/gpu.txt" | awk -F', ' '{print $2}')
case "$cap" in 9.*) ;; *) echo "FAIL: compute capability '$cap' is not 9.x: this runner cannot run the sm_90 tests"; exit 1 ;; esac

if runs main; then
  step "build (80-real;90)"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" \
    > "$results/configure.log" 2>&1 || { tail -30 "$results/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" > "$results/build.log" 2>&1 ||
    { grep -E "error" -A3 "$results/build.log" | head -40; exit 1; }
fi

# The two extra configurations (steps 5 and 6) build in the background while the GPU runs
# the main tests (part all): the builds need the CPUs, the tests mostly the GPU.
wd="$build-watchdog"
b80="$build-arch80"
prebuilt=${TMAKIT_CI_PREBUILT:-}
if runs extras && [ -n "$prebuilt" ]; then
  # Binaries of `scripts/prebuild.sh extras` (the same two configurations, built elsewhere):
  # unpacked where the builds below would put them; the build logs say which commit.
  for f in watchdog-sm90-tests.xz arch80-sm90-tests.xz arch80-tmakit.xz BUILT; do
    [ -f "$prebuilt/$f" ] || { echo "FAIL: TMAKIT_CI_PREBUILT=$prebuilt has no $f (scripts/prebuild.sh extras makes it)"; exit 1; }
  done
  mkdir -p "$wd/tests" "$b80/tests"
  echo "prebuilt (scripts/prebuild.sh extras) at $(cat "$prebuilt/BUILT")" | tee "$results/watchdog.log" > "$results/arch80.log"
  xz -d -c "$prebuilt/watchdog-sm90-tests.xz" > "$wd/tests/tmakit_sm90_tests" &&
    xz -d -c "$prebuilt/arch80-sm90-tests.xz" > "$b80/tests/tmakit_sm90_tests" &&
    xz -d -c "$prebuilt/arch80-tmakit.xz" > "$b80/tmakit" &&
    chmod +x "$wd/tests/tmakit_sm90_tests" "$b80/tests/tmakit_sm90_tests" "$b80/tmakit" ||
    { echo "FAIL: unpacking $prebuilt"; exit 1; }
  true & wd_pid=$!
  true & b80_pid=$!
elif runs extras; then
  ( cmake -S . -B "$wd" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DTMAKIT_MBARRIER_WATCHDOG=ON -DTMAKIT_BUILD_BENCH=OFF &&
    cmake --build "$wd" -j"$(nproc)" --target tmakit_sm90_tests ) > "$results/watchdog.log" 2>&1 &
  wd_pid=$!
  ( cmake -S . -B "$b80" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80 \
      -DTMAKIT_BUILD_BENCH=OFF &&
    cmake --build "$b80" -j"$(nproc)" --target tmakit_sm90_tests tmakit_cli ) > "$results/arch80.log" 2>&1 &
  b80_pid=$!
fi

export TMAKIT_REQUIRE_GPU=1 TMAKIT_REQUIRE_NCU=1
if runs main; then
  step "cubins"
  ctest --test-dir "$build" -R '^cubins_tma_and_fallbacks$' --output-on-failure > "$results/cubins.log" 2>&1 ||
    fail "cuobjdump check (see cubins.log)"
  grep -E "sm_90 |sm_8|ELF|FAIL" "$results/cubins.log" | head -20

  step "tests (TMAKIT_REQUIRE_GPU=1, TMAKIT_REQUIRE_NCU=1)"
  # The ncu test runs alone afterwards: profiling while other tests load the GPU skews nothing
  # it checks, but it serialises the device and is slow under contention.
  # The watchdog tests fault a child process on purpose and time it: run alone afterwards too.
  # (Twice on 2026-11-22, among 8 parallel tests that included compute-sanitizer runs, the
  # cuda_barrier child printed its watchdog report and then did not exit within 30 s.)
  ctest --test-dir "$build" -j8 -E '^(cubins_tma_and_fallbacks|ncu_banks_vs_model)$|Watchdog' \
    --output-on-failure > "$results/ctest.log" 2>&1 || fail "ctest (see ctest.log)"
  ctest --test-dir "$build" -R 'Watchdog' --output-on-failure > "$results/watchdog-serial.log" 2>&1 ||
    fail "watchdog tests run alone (see watchdog-serial.log)"
  ctest --test-dir "$build" -R '^ncu_banks_vs_model$' --output-on-failure > "$results/ncu.log" 2>&1 ||
    fail "ncu_banks_vs_model (see ncu.log)"
  grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)|Not Run|Timeout" "$results/ctest.log" | tail -15
  grep -E "cases,|FAIL" "$results/ncu.log" | tail -5
fi

if runs extras; then
  step "watchdog build: the TMA tests again with every mbarrier wait bounded"
  # Release with -DTMAKIT_MBARRIER_WATCHDOG=ON, sm_90 only: no real wait may trip it.
  if wait "$wd_pid" &&
     "$wd/tests/tmakit_sm90_tests" --gtest_filter='*TmaTranspose*:TmaFallback*' --gtest_brief=1 \
       >> "$results/watchdog.log" 2>&1; then
    grep -E "^\[  PASSED" "$results/watchdog.log"
  else
    fail "TMA tests with the watchdog on (see watchdog.log)"; tail -5 "$results/watchdog.log"
  fi

  step "arch-80-only build on this sm_90 GPU: every TMA technique must fall back, results correct"
  # What many users run: a package built for 80, a `native` configure on an A100, a project's
  # own CMAKE_CUDA_ARCHITECTURES without 90. "80" = sm_80 cubins + compute_80 PTX, which the
  # driver JIT-compiles here, with TMA compiled out. Then the CLI, which used to
  # kill the context ("unspecified launch failure") on its first TMA row.
  if wait "$b80_pid" &&
     TMAKIT_EXPECT_NO_SM90_CODE=1 "$b80/tests/tmakit_sm90_tests" \
       --gtest_filter='BuildCode.*:Registry/TmaTranspose.*' --gtest_brief=1 >> "$results/arch80.log" 2>&1 &&
     "$b80/tmakit" --rows 4096 --cols 4096 --elem-bytes 2 \
       --variant tma_load_store,tma_pipeline,tma_copy,smem_padded >> "$results/arch80.log" 2>&1; then
    grep -E "^\[  PASSED|^tma_load_store" "$results/arch80.log" | head -5
  else
    fail "arch-80-only build (see arch80.log)"; tail -15 "$results/arch80.log"
  fi
fi

if ! runs main; then
  step "result: part $part, $([ "$status" = 0 ] && echo PASS || echo FAIL)"
  exit "$status"
fi

# TMAKIT_CI_BENCH=0 skips the quick benchmark (where the full benchmark runs separately, or a
# runner's time limit cannot hold both; the summary then says so).
bench_args=(--bench "$results/bench-quick.json")
if [ "${TMAKIT_CI_BENCH:-1}" = 0 ]; then
  step "quick benchmark: skipped (TMAKIT_CI_BENCH=0)"
  bench_args=()
else
  step "quick benchmark"
  "$build/bench/tmakit_bench" --preset=quick --benchmark_out="$results/bench-quick.json" \
    --benchmark_out_format=json --benchmark_counters_tabular=true > "$results/bench-quick.txt" 2>&1 ||
    fail "tmakit_bench --preset=quick (see bench-quick.txt)"
fi

step "summary"
python3 scripts/ci_summary.py --gpu "$results/gpu.txt" --ctest "$results/ctest.log" \
  --ctest "$results/cubins.log" --ctest "$results/ncu.log" --ctest "$results/watchdog-serial.log" "${bench_args[@]}" \
  --status "$status" > "$results/summary.md" || fail "summary"
cat "$results/summary.md"
exit "$status"
