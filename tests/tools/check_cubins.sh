#!/usr/bin/env bash
# ctest: inspect the built binary with cuobjdump. The sm_90 code must hold the TMA kernels
# (UTMALDG / UTMASTG instructions in each TMA technique's kernels) and the pre-sm_90 code must
# exist for the fallbacks (the classic kernels) with no TMA instruction in it.
# Usage: check_cubins.sh BINARY CUDA_BIN_DIR. Exit 77 (skip) without cuobjdump, unless
# TMAKIT_REQUIRE_GPU=1 (then 1).
set -u
bin=$1
cuobjdump=$(command -v cuobjdump || true)
[ -z "$cuobjdump" ] && [ -x "$2/cuobjdump" ] && cuobjdump=$2/cuobjdump
if [ -z "$cuobjdump" ]; then
  echo "skipped: cuobjdump is not on the PATH nor in $2"
  [ "${TMAKIT_REQUIRE_GPU:-0}" = 1 ] && { echo "FAIL: TMAKIT_REQUIRE_GPU=1"; exit 1; }
  exit 77
fi
fail=0
archs=$("$cuobjdump" --list-elf "$bin" | sed -n 's/.*\.\(sm_[0-9a-z]*\)\..*/\1/p' | sort -u | tr '\n' ' ')
echo "ELF targets in $(basename "$bin"): $archs"
case " $archs " in *" sm_90 "*) ;; *) echo "FAIL: no sm_90 code"; fail=1 ;; esac
pre=$(for a in $archs; do n=${a#sm_}; n=${n%%[a-z]*}; [ "$n" -lt 90 ] && echo "$a"; done | head -1)
[ -z "$pre" ] && { echo "FAIL: no pre-sm_90 code for the fallbacks"; fail=1; }

# Per function: name and whether it holds a TMA instruction.
summary() {  # $1 = arch
  "$cuobjdump" -sass -arch "$1" "$bin" | awk '
    /Function : / { if (name != "") print name, tma; name = $3; tma = 0 }
    /UTMALDG|UTMASTG/ { tma = 1 }
    END { if (name != "") print name, tma }'
}
sm90=$(summary sm_90)
for k in tma_copy_kernel tma_load_store_kernel tma_load_kernel tma_store_kernel \
         tma_pipeline_kernel int4_8x8_kernel; do
  total=$(echo "$sm90" | grep -c "${k}I" || true)
  with=$(echo "$sm90" | grep "${k}I" | grep -c " 1$" || true)
  echo "sm_90 $k: $with of $total instantiations use TMA instructions"
  if [ "$total" -eq 0 ] || [ "$with" -ne "$total" ]; then echo "FAIL: $k"; fail=1; fi
done
if [ -n "$pre" ]; then
  old=$(summary "$pre")
  for k in smem_tile_kernel vec_tile_kernel copy_vec_kernel; do
    n=$(echo "$old" | grep -c "$k" || true)
    echo "$pre $k: $n instantiations"
    [ "$n" -eq 0 ] && { echo "FAIL: no $pre code for $k"; fail=1; }
  done
  t=$(echo "$old" | grep -c " 1$" || true)
  echo "$pre functions with TMA instructions: $t"
  [ "$t" -ne 0 ] && { echo "FAIL: TMA instructions in $pre code"; fail=1; }
fi
exit $fail
