#!/usr/bin/env python3
"""Where `auto` trails the best named technique run after run (session 25's evidence for its
rules): each RUN.json is read on its own (bench/report.py's load and verdict), and a cell is
listed when auto ran more than --gap percent below the best technique in at least --min of the
runs of its GPU (default: all of them), with each run's pick, gap and best technique.
  scripts/auto_history.py RUN.json... [--gap 1.0] [--min N]
The runs are decompressed final runs, e.g. xz -dc docs/data/bench-full-h200-2026-11-24n.json.xz."""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import report  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--gap", type=float, default=1.0, help="percent below the best (default 1)")
    ap.add_argument("--min", type=int, default=0, help="runs that must show it (default: all)")
    a = ap.parse_args()
    cells = collections.defaultdict(list)  # (gpu, cls, shape, elem) -> [(run, auto, gap, best)]
    runs_of = collections.Counter()
    for path in a.runs:
        for gpu, run in report.load([path]).items():
            runs_of[gpu] += 1
            for key, cell in run.cells.items():
                v = report.verdict(cell)
                if key[0] == "accumulate" or v["auto"][1] is None or v["tmakit"][1] is None:
                    continue
                gap = 100.0 * (1 - v["auto"][1] / v["tmakit"][1])
                cells[(gpu,) + key].append((os.path.basename(path), v["auto"][0], gap, v["tmakit"][0]))
    for key, rows in cells.items():
        need = a.min if a.min > 0 else runs_of[key[0]]
        if sum(gap > a.gap for _, _, gap, _ in rows) >= need:
            print(f"{key[0]} {key[1]} {key[2]} {key[3]} B: " + "; ".join(
                f"{r} auto {pick} {gap:.1f}% below {best}" for r, pick, gap, best in rows))


if __name__ == "__main__":
    main()
