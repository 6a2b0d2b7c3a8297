#!/usr/bin/env python3
"""Issue 16's targets, read from final runs (bench/report.py's load and verdict):
  scripts/targets.py RUN.json... [--before OLD.json...]
per GPU: per class and element size, the lowest % of memcpy of tmakit's best and the worst ratio
to the best peer; k = 1 skinny cells; host overhead per call; cells where auto ran > 2% below
the best named technique; with --before, cells whose best % of memcpy fell > 1 point."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import report  # noqa: E402


def pct_best(cell):
    v = report.verdict(cell)
    return 100.0 * v["tmakit"][1] / v["memcpy"] if v["tmakit"][1] and v["memcpy"] else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--before", nargs="*", default=[])
    a = ap.parse_args()
    runs = report.load(a.runs)
    before = report.load(a.before) if a.before else {}
    for gpu, run in runs.items():
        print(f"# {gpu} ({run.ctx.get('date', '?')})")
        for cls in ("square", "odd", "skinny", "batched"):
            for e in (1, 2, 4, 8, 16):
                cells = [(s, c) for (k, s, ee), c in run.cells.items() if k == cls and ee == e]
                if not cells:
                    continue
                pcts = [(pct_best(c), s) for s, c in cells if pct_best(c) is not None]
                lo = min(pcts) if pcts else (float("nan"), "-")
                ratios = [(report.verdict(c)["ratio"], s) for s, c in cells
                          if report.verdict(c)["ratio"] is not None]
                worst = min(ratios) if ratios else (None, "-")
                print(f"{cls:8s} {e:2d} B  lowest {lo[0]:6.1f}% ({lo[1]})  worst ratio "
                      f"{worst[0] if worst[0] is None else round(worst[0], 3)} ({worst[1]})")
        print("k = 1:", ", ".join(
            f"{s} {e} B {pct_best(c):.1f}%" for (k, s, e), c in run.cells.items()
            if k == "skinny" and ("1x" in s[:2] or s.endswith("x1")) and pct_best(c)))
        ov = [(t, us) for t, (us, _) in run.overhead.items() if us is not None]
        if ov:
            print("host overhead us/call: min %.2f max %.2f, <= 5 us: %d of %d; %s" % (
                min(u for _, u in ov), max(u for _, u in ov), sum(u <= 5 for _, u in ov), len(ov),
                ", ".join(f"{t} {u:.2f}" for t, u in ov if t in ("auto", "copy", "tma_pipeline"))))
        for (k, s, e), cell in run.cells.items():
            v = report.verdict(cell)
            if k == "accumulate" or v["auto"][1] is None or v["tmakit"][1] is None:
                continue
            if v["auto"][1] < 0.98 * v["tmakit"][1]:
                print(f"auto miss: {k} {s} {e} B auto {v['auto'][0]} {v['auto'][1]:.0f} vs "
                      f"{v['tmakit'][0]} {v['tmakit'][1]:.0f} ({100 * (1 - v['auto'][1] / v['tmakit'][1]):.1f}%)")
        if gpu in before:
            for key, cell in run.cells.items():
                old = before[gpu].cells.get(key)
                if old is None or key[0] == "accumulate":
                    continue
                p, q = pct_best(cell), pct_best(old)
                if p is not None and q is not None and p < q - 1.0:
                    print(f"fell: {key[0]} {key[1]} {key[2]} B {q:.1f} -> {p:.1f}")


if __name__ == "__main__":
    main()
