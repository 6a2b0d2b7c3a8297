#!/usr/bin/env python3
"""A compact per-shape table of tmakit_bench JSON files, for a device call's output tail.

usage: scripts/bench_table.py BENCH.json [...] [--tokens smem_flat,smem_strip,auto]

One line per (class, shape, element size): memcpy GB/s; each named token's % of memcpy; the
best tmakit technique (copies excluded) and its % of memcpy; the best peer and its %; and
best tmakit / best peer. Medians of the repetitions (bench/report.py's parsing).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import report  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--tokens", default="smem_flat,smem_strip,auto")
    a = ap.parse_args()
    tokens = [t for t in a.tokens.split(",") if t]
    for gpu, run in report.load(a.files).items():
        print(f"# {gpu} ({run.ctx.get('date', '?')})")
        print("class shape e memcpy | " + " ".join(f"{t}%" for t in tokens) +
              " | best% (token) | peer% (peer) | ratio")
        for (cls, shape, e), cells in run.cells.items():
            mc = cells.get("memcpy")
            if mc is None or not mc.ran():
                continue
            pct = lambda c: 100.0 * c.gbps / mc.gbps if c is not None and c.ran() else None
            fmt = lambda v: f"{v:5.1f}" if v is not None else "  n/a"
            mine = [(t, c) for t, c in cells.items() if c.ran() and t not in report.COPIES
                    and t not in report.PEERS and t != "auto"]
            peers = [(t, c) for t, c in cells.items() if c.ran() and t in report.PEERS]
            best = max(mine, key=lambda tc: tc[1].gbps, default=None)
            peer = max(peers, key=lambda tc: tc[1].gbps, default=None)
            ratio = best[1].gbps / peer[1].gbps if best and peer else None
            print(f"{cls} {shape} {e} {mc.gbps:5.0f} | " +
                  " ".join(fmt(pct(cells.get(t))) for t in tokens) +
                  f" | {fmt(pct(best[1]) if best else None)} ({best[0] if best else '-'})" +
                  f" | {fmt(pct(peer[1]) if peer else None)} ({peer[0] if peer else '-'})" +
                  (f" | {ratio:.2f}" if ratio else " | -"))


if __name__ == "__main__":
    main()
