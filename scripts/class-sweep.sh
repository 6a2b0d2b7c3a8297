#!/usr/bin/env bash
# Class sweeps for `auto` (session 37's open classes, docs/perf-notes.md session 37 item 5): one
# tmakit_bench run over shapes no preset names (--shapes), only the techniques that compete in
# that class, then `auto`'s misses and the class lows (scripts/targets.py) and the compact table.
#   scripts/class-sweep.sh SET [OUT]   (BENCH: the tmakit_bench binary, default
#   build-gpu/bench/tmakit_bench; ROUNDS: runs of the set, default 2; LIST=1: print the shapes
#   with their classes and stop, no GPU needed)
# Sets:
#   tall-rows   N x k with N = 1000003 / 1000000, k = 3..24: bulk_flat against smem_flat and
#               reg_permute (12-byte rows ran bulk_flat 4.5-9.8% ahead, 20-24-byte rows behind)
#   odd-single  single odd matrices of 1-16 M elements: smem_wide / smem_xor / smem_sector /
#               reg_realign (1001x999 ran smem_wide / smem_xor 4-10% ahead of smem_sector)
#   small-batch batches of 16-byte-row matrices with short sides 8..40 (the H200's tma_store rule
#               and the 8 B reg_tile / smem_wide rules, at their edges)
set -uo pipefail
set_name=${1:?usage: class-sweep.sh tall-rows|odd-single|small-batch [OUT]}
out=${2:-${OUT:-class-sweep}}
bench=${BENCH:-build-gpu/bench/tmakit_bench}
case "$set_name" in
  tall-rows)
    shapes=""
    for n in 1000003 1000000; do
      for k in 3 4 5 6 8 10 12 16 20 24; do shapes+="${shapes:+,}skinny:${n}x${k}"; done
    done
    tokens="memcpy|auto|bulk_flat|smem_flat|reg_permute|reg_tile|smem_strip|cutensor" ;;
  odd-single)
    shapes="odd:1001x999,odd:1499x1501,odd:2001x1999,odd:2897x2903,odd:4097x4095,odd:777x3001"
    tokens="memcpy|auto|smem_wide|smem_xor|smem_padded|smem_sector|smem_realign|reg_realign|cutensor|cublas_geam" ;;
  small-batch)
    shapes="batched:20000x8x16,batched:20000x16x16,batched:20000x16x48,batched:10000x24x40"
    shapes+=",batched:8000x32x48,batched:6000x40x40,batched:4000x48x64,batched:100000x4x8"
    tokens="memcpy|auto|smem_flat|bulk_flat|reg_tile|reg_permute|tma_store|tma_load|tma_load_store|smem_wide|smem_strip|cutensor" ;;
  *) echo "class-sweep.sh: unknown set '$set_name' (tall-rows, odd-single, small-batch)"; exit 64 ;;
esac
if [ -n "${LIST:-}" ]; then
  exec "$bench" --shapes="$shapes" --list-shapes
fi
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
for r in $(seq 1 "${ROUNDS:-2}"); do
  "$bench" --shapes="$shapes" --benchmark_filter="^($tokens)/" \
    --benchmark_out="$out/$set_name-$r.json" --benchmark_out_format=json > "$out/$set_name-$r.txt" 2>&1 || rc=1
  echo "== round $r"
  python3 scripts/targets.py "$out/$set_name-$r.json" | grep -E "auto miss|lowest"
done
python3 scripts/bench_table.py "$out/$set_name-1.json" --tokens auto | tail -80
exit $rc
