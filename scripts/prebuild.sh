#!/usr/bin/env bash
# Builds on the development machine what a GPU machine runs, and packs it (xz) into .prebuilt/,
# so a device call spends its minutes on the GPU and not on a build (a full build there takes
# about 6 minutes). Carry .prebuilt (and .cutensor for the cuTENSOR peer) with the call.
#
#   scripts/prebuild.sh [main] [BUILD_DIR]   tmakit_bench and tmakit_gpu_tests for 80-real;90,
#       linked with the sm_90-only cuTENSOR of ../shared/tools/cutensor-sm90.sh (unpacked once
#       to CUTENSOR_LOCAL, default /tmp/cutensor-local), plus Google Benchmark's shared library
#       (the GPU machine has none). Run there with scripts/bench.sh --prebuilt .prebuilt.
#   scripts/prebuild.sh extras [BUILD_PREFIX]  what scripts/ci-sm90.sh's extras part runs (the
#       mbarrier-watchdog and arch-80-only builds of tmakit_sm90_tests, and that build's CLI)
#       into .prebuilt/ci-extras; run there with
#       TMAKIT_CI_PREBUILT=.prebuilt/ci-extras TMAKIT_CI_PART=extras scripts/ci-sm90.sh DIR
#   scripts/prebuild.sh variants FILE NAME[=KNOB[,KNOB...]] ...   one tmakit_bench and
#       tmakit_gpu_tests per variant of one kernel file: FILE gets `#define KNOB 1` for each
#       KNOB at its top (NAME alone: FILE as it is, the baseline), packed as
#       .prebuilt/NAME-bench.xz and NAME-tests.xz; FILE is restored afterwards, also on failure.
#       Compare them there with scripts/bench.sh --prebuilt .prebuilt --ab NAME:NAME ...
#       BUILD (default build/) is the incremental build they come from (no cuTENSOR).
set -euo pipefail
cd "$(dirname "$0")/.."
verb=main
case "${1:-}" in main | extras | variants) verb=$1; shift ;; esac
stamp() {  # the commit packed, and whether the tree differed from it
  echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- kernels host bench tests CMakeLists.txt cmake ||
    echo ' (with uncommitted changes)')"
}
benchlib() {  # Google Benchmark's shared library, which the GPU machine lacks
  mkdir -p .prebuilt/lib
  local lib
  lib=$(ldd "$1" | awk '/libbenchmark/ {print $3}')
  [ -n "$lib" ] && cp -L "$lib" .prebuilt/lib/ || true
}
case "$verb" in
  main)
    b=${1:-build-prebuilt}
    ct=${CUTENSOR_LOCAL:-/tmp/cutensor-local}
    if [ ! -f "$ct/lib/libcutensor.so.2" ]; then
      [ -f .cutensor/lib/libcutensor.so.2.xz ] ||
        { echo "prebuild.sh: no .cutensor (run ../shared/tools/cutensor-sm90.sh first)" >&2; exit 1; }
      mkdir -p "$ct/lib" && cp -r .cutensor/include "$ct/"
      xz -d -c .cutensor/lib/libcutensor.so.2.xz > "$ct/lib/libcutensor.so.2"
    fi
    cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" \
      -DCUTENSOR_ROOT="$ct" > /dev/null
    cmake --build "$b" -j"$(nproc)" --target tmakit_bench tmakit_gpu_tests
    mkdir -p .prebuilt
    xz -T0 -c "$b/bench/tmakit_bench" > .prebuilt/tmakit_bench.xz
    xz -T0 -c "$b/tests/tmakit_gpu_tests" > .prebuilt/tmakit_gpu_tests.xz
    benchlib "$b/bench/tmakit_bench"
    echo "packed at $(stamp):"
    ls -la .prebuilt .prebuilt/lib
    ;;
  extras)
    b=${1:-build-sm90}  # the folders ci-sm90.sh itself uses, with its flags
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
    stamp > "$o/BUILT"
    echo "packed at $(cat "$o/BUILT"):"
    ls -la "$o"
    ;;
  variants)
    file=${1:?usage: prebuild.sh variants FILE NAME[=KNOB[,KNOB...]] ...}
    shift
    [ $# -gt 0 ] || { echo "prebuild.sh: variants needs at least one NAME" >&2; exit 64; }
    b=${BUILD:-build}
    [ -d "$b" ] || cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" > /dev/null
    saved=$(mktemp)
    cp "$file" "$saved"
    trap 'cp "$saved" "$file"; rm -f "$saved"' EXIT
    mkdir -p .prebuilt
    for spec in "$@"; do
      name=${spec%%=*}
      knobs=$([[ "$spec" == *=* ]] && echo "${spec#*=}" | tr ',' ' ' || true)
      { for k in $knobs; do echo "#define $k 1"; done; cat "$saved"; } > "$file"
      cmake --build "$b" -j"$(nproc)" --target tmakit_bench tmakit_gpu_tests > "/tmp/prebuild-$name.log" 2>&1 ||
        { grep -E "error" -A3 "/tmp/prebuild-$name.log" | head -20; exit 1; }
      xz -T0 -c "$b/bench/tmakit_bench" > ".prebuilt/$name-bench.xz"
      xz -T0 -c "$b/tests/tmakit_gpu_tests" > ".prebuilt/$name-tests.xz"
      echo "$name:${knobs:+ $knobs} packed"
    done
    benchlib "$b/bench/tmakit_bench"
    echo "variants of $file at $(stamp)"
    ;;
esac
