#!/usr/bin/env bash
# The decider's data for the GPU this runs on (docs/plans.md): the training surveys its tuning
# table is made of, and the held-out survey that judges it. One device call per GPU.
#
#   scripts/decider_data.sh [--prebuilt DIR] [--out DIR] [--train N] [--accumulate N]
#                           [--heldout N] [--seed S] [--heldout-seed S] [--only train|heldout]
#                           [--limit S] [--train-dist D] [--heldout-dist D]
#
#   --prebuilt DIR   tmakit_bench packed by scripts/prebuild.sh (carry DIR and .cutensor); else
#                    build/bench/tmakit_bench
#   --out DIR        where the runs go (default $OUT, else build-gpu): survey-train-GPU.json
#                    (transposes, --survey-dist=train), survey-train-acc-GPU.json (accumulates,
#                    beta 1 and 0), survey-heldout-GPU.json (--survey-dist=heldout, with the
#                    measure plan and what `auto` runs on every cell); GPU: h100, h200, ...
#   --train N        transpose training cells (default 1200), --accumulate N accumulate ones
#                    drawn (default 500; the 1- and 16-byte draws are skipped), --heldout N
#                    held-out cells (default 300); 0 skips that survey
#   --limit S        seconds each survey may take (default 0: no limit); a survey stopped at
#                    its limit leaves the rows it finished (tuning_table.py reads a cut JSON)
#   --train-dist D   the training surveys' distribution: train (default), domain, channels,
#                    channels_aligned, permute or skinny (host/cli/shapes.hpp)
#   --heldout-dist D the held-out survey's distribution: heldout (default), or a training one
#                    (channels, domain, permute, skinny) drawn at a seed no training run used, to judge
#                    a table on that class
#   --seed S         the training seed (default 101; the accumulate survey takes S + 1),
#                    --heldout-seed S the judge's (default 20261128); never the same
#
# Then, on the development machine:
#   scripts/tuning_table.py host/transpose/tuning/h100.inc h100 OUT/survey-train-h100.json \
#       OUT/survey-train-acc-h100.json [preset runs ...]
#   scripts/decider_judge.py OUT/survey-heldout-h100.json [--table host/transpose/tuning/h100.inc]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
prebuilt="" out=${OUT:-build-gpu} train=1200 acc=500 held=300 seed=101 held_seed=20261128 only=""
limit=0 train_dist=train held_dist=heldout
while [ $# -gt 0 ]; do
  case $1 in
    --prebuilt) prebuilt=$2; shift ;;
    --out) out=$2; shift ;;
    --train) train=$2; shift ;;
    --accumulate) acc=$2; shift ;;
    --heldout) held=$2; shift ;;
    --seed) seed=$2; shift ;;
    --heldout-seed) held_seed=$2; shift ;;
    --only) only=$2; shift ;;
    --limit) limit=$2; shift ;;
    --train-dist) train_dist=$2; shift ;;
    --heldout-dist) held_dist=$2; shift ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "decider_data.sh: unknown argument '$1' (--help)" >&2; exit 64 ;;
  esac
  shift
done
[ "$seed" != "$held_seed" ] || { echo "decider_data.sh: the held-out seed must differ" >&2; exit 64; }
mkdir -p "$out"
exe=build/bench/tmakit_bench
if [ -n "$prebuilt" ]; then
  export LD_LIBRARY_PATH="$PWD/$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if [ -f .cutensor/lib/libcutensor.so.2.xz ]; then
    mkdir -p /tmp/decider-cutensor
    xz -d -c .cutensor/lib/libcutensor.so.2.xz > /tmp/decider-cutensor/libcutensor.so.2
    export LD_LIBRARY_PATH="/tmp/decider-cutensor:$LD_LIBRARY_PATH"
  fi
  exe=/tmp/decider-bin/tmakit_bench
  mkdir -p /tmp/decider-bin
  xz -d -c "$prebuilt/tmakit_bench.xz" > "$exe" && chmod +x "$exe" || exit 1
fi
[ -x "$exe" ] || { echo "decider_data.sh: no $exe (build it, or --prebuilt)" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H200*) tag=h200 ;; *H100*) tag=h100 ;; *) tag=$(echo "$gpu" | tr -cd 'A-Za-z0-9' | tr 'A-Z' 'a-z') ;; esac
echo "decider_data.sh: $gpu ($tag), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1), $(date -u +'%F %T') UTC"
survey() {  # NAME ARGS...: one survey run, its JSON under $out
  local name=$1
  shift
  local t0=$(date +%s)
  local cap=()
  [ "$limit" -gt 0 ] && cap=(timeout "$limit")
  "${cap[@]}" "$exe" --preset=survey "$@" --benchmark_out="$out/$name-$tag.json" --benchmark_out_format=json \
    > "$out/$name-$tag.txt" 2>&1
  local rc=$?
  echo "$name: rc $rc, $(( $(date +%s) - t0 )) s, $(grep -c '"name": "plan_survey' "$out/$name-$tag.json" 2>/dev/null) rows, $(grep -c '"error_occurred": true' "$out/$name-$tag.json" 2>/dev/null) errors"
  return $rc
}
rc=0
if [ "$only" != heldout ]; then
  [ "$train" -gt 0 ] && { survey survey-train --survey-dist="$train_dist" --survey-count="$train" \
    --survey-seed="$seed" --survey-plans=0 --benchmark_filter='^plan_survey/' || rc=1; }
  [ "$acc" -gt 0 ] && { survey survey-train-acc --survey-dist="$train_dist" --survey-kind=accumulate \
    --survey-count="$acc" --survey-seed=$((seed + 1)) --benchmark_filter='^plan_survey_acc/' || rc=1; }
fi
if [ "$only" != train ] && [ "$held" -gt 0 ]; then
  survey survey-heldout --survey-dist="$held_dist" --survey-count="$held" --survey-seed="$held_seed" \
    --benchmark_filter='^plan_survey/' || rc=1
fi
exit $rc
