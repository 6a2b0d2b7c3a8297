#!/usr/bin/env python3
"""Fits and judges auto's rule for permute_transpose (host/permute/permute.cpp,
auto_prefers_transpose; DevicePolicy::permute_transpose_min_side_bytes, one threshold per element
size).

    scripts/permute_rule.py --train RUN.json [RUN.json ...] --judge RUN.json [RUN.json ...]

RUN.json: `tmakit_bench --preset=permute` runs (.json or .json.xz) with the permute_transpose,
permute_tile and permute_tma rows. Each tile-form case of rank 5 or less that permute_transpose
ran is one cell: the shorter tile side in bytes (the reduced src-innermost and dst-innermost
extents times the element size), permute_transpose's GB/s and the better of permute_tile and
permute_tma (medians over the run's rounds). A rule takes permute_transpose where the shorter
side is at least T bytes. Fitted two ways on the training cells, by the geometric mean of the
picked technique's GB/s over the faster one's: one T for every element size, and one T per
element size (the middle of the best thresholds' range; the policy line to set it is printed).
Both are then judged on the held-out cells, whose worst picks are listed. The held-out runs must
not have been seen while choosing T.
"""
import argparse
import json
import lzma
import math
import re
import statistics

THRESHOLDS = [32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 256, 320, 384]
SIZES = [1, 2, 4, 8, 16]


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


def size_of(cell):
    return int(cell[3].split()[-2])


def judge(cs, t):
    """(geometric mean of picked / best, right picks, [(picked / best, cell)] worst first).
    t: one threshold, or {element bytes: threshold}."""
    picks = []
    for c in cs:
        side, tr, other, name = c
        te = t[size_of(c)] if isinstance(t, dict) else t
        picked = tr if side >= te else other
        picks.append((picked / max(tr, other), side, tr, other, name))
    gm = math.exp(sum(math.log(p[0]) for p in picks) / len(picks)) if picks else 1.0
    right = sum(1 for p in picks if p[0] == 1.0)
    return gm, right, sorted(picks)


def fit_one(cs):
    """The threshold of the best geometric mean: the middle one of those that tie."""
    scores = [(round(judge(cs, t)[0], 6), t) for t in THRESHOLDS]
    top = max(g for g, _ in scores)
    best = [t for g, t in scores if g == top]
    return best[len(best) // 2], top


def report_held(held, t, label):
    gm, right, picks = judge(held, t)
    print(f"held out, {label}: picked / faster {gm:.3f}, right {right} of {len(held)}")
    for r, side, tr, other, name in picks[:6]:
        if r < 1.0:
            print(f"  {r:.2f}  {name}: shorter side {side} B, permute_transpose {tr:.0f} "
                  f"GB/s, permute_tile / permute_tma {other:.0f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--judge", nargs="*", default=[])
    args = ap.parse_args()
    train = cells(args.train)
    print(f"training: {len(train)} cells")
    for t in THRESHOLDS:
        gm, right, picks = judge(train, t)
        print(f"  T {t:4d} B: picked / faster {gm:.3f} (geometric mean), right {right} of "
              f"{len(train)}, worst {picks[0][0]:.2f}")
    one, _ = fit_one(train)
    print(f"fit, one threshold: T = {one} bytes")
    per = {}
    for e in SIZES:
        cs = [c for c in train if size_of(c) == e]
        per[e], gm = fit_one(cs) if cs else (one, 1.0)
        print(f"  {e:2d} B: {len(cs):3d} cells, T = {per[e]} bytes (picked / faster {gm:.3f})")
    gm, right, _ = judge(train, per)
    print(f"fit, per element size: picked / faster {gm:.3f}, right {right} of {len(train)}")
    print("policy: " + ",".join(f"permute_transpose_min_side_bytes_e{e}={per[e]}" for e in SIZES))
    if args.judge:
        held = cells(args.judge)
        never = math.exp(sum(math.log(o / max(tr, o)) for _, tr, o, _ in held) / len(held))
        print(f"held out: {len(held)} cells (never permute_transpose: {never:.3f})")
        report_held(held, one, f"T = {one}")
        report_held(held, per, "per element size")


if __name__ == "__main__":
    main()
