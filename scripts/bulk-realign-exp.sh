#!/usr/bin/env bash
# Session 17: bulk_realign against smem_realign / smem_sector on the GPU machine
# (docs/perf-notes.md, session 17). Builds the CLI and the GPU tests for sm_90, runs the two
# realign techniques' GPU tests, then the odd shapes (and a few controls) through the CLI:
# every result verified, GB/s and % of the best copy.
#   STEPS    build,test,shapes (default all)
#   SHAPES   rows x cols list; ELEMS element sizes; VARIANTS the techniques compared
set -o pipefail
out=${OUT:-build-exp}
build=${BUILD:-build-gpu}
steps=${STEPS:-build,test,shapes}
mkdir -p "$out"
source scripts/gpu-experiment-lib.sh
if has build; then
  TARGETS="tmakit_cli tmakit_gpu_tests" gpu_build 90
fi
if has test; then
  echo "== GPU tests"
  gpu_tests realign "${TEST_FILTER:-*bulk_realign*:*smem_realign*}"
fi
if has shapes; then
  V=${VARIANTS:-copy,smem_realign,smem_sector,bulk_realign}
  for s in ${SHAPES:-12345x6789 6789x12345 3001x4999 20001x777 777x20001 16384x16384}; do
    for e in $(echo ${ELEMS:-1,2,4,8} | tr , ' '); do
      echo "== $s e$e"
      "$build/tmakit" --rows ${s%x*} --cols ${s#*x} --elem-bytes $e --variant "$V" --iters 10 2>&1 |
        grep -E "^(copy |smem|vec|tma|bulk)|WRONG|rror"
    done
  done 2>&1 | tee "$out/shapes.txt"
fi
