#!/usr/bin/env python3
"""Markdown tables of the plans' benchmark rows (bench/plan_rows.cpp) for docs/results.md: per
GPU, the random survey's distributions (a measure plan's and the heuristic's pick against the best
technique timed separately; the time to tune) and the host cost of running a made plan against
a bare launch of the same kernel.

usage: bench/plan_report.py RUN.json[.xz] [RUN.json[.xz] ...]   (tmakit_bench --preset=survey)
"""
import collections
import json
import lzma
import statistics
import sys


def load(path):
    with (lzma.open if path.endswith(".xz") else open)(path, "rt") as f:
        return json.load(f)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def survey(run):
    rows = [b for b in run["benchmarks"] if b["name"].startswith("plan_survey/")]
    ok = [b for b in rows if not b.get("error_occurred")]
    out = {"cells": len(rows), "errors": len(rows) - len(ok)}
    for key in ("measure", "heuristic"):
        r = [b[key + "_ratio"] for b in ok]
        out[key] = r
    out["tune_ms"] = [b["tune_ms"] for b in ok]
    out["classes"] = collections.Counter(b["name"].split("/")[2] for b in ok)
    out["elems"] = collections.Counter(b["name"].split("/")[1] for b in ok)
    out["worst"] = {k: min(ok, key=lambda b: b[k + "_ratio"]) for k in ("measure", "heuristic")}
    return out


def host_cost(run):
    agg = collections.defaultdict(list)
    for b in run["benchmarks"]:
        if b["name"].startswith("plan_host/") and b.get("run_type") == "iteration" and \
                not b.get("error_occurred"):
            p = b["name"].split("/")
            agg[(p[1], p[4])].append(b["us_per_call"])
    return {k: statistics.median(v) for k, v in agg.items()}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        run = load(path)
        ctx = run["context"]
        s = survey(run)
        n = len(s["measure"])
        print(f"### {ctx.get('gpu')} (driver {ctx.get('driver_version')}, {ctx.get('date')}, "
              f"{ctx.get('survey', '')})\n")
        print(f"Data: `{path}`. Cells: {n} verified ({s['errors']} errors); classes "
              + ", ".join(f"{k} {v}" for k, v in sorted(s['classes'].items())) + "; sizes "
              + ", ".join(f"{k[1:]} B {v}" for k, v in sorted(s['elems'].items(), key=lambda x: int(x[0][1:]))) + ".\n")
        print("| pick | within 1% | within 2% | within 3% | 5th pct | median | worst (cell) |")
        print("|---|---|---|---|---|---|---|")
        for key, name in (("measure", "Tuning::kMeasure"), ("heuristic", "Tuning::kHeuristic")):
            r = s[key]
            w = s["worst"][key]
            cell = "/".join(w["name"].split("/")[1:4])
            print(f"| {name} | {sum(x >= 0.99 for x in r)} / {n} | {sum(x >= 0.98 for x in r)} / {n} "
                  f"| {sum(x >= 0.97 for x in r)} / {n} | {pct(r, 0.05):.3f} | {statistics.median(r):.3f} "
                  f"| {min(r):.3f} ({cell}: {w['label']}) |")
        t = s["tune_ms"]
        print(f"\nTime to tune one problem (make_plan with Tuning::kMeasure, scratch-free: on the "
              f"cell's operands): median {statistics.median(t):.1f} ms, 95th percentile "
              f"{pct(t, 0.95):.1f} ms, worst {max(t):.1f} ms.\n")
        hc = host_cost(run)
        tokens = sorted({k[0] for k in hc})
        print("Host microseconds per call, 64 x 64 fp32, 100 calls per iteration, median of 3 "
              "(plan_host rows): the bare launch is the registry's launcher with the plan's "
              "prepared arguments.\n")
        print("| technique | bare launch | Plan::run | above bare | Plan::run, two operand pairs | above bare | transpose() |")
        print("|---|---|---|---|---|---|---|")
        for tok in tokens:
            g = lambda f: hc.get((tok, f))
            if g("bare") is None or g("plan") is None:
                continue
            print(f"| {tok} | {g('bare'):.2f} | {g('plan'):.2f} | {g('plan') - g('bare'):+.2f} | "
                  f"{g('plan_swap'):.2f} | {g('plan_swap') - g('bare'):+.2f} | {g('transpose'):.2f} |")
        print()


if __name__ == "__main__":
    main()
