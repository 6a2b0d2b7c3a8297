#!/usr/bin/env bash
# On the GPU machine: each technique's shared-memory traffic under Nsight Compute
# (--clock-control none), one kernel launch each at 2048x2048, written as a table of shared
# load/store requests, wavefronts and bank conflicts next to the host model's prediction
# (`tmakit banks`). Usage: scripts/ncu-banks.sh [BUILD_DIR] > table.md   (needs ncu)
set -uo pipefail
build=${1:-build-gpu}
t=$build/tmakit
metrics=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
echo "| variant | E | swizzle | ld requests | ld wavefronts/req | st requests | st wavefronts/req | ld conflicts | st conflicts |"
echo "|---|---|---|---|---|---|---|---|---|"
run() {  # variant elem swizzle
  local sw_args=()
  [ "$3" != "-" ] && sw_args=(--swizzle "$3")
  ncu --clock-control none --csv --metrics "$metrics" -k regex:'tile_kernel|tma_.*_kernel|int4_8x8' -c 1 \
      "$t" --variant "$1" --elem-bytes "$2" --rows 2048 --cols 2048 --iters 1 "${sw_args[@]}" 2>/dev/null |
    python3 -c '
import csv, sys
rows = [r for r in csv.reader(sys.stdin) if len(r) > 10]
if len(rows) < 2: print("| '"$1"' | '"$2"' | '"$3"' | no kernel profiled |"); sys.exit()
h = rows[0]; m = {r[h.index("Metric Name")]: float(r[h.index("Metric Value")].replace(",", "")) for r in rows[1:]}
g = lambda k: m.get(k, 0.0)
lr, sr = g("smsp__inst_executed_op_shared_ld.sum"), g("smsp__inst_executed_op_shared_st.sum")
lw, sw = g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
lc, sc = g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), g("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
f = lambda a, b: "%.2f" % (a / b) if b else "-"
print("| '"$1"' | '"$2"' | '"$3"' | %d | %s | %d | %s | %d | %d |" % (lr, f(lw, lr), sr, f(sw, sr), lc, sc))
'
}
for v in smem smem_padded smem_xor vec_padded vec_swizzled; do
  for e in 4 1; do run "$v" "$e" -; done
done
for v in tma_load_store tma_load tma_store tma_pipeline; do
  for sw in 0 32 64 128; do for e in 4 1; do run "$v" "$e" "$sw"; done; done
done
for sw in 0 128; do run int4_8x8 16 "$sw"; done
