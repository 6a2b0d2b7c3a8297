#!/usr/bin/env bash
# 16-byte elements on the GPU machine (issue 16, session 11), one device call: builds the bench
# and test binaries (cuTENSOR from .cutensor), runs tma_wide's tests and the fallback tests
# (TMAKIT_REQUIRE_GPU=1), then the full preset's 16-byte shapes, every technique and peer;
# with argument `ncu`, scripts/ncu-unmet.sh afterwards. Logs and JSON under $OUT.
set -o pipefail
[ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="80-real;90" -DCUTENSOR_ROOT=$PWD/.cutensor > $OUT/configure.log 2>&1 || exit 1
cmake --build build-gpu -j16 --target tmakit_bench tmakit_gpu_tests tmakit_sm90_tests > $OUT/build.log 2>&1 || { grep -E "error" -A3 $OUT/build.log | head -30; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TMAKIT_REQUIRE_GPU=1 build-gpu/tests/tmakit_sm90_tests --gtest_brief=1 --gtest_filter='*tma_wide*:TmaFallback*:BuildCode*' > $OUT/sm90.log 2>&1; grep -E "FAILED|PASSED|Failure" $OUT/sm90.log | head
TMAKIT_REQUIRE_GPU=1 build-gpu/tests/tmakit_gpu_tests --gtest_brief=1 --gtest_filter='*tma_wide*' > $OUT/gpu.log 2>&1; grep -E "FAILED|PASSED|Failure" $OUT/gpu.log | head
build-gpu/bench/tmakit_bench --preset=full --benchmark_filter='/e16/' --benchmark_out=$OUT/bench-e16.json --benchmark_out_format=json > $OUT/bench-e16.txt 2>&1
python3 scripts/bench_table.py $OUT/bench-e16.json --tokens tma_wide,smem_padded,smem_strip,auto
[ "${1:-}" = ncu ] && bash scripts/ncu-unmet.sh build-gpu | tail -150
