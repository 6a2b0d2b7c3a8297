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
    # A survey run with --survey-plans=0 (scripts/decider_data.sh's training runs) has no
    # measure plan: its "measure" list is empty.
    keys = [k for k in ("measure", "heuristic") if ok and all(k + "_ratio" in b for b in ok)]
    for key in ("measure", "heuristic"):
        out[key] = [b[key + "_ratio"] for b in ok] if key in keys else []
    out["tune_ms"] = [b["tune_ms"] for b in ok if "tune_ms" in b]
    out["classes"] = collections.Counter(b["name"].split("/")[2] for b in ok)
    out["elems"] = collections.Counter(b["name"].split("/")[1] for b in ok)
    out["worst"] = {k: min(ok, key=lambda b: b[k + "_ratio"]) for k in keys}
    return out


def host_cost(run):
    out = {}
    for b in run["benchmarks"]:
        if b["name"].startswith("plan_host/") and not b.get("error_occurred") and "bare_us" in b:
            out[b["name"].split("/")[1]] = b
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        run = load(path)
        ctx = run["context"]
        s = survey(run)
        n = len(s["heuristic"])
        print(f"### {ctx.get('gpu')} (driver {ctx.get('driver_version')}, {ctx.get('date')}, "
              f"{ctx.get('survey', '')})\n")
        if n > 12:
            survey_tables(path, s, n)
        elif n:
            cell_table(run)
        host_table(run)


def cell_table(run):
    """A few named cells (--survey-cells): one row each."""
    print("| cell | best technique (us) | measure plan | ratio | heuristic plan | ratio | tune ms |")
    print("|---|---|---|---|---|---|---|")
    for b in run["benchmarks"]:
        if not b["name"].startswith("plan_survey/") or b.get("error_occurred"):
            continue
        label = dict(part.split(" ", 1) for part in b["label"].split("; "))
        cell = "/".join(b["name"].split("/")[1:4])
        print(f"| {cell} | {label['best']} ({b['best_us']:.1f}) | {label['measure']} | "
              f"{b['measure_ratio']:.3f} | {label['heuristic']} | {b['heuristic_ratio']:.3f} | "
              f"{b['tune_ms']:.1f} |")
    print()


def survey_tables(path, s, n):
    if True:
        print(f"Data: `{path}`. Cells: {n} verified ({s['errors']} errors); classes "
              + ", ".join(f"{k} {v}" for k, v in sorted(s['classes'].items())) + "; sizes "
              + ", ".join(f"{k[1:]} B {v}" for k, v in sorted(s['elems'].items(), key=lambda x: int(x[0][1:]))) + ".\n")
        print("| pick | within 1% | within 2% | within 3% | 5th pct | median | worst (cell) |")
        print("|---|---|---|---|---|---|---|")
        for key, name in (("measure", "Tuning::kMeasure"), ("heuristic", "Tuning::kHeuristic")):
            r = s[key]
            if not r:
                continue
            w = s["worst"][key]
            cell = "/".join(w["name"].split("/")[1:4])
            print(f"| {name} | {sum(x >= 0.99 for x in r)} / {n} | {sum(x >= 0.98 for x in r)} / {n} "
                  f"| {sum(x >= 0.97 for x in r)} / {n} | {pct(r, 0.05):.3f} | {statistics.median(r):.3f} "
                  f"| {min(r):.3f} ({cell}: {w['label']}) |")
        t = s["tune_ms"]
        if t:
            print(f"\nTime to tune one problem (make_plan with Tuning::kMeasure, scratch-free: on the "
                  f"cell's operands): median {statistics.median(t):.1f} ms, 95th percentile "
                  f"{pct(t, 0.95):.1f} ms, worst {max(t):.1f} ms.\n")


def host_table(run):
    hc = host_cost(run)
    if not hc:
        return
    print("Host microseconds per call, 64 x 64 fp32 (plan_host rows: the four forms interleaved, "
          "60 x 100 calls each, medians); the bare launch is the registry's launcher with the "
          "plan's prepared arguments.\n")
    print("| technique | bare launch | Plan::run | above bare | Plan::run, two operand pairs | "
          "above bare | transpose() | above bare |")
    print("|---|---|---|---|---|---|---|---|")
    for tok, b in sorted(hc.items()):
        print(f"| {tok} | {b['bare_us']:.2f} | {b['plan_us']:.2f} | {b['plan_above_bare_us']:+.2f} "
              f"| {b['plan_swap_us']:.2f} | {b['plan_swap_above_bare_us']:+.2f} "
              f"| {b['transpose_us']:.2f} | {b['transpose_above_bare_us']:+.2f} |")
    above = [b["plan_above_bare_us"] for b in hc.values()]
    swap = [b["plan_swap_above_bare_us"] for b in hc.values()]
    print(f"\nPlan::run above the bare launch: median {statistics.median(above):+.2f} us, most "
          f"{max(above):+.2f} us; with two operand pairs median {statistics.median(swap):+.2f}, most "
          f"{max(swap):+.2f} ({len(above)} techniques).\n")


if __name__ == "__main__":
    main()
