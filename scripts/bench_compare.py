#!/usr/bin/env python3
"""Side by side: the % of memcpy of some techniques in several tmakit_bench JSON files of the
same shapes (one experiment's settings, one file each, from one machine):
  scripts/bench_compare.py TOKENS FILE... [--class batched]
prints, per shape and element size, each token's % of that file's memcpy, one column per file."""
import argparse
import json
import re


def load(path, cls):
    runs = {}
    with open(path) as f:
        for b in json.load(f)["benchmarks"]:
            m = re.match(r"([a-z0-9_]+)/e(\d+)/([a-z]+)/([0-9x]+)/", b["name"])
            if not m or b.get("run_type") == "aggregate" or (cls and m.group(3) != cls):
                continue
            runs[(m.group(4), int(m.group(2)), m.group(1))] = b.get("GBps", 0)
    return runs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tokens")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--class", dest="cls", default="")
    a = ap.parse_args()
    runs = [load(p, a.cls) for p in a.files]
    print("columns: " + " | ".join(a.files))
    for shape, e in sorted({(k[0], k[1]) for r in runs for k in r}):
        cells = []
        for tok in a.tokens.split(","):
            vals = []
            for r in runs:
                m, v = r.get((shape, e, "memcpy")), r.get((shape, e, tok))
                vals.append(f"{100 * v / m:5.1f}" if m and v else "  n/a")
            cells.append(f"{tok} " + " ".join(vals))
        print(f"{shape:14s} {e:2d} B | " + " | ".join(cells))


if __name__ == "__main__":
    main()
