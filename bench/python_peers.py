#!/usr/bin/env python3
"""tmakit from Python against what a Python user would call instead, in one process, each result
verified before it is timed: torch eager (x.t().contiguous() / x.permute(...).contiguous()),
torch.compile of the same, CuPy (cupy.ascontiguousarray(x.T)) and JAX/XLA (jnp.transpose under
jax.jit). CUDA events around each call behind a GPU-side sleep (the GPU's time, not the host's:
time_one), the L2 flushed (a 256 MB write) before every timed call, median of the repetitions;
GB/s = bytes read + written. Then the Python call's own host cost:
tmakit.transpose against the binding's bare C++ call (tmakit._tmakit.transpose with the
arguments prepared), 64 x 64 f32, asynchronous calls on a host clock.

usage: python3 bench/python_peers.py [--reps 20] [--json OUT.json] [--host-only] [--ungated]
       python3 bench/python_peers.py --report RUN.json... [--md docs/results.md]
Prints a markdown table; --report writes docs/results.md's Python section from runs' JSON.
"""
import argparse
import json
import statistics
import time

torch = tmakit = None  # imported by main() for a run (--report needs neither)

CASES = [  # (class, shape, torch dtype name, perm or None for a 2-D / batched transpose)
    ("square", (16384, 16384), "float32", None),
    ("square", (16384, 16384), "bfloat16", None),
    ("odd", (12345, 6789), "float32", None),
    ("odd", (12345, 6789), "float16", None),
    ("skinny", (4000000, 16), "float32", None),
    ("skinny", (16, 4000000), "float32", None),
    ("batched", (16384, 32, 32), "float32", None),
    ("batched", (3000, 97, 75), "float16", None),
    ("permute", (8, 4096, 32, 128), "bfloat16", (0, 2, 1, 3)),
    ("permute", (64, 256, 56, 56), "float16", (0, 2, 3, 1)),
]


def peers(x, perm):
    """name -> zero-argument callable returning the result (a torch tensor or other array)."""
    p = perm if perm is not None else ((1, 0) if x.dim() == 2 else (0, 2, 1))
    out = {"tmakit": (lambda: tmakit.permute(x, p)) if perm is not None or x.dim() != 2
           else (lambda: tmakit.transpose(x))}
    out["torch"] = lambda: x.permute(*p).contiguous()
    try:
        f = torch.compile(lambda t: t.permute(*p).contiguous())
        f(x)
        out["torch.compile"] = lambda: f(x)
    except Exception as e:  # noqa: BLE001
        print("# torch.compile unavailable: %s" % str(e).splitlines()[0])
    try:
        import cupy
        cx = cupy.from_dlpack(x) if x.dtype != torch.bfloat16 else None
        if cx is not None:
            out["cupy"] = lambda: cupy.ascontiguousarray(cx.transpose(p))
    except Exception as e:  # noqa: BLE001
        print("# cupy unavailable: %s" % str(e).splitlines()[0])
    try:
        import jax
        import jax.numpy as jnp
        if any(d.platform == "gpu" for d in jax.devices()):
            jx = jax.dlpack.from_dlpack(x)
            g = jax.jit(lambda a: jnp.transpose(a, p))
            g(jx).block_until_ready()
            out["jax"] = lambda: g(jx)
    except Exception as e:  # noqa: BLE001
        print("# jax unavailable: %s" % str(e).splitlines()[0])
    return out


def as_torch(y):
    if isinstance(y, torch.Tensor):
        return y
    if hasattr(y, "block_until_ready"):
        y.block_until_ready()
    return torch.from_dlpack(y)


def time_one(fn, flush, reps, gated):
    """Median milliseconds of fn() between two CUDA events. gated: the stream is first held by
    a GPU-side sleep (torch.cuda._sleep) so that the call's host time is spent while the GPU
    is busy and the events time the GPU's work alone, as the C++ benchmark's launch gate does;
    JAX (its own streams) is timed ungated, until block_until_ready, host time included."""
    ms = []
    for _ in range(reps):
        flush.fill_(1)
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        if gated:
            torch.cuda._sleep(2_000_000)  # about 1 ms at Hopper's clocks
        a.record()
        y = fn()
        if hasattr(y, "block_until_ready"):  # JAX runs on XLA's streams: end when it is done
            y.block_until_ready()
        b.record()
        torch.cuda.synchronize()
        ms.append(a.elapsed_time(b))
    return statistics.median(ms)


HEADER = ["| class | shape | dtype | tmakit GB/s | best other | GB/s | ratio | torch | "
          "torch.compile | cupy | jax |", "|---|---|---|---|---|---|---|---|---|---|---|"]


def _best_other(gbps):
    """(name, GB/s) of the fastest verified peer other than tmakit, or (None, None)."""
    others = {k: v for k, v in gbps.items() if k != "tmakit" and v}
    best = max(others, key=others.get) if others else None
    return best, others.get(best)


def row_line(r):
    """A row of the table from a run's row (as the JSON holds it)."""
    g = r["gbps"]
    best, best_gbps = _best_other(g)
    fmt = lambda v: "%.0f" % v if v else "-"  # noqa: E731
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        r["class"], "x".join(map(str, r["shape"])) +
        ("" if r["perm"] is None else " (%s)" % ", ".join(map(str, r["perm"]))),
        r["dtype"].replace("torch.", ""), fmt(g.get("tmakit")), best or "-", fmt(best_gbps),
        "%.2f" % r["ratio"] if r["ratio"] else "-", fmt(g.get("torch")),
        fmt(g.get("torch.compile")), fmt(g.get("cupy")), fmt(g.get("jax")))


def host_lines(h):
    """The host-time table from a run's host_us."""
    return (["| host time per call, 64x64 float32, asynchronous | us |", "|---|---|"] +
            ["| %s | %.2f |" % (k, v) for k, v in h.items()] +
            ["| tmakit.transpose over the binding's call | %.2f |" % (
                h["tmakit.transpose"] - h["C++ call (binding)"])])


def host_overhead(n=2000):
    x = torch.randn(64, 64, device="cuda")
    y = torch.empty(64, 64, device="cuda")
    s = torch.cuda.current_stream().cuda_stream
    raw = lambda: tmakit._tmakit.transpose(x.data_ptr(), y.data_ptr(), 64, 64, 4, 1, 64, 64,  # noqa: E731
                                           4096, 4096, "auto", s, False)
    full = lambda: tmakit.transpose(x, out=y)  # noqa: E731
    p = tmakit.plan(x)
    planned = lambda: p(x, out=y)  # noqa: E731
    res = {}
    for name, f in (("C++ call (binding)", raw), ("tmakit.transpose", full),
                    ("a tmakit.plan's call", planned)):
        for _ in range(200):
            f()
        torch.cuda.synchronize()
        best = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            best.append((time.perf_counter() - t0) / n * 1e6)
            torch.cuda.synchronize()
        res[name] = min(best)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", default="")
    ap.add_argument("--host-only", action="store_true", help="only the host time per call")
    ap.add_argument("--ungated", action="store_true",
                    help="no GPU-side sleep before a call: the events then hold its host time too")
    ap.add_argument("--report", nargs="+", metavar="JSON",
                    help="write docs/results.md's Python section from these runs' JSON and stop")
    ap.add_argument("--md", default="docs/results.md")
    a = ap.parse_args()
    if a.report:
        report(a.report, a.md)
        return
    global torch, tmakit
    import torch
    import tmakit
    dev = torch.cuda.get_device_properties(0)
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print("# %s, torch %s, %s" % (dev.name, torch.__version__, date))
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows = []
    print("\n".join(HEADER))
    for cls, shape, dtype_name, perm in ([] if a.host_only else CASES):
        dtype = getattr(torch, dtype_name)
        x = (torch.randint(-1000, 1000, shape, device="cuda")).to(dtype)
        fns = peers(x, perm)
        ref = fns["torch"]()
        gbps = {}
        for name, fn in fns.items():
            y = as_torch(fn())
            if y.shape != ref.shape or not torch.equal(y.reshape(-1).view(torch.uint8),
                                                       ref.reshape(-1).view(torch.uint8)):
                gbps[name] = None
                print("# %s %s: %s gave a wrong result: not timed" % (cls, shape, name))
                continue
            gbps[name] = 2 * x.numel() * x.element_size() / (
                time_one(fn, flush, a.reps, name != "jax" and not a.ungated) * 1e6)
        best, best_gbps = _best_other(gbps)
        ratio = gbps["tmakit"] / best_gbps if best and gbps.get("tmakit") else None
        rows.append({"class": cls, "shape": shape, "dtype": str(dtype), "perm": perm,
                     "gbps": gbps, "ratio": ratio})
        print(row_line(rows[-1]))
    h = host_overhead()
    print()
    print("\n".join(host_lines(h)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"gpu": dev.name, "torch": torch.__version__, "date": date, "reps": a.reps,
                       "timing": "call" if a.ungated else "gpu", "rows": rows, "host_us": h}, f,
                      indent=1)


TIMING = {
    "gpu": "GPU time: each call behind a GPU-side sleep, so the events hold the kernels alone "
           "(JAX, on its own streams, ungated)",
    "call": "call time: no sleep before a call, so the events also hold the host time the call "
            "spends after the first event (what a Python caller waits on an idle GPU)",
}


def report(paths, md):
    """docs/results.md's Python section (between its python markers) from runs' JSON."""
    out = ["<!-- python:begin -->", "## Python: tmakit against torch, torch.compile, CuPy and "
           "JAX", "",
           "`python3 bench/python_peers.py --reps 20 --json OUT.json` (add `--ungated` for call "
           "time), one process per run, tables by `--report`. Every peer's result is checked bit "
           "for bit against torch eager before it is timed; the L2 is flushed (a 256 MB write) "
           "before every timed call; median of the repetitions; GB/s = bytes read + written; "
           "ratio = tmakit / the best other. `-`: not run (CuPy has no bfloat16).", ""]
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        out += ["### Python: %s, torch %s, %s, %s repetitions" % (
                    d["gpu"], d.get("torch", "?"), d.get("date", "?"), d.get("reps", "?")), "",
                "%s (data: docs/data/%s)." % (TIMING[d.get("timing", "call")],
                                             p.rsplit("/", 1)[-1]), "",
                ] + HEADER + [row_line(r) for r in d["rows"]]
        ratios = [r["ratio"] for r in d["rows"]]
        low = [x for x in ratios if x is not None and x < 1.05]
        out += ["", "Lowest ratio %.2f; %d of %d cells under 1.05." % (
            min(x for x in ratios if x is not None), len(low), len(ratios)), "",
            ] + host_lines(d["host_us"]) + [""]
    out.append("<!-- python:end -->")
    with open(md) as f:
        text = f.read()
    section = "\n".join(out)
    if "<!-- python:begin -->" in text:
        head, rest = text.split("<!-- python:begin -->", 1)
        text = head + section + rest.split("<!-- python:end -->", 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n\n" + section + "\n"
    with open(md, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
