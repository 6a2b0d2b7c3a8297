#!/usr/bin/env python3
"""Tables of `tmakit_bench --preset=permute` runs (bench/permute_rows.cpp).

    bench/permute_report.py RUN.json [RUN.json ...]   markdown on stdout, one section per run
    bench/permute_report.py --against BASE.json RUN.json [TECHNIQUE ...] [--walks CASES.txt]
                                                      an A/B: RUN over BASE per technique
    bench/permute_report.py --classes CASES.txt RUN.json [RUN.json ...]
                                                      where auto loses, by class
    bench/permute_report.py --ab DIR A B [TECHNIQUE] [--walks CASES.txt]
                                                      scripts/permute_ab.sh's runs: arm B
                                                      over arm A, per case, element size and walk

Per case (median GB/s over the rounds; bytes read + written): cudaMemcpyAsync, tmakit's `auto`
(and what it ran), permute_tma, permute_tile, permute_transpose, cuTENSOR's cutensorPermute; `auto` as % of
memcpy and over cuTENSOR; permute_tma over permute_tile; where the run has it, `measured`
(tune_permute's pick, what `auto` runs in measure mode) and its ratio to cuTENSOR; the shorter of the two innermost runs
(src's and dst's innermost extents after the reduction, in bytes). Each section closes with the
targets: auto / cuTENSOR (geometric mean, cases at 1.00 or more, the lowest), % of memcpy where
both innermost runs are 32 bytes or more (85%) and on every case of 16 MB or more (75%). A
skipped technique shows its reason in the notes.

--against: two runs of the same cases (an environment knob or a binary changed between them):
for each technique (default memcpy, auto, permute_tile, cutensor, those both runs timed), the
geometric mean of RUN's GB/s over BASE's across the cases, how many moved by 4% or more each way,
and the cases that moved most. memcpy's ratio is the drift between the runs. --walks: the
output of `tmakit permute-cases` for the runs' seeds ("SEED NAME WALK" lines): each technique's
ratio also per walk permute_tile takes (the random cases; a lever of one walk should move that
walk's cases alone).

--classes: the random cases of several runs (seeds) grouped by element size and what `auto` ran
there: the walk `permute_tile` takes (CASES.txt, `tmakit permute-cases` for those seeds) where it
ran `permute_tile`, else the technique; per class the cases cuTENSOR ran, `auto` / cuTENSOR on the
geometric mean, how many below 1.00, the lowest, and `auto` as % of memcpy: which kernels hold the
random set below its targets.

--ab: the runs scripts/permute_ab.sh wrote into DIR (ARM-seedS-passP.json, each process one seed's
cases under one arm's policy): per case, TECHNIQUE (default permute_tile) over memcpy of the same
process, the median over passes, arm B's over arm A's; per element size and over all, the
geometric mean, the range and how many moved by 4% or more each way; the lowest and highest
cases; and, with two passes or more, how far the passes of one arm differ on a case (the noise).
--walks as for --against: the same per walk `permute_tile` takes.
"""
import glob
import json
import lzma
import math
import os
import re
import statistics
import sys
from collections import OrderedDict

WHO = ["memcpy", "auto", "permute_tma", "permute_tile", "permute_transpose", "cutensor",
       "measured"]
FORMS = {0: "copy", 1: "transpose", 2: "rows", 3: "tile"}


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def cases(run):
    """OrderedDict case -> {who: {gbps: [..], label, error, form, contig}}."""
    out = OrderedDict()
    for b in run["benchmarks"]:
        name = b.get("run_name", b["name"]).split("/iterations:")[0]
        if not name.startswith("permute/"):
            continue
        parts = name.split("/")
        if len(parts) != 6:
            continue
        _, e, label, ext, perm, who = parts
        key = (e, label, ext, perm)
        slot = out.setdefault(key, {}).setdefault(who, {"gbps": [], "label": "", "error": ""})
        if b.get("error_occurred") or b.get("skipped"):
            slot["error"] = b.get("error_message", b.get("skip_message", "skipped"))
            continue
        if "GBps" in b:
            slot["gbps"].append(b["GBps"] / 1e9 if b["GBps"] > 1e6 else b["GBps"])
        slot["label"] = b.get("label", "")
        slot["form"] = FORMS.get(int(b.get("form", -1)), "?")
        slot["contig"] = int(b.get("contig_bytes", 0))
    return out


def inner_run_bytes(label, e):
    """The shorter of the two innermost runs (src's innermost extent, dst's) in bytes, from the
    reduction the label names ("... reduces to tile: extents (a, b, c) perm (2, 0, 1)")."""
    m = re.search(r"extents \(([^)]*)\) perm \(([^)]*)\)", label)
    if not m:
        return None
    ext = [int(x) for x in m.group(1).split(",") if x.strip()]
    perm = [int(x) for x in m.group(2).split(",") if x.strip()]
    if not ext:
        return None
    return min(ext[-1], ext[perm[-1]]) * e


def med(slot):
    return statistics.median(slot["gbps"]) if slot and slot["gbps"] else None


def section(run):
    ctx = run.get("context", {})
    # The `measured` row (tune_permute's pick) where the run has it: two more columns and its
    # own ratio lines.
    has_measured = any("measured" in who for who in cases(run).values())
    lines = [
        f"### {ctx.get('gpu', '?')}, driver {ctx.get('driver_version', '?')}, "
        f"cuTENSOR {ctx.get('cutensor', '?')}, {ctx.get('date', '?')}",
        "",
        "| case | e | extents | perm | form | shorter inner run | MB | memcpy GB/s "
        "| auto GB/s (ran) | auto % memcpy | permute_tma | permute_tile | permute_transpose "
        "| cuTENSOR | auto / cuTENSOR | tma / tile |" +
        (" measured GB/s (ran) | measured / cuTENSOR |" if has_measured else ""),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" +
        ("---|---|" if has_measured else ""),
    ]
    notes = []
    ratios_random = []
    ratios_named = []
    ratios_measured = []
    long_runs = []  # (case, % of memcpy) where both innermost runs are 32 bytes or more
    big = []  # (case, % of memcpy) for every case of 16 MB or more
    for (e, label, ext, perm), who in cases(run).items():
        g = {w: med(who.get(w)) for w in WHO}
        form = next((who[w].get("form") for w in WHO if w in who and who[w].get("form")), "?")
        auto_label = who.get("auto", {}).get("label", "")
        ran = auto_label.split(";")[0].replace("ran ", "")
        eb = int(e[1:])
        run_b = inner_run_bytes(auto_label, eb)
        if form == "rows":
            run_b = next((who[w].get("contig") for w in WHO if w in who and who[w].get("contig")),
                         run_b)
        mb = math.prod(int(x) for x in ext.split("x")) * eb / 1e6
        name = f"{label} {ext.replace('x', ',')} ({perm.replace('.', ',')}) {e[1:]} B"

        def cell(w):
            if g[w] is None:
                err = who.get(w, {}).get("error", "")
                if err:
                    notes.append((name, w, err.replace("skipped: ", "")))
                return "-"
            return f"{g[w]:.0f}"

        frac = g["auto"] / g["memcpy"] if g["auto"] and g["memcpy"] else None
        pct = f"{100 * frac:.1f}%" if frac else "-"
        vs = g["auto"] / g["cutensor"] if g["auto"] and g["cutensor"] else None
        tt = (f"{g['permute_tma'] / g['permute_tile']:.2f}"
              if g["permute_tma"] and g["permute_tile"] else "-")
        if vs is not None:
            (ratios_random if label == "random" else ratios_named).append((vs, name))
        if frac and run_b is not None and run_b >= 32:
            long_runs.append((name, frac))
        if frac and mb >= 16:
            big.append((name, frac))
        measured = ""
        if has_measured:
            m_ran = who.get("measured", {}).get("label", "").split(" (")[0].replace("ran ", "")
            mvs = g["measured"] / g["cutensor"] if g["measured"] and g["cutensor"] else None
            if mvs is not None:
                ratios_measured.append((mvs, name))
            measured = f" {cell('measured')} ({m_ran}) | {f'{mvs:.3f}' if mvs else '-'} |"
        lines.append(
            f"| {label} | {e[1:]} B | {ext.replace('x', ', ')} | {perm.replace('.', ',')} | {form} "
            f"| {run_b if run_b is not None else '-'} B | {mb:.0f} | {cell('memcpy')} "
            f"| {cell('auto')} ({ran}) | {pct} "
            f"| {cell('permute_tma')} | {cell('permute_tile')} | {cell('permute_transpose')} "
            f"| {cell('cutensor')} "
            f"| {f'{vs:.3f}' if vs else '-'} | {tt} |" + measured)
    lines.append("")
    everything = ratios_named + ratios_random
    for title, r in (("auto / cuTENSOR, named cases", ratios_named),
                     ("auto / cuTENSOR, random set", ratios_random),
                     ("auto / cuTENSOR, all cases", everything),
                     ("measured / cuTENSOR, all cases", ratios_measured)):
        if r:
            xs = [x for x, _ in r]
            gm = math.exp(sum(math.log(x) for x in xs) / len(xs))
            worst = min(r)
            lines.append(f"- {title}: geometric mean {gm:.3f}; "
                         f"{sum(1 for x in xs if x >= 1.0)} of {len(xs)} at 1.00 or more; "
                         f"lowest {worst[0]:.3f} ({worst[1]})")
    for title, rows, goal in (("both innermost runs 32 bytes or more", long_runs, 0.85),
                              ("16 MB or more", big, 0.75)):
        if rows:
            low = sorted((p, c) for c, p in rows if p < goal)
            lines.append(f"- {title}: {len(rows) - len(low)} of {len(rows)} at "
                         f"{100 * goal:.0f}% of memcpy or more" +
                         (f"; below: {'; '.join(f'{c} {100 * p:.1f}%' for p, c in low[:8])}"
                          + (" ..." if len(low) > 8 else "") if low else ""))
    if notes:
        # One line per (technique, reason), with the cases it covers.
        grouped = OrderedDict()
        for case, who, why in notes:
            grouped.setdefault((who, why), []).append(case)
        lines.append("")
        lines.append("Not timed:")
        for (who, why), where in grouped.items():
            lines.append(f"- {who} on {len(where)} case{'s' if len(where) > 1 else ''} "
                         f"({'; '.join(where) if len(where) <= 3 else ', '.join(w.split(' ')[0] for w in where[:3]) + ', ...'}): {why}")
    return "\n".join(lines) + "\n"


def walks_of(path):
    """`tmakit permute-cases` output ("SEED NAME WALK" lines) -> {NAME: WALK}."""
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                out[parts[1]] = parts[2]
    return out


def against(base_path, run_path, who, walks=None):
    """Lines of the A/B of run over base for each technique in who; walks ({NAME: WALK}, from
    walks_of): then per walk too, the cases it names."""
    base, run = cases(load(base_path)), cases(load(run_path))
    out = [f"{run_path} over {base_path}:"]

    def summary(ratios):
        gm = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
        up = sum(r >= 1.04 for r, _ in ratios)
        down = sum(r <= 1 / 1.04 for r, _ in ratios)
        n = len(ratios)
        return f"{gm:.3f}x over {n} case{'s' if n != 1 else ''}; {up} faster by 4% or more, {down} slower"

    for w in who:
        ratios = []
        for key, slots in run.items():
            a, b = med(base.get(key, {}).get(w)), med(slots.get(w))
            if a and b:
                ratios.append((b / a, key))
        if not ratios:
            continue
        ratios.sort()
        name = lambda k: f"{k[1]} {k[2].replace('x', ',')} ({k[3].replace('.', ',')}) {k[0][1:]} B"
        moved = [f"{r:.3f} {name(k)}" for r, k in ratios[:3] + ratios[-3:]]
        out.append(f"- {w}: {summary(ratios)}; lowest and highest: " + "; ".join(moved))
        if walks:
            by_walk = OrderedDict()
            for r, k in ratios:
                walk = walks.get(f"{k[0]}/{k[1]}/{k[2]}/{k[3]}/")
                if walk is not None:
                    by_walk.setdefault(walk, []).append((r, k))
            for walk in sorted(by_walk):
                out.append(f"  - {walk}: {summary(by_walk[walk])}")
    return out


def classes(run_paths, walks):
    """Lines of a markdown table: the random cases of the runs by (element size, what auto ran,
    its permute_tile walk from walks where that ran), auto / cuTENSOR and auto / memcpy."""
    groups = {}
    for path in run_paths:
        for (e, label, ext, perm), who in cases(load(path)).items():
            a, c, m = med(who.get("auto")), med(who.get("cutensor")), med(who.get("memcpy"))
            if label != "random" or not (a and c):
                continue
            ran = who["auto"]["label"].split(";")[0].replace("ran ", "").split(" (")[0]
            if ran == "permute_tile":
                ran = walks.get(f"{e}/{label}/{ext}/{perm}/", "permute_tile")
            name = f"{ext.replace('x', ',')} ({perm.replace('.', ',')})"
            groups.setdefault((int(e[1:]), ran), []).append((a / c, a / m if m else None, name))
    out = ["| e | auto ran | cases | auto / cuTENSOR | below 1.00 | lowest | auto % memcpy |",
           "|---|---|---|---|---|---|---|"]
    for (eb, ran), rows in sorted(groups.items()):
        gm = math.exp(sum(math.log(r) for r, _, _ in rows) / len(rows))
        low = min(rows)
        fr = [f for _, f, _ in rows if f]
        pct = f"{100 * math.exp(sum(math.log(f) for f in fr) / len(fr)):.0f}%" if fr else "-"
        out.append(f"| {eb} B | {ran} | {len(rows)} | {gm:.3f} | {sum(r < 1.0 for r, _, _ in rows)} "
                   f"| {low[0]:.3f} {low[2]} | {pct} |")
    return out


def ab_runs(dirname, arm, who):
    """{case: {pass: who's GB/s over memcpy's}} of arm's runs in dirname (ARM-seedS-passP.json)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(dirname, f"{arm}-seed*-pass*.json"))):
        m = re.search(r"-seed(\d+)-pass(\d+)\.json$", path)
        if not m:
            continue
        for key, slots in cases(load(path)).items():
            t, c = med(slots.get(who)), med(slots.get("memcpy"))
            if t and c:
                out.setdefault(key, {})[int(m.group(2))] = t / c
    return out


def ab(dirname, arm_a, arm_b, who="permute_tile", walks=None):
    """Lines: arm_b over arm_a on the cases both ran (see --ab); walks ({NAME: WALK}, from
    walks_of): per walk too, the cases it names."""
    runs = {arm: ab_runs(dirname, arm, who) for arm in (arm_a, arm_b)}
    name = lambda k: f"{k[2].replace('x', ',')} ({k[3].replace('.', ',')}) {k[0][1:]} B"
    ratios = sorted((statistics.median(runs[arm_b][k].values()) /
                     statistics.median(runs[arm_a][k].values()), k)
                    for k in runs[arm_a] if k in runs[arm_b])
    if not ratios:
        return [f"{dirname}: no case that both {arm_a} and {arm_b} ran with {who} and memcpy"]
    out = [f"{who} / memcpy, {arm_b} over {arm_a} ({dirname}):"]
    groups = OrderedDict()
    for r, k in ratios:
        groups.setdefault(f"{k[0][1:]} B", []).append(r)
    if len(groups) > 1:
        groups["all"] = [r for r, _ in ratios]
    for r, k in ratios if walks else ():
        walk = walks.get(f"{k[0]}/{k[1]}/{k[2]}/{k[3]}/")
        if walk:
            groups.setdefault(walk, []).append(r)
    for g, rs in groups.items():
        gm = math.exp(sum(math.log(r) for r in rs) / len(rs))
        out.append(f"- {g}: {gm:.3f}x over {len(rs)} case{'s' if len(rs) != 1 else ''} "
                   f"({min(rs):.3f}-{max(rs):.3f}); {sum(r >= 1.04 for r in rs)} faster by 4% or "
                   f"more, {sum(r <= 1 / 1.04 for r in rs)} slower")
    out.append("- lowest: " + "; ".join(f"{r:.3f} {name(k)}" for r, k in ratios[:3]))
    out.append("- highest: " + "; ".join(f"{r:.3f} {name(k)}" for r, k in ratios[::-1][:3]))
    for arm in (arm_a, arm_b):
        spread = sorted(max(v.values()) / min(v.values()) - 1 for v in runs[arm].values()
                        if len(v) > 1)
        if spread:
            out.append(f"- passes of {arm}: the median case's differ by {100 * spread[len(spread) // 2]:.1f}%, "
                       f"the most by {100 * spread[-1]:.1f}% ({len(spread)} cases)")
    return out


def split_walks(args):
    """(the arguments without "--walks FILE", {NAME: WALK} of FILE or None); (None, None), said,
    where --walks names no file."""
    if "--walks" not in args:
        return args, None
    at = args.index("--walks")
    if at + 1 >= len(args):
        print("--walks needs the output of `tmakit permute-cases` (a file)")
        return None, None
    return args[:at] + args[at + 2:], walks_of(args[at + 1])


def main(argv):
    if len(argv) >= 4 and argv[1] == "--against":
        rest, walks = split_walks(argv[4:])
        if rest is None:
            return 2
        who = rest or ["memcpy", "auto", "permute_tile", "cutensor"]
        print("\n".join(against(argv[2], argv[3], who, walks)))
        return 0
    if len(argv) >= 5 and argv[1] == "--ab":
        rest, walks = split_walks(argv[5:])
        if rest is None:
            return 2
        if len(rest) > 1:
            print(__doc__)
            return 2
        print("\n".join(ab(argv[2], argv[3], argv[4], *rest, walks=walks)))
        return 0
    if len(argv) >= 4 and argv[1] == "--classes":
        print("\n".join(classes(argv[3:], walks_of(argv[2]))))
        return 0
    if len(argv) < 2 or argv[1].startswith("--"):
        print(__doc__)
        return 2
    for path in argv[1:]:
        print(section(load(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
