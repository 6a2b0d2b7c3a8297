#!/usr/bin/env bash
# Which cells of earlier benchmark runs `auto` would now run differently: reads the
# technique auto ran in each cell of each RUN.json (bench/report.py), asks this tree's
# auto_variant for the same call (the H200's table where the run's GPU is an H200) and prints
# the cells whose pick changed. Needs the host library built: BUILD_DIR (default build) with
# libtmakit.a; CUDA's runtime library from CUDA_HOME (default /usr/local/cuda).
#   scripts/pick-changes.sh RUN.json...   (decompressed runs, e.g. xz -dc docs/data/bench-*.json.xz)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${BUILD_DIR:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
[ -f "$b/libtmakit.a" ] || { echo "pick-changes.sh: no $b/libtmakit.a (build the project, or set BUILD_DIR)"; exit 1; }
exe=$(mktemp); trap 'rm -f "$exe"' EXIT
g++ -std=c++17 -O1 -Ihost/include -I. bench/tools/pick_changes.cpp -o "$exe" -L"$b" -ltmakit \
  -L"$cuda/lib64" -lcudart
python3 - "$@" <<'PY' | "$exe"
import os, sys
sys.path.insert(0, os.path.join("bench"))
import report
for path in sys.argv[1:]:
    for gpu, run in report.load([path]).items():
        tag = "h200" if "H200" in gpu else "h100"
        for (cls, shape, e), cell in run.cells.items():
            a = cell.get("auto")
            if cls == "accumulate" or a is None or not a.ran():
                continue
            b, r, c = report.shape_dims(shape)
            print(tag, b, r, c, e, a.label.replace("ran ", ""))
PY
