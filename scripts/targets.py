#!/usr/bin/env python3
"""The transposes' performance targets, read from final runs (bench/report.py's load and verdict):
  scripts/targets.py RUN.json... [--before OLD.json...]
per GPU: per class and element size, the lowest % of memcpy of tmakit's best and the worst ratio
to the best peer; k = 1 skinny cells; host overhead per call; cells where auto ran > 2% below
the best named technique; with --before, cells whose best % of memcpy fell > 1 point; then one
line per target, met or UNMET, with the figure that decides it; an
unmet ratio also gives the ratio at memcpy's speed, memcpy / the best peer."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import report  # noqa: E402


def pct_best(cell):
    v = report.verdict(cell)
    return 100.0 * v["tmakit"][1] / v["memcpy"] if v["tmakit"][1] and v["memcpy"] else None


def class_stats(run, cls, e):
    """The lowest (% of memcpy, shape) of tmakit's best and the worst (ratio, shape) to the best
    peer over a class's shapes at element size e; None where there is none."""
    cells = [(s, c) for (k, s, ee), c in run.cells.items() if k == cls and ee == e]
    pcts = [(pct_best(c), s) for s, c in cells if pct_best(c) is not None]
    ratios = [(report.verdict(c)["ratio"], s) for s, c in cells
              if report.verdict(c)["ratio"] is not None]
    return (min(pcts) if pcts else None), (min(ratios) if ratios else None)


def class_targets():
    """(class, element size, floor % of memcpy or None, ratio to the best peer or None): the
    class targets (odd and skinny at 90% of memcpy and 1.05x the best peer, batched at 95%) and
    the large aligned squares' (1.00x the best peer), one per class and element size."""
    for cls, floor, need_ratio in (("odd", 90.0, 1.05), ("skinny", 90.0, 1.05),
                                   ("batched", 95.0, None), ("square", None, 1.00)):
        for e in (1, 2, 4, 8) + ((16,) if cls == "square" else ()):
            yield cls, e, floor, need_ratio


def copy_speed_bound(cell, need_ratio):
    """For an unmet ratio target's deciding cell: the ratio tmakit would reach at memcpy's speed
    (memcpy / the best peer), and whether even that falls short (the H100's skinny
    2-8 B cells, where the peers run at 95-97% of memcpy)."""
    v = report.verdict(cell)
    if not v["memcpy"] or not v["peer"][1]:
        return ""
    bound = v["memcpy"] / v["peer"][1]
    return f"; {bound:.3f} at memcpy speed" + (": short even there" if bound < need_ratio else "")


def verdicts(run):
    """(target, met, figure) for the performance targets 1-5 and the large aligned shapes."""
    out = []
    for cls, e, floor, need_ratio in class_targets():
        lo, worst = class_stats(run, cls, e)
        if lo is None:
            continue
        if floor is not None:
            out.append((f"{cls} {e} B >= {floor:.0f}% of memcpy", lo[0] >= floor,
                        f"{lo[0]:.1f}% ({lo[1]})"))
        if need_ratio is not None and worst is not None:
            met = worst[0] >= need_ratio
            out.append((f"{cls} {e} B >= {need_ratio:.2f}x the best peer", met,
                        f"{worst[0]:.3f} ({worst[1]})" +
                        ("" if met else copy_speed_bound(run.cells[(cls, worst[1], e)], need_ratio))))
    ones = [(pct_best(c), f"{s} {e} B") for (k, s, e), c in run.cells.items()
            if k == "skinny" and ("1x" in s[:2] or s.endswith("x1")) and pct_best(c)]
    if ones:  # "k = 1 is a copy and runs at copy speed": within 1 point of memcpy
        lo = min(ones)
        out.append(("skinny k = 1 at copy speed (>= 99% of memcpy)", lo[0] >= 99.0,
                    f"{lo[0]:.1f}% ({lo[1]})"))
    ov = [us for us, _ in run.overhead.values() if us is not None]
    if ov:
        out.append(("host overhead <= 5 us for every technique", max(ov) <= 5.0,
                    f"{sum(u <= 5 for u in ov)} of {len(ov)}, max {max(ov):.2f} us"))
    misses = same = 0
    for (k, s, e), cell in run.cells.items():
        v = report.verdict(cell)
        if k != "accumulate" and v["auto"][1] is not None and v["tmakit"][1] is not None:
            miss = v["auto"][1] < 0.98 * v["tmakit"][1]
            misses += miss
            same += miss and v["auto"][0] == v["tmakit"][0]  # auto ran the best technique itself
    out.append(("auto within 2% of every named technique", misses == 0,
                f"{misses} misses" + (f" ({same} where auto ran the best technique itself)" if same else "")))
    return out


# The kernel each technique token launches (ncu's -k), where it is not TOKEN_kernel.
KERNELS = {"smem": "smem_tile_kernel", "smem_padded": "smem_tile_kernel",
           "smem_xor": "smem_tile_kernel", "smem_wide": "smem_tile_kernel",
           "vec_padded": "vec_tile_kernel", "vec_swizzled": "vec_tile_kernel",
           "copy": "copy_", "leetgpu": "leetgpu_tiled_kernel",
           # techniques that hand calls they cannot take to another kernel (the
           # regex missed reg_permute's batch and smem_flat's square, which run the next ones)
           "smem_flat": "smem_flat_kernel|smem_strip_kernel",
           "reg_tile": "reg_tile_kernel|smem_flat_kernel|smem_strip_kernel",
           "reg_permute": "reg_permute_kernel|smem_flat_kernel|smem_strip_kernel"}


def ncu_cases(run):
    """For each UNMET kernel target: the cell that decides it, as lines 'label<TAB>benchmark
    filter<TAB>kernel regex' for scripts/ncu-unmet.sh targets:RUN.json: tmakit's best technique
    there, and the best peer where the target is a ratio to it (regex empty: its first kernels)."""
    lines = []
    for cls, e, floor, need_ratio in class_targets():
        lo, worst = class_stats(run, cls, e)
        picks = []
        if floor is not None and lo is not None and lo[0] < floor:
            picks.append((lo[1], f"{lo[0]:.1f}% of memcpy", False))
        if need_ratio is not None and worst is not None and worst[0] < need_ratio:
            picks.append((worst[1], f"{worst[0]:.3f}x the best peer", True))
        for shape, why, peer in picks:
            v = report.verdict(run.cells[(cls, shape, e)])
            tk = v["tmakit"][0]
            head = f"{cls} {e} B {shape} ({why})"
            lines.append(f"{head}: {tk}\t^{tk}/e{e}/{cls}/{shape}/\t{KERNELS.get(tk, tk + '_kernel')}")
            if peer and v["peer"][0]:
                pk = v["peer"][0]
                lines.append(f"{head}: peer {pk}\t^{pk}/e{e}/{cls}/{shape}/\t")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--before", nargs="*", default=[])
    ap.add_argument("--ncu-cases", action="store_true",
                    help="print the unmet targets' deciding cells for scripts/ncu-unmet.sh targets:RUN.json")
    a = ap.parse_args()
    runs = report.load(a.runs)
    if a.ncu_cases:
        for gpu, run in runs.items():
            print("\n".join(ncu_cases(run)))
        return
    before = report.load(a.before) if a.before else {}
    for gpu, run in runs.items():
        print(f"# {gpu} ({run.ctx.get('date', '?')})")
        for cls in ("square", "odd", "skinny", "batched"):
            for e in (1, 2, 4, 8, 16):
                if not any(k == cls and ee == e for k, _, ee in run.cells):
                    continue
                lo, worst = class_stats(run, cls, e)
                lo = lo or (float("nan"), "-")
                worst = worst or (None, "-")
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
                      f"{v['tmakit'][0]} {v['tmakit'][1]:.0f} ({100 * (1 - v['auto'][1] / v['tmakit'][1]):.1f}%)"
                      + (" (the same technique)" if v["auto"][0] == v["tmakit"][0] else ""))
        if gpu in before:
            for key, cell in run.cells.items():
                old = before[gpu].cells.get(key)
                if old is None or key[0] == "accumulate":
                    continue
                p, q = pct_best(cell), pct_best(old)
                if p is not None and q is not None and p < q - 1.0:
                    print(f"fell: {key[0]} {key[1]} {key[2]} B {q:.1f} -> {p:.1f}")
        for target, met, figure in verdicts(run):
            print(f"target {'met  ' if met else 'UNMET'} {target}: {figure}")


if __name__ == "__main__":
    main()
