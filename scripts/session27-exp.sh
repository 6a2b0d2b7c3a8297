# Session 27's experiment (docs/perf-notes.md): the L2 prefetch-size hints that session 26 kept
# on HBM3e only (reg_realign, smem_realign 1 B, smem_sector 4-8 B, reg_permute N x k >= 7,
# reg_tile 1-2 B), measured on the H100: TMAKIT_L2_HINT = 0 | 1 forces them off | on.
# Run on the device: bash scripts/session27-exp.sh OUT_DIR (carry .cutensor); OUT_DIR/exp.tar.xz.
# The knob exists only in the kernels of commit 2d8da28 (check it out first); 968f27f put the
# hints on every Hopper GPU without a knob (docs/perf-notes.md, session 27).
out=${1:-$OUT}; mkdir -p "$out"; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
TARGETS="tmakit_bench tmakit_gpu_tests" gpu_build 90
F='*reg_realign*:*smem_realign*:*smem_sector*:*reg_permute*:*reg_tile*:*RegTile*'
TMAKIT_L2_HINT=1 gpu_tests hint1 "$F"
C='^(memcpy|reg_realign|smem_realign|smem_sector|reg_permute|reg_tile)/e[1248]/(odd|skinny|batched)/'
for h in 0 1 0 1; do TMAKIT_L2_HINT=$h bench full-h$h-$RANDOM full "$C"; done
for h in 0 1; do TMAKIT_L2_HINT=$h bench probe-h$h probe "$C"; done
cd "$out" && tar cJf exp.tar.xz *.json gtest-*.log && rm -f *.json; ls; touch done
