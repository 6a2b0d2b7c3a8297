#!/usr/bin/env bash
# Session 37's device calls (docs/perf-notes.md session 37), binaries from the development
# machine: .prebuilt (scripts/prebuild.sh: tmakit_bench, tmakit_gpu_tests; scripts/
# prebuild-extras.sh: ci-extras/) and .cutensor carried. No kernel changed after 1b4cbf7,
# whose ci-sm90 main part passed (session 35); its extras part and the tests added since
# (Registry/Sweep.*) run here.
#   bash scripts/session37.sh extras OUT  ci-sm90's extras part from the prebuilt binaries
#   bash scripts/session37.sh final OUT   the final full run (scripts/final-run.sh, prebuilt,
#       with the sweep, `auto` and bad-call GPU tests); PROBE=1: then the probe preset
#   bash scripts/session37.sh ncu OUT     ncu of every unmet target's deciding cell
#       (scripts/ncu-unmet.sh targets:RUN on the final run of the same machine, kept in
#       /tmp/s37-run.json; RUN=FILE another run; session 37 ran this step as scripts/ncu-targets.sh,
#       since folded into ncu-unmet.sh, writing ncu-targets.txt)
set -uo pipefail
what=${1:?usage: session37.sh extras|final|ncu OUT}
out=${2:-$OUT}
mkdir -p "$out"
[ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
export LD_LIBRARY_PATH="$PWD/.cutensor/lib:$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
case "$what" in
  extras)
    echo "== ci-sm90 extras (prebuilt at $(cat .prebuilt/ci-extras/BUILT))"
    TMAKIT_CI_PREBUILT=.prebuilt/ci-extras TMAKIT_CI_PART=extras TMAKIT_CI_BUILD=/tmp/bx \
      scripts/ci-sm90.sh "$out/extras" 2>&1 | tee "$out/extras.log" | grep -E "^==|PASSED|FAIL|tma_load_store"
    exit "${PIPESTATUS[0]}" ;;
  final)
    OUT=$out PREBUILT=.prebuilt scripts/final-run.sh 'Registry/Sweep.*:*AutoVariant*:AccumulateAuto.*:BadCalls.*'
    rc=$?; cp "$out/bench-full.json" /tmp/s37-run.json
    if [ -n "${PROBE:-}" ]; then  # PROBE=1: the probe preset after it (same binary)
      build-gpu/bench/tmakit_bench --preset=probe --benchmark_out="$out/bench-probe.json" \
        --benchmark_out_format=json > "$out/bench-probe.txt" 2>&1 || rc=1
      python3 scripts/targets.py "$out/bench-probe.json" | grep -E "auto miss|lowest" | head -40
    fi
    exit $rc ;;
  ncu)
    [ -x build-gpu/bench/tmakit_bench ] || { mkdir -p build-gpu/bench &&
      xz -d -c .prebuilt/tmakit_bench.xz > build-gpu/bench/tmakit_bench && chmod +x build-gpu/bench/tmakit_bench; }
    OUT=$out scripts/ncu-unmet.sh build-gpu "targets:${RUN:-/tmp/s37-run.json}" > /dev/null
    grep -cE "^==" "$out/ncu-unmet.txt"; grep -E "^==|dram__throughput|issue_active" "$out/ncu-unmet.txt" | head -80 ;;
  *) echo "session37.sh: extras, final or ncu"; exit 64 ;;
esac
