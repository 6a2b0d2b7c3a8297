#!/usr/bin/env bash
# Session 31's third experiment (docs/perf-notes.md, item 8): smem_flat with more blocks per SM
# and fewer registers, the "more warps" that cuTENSOR's skinny kernel has on the H200 (item 6):
#   base = launch bounds (256, 4) as shipped (48 registers used); m6 = (256, 6), 40 registers;
#   m8 = (256, 8), 32 registers (spills 32 bytes at 2-16 B);
# each at the default unit (32 KB on HBM3e for k >= 16) and base / m8 also at 16 KB units
# (TMAKIT_FLAT_TILE_BYTES=16384: 8 blocks of 16 KB fit an SM's shared memory, 8 of 32 KB do
# not). Skinny k = 16 and 32 at 1-8 B, two rounds; GPU tests of m6 and m8. The knobs exist only
# in the kernel of commit 4362df8 (removed after it); binaries built here by
# scripts/prebuild-variants.sh, carried in .prebuilt/. Run: bash scripts/session31-exp3.sh OUT
# Results: docs/data/flat-minblocks-h200-2026-11-26-session31.tar.xz and -summary.txt.
VARIANTS="base m6 m8 b16:base:TMAKIT_FLAT_TILE_BYTES=16384 m8t16:m8:TMAKIT_FLAT_TILE_BYTES=16384" \
  NCU_VARIANTS="base m6 m8t16:m8:TMAKIT_FLAT_TILE_BYTES=16384" TESTS=${TESTS-m6 m8} \
  GTEST_FILTER='*smem_flat*:Registry/GpuTables.*smem_flat*' \
  FILTER=${FILTER:-'^(memcpy|smem_flat)/e(1|2|4|8)/skinny/(4000000x(16|32)|(16|32)x4000000)/'} \
  TOKENS=smem_flat NCU_KERNEL=smem_flat_kernel NCU_FILTER='^smem_flat/e4/skinny/4000000x16/' \
  exec scripts/run-variants.sh "${1:-$OUT}"
