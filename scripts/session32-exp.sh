#!/usr/bin/env bash
# Session 32's first experiment (docs/perf-notes.md): smem_flat / bulk_flat on the probe
# preset's skinny shapes (k = 3..24 at N = 1000003, 9 x 2^21) with the unit size set by the
# existing knob TMAKIT_FLAT_TILE_BYTES (default: 16 KB, 32 KB on HBM3e for k >= 16), to test
# whether the units fill whole waves there (24 x 1000003 1 B: 736 units of 32 KB for 660
# resident blocks, 1.1 waves). Shipped binaries (base), no build. Run: bash scripts/session32-exp.sh OUT
VARIANTS="base t8:base:TMAKIT_FLAT_TILE_BYTES=8192 t12:base:TMAKIT_FLAT_TILE_BYTES=12288 t18:base:TMAKIT_FLAT_TILE_BYTES=18432 t24:base:TMAKIT_FLAT_TILE_BYTES=24576 t32:base:TMAKIT_FLAT_TILE_BYTES=32768" \
  NCU_VARIANTS=- TESTS= PRESETS=probe ROUNDS=${ROUNDS:-2} \
  FILTER=${FILTER:-'^(memcpy|smem_flat|bulk_flat)/e(1|2|4)/skinny/'} \
  TOKENS=smem_flat,bulk_flat exec scripts/run-variants.sh "${1:-$OUT}"
