#!/usr/bin/env bash
# Session 32's second experiment (docs/perf-notes.md): smem_flat reads a run's partial source
# chunks whole where the operand holds them and stores only the run's bytes; kTall's partial
# dst chunks gather all their elements before writing (kernels/classic/smem_flat.cu,
# kernels/primitives/flat_gather.cuh). base = the shipped binary (scripts/prebuild.sh, with
# cuTENSOR), new = build/ with the change (scripts/prebuild-variants.sh's way, packed by hand).
# GPU tests of new; the probe preset's skinny and batched shapes (N = 1000003: misaligned runs)
# and the full preset's (aligned: must not move), two rounds. Run: bash scripts/session32-exp2.sh OUT
VARIANTS="base new" TESTS=${TESTS-new} NCU_VARIANTS=- PRESETS="probe full" ROUNDS=${ROUNDS:-2} \
  GTEST_FILTER=${GTEST_FILTER:-'*smem_flat*:*bulk_flat*:*reg_permute*:*reg_tile*:Registry/Layout.*:*Flat*:*Skinny*:Registry/GpuTables.*'} \
  FILTER=${FILTER:-'^(memcpy|smem_flat|bulk_flat|auto)/e(1|2|4|8)/(skinny|batched)/'} \
  TOKENS=smem_flat,bulk_flat,auto exec scripts/run-variants.sh "${1:-$OUT}"
