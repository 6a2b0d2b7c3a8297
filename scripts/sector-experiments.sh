#!/usr/bin/env bash
# Session 14 experiment on the GPU machine (docs/perf-notes.md): smem_sector's load path and
# tile order, chosen by TMAKIT_SECTOR_MODE (kernels/classic/smem_sector.cu): 0 as shipped,
# 1 cp.async loads at 8 (4 B) / 6 (8 B) blocks per SM, 2 column-major tile order, 3 both.
# Each mode: the smem_sector GPU tests (TMAKIT_REQUIRE_GPU=1), then the odd class at 4 and 8 B
# (probe and full presets) with memcpy in the same run; mode 0 adds the peers.
#   out=$OUT build=build-gpu steps=build,tests,bench [MODES="0 1 2 3"] scripts/sector-experiments.sh
set -o pipefail
out=${out:-${OUT:-build-exp}} build=${build:-build-gpu} steps=${steps:-build,tests,bench}
mkdir -p "$out"
source scripts/gpu-experiment-lib.sh
has build && gpu_build 90
rc=0
for m in ${MODES:-0 1 2 3}; do
  export TMAKIT_SECTOR_MODE=$m
  has tests && { gpu_tests "m$m" '*smem_sector*' || rc=1; }
  if has bench; then
    peers=; [ "$m" = 0 ] && peers='|cublas_geam|cutensor|cublaslt'
    for p in probe full; do
      bench "m$m-$p" $p "^(memcpy|smem_sector$peers)/e${ELEMS:-[48]}/odd/" || rc=1
    done
    echo "== mode $m"
    python3 scripts/bench_table.py "$out/bench-m$m-probe.json" "$out/bench-m$m-full.json" \
      --tokens smem_sector | grep -E "^odd"
  fi
done
exit $rc
