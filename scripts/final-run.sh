#!/usr/bin/env bash
# The final full run of a session on one GPU, in one device call (issue 16):
#   scripts/final-run.sh [GTEST_FILTER]
# Builds tmakit_bench (and tmakit_gpu_tests when a filter is given; cuTENSOR from .cutensor),
# runs those GPU tests with TMAKIT_REQUIRE_GPU=1, then the whole full preset into
# $OUT/bench-full.json (bench/report.py turns it into docs/results.md), and prints the compact
# table (scripts/bench_table.py). PREBUILT=.prebuilt: take both binaries from the folder that
# scripts/prebuild.sh fills on the development machine (carry it and .cutensor) instead of
# building them here (the H200 machine's build took about 6 minutes in session 29).
# TMAKIT_BENCH_FILTER: a --benchmark_filter for a partial run (whole preset when unset).
set -uo pipefail
out=${OUT:-build-gpu}
mkdir -p "$out"
[ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
if [ -n "${PREBUILT:-}" ]; then
  # Binaries built on the development machine (scripts/prebuild.sh): no build here.
  mkdir -p build-gpu/bench build-gpu/tests
  for t in bench/tmakit_bench tests/tmakit_gpu_tests; do
    xz -d -c "$PREBUILT/$(basename $t).xz" > "build-gpu/$t" && chmod +x "build-gpu/$t" || exit 1
  done
  export LD_LIBRARY_PATH="$PWD/.cutensor/lib:$PWD/$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  targets=(tmakit_bench)
  [ -n "${1:-}" ] && targets+=(tmakit_gpu_tests)
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" \
    -DCUTENSOR_ROOT="$PWD/.cutensor" > "$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
  cmake --build build-gpu -j"$(nproc)" --target "${targets[@]}" > "$out/build.log" 2>&1 ||
    { grep -E "error" -A3 "$out/build.log" | head -30; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
if [ -n "${1:-}" ]; then
  TMAKIT_REQUIRE_GPU=1 build-gpu/tests/tmakit_gpu_tests --gtest_brief=1 --gtest_filter="$1" \
    > "$out/gtest.log" 2>&1 || rc=1
  grep -E "FAILED|PASSED|Failure" "$out/gtest.log" | head -20
fi
build-gpu/bench/tmakit_bench --preset=full ${TMAKIT_BENCH_FILTER:+--benchmark_filter="$TMAKIT_BENCH_FILTER"} --benchmark_out="$out/bench-full.json" \
  --benchmark_out_format=json > "$out/bench-full.txt" 2>&1 || rc=1
python3 scripts/bench_table.py "$out/bench-full.json" --tokens auto | tail -140
exit $rc
