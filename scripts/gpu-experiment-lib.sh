# Shared by the device experiment scripts (flat-experiments.sh, reg-experiments.sh); sourced,
# not run. Each script sets build (the build folder), out (where logs and JSON go) and steps
# (comma-separated) before sourcing.

# has STEP: whether STEP is among $steps.
has() { [[ ",$steps," == *",$1,"* ]]; }

# gpu_build ARCHS: configure $build for CMAKE_CUDA_ARCHITECTURES=ARCHS (cuTENSOR from .cutensor
# when carried; $EXTRA_CMAKE: more -D options), build $TARGETS (default tmakit_bench
# tmakit_gpu_tests) and $EXTRA_TARGETS, print the GPU; exits on failure.
gpu_build() {
  if [ -f .cutensor/lib/libcutensor.so.2.xz ] && [ ! -f .cutensor/lib/libcutensor.so.2 ]; then
    xz -d -k .cutensor/lib/libcutensor.so.2.xz
  fi
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$1" \
    -DCUTENSOR_ROOT="$PWD/.cutensor" ${EXTRA_CMAKE:-} > "$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target ${TARGETS:-tmakit_bench tmakit_gpu_tests} ${EXTRA_TARGETS:-} \
    > "$out/build.log" 2>&1 ||
    { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
}

# gpu_tests TAG FILTER: tmakit_gpu_tests with TMAKIT_REQUIRE_GPU=1 into $out/gtest-TAG.log,
# its verdict lines printed; returns the tests' exit status.
gpu_tests() {
  TMAKIT_REQUIRE_GPU=1 "$build/tests/tmakit_gpu_tests" --gtest_brief=1 --gtest_filter="$2" \
    > "$out/gtest-$1.log" 2>&1
  local rc=$?
  grep -E "FAILED|Failure|PASSED|tests ran" "$out/gtest-$1.log" | head -30
  return $rc
}

# bench TAG PRESET FILTER: tmakit_bench into $out/bench-TAG.json (console in bench-TAG.txt).
bench() {
  timeout "${BENCH_TIMEOUT:-900}" "$build/bench/tmakit_bench" --preset="$2" --benchmark_filter="$3" \
    --benchmark_out="$out/bench-$1.json" --benchmark_out_format=json > "$out/bench-$1.txt" 2>&1
}
