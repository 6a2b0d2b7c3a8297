#!/usr/bin/env python3
"""Side by side: the % of memcpy of some techniques in several tmakit_bench JSON files of the
same shapes (one experiment's settings, one file each, from one machine):
  scripts/bench_compare.py TOKENS FILE... [--class batched]
prints, per shape and element size, each token's % of that file's memcpy, one column per file.
Cells are bench/report.py's (the median of a cell's rounds)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import report  # noqa: E402


def cells(path, cls):
    # One file at a time: report.load merges the files of one GPU.
    (run,) = report.load([path]).values()
    return {(s, e): c for (k, s, e), c in run.cells.items() if not cls or k == cls}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tokens")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--class", dest="cls", default="")
    a = ap.parse_args()
    runs = [cells(p, a.cls) for p in a.files]
    print("columns: " + " | ".join(a.files))
    for shape, e in sorted({k for r in runs for k in r}):
        out = []
        for tok in a.tokens.split(","):
            vals = []
            for r in runs:
                cell = r.get((shape, e), {})
                m, v = cell.get("memcpy"), cell.get(tok)
                ok = m is not None and v is not None and m.ran() and v.ran()
                vals.append(f"{100 * v.gbps / m.gbps:5.1f}" if ok else "  n/a")
            out.append(f"{tok} " + " ".join(vals))
        print(f"{shape:14s} {e:2d} B | " + " | ".join(out))


if __name__ == "__main__":
    main()
