#!/bin/sh
# ctest's runner of an example (examples/CMakeLists.txt): passes when it exits 0 and printed its
# "ok" line and no WRONG one; exit 77 (no TMA GPU) is a skip, or a failure when TMAKIT_REQUIRE_GPU=1.
out=$("$1" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 77 ]; then
  [ "${TMAKIT_REQUIRE_GPU:-0}" = 1 ] && { echo "run_example.sh: no TMA GPU and TMAKIT_REQUIRE_GPU=1"; exit 1; }
  exit 77
fi
[ "$rc" -eq 0 ] || exit "$rc"
printf '%s\n' "$out" | grep -qw ok || { echo "run_example.sh: no ok line"; exit 1; }
if printf '%s\n' "$out" | grep -q WRONG; then echo "run_example.sh: a WRONG line"; exit 1; fi
