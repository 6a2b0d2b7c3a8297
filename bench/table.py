#!/usr/bin/env python3
"""Compact per-shape tables of tmakit_bench JSON files, for a device call's output tail.

usage: bench/table.py BENCH.json [...] [--tokens smem_flat,smem_strip,auto]
       bench/table.py BENCH.json [...] --tma [--classes square,odd]
       bench/table.py --ab TAG=BENCH.json [TAG=BENCH.json ...] --tokens a,b

Plain form: one line per (class, shape, element size): memcpy GB/s; each named token's % of
memcpy; the best tmakit technique (copies excluded) and its % of memcpy; the best peer and its
%; and best tmakit / best peer.

--tma form: for every cell of the named classes (default square), the best TMA technique
(tma_*) against the best LDG/STG technique (the classic and register ones: no TMA, no cp.async,
no 1-D bulk copy), GB/s and % of memcpy, and their ratio: docs/perf-guide.md's "what TMA buys".

--ab form (an A/B experiment, scripts/bench.sh --ab): one line per (class, shape, element
size), one column per token and tag, holding the % of memcpy in every file of that tag
(repeated rounds side by side), each file's memcpy its own.

Medians of the repetitions (bench/report.py's parsing).
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def fmt(v):
    return f"{v:5.1f}" if v is not None else "  n/a"


def plain(files, tokens):
    for gpu, run in report.load(files).items():
        print(f"# {gpu} ({run.ctx.get('date', '?')})")
        print("class shape e memcpy | " + " ".join(f"{t}%" for t in tokens) +
              " | best% (token) | peer% (peer) | ratio")
        for (cls, shape, e), cells in run.cells.items():
            mc = cells.get("memcpy")
            if mc is None or not mc.ran():
                continue

            def pct(c):
                return 100.0 * c.gbps / mc.gbps if c is not None and c.ran() else None

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


def is_ldg_stg(token):
    return not token.startswith(("tma_", "bulk_", "async_")) and token not in report.COPIES \
        and token not in report.PEERS and token not in ("auto", "int4_8x8")


def tma_split(files, classes):
    for gpu, run in report.load(files).items():
        print(f"# {gpu} ({run.ctx.get('date', '?')})")
        print("| cell | best TMA, GB/s (% of memcpy) | best LDG/STG | TMA / LDG/STG |")
        print("|---|---|---|---|")
        for (cls, shape, e), cells in run.cells.items():
            mc = cells.get("memcpy")
            if cls not in classes or mc is None or not mc.ran():
                continue
            ran = [(t, c.gbps) for t, c in cells.items() if c.ran()]
            tma = [tc for tc in ran if tc[0].startswith("tma_") and tc[0] not in report.COPIES]
            ldg = [tc for tc in ran if is_ldg_stg(tc[0])]
            if not tma or not ldg:
                continue
            bt, bl = max(tma, key=lambda tc: tc[1]), max(ldg, key=lambda tc: tc[1])
            print(f"| {cls} {shape} {e} B | `{bt[0]}` {bt[1]:.0f} ({100 * bt[1] / mc.gbps:.1f}%) | "
                  f"`{bl[0]}` {bl[1]:.0f} ({100 * bl[1] / mc.gbps:.1f}%) | {bt[1] / bl[1]:.3f} |")


def ab(specs, tokens):
    table = collections.OrderedDict()  # (cls, shape, e) -> {(token, tag): [pct, ...]}
    tags = []
    for spec in specs:
        if "=" not in spec:
            sys.exit(f"table.py: --ab takes TAG=BENCH.json (got '{spec}')")
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--ab", nargs="+", metavar="TAG=BENCH.json")
    ap.add_argument("--tokens", default="smem_flat,smem_strip,auto")
    ap.add_argument("--tma", action="store_true", help="best TMA against best LDG/STG per cell")
    ap.add_argument("--classes", default="square", help="classes for --tma, comma-separated")
    a = ap.parse_args()
    tokens = [t for t in a.tokens.split(",") if t]
    if a.ab:
        ab(a.ab, tokens)
    elif a.tma and a.files:
        tma_split(a.files, a.classes.split(","))
    elif a.files:
        plain(a.files, tokens)
    else:
        ap.error("give BENCH.json files or --ab TAG=BENCH.json ...")


if __name__ == "__main__":
    main()
