out=$OUT; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
[ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
TARGETS="tmakit_bench tmakit_gpu_tests" gpu_build 90
gpu_tests chk 'LineCopy.*:AutoVariant*:*smem_strip*:*reg_realign*:*smem_flat*:*bulk_flat*:BulkFlat.*'
for o in 0 1 0 1; do TMAKIT_REALIGN_ORDER=$o bench ord$o-$RANDOM full '^(memcpy|reg_realign)/e[12]/odd/'; done
for o in 0 1; do TMAKIT_REALIGN_ORDER=$o bench probe$o probe '^(memcpy|reg_realign)/e[12]/odd/'; done
bench host full 'host_(overhead|calls)/'
bench line full '^(memcpy|auto|smem_strip|cutensor|bulk_flat|copy)/e16/skinny/(1x4000000|4000000x1)/'
cd $OUT && tar cJf exp.tar.xz *.json gtest-*.log && rm -f *.json; ls
