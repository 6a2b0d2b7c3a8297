#!/usr/bin/env bash
# Session 31's experiment (docs/perf-notes.md): smem_sector at 4 B with twice the loads in flight
# per thread, against the shipped kernel (base):
#   c128  = TMAKIT_SECTOR_C128 (tile 128 columns x 64 owned rows), SPLIT, INC
#   r128  = TMAKIT_SECTOR_R128 (64 columns x 128 owned rows), SPLIT, INC
#   r128n = TMAKIT_SECTOR_R128, INC
# SPLIT: the load loop compiled twice, for interior tiles without edge checks; INC: one row
# pointer advanced by 8 rows per load row (both only to keep the hinted 4 B kernel unspilled at
# 64 registers). The knobs exist only in the kernel of commit c140afe (81d0d08 ships r128n at 4 B
# on HBM3e); the
# binaries were built here by scripts/prebuild-variants.sh (no cuTENSOR) and carried in
# .prebuilt/. Run on the device: bash scripts/session31-exp.sh OUT_DIR. Results:
# docs/data/sector-tall-h{200,100}-2026-11-26-session31.tar.xz and -summary.txt.
VARIANTS=${VARIANTS:-base c128 r128 r128n} TESTS=${TESTS-c128 r128 r128n} \
  GTEST_FILTER='*smem_sector*:Registry/GpuTables.*:*AutoVariant*' \
  FILTER=${FILTER:-'^(memcpy|smem_sector)/e(4|8)/(odd|batched|square)/'} PRESETS="full probe" \
  TOKENS=smem_sector NCU_KERNEL=smem_sector_kernel NCU_FILTER='^smem_sector/e4/odd/6789x12345/' \
  exec scripts/run-variants.sh "${1:-$OUT}"
