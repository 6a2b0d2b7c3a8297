#!/usr/bin/env bash
# Session 42's device calls (docs/perf-notes.md session 42). Binaries from the development
# machine (scripts/prebuild.sh at main into .prebuilt), carried with .cutensor; the final runs
# whose unmet targets go under ncu travel as .s42/{at,as}.json.xz (docs/data's copies).
#   bash scripts/session42.sh h100 OUT   the `auto` GPU tests; the held-out check of session 41's
#       8 B split-sector rule (SET_8B); session 41 item 5's 4 B batch prediction (SET_4B); every
#       unmet target of final run at under ncu
#   bash scripts/session42.sh h200 OUT   the `auto` GPU tests; SET_4B; session 41 item 5's k x N
#       8 B prediction (SET_KN); every unmet target of final run as under ncu
#   bash scripts/session42.sh more OUT   the `auto` GPU tests; held-out shapes for the rules written
#       from the h100 verb's runs (SET_4B2: 4 B batches of short side 33..63, SET_8B2: 8 B batches
#       of rows = 2 mod 4 below 128); on an H200 also the h200 verb's sets and ncu of run as,
#       elsewhere ncu of run at
#   bash scripts/session42.sh classes OUT   two more class predictions for the H200 (on any GPU):
#       4 B batches of short side 33..63 whose sides are both 0 mod 8 (SET_4BN: tma_load_store
#       over tma_wide where a side is above 64) and 8 B batches of odd cols whose rows split
#       sectors (SET_8BS: smem_sector over smem_wide where its 64-row blocks pad rows by <= 15%)
#   bash scripts/session42.sh final OUT   scripts/final-run.sh with PREBUILT=.prebuilt: the sweep,
#       `auto` (AutoClassRules included) and bad-call GPU tests, then the full preset
#       (bench-full.json.xz) and targets.py's verdicts (targets.txt)
#   bash scripts/session42.sh ncu OUT     every unmet target of the final run of this GPU under
#       ncu: au on an H200, av elsewhere (.s42/{au,av}.json.xz)
# SKIP_NCU=1 leaves the ncu part out.
set -uo pipefail
what=${1:?usage: session42.sh h100|h200 OUT}
out=${2:-$OUT}
mkdir -p "$out"
# held out for session 41's rule (8 B, 16-byte rows, rows = 2 mod 4): none measured before
SET_8B="batched:1000x130x250,batched:3000x90x102,batched:400x310x286,batched:2000x66x200"
SET_8B+=",batched:2000x70x200,batched:3000x78x100,batched:1500x106x150,square:5002x6000,skinny:3000002x48"
# 4 B batches, short side 33..63, <= 4096 elements, rows = cols = 4 mod 8: none measured before
SET_4B="batched:6000x36x36,batched:4000x36x60,batched:4000x44x52,batched:3000x52x60"
SET_4B+=",batched:2500x60x68,batched:3000x36x84,batched:3000x60x44"
# k x N at 8 B, k not a power of two and k = 4, 8 again, N of 1.5-3 M, odd and even
SET_KN="skinny:10x2000000,skinny:11x1500007,skinny:14x3000000,skinny:15x1500000"
SET_KN+=",skinny:22x1500001,skinny:27x1500000,skinny:4x3000001,skinny:8x2000000"
# held out for the H100's 4 B rule (smem_wide where a matrix fills at least half of one 64 x 64
# tile; else smem_flat where rows = cols = 4 mod 8; else tma_wide) and its 8 B one (smem_sector
# for every batch of split rows): none measured before
SET_4B2="batched:4000x44x60,batched:3500x52x52,batched:2500x60x60,batched:4500x60x36"
SET_4B2+=",batched:4000x40x56,batched:3500x48x56,batched:5000x44x44,batched:6000x36x44"
SET_4B2+=",batched:3000x44x76,batched:3000x52x68,batched:3000x56x72,batched:5000x40x48"
SET_8B2="batched:2500x74x120,batched:3000x86x90,batched:2000x98x160,batched:1500x118x140"
SET_4BN="batched:3000x40x88,batched:2500x48x72,batched:3500x40x80,batched:2600x40x96"
SET_4BN+=",batched:2200x56x72,batched:2500x56x64,batched:3000x48x64,batched:4000x48x48"
SET_8BS="batched:300x125x301,batched:400x190x255,batched:600x250x151,batched:200x370x333"
SET_8BS+=",batched:1000x126x99,batched:2000x70x99,batched:800x150x201,batched:1500x97x121"
T_8B="memcpy|auto|tma_wide|smem_sector|smem_wide|smem_strip|smem_padded"
T_4B="memcpy|auto|tma_wide|smem_flat|bulk_flat|reg_permute|smem_wide|tma_load_store"
T_KN="memcpy|auto|smem_flat|smem_strip|tma_wide|reg_permute|smem_wide"
shapes() {  # TAG SHAPES TOKENS ELEMS
  TAG=$1 SHAPES=$2 TOKENS=$3 ELEMS=$4 ROUNDS=2 bash scripts/session40.sh shapes "$out/$1" | tail -n 40
}
ncu_run() {  # the final run whose unmet targets ncu profiles
  xz -d -c ".s42/$1.json.xz" > /tmp/s42-run.json &&
    RUN=/tmp/s42-run.json bash scripts/session37.sh ncu "$out/ncu" | tail -n 60
}
auto_tests() {  # the carried binaries unpacked, then the `auto` GPU tests (gtest.log)
  export LD_LIBRARY_PATH="$PWD/.cutensor/lib:$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  [ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
  mkdir -p build-gpu/bench build-gpu/tests
  xz -d -c .prebuilt/tmakit_gpu_tests.xz > build-gpu/tests/tmakit_gpu_tests &&
    chmod +x build-gpu/tests/tmakit_gpu_tests
  local r=0
  TMAKIT_REQUIRE_GPU=1 build-gpu/tests/tmakit_gpu_tests --gtest_brief=1 \
    --gtest_filter='*AutoVariant*:*AutoClassRules*:AccumulateAuto.*:BadCalls.*' > "$out/gtest.log" 2>&1 || r=1
  grep -E "FAILED|PASSED|Failure" "$out/gtest.log" | head -20
  return $r
}
rc=0
case "$what" in
  h100 | h200)
    auto_tests || rc=1
    if [ "$what" = h100 ]; then
      shapes 8b "$SET_8B" "$T_8B" 8 || rc=1
      shapes 4b "$SET_4B" "$T_4B" 4 || rc=1
      [ -n "${SKIP_NCU:-}" ] || ncu_run at || rc=1
    else
      shapes 4b "$SET_4B" "$T_4B" 4 || rc=1
      shapes kn "$SET_KN" "$T_KN" 8 || rc=1
      [ -n "${SKIP_NCU:-}" ] || ncu_run as || rc=1
    fi ;;
  more)
    auto_tests || rc=1
    shapes 4b2 "$SET_4B2" "$T_4B" 4 || rc=1
    shapes 8b2 "$SET_8B2" "memcpy|auto|tma_wide|smem_sector|smem_wide" 8 || rc=1
    if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
      shapes 4b "$SET_4B" "$T_4B" 4 || rc=1
      shapes kn "$SET_KN" "$T_KN" 8 || rc=1
      [ -n "${SKIP_NCU:-}" ] || ncu_run as || rc=1
    else
      [ -n "${SKIP_NCU:-}" ] || ncu_run at || rc=1
    fi ;;
  final)
    work=/tmp/s42-final
    mkdir -p "$work"
    OUT=$work PREBUILT=.prebuilt scripts/final-run.sh \
      'Registry/Sweep.*:*AutoVariant*:AutoClassRules.*:AccumulateAuto.*:BadCalls.*' || rc=1
    python3 scripts/targets.py "$work/bench-full.json" | tee "$out/targets.txt" | grep -E "UNMET|overhead|^#"
    xz -T0 -c "$work/bench-full.json" > "$out/bench-full.json.xz"
    rm -f "$work/bench-full.json"
    tar -C "$work" -cJf "$out/final.tar.xz" . ;;
  ncu)
    export LD_LIBRARY_PATH="$PWD/.cutensor/lib:$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    [ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
    if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then r=au; else r=av; fi
    ncu_run $r || rc=1 ;;
  classes)
    shapes 4bn "$SET_4BN" "memcpy|auto|tma_wide|tma_load_store|reg_tile|smem_wide|smem_flat" 4 || rc=1
    shapes 8bs "$SET_8BS" "memcpy|auto|smem_sector|smem_wide|smem_padded" 8 || rc=1 ;;
  *) echo "session42.sh: h100, h200, more or classes"; exit 64 ;;
esac
exit $rc
