#!/usr/bin/env bash
# Session 39's device calls (docs/perf-notes.md session 39). Binaries from the development
# machine, carried with .cutensor: .prebuilt (scripts/prebuild.sh at main), .prebuilt/tall
# (scripts/prebuild.sh on branch exp/flat-tall-jump), .prebuilt/ci-extras
# (scripts/prebuild-extras.sh at main). Each verb packs what it wrote into at most 8 files
# under OUT (the device tool's limit on files coming back).
#   bash scripts/session39.sh final OUT   session37.sh final: the sweep, `auto` and bad-call GPU
#       tests, then the full preset (bench-full.json.xz), targets.py's verdicts
#   bash scripts/session39.sh ncu OUT     session37.sh ncu: every unmet target of that run
#       (same machine: build-gpu/s39-run.json; RUN=FILE another run) under ncu (ncu-unmet.txt)
#   bash scripts/session39.sh tall OUT    session38.sh ab, SET=tall: the flat GPU tests of the
#       branch's build, then two interleaved rounds of main and the branch over N x k shapes
#       (TESTS, VARIANTS as session38.sh's: after the merge, "main:.prebuilt/base new:.prebuilt")
#   bash scripts/session39.sh extras OUT  ci-sm90's extras part from .prebuilt/ci-extras
#   bash scripts/session39.sh auto OUT    the two `auto` rules written after the final runs,
#       main's binary (.prebuilt/base) against the working tree's (.prebuilt), two rounds
set -uo pipefail
what=${1:?usage: session39.sh final|ncu|tall|auto|extras OUT}
out=${2:-$OUT}
mkdir -p "$out"
work=/tmp/s39-$what
mkdir -p "$work"
pack() {  # the whole working folder as one file, plus the files named
  tar -C "$work" -cJf "$out/$what.tar.xz" . && cp "$@" "$out/" 2> /dev/null
  true
}
case "$what" in
  final)
    bash scripts/session37.sh final "$work"
    rc=$?
    python3 scripts/targets.py "$work/bench-full.json" | tee "$work/targets.txt" | grep -E "UNMET|overhead|^#"
    cp "$work/bench-full.json" build-gpu/s39-run.json  # for the ncu verb on this machine
    xz -T0 -c "$work/bench-full.json" > "$out/bench-full.json.xz"
    rm -f "$work/bench-full.json"
    pack "$work/targets.txt"
    exit $rc ;;
  ncu)
    run=${RUN:-build-gpu/s39-run.json}
    [ -f "$run" ] || { echo "session39.sh ncu: no $run (the final verb on this machine writes it)"; exit 1; }
    RUN=$run bash scripts/session37.sh ncu "$work"
    rc=$?
    pack "$work/ncu-unmet.txt"
    exit $rc ;;
  tall)
    SET=tall TESTS=${TESTS:-.prebuilt/tall} VARIANTS=${VARIANTS:-"main:.prebuilt tall:.prebuilt/tall"} \
      bash scripts/session38.sh ab "$work"
    rc=$?
    pack "$work/ab-table.txt"
    exit $rc ;;
  auto)  # the `auto` rules written after the final runs: main's binary (.prebuilt/base) against
    # the working tree's (.prebuilt), on the cells they move and their neighbours
    SET=custom TESTS=.prebuilt VARIANTS="main:.prebuilt/base new:.prebuilt" \
      SHAPES="batched:3000x97x75,batched:3000x70x71,batched:5000x33x65,skinny:4000000x2,skinny:4000000x3,skinny:1000003x2,skinny:2x4000000" \
      TOKENS="memcpy|smem_flat|bulk_flat|smem_strip|auto" bash scripts/session38.sh ab "$work"
    rc=$?
    pack "$work/ab-table.txt"
    exit $rc ;;
  extras)
    bash scripts/session37.sh extras "$work"
    rc=$?
    pack
    exit $rc ;;
  *) echo "session39.sh: final, ncu, tall, auto or extras"; exit 64 ;;
esac
