#!/usr/bin/env bash
# Session 24: is transpose()'s per-call host time (bench rows host_overhead/* and host_calls/*,
# issue 16 target 4) a property of the library or of the machine's state? The same rows four
# times in separate processes: twice as the final run starts them, twice pinned to one CPU
# (taskset -c 3). Needs a built tmakit_bench in $1 (default build-gpu); output under $OUT.
b=${1:-build-gpu}
out=${OUT:-$b}
for run in free1 pin1 free2 pin2; do
  pin=()
  [[ $run == pin* ]] && pin=(taskset -c 3)
  "${pin[@]}" "$b/bench/tmakit_bench" --preset=full --benchmark_filter='^host_(overhead|calls)/' \
    --benchmark_out="$out/host-$run.json" --benchmark_out_format=json > /dev/null 2>&1
  python3 - "$out/host-$run.json" "$run" <<'PY'
import json, statistics, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") == "aggregate":
        continue
    rows.setdefault(b["run_name"].split("/iterations")[0], []).append(b["us_per_call"])
med = {k: statistics.median(v) for k, v in rows.items()}
over = [v for k, v in med.items() if k.startswith("host_overhead/")]
print(f"{sys.argv[2]}: empty_launch {med['host_calls/empty_launch']:.2f} copy_launch "
      f"{med['host_calls/copy_launch']:.2f}; host_overhead min {min(over):.2f} max {max(over):.2f}, "
      f"<= 5 us {sum(v <= 5 for v in over)} of {len(over)}")
PY
done
