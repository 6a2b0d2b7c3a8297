#!/usr/bin/env bash
# Session 32's third run (docs/perf-notes.md): experiment 2's change with a whole chunk's phase-1
# path as before (a partial chunk read whole is flagged by a negative slot), and the checks of
# the new path: compute-sanitizer memcheck, initcheck and racecheck over the flat family
# (tests/tools/sanitize_target.cpp now has skinny k x N cases off 16 bytes, dense and strided;
# carried as .prebuilt/san.xz), the family's GPU tests, then base against new as in
# scripts/session32-exp2.sh. Run: bash scripts/session32-exp3.sh OUT
out=${1:-$OUT}; mkdir -p "$out"
xz -d -c .prebuilt/san.xz > /tmp/san && chmod +x /tmp/san
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for v in ${SAN_VARIANTS:-smem_flat bulk_flat reg_permute reg_tile}; do
  for tool in memcheck initcheck racecheck; do
    TMAKIT_REQUIRE_GPU=1 timeout 120 "$cs" --tool $tool --error-exitcode 99 /tmp/san $v > "$out/san-$tool-$v.log" 2>&1
    echo "sanitizer $tool $v: rc $? $(grep -E 'runs, [0-9]+ failed|ERROR SUMMARY' "$out/san-$tool-$v.log" | tr '\n' ' ')"
  done
done
exec scripts/session32-exp2.sh "$out"
