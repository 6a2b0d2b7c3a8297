#!/usr/bin/env python3
"""Fits and judges auto's rule for permute_transpose (host/permute/permute.cpp,
auto_prefers_transpose; DevicePolicy::permute_transpose_min_side_bytes).

    scripts/permute_rule.py --train RUN.json [RUN.json ...] --judge RUN.json [RUN.json ...]

RUN.json: `tmakit_bench --preset=permute` runs (.json or .json.xz) with the permute_transpose,
permute_tile and permute_tma rows. Each tile-form case of rank 5 or less that permute_transpose
ran is one cell: the shorter tile side in bytes (the reduced src-innermost and dst-innermost
extents times the element size), permute_transpose's GB/s and the better of permute_tile and
permute_tma (medians over the run's rounds). The rule takes permute_transpose where the shorter
side is at least T bytes. For each T the training cells give the geometric mean of the picked
technique's GB/s over the faster one's, how many picks are right and the worst pick; the T with
the best geometric mean is the fit, then judged on the held-out cells, whose worst picks are
listed. The held-out runs must not have been seen while choosing T.
"""
import argparse
import json
import lzma
import math
import re
import statistics

THRESHOLDS = [32, 64, 96, 128, 160, 192, 256, 384]


def load(path):
    with (lzma.open(path, "rt") if path.endswith(".xz") else open(path)) as f:
        return json.load(f)


def cells(paths):
    """[(shorter side bytes, transpose GB/s, other GB/s, name)] over the runs."""
    out = []
    for path in paths:
        cases = {}
        for b in load(path)["benchmarks"]:
            name = b.get("run_name", b["name"]).split("/iterations:")[0]
            parts = name.split("/")
            if len(parts) != 6 or parts[0] != "permute":
                continue
            key, who = tuple(parts[1:5]), parts[5]
            c = cases.setdefault(key, {"gbps": {}, "label": ""})
            if "tile: extents" in b.get("label", "") and not c["label"]:
                c["label"] = b["label"]
            if b.get("error_occurred") or b.get("skipped") or "GBps" not in b:
                continue
            g = b["GBps"] / 1e9 if b["GBps"] > 1e6 else b["GBps"]
            c["gbps"].setdefault(who, []).append(g)
        for (e, label, ext, perm), c in cases.items():
            m = re.search(r"tile: extents \(([^)]*)\) perm \(([^)]*)\)", c["label"])
            med = {w: statistics.median(v) for w, v in c["gbps"].items()}
            other = max(med.get("permute_tile", 0), med.get("permute_tma", 0))
            if not m or "permute_transpose" not in med or other == 0:
                continue
            red = [int(x) for x in m.group(1).split(",")]
            rperm = [int(x) for x in m.group(2).split(",")]
            if len(red) > 5:
                continue
            side = min(red[-1], red[rperm[-1]]) * int(e[1:])
            out.append((side, med["permute_transpose"], other,
                        f"{ext.replace('x', ',')} ({perm.replace('.', ',')}) {e[1:]} B"))
    return out


def judge(cs, t):
    """(geometric mean of picked / best, right picks, [(picked / best, cell)] worst first)."""
    picks = []
    for side, tr, other, name in cs:
        picked = tr if side >= t else other
        picks.append((picked / max(tr, other), side, tr, other, name))
    gm = math.exp(sum(math.log(p[0]) for p in picks) / len(picks))
    right = sum(1 for p in picks if p[0] == 1.0)
    return gm, right, sorted(picks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--judge", nargs="*", default=[])
    args = ap.parse_args()
    train = cells(args.train)
    print(f"training: {len(train)} cells")
    best = None
    for t in THRESHOLDS:
        gm, right, picks = judge(train, t)
        print(f"  T {t:4d} B: picked / faster {gm:.3f} (geometric mean), right {right} of "
              f"{len(train)}, worst {picks[0][0]:.2f}")
        if best is None or gm > best[1]:
            best = (t, gm)
    print(f"fit: T = {best[0]} bytes")
    if args.judge:
        held = cells(args.judge)
        gm, right, picks = judge(held, best[0])
        never = math.exp(sum(math.log(o / max(tr, o)) for _, tr, o, _ in held) / len(held))
        print(f"held out: {len(held)} cells; T = {best[0]}: picked / faster {gm:.3f}, right {right} "
              f"of {len(held)} (never permute_transpose: {never:.3f})")
        for r, side, tr, other, name in picks[:6]:
            if r < 1.0:
                print(f"  {r:.2f}  {name}: shorter side {side} B, permute_transpose {tr:.0f} "
                      f"GB/s, permute_tile / permute_tma {other:.0f}")


if __name__ == "__main__":
    main()
