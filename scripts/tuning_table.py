#!/usr/bin/env python3
"""Writes a GPU's tuning table (host/transpose/tuning/NAME.inc), the data the one decider
(host/transpose/decider.cpp) ranks techniques from: for every measured cell, every technique's
time over the cell's fastest, in three kinds (transpose; transpose-accumulate with beta != 0 and
with beta = 0), and the ranking's parameters, fitted here by leave-one-run-out over those cells only.

usage: scripts/tuning_table.py OUT.inc NAME RUN.json[.xz] [RUN.json[.xz] ...]
       (TMAKIT_FIT_MODEL="k=7 p=2 ..." writes the table with that model instead of fitting one:
       the fit judges transpose cells alone, while the accumulate rankings share its model)
       scripts/tuning_table.py --judge TABLE.inc RUN.json[.xz] ...   (the ranking of TABLE on the
           cells of RUN, never its own data: the held-out judge; see also scripts/decider_judge.py)

RUN: tmakit_bench JSON of one GPU (FILE.json, FILE.json.xz, or ARCHIVE.tar.xz:MEMBER.json):
  --preset=survey runs: plan_survey/* rows (counters t_<token>) and, with --survey-kind=accumulate,
    plan_survey_acc/* rows (t_<token> at beta 1, t0_<token> at beta 0);
  preset runs: <token>/e<E>/<class>/<shape> rows (the median of each technique's rounds) of the
    transpose classes (the accumulate class is left out: the accumulate preset judges the table).
NAME: the table's C++ name (h100, h200). Every run must come from the same GPU model.
"""
import collections
import json
import lzma
import math
import multiprocessing
import os
import statistics
import sys
import tarfile

CLASSES = ("square", "odd", "skinny", "batched")
NOT_TECHNIQUES = {"auto", "memcpy", "cudaMemcpyAsync", "copy", "tma_copy", "bulk_roofline",
                  "async_roofline"}
KINDS = ("transpose", "accumulate", "accumulate0")
EPS = 0.05  # decider.cpp: neighbour weight 1 / (distance + EPS)^p


def load(path):
    """A run: a JSON file (.xz or not), or ARCHIVE.tar.xz:MEMBER, one JSON file of an archive. A
    run stopped at a time limit (its JSON cut mid-row) gives the rows it finished, its context
    marked "truncated"."""
    if ".tar.xz:" in path:
        archive, member = path.split(".tar.xz:", 1)
        with tarfile.open(archive + ".tar.xz") as t:
            f = t.extractfile(member if member.startswith("./") else "./" + member)
            text = f.read().decode()
    else:
        opener = lzma.open if path.endswith(".xz") else open
        with opener(path, "rt") as f:
            text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        cut = text.rfind("\n    }")  # the end of the last whole benchmark row
        if cut < 0:
            raise
        run = json.loads(text[:cut + 6] + "\n  ]\n}\n")
        run["context"]["truncated"] = "stopped at its time limit; the rows it finished"
        return run


def shape_of(text):
    dims = [int(x) for x in text.split("x")]
    return tuple(dims if len(dims) == 3 else [1] + dims)


def is_accumulate(token):
    return token.endswith("_accumulate") or token == "tma_reduce"


def cells_of(run):
    """{kind: {(e, batch, rows, cols): {token: microseconds}}} of one run."""
    cells = {k: collections.defaultdict(dict) for k in KINDS}
    samples = collections.defaultdict(list)
    for b in run["benchmarks"]:
        if b.get("error_occurred") or b.get("run_type") not in (None, "iteration"):
            continue
        p = b["name"].split("/")
        if p[0] in ("plan_survey", "plan_survey_acc"):
            key = (int(p[1][1:]),) + shape_of(p[3])
            for k, v in b.items():
                if k.startswith("t0_") and v > 0:
                    cells["accumulate0"][key][k[3:]] = v
                elif k.startswith("t_") and v > 0:
                    kind = "accumulate" if p[0] == "plan_survey_acc" else "transpose"
                    cells[kind][key][k[2:]] = v
        elif len(p) > 3 and p[1].startswith("e") and p[2] in CLASSES:
            # Preset runs give transposes only: the accumulate preset stays a judge.
            if p[0] in NOT_TECHNIQUES or p[0].startswith(("cublas", "cutensor")) or \
                    is_accumulate(p[0]):
                continue
            samples[("transpose", int(p[1][1:])) + shape_of(p[3]) + (p[0],)].append(b["real_time"])
    for (kind, e, batch, rows, cols, token), v in samples.items():
        cells[kind][(e, batch, rows, cols)][token] = statistics.median(v)
    return cells


# ---- The ranking, as decider.cpp computes it ----

def features(e, batch, rows, cols):
    return (math.log2(max(batch, 1) * rows * cols * e), math.log2(cols * e), math.log2(rows * e),
            (cols * e) % 16 == 0, (rows * e) % 16 == 0, (rows * e) % 32 == 0, batch > 1,
            min(rows, cols) <= 32, math.log2(rows * cols * e))


DEFAULT = dict(k=7, p=3.0, w_bytes=0.5, w_src=0.5, w_dst=1.0, w_mat=0.0, a_src16=4.0, a_dst16=2.0,
               a_dst32=1.0, a_batch=0.0, a_short=8.0, missing=0.3)


def distance(m, a, b):
    d = math.sqrt(m["w_bytes"] * (a[0] - b[0]) ** 2 + m["w_src"] * (a[1] - b[1]) ** 2 +
                  m["w_dst"] * (a[2] - b[2]) ** 2 + m["w_mat"] * (a[8] - b[8]) ** 2)
    flags = (m["a_src16"], m["a_dst16"], m["a_dst32"], m["a_batch"], m["a_short"])
    return d + sum(w for w, x, y in zip(flags, a[3:8], b[3:8]) if x != y)


class Ranker:
    def __init__(self, cells, tokens):
        self.tokens = tokens
        self.data = []  # (key, features, [log ratio or None per token])
        for key, t in sorted(cells.items()):  # the table's order, which breaks distance ties
            best = min(t.values())
            self.data.append((key, features(*key),
                              [math.log(t[x] / best) if x in t else None for x in tokens]))

    def rank(self, m, key, exclude=None):
        f = features(*key)
        near = sorted(((distance(m, f, g), i, lr) for i, (k, g, lr) in enumerate(self.data)
                       if k[0] == key[0] and k != exclude), key=lambda x: x[:2])[:m["k"]]
        if not near:
            return []
        n = len(self.tokens)
        total, score, ran = 0.0, [0.0] * n, [False] * n
        for d, _, lr in near:
            w = 1.0 / (d + EPS) ** m["p"]
            total += w
            for j, v in enumerate(lr):
                ran[j] = ran[j] or v is not None
                score[j] += w * (m["missing"] if v is None else v)
        ranked = [(score[j] / total, j) for j in range(n) if ran[j]]
        return [self.tokens[j] for _, j in sorted(ranked)]


def judge(ranker, m, cells, loo):
    """[(time of the fastest / time of the pick, key, pick, fastest)]: the pick is the first ranked
    technique measured in the cell (what a plan runs: the first that can run the call)."""
    out = []
    for key, t in cells.items():
        best = min(t, key=t.get)
        order = ranker.rank(m, key, exclude=key if loo else None)
        pick = next((x for x in order if x in t), None)
        out.append((t[best] / t[pick] if pick else 0.0, key, pick, best))
    return out


def objective(results):
    """Cells within 3% of the fastest, less three for each below 0.90, then the worst."""
    v = [r[0] for r in results]
    return (sum(x >= 0.97 for x in v) - 3 * sum(x < 0.90 for x in v), min(v) if v else 0)


SEARCH = dict(w_mat=(0.0, 0.25, 0.5, 1.0, 2.0), a_short=(0.0, 2.0, 4.0, 8.0), k=(4, 7, 10, 14),
              p=(1.0, 2.0, 3.0),
              w_bytes=(0.25, 0.5, 1.0), w_src=(0.5, 1.0, 2.0), w_dst=(0.5, 1.0, 2.0),
              a_src16=(0.5, 2.0, 4.0), a_dst16=(0.5, 2.0, 4.0), a_dst32=(0.0, 1.0, 2.0),
              a_batch=(0.0, 1.0), missing=(0.3, 0.693, 1.5))


def grouped(sections):
    """Leave-one-run-out folds: for every kind and run, (a ranker of the other runs' cells, that
    run's cells). A run is one distribution (a preset, a survey of one seed and generator), so
    each fold judges the ranking on cells of a distribution it was not fitted to, as the
    held-out survey will."""
    folds = []
    for tokens, cells, source in sections:
        for run in sorted(set(source.values())):
            test = {k: v for k, v in cells.items() if source[k] == run}
            train = {k: v for k, v in cells.items() if source[k] != run}
            if test and train:
                folds.append((Ranker(train, tokens), test))
    return folds


_FOLDS = []  # fit's folds, for the worker processes it forks (they inherit them, unpickled)


def _judge_fold(args):
    i, m = args
    ranker, cells = _FOLDS[i]
    return judge(ranker, m, cells, False)


def fit(folds):
    """The parameters with the best objective over the folds: coordinate descent over SEARCH
    from DEFAULT, one pass. The folds of each candidate are judged in parallel, one process per
    CPU (TMAKIT_FIT_JOBS=N to choose; 1: in this process); the result does not depend on it."""
    global _FOLDS
    _FOLDS = folds
    jobs = int(os.environ.get("TMAKIT_FIT_JOBS", "0")) or os.cpu_count() or 1
    pool = multiprocessing.get_context("fork").Pool(jobs) if jobs > 1 and len(folds) > 1 else None

    def score(m):
        parts = (pool.map(_judge_fold, [(i, m) for i in range(len(folds))], chunksize=1)
                 if pool else [judge(ranker, m, cells, False) for ranker, cells in folds])
        return objective([r for part in parts for r in part])
    try:
        best_m = dict(DEFAULT)
        best_o = score(best_m)
        for name, values in SEARCH.items():
            for v in values:
                m = dict(best_m, **{name: v})
                o = score(m)
                if o > best_o:
                    best_m, best_o = m, o
    finally:
        if pool:
            pool.close()
            pool.join()
    return best_m, best_o


def summary(results):
    v = sorted(r[0] for r in results)
    if not v:
        return "no cells"
    n = len(v)
    return (f"{n} cells: within 3% {sum(x >= 0.97 for x in v)} ({100 * sum(x >= 0.97 for x in v) / n:.1f}%), "
            f"within 1% {sum(x >= 0.99 for x in v)}, below 0.90 {sum(x < 0.90 for x in v)}, "
            f"worst {v[0]:.3f}, 5th percentile {v[int(0.05 * n)]:.3f}, median {v[n // 2]:.3f}")


def runs_cells(paths, source=None):
    """(gpu, dram_gbps, sm_count, {kind: cells}); source, if given, gets {kind: {key: run
    index}}."""
    gpu, dram, sms, cells = None, 0.0, 0, {k: {} for k in KINDS}
    for i, path in enumerate(paths):
        run = load(path)
        ctx = run["context"]
        if gpu not in (None, ctx.get("gpu")):
            sys.exit(f"tuning_table.py: {path} is from {ctx.get('gpu')}, the others from {gpu}")
        gpu = ctx.get("gpu")
        # The GPU's peak DRAM bandwidth, by which decider.cpp picks a table for a GPU without one.
        dram = dram or (4800.0 if gpu and "H200" in gpu else 3352.0)
        sms = sms or int(ctx.get("sm_count", 0))
        for kind, c in cells_of(run).items():
            cells[kind].update(c)
            if source is not None:
                source.setdefault(kind, {}).update({k: i for k in c})
    return gpu, dram, sms, cells


def write(out, name, paths):
    source = {}
    gpu, dram, sms, cells = runs_cells(paths, source)
    sections = []
    for kind in KINDS:
        c = {k: v for k, v in cells[kind].items() if v}
        if not c:
            continue
        tokens = sorted({t for v in c.values() for t in v})
        sections.append((kind, tokens, c))
    if os.environ.get("TMAKIT_FIT_MODEL"):
        # The model as given ("k=7 p=2 ...", the model line of a table), no search: the fit judges
        # transpose cells only, and the accumulate kinds share its model.
        m = parse_model(os.environ["TMAKIT_FIT_MODEL"])
        o = "not searched (TMAKIT_FIT_MODEL)"
    else:
        m, o = fit(grouped([(tokens, c, source[kind]) for kind, tokens, c in sections]))
    for kind, tokens, c in sections:
        folds = grouped([(tokens, c, source[kind])])
        res = [r for ranker, cells in folds for r in judge(ranker, m, cells, False)]
        print(f"{name} {kind}: leave-one-run-out {summary(res)}")
    with open(out, "w") as f:
        f.write(f"// Generated by scripts/tuning_table.py from {', '.join(paths)}: do not edit.\n")
        f.write(f"// {gpu}: {sum(len(c) for _, _, c in sections)} cells, each technique's time over"
                " the cell's fastest (0: it did not run there).\n")
        f.write(f"static const char* const kTuning_{name} = R\"tuning(tmakit-tuning 2\n")
        f.write(f"gpu {gpu}\ndram_gbps {dram:.0f}\nsm_count {sms}\n")
        f.write("model " + " ".join(f"{k}={v:g}" for k, v in m.items()) + "\n")
        for kind, tokens, c in sections:
            f.write(f"kind {kind}\ntokens {' '.join(tokens)}\n")
            for key in sorted(c):
                t = c[key]
                best = min(t.values())
                f.write(" ".join(map(str, key)) + " " +
                        " ".join(f"{t[x] / best:.3f}" if x in t else "0" for x in tokens) + "\n")
        f.write(")tuning\";\n")
    print(f"{out}: {gpu}, model {m}, objective {o}")


def parse_model(text):
    """The model of a table's model line ("k=7 p=2 ..."), DEFAULT where it names no value."""
    m = dict(DEFAULT)
    for item in text.split():
        k, v = item.split("=")
        m[k] = int(v) if k == "k" else float(v)
    return m


def read_table(path):
    """(model, {kind: (tokens, cells)}) of a generated .inc (ratios stand in for times)."""
    m, kinds, kind = dict(DEFAULT), {}, None
    for line in open(path):
        line = line.strip()
        if line.startswith("model "):
            m = parse_model(line[len("model "):])
        elif line.startswith("kind "):
            kind = line.split()[1]
            kinds[kind] = ([], {})
        elif line.startswith("tokens ") and kind:
            kinds[kind][0].extend(line.split()[1:])
        elif kind and line and line[0].isdigit():
            v = line.split()
            key = tuple(int(x) for x in v[:4])
            kinds[kind][1][key] = {t: float(r) for t, r in zip(kinds[kind][0], v[4:]) if float(r) > 0}
    return m, kinds


def judge_table(table, paths):
    m, kinds = read_table(table)
    _, _, _, cells = runs_cells(paths)
    for kind, (tokens, train) in kinds.items():
        held = {k: v for k, v in cells[kind].items() if v and k not in train}
        if held:
            res = judge(Ranker(train, tokens), m, held, False)
            print(f"{kind}: {summary(res)}")
            for r, key, pick, best in sorted(res)[:8]:
                print(f"  {r:.3f}  e{key[0]} {key[1]}x{key[2]}x{key[3]}: ranked {pick}, fastest {best}")


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "--judge":
        return judge_table(sys.argv[2], sys.argv[3:])
    if len(sys.argv) < 4 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    write(sys.argv[1], sys.argv[2], sys.argv[3:])


if __name__ == "__main__":
    main()
