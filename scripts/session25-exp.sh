# Session 25's experiment (docs/perf-notes.md): L2 prefetch of the tile `ahead` blocks later in
# reg_realign, smem_realign and smem_sector (TMAKIT_L2_AHEAD_WAVES, TMAKIT_L2_PREFETCH_MODE).
# Refuted and reverted: the knobs exist only in the kernels of commit 716f06c (check them out first).
# Run on the device: bash scripts/session25-exp.sh OUT_DIR (carry .cutensor); OUT_DIR/exp.tar.xz.
out=${1:-$OUT}; mkdir -p "$out"; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
TARGETS="tmakit_bench tmakit_gpu_tests" gpu_build 90
F='*reg_realign*:*smem_realign*:*smem_sector*:AutoVariant*'
TMAKIT_L2_AHEAD_WAVES=1 gpu_tests pf1 "$F"
TMAKIT_L2_AHEAD_WAVES=1 TMAKIT_L2_PREFETCH_MODE=1 gpu_tests pf1m1 "$F"
R='^(memcpy|reg_realign|smem_realign|smem_sector)/e[1248]/odd/'
for w in 0 1 2 0 1; do TMAKIT_L2_AHEAD_WAVES=$w bench w$w-m2-$RANDOM full "$R"; done
TMAKIT_L2_AHEAD_WAVES=1 TMAKIT_L2_PREFETCH_MODE=1 bench w1-m1 full "$R"
for w in 0 1; do TMAKIT_L2_AHEAD_WAVES=$w bench probe-w$w probe "$R"; done
cd "$out" && tar cJf exp.tar.xz *.json gtest-*.log && rm -f *.json; ls; touch done
