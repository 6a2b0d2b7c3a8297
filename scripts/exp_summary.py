#!/usr/bin/env python3
"""Per-shape % of memcpy of chosen tokens across experiment runs, each run's memcpy its own.

usage: scripts/exp_summary.py --tokens a,b,c TAG=BENCH.json [TAG=BENCH.json ...]

One line per (class, shape, element size): for each token and tag, the % of memcpy in each file
with that tag (same-tag files are repeated runs), medians of repetitions (bench/report.py)."""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import report  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--tokens", required=True)
    a = ap.parse_args()
    tokens = a.tokens.split(",")
    table = collections.OrderedDict()  # (cls, shape, e) -> {(token, tag): [pct...]}
    tags = []
    for spec in a.runs:
        tag, path = spec.split("=", 1)
        if tag not in tags:
            tags.append(tag)
        for _, run in report.load([path]).items():
            for key, cells in run.cells.items():
                mc = cells.get("memcpy")
                if mc is None or not mc.ran():
                    continue
                row = table.setdefault(key, collections.defaultdict(list))
                for t in tokens:
                    c = cells.get(t)
                    if c is not None and c.ran():
                        row[(t, tag)].append(100.0 * c.gbps / mc.gbps)
    cols = [(t, g) for t in tokens for g in tags if any((t, g) in r for r in table.values())]
    print("shape e | " + " | ".join(f"{t}[{g}]" for t, g in cols))
    for (cls, shape, e), row in table.items():
        print(f"{cls} {shape} {e} | " + " | ".join(
            "/".join(f"{v:.1f}" for v in row.get(c, [])) or "-" for c in cols))


if __name__ == "__main__":
    main()
