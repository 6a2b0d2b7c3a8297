#!/usr/bin/env bash
# One call on the GPU machine (../shared/GPU.md): build for sm_80 + sm_90, run every test with
# TMAKIT_REQUIRE_GPU=1 (zero skips allowed), print the tmakit table per element size.
# Logs go to $OUT when set (the device tool brings them back), else to build-gpu/.
set -uo pipefail
out=${OUT:-build-gpu}
mkdir -p "$out"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" \
  > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
TMAKIT_REQUIRE_GPU=1 ctest --test-dir build-gpu -j8 --output-on-failure > "$out/ctest.log" 2>&1
ctest_rc=$?
grep -E "Failed|\*\*\*|tests passed|Skipped" "$out/ctest.log" | tail -25
for e in ${TMAKIT_TABLE_ELEMS-4 1 2 8}; do
  ./build-gpu/tmakit --elem-bytes "$e" 2>&1 | tee -a "$out/tmakit.txt"
done
exit $ctest_rc
