#!/usr/bin/env bash
# Builds what ci-sm90's extras part (steps 5 and 6) runs, on the development machine, and packs
# it for the device, so that part spends its device minutes on the GPU and not on two builds
# (session 35: the builds of one part took about 6 of the session's 30 device minutes):
#   .prebuilt/ci-extras/watchdog-sm90-tests.xz  tmakit_sm90_tests, sm_90, mbarrier watchdog on
#   .prebuilt/ci-extras/arch80-sm90-tests.xz    tmakit_sm90_tests, CMAKE_CUDA_ARCHITECTURES=80
#   .prebuilt/ci-extras/arch80-tmakit.xz        the CLI of the same build
#   .prebuilt/ci-extras/BUILT                   the commit they were built from
# The configurations are ci-sm90.sh's own (same flags). On the device, carry .prebuilt and run
#   TMAKIT_CI_PREBUILT=.prebuilt/ci-extras TMAKIT_CI_PART=extras scripts/ci-sm90.sh DIR
# Usage: scripts/prebuild-extras.sh [BUILD_PREFIX]   (default build-sm90: build-sm90-watchdog
# and build-sm90-arch80, the folders ci-sm90.sh itself uses)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build-sm90}
gen=(); command -v ninja > /dev/null && gen=(-G Ninja)
cmake -S . -B "$b-watchdog" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DTMAKIT_MBARRIER_WATCHDOG=ON -DTMAKIT_BUILD_BENCH=OFF > /dev/null
cmake --build "$b-watchdog" -j"$(nproc)" --target tmakit_sm90_tests
cmake -S . -B "$b-arch80" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=80 \
  -DTMAKIT_BUILD_BENCH=OFF > /dev/null
cmake --build "$b-arch80" -j"$(nproc)" --target tmakit_sm90_tests tmakit_cli
o=.prebuilt/ci-extras
mkdir -p "$o"
xz -T0 -c "$b-watchdog/tests/tmakit_sm90_tests" > "$o/watchdog-sm90-tests.xz"
xz -T0 -c "$b-arch80/tests/tmakit_sm90_tests" > "$o/arch80-sm90-tests.xz"
xz -T0 -c "$b-arch80/tmakit" > "$o/arch80-tmakit.xz"
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- kernels host tests CMakeLists.txt cmake ||
  echo ' (with uncommitted changes)')" > "$o/BUILT"
echo "packed at $(cat "$o/BUILT"):"
ls -la "$o"
