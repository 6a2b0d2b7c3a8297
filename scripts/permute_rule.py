#!/usr/bin/env python3
"""Fits and judges auto's threshold rules for permutations, one threshold per element size,
trained on some runs and judged on held-out ones:

  transpose  permute_transpose for the tile form where both tile sides are at least T bytes
             (host/permute/permute.cpp, auto_prefers_transpose;
             DevicePolicy::permute_transpose_min_side_bytes)
  rows       permute_tile's rows kernels for a row permutation whose rows are at least T bytes,
             its box walk for shorter rows (kernels/permute/permute_tile.cu, rows_kernels_run;
             DevicePolicy::permute_rows_min_bytes: the row-by-row kernels' threshold; a dense
             dst's rows go to the flat walk from 16 bytes on)
  tma-rows   auto's permute_tma for a row permutation whose rows are at least T bytes,
             permute_tile for shorter rows (host/permute/permute.cpp, auto_tma_choice;
             DevicePolicy::permute_tma_min_row_bytes)
  wide       the same at rank 6-8 after the reduction: permute_transpose (rank-5 permutations over
             the outer dimensions, each a batch of transposes; at most 8 launches) where both tile
             sides are at least T bytes, permute_tile's box walk in one launch below
             (host/permute/permute.cpp, auto_splits_for_transposes;
             DevicePolicy::permute_wide_transpose_min_side_bytes)
  tile-fill  permute_tile's 2-D tile kernel for a transposing tile form whose 32 x 32 tiles are
             at least T percent full, its box walk below (kernels/permute/permute_tile.cu,
             permute_tile_prefers_box; DevicePolicy::permute_tile_min_fill_pct)
  transpose-fill  a second condition for `transpose` (not shipped: the fit says whether it is worth
             a policy field): permute_transpose where both tile sides are at least the shipped
             thresholds (--current, required) and the two tile dimensions fill their 32-element
             tiles at least T percent (37 x 58: 58% x 91% = 52%); one T for every size; the
             shipped rule is T = 0
  transpose-matrix  the matrix condition on `transpose` (host/permute/permute.cpp,
             transposes_matrix_small; DevicePolicy::permute_transpose_min_matrix_bytes):
             permute_transpose where both tile sides reach --sides (the shipped side thresholds by
             default) and the matrix, rows x cols x the element size, is at least T bytes, or
             where permute_tile would run its 2-D tile (never the box walk there); permute_tile's
             box walk below
  transpose-form  a candidate rule (no policy field holds it): a permutation that reduces to a
             transpose runs transpose() where its dst rows are at least T bytes (the transpose's
             rows x its element size), permute_tile below (host/permute/permute.cpp runs
             transpose() always: T = 0)
  words-block  permute_tile's word walk through registers in blocks of 256 threads at elements
             of at least T bytes, of 128 below (box_words_threads, kernels/common/permute_box.hpp;
             DevicePolicy::permute_box_words_small_block_max_bytes, T / 2; its 128-thread kernels
             exist at 1-2 B, so T is 1, 2 or 4)
  box-smem   permute_tile's boxes past the static 48 KB of shared memory
             (DevicePolicy::permute_box_max_smem_bytes): where the 48 KB box's walk is the
             pipelined one through registers, that box at elements of at least T bytes, the larger
             box below (box_past_static_smem, kernels/common/permute_box.hpp;
             kBoxPastStaticSmemKeepsPipelinedMinBytes); every other box grown takes the larger

    scripts/permute_rule.py [--rule transpose] --train RUN.json ... --judge RUN.json ...
    scripts/permute_rule.py --rule rows --train ROWS.json,BOX.json ... --judge ROWS.json,BOX.json ...
    scripts/permute_rule.py --rule tma-rows --train RUN.json ... --judge RUN.json ...
    scripts/permute_rule.py --rule tile-fill --train TILE.json,BOX.json ... --judge TILE.json,BOX.json ...
    scripts/permute_rule.py --rule wide --train RUN.json ... --judge RUN.json ...
    scripts/permute_rule.py --rule transpose-fill --current T1,T2,T4,T8,T16 --train RUN.json ...
                            --judge RUN.json ...
    scripts/permute_rule.py --rule transpose-matrix [--sides T1,T2,T4,T8,T16] --cli build/tmakit
                            --train RUN.json ... --judge RUN.json ...
    scripts/permute_rule.py --rule transpose-form --train RUN.json ... --judge RUN.json ...
    scripts/permute_rule.py --rule words-block --cli build/tmakit --train BIG.json,SMALL.json ...
                            --judge BIG.json,SMALL.json ...
    scripts/permute_rule.py --rule box-smem --cli build/tmakit --train STATIC.json,LARGE.json ...
                            --judge STATIC.json,LARGE.json ...

RUN.json: `tmakit_bench --preset=permute` runs (.json or .json.xz), the median of each
technique's rounds. transpose: runs with the permute_transpose, permute_tile and permute_tma
rows; each tile-form case of rank 5 or less that permute_transpose ran is a cell, its key the
shorter tile side in bytes (the reduced src-innermost and dst-innermost extents times the element
size), permute_transpose's GB/s against the better of permute_tile and permute_tma. wide: the same
over the tile-form cases of rank 6-8 that permute_transpose would run in at most 8 launches (runs
of `--permute-min-rank=6` give such cases alone). rows: pairs of
runs of the same cases, permute_tile under TMAKIT_POLICY=permute_rows_min_bytes=16 (the rows
kernels: the flat walk into a dense dst, or with permute_rows_flat_max_vector_bytes=0 the
row-by-row kernels) and under a threshold above every row with the flat walk off
(permute_rows_min_bytes=1048576,permute_rows_flat_max_vector_bytes=0: the box walk); each row-form
case both ran is a cell, its key the row's bytes (the reduced innermost extent times the element
size).
tma-rows: runs with the permute_tile row and the permute_tma row, or the auto row where auto ran
permute_tma (its rule before took it for every row of 64 bytes or more); each row-form case that
permute_tile ran through its rows kernels and permute_tma ran is a cell, its key the row's bytes.
tile-fill: pairs of runs of the same cases, permute_tile under
TMAKIT_POLICY=permute_tile_min_fill_pct=0 (the 2-D tile wherever both tile dimensions are whole runs)
and under the default (the box walk below 90%); each tile-form case of rank 5 or less whose tiles
are less than 90% full is a cell, its key that fill in percent (both tile dimensions' fill of
32-element tiles, as permute_tile_prefers_box computes it).
transpose-matrix: the transpose rule's cells and runs where both sides reach --sides; a cell's key
is its matrix in bytes where permute_tile runs its box walk (explain, by the CLI), else no bound
(the transposes at every T). Runs of `--permute-min-matrix-bytes=LO --permute-max-matrix-bytes=HI`
(tiles whose matrix is LO-HI bytes, bench/bench_transpose.cpp) give cells of this kind alone.
transpose-form: runs with the auto and permute_tile rows (`tmakit permute-cases --explain-has
"reduces to transpose" --filter auto,permute_tile,memcpy` lists such cases; add --walk box-... for
the cases permute_tile walks in boxes); each case whose auto label names the transpose() it ran is a
cell, its key the transpose's dst row in bytes.
transpose-fill: the transpose rule's cells and runs; a cell's key is its fill in percent where both
tile sides reach --current's threshold for its element size, else -1 (never the transposes).
words-block: pairs of runs of the same cases, permute_tile under
TMAKIT_POLICY=permute_box_words_small_block_max_bytes=0 (blocks of 256) and under the default; each
case whose walk `tmakit permute --explain` (--cli) puts in blocks of 128 under the default is a
cell, its key the element size (one T for every size: the policy is one field).
box-smem: pairs of runs of the same cases, permute_tile with every box under the 48 KB
(TMAKIT_POLICY=permute_box_max_smem_bytes=48896) and with every box the larger bound grows
(permute_box_max_smem_bytes=98304 on a build before box_past_static_smem); each case whose 48 KB box
`tmakit permute --explain` (--cli, under the 48 KB) walks pipelined through registers is a cell, its
key the element size (one T for every size: a constant); the other cases are the class every T
grows, their geometric mean printed beside.
A rule takes the first technique where the key is at least T. Fitted on the training cells by
the geometric mean of the picked technique's GB/s over the faster one's: one T for every element
size, and one T per element size (the middle of the best thresholds' range; the policy line to
set it is printed). Both are then judged on the held-out cells, whose worst picks are listed. The
held-out runs must not have been seen while choosing T. --current T1,T2,T4,T8,T16 (or one T for
every size): the policy as it ships, judged on the same training and held-out cells, so a refit
is weighed against it and not only against "never".
"""
import argparse
import json
import lzma
import math
import os
import re
import statistics
import subprocess

THRESHOLDS = {
    "transpose": [32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 256, 320, 384],
    "wide": [32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 256, 320, 384, 512, 768,
             1024, 1 << 20],
    "rows": [16, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 256, 384, 512],
    "tma-rows": [64, 96, 128, 160, 192, 224, 256, 288, 320, 384, 448, 512, 640, 768, 1024, 2048],
    "tile-fill": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90],
    "transpose-fill": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90],
    "transpose-form": [0, 16, 32, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512, 1024],
    "words-block": [1, 2, 4],
    "box-smem": [1, 2, 4, 8, 16, 32],
    "transpose-matrix": [0, 4096, 6144, 8192, 10240, 12288, 16384, 20480, 24576, 32768, 40960,
                         49152, 65536, 98304, 131072, 262144, 1 << 30],
}
WHAT = {  # the technique at or above T, the one below, the key, the policy field
    "transpose": ("permute_transpose", "permute_tile / permute_tma", "shorter side",
                  "permute_transpose_min_side_bytes"),
    "rows": ("rows kernels", "box walk", "row", "permute_rows_min_bytes"),
    "tma-rows": ("permute_tma", "permute_tile", "row", "permute_tma_min_row_bytes"),
    "tile-fill": ("2-D tile", "box walk", "fill", "permute_tile_min_fill_pct"),
    "transpose-fill": ("permute_transpose", "permute_tile / permute_tma", "fill", None),
    "transpose-form": ("transpose()", "permute_tile", "dst row", None),
    "words-block": ("blocks of 256", "blocks of 128", "element",
                    "permute_box_words_small_block_max_bytes"),
    "box-smem": ("the 48 KB box", "the larger box", "element", None),
    "wide": ("permute_transpose", "box walk", "shorter side",
             "permute_wide_transpose_min_side_bytes"),
    "transpose-matrix": ("permute_transpose", "box walk", "matrix",
                         "permute_transpose_min_matrix_bytes"),
}
SIZES = [1, 2, 4, 8, 16]


def load(path):
    with (lzma.open(path, "rt") if path.endswith(".xz") else open(path)) as f:
        return json.load(f)


def split_launches(red, rperm):
    """The launches permute_transpose splits a reduction of rank 6-8 into (split_permutation,
    host/permute/reduce.cpp): src's and dst's contiguous dimensions and the largest others kept,
    five in all; one launch for each index of the rest."""
    keep = {len(red) - 1, rperm[-1]}
    for k in sorted(range(len(red)), key=lambda k: -red[k]):  # stable: ties in src order
        if len(keep) < 5:
            keep.add(k)
    return math.prod(n for k, n in enumerate(red) if k not in keep)


def tile_fill_pct(a, b):
    """Two tile dimensions' fill of 32-element tiles in percent (permute_tile_prefers_box)."""
    return 100 * a / (-(-a // 32) * 32) * b / (-(-b // 32) * 32)


def tile_cases(paths):
    """(e, ext, perm, red, rperm, med) for each tile-form case of the runs that permute_transpose
    and permute_tile or permute_tma ran: its reduction's extents and perm from the label."""
    for path in paths:
        for (e, label, ext, perm), (med, labels) in medians(path).items():
            tile = next((t for t in labels.values() if "tile: extents" in t), "")
            m = re.search(r"tile: extents \(([^)]*)\) perm \(([^)]*)\)", tile)
            other = max(med.get("permute_tile", 0), med.get("permute_tma", 0))
            if not m or "permute_transpose" not in med or other == 0:
                continue
            yield (e, ext, perm, [int(x) for x in m.group(1).split(",")],
                   [int(x) for x in m.group(2).split(",")], med)


def cell_name(e, ext, perm):
    return f"{ext.replace('x', ',')} ({perm.replace('.', ',')}) {e[1:]} B"


def other_gbps(med):
    return max(med.get("permute_tile", 0), med.get("permute_tma", 0))


def transpose_cells(paths, wide=False, sides=None):
    """[(shorter side bytes, transpose GB/s, other GB/s, name)] over the runs: rank 5 or less, or
    (wide) rank 6-8 in at most 8 launches. sides ({element bytes: threshold}): the key is instead
    the two tile sides' fill of 32-element tiles in percent where the shorter side reaches the
    threshold, else -1."""
    out = []
    for e, ext, perm, red, rperm, med in tile_cases(paths):
        if (len(red) > 5) != wide or (wide and split_launches(red, rperm) > 8):
            continue
        side = min(red[-1], red[rperm[-1]]) * int(e[1:])
        if sides is not None:
            fill = tile_fill_pct(red[-1], red[rperm[-1]])
            side = fill if side >= sides[int(e[1:])] else -1
        out.append((side, med["permute_transpose"], other_gbps(med), cell_name(e, ext, perm)))
    return out


def explain(cli, e, ext, perm, policy=""):
    """`tmakit permute --explain` of a case under the default policy with `policy`'s overrides."""
    return subprocess.run(
        [cli, "permute", "--shape", ext.replace("x", ","), "--perm", perm.replace(".", ","),
         "--elem-bytes", e[1:], "--explain"], capture_output=True, text=True,
        stdin=subprocess.DEVNULL, env=dict(os.environ, TMAKIT_POLICY=policy)).stdout


def matrix_cells(paths, sides, cli):
    """[(matrix bytes, transpose GB/s, other GB/s, name)]: transpose_cells' cases of rank 5 or less
    whose sides reach `sides` ({element bytes: threshold}), keyed by the matrix's bytes where
    permute_tile runs its box walk, else by infinity (the rule never takes the box walk there)."""
    out, box = [], {}
    for e, ext, perm, red, rperm, med in tile_cases(paths):
        eb = int(e[1:])
        if len(red) > 5 or min(red[-1], red[rperm[-1]]) * eb < sides[eb]:
            continue
        if (e, ext, perm) not in box:
            box[(e, ext, perm)] = "\nbox walk (permute_tile" in explain(cli, e, ext, perm)
        key = red[-1] * red[rperm[-1]] * eb if box[(e, ext, perm)] else math.inf
        out.append((key, med["permute_transpose"], other_gbps(med), cell_name(e, ext, perm)))
    return out


def medians(path):
    """{(e, case, extents, perm): ({who: median GB/s}, {who: label})} of a run."""
    gbps, labels = {}, {}
    for b in load(path)["benchmarks"]:
        name = b.get("run_name", b["name"]).split("/iterations:")[0]
        parts = name.split("/")
        if len(parts) != 6 or parts[0] != "permute":
            continue
        key, who = tuple(parts[1:5]), parts[5]
        if b.get("label"):
            labels.setdefault(key, {}).setdefault(who, b["label"])
        if b.get("error_occurred") or b.get("skipped") or "GBps" not in b:
            continue
        g = b["GBps"] / 1e9 if b["GBps"] > 1e6 else b["GBps"]
        gbps.setdefault(key, {}).setdefault(who, []).append(g)
    return {k: ({w: statistics.median(v) for w, v in g.items()}, labels.get(k, {}))
            for k, g in gbps.items()}


def transpose_form_cells(paths):
    """[(dst row bytes, transpose()'s GB/s, permute_tile's GB/s, name)] over the runs: the cases
    that `auto` ran as a transpose (its label: "transpose() of R x C[, batch B], E-byte
    elements") and `permute_tile` ran too; dst rows hold R elements of E bytes."""
    out = []
    for path in paths:
        for (e, label, ext, perm), (med, labels) in medians(path).items():
            m = re.search(r"transpose\(\) of (\d+) x \d+(?:, batch \d+)?, (\d+)-byte",
                          labels.get("auto", ""))
            if not m or "auto" not in med or "permute_tile" not in med:
                continue
            out.append((int(m.group(1)) * int(m.group(2)), med["auto"], med["permute_tile"],
                        cell_name(e, ext, perm)))
    return out


def rows_cells(pairs):
    """[(row bytes, rows kernels' GB/s, box walk's GB/s, name)] over ROWS.json,BOX.json pairs."""
    out = []
    for pair in pairs:
        rows_path, box_path = pair.split(",")
        rows, box = medians(rows_path), medians(box_path)
        for (e, label, ext, perm), (med, labels) in rows.items():
            m = re.search(r"rows: extents \(([^)]*)\)", labels.get("permute_tile", ""))
            other = box.get((e, label, ext, perm), ({}, {}))[0].get("permute_tile", 0)
            if not m or "permute_tile" not in med or other == 0:
                continue
            row = int(m.group(1).split(",")[-1]) * int(e[1:])
            out.append((row, med["permute_tile"], other,
                        f"{ext.replace('x', ',')} ({perm.replace('.', ',')}) {e[1:]} B"))
    return out


def tma_rows_cells(paths):
    """[(row bytes, permute_tma's GB/s, permute_tile's GB/s, name)] over the runs."""
    out = []
    for path in paths:
        for (e, label, ext, perm), (med, labels) in medians(path).items():
            tile_label = labels.get("permute_tile", "")
            m = re.search(r"rows: extents \(([^)]*)\)", tile_label)
            if not m or "permute_tile" not in med:
                continue
            tma = med.get("permute_tma", 0)
            if tma == 0 and "ran permute_tma" in labels.get("auto", ""):
                tma = med.get("auto", 0)
            if tma == 0:
                continue
            row = int(m.group(1).split(",")[-1]) * int(e[1:])
            out.append((row, tma, med["permute_tile"],
                        f"{ext.replace('x', ',')} ({perm.replace('.', ',')}) {e[1:]} B"))
    return out


def tile_fill_cells(pairs):
    """[(fill percent, 2-D tile's GB/s, box walk's GB/s, name)] over TILE.json,BOX.json pairs:
    the tile-form cases whose 32 x 32 tiles are under 90% full and whose tile dimensions are both
    whole runs (box_run_elems: 32 elements, 128 bytes from 8-byte elements on)."""
    out = []
    for pair in pairs:
        tile_path, box_path = pair.split(",")
        tile, box = medians(tile_path), medians(box_path)
        for (e, label, ext, perm), (med, labels) in tile.items():
            m = re.search(r"tile: extents \(([^)]*)\) perm \(([^)]*)\)",
                          labels.get("permute_tile", ""))
            other = box.get((e, label, ext, perm), ({}, {}))[0].get("permute_tile", 0)
            if not m or "permute_tile" not in med or other == 0:
                continue
            red = [int(x) for x in m.group(1).split(",")]
            rperm = [int(x) for x in m.group(2).split(",")]
            eb = int(e[1:])
            run = 32 if eb < 8 else 128 // eb
            cols, rows = red[-1], red[rperm[-1]]
            fill = tile_fill_pct(cols, rows)
            if len(red) > 5 or cols < run or rows < run or fill >= 90:
                continue
            out.append((fill, med["permute_tile"], other,
                        f"{ext.replace('x', ',')} ({perm.replace('.', ',')}) {e[1:]} B"))
    return out


def paired_tile_runs(pairs):
    """(e, ext, perm, first GB/s, second GB/s) of `permute_tile` over FIRST.json,SECOND.json pairs
    of runs of the same cases, where both ran it."""
    for pair in pairs:
        first_path, second_path = pair.split(",")
        first, second = medians(first_path), medians(second_path)
        for (e, label, ext, perm), (med, _) in first.items():
            other = second.get((e, label, ext, perm), ({}, {}))[0].get("permute_tile", 0)
            if "permute_tile" in med and other != 0:
                yield e, ext, perm, med["permute_tile"], other


def words_block_cells(pairs, cli):
    """[(element bytes, blocks of 256's GB/s, blocks of 128's GB/s, name)] over BIG.json,SMALL.json
    pairs: the cases whose word walk the default puts in blocks of 128 (explain, by the CLI, with
    the boxes of the 48 KB its runs were made with)."""
    out, small = [], {}
    for e, ext, perm, big, other in paired_tile_runs(pairs):
        if int(e[1:]) > 2:
            continue
        if (e, ext, perm) not in small:
            small[(e, ext, perm)] = "blocks of 128 threads" in explain(
                cli, e, ext, perm, "permute_box_max_smem_bytes=48896")
        if small[(e, ext, perm)]:
            out.append((int(e[1:]), big, other, cell_name(e, ext, perm)))
    return out


def box_smem_cells(pairs, cli):
    """[(element bytes, the 48 KB box's GB/s, the larger box's GB/s, name)] over
    STATIC.json,LARGE.json pairs: the cases whose 48 KB box walks pipelined through registers; and
    the larger over the 48 KB box's GB/s of the others."""
    out, others, pipelined = [], [], {}
    for e, ext, perm, static, large in paired_tile_runs(pairs):
        if (e, ext, perm) not in pipelined:
            pipelined[(e, ext, perm)] = "the next box's loads in flight (registers)" in explain(
                cli, e, ext, perm, "permute_box_max_smem_bytes=48896")
        if pipelined[(e, ext, perm)]:
            out.append((int(e[1:]), static, large, cell_name(e, ext, perm)))
        else:
            others.append(large / static)
    if others:
        gm = math.exp(sum(math.log(r) for r in others) / len(others))
        print(f"  (the other {len(others)} cases, the larger box always: {gm:.3f} of the 48 KB "
              f"box's GB/s, {sum(r < 0.96 for r in others)} slower by 4% or more)")
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


def fit_one(cs, thresholds):
    """The threshold of the best geometric mean: the middle one of those that tie."""
    scores = [(round(judge(cs, t)[0], 6), t) for t in thresholds]
    top = max(g for g, _ in scores)
    best = [t for g, t in scores if g == top]
    return best[len(best) // 2], top


def report_held(held, t, label, what):
    above, below, key, _ = what
    gm, right, picks = judge(held, t)
    print(f"held out, {label}: picked / faster {gm:.3f}, right {right} of {len(held)}")
    for r, side, tr, other, name in picks[:6]:
        if r < 1.0:
            at = "a side under its threshold" if side < 0 else \
                f"{key} {side:.0f}{'%' if key == 'fill' else ' B'}"
            print(f"  {r:.2f}  {name}: {at}, {above} "
                  f"{tr:.0f} GB/s, {below} {other:.0f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rule", choices=sorted(WHAT), default="transpose")
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--judge", nargs="*", default=[])
    ap.add_argument("--cli", default="build/tmakit", help="tmakit, for words-block's explain")
    ap.add_argument("--sides", default="80,96,112,192,224",
                    help="transpose-matrix: the side thresholds (1,2,4,8,16 B) it adds a matrix to")
    ap.add_argument("--current", default="",
                    help="the shipped thresholds: one per element size (1,2,4,8,16 B), "
                         "comma-separated, or one for every size")
    args = ap.parse_args()
    current, current_label, sides = None, args.current, None
    if args.rule == "transpose-fill" and not args.current:
        ap.error("--rule transpose-fill needs --current: the side thresholds it adds a fill to")
    if args.current:
        try:
            vals = [int(v) for v in args.current.split(",")]
        except ValueError:
            ap.error(f"--current takes integers, comma-separated, not '{args.current}'")
        if len(vals) not in (1, len(SIZES)):
            ap.error(f"--current takes one threshold or {len(SIZES)} (1, 2, 4, 8, 16 B), "
                     f"not {len(vals)}")
        current = vals[0] if len(vals) == 1 else dict(zip(SIZES, vals))
    what, thresholds = WHAT[args.rule], THRESHOLDS[args.rule]
    if args.rule == "transpose-fill":  # the sides as shipped; the shipped fill is none (0%)
        sides = current if isinstance(current, dict) else {e: current for e in SIZES}
        current, current_label = 0, "0%, the sides of --current"
    cells = {"transpose": transpose_cells,
             "transpose-fill": lambda paths: transpose_cells(paths, sides=sides),
             "rows": rows_cells, "tma-rows": tma_rows_cells, "tile-fill": tile_fill_cells,
             "transpose-form": transpose_form_cells,
             "words-block": lambda pairs: words_block_cells(pairs, args.cli),
             "box-smem": lambda pairs: box_smem_cells(pairs, args.cli),
             "transpose-matrix": lambda paths: matrix_cells(
                 paths, dict(zip(SIZES, (int(v) for v in args.sides.split(",")))), args.cli),
             "wide": lambda paths: transpose_cells(paths, wide=True)}[args.rule]
    unit = "%" if args.rule in ("tile-fill", "transpose-fill") else " B"
    # one value for every size: no per-size fit
    one_field = args.rule in ("words-block", "transpose-fill", "box-smem")
    train = cells(args.train)
    print(f"training: {len(train)} cells ({what[0]} at or above T, else {what[1]})")
    for t in thresholds:
        gm, right, picks = judge(train, t)
        print(f"  T {t:4d}{unit}: picked / faster {gm:.3f} (geometric mean), right {right} of "
              f"{len(train)}, worst {picks[0][0]:.2f}")
    one, _ = fit_one(train, thresholds)
    print(f"fit, one threshold: T = {one}{unit}")
    if current is not None:
        gm, right, _ = judge(train, current)
        print(f"current ({current_label}): picked / faster {gm:.3f}, right {right} of {len(train)}")
    if one_field:
        if args.rule == "box-smem":
            print(f"constant: kBoxPastStaticSmemKeepsPipelinedMinBytes = {one}")
        elif what[3] is None:
            print("policy: none (a candidate rule; no field holds it)")
        else:
            print(f"policy: {what[3]}={one // 2}")
        if args.judge:
            held = cells(args.judge)
            print(f"held out: {len(held)} cells")
            report_held(held, one, f"T = {one}", what)
            if current is not None:
                report_held(held, current, f"current ({current_label})", what)
            for t in thresholds:
                gm, right, _ = judge(held, t)
                print(f"  T {t:4d}{unit}: picked / faster {gm:.3f}, right {right} of {len(held)}")
        return
    per = {}
    for e in SIZES:
        cs = [c for c in train if size_of(c) == e]
        per[e], gm = fit_one(cs, thresholds) if cs else (one, 1.0)
        print(f"  {e:2d} B: {len(cs):3d} cells, T = {per[e]}{unit} (picked / faster {gm:.3f})")
    gm, right, _ = judge(train, per)
    print(f"fit, per element size: picked / faster {gm:.3f}, right {right} of {len(train)}")
    print("policy: none (a candidate rule; no field holds it)" if what[3] is None else
          "policy: " + ",".join(f"{what[3]}_e{e}={per[e]}" for e in SIZES))
    if args.judge:
        held = cells(args.judge)
        never = math.exp(sum(math.log(o / max(tr, o)) for _, tr, o, _ in held) / len(held))
        print(f"held out: {len(held)} cells (never {what[0]}: {never:.3f})")
        report_held(held, one, f"T = {one}", what)
        report_held(held, per, "per element size", what)
        if current is not None:
            report_held(held, current, f"current ({current_label})", what)
        for e in SIZES:  # where the per-size fit and the shipped thresholds part, size by size
            cs = [c for c in held if size_of(c) == e]
            if cs:
                gm, right, _ = judge(cs, per)
                line = f"  held out {e:2d} B: {len(cs):3d} cells, fit {gm:.3f} ({right} right)"
                if current is not None:
                    gm, right, _ = judge(cs, current)
                    line += f", current {gm:.3f} ({right} right)"
                print(line)


if __name__ == "__main__":
    main()
