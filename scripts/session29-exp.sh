# Session 29's experiment (docs/perf-notes.md): async_realign (reg_realign's loads as cp.async
# into a staging ring, persistent blocks) against reg_realign, smem_realign, smem_sector and
# memcpy on the odd class (full and probe presets), 1-8 B, at TMAKIT_AR_STAGES = 2 (2 blocks
# per SM) and 1 (3 blocks per SM), two processes each. GPU tests of the technique first, at both
# settings. Run on the device: bash scripts/session29-exp.sh OUT_DIR (carry .cutensor).
# The knob exists only in the kernels of the commit that added this script.
out=${1:-$OUT}; mkdir -p "$out"; build=build-gpu; steps=; source scripts/gpu-experiment-lib.sh
gpu_build 90
for s in 2 1; do
  TMAKIT_AR_STAGES=$s gpu_tests s$s '*async_realign*:Registry/GpuTables.*' || echo "GPU TESTS FAILED (stages $s)"
done
C='^(memcpy|reg_realign|smem_realign|smem_sector|async_realign)/e(1|2|4|8)/odd/'
for r in 1 2; do
  for s in 2 1; do
    TMAKIT_AR_STAGES=$s BENCH_TIMEOUT=240 bench s$s-r$r full "$C"
    TMAKIT_AR_STAGES=$s BENCH_TIMEOUT=240 bench p$s-r$r probe "$C"
  done
done
args=()
for f in "$out"/bench-*.json; do b=$(basename "$f" .json); args+=("${b:6:2}=$f"); done
python3 scripts/exp_summary.py --tokens reg_realign,smem_realign,smem_sector,async_realign "${args[@]}" | tee "$out/summary.log"
(cd "$out" && tar cJf exp.tar.xz bench-*.json gtest-*.log && rm -f bench-* gtest-* configure.log build.log)
ls "$out"
