set -o pipefail; mkdir -p /tmp/p; for f in .prebuilt/*.xz; do xz -dc $f > /tmp/p/$(basename $f .xz) & done; mkdir -p .ct/lib; cp -r .cutensor/include .ct/; xz -dc .cutensor/lib/libcutensor.so.2.xz > .ct/lib/libcutensor.so.2 & wait; chmod +x /tmp/p/*
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib:$PWD/.ct/lib TMAKIT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
/tmp/p/tmakit_gpu_tests --gtest_filter='Permute*' > $OUT/gpu.log 2>&1; echo gpu rc=$?; /tmp/p/tmakit_sm90_tests --gtest_filter='PermuteTma*' > $OUT/sm90.log 2>&1; echo sm90 rc=$?
grep -E "Failure|error" -A4 $OUT/gpu.log $OUT/sm90.log | head -20
true
/tmp/p/tmakit_bench --preset=permute ${BENCH_ARGS:-} --benchmark_out=$OUT/permute.json --benchmark_out_format=json > $OUT/bench.log 2>&1; echo bench rc=$?
python3 bench/permute_report.py $OUT/permute.json
