#!/usr/bin/env bash
# Session 38's device calls (docs/perf-notes.md session 38), binaries from the development
# machine: .prebuilt (scripts/prebuild.sh at the working tree: tmakit_bench, tmakit_gpu_tests),
# .prebuilt/base/tmakit_bench.xz (scripts/prebuild.sh at 28cdca1, the kernels before the
# change) and .cutensor carried.
#   bash scripts/session38.sh ab OUT     the flat family's GPU tests (new binary), then two
#       interleaved rounds of each variant's tmakit_bench (VARIANTS="TAG:DIR ...", default
#       "base:.prebuilt/base new:.prebuilt") over the flat family's batch and k x N cells
#       (memcpy, smem_flat, bulk_flat, auto), and the per-cell table of all; SET=tall: N x k
#       shapes instead, with reg_permute, reg_tile and cuTENSOR (the experiment on branch
#       exp/flat-tall-jump: its binaries in a VARIANTS folder, scripts/prebuild.sh on that branch);
#       SET=custom: SHAPES and TOKENS given (session 39's check of two `auto` rules)
# The session's final run was scripts/final-run.sh itself: `OUT=... PREBUILT=.prebuilt
# scripts/final-run.sh` (no GPU tests: ci-sm90's main part had just passed at the same commit).
set -uo pipefail
what=${1:?usage: session38.sh ab OUT}
out=${2:-$OUT}
mkdir -p "$out"
[ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
export LD_LIBRARY_PATH="$PWD/.cutensor/lib:$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unpack() {  # unpack XZ BIN
  mkdir -p "$(dirname "$2")" && xz -d -c "$1" > "$2" && chmod +x "$2"
}
case "$what" in
  ab)
    # TESTS: the folder whose tmakit_gpu_tests.xz runs the GPU tests (the new kernels' build)
    unpack "${TESTS:-.prebuilt}/tmakit_gpu_tests.xz" build-gpu/tests/tmakit_gpu_tests || exit 1
    # VARIANTS: TAG:DIR pairs, DIR holding a tmakit_bench.xz; two rounds of each, interleaved.
    variants=${VARIANTS:-base:.prebuilt/base new:.prebuilt}
    for v in $variants; do unpack "${v#*:}/tmakit_bench.xz" "build-gpu/${v%%:*}/tmakit_bench" || exit 1; done
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    rc=0
    TMAKIT_REQUIRE_GPU=1 build-gpu/tests/tmakit_gpu_tests --gtest_brief=1 \
      --gtest_filter='*flat*:Registry/Sweep.*:*AutoVariant*' > "$out/gtest.log" 2>&1 || rc=1
    grep -E "FAILED|PASSED|Failure" "$out/gtest.log" | head -20
    tokens="memcpy|smem_flat|bulk_flat|auto"
    case "${SET:-batch}" in
      batch)  # session 38: the one-run forms (batches, k x N)
        shapes="batched:3000x97x75,batched:100000x8x8,batched:20000x16x48,batched:10000x24x40"
        shapes+=",batched:5000x33x65,batched:2000x100x60,batched:2048x64x64"
        shapes+=",skinny:8x1000003,skinny:12x1000003,skinny:24x1000003,skinny:4x4000000"
        shapes+=",skinny:16x4000000,skinny:32x4000000" ;;
      tall)  # N x k (kTall: branch exp/flat-tall-jump), with the pick and the peer they race
        shapes="skinny:4000000x16,skinny:4000000x32,skinny:4000000x4,skinny:4000000x7"
        shapes+=",skinny:1000003x24,skinny:1000003x12,skinny:1000003x3,skinny:2097152x9"
        shapes+=",skinny:4000000x1"
        tokens="memcpy|smem_flat|bulk_flat|auto|reg_permute|reg_tile|cutensor" ;;
      custom)  # SHAPES (tmakit_bench --shapes) and TOKENS (a|b|...; memcpy first) given
        shapes=${SHAPES:?SET=custom needs SHAPES}
        tokens=${TOKENS:-$tokens} ;;
      *) echo "session38.sh: SET must be batch, tall or custom"; exit 64 ;;
    esac
    args=()
    for r in 1 2; do
      for v in $variants; do
        t=${v%%:*}; s=$(date +%s)
        "build-gpu/$t/tmakit_bench" --shapes="$shapes" --benchmark_filter="^($tokens)/" \
          --benchmark_out="$out/ab-$t$r.json" --benchmark_out_format=json > "$out/ab-$t$r.txt" 2>&1 || rc=1
        echo "== $t round $r $(($(date +%s) - s)) s"
        args+=("$t=$out/ab-$t$r.json")
      done
    done
    python3 scripts/exp_summary.py --tokens "$(echo "$tokens" | sed 's/memcpy|//; s/|/,/g')" "${args[@]}" |
      tee "$out/ab-table.txt"
    exit $rc ;;
  *) echo "session38.sh: ab"; exit 64 ;;
esac
