#!/usr/bin/env python3
"""Turn tmakit_bench --benchmark_out JSON into docs/results.md and PNG charts.

usage: bench/report.py BENCH.json [--md docs/results.md] [--img docs/img] [--command "..."]

Tables: technique x shape, GB/s and percent of the best copy, per element size, with the GPU,
driver and date from the benchmark context. Charts: GB/s per technique per shape, the best copy
drawn as a line over each shape group. Uses the median aggregate of the repetitions.
"""
import argparse
import json
import os
import sys
from collections import OrderedDict

COPIES = ("memcpy", "copy", "tma_copy")


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = OrderedDict()  # (elem, shape) -> OrderedDict(technique -> (gbps, pct or None, error))
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        parts = name.split("/")[:3]  # <technique>/e<bytes>/<rows>x<cols>[/iterations:..]
        if len(parts) != 3 or not parts[1].startswith("e"):
            continue
        tech, elem, shape = parts[0], int(parts[1][1:]), parts[2]
        aggregate = b.get("aggregate_name")
        skipped = b.get("error_occurred") or b.get("skipped")
        if aggregate not in (None, "median"):
            continue
        if aggregate is None and not skipped:
            continue  # per-repetition rows: the median aggregate stands for them
        cell = rows.setdefault((elem, shape), OrderedDict())
        if skipped:
            cell.setdefault(tech, (None, None, b.get("error_message") or b.get("skip_message") or "skipped"))
        else:
            cell[tech] = (b.get("GBps", 0) / 1e9 if b.get("GBps", 0) > 1e6 else b.get("GBps", 0), b.get("pct_of_copy"), None)
    return data.get("context", {}), rows


def shape_key(s):
    r, c = s.split("x")
    return int(r) * int(c), int(r)


def write_md(ctx, rows, md_path, img_rel, command):
    elems = sorted({e for e, _ in rows})
    lines = ["# Benchmark results", ""]
    lines.append("GPU: %s (compute capability %s, %s SMs, SM clock %s MHz, memory clock %s MHz), driver %s, CUDA runtime %s, %s. Preset `%s`." % (
        ctx.get("gpu", "?"), ctx.get("compute_capability", "?"), ctx.get("sm_count", "?"), ctx.get("sm_clock_mhz", "?"),
        ctx.get("mem_clock_mhz", "?"), ctx.get("driver_version", "?"), ctx.get("runtime_version", "?"), ctx.get("date", "?"),
        ctx.get("preset", "?")))
    lines.append("")
    if command:
        lines += ["Command: `%s`" % command, ""]
    lines.append("Each cell: GB/s (decimal, bytes read + written) and, in parentheses, percent of the best copy "
                 "(the fastest repetition of cudaMemcpyAsync D2D, `copy` and `tma_copy` measured in the same process for "
                 "the same shape and element size, so a copy's own median is a little under 100%). Median of the repetitions; CUDA events around the launch only; L2 flushed "
                 "before every timed launch; every result verified against the CPU reference before timing.")
    lines.append("")
    for e in elems:
        shapes = sorted({s for ee, s in rows if ee == e}, key=shape_key)
        techs = []
        for s in shapes:
            for t in rows[(e, s)]:
                if t not in techs:
                    techs.append(t)
        lines.append("## %d-byte elements" % e)
        lines.append("")
        lines.append("| technique | " + " | ".join(shapes) + " |")
        lines.append("|---|" + "---|" * len(shapes))
        for t in techs:
            cells = []
            for s in shapes:
                v = rows[(e, s)].get(t)
                if v is None:
                    cells.append("")
                elif v[0] is None:
                    cells.append("skipped")
                else:
                    pct = "" if v[1] is None else " (%.1f%%)" % v[1]
                    cells.append("%.0f%s" % (v[0], pct))
            lines.append("| `%s` | %s |" % (t, " | ".join(cells)))
        lines.append("")
        if img_rel:
            lines.append("![GB/s, %d-byte elements](%s/results_e%d.png)" % (e, img_rel, e))
            lines.append("")
    with open(md_path, "w") as f:
        f.write("\n".join(lines))


def write_charts(rows, img_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(img_dir, exist_ok=True)
    for e in sorted({e for e, _ in rows}):
        shapes = sorted({s for ee, s in rows if ee == e}, key=shape_key)
        techs = []
        for s in shapes:
            for t, v in rows[(e, s)].items():
                if t not in techs and t not in COPIES and v[0] is not None:
                    techs.append(t)
        fig, ax = plt.subplots(figsize=(max(9, 1.8 * len(shapes) * max(1, len(techs)) / 6 + 2), 5))
        width = 0.8 / max(1, len(techs))
        for i, t in enumerate(techs):
            xs, ys = [], []
            for k, s in enumerate(shapes):
                v = rows[(e, s)].get(t)
                if v and v[0] is not None:
                    xs.append(k - 0.4 + width * (i + 0.5))
                    ys.append(v[0])
            ax.bar(xs, ys, width, label=t)
        for k, s in enumerate(shapes):
            best = max([v[0] for t, v in rows[(e, s)].items() if t in COPIES and v[0] is not None] or [0])
            if best:
                ax.hlines(best, k - 0.45, k + 0.45, colors="black", linestyles="--", label="best copy" if k == 0 else None)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes)
        ax.set_ylabel("GB/s (read + write)")
        ax.set_title("Transpose bandwidth, %d-byte elements (dashed: best copy)" % e)
        ax.set_ylim(0, ax.get_ylim()[1] * 1.05)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        fig.tight_layout()
        fig.savefig(os.path.join(img_dir, "results_e%d.png" % e), dpi=110)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--md", default="docs/results.md")
    ap.add_argument("--img", default="docs/img")
    ap.add_argument("--command", default="")
    a = ap.parse_args()
    ctx, rows = load(a.json)
    if not rows:
        sys.exit("report.py: no benchmark rows in %s" % a.json)
    img_rel = os.path.relpath(a.img, os.path.dirname(os.path.abspath(a.md)) or ".") if a.img else ""
    write_md(ctx, rows, a.md, img_rel, a.command)
    if a.img:
        write_charts(rows, a.img)


if __name__ == "__main__":
    main()
