#!/usr/bin/env bash
# Session 34: two `auto` questions on one GPU, no build (carried .prebuilt/tmakit_bench.xz and
# .prebuilt/tmakit.xz, the CLI, both at HEAD's library; .cutensor).
#  1. batches of small matrices whose rows are not 16-byte multiples at 1 / 2 / 4 B: bulk_flat
#     against smem_flat (auto runs bulk_flat at 1-2 B on both GPUs and at 4 B on the H200;
#     this session's final run ad had smem_flat 5% ahead at 3000x97x75 2 B on the H100);
#     probe and full presets, two rounds;
#  2. N x k and k x N at 4 B with odd k (session 33's auto rule, N x k at 4 B, k <= 32, N >=
#     65536 -> smem_flat, was measured at k = 24 only): the CLI's verified, timed table of
#     smem_flat, smem_strip and auto.
#   bash scripts/session34-check.sh OUT   (BATCHED=0: the CLI part only)
out=${1:-$OUT}; mkdir -p "$out"; pb=/tmp/pb; mkdir -p $pb
for b in tmakit_bench tmakit; do xz -d -c .prebuilt/$b.xz > $pb/$b && chmod +x $pb/$b || exit 1; done
[ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
export LD_LIBRARY_PATH=$PWD/.cutensor/lib:$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
for r in $([ "${BATCHED:-1}" = 0 ] || echo 1 2); do
  for p in full probe; do
    timeout 120 $pb/tmakit_bench --preset=$p --benchmark_filter='^(memcpy|bulk_flat|smem_flat|auto)/e(1|2|4)/batched/' \
      --benchmark_out="$out/bench-b-${p:0:1}$r.json" --benchmark_out_format=json > /dev/null 2>&1 ||
      echo "bench $p$r rc $?"
  done
done
[ "${BATCHED:-1}" = 0 ] ||
  python3 scripts/exp_summary.py --tokens bulk_flat,smem_flat,auto $(for f in "$out"/bench-b-*.json; do echo "b=$f"; done) |
  tee "$out/batched.log"
for shape in "1000003 17" "1000003 19" "1000003 20" "1000003 23" "1000003 24" "1000003 27" "1000003 31" \
             "1000003 32" "17 1000003" "31 1000003"; do
  set -- $shape
  echo "== ${1}x${2} 4 B" | tee -a "$out/cli.log"
  timeout 60 $pb/tmakit --rows $1 --cols $2 --elem-bytes 4 --variant smem_flat,smem_strip,auto --iters 50 2>&1 |
    tee -a "$out/cli.log"
done
[ "${BATCHED:-1}" = 0 ] || (cd "$out" && tar cJf check.tar.xz bench-b-*.json && rm -f bench-b-*.json)
