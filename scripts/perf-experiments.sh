#!/usr/bin/env bash
# Issue 6 experiments on the GPU machine, one call (docs/perf-notes.md records predictions and
# results). Logs to $OUT (else build-exp/).
#   1. copy kernel shapes against cudaMemcpyAsync (bench/experiments/copy_variants.cu)
#   2. tile launch order: tmakit built with TMAKIT_TILE_GROUP=G for each G in $GROUPS, the
#      table at $SHAPE for the techniques in $VARIANTS and element sizes $ELEMS
#   3. (NCU=1) DRAM bytes and throughput under ncu for copy and two transposes, per G
set -uo pipefail
out=${OUT:-build-exp}
mkdir -p "$out"
GROUPS_=${TILE_GROUPS:-1 8 16 32}  # not GROUPS: bash owns that name
SHAPE=${SHAPE:-16384}
ELEMS=${ELEMS:-4 1}
VARIANTS=${VARIANTS:-copy,tma_copy,smem_xor,vec_padded,tma_load_store,tma_pipeline}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$out/gpu.txt"

if [ "${COPY:-1}" = 1 ]; then
  nvcc -O3 -std=c++17 -arch=sm_90 bench/experiments/copy_variants.cu -o "$out/copy_variants" &&
    "$out/copy_variants" | tee "$out/copy_variants.txt"
fi

for g in $GROUPS_; do
  b=build-g$g
  cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DTMAKIT_BUILD_TESTS=OFF -DTMAKIT_BUILD_BENCH=OFF -DTMAKIT_TILE_GROUP=$g > "$out/cfg-$g.log" 2>&1 &&
    cmake --build $b -j"$(nproc)" --target tmakit_cli > "$out/build-$g.log" 2>&1 ||
    { grep -E "error" -A3 "$out/build-$g.log" | head; exit 1; }
done

for e in $ELEMS; do
  for g in $GROUPS_; do
    echo "== group $g, E=$e, ${SHAPE}x${SHAPE}" | tee -a "$out/groups.txt"
    ./build-g$g/tmakit --rows "$SHAPE" --cols "$SHAPE" --elem-bytes "$e" --variant "$VARIANTS" \
      --iters 20 2>&1 | tee -a "$out/groups.txt" | grep -E "best copy|^(copy|tma_copy|smem|vec|tma)"
  done
done

if [ "${NCU:-0}" = 1 ]; then
  m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
  for g in $GROUPS_; do
    for v in copy smem_xor tma_pipeline; do
      echo "== ncu group $g $v E4 ${SHAPE}" >> "$out/ncu.txt"
      ncu --clock-control none --metrics "$m" -k regex:'copy_vec_kernel|smem_tile_kernel|tma_pipeline_kernel' -c 1 \
        ./build-g$g/tmakit --rows "$SHAPE" --cols "$SHAPE" --elem-bytes 4 --variant $v --iters 1 \
        2>&1 | grep -E "^  [a-z]|gpu__|dram__|lts__" >> "$out/ncu.txt"
    done
  done
  grep -E "==|dram__throughput|gpu__time" "$out/ncu.txt"
fi
