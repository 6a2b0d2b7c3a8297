#!/usr/bin/env bash
# Session 6 odd-shape experiments on the GPU machine (docs/perf-notes.md): pitch isolation
# (bench/experiments/odd_pitch.cpp: the same 12288x6784 matrix with dense and odd pitches),
# then the odd-class shapes through the CLI (verified, timed, % of the best copy).
#   VARIANTS  techniques compared (default copy,smem_wide,smem_sector)
#   KNOB/VALUES  an environment knob and its values, each run in turn (e.g. TMAKIT_SECTOR_BYTES)
set -o pipefail
out=${OUT:-build-exp}
mkdir -p "$out"
V=${VARIANTS:-copy,smem_wide,smem_sector}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DTMAKIT_BUILD_TESTS=OFF -DTMAKIT_BUILD_BENCH=OFF > /dev/null &&
  cmake --build build-gpu --target tmakit_cli > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
nvcc -O3 -std=c++17 -I. -Ihost/include bench/experiments/odd_pitch.cpp build-gpu/libtmakit.a \
  -o build-gpu/odd_pitch || exit 1
for val in ${VALUES:-default}; do
  [ -n "${KNOB:-}" ] && export "$KNOB=$val"
  echo "=== ${KNOB:-knob} = $val" | tee -a "$out/pitch.txt" "$out/shapes.txt"
  build-gpu/odd_pitch "${V#copy,}" ${ELEMS:-1,2,4,8} 2>&1 | tee -a "$out/pitch.txt"
  for s in ${SHAPES:-12345x6789 6789x12345 3001x4999 16384x16384}; do
    for e in $(echo ${ELEMS:-1,2,4,8} | tr , ' '); do
      echo "== $s e$e"
      build-gpu/tmakit --rows ${s%x*} --cols ${s#*x} --elem-bytes $e --variant "$V" --iters 10 2>&1 |
        grep -E "^(copy |smem|vec|tma)|WRONG|rror"
    done
  done 2>&1 | tee -a "$out/shapes.txt"
done
