#!/usr/bin/env bash
# An A/B of permutation policies on a GPU machine: the permute preset's cases that a policy field
# changes, each arm (a TMAKIT_POLICY) run on every seed's cases in turn, one process per seed and
# arm, in passes; then bench/permute_report.py --ab compares them, each case's technique
# normalised by the same process's memcpy.
#
#   scripts/permute_ab.sh --cases FILE --arm NAME=POLICY --arm NAME=POLICY [--passes N]
#                         [--deadline S] [--prebuilt DIR] [--out DIR] [--tar FILE]
#                         [--bench-args ARGS]
#
#   --cases FILE     "SEED REGEX" lines: `tmakit permute-cases --seeds A-B [--named] --changed-by
#                    FIELD=V --filter permute_tile,memcpy` (no GPU; run it where the binary was
#                    built; --named adds the preset's named cases to the first seed's line)
#   --arm NAME=POL   an arm: its name (letters, digits, '_') and its TMAKIT_POLICY (may be empty:
#                    the default); two or more; their order turns with every seed
#   --passes N       every seed's arms N times, pass after pass (default 2: the passes'
#                    agreement is the noise the comparison prints)
#   --deadline S     start no process after S seconds (default 480), so a remote call ends
#                    with what it finished
#   --prebuilt DIR   tmakit_bench packed by scripts/prebuild.sh (DIR/tmakit_bench.xz, DIR/lib);
#                    default build/bench/tmakit_bench
#   --out DIR        where the runs go, NAME-seedS-passP.json (default build-gpu/ab)
#   --tar FILE       also pack that folder into FILE (.tar.xz): a remote call brings back a few
#                    files of $OUT, so --tar "$OUT/ab.tar.xz" rather than --out "$OUT"
#   --bench-args A   more tmakit_bench arguments, the ones the cases were listed with, e.g.
#                    "--permute-min-mb=1 --permute-max-mb=16" for `permute-cases --min-mb 1
#                    --max-mb 16` (the random set's sizes; a seed draws other cases without them)
#
# Example (one device call; docs/perf-guide.md section 4.13 has its runs):
#   build/tmakit permute-cases --seeds 101-900 --elem-bytes 4,8 \
#       --changed-by permute_box_past_static_for_wider_words=0 --filter permute_tile,memcpy > cases.txt
#   scripts/permute_ab.sh --cases cases.txt --arm on= \
#       --arm off=permute_box_past_static_for_wider_words=0 --prebuilt .prebuilt --tar "$OUT/ab.tar.xz"
#   python3 bench/permute_report.py --ab ab on off      # here, on the runs it brought back (tar -xJf)
set -u
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
cases="" arms=() passes=2 deadline=480 prebuilt="" out=build-gpu/ab tar="" bench_args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --cases) cases=${2:-}; shift ;;
    --arm) arms+=("${2:-}"); shift ;;
    --passes) passes=${2:-}; shift ;;
    --deadline) deadline=${2:-}; shift ;;
    --prebuilt) prebuilt=${2:-}; shift ;;
    --out) out=${2:-}; shift ;;
    --tar) tar=${2:-}; shift ;;
    --bench-args) bench_args=${2:-}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "permute_ab.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
fail() { echo "permute_ab.sh: $*" >&2; exit 2; }
[ -n "$cases" ] || fail "--cases FILE is required (see --help)"
[ -f "$cases" ] || fail "no cases file '$cases'"
[ "${#arms[@]}" -ge 2 ] || fail "two --arm NAME=POLICY or more are required"
for a in "${arms[@]}"; do
  [[ "$a" =~ ^[A-Za-z0-9_]+= ]] || fail "an arm is NAME=POLICY, NAME of letters, digits and '_': '$a'"
done
[[ "$passes" =~ ^[1-9][0-9]*$ ]] || fail "--passes must be a positive integer: '$passes'"
[[ "$deadline" =~ ^[0-9]+$ ]] || fail "--deadline must be seconds: '$deadline'"
case "$tar" in "" | *.tar.xz) ;; *) fail "--tar names a .tar.xz file: '$tar'" ;; esac

bench=build/bench/tmakit_bench
if [ -n "$prebuilt" ]; then
  [ -f "$prebuilt/tmakit_bench.xz" ] || fail "$prebuilt holds no tmakit_bench.xz (scripts/prebuild.sh packs it)"
  bench=$(mktemp -d)/tmakit_bench
  xz -d -c "$prebuilt/tmakit_bench.xz" > "$bench" && chmod +x "$bench" || fail "cannot unpack $prebuilt/tmakit_bench.xz"
  export LD_LIBRARY_PATH="$PWD/$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[ -x "$bench" ] || fail "no benchmark at $bench (build tmakit_bench, or --prebuilt DIR)"
# cuTENSOR when carried (../shared/tools/cutensor-sm90.sh's folder): the binary may link it.
if [ -f .cutensor/lib/libcutensor.so.2.xz ] && [ ! -f .cutensor/lib/libcutensor.so.2 ]; then
  xz -d -k .cutensor/lib/libcutensor.so.2.xz
fi
[ -d .cutensor/lib ] && export LD_LIBRARY_PATH="$PWD/.cutensor/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

mkdir -p "$out" || fail "cannot make $out"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
echo "${gpu:-no nvidia-smi}" | tee "$out/gpu.txt"
cp "$cases" "$out/cases.txt"
[ -n "$bench_args" ] && echo "$bench_args" > "$out/bench-args.txt"
start=$(date +%s) runs=0 failed=0
for pass in $(seq 1 "$passes"); do
  turn=$((pass - 1))
  while read -r seed regex; do
    [ -z "${seed:-}" ] && continue
    # The arms in turn: seed k of pass p starts with arm (k + p) mod n, so no arm always runs
    # first, on a seed or across them.
    n=${#arms[@]}
    for i in $(seq 0 $((n - 1))); do
      arm=${arms[$(((turn + i) % n))]}
      name=${arm%%=*} policy=${arm#*=}
      if [ $(($(date +%s) - start)) -gt "$deadline" ]; then
        echo "deadline ($deadline s) at pass $pass, seed $seed"
        break 3
      fi
      # shellcheck disable=SC2086 # bench_args: several arguments
      if TMAKIT_POLICY="$policy" timeout 300 "$bench" --preset=permute --permute-seed="$seed" $bench_args \
        --benchmark_filter="$regex" --benchmark_out="$out/$name-seed$seed-pass$pass.json" \
        --benchmark_out_format=json > /dev/null 2> "$out/$name-seed$seed-pass$pass.log"; then
        rm -f "$out/$name-seed$seed-pass$pass.log"
      else
        echo "failed: arm $name, seed $seed, pass $pass (log: $out/$name-seed$seed-pass$pass.log)"
        failed=$((failed + 1))
      fi
      runs=$((runs + 1))
    done
    turn=$((turn + 1))
  done < "$cases"
done
echo "$runs runs ($failed failed) in $(($(date +%s) - start)) s"
if [ -n "$tar" ]; then
  tar -C "$(dirname "$out")" -cJf "$tar" "$(basename "$out")" && echo "packed: $tar"
fi
python3 "$(dirname "$0")/../bench/permute_report.py" --ab "$out" "${arms[0]%%=*}" "${arms[1]%%=*}" | tail -8
[ "$failed" = 0 ]
