#!/usr/bin/env bash
# ctest (host): scripts/permute_ab.sh without a GPU, over a stand-in tmakit_bench (packed as
# scripts/prebuild.sh packs the real one) that writes one case's memcpy and permute_tile rows,
# permute_tile 10% faster under the policy "fast=1": every seed's arms in every pass, the arms'
# order turning by seed, one file a run, and bench/permute_report.py --ab's comparison of them;
# then the argument errors, each one line.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work/pre"
cat > "$work/tmakit_bench" <<'STUB'
#!/usr/bin/env bash
# Stand-in: --permute-seed=S --benchmark_out=F; the order of calls goes to $ORDER_LOG.
for a in "$@"; do case "$a" in --permute-seed=*) seed=${a#*=} ;; --benchmark_out=*) out=${a#*=} ;; esac; done
echo "$seed ${TMAKIT_POLICY:-default}" >> "$ORDER_LOG"
tile=500; [ "${TMAKIT_POLICY:-}" = fast=1 ] && tile=550
python3 - "$out" "$seed" "$tile" <<'PY'
import json, sys
out, seed, tile = sys.argv[1], sys.argv[2], float(sys.argv[3])
case = f"permute/e4/random/{seed}x5x7/2.1.0"
rows = [{"name": f"{case}/{w}/iterations:10", "run_name": f"{case}/{w}/iterations:10",
         "GBps": g * 1e9, "form": 3.0, "label": "ran " + w} for w, g in (("memcpy", 1000), ("permute_tile", tile))]
json.dump({"context": {}, "benchmarks": rows}, open(out, "w"))
PY
STUB
xz -c "$work/tmakit_bench" > "$work/pre/tmakit_bench.xz"
printf '3 (e4/random/3x5x7/2.1.0/)(permute_tile|memcpy)/\n4 (e4/random/4x5x7/2.1.0/)(permute_tile|memcpy)/\n' > "$work/cases.txt"
cd "$work" || exit 1
export ORDER_LOG="$work/order.log"
# Run as its --help shows it, so a checkout without its executable bit fails here.
out=$("$root/scripts/permute_ab.sh" --cases cases.txt --arm base= --arm fast=fast=1 \
      --passes 2 --prebuilt pre --out "$work/runs" --tar "$work/ab.tar.xz" 2>&1) || fail "the run failed: $out"
echo "$out"
for f in base-seed3-pass1 base-seed3-pass2 base-seed4-pass1 fast-seed4-pass2; do
  [ -f "runs/$f.json" ] || fail "no runs/$f.json"
done
[ "$(tar -tJf ab.tar.xz | grep -c 'runs/.*-seed.*-pass.*json')" = 8 ] || fail "ab.tar.xz does not hold the 8 runs"
[ "$(cat order.log | tr '\n' ',')" = "3 default,3 fast=1,4 fast=1,4 default,3 fast=1,3 default,4 default,4 fast=1," ] ||
  fail "the arms did not turn by seed: $(cat order.log | tr '\n' ' ')"
echo "$out" | grep -q -- "- 4 B: 1.100x over 2 cases (1.100-1.100); 2 faster by 4% or more, 0 slower" ||
  fail "the comparison is not fast over base at 1.100x"
echo "$out" | grep -q "8 runs (0 failed)" || fail "not 8 runs"
# Errors: each a line naming what is wrong, exit 2.
expect() {
  local want=$1; shift
  local got; got=$(bash "$root/scripts/permute_ab.sh" "$@" 2>&1); local rc=$?
  [ $rc = 2 ] || fail "exit $rc, not 2, for: $*"
  echo "$got" | grep -q -- "$want" || fail "'$want' not in '$got'"
}
expect "--cases FILE is required" --arm a= --arm b=
expect "no cases file 'nope'" --cases nope --arm a= --arm b=
expect "two --arm NAME=POLICY or more" --cases cases.txt --arm a=
expect "an arm is NAME=POLICY" --cases cases.txt --arm a= --arm 'b c=x=1'
expect "--passes must be a positive integer" --cases cases.txt --arm a= --arm b= --passes 0
expect "unknown argument '--nope'" --nope
expect "holds no tmakit_bench.xz" --cases cases.txt --arm a= --arm b= --prebuilt runs
expect "--tar names a .tar.xz file" --cases cases.txt --arm a= --arm b= --tar out.zip
echo "permute_ab.sh: runs, turns, comparison and errors as expected"
