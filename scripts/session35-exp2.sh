#!/usr/bin/env bash
# Session 35's second experiment (docs/perf-notes.md session 35 item 4): the realigned
# reg_permute kernels above K = 16 capped at 3 CTAs per SM (__launch_bounds__(128, 3): at most
# 170 registers; at K = 24 they took 245, 3 warps per scheduler). Binaries in .prebuilt:
# rr-cli.xz (1b4cbf7's kernels), mb-cli.xz and mb-tests.xz (the same with
# reg_permute_kernel's `__launch_bounds__(kThreads)` made `__launch_bounds__(kThreads,
# R && K > 16 ? 3 : 1)`, built in build/; an experiment edit, not committed: refuted, perf-notes
# session 35 item 4).
#   bash scripts/session35-exp2.sh OUT
out=${1:-$OUT}; mkdir -p "$out"; pb=/tmp/pb; mkdir -p $pb
for n in rr-cli mb-cli mb-tests; do xz -dc .prebuilt/$n.xz > $pb/$n && chmod +x $pb/$n; done
export LD_LIBRARY_PATH=$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
TMAKIT_REQUIRE_GPU=1 timeout 150 $pb/mb-tests --gtest_brief=1 --gtest_filter='*reg_permute*:*Skinny*' \
  > "$out/gtest-mb.log" 2>&1
echo "gtest rc $?"; grep -E "PASSED|FAILED" "$out/gtest-mb.log" | head -5
for r in 1 2; do
  for k in 17 20 24 28 31 32; do
    for v in rr mb; do
      echo "== $v ${k}x1000003 r$r" >> "$out/cli.txt"
      timeout 60 $pb/$v-cli --rows $k --cols 1000003 --elem-bytes 1 --iters 30 \
        --variant reg_permute,smem_flat >> "$out/cli.txt" 2>&1 || echo "rc $?" >> "$out/cli.txt"
    done
  done
done
grep -E "^== |^reg_permute|^smem_flat" "$out/cli.txt" | awk '/^==/{h=$2" "$3" "$4} /^reg_permute/{r=$4} /^smem_flat/{print h, "reg_permute", r, "smem_flat", $4}'
