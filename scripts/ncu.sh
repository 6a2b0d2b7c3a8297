#!/usr/bin/env bash
# Nsight Compute on a GPU machine, as the benchmark launches the kernels (the first launch of a
# benchmark is its verification run, the same kernel that is timed). Always --clock-control none.
#
#   scripts/ncu.sh targets RUN.json [BENCH]   every UNMET target of a full run: the cell that
#       decides it (scripts/targets.py --ncu-cases: the lowest % of memcpy, or the worst ratio to
#       the best peer), tmakit's best technique there and, for a ratio, the best peer
#   scripts/ncu.sh cells [BENCH] LABEL FILTER KERNEL [LABEL FILTER KERNEL ...]   chosen cells:
#       FILTER a --benchmark_filter of the full preset (e.g. '^reg_realign/e1/odd/12345x6789/'),
#       KERNEL a kernel-name regex ('' = the first 3 kernels launched, for a peer or memcpy)
#   scripts/ncu.sh banks [TMAKIT]   shared-memory requests, wavefronts per request and bank
#       conflicts of each tile technique at 2048x2048 (a markdown table; docs/swizzle.md compares
#       it with `tmakit banks`, the host model)
#
# NCU_BENCH_ARGS: the benchmark's preset and its options (default --preset=full), e.g.
# "--preset=permute --permute-seed=8" with a FILTER such as 'e16/random/13x3x3x27x4x583/.*/permute_tile/'.
# BENCH: tmakit_bench (default build-gpu/bench/tmakit_bench; scripts/bench.sh --prebuilt unpacks
# one to build-gpu/bin/tmakit_bench). TMAKIT: the CLI (default build-gpu/tmakit).
# NCU_METRICS: more metrics, comma-separated. NCU_EXTRA: more ncu options, e.g.
# "--cache-control none" (the kernel meets the L2 as the benchmark's flush leaves it).
# Output: the console, and $OUT/ncu.txt when OUT is set.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
verb=${1:-}
shift || true
log=${OUT:+$OUT/ncu.txt}
log=${log:-/dev/null}
# time; DRAM throughput (% of peak) and bytes; issue activity; warps active (occupancy);
# registers; grid; shared-memory bank conflicts; the stalls per issued instruction that dominate
# (long scoreboard = global loads, MIO throttle = shared/shuffle queue, short scoreboard =
# shared-memory results, barrier, lg throttle = global queue, wait = fixed latency)
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum
m+=,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
m+=,launch__registers_per_thread,launch__grid_size,launch__block_size,smsp__inst_executed.sum
m+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
for s in long_scoreboard mio_throttle short_scoreboard barrier lg_throttle wait; do
  m+=,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
m+=${NCU_METRICS:+,$NCU_METRICS}

cell() {  # BENCH LABEL FILTER KERNEL
  echo "== $2 ($3)" | tee -a "$log"
  local k=(-c 1 -k "regex:$4")
  [ -z "$4" ] && k=(-c 3)
  # shellcheck disable=SC2086  # NCU_BENCH_ARGS: several options
  ncu --clock-control none ${NCU_EXTRA:-} --metrics "$m" "${k[@]}" "$1" ${NCU_BENCH_ARGS:---preset=full} \
    --benchmark_filter="$3" 2>&1 | grep -E "^  [A-Za-z_].*\(|gpu__|dram__|sm__|smsp__|launch__|l1tex__" |
    sed 's/  */ /g' | tee -a "$log"
}

case "$verb" in
  targets)
    run=${1:?usage: ncu.sh targets RUN.json [BENCH]}
    bench=${2:-build-gpu/bench/tmakit_bench}
    [[ "$run" == *.xz ]] && { xz -d -c "$run" > /tmp/ncu-run.json && run=/tmp/ncu-run.json; }
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
    python3 scripts/targets.py "$run" --ncu-cases > /tmp/ncu-cases.txt || exit 1
    while IFS=$'\t' read -r label filter kernel; do
      [ -n "$label" ] && cell "$bench" "$label" "$filter" "$kernel"
    done < /tmp/ncu-cases.txt
    ;;
  cells)
    bench=build-gpu/bench/tmakit_bench
    if [ $(($# % 3)) = 1 ]; then bench=$1; shift; fi
    [ $# -ge 3 ] && [ $(($# % 3)) = 0 ] || { echo "usage: ncu.sh cells [BENCH] LABEL FILTER KERNEL ..." >&2; exit 64; }
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
    while [ $# -ge 3 ]; do cell "$bench" "$1" "$2" "$3"; shift 3; done
    ;;
  banks)
    t=${1:-build-gpu/tmakit}
    bm=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
    bm+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    bm+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    echo "| variant | E | swizzle | ld requests | ld wavefronts/req | st requests | st wavefronts/req | ld conflicts | st conflicts |"
    echo "|---|---|---|---|---|---|---|---|---|"
    bank_row() {  # variant elem swizzle('-' = none)
      local sw=()
      [ "$3" != "-" ] && sw=(--swizzle "$3")
      ncu --clock-control none --csv --metrics "$bm" -k regex:'tile_kernel|tma_.*_kernel|int4_8x8' -c 1 \
        "$t" --variant "$1" --elem-bytes "$2" --rows 2048 --cols 2048 --iters 1 "${sw[@]}" 2> /dev/null |
        python3 -c '
import csv, sys
v, e, sw = sys.argv[1:4]
rows = [r for r in csv.reader(sys.stdin) if len(r) > 10]
if len(rows) < 2:
    print(f"| {v} | {e} | {sw} | no kernel profiled |")
    sys.exit()
h = rows[0]
m = {r[h.index("Metric Name")]: float(r[h.index("Metric Value")].replace(",", "")) for r in rows[1:]}
g = lambda k: m.get(k, 0.0)
lr, sr = g("smsp__inst_executed_op_shared_ld.sum"), g("smsp__inst_executed_op_shared_st.sum")
lw, sw_ = g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
lc, sc = g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
f = lambda a, b: "%.2f" % (a / b) if b else "-"
print("| %s | %s | %s | %d | %s | %d | %s | %d | %d |" % (v, e, sw, lr, f(lw, lr), sr, f(sw_, sr), lc, sc))
' "$1" "$2" "$3"
    }
    for v in smem smem_padded smem_xor vec_padded vec_swizzled; do
      for e in 4 1; do bank_row "$v" "$e" -; done
    done
    for v in tma_load_store tma_load tma_store tma_pipeline; do
      for sw in 0 32 64 128; do for e in 4 1; do bank_row "$v" "$e" "$sw"; done; done
    done
    for sw in 0 128; do bank_row int4_8x8 16 "$sw"; done
    ;;
  *)
    sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 64
    ;;
esac
