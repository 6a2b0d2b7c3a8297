set -o pipefail; mkdir -p /tmp/p; for f in .prebuilt/*.xz; do xz -dc $f > /tmp/p/$(basename $f .xz) & done; wait; chmod +x /tmp/p/*
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib TMAKIT_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /work/main/build/tests build/tests; cp /tmp/p/tmakit_fault_probe /work/main/build/tests/; cp /tmp/p/tmakit_fault_probe build/tests/
(/tmp/p/tmakit_gpu_tests > $OUT/gpu.log 2>&1; echo gpu rc=$? >> $OUT/gpu.log) &
(/tmp/p/tmakit_sm90_tests > $OUT/sm90.log 2>&1; echo sm90 rc=$? >> $OUT/sm90.log) &
for c in "8,4096,32,128 0,2,1,3 2" "8,32,4096,128 0,2,1,3 2" "64,256,56,56 0,2,3,1 2" "63,95,97,101 3,2,1,0 4" "63,95,97,101 0,2,3,1 4" "24,40,32,48,40 4,3,2,1,0 4" "2048,512,64 1,0,2 4" "4096,2048,4 1,0,2 4" "255,257,259 2,1,0 2" "255,257,259 2,1,0 8"; do set -- $c; /tmp/p/tmakit permute --shape $1 --perm $2 --elem-bytes $3 --iters 10 2>&1 | tail -5; done > $OUT/cli.log
for t in permute_tile permute_tma; do for tool in memcheck racecheck synccheck initcheck; do compute-sanitizer --tool $tool --error-exitcode 99 /tmp/p/tmakit_sanitize_target $t > $OUT/san_${tool}_$t.log 2>&1; echo "$tool $t rc=$? $(tail -1 $OUT/san_${tool}_$t.log)"; done; done
wait; cat $OUT/cli.log; grep -E "FAILED|PASSED|rc=" $OUT/gpu.log $OUT/sm90.log | head -30
