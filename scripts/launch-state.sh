#!/usr/bin/env bash
# Issue 16, target 4 (host time per call): bench/experiments/launch_state.cu on the GPU machine,
# which times a bare launch and a 64x64 transpose() after each step a benchmark run takes.
#   scripts/launch-state.sh BUILD_DIR OUT_DIR   (BUILD_DIR holds libtmakit.a for sm_90)
set -uo pipefail
b=${1:-build-gpu}
out=${2:-/tmp/launch-state}
mkdir -p "$out"
nvcc -O2 -std=c++17 -arch=sm_90 -I. -Ihost/include bench/experiments/launch_state.cu bench/launch_gate.cu \
  "$b/libtmakit.a" -lcublas -o "$b/launch_state" &&
  "$b/launch_state" | tee "$out/launch-state.txt"
