# Session 27's second experiment (docs/perf-notes.md): smem_tile.cuh's loads issued first, then
# the shared stores, with the L2 prefetch-size hint (TMAKIT_SMEM_L2 = 0 | 256: smem, smem_padded,
# smem_xor, smem_wide at 1-8 B). Session 26 lost 3-10 points with hinted loads written between
# the shared stores. Run on the device: bash scripts/session27-exp2.sh OUT_DIR (carry .cutensor).
# The knob exists only in the kernels of commit 17d91e7 (check it out first); reverted after the
# run, not shipped (docs/perf-notes.md, session 27).
out=${1:-$OUT}; mkdir -p "$out"; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
TARGETS="tmakit_bench" gpu_build 90
C='^(memcpy|smem_padded|smem_wide|smem_xor)/e[1248]/(odd|batched)/'
for h in 0 256 0 256; do TMAKIT_SMEM_L2=$h BENCH_TIMEOUT=150 bench h$h-$RANDOM full "$C"; done
rm -f "$out"/*.txt "$out"/build.log "$out"/configure.log; ls "$out"
