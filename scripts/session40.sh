#!/usr/bin/env bash
# Session 40's device calls (docs/perf-notes.md session 40). Binaries from the development
# machine (scripts/prebuild.sh at main into .prebuilt), carried with .cutensor. Each verb packs
# what it wrote into at most 8 files under OUT (the device tool's limit on files coming back).
#   bash scripts/session40.sh probe OUT   the probe preset (scripts/probe-run.sh: skinny, batched
#       and odd members the full preset does not name), then a second set of members no preset
#       names (WIDE_SHAPES below: other k, other N, odd batches, odd sizes), each with targets.py's
#       class lows and `auto` misses (SKIP_PROBE=1: the second set alone)
#   bash scripts/session40.sh survey OUT  one run over SURVEY_SHAPES: 24 members of the issue's
#       classes drawn at random (Python's random.Random(40): k x N / N x k with k 2..32 and N of
#       1-4 M; batches of 32..512-sided matrices of 32-256 MB at 4 B; odd matrices with sides of
#       1000..20000, neither a multiple of 16, at most 40 M elements), with targets.py's lines
#   SHAPES=... TOKENS=a|b ELEMS=1|2 ROUNDS=n bash scripts/session40.sh shapes OUT   any shapes,
#       techniques and element sizes, ROUNDS runs (default 1), with targets.py's lines
#   SHAPES=... TOKENS=... ELEMS=... KNOB=NAME=VALUE bash scripts/session40.sh envab OUT   the
#       same binary without and with an environment knob, two interleaved rounds each
#   bash scripts/session40.sh verify OUT  every GPU test of the working tree's build (one
#       process, TMAKIT_REQUIRE_GPU=1, GTEST_FILTER to narrow it), then SHAPES x ELEMS with
#       TOKENS in two rounds (the shapes verb)
#   bash scripts/session40.sh check OUT   the `auto` rules written from those runs: the GPU tests
#       of the working tree's build (`auto`, the sweep), then two rounds of its tmakit_bench over
#       CHECK_CELLS (the cells the rules move, and held-out neighbours no run had measured), with
#       targets.py's `auto` misses per round
set -uo pipefail
what=${1:?usage: session40.sh probe|check|survey OUT}
out=${2:-$OUT}
mkdir -p "$out"
work=/tmp/s40-$what${TAG:+-$TAG}  # TAG: a second set of the same verb in one call
mkdir -p "$work"
# Members of the issue's classes in neither preset: skinny k in 1..32 with N >= 1M (k = 6, 13, 20,
# 31; N odd or a power of two), batches of 32..512-sided matrices with odd sides, odd matrices of
# other sizes. Chosen before any run, not tuned to.
WIDE_SHAPES="skinny:6x3000001,skinny:3000001x6,skinny:13x2000000,skinny:2000000x13"
WIDE_SHAPES+=",skinny:20x1048576,skinny:1048576x20,skinny:31x1500007,skinny:1500007x31"
WIDE_SHAPES+=",batched:4000x40x72,batched:1500x48x200,batched:800x300x200,batched:3000x128x97"
WIDE_SHAPES+=",batched:250x511x509,batched:8000x37x37"
WIDE_SHAPES+=",odd:2999x8191,odd:15001x3333,odd:5001x5003,odd:1999x30001"
export LD_LIBRARY_PATH="$PWD/.cutensor/lib:$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Cells as SHAPE:E,E (class-prefixed shapes; E the element sizes run).
CHECK_CELLS="batched:4000x40x72:2,4,8 batched:1500x48x200:2,4,8 batched:250x511x509:2,4"
CHECK_CELLS+=" batched:8000x37x37:2,4 batched:5000x33x65:4 odd:1001x999:2,4 skinny:20x1048576:2,16"
CHECK_CELLS+=" skinny:24x1000003:16 skinny:31x1500007:16"
# held out: measured by no run before the rules were written
CHECK_CELLS+=" batched:3000x48x40:2 batched:6000x40x40:2,4 batched:2000x56x120:2,4"
CHECK_CELLS+=" batched:1200x40x256:2 batched:3000x48x80:4,8 batched:5000x36x100:4,8"
CHECK_CELLS+=" batched:8000x32x48:2,4 batched:6000x45x29:4 batched:3000x50x61:4 batched:20000x13x21:4"
CHECK_CELLS+=" batched:300x400x401:4 batched:160x700x450:4 batched:400x350x333:4"
CHECK_CELLS+=" odd:1499x1501:2,4 odd:2001x1999:4 odd:2897x2903:4 odd:3001x999:2"
CHECK_CELLS+=" skinny:18x2000000:2,16 skinny:28x1048576:2,16 skinny:24x2000000:2"
# added after the H100's first check (the rules' edges it showed)
CHECK_CELLS+=" batched:3000x44x88:2,4 batched:2500x60x100:4 batched:2000x64x48:4"
CHECK_CELLS+=" batched:500x270x300:4 batched:1000x190x250:4 odd:1771x1773:4"
# held out again: added when the rules were rewritten from both GPUs' first checks
CHECK_CELLS+=" batched:5000x48x56:2 batched:4000x36x72:2 batched:1500x40x240:2 batched:2500x64x40:2"
CHECK_CELLS+=" batched:7000x36x52:4 batched:4000x52x76:4,8 batched:3500x40x96:4,8 batched:4500x44x64:4"
CHECK_CELLS+=" batched:600x201x300:4 batched:400x170x520:4 batched:800x150x300:4 odd:1601x1650:4"
CHECK_CELLS+=" odd:1401x1501:4 skinny:22x1500000:2,16 skinny:30x1048576:2,16 skinny:26x1000003:2,16"
SURVEY_SHAPES="skinny:3430547x16,skinny:3x2028821,skinny:3672182x32,skinny:6x2461250"
SURVEY_SHAPES+=",skinny:2848690x25,skinny:18x1544731,skinny:3598706x8,skinny:29x1223037"
SURVEY_SHAPES+=",batched:219x341x192,batched:2465x198x106,batched:214x380x458,batched:2938x81x240"
SURVEY_SHAPES+=",batched:122x463x453,batched:243x419x203,batched:818x110x190,batched:736x190x388"
SURVEY_SHAPES+=",odd:3110x6596,odd:7716x1293,odd:3288x2216,odd:9281x4007,odd:2884x8927"
SURVEY_SHAPES+=",odd:7116x2823,odd:2025x14086,odd:2371x6173"
# The prebuilt binaries and cuTENSOR unpacked where the verbs run them; the GPU's name printed.
unpack() {
  [ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
  mkdir -p build-gpu/bench build-gpu/tests
  xz -d -c .prebuilt/tmakit_bench.xz > build-gpu/bench/tmakit_bench && chmod +x build-gpu/bench/tmakit_bench
  xz -d -c .prebuilt/tmakit_gpu_tests.xz > build-gpu/tests/tmakit_gpu_tests &&
    chmod +x build-gpu/tests/tmakit_gpu_tests
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
}
case "$what" in
  verify)
    unpack
    s=$(date +%s)
    timeout "${TESTS_TIMEOUT:-300}" env TMAKIT_REQUIRE_GPU=1 build-gpu/tests/tmakit_gpu_tests --gtest_brief=1 \
      --gtest_filter="${GTEST_FILTER:-*}" > "$work/gtest-all.log" 2>&1
    echo "gpu tests rc $? in $(($(date +%s) - s)) s"
    grep -E "FAILED|PASSED|Failure|tests from" "$work/gtest-all.log" | tail -12
    ROUNDS=2 bash "$0" shapes "$out"
    rc=$?
    cp "$work/gtest-all.log" "$out/" 2> /dev/null
    exit $rc ;;
  envab)
    unpack
    rc=0
    # the flat GPU tests with the knob set: what the knob lets the kernels take must be right
    env "${KNOB:?}" TMAKIT_REQUIRE_GPU=1 build-gpu/tests/tmakit_gpu_tests --gtest_brief=1 \
      --gtest_filter='*flat*:Registry/Sweep.*' > "$work/gtest.log" 2>&1 || rc=1
    grep -E "FAILED|PASSED|Failure" "$work/gtest.log" | head -20
    args=()
    for r in 1 2; do
      for v in base knob; do
        if [ $v = knob ]; then pre=(env "$KNOB"); else pre=(env); fi
        "${pre[@]}" build-gpu/bench/tmakit_bench --shapes="${SHAPES:?}" \
          --benchmark_filter="^(${TOKENS:?})/e(${ELEMS:-1|2|4|8})/" \
          --benchmark_out="$work/ab-$v$r.json" --benchmark_out_format=json > "$work/ab-$v$r.txt" 2>&1 || rc=1
        args+=("$v=$work/ab-$v$r.json")
      done
    done
    python3 scripts/exp_summary.py --tokens "$(echo "$TOKENS" | sed 's/memcpy|//; s/|/,/g')" "${args[@]}" |
      tee "$work/ab-table.txt"
    tar -C "$work" -cJf "$out/$what.tar.xz" .
    exit $rc ;;
  shapes)
    unpack
    rc=0
    for r in $(seq 1 "${ROUNDS:-1}"); do
      build-gpu/bench/tmakit_bench --shapes="${SHAPES:?}" --benchmark_filter="^(${TOKENS:?})/e(${ELEMS:-1})/" \
        --benchmark_out="$work/shapes-$r.json" --benchmark_out_format=json > "$work/shapes-$r.txt" 2>&1 || rc=1
      python3 scripts/targets.py "$work/shapes-$r.json" | grep -E "lowest|auto miss" | tee -a "$work/targets.txt"
    done
    python3 scripts/bench_table.py "$work"/shapes-*.json --tokens "$(echo "$TOKENS" | sed 's/memcpy|//; s/|/,/g')" | tee "$work/shapes-table.txt"
    tar -C "$work" -cJf "$out/$what.tar.xz" .
    exit $rc ;;
  survey)
    unpack
    tokens='memcpy|copy|tma_copy|cutensor|cublas_geam|cublas_geam_c|cublaslt|auto|smem_padded|smem_wide|smem_xor|smem_strip|smem_sector|smem_realign|reg_realign|smem_flat|reg_permute|reg_tile|vec_padded|tma_load_store|tma_wide|tma_pipeline|bulk_flat'
    rc=0
    s=$(date +%s)
    timeout "${SURVEY_TIMEOUT:-500}" build-gpu/bench/tmakit_bench --shapes="$SURVEY_SHAPES" \
      --benchmark_filter="^($tokens)/" --benchmark_out="$work/survey.json" \
      --benchmark_out_format=json > "$work/survey.txt" 2>&1 || rc=1
    echo "== survey $(($(date +%s) - s)) s"
    python3 scripts/targets.py "$work/survey.json" | grep -E "lowest|auto miss" | tee "$work/targets.txt"
    python3 scripts/bench_table.py "$work/survey.json" --tokens auto > "$work/survey-table.txt" 2>&1
    tar -C "$work" -cJf "$out/$what.tar.xz" .
    cp "$work/targets.txt" "$work/survey-table.txt" "$out/" 2> /dev/null
    exit $rc ;;
  check)
    unpack
    rc=0
    TMAKIT_REQUIRE_GPU=1 build-gpu/tests/tmakit_gpu_tests --gtest_brief=1 \
      --gtest_filter='Registry/Sweep.*:*AutoVariant*:BadCalls.*' > "$work/gtest.log" 2>&1 || rc=1
    grep -E "FAILED|PASSED|Failure" "$work/gtest.log" | head -20
    shapes="" cells=""
    for c in $CHECK_CELLS; do
      shape=${c%:*}; es=${c##*:}
      shapes+="${shapes:+,}$shape"
      for e in ${es//,/ }; do cells+="${cells:+|}e$e/${shape%%:*}/${shape#*:}"; done
    done
    tokens='memcpy|auto|smem_flat|bulk_flat|tma_load_store|smem_wide|smem_sector|reg_permute|smem_strip|reg_tile|tma_wide|smem_padded|reg_realign|smem_xor|cutensor'
    for r in 1 2; do
      s=$(date +%s)
      build-gpu/bench/tmakit_bench --shapes="$shapes" --benchmark_filter="^($tokens)/($cells)/" \
        --benchmark_out="$work/check-$r.json" --benchmark_out_format=json > "$work/check-$r.txt" 2>&1 || rc=1
      echo "== round $r $(($(date +%s) - s)) s"
      python3 scripts/targets.py "$work/check-$r.json" | grep -E "auto miss" | tee -a "$work/targets.txt"
    done
    python3 scripts/bench_table.py "$work/check-1.json" "$work/check-2.json" --tokens auto > "$work/check-table.txt" 2>&1
    tar -C "$work" -cJf "$out/$what.tar.xz" .
    cp "$work/targets.txt" "$work/check-table.txt" "$out/" 2> /dev/null
    exit $rc ;;
  probe)
    [ -n "${SKIP_PROBE:-}" ] || OUT=$work PROBE_TIMEOUT=${PROBE_TIMEOUT:-300} bash scripts/probe-run.sh > "$work/probe-table.txt" 2>&1
    rc=$?
    tail -n 3 "$work/probe-table.txt"
    [ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
    [ -x build-gpu/bench/tmakit_bench ] || { xz -d -c .prebuilt/tmakit_bench.xz > build-gpu/bench/tmakit_bench && chmod +x build-gpu/bench/tmakit_bench; }
    tokens='memcpy|copy|tma_copy|cutensor|cublas_geam|cublas_geam_c|cublaslt|auto|smem_padded|smem_wide|smem_strip|smem_sector|smem_realign|reg_realign|smem_flat|reg_permute|reg_tile|vec_padded|async_copy|tma_load_store|tma_wide|tma_pipeline|bulk_flat'
    timeout "${WIDE_TIMEOUT:-240}" build-gpu/bench/tmakit_bench --shapes="$WIDE_SHAPES" \
      --benchmark_filter="^(${tokens})/" --benchmark_out="$work/wide.json" \
      --benchmark_out_format=json > "$work/wide.txt" 2>&1 || rc=1
    for f in "$work"/probe-*.json "$work/wide.json"; do
      [ -f "$f" ] || continue
      echo "== $(basename "$f")"
      python3 scripts/targets.py "$f" | grep -E "lowest|auto miss"
    done | tee "$work/targets.txt"
    python3 scripts/bench_table.py "$work/wide.json" --tokens auto > "$work/wide-table.txt" 2>&1
    tar -C "$work" -cJf "$out/$what.tar.xz" . 
    cp "$work/targets.txt" "$out/"
    exit $rc ;;
  *) echo "session40.sh: probe, check or survey"; exit 64 ;;
esac
