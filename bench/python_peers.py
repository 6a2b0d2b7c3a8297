#!/usr/bin/env python3
"""tmakit from Python against what a Python user would call instead, in one process, each result
verified before it is timed: torch eager (x.t().contiguous() / x.permute(...).contiguous()),
torch.compile of the same (default mode and max-autotune-no-cudagraphs), CuPy
(cupy.ascontiguousarray(x.T)) and JAX/XLA (jnp.transpose under jax.jit), and a copy of the same
bytes. Two timings per call, the L2 flushed (a 256 MB write) before each, medians of the
repetitions, GB/s = bytes read + written:
  GPU time   the summed durations of the kernels (and copies) the call ran, from the CUDA
             profiler (kernel_ms): the same clock for every peer, XLA's streams included;
  call time  CUDA events around the call on an idle GPU (time_one): what a caller waits, the
             host's time included.
Then the host cost per call (64 x 64 f32, asynchronous calls on a host clock): the binding's
bare C++ call, tmakit.transpose, a plan's call, the torch operator, torch eager.

usage: python3 bench/python_peers.py [--reps 20] [--json OUT.json] [--host-only]
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
    ("weights", (4096, 11008), "bfloat16", None),
    ("permute", (8, 4096, 32, 128), "bfloat16", (0, 2, 1, 3)),
    ("permute", (8, 32, 4096, 128), "bfloat16", (0, 2, 1, 3)),
    ("permute", (8, 2048, 3, 16, 64), "bfloat16", (2, 0, 3, 1, 4)),
    ("permute", (16, 197, 12, 64), "float32", (0, 2, 1, 3)),
    ("permute", (64, 256, 56, 56), "float16", (0, 2, 3, 1)),
    ("permute", (64, 56, 56, 256), "float16", (0, 3, 1, 2)),
]
# weights: a Llama MLP weight's W^T; permute: attention heads both ways, a qkv split
# (B, S, 3, H, D) -> (3, B, H, S, D), ViT heads, NCHW -> NHWC and back.


def peers(x, perm):
    """name -> zero-argument callable returning the result (a torch tensor or other array)."""
    p = perm if perm is not None else ((1, 0) if x.dim() == 2 else (0, 2, 1))
    out = {"tmakit": (lambda: tmakit.permute(x, p)) if perm is not None or x.dim() != 2
           else (lambda: tmakit.transpose(x))}
    out["torch"] = lambda: x.permute(*p).contiguous()
    torch._dynamo.reset()  # a fresh compile per case (the lambda's code is shared by all cases)
    for name, mode in (("torch.compile", None), ("max-autotune", "max-autotune-no-cudagraphs")):
        try:
            f = torch.compile(lambda t: t.permute(*p).contiguous(), mode=mode)
            f(x)
            out[name] = (lambda f: lambda: f(x))(f)
        except Exception as e:  # noqa: BLE001
            print("# %s unavailable: %s" % (name, str(e).splitlines()[0]))
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


def kernel_ms(fn, flush, reps):
    """Median milliseconds of the GPU kernels one fn() launches, from the CUDA profiler
    (torch.profiler, CUPTI: every kernel of the process, on any stream, XLA's included): the GPU
    time of a peer that runs on streams of its own, which a sleep on torch's stream cannot gate.
    None when the profiler saw no kernel."""
    from torch.profiler import ProfilerActivity, profile
    ms = []
    for _ in range(reps):
        flush.fill_(1)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as prof:
            y = fn()
            if hasattr(y, "block_until_ready"):
                y.block_until_ready()
            torch.cuda.synchronize()
        us = sum(e.time_range.elapsed_us() for e in prof.events()
                 if e.device_type == torch.autograd.DeviceType.CUDA)
        if us > 0:
            ms.append(us / 1e3)
    return statistics.median(ms) if ms else None


def time_one(fn, flush, reps):
    """Median milliseconds of fn() between two CUDA events on an idle GPU: the call time, the
    host's time included (the GPU time is kernel_ms's). JAX (its own streams) ends at
    block_until_ready."""
    ms = []
    for _ in range(reps):
        flush.fill_(1)
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        y = fn()
        if hasattr(y, "block_until_ready"):  # JAX runs on XLA's streams: end when it is done
            y.block_until_ready()
        b.record()
        torch.cuda.synchronize()
        ms.append(a.elapsed_time(b))
    return statistics.median(ms)


HEADER = ["| class | shape | dtype | tmakit GB/s | best other | GB/s | ratio | torch | "
          "torch.compile | max-autotune | cupy | jax | copy |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]


def _best_other(gbps):
    """(name, GB/s) of the fastest verified peer other than tmakit, or (None, None)."""
    others = {k: v for k, v in gbps.items() if k != "tmakit" and v}
    best = max(others, key=others.get) if others else None
    return best, others.get(best)


def row_line(r, key="gbps"):
    """A row of the table from a run's row (as the JSON holds it); key: "gbps" (GPU time) or
    "gbps_call" (call time). A peer above the copy rate is marked `!`."""
    g = dict(r[key])
    copy = g.pop("copy", None)
    best, best_gbps = _best_other(g)
    ratio = g["tmakit"] / best_gbps if best and g.get("tmakit") else None

    def fmt(v):
        if not v:
            return "-"
        return "%.0f%s" % (v, " !" if copy and v > 1.02 * copy else "")
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        r["class"], "x".join(map(str, r["shape"])) +
        ("" if r["perm"] is None else " (%s)" % ", ".join(map(str, r["perm"]))),
        r["dtype"].replace("torch.", ""), fmt(g.get("tmakit")), best or "-", fmt(best_gbps),
        "%.2f" % ratio if ratio else "-", fmt(g.get("torch")), fmt(g.get("torch.compile")),
        fmt(g.get("max-autotune")), fmt(g.get("cupy")), fmt(g.get("jax")), fmt(copy))


def ratios(rows, key="gbps"):
    out = []
    for r in rows:
        g = {k: v for k, v in r[key].items() if k != "copy"}
        best, best_gbps = _best_other(g)
        out.append(g["tmakit"] / best_gbps if best and g.get("tmakit") else None)
    return out


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
    new = lambda: tmakit.transpose(x)  # noqa: E731
    p = tmakit.plan(x)
    planned = lambda: p(x, out=y)  # noqa: E731
    import importlib
    torch_ops = importlib.import_module("tmakit.ops")
    op = lambda: torch_ops.transpose(x)  # noqa: E731
    eager = lambda: x.t().contiguous()  # noqa: E731
    res = {}
    for name, f in (("C++ call (binding)", raw), ("tmakit.transpose", full),
                    ("tmakit.transpose, new result", new), ("a tmakit.plan's call", planned),
                    ("tmakit.ops.transpose (torch operator)", op),
                    ("torch eager x.t().contiguous()", eager)):
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
        gbps, gbps_call = {}, {}
        moved = 2 * x.numel() * x.element_size()
        for name, fn in fns.items():
            y = as_torch(fn())
            if y.shape != ref.shape or not torch.equal(y.reshape(-1).view(torch.uint8),
                                                       ref.reshape(-1).view(torch.uint8)):
                gbps[name] = gbps_call[name] = None
                print("# %s %s: %s gave a wrong result: not timed" % (cls, shape, name))
                continue
            gbps_call[name] = moved / (time_one(fn, flush, a.reps) * 1e6)
            k = kernel_ms(fn, flush, a.reps)
            gbps[name] = moved / (k * 1e6) if k else None
        dst = torch.empty_like(x)
        copy = lambda: dst.copy_(x)  # noqa: E731  the copy rate the peers are held to
        gbps["copy"] = moved / (kernel_ms(copy, flush, a.reps) * 1e6)
        gbps_call["copy"] = moved / (time_one(copy, flush, a.reps) * 1e6)
        rows.append({"class": cls, "shape": shape, "dtype": str(dtype), "perm": perm,
                     "gbps": gbps, "gbps_call": gbps_call})
        print(row_line(rows[-1]), "   call time:", row_line(rows[-1], "gbps_call"))
    h = host_overhead()
    print()
    print("\n".join(host_lines(h)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"gpu": dev.name, "torch": torch.__version__, "date": date, "reps": a.reps,
                       "rows": rows, "host_us": h}, f, indent=1)


TIMING = {
    "gbps": "GPU time: the durations of the kernels (and copies) each call ran, from the CUDA "
            "profiler (CUPTI through torch.profiler), the same clock for every peer and XLA's "
            "streams included",
    "gbps_call": "call time: no sleep before a call, so the events also hold the host time the "
                 "call spends after the first event (what a Python caller waits on an idle GPU)",
}


OLD_TIMING = {  # runs of the earlier format: one timing per file
    "gpu": "GPU time, the earlier method: CUDA events behind a GPU-side sleep (JAX ungated, its "
           "own streams)",
    "call": TIMING["gbps_call"],
}


def _geomean(xs):
    import math
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def report(paths, md):
    """docs/results.md's Python section (between its python markers) from runs' JSON."""
    out = ["<!-- python:begin -->", "## Python: tmakit against torch, torch.compile, CuPy and "
           "JAX", "",
           "`python3 bench/python_peers.py --reps 20 --json OUT.json`, one process per GPU, "
           "tables by `--report`. Every peer's result is checked bit for bit against torch eager "
           "before it is timed; the L2 is flushed (a 256 MB write) before every timed call; "
           "median of the repetitions; GB/s = bytes read + written; ratio = tmakit / the best "
           "other; copy: `dst.copy_(x)` of the same bytes, and `!` marks a peer above it. "
           "torch.compile: the default mode; max-autotune: `mode=\"max-autotune-no-cudagraphs\"`. "
           "`-`: not run (CuPy has no bfloat16).", ""]
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        keys = ["gbps", "gbps_call"] if "gbps_call" in d["rows"][0] else ["gbps"]
        for key in keys:
            # A run of the earlier format: one timing per file, named by its "timing" key.
            how = TIMING[key] if len(keys) == 2 else OLD_TIMING[d.get("timing", "call")]
            kind = ("GPU time" if key == "gbps" else "call time") if len(keys) == 2 else \
                ("GPU time" if d.get("timing") == "gpu" else "call time")
            rs = ratios(d["rows"], key)
            low = [x for x in rs if x is not None and x < 1.0]
            out += ["### Python, %s: %s, torch %s, %s, %s repetitions" % (
                        kind, d["gpu"], d.get("torch", "?"), d.get("date", "?"),
                        d.get("reps", "?")), "",
                    "%s (data: docs/data/%s)." % (how, p.rsplit("/", 1)[-1]), "",
                    ] + HEADER + [row_line(r, key) for r in d["rows"]]
            out += ["", "Geometric mean of the ratio %.2f; lowest %.2f; %d of %d cells under "
                    "1.00." % (_geomean(rs), min(x for x in rs if x is not None), len(low),
                               len(rs)), ""]
        out += host_lines(d["host_us"]) + [""]
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
