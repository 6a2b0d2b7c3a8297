# Session 26's second experiment (docs/perf-notes.md): the L2 prefetch-size hint
# (TMAKIT_LD_L2_BYTES = 0 | 128 | 256) on the loads of every classic kernel `auto` runs for odd,
# skinny and batched calls: reg_realign, smem_realign, smem_sector, reg_permute, reg_tile,
# smem_padded, smem_flat. Run on the device: bash scripts/session26-exp2.sh OUT_DIR (carry
# .cutensor); OUT_DIR/exp.tar.xz.
# The knobs exist only in the kernels of commit 9c21c23 (check it out first); cac2917 kept
# the hints that paid, per GPU, without knobs (docs/perf-notes.md, session 26).
out=${1:-$OUT}; mkdir -p "$out"; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
TARGETS="tmakit_bench tmakit_gpu_tests" gpu_build 90
F='*reg_realign*:*smem_realign*:*smem_sector*:*reg_permute*:*reg_tile*:*RegTile*:*smem_padded*:*smem_flat*'
for b in 256 128; do TMAKIT_LD_L2_BYTES=$b gpu_tests ld$b "$F"; done
C='^(memcpy|smem_flat|reg_permute|reg_tile|smem_padded|smem_sector|reg_realign|smem_realign)/e[1248]/(odd|skinny|batched)/'
for b in 0 256 128 0 256; do TMAKIT_LD_L2_BYTES=$b bench ld$b-$RANDOM full "$C"; done
cd "$out" && tar cJf exp.tar.xz *.json gtest-*.log && rm -f *.json; ls; touch done
