#!/usr/bin/env python3
"""Turn tmakit_bench --benchmark_out JSON files into docs/results.md, PNG charts and the
README's headline table.

usage: bench/report.py BENCH.json [BENCH.json ...] [--md docs/results.md] [--img docs/img]
                       [--readme README.md] [--command "..."]

Several files of one GPU (a run split by --benchmark_filter) merge; files of several GPUs give
one section per GPU, each naming its GPU, driver, date and cuTENSOR. For every shape of every
class: the best copy, tmakit's best technique, the best peer (cuBLAS geam, cuBLASLt, cuTENSOR),
the ratio of tmakit's best to it, and what `auto` ran. A table and a chart per class, the
per-technique tables per class and element size, the host overhead per call. With --readme,
the text between <!-- headline:begin --> and <!-- headline:end --> is replaced by the headline
table (per GPU, class and element size: tmakit against the best peer, losses counted).
Medians of the repetitions. The markdown file's blocks between <!-- plans:begin --> and
<!-- plans:end --> (bench/plan_report.py's tables) and between <!-- permute:begin --> and
<!-- permute:end --> (bench/permute_report.py's) and between <!-- python:begin --> and
<!-- python:end --> (bench/python_peers.py's) are carried over unchanged.
"""
import argparse
import json
import statistics
import math
import os
import sys
from collections import OrderedDict

COPIES = ("memcpy", "copy", "tma_copy", "async_roofline", "bulk_roofline")
PEERS = ("cublas_geam", "cublas_geam_c", "cublaslt", "cutensor")
CLASSES = ("square", "odd", "skinny", "batched", "accumulate")
PEER_NAMES = {"cublas_geam": "cuBLAS geam", "cublas_geam_c": "cuBLAS geam (C)",
              "cublaslt": "cuBLASLt", "cutensor": "cuTENSOR"}


class Cell:
    """One benchmark's median: GB/s and percent of the best copy, or why it did not run."""

    def __init__(self, gbps=None, pct=None, error=None, label=""):
        self.gbps, self.pct, self.error, self.label = gbps, pct, error, label

    def ran(self):
        return self.gbps is not None


class Run:
    """The benchmarks of one GPU: context, cells and host-overhead rows."""

    def __init__(self, ctx):
        self.ctx = dict(ctx)
        self.cells = OrderedDict()  # (cls, shape, elem) -> OrderedDict(token -> Cell)
        self.overhead = OrderedDict()  # token -> (us_per_call, label) or (None, error)
        self.overhead_end = OrderedDict()  # the same rows again after every cell (diagnostic)


def parse_name(name):
    """'<token>/e<E>/<class>/<shape>' -> (token, elem, cls, shape); the pre-class form
    '<token>/e<E>/<shape>' is the square class. None for other names."""
    parts = name.split("/")
    # google benchmark's /iterations:N, /repeats:N, /manual_time
    parts = [p for p in parts if ":" not in p and p not in ("manual_time", "real_time")]
    if len(parts) == 3 and parts[1].startswith("e") and parts[1][1:].isdigit():
        return parts[0], int(parts[1][1:]), "square", parts[2]
    if len(parts) == 4 and parts[1].startswith("e") and parts[1][1:].isdigit():
        return parts[0], int(parts[1][1:]), parts[2], parts[3]
    return None


def shape_dims(shape):
    """'RxC' -> (1, R, C); 'BxRxC' -> (B, R, C)."""
    d = [int(x) for x in shape.split("x")]
    return (1, d[0], d[1]) if len(d) == 2 else (d[0], d[1], d[2])


def shape_key(shape):
    b, r, c = shape_dims(shape)
    return b * r * c, b, r


def gbps_of(b):
    g = b.get("GBps", 0)
    return g / 1e9 if g > 1e6 else g  # older files stored bytes per second


def load(paths):
    """-> OrderedDict(gpu name -> Run), files of one GPU merged (later files win per cell)."""
    runs = OrderedDict()
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        ctx = data.get("context", {})
        run = runs.setdefault(ctx.get("gpu", "?"), Run(ctx))
        for k in ("date", "driver_version", "cutensor", "peers"):
            if k in ctx and k not in run.ctx:
                run.ctx[k] = ctx[k]
        # Runs of --order=rounds (the default since 2026-11-24) register every benchmark once
        # per round, so a name has several rows and no aggregate: their median stands for them.
        # Older runs have a median aggregate per name, which stands for its repetition rows.
        has_median = {b.get("run_name", b["name"]) for b in data["benchmarks"]
                      if b.get("aggregate_name") == "median"}
        rounds = OrderedDict()
        for b in data["benchmarks"]:
            name = b.get("run_name", b["name"])
            aggregate = b.get("aggregate_name")
            skipped = b.get("error_occurred") or b.get("skipped")
            if aggregate not in (None, "median"):
                continue
            if aggregate is None and not skipped:
                if name not in has_median and not name.startswith(("host_overhead/", "host_overhead_end/")):
                    rounds.setdefault(name, []).append(b)
                continue
            why = b.get("error_message") or b.get("skip_message") or "skipped"
            if name.startswith(("host_overhead/", "host_overhead_end/")):
                parts = name.split("/")
                rows = run.overhead if parts[0] == "host_overhead" else run.overhead_end
                if skipped:
                    rows.setdefault(parts[1], (None, why))
                else:
                    rows[parts[1]] = (b.get("us_per_call"), b.get("label", ""))
                continue
            parsed = parse_name(name)
            if parsed is None:
                continue
            token, elem, cls, shape = parsed
            cell = run.cells.setdefault((cls, shape, elem), OrderedDict())
            if skipped:
                if token not in cell or not cell[token].ran():
                    cell[token] = Cell(error=why)
            else:
                cell[token] = Cell(gbps_of(b), b.get("pct_of_copy"), None, b.get("label", ""))
        for name, rows in rounds.items():
            parsed = parse_name(name)
            if parsed is None:
                continue
            token, elem, cls, shape = parsed
            cell = run.cells.setdefault((cls, shape, elem), OrderedDict())
            cell[token] = Cell(statistics.median(gbps_of(b) for b in rows), None, None,
                               rows[0].get("label", ""))
        # Rows in the registry's order (the bench writes it into the context), whatever order
        # the rounds ran in: copies, techniques, auto, peers.
        order = ["memcpy"] + ctx.get("tokens", "").split(",") + ["auto"] + list(PEERS)
        rank = {t: i for i, t in enumerate(t for t in order if t)}
        for key, cell in run.cells.items():
            run.cells[key] = OrderedDict(sorted(cell.items(),
                                                key=lambda tc: rank.get(tc[0], len(rank))))
    # Percent of the cell's best copy, from the medians (the live counter of a round can
    # predate the cell's copies).
    for run in runs.values():
        for cell in run.cells.values():
            copies = [c.gbps for t, c in cell.items() if t in COPIES and c.ran()]
            if copies:
                for c in cell.values():
                    if c.ran():
                        c.pct = 100.0 * c.gbps / max(copies)
    return runs


def best(cell, tokens):
    """(token, Cell) of the fastest that ran among tokens, or (None, None)."""
    ran = [(t, c) for t, c in cell.items() if t in tokens and c.ran()]
    return max(ran, key=lambda tc: tc[1].gbps) if ran else (None, None)


def is_technique(token):
    return token not in COPIES and token not in PEERS and token != "auto"


def verdict(cell):
    """Per shape: memcpy, best copy, tmakit's best, the best peer, ratio, auto's run."""
    techs = [t for t in cell if is_technique(t)]
    tk, tc = best(cell, techs)
    pk, pc = best(cell, PEERS)
    ck, cc = best(cell, COPIES)
    m = cell.get("memcpy")
    memcpy = m.gbps if m is not None and m.ran() else None
    auto = cell.get("auto")
    return {
        "memcpy": memcpy,
        "best_copy": (ck, cc.gbps) if cc else (None, None),
        "tmakit": (tk, tc.gbps) if tc else (None, None),
        "peer": (pk, pc.gbps) if pc else (None, None),
        "ratio": (tc.gbps / pc.gbps) if tc and pc else None,
        "auto": (auto.label.replace("ran ", ""), auto.gbps) if auto is not None and auto.ran() else (None, None),
    }


def pct(x, of):
    return "%.1f%%" % (100.0 * x / of) if x and of else "-"


def gpu_header(run):
    c = run.ctx
    ct = c.get("cutensor", "not recorded")
    return ("GPU: **%s** (compute capability %s, %s SMs, SM clock %s MHz, memory clock %s MHz, L2 %s bytes), "
            "driver %s, CUDA runtime %s, %s. Preset `%s`. cuTENSOR: %s. Peers in the run: %s." % (
                c.get("gpu", "?"), c.get("compute_capability", "?"), c.get("sm_count", "?"),
                c.get("sm_clock_mhz", "?"), c.get("mem_clock_mhz", "?"), c.get("l2_bytes", "?"),
                c.get("driver_version", "?"), c.get("runtime_version", "?"), c.get("date", "?"),
                c.get("preset", "?"), ct, c.get("peers", "not recorded"))
            + " Order: %s; launch gate: %s." % (
                {"rounds": "each cell's benchmarks in 3 shuffled rounds, median of the rounds",
                 "fixed": "registration order, median of 3 repetitions"}.get(
                    c.get("order", "fixed"), c.get("order")),
                c.get("launch_gate", "off (not recorded: before 2026-11-24)")))


def cell_text(run, token, c):
    if c is None:
        if token == "cutensor" and run.ctx.get("cutensor", "not found") == "not found":
            return "not run (cuTENSOR: not found)"
        return ""
    if not c.ran():
        return "n/a"
    return "%.0f%s" % (c.gbps, "" if c.pct is None else " (%.1f%%)" % c.pct)


def slug(s):
    return "".join(ch if ch.isalnum() else "-" for ch in s.lower()).strip("-")


def losses(run):
    """[(cls, shape, elem, tmakit token, GB/s, peer token, GB/s, ratio)] where the best peer wins."""
    out = []
    for (cls, shape, e), cell in run.cells.items():
        v = verdict(cell)
        if v["ratio"] is not None and v["ratio"] < 1.0:
            out.append((cls, shape, e, v["tmakit"][0], v["tmakit"][1], v["peer"][0], v["peer"][1], v["ratio"]))
    return out


def class_summary(run, cls, e):
    """(geomean ratio, worst ratio, worst shape, shapes lost, shapes compared, mean % of memcpy)."""
    ratios, pcts = [], []
    worst = (None, None)
    for (c, shape, ee), cell in run.cells.items():
        if c != cls or ee != e:
            continue
        v = verdict(cell)
        if v["tmakit"][1] and v["memcpy"]:
            pcts.append(100.0 * v["tmakit"][1] / v["memcpy"])
        if v["ratio"] is None:
            continue
        ratios.append(v["ratio"])
        if worst[0] is None or v["ratio"] < worst[0]:
            worst = (v["ratio"], shape)
    if not ratios and not pcts:
        return None
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None
    return (geo, worst[0], worst[1], sum(1 for r in ratios if r < 1.0), len(ratios),
            min(pcts) if pcts else None)


def headline(runs):
    lines = ["| GPU | class | elements | tmakit / best peer (geomean) | worst ratio (shape) | shapes lost | lowest % of memcpy (accumulate: of the 3-stream roofline) |",
             "|---|---|---|---|---|---|---|"]
    for gpu, run in runs.items():
        for cls in CLASSES:
            for e in sorted({e for (c, _, e) in run.cells if c == cls}):
                s = class_summary(run, cls, e)
                if s is None:
                    continue
                geo, worst, wshape, lost, n, low = s
                lines.append("| %s | %s | %d B | %s | %s | %s | %s |" % (
                    gpu.replace("NVIDIA ", ""), cls, e,
                    "%.2f" % geo if geo else "no peer",
                    "%.2f (%s)" % (worst, wshape) if worst else "-",
                    "%d of %d" % (lost, n) if n else "-",
                    "%.0f%%" % low if low else "-"))
    return "\n".join(lines)


def write_md(runs, md_path, img_rel, command):
    lines = ["# Benchmark results", ""]
    if command:
        lines += ["Command: `%s` (on each GPU), then `bench/report.py` over the JSON files." % command, ""]
    lines += [
        "GB/s are decimal, bytes read + written (2 x elements x element size). Medians of the repetitions "
        "or rounds (each GPU's header says which); CUDA events around the launch only; L2 flushed before "
        "every timed launch, persisting (evict_last) lines demoted first; with the launch gate, the stream "
        "is held until the call is enqueued, so host delays are not timed; every result, the peers' "
        "included, verified bit for bit against the CPU reference before timing (inputs are integer-valued "
        "floats of each peer's type, so alpha = 1 is exact). *tmakit best* is the fastest registered "
        "technique (copies excluded) that ran the call itself: a TMA technique that cannot run a shape is "
        "n/a, never timed as its fallback. *best peer*: the fastest of cuBLAS geam (S, D, C, Z), "
        "cuBLASLt `cublasLtMatrixTransform` (8I, 16BF, 32F, 64F, C_64F) and cuTENSOR `cutensorPermute` "
        "(16BF, 32F, 64F, C_64F). *ratio* = tmakit best / best peer; below 1.00 is a loss (**bold**). "
        "*auto* = what `variant = \"auto\"` ran and its GB/s.", "",
        "Classes: *square* (large, 16-byte-aligned rows), *odd* (no row a multiple of 16 bytes), *skinny* "
        "(k x N and N x k, N = 4,000,000), *batched* (B x rows x cols: thousands of small matrices, one batch "
        "of odd-sized ones), *accumulate* (dst += src^T, alpha = beta = 1, in bf16 / f32 / f64 at 2 / 4 / 8 bytes, "
        "against cuBLAS geam, cuBLASLt and cuTENSOR's elementwise binary with beta = 1; its GB/s count three "
        "operands: src and dst read, dst written).", ""]
    lines += ["## Headline", "", headline(runs), ""]
    for gpu, run in runs.items():
        g = slug(gpu)
        lines += ["## %s" % gpu, "", gpu_header(run), ""]
        lost = losses(run)
        lines += ["Shapes where tmakit loses to the best peer: %d of %d compared." % (
            len(lost), sum(1 for c in run.cells.values() if verdict(c)["ratio"] is not None)), ""]
        if lost:
            lines += ["| class | shape | elements | tmakit best | GB/s | best peer | GB/s | ratio | tmakit best % of memcpy |",
                      "|---|---|---|---|---|---|---|---|---|"]
            for cls, shape, e, tk, tg, pk, pg, r in lost:
                mc = verdict(run.cells[(cls, shape, e)])["memcpy"]
                lines.append("| %s | %s | %d B | `%s` | %.0f | %s | %.0f | %.3f | %s |" % (
                    cls, shape, e, tk, tg, pk, pg, r, pct(tg, mc)))
            lines.append("")
        for cls in CLASSES:
            keys = [k for k in run.cells if k[0] == cls]
            if not keys:
                continue
            keys.sort(key=lambda k: (k[2], shape_key(k[1])))
            lines += ["### %s: %s" % (gpu.replace("NVIDIA ", ""), cls), ""]
            # An accumulate moves three streams (src read, dst read and written) and its GB/s
            # count them; the same bandwidth as memcpy's two streams is its roofline, so its %
            # of memcpy is its % of the three-stream roofline.
            of = "% of 3-stream roofline" if cls == "accumulate" else "% of memcpy"
            if cls == "accumulate":
                lines += ["GB/s count three streams (src read, dst read, dst written); *% of 3-stream "
                          "roofline* = those GB/s over memcpy's (two streams) at the same bandwidth.", ""]
            lines += ["| shape | elements | memcpy GB/s | tmakit best | GB/s | %s | best peer | GB/s | %s | ratio | auto ran (GB/s) |" % (of, of),
                      "|---|---|---|---|---|---|---|---|---|---|---|"]
            for (c, shape, e) in keys:
                v = verdict(run.cells[(c, shape, e)])
                tk, tg = v["tmakit"]
                pk, pg = v["peer"]
                r = v["ratio"]
                ratio = "-" if r is None else ("**%.2f**" % r if r < 1.0 else "%.2f" % r)
                ak, ag = v["auto"]
                lines.append("| %s | %d B | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    shape, e, "%.0f" % v["memcpy"] if v["memcpy"] else "-", "`%s`" % tk if tk else "-",
                    "%.0f" % tg if tg else "-", pct(tg, v["memcpy"]),
                    PEER_NAMES.get(pk, "-") if pk else "-", "%.0f" % pg if pg else "-", pct(pg, v["memcpy"]),
                    ratio, "`%s` (%.0f)" % (ak, ag) if ak else "-"))
            lines.append("")
            if img_rel:
                lines += ["![%s, %s: tmakit best / best peer per shape and element size](%s/results_%s_%s.png)" % (gpu, cls, img_rel, g, cls), ""]
            for e in sorted({k[2] for k in keys}):
                shapes = sorted({k[1] for k in keys if k[2] == e}, key=shape_key)
                tokens = []
                for s in shapes:
                    for t in run.cells[(cls, s, e)]:
                        if t not in tokens:
                            tokens.append(t)
                if run.ctx.get("cutensor", "not found") == "not found" and "cutensor" not in tokens:
                    tokens.append("cutensor")
                lines += ["<details><summary>%s, %s, %d-byte elements: every technique and peer (GB/s, %% of best copy)</summary>" % (
                    gpu.replace("NVIDIA ", ""), cls, e), "",
                          "| technique | " + " | ".join(shapes) + " |", "|---|" + "---|" * len(shapes)]
                for t in tokens:
                    lines.append("| `%s` | %s |" % (t, " | ".join(cell_text(run, t, run.cells[(cls, s, e)].get(t)) for s in shapes)))
                lines += ["", "</details>", ""]
        if run.overhead:
            lines += ["### %s: host overhead per call" % gpu.replace("NVIDIA ", ""), "",
                      "`host_overhead/<token>/e4/64x64`: host microseconds from calling `transpose()` (synchronize = false) "
                      "to its return, 10,000 calls per repetition, median of 3, at the start of the run (the figure "
                      "the host-cost target reads). The same rows ran again after every cell (`host_overhead_end`): the "
                      "same calls in the same process. The two columns have differed in both directions between runs and "
                      "GPUs, by up to 3 us (docs/perf-guide.md).", "",
                      "| token | ran | us per call | at the end of the run |", "|---|---|---|---|"]
            for t, (us, label) in run.overhead.items():
                end = run.overhead_end.get(t, (None, ""))[0]
                lines.append("| `%s` | %s | %s | %s |" % (t, label.replace("ran ", "") if us is not None else "n/a",
                                                           "%.2f" % us if us is not None else label,
                                                           "%.2f" % end if end is not None else "-"))
            lines.append("")
    # The plans', permutations' and Python sections (bench/plan_report.py from --preset=survey
    # runs, bench/permute_report.py from --preset=permute runs, bench/python_peers.py --report)
    # are kept as they are.
    try:
        old = open(md_path).read()
    except OSError:
        old = ""
    for name in ("plans", "permute", "python"):
        begin, end = "<!-- %s:begin -->" % name, "<!-- %s:end -->" % name
        if begin in old and end in old:
            lines += ["", old[old.index(begin):old.index(end) + len(end)], ""]
    with open(md_path, "w") as f:
        f.write("\n".join(lines))


def write_charts(runs, img_dir):
    """Per GPU and class, a heatmap: shapes down, element sizes across; colour and number are
    tmakit's best over the best peer (red: a loss), the small number tmakit's % of memcpy."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm
    os.makedirs(img_dir, exist_ok=True)
    for gpu, run in runs.items():
        for cls in CLASSES:
            keys = [k for k in run.cells if k[0] == cls]
            if not keys:
                continue
            shapes = sorted({k[1] for k in keys}, key=shape_key)
            elems = sorted({k[2] for k in keys})
            grid = [[float("nan")] * len(elems) for _ in shapes]
            fig, ax = plt.subplots(figsize=(1.3 * len(elems) + 2.6, 0.42 * len(shapes) + 1.4))
            for i, sh in enumerate(shapes):
                for j, e in enumerate(elems):
                    cell = run.cells.get((cls, sh, e))
                    if cell is None:
                        continue
                    v = verdict(cell)
                    if v["ratio"] is not None:
                        grid[i][j] = v["ratio"]
                    txt = "%.2f" % v["ratio"] if v["ratio"] is not None else "no peer"
                    if v["tmakit"][1] and v["memcpy"]:
                        txt += "\n%.0f%%" % (100.0 * v["tmakit"][1] / v["memcpy"])
                    ax.text(j, i, txt, ha="center", va="center", fontsize=7)
            ax.imshow(grid, cmap="RdYlGn", norm=TwoSlopeNorm(vmin=0.5, vcenter=1.0, vmax=1.5), aspect="auto")
            ax.set_xticks(range(len(elems)))
            ax.set_xticklabels(["%d B" % e for e in elems])
            ax.set_yticks(range(len(shapes)))
            ax.set_yticklabels(shapes, fontsize=8)
            ax.set_title("%s, %s: tmakit best / best peer\n(small: tmakit %% of memcpy; red = loss)" % (
                gpu.replace("NVIDIA ", ""), cls), fontsize=9)
            fig.tight_layout()
            fig.savefig(os.path.join(img_dir, "results_%s_%s.png" % (slug(gpu), cls)), dpi=100)
            plt.close(fig)


def update_readme(path, runs):
    text = open(path).read()
    begin, end = "<!-- headline:begin -->", "<!-- headline:end -->"
    if begin not in text or end not in text:
        sys.exit("report.py: %s has no %s ... %s markers" % (path, begin, end))
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + headline(runs) + "\n" + end + tail)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+")
    ap.add_argument("--md", default="docs/results.md")
    ap.add_argument("--img", default="docs/img")
    ap.add_argument("--readme", default="")
    ap.add_argument("--command", default="")
    a = ap.parse_args(argv)
    runs = load(a.json)
    if not any(r.cells for r in runs.values()):
        sys.exit("report.py: no benchmark rows in %s" % ", ".join(a.json))
    img_rel = os.path.relpath(a.img, os.path.dirname(os.path.abspath(a.md)) or ".") if a.img else ""
    write_md(runs, a.md, img_rel, a.command)
    if a.img:
        write_charts(runs, a.img)
    if a.readme:
        update_readme(a.readme, runs)
    for gpu, run in runs.items():
        lost = losses(run)
        print("%s: %d shapes where tmakit loses to the best peer" % (gpu, len(lost)))
        for cls, shape, e, tk, tg, pk, pg, r in lost:
            print("  %-8s %-18s %2d B  %-14s %6.0f  %-13s %6.0f  %.2f" % (cls, shape, e, tk, tg, pk, pg, r))


if __name__ == "__main__":
    main()
