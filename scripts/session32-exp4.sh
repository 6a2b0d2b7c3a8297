#!/usr/bin/env bash
# Session 32's H100 check of the shipped smem_flat change (scripts/session32-exp2.sh's base
# against new, the family's GPU tests) and, with the CLI (carried as .prebuilt/cli.xz), the
# 4-byte k = 24 cells that `auto` sends to smem_strip: 24 x N and N x 24 at N = 1000000
# (aligned) and 1000003, smem_flat / smem_strip / auto. Run: bash scripts/session32-exp4.sh OUT
out=${1:-$OUT}; mkdir -p "$out"
if [ -f .prebuilt/cli.xz ]; then
  xz -d -c .prebuilt/cli.xz > /tmp/tk && chmod +x /tmp/tk
  for s in "24 1000000" "24 1000003" "1000000 24" "1000003 24" "12 1000003" "1000003 12"; do
    set -- $s
    for e in 4 8; do
      /tmp/tk --rows $1 --cols $2 --elem-bytes $e --variant smem_flat,smem_strip,auto --iters 30 > /tmp/o.txt 2>&1
      echo "cli $1x$2 e$e: $(grep -E '^(smem_flat|smem_strip|auto)' /tmp/o.txt | awk '{printf "%s %s ", $1, $4}')"
    done
  done | tee "$out/cli.txt"
fi
exec scripts/session32-exp2.sh "$out"
