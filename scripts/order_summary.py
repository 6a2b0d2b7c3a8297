#!/usr/bin/env python3
"""Summarise an order experiment (scripts/order-experiment.sh): per cell, under each flush,
memcpy, what auto ran and its GB/s against the same technique named, tmakit's best, tma_wide,
the best peer and tmakit best / best peer.

usage: scripts/order_summary.py LABEL=BENCH.json[.xz] [...]
"""
import json
import lzma
import sys

PEERS = ("cublas_geam", "cublas_geam_c", "cublaslt", "cutensor")
COPIES = ("memcpy", "copy", "tma_copy", "bulk_roofline", "async_roofline", "auto")


def cells_of(path):
    d = json.load(lzma.open(path) if path.endswith(".xz") else open(path))
    cells = {}
    for b in d["benchmarks"]:
        if b.get("aggregate_name") != "median" or "GBps" not in b:
            continue
        tok, e, cls, shape = b["name"].split("/")[:4]
        cells.setdefault((cls, shape, e), {})[tok] = (b["GBps"], b.get("label", ""))
    return cells


def main():
    runs = [(a.split("=", 1)[0], cells_of(a.split("=", 1)[1])) for a in sys.argv[1:]]
    for key in runs[0][1]:
        print(" ".join(key))
        for label, cells in runs:
            v = cells.get(key)
            if not v:
                continue
            ran = v.get("auto", (0, ""))[1].replace("ran ", "")
            auto, named = v.get("auto", (0,))[0], v.get(ran, (0,))[0]
            mine = {t: g for t, (g, _) in v.items() if t not in PEERS and t not in COPIES}
            peers = {t: g for t, (g, _) in v.items() if t in PEERS}
            best = max(mine, key=mine.get)
            peer = max(peers, key=peers.get) if peers else None
            ratio = f"{mine[best] / peers[peer]:.3f}" if peer else "-"
            print(f"  {label:8s} memcpy {v['memcpy'][0]:5.0f}  auto {auto:5.0f} = "
                  f"{auto / named if named else 0:.3f} x named {ran} {named:5.0f}  best {best} "
                  f"{mine[best]:5.0f}  tma_wide {v.get('tma_wide', (0,))[0]:5.0f}  peer {peer} "
                  f"{peers.get(peer, 0):5.0f}  ratio {ratio}")


if __name__ == "__main__":
    main()
