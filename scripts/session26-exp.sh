# Session 26's experiment (docs/perf-notes.md): L2 prefetch size on the odd kernels' loads
# (TMAKIT_LD_L2_BYTES = 0 | 64 | 128 | 256: ld.global.nc.L2::<n>B in reg_realign, smem_realign
# and smem_sector's interior loads) and the context's L2 fetch granularity for every kernel
# (TMAKIT_BENCH_L2_FETCH_BYTES, tmakit_bench only).
# Run on the device: bash scripts/session26-exp.sh OUT_DIR (carry .cutensor); OUT_DIR/exp.tar.xz.
# The knobs exist only in the kernels of commit e8c3b0a (check it out first); cac2917 kept
# the hints that paid, per GPU, without knobs (docs/perf-notes.md, session 26).
out=${1:-$OUT}; mkdir -p "$out"; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
TARGETS="tmakit_bench tmakit_gpu_tests" gpu_build 90
F='*reg_realign*:*smem_realign*:*smem_sector*'
for b in 256 128; do TMAKIT_LD_L2_BYTES=$b gpu_tests ld$b "$F"; done
R='^(memcpy|reg_realign|smem_realign|smem_sector)/e[1248]/odd/'
for b in 0 256 128 0 256 64; do TMAKIT_LD_L2_BYTES=$b bench odd-ld$b-$RANDOM full "$R"; done
for b in 0 256; do TMAKIT_LD_L2_BYTES=$b bench probe-ld$b probe "$R"; done
C='^(memcpy|copy|smem_flat|bulk_flat|reg_permute|reg_tile|smem_padded|smem_sector|reg_realign|smem_realign)/e[1248]/(odd|skinny|batched)/'
for f in none 128 32 none 128; do
  if [ $f = none ]; then bench ctx-$f-$RANDOM full "$C"
  else TMAKIT_BENCH_L2_FETCH_BYTES=$f bench ctx-$f-$RANDOM full "$C"; fi
done
grep -h l2_fetch "$out"/bench-ctx-*.json | sort | uniq -c
cd "$out" && tar cJf exp.tar.xz *.json gtest-*.log && rm -f *.json; ls; touch done
