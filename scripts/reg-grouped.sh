#!/usr/bin/env bash
# reg_permute's grouped kernel on the GPU machine (issue 16, session 16; docs/perf-notes.md):
#   scripts/reg-grouped.sh [build-dir]
# The knob exists only in commit 25f6ce7 (kernels/classic/reg_permute.cu there; the kernel was
# refuted and removed): check that commit out to run this again. Results:
# docs/data/reg-grouped-h200-2026-11-24.txt.
# For each value of TMAKIT_REG_GROUPED in $VALUES (default "0 3 4 6"; 0 = the ungrouped kernel,
# else __launch_bounds__(128, value) for K = 16 and 32): reg_permute's GPU tests
# (TMAKIT_REQUIRE_GPU=1), then reg_permute, smem_flat, memcpy and cuTENSOR on the k = 16 and 32
# skinny shapes and 32 x 32 batches at 1, 2 and 4 B (the bench verifies every result before it
# times it). Builds sm_90 only (cuTENSOR from .cutensor when carried). Prints reg_permute's %
# of memcpy per cell and value last.
set -uo pipefail
build=${1:-build-gpu}
out=${OUT:-$build}
mkdir -p "$out"
source scripts/gpu-experiment-lib.sh
gpu_build 90
f='^(memcpy|reg_permute|smem_flat|cutensor)/e[124]/(skinny/(16|32)x4000000|skinny/4000000x(16|32)|batched/16384x32x32)/'
rc=0
for v in ${VALUES:-0 3 4 6}; do
  export TMAKIT_REG_GROUPED=$v
  echo "== TMAKIT_REG_GROUPED=$v"
  gpu_tests "g$v" "${TEST_FILTER:-*reg_permute*:*ChunkAligned*:Registry/Layout.*}" || rc=1
  bench "g$v" full "$f" || rc=1
done
python3 - "$out" ${VALUES:-0 3 4 6} <<'PY'
import os, sys
sys.path.insert(0, "bench")
import report
out, values = sys.argv[1], sys.argv[2:]
runs = {v: next(iter(report.load([os.path.join(out, f"bench-g{v}.json")]).values())) for v in values}
print("cell | memcpy GB/s (value 0) | reg_permute % of memcpy per value " + " ".join(values) +
      " | smem_flat % | cutensor %")
for key, cells in runs[values[0]].cells.items():
    mc = cells.get("memcpy")
    if mc is None or not mc.ran():
        continue
    row = []
    for v in values:
        c = runs[v].cells.get(key, {})
        m, r = c.get("memcpy"), c.get("reg_permute")
        row.append(f"{100 * r.gbps / m.gbps:5.1f}" if r and m and r.ran() and m.ran() else "  n/a")
    extra = [f"{100 * cells[t].gbps / mc.gbps:5.1f}" if t in cells and cells[t].ran() else "  n/a"
             for t in ("smem_flat", "cutensor")]
    print(" ".join(map(str, key)), f"| {mc.gbps:6.0f} |", " ".join(row), "|", " | ".join(extra))
PY
exit $rc
