#!/usr/bin/env bash
# Session 34: bulk_flat's launch knobs on the batches of small matrices (issue 16's batched
# target: 3000x97x75 at 1 / 2 / 4 B is the unmet cell on the H200, 73.5 / 82.4 / 86.5% of
# memcpy in this session's final run). No build: the knobs are read from the environment once
# per process (kernels/async/bulk_flat.cu: TMAKIT_BULK_FLAT_STAGES, _CTAS, _TILE_BYTES), so one
# carried tmakit_bench (.prebuilt/tmakit_bench.xz, scripts/prebuild.sh; .cutensor) runs every
# form. Two rounds, interleaved; full preset (3000x97x75 and the aligned batches) and probe
# preset (the odd batches); smem_flat (auto's alternative) rides in the base runs.
#   bash scripts/session34-sweep.sh OUT   (SPECS overrides the forms: TAG:STAGES:CTAS:TILE)
out=${1:-$OUT}; mkdir -p "$out"; pb=/tmp/pb; mkdir -p $pb
xz -d -c .prebuilt/tmakit_bench.xz > $pb/bench && chmod +x $pb/bench || exit 1
[ -f .cutensor/lib/libcutensor.so.2 ] || xz -d -k .cutensor/lib/libcutensor.so.2.xz
export LD_LIBRARY_PATH=$PWD/.cutensor/lib:$PWD/.prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SPECS=${SPECS:-"base:2:6:16384 s3:3:6:16384 s4:4:6:16384 c4:2:4:16384 c5:2:5:16384 t8:2:6:8192 t8s3:3:6:8192 t8s4:4:6:8192 t4s4:4:6:4096 t32:2:6:32768"}
for r in 1 2; do
  for s in $SPECS; do
    IFS=: read -r tag st ct tb <<< "$s"
    f='^(memcpy|bulk_flat)/e(1|2|4)/batched/'
    [ "$tag" = base ] && f='^(memcpy|bulk_flat|smem_flat)/e(1|2|4)/batched/'
    for p in full probe; do
      TMAKIT_BULK_FLAT_STAGES=$st TMAKIT_BULK_FLAT_CTAS=$ct TMAKIT_BULK_FLAT_TILE_BYTES=$tb \
        timeout 100 $pb/bench --preset=$p --benchmark_filter="$f" \
        --benchmark_out="$out/bench-$tag-${p:0:1}$r.json" --benchmark_out_format=json > /dev/null 2>&1 ||
        echo "bench $tag $p$r rc $?"
    done
  done
done
args=()
for f in "$out"/bench-*.json; do b=$(basename "$f" .json); b=${b#bench-}; args+=("${b%-*}=$f"); done
python3 scripts/exp_summary.py --tokens bulk_flat,smem_flat "${args[@]}" | tee "$out/summary.log"
(cd "$out" && tar cJf sweep.tar.xz bench-*.json && rm -f bench-*.json)
