#!/usr/bin/env bash
# Benchmark runs on a GPU machine: a preset or any list of shapes, chosen techniques and
# element sizes, several rounds, an A/B of an environment knob or of variant binaries, the GPU
# tests first if asked; then each run's target verdicts (scripts/targets.py), a compact
# per-shape table (bench/table.py) and, with --report, docs/results.md's report and charts.
#
#   scripts/bench.sh [OPTIONS]
#     --preset quick|full|probe  the benchmark's shapes (default quick; see bench/bench_transpose.cpp)
#     --shapes LIST              any shapes instead: [CLASS:]RxC or BxRxC, comma-separated
#     --tokens 'a|b|c'           techniques, peers and copies to run (default: all)
#     --elems '1|2'              element sizes to run (default: all)
#     --classes 'odd skinny'     one process per class, so a call cut short keeps the classes done
#     --rounds N                 N runs one after another (default 1)
#     --ab TAG[:BIN[:VAR=VALUE]] run every round once per spec (repeat the option): BIN is a
#                                variant binary from `scripts/prebuild.sh variants` (BIN-bench.xz
#                                in the prebuilt folder; default the main binary), VAR=VALUE an
#                                environment knob set for that spec only; the table compares tags
#     --tests FILTER             first run the GPU tests matching this gtest filter, with
#                                TMAKIT_REQUIRE_GPU=1 (a failure fails the script)
#     --prebuilt DIR             binaries packed by scripts/prebuild.sh (carry DIR and .cutensor);
#                                default: build tmakit_bench (and the GPU tests) into build-gpu
#     --report                   bench/report.py over the runs: OUT/results.md and the charts
#     --table-tokens a,b         the techniques bench/table.py shows per shape (default auto)
#     --timeout S                stop each benchmark process after S seconds (default 560)
#     --out DIR                  where everything goes (default $OUT, else build-gpu)
#
# Examples (each one device call):
#   scripts/bench.sh --preset full --prebuilt .prebuilt --report \
#       --tests 'Registry/Sweep.*:*AutoVariant*:AutoClassRules.*:AccumulateAuto.*:BadCalls.*'
#   scripts/bench.sh --prebuilt .prebuilt --shapes batched:4000x44x60,batched:3500x52x52 \
#       --tokens 'memcpy|auto|tma_wide|smem_flat|smem_wide' --elems 4 --rounds 2
#   scripts/bench.sh --prebuilt .prebuilt --preset probe --classes 'skinny batched odd'
#   scripts/bench.sh --prebuilt .prebuilt --shapes 24x1000003 --tokens 'memcpy|smem_flat' \
#       --ab base --ab big::TMAKIT_POLICY=flat_max_matrix_bytes=65536 --rounds 2
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
preset=quick shapes="" tokens="" elems="" classes="" rounds=1 tests="" prebuilt="" report=0
table_tokens=auto limit=560 out=${OUT:-build-gpu}
specs=()
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-64}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) preset=$2; shift ;;
    --shapes) shapes=$2; shift ;;
    --tokens) tokens=$2; shift ;;
    --elems) elems=$2; shift ;;
    --classes) classes=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --ab) specs+=("$2"); shift ;;
    --tests) tests=$2; shift ;;
    --prebuilt) prebuilt=$2; shift ;;
    --report) report=1 ;;
    --table-tokens) table_tokens=$2; shift ;;
    --timeout) limit=$2; shift ;;
    --out) out=$2; shift ;;
    -h | --help) usage 0 ;;
    *) echo "bench.sh: unknown option '$1'" >&2; usage ;;
  esac
  shift || usage
done
case "$preset" in quick | full | probe) ;; *) echo "bench.sh: --preset must be quick, full or probe" >&2; exit 64 ;; esac
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: --rounds must be a positive integer" >&2; exit 64; }
[ ${#specs[@]} -gt 0 ] || specs=(run)
mkdir -p "$out" build-gpu/bench build-gpu/tests

# cuTENSOR (a peer) when carried: ../shared/tools/cutensor-sm90.sh's folder as .cutensor.
if [ -f .cutensor/lib/libcutensor.so.2.xz ] && [ ! -f .cutensor/lib/libcutensor.so.2 ]; then
  xz -d -k .cutensor/lib/libcutensor.so.2.xz
fi
[ -d .cutensor/lib ] && export LD_LIBRARY_PATH="$PWD/.cutensor/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The binaries: unpacked from the prebuilt folder, or built here.
bins=build-gpu/bin
mkdir -p "$bins"
if [ -n "$prebuilt" ]; then
  export LD_LIBRARY_PATH="$PWD/$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  for f in "$prebuilt"/*.xz; do
    [ -e "$f" ] || { echo "bench.sh: $prebuilt holds no binaries (scripts/prebuild.sh packs them)" >&2; exit 1; }
    xz -d -c "$f" > "$bins/$(basename "$f" .xz)" && chmod +x "$bins/$(basename "$f" .xz)" || exit 1
  done
else
  targets=(tmakit_bench)
  [ -n "$tests" ] && targets+=(tmakit_gpu_tests)
  ct=(); [ -d .cutensor ] && ct=(-DCUTENSOR_ROOT="$PWD/.cutensor")
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" \
    "${ct[@]}" > "$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
  cmake --build build-gpu -j"$(nproc)" --target "${targets[@]}" > "$out/build.log" 2>&1 ||
    { grep -E "error" -A3 "$out/build.log" | head -30; exit 1; }
  ln -sf ../bench/tmakit_bench "$bins/tmakit_bench"
  [ -n "$tests" ] && ln -sf ../tests/tmakit_gpu_tests "$bins/tmakit_gpu_tests"
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0

if [ -n "$tests" ]; then
  TMAKIT_REQUIRE_GPU=1 "$bins/tmakit_gpu_tests" --gtest_brief=1 --gtest_filter="$tests" > "$out/gtest.log" 2>&1 || rc=1
  grep -E "FAILED|PASSED|Failure" "$out/gtest.log" | head -20
fi

# One benchmark process: spec, round, class ('' = every class).
# No --tokens, --elems or class: no filter, so the host rows (host_overhead/*, host_calls/*,
# tensor_map_host/*) run too.
filter_args() {
  fa=()
  [ -z "$tokens$elems$1" ] && return
  local f="^(${tokens:-[a-z0-9_]+})/e(${elems:-[0-9]+})/"
  [ -n "$1" ] && f+="$1/"
  fa=("--benchmark_filter=$f")
}
shape_args=(--preset="$preset")
[ -n "$shapes" ] && shape_args=(--shapes="$shapes")
files=() ab=()
t0=$(date +%s)
for r in $(seq 1 "$rounds"); do
  for s in "${specs[@]}"; do
    IFS=: read -r tag bin knob <<< "$s"
    exe=$bins/${bin:+$bin-bench}
    [ -n "$bin" ] || exe=$bins/tmakit_bench
    [ -x "$exe" ] || { echo "bench.sh: no binary $exe (spec '$s')" >&2; exit 1; }
    for cls in ${classes:-all}; do
      [ "$cls" = all ] && cls=""
      left=$((limit - ($(date +%s) - t0)))
      [ "$left" -gt 20 ] || { echo "bench.sh: out of time before $tag round $r ${cls}"; rc=1; break 3; }
      name=bench-$tag-r$r${cls:+-$cls}
      filter_args "$cls"
      env ${knob:+"$knob"} timeout "$left" "$exe" "${shape_args[@]}" "${fa[@]}" \
        --benchmark_out="$out/$name.json" --benchmark_out_format=json > "$out/$name.txt" 2>&1 || rc=1
      files+=("$out/$name.json")
      ab+=("$tag=$out/$name.json")
      echo "$name done at $(date -u +%T)"
    done
  done
done

for f in "${files[@]}"; do
  [ -s "$f" ] || continue
  echo "== $(basename "$f"): targets.py"
  python3 scripts/targets.py "$f" | grep -E "UNMET|lowest|auto miss|^#" | tee -a "$out/targets.txt"
done
if [ ${#specs[@]} -gt 1 ]; then
  python3 bench/table.py --ab "${ab[@]}" --tokens "$table_tokens" | tee "$out/table.txt"
else
  python3 bench/table.py "${files[@]}" --tokens "$table_tokens" | tail -n 150 | tee "$out/table.txt"
fi
if [ "$report" = 1 ]; then
  python3 bench/report.py "${files[@]}" --md "$out/results.md" --img "$out" \
    --command "scripts/bench.sh --preset $preset${shapes:+ --shapes $shapes}" || rc=1
fi
exit $rc
