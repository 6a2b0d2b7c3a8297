#!/usr/bin/env bash
# Builds tmakit_bench and tmakit_gpu_tests for 80-real;90 with cuTENSOR on the development
# machine and packs them for the device (scripts/final-run.sh with PREBUILT=.prebuilt; carry
# .prebuilt and .cutensor). The sm_90-only cuTENSOR of ../shared/tools/cutensor-sm90.sh is
# unpacked once to link against (CUTENSOR_LOCAL, default /tmp/cutensor-local); on the device
# final-run.sh puts .cutensor/lib on LD_LIBRARY_PATH. Google Benchmark's shared library goes
# along (the device image has no libbenchmark). Usage: scripts/prebuild.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build-prebuilt}
ct=${CUTENSOR_LOCAL:-/tmp/cutensor-local}
if [ ! -f "$ct/lib/libcutensor.so.2" ]; then
  mkdir -p "$ct/lib" && cp -r .cutensor/include "$ct/"
  xz -d -c .cutensor/lib/libcutensor.so.2.xz > "$ct/lib/libcutensor.so.2"
fi
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" \
  -DCUTENSOR_ROOT="$ct" > /dev/null
cmake --build "$b" -j"$(nproc)" --target tmakit_bench tmakit_gpu_tests
mkdir -p .prebuilt/lib
xz -T0 -c "$b/bench/tmakit_bench" > .prebuilt/tmakit_bench.xz
xz -T0 -c "$b/tests/tmakit_gpu_tests" > .prebuilt/tmakit_gpu_tests.xz
lib=$(ldd "$b/bench/tmakit_bench" | awk '/libbenchmark/ {print $3}')
[ -n "$lib" ] && cp -L "$lib" .prebuilt/lib/
echo "packed at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- kernels host bench tests || echo ' (with uncommitted changes)'):"
ls -la .prebuilt .prebuilt/lib
