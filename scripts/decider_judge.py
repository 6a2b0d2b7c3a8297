#!/usr/bin/env python3
"""Judges the one decider on held-out survey runs (scripts/decider_data.sh's
survey-heldout-GPU.json): per cell, the time of the fastest technique over the time of the
technique picked, for
  ran        what `auto` ran in that run (its heuristic_ratio counter: the decider of the binary
             that made the run);
  ranking    the first technique of the ranking, now, that ran in the cell (what a plan runs:
             the first that can run the call), from `tmakit rank --cells` (--cli, the C++
             decider) or from a table through scripts/tuning_table.py's mirror (--table);
  measured   the measure plan of that run (its measure_ratio), when it made one.
Prints the distribution (within 1% and 3%, below 0.90, the worst, percentiles) and the worst
cells of each; --md prints the tables docs/plans.md holds.

usage: scripts/decider_judge.py RUN.json[.xz] [--cli build/tmakit | --table TABLE.inc]
                                [--gpu h100|h200] [--worst N] [--md]
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import tuning_table  # noqa: E402


def cells_of(path):
    """[(key, {token: us}, row)] of a survey run's transpose cells (a run stopped at its time
    limit gives the cells it finished)."""
    run = tuning_table.load(path)
    out = []
    for b in run["benchmarks"]:
        p = b["name"].split("/")
        if p[0] != "plan_survey" or b.get("error_occurred"):
            continue
        key = (int(p[1][1:]),) + tuning_table.shape_of(p[3])
        times = {k[2:]: v for k, v in b.items() if k.startswith("t_") and v > 0}
        out.append((key, times, b))
    return run["context"], out


def rankings(keys, cli, table, gpu):
    if cli:
        text = "".join(f"transpose {e} {b} {r} {c}\n" for e, b, r, c in keys)
        res = subprocess.run([cli, "rank", "--cells", "-", "--gpu", gpu], input=text,
                             capture_output=True, text=True, check=True)
        return [line.split() for line in res.stdout.splitlines()]
    m, kinds = tuning_table.read_table(table)
    tokens, train = kinds["transpose"]
    ranker = tuning_table.Ranker(train, tokens)
    return [ranker.rank(m, k) for k in keys]


def stats(v):
    v = sorted(v)
    n = len(v)
    return dict(n=n, w1=sum(x >= 0.99 for x in v), w3=sum(x >= 0.97 for x in v),
                below90=sum(x < 0.90 for x in v), worst=v[0], p5=v[int(0.05 * n)],
                p10=v[int(0.10 * n)], median=v[n // 2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--cli")
    ap.add_argument("--table")
    ap.add_argument("--gpu")
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--md", action="store_true")
    a = ap.parse_args()
    ctx, cells = cells_of(a.run)
    gpu = a.gpu or ("h200" if "H200" in ctx.get("gpu", "") else "h100")
    cols = {"ran": [], "measured": []}
    picks = []
    if a.cli or a.table:
        ranks = rankings([k for k, _, _ in cells], a.cli, a.table, gpu)
        cols["ranking"] = []
        for (key, t, b), order in zip(cells, ranks):
            pick = next((x for x in order if x in t), None)
            best = min(t.values())
            cols["ranking"].append(best / t[pick] if pick else 0.0)
            picks.append(pick)
    for key, t, b in cells:
        cols["ran"].append(b.get("heuristic_ratio", 0.0))
        if "measure_ratio" in b:
            cols["measured"].append(b["measure_ratio"])
    print(f"{ctx.get('gpu')}, driver {ctx.get('driver_version')}, {ctx.get('date')}: "
          f"{len(cells)} held-out cells ({ctx.get('survey', '')})")
    hdr = "| pick | cells | within 1% | within 3% | below 0.90 | worst | 5th pct | 10th pct | median |"
    print(hdr if a.md else hdr.replace("|", " ").strip())
    if a.md:
        print("|---|---|---|---|---|---|---|---|---|")
    for name, v in cols.items():
        if not v:
            continue
        s = stats(v)
        line = (f"| {name} | {s['n']} | {s['w1']} ({100 * s['w1'] / s['n']:.1f}%) | "
                f"{s['w3']} ({100 * s['w3'] / s['n']:.1f}%) | {s['below90']} | {s['worst']:.3f} | "
                f"{s['p5']:.3f} | {s['p10']:.3f} | {s['median']:.3f} |")
        print(line if a.md else line.replace("|", " ").strip())
    name = "ranking" if "ranking" in cols else "ran"
    order = sorted(range(len(cells)), key=lambda i: cols[name][i])[:a.worst]
    print(f"\nworst cells ({name}):")
    if a.md:
        print("| cell | fastest | picked | ratio | best us |\n|---|---|---|---|---|")
    for i in order:
        key, t, b = cells[i]
        best = min(t, key=t.get)
        pick = picks[i] if picks else b.get("label", "").split("heuristic ")[-1].split(";")[0]
        cell = f"{key[0]} B {key[1]}x{key[2]}x{key[3]}"
        if a.md:
            print(f"| {cell} | {best} | {pick} | {cols[name][i]:.3f} | {t[best]:.1f} |")
        else:
            print(f"  {cols[name][i]:.3f}  {cell}: fastest {best} ({t[best]:.1f} us), picked {pick}")


if __name__ == "__main__":
    main()
