#!/usr/bin/env bash
# Experiment binaries built here, one per variant of one kernel file (session 30's way):
#   scripts/prebuild-variants.sh FILE NAME[=KNOB[,KNOB...]] ...
# For each NAME, FILE gets `#define KNOB 1` for each KNOB at its top, tmakit_bench and
# tmakit_gpu_tests are rebuilt incrementally in BUILD (default build/, no cuTENSOR: a variant
# compares with memcpy and itself) and packed as .prebuilt/NAME-bench.xz and NAME-tests.xz;
# FILE is restored afterwards, also on failure. NAME alone is FILE as it is (the baseline).
# Google Benchmark's shared library goes to .prebuilt/lib. On the device: carry .prebuilt and
# run them with scripts/run-variants.sh (tests, benchmark rounds, summary, ncu; a session's
# experiment script sets its variables, as scripts/session31-exp.sh does).
# Example: scripts/prebuild-variants.sh kernels/classic/reg_realign.cu base nosh=TMAKIT_RR_NOSHFL
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: prebuild-variants.sh FILE NAME[=KNOB[,KNOB...]] ...}
shift
b=${BUILD:-build}
[ -d "$b" ] || cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" > /dev/null
saved=$(mktemp)
cp "$file" "$saved"
trap 'cp "$saved" "$file"; rm -f "$saved"' EXIT
mkdir -p .prebuilt/lib
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
cp "$saved" "$file"
touch "$file"  # the next build compiles the file as committed
lib=$(ldd "$b/bench/tmakit_bench" | awk '/libbenchmark/ {print $3}')
[ -n "$lib" ] && cp -L "$lib" .prebuilt/lib/
ls -la .prebuilt
