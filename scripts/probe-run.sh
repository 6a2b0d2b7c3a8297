#!/usr/bin/env bash
# The probe preset (shapes of the skinny, batched and odd classes that the full preset does not
# name) on one GPU, in one device call, with prebuilt binaries (scripts/prebuild.sh; carry
# .prebuilt and .cutensor):
#   GPU=H200 scripts/probe-run.sh     (exits 3 when the GPU's name lacks $GPU)
# The classic rungs that never win a class (naive_*, smem, smem_xor, the rooflines, ...) are
# left out to keep the call short; memcpy, the copies, the peers, `auto` and every technique
# that has been a best or an `auto` pick are in. Output: $OUT/probe-CLASS.json (PROBE_CLASSES, default "skinny batched odd") and the compact table.
set -uo pipefail
out=${OUT:-build-gpu}
mkdir -p "$out" build-gpu/bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "${GPU:-H}" || exit 3
[ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
xz -d -c .prebuilt/tmakit_bench.xz > build-gpu/bench/tmakit_bench && chmod +x build-gpu/bench/tmakit_bench || exit 1
export LD_LIBRARY_PATH="$PWD/.cutensor/lib:$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tokens='memcpy|copy|tma_copy|cutensor|cublas_geam|cublas_geam_c|cublaslt|auto|smem_padded|smem_wide|smem_strip|smem_sector|smem_realign|reg_realign|smem_flat|reg_permute|reg_tile|vec_padded|async_copy|tma_load_store|tma_wide|tma_pipeline|bulk_flat'
# One process per class, so that a call cut short keeps the classes already done.
rc=0
files=()
t0=$(date +%s)
for cls in ${PROBE_CLASSES:-skinny batched odd}; do
  left=$(( ${PROBE_TIMEOUT:-560} - ($(date +%s) - t0) ))
  [ "$left" -gt 20 ] || { echo "$cls: no time left"; rc=1; break; }
  timeout "$left" build-gpu/bench/tmakit_bench --preset=probe \
    --benchmark_filter="^(${tokens})/e[0-9]+/${cls}/" \
    --benchmark_out="$out/probe-$cls.json" --benchmark_out_format=json > "$out/probe-$cls.txt" 2>&1 || rc=1
  files+=("$out/probe-$cls.json")
  echo "$cls done at $(date -u +%T)"
done
python3 scripts/bench_table.py "${files[@]}" --tokens auto
exit $rc
