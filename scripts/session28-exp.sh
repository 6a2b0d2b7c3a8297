# Session 28's experiment (docs/perf-notes.md): smem_tile.cuh's loads, for smem, smem_padded,
# smem_xor and smem_wide, three ways: TMAKIT_SMEM_L2 = -1 (interleaved with the shared stores,
# as shipped), 0 (every load first, plain), 256 (every load first, .L2::256B); 1-16 B elements
# (16 B: smem_padded only). Separates session 27's "loads first" from its "hint", and adds the
# H100 and 16 B. Run on the device: bash scripts/session28-exp.sh OUT_DIR (carry .cutensor).
# The knob exists only in the kernels of the commit that added this script (check it out first).
out=${1:-$OUT}; mkdir -p "$out"; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
TARGETS="tmakit_bench" gpu_build 90
C='^(memcpy|smem_padded|smem_wide|smem_xor)/e(1|2|4|8|16)/(odd|batched|skinny/(4000000x(8|16|32)|(8|16|32)x4000000)|square/(2048x2048|4096x4096|8192x2048))/'
for r in 1 2; do
  for m in -1 0 256; do TMAKIT_SMEM_L2=$m BENCH_TIMEOUT=200 bench m$m-r$r full "$C"; done
done
rm -f "$out"/*.txt "$out"/build.log "$out"/configure.log; ls "$out"
