#!/usr/bin/env bash
# Session 31's second experiment (docs/perf-notes.md): smem_flat's load phase with 8 chunks in
# flight per thread (u8 = TMAKIT_FLAT_UNROLL8) instead of 4 (base), on the skinny and batched
# shapes it serves, 1-8 B, two rounds; GPU tests of u8; ncu at skinny 4000000x16 4 B. The knob
# exists only in the kernel of commit 625a8f0 (removed after it); binaries built here by
# scripts/prebuild-variants.sh and carried in .prebuilt/. Run: bash scripts/session31-exp2.sh OUT
# Results: docs/data/flat-unroll8-h200-2026-11-26-session31.tar.xz and -summary.txt.
VARIANTS=${VARIANTS:-base u8} TESTS=${TESTS-u8} \
  GTEST_FILTER='*smem_flat*:Registry/GpuTables.*:*Flat*' \
  FILTER=${FILTER:-'^(memcpy|smem_flat)/e(1|2|4|8)/(skinny|batched)/'} \
  TOKENS=smem_flat NCU_KERNEL=smem_flat_kernel NCU_FILTER='^smem_flat/e4/skinny/4000000x16/' \
  exec scripts/run-variants.sh "${1:-$OUT}"
