#!/usr/bin/env bash
# ctest: run one compute-sanitizer tool over one technique (tests/tools/sanitize_target.cpp).
# Usage: run_sanitizer.sh TOOL TARGET VARIANT CUDA_BIN_DIR
# compute-sanitizer is taken from the PATH, else from the CUDA toolkit's bin directory.
# Exit 77 (skip) when it is missing or the technique has no suitable device, unless TMAKIT_REQUIRE_GPU=1.
set -u
tool=$1 target=$2 variant=$3
cs=$(command -v compute-sanitizer || true)
[ -z "$cs" ] && [ -x "$4/compute-sanitizer" ] && cs=$4/compute-sanitizer
if [ -z "$cs" ]; then
  echo "skipped: compute-sanitizer is not on the PATH nor in $4"
  [ "${TMAKIT_REQUIRE_GPU:-0}" = 1 ] && { echo "FAIL: TMAKIT_REQUIRE_GPU=1"; exit 1; }
  exit 77
fi
"$target" "$variant" >/dev/null 2>&1
rc=$?
if [ $rc -eq 77 ]; then "$target" "$variant" | tail -1; exit 77; fi
"$cs" --tool "$tool" --error-exitcode 99 "$target" "$variant"
rc=$?
[ $rc -eq 0 ] && echo "compute-sanitizer --tool $tool: clean on $variant"
exit $rc
