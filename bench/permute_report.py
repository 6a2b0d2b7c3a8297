#!/usr/bin/env python3
"""Tables of `tmakit_bench --preset=permute` runs (bench/permute_rows.cpp).

    bench/permute_report.py RUN.json [RUN.json ...]   markdown on stdout, one section per run

Per case (median GB/s over the rounds; bytes read + written): cudaMemcpyAsync, tmakit's `auto`
(and what it ran), permute_tma, permute_tile, cuTENSOR's cutensorPermute; `auto` as % of
memcpy and over cuTENSOR; permute_tma over permute_tile. The random set's geometric mean of
auto / cuTENSOR closes each section. A skipped technique shows its reason in the notes.
"""
import json
import lzma
import math
import statistics
import sys
from collections import OrderedDict

WHO = ["memcpy", "auto", "permute_tma", "permute_tile", "cutensor"]
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


def med(slot):
    return statistics.median(slot["gbps"]) if slot and slot["gbps"] else None


def section(run):
    ctx = run.get("context", {})
    lines = [
        f"### {ctx.get('gpu', '?')}, driver {ctx.get('driver_version', '?')}, "
        f"cuTENSOR {ctx.get('cutensor', '?')}, {ctx.get('date', '?')}",
        "",
        "| case | e | extents | perm | form | contiguous run | memcpy GB/s | auto GB/s (ran) "
        "| auto % memcpy | permute_tma | permute_tile | cuTENSOR | auto / cuTENSOR "
        "| tma / tile |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    ratios_random = []
    ratios_named = []
    contiguous = []  # (case, % of memcpy) where the contiguous run is 32 bytes or more
    for (e, label, ext, perm), who in cases(run).items():
        g = {w: med(who.get(w)) for w in WHO}
        form = next((who[w].get("form") for w in WHO if w in who and who[w].get("form")), "?")
        contig = next((who[w].get("contig") for w in WHO if w in who and who[w].get("contig")), 0)
        ran = who.get("auto", {}).get("label", "").split(";")[0].replace("ran ", "")

        def cell(w):
            if g[w] is None:
                err = who.get(w, {}).get("error", "")
                if err:
                    notes.append((f"{label} {ext} ({perm}) {e[1:]} B", w, err.replace("skipped: ", "")))
                return "-"
            return f"{g[w]:.0f}"

        pct = f"{100 * g['auto'] / g['memcpy']:.1f}%" if g["auto"] and g["memcpy"] else "-"
        vs = g["auto"] / g["cutensor"] if g["auto"] and g["cutensor"] else None
        tt = (f"{g['permute_tma'] / g['permute_tile']:.2f}"
              if g["permute_tma"] and g["permute_tile"] else "-")
        if vs is not None:
            (ratios_random if label == "random" else ratios_named).append(vs)
        if contig >= 32 and g["auto"] and g["memcpy"]:
            contiguous.append((f"{label} {ext.replace('x', ',')} ({perm.replace('.', ',')}) {e[1:]} B",
                               100 * g["auto"] / g["memcpy"]))
        lines.append(
            f"| {label} | {e[1:]} B | {ext.replace('x', ', ')} | {perm.replace('.', ',')} | {form} "
            f"| {contig} B | {cell('memcpy')} | {cell('auto')} ({ran}) | {pct} "
            f"| {cell('permute_tma')} | {cell('permute_tile')} | {cell('cutensor')} "
            f"| {f'{vs:.3f}' if vs else '-'} | {tt} |")
    lines.append("")
    for title, r in (("named cases", ratios_named), ("random set", ratios_random)):
        if r:
            gm = math.exp(sum(math.log(x) for x in r) / len(r))
            lines.append(f"- auto / cuTENSOR, {title}: geometric mean {gm:.3f}, lowest {min(r):.3f}, "
                         f"{sum(1 for x in r if x >= 1.05)} of {len(r)} at 1.05 or more")
    if contiguous:
        low = [f"{c} {p:.1f}%" for c, p in contiguous if p < 90]
        lines.append(f"- contiguous run of 32 bytes or more: {len(contiguous) - len(low)} of "
                     f"{len(contiguous)} at 90% of memcpy or more" +
                     (f"; below: {'; '.join(low)}" if low else ""))
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


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    for path in argv[1:]:
        print(section(load(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
