#!/usr/bin/env python3
"""tmakit from Python against what a Python user would call instead, in one process, each result
verified before it is timed: torch eager (x.t().contiguous() / x.permute(...).contiguous()),
torch.compile of the same, CuPy (cupy.ascontiguousarray(x.T)) and JAX/XLA (jnp.transpose under
jax.jit). CUDA events around each call, the L2 flushed (a 256 MB write) before every timed call,
median of the repetitions; GB/s = bytes read + written. Then the Python call's own host cost:
tmakit.transpose against the binding's bare C++ call (tmakit._tmakit.transpose with the
arguments prepared), 64 x 64 f32, asynchronous calls on a host clock.

usage: python3 bench/python_peers.py [--reps 20] [--json OUT.json] [--host-only]
Prints a markdown table (docs/results.md's Python section).
"""
import argparse
import json
import statistics
import time

import torch

import tmakit

CASES = [  # (class, shape, dtype, perm or None for a 2-D / batched transpose)
    ("square", (16384, 16384), torch.float32, None),
    ("square", (16384, 16384), torch.bfloat16, None),
    ("odd", (12345, 6789), torch.float32, None),
    ("odd", (12345, 6789), torch.float16, None),
    ("skinny", (4000000, 16), torch.float32, None),
    ("skinny", (16, 4000000), torch.float32, None),
    ("batched", (16384, 32, 32), torch.float32, None),
    ("batched", (3000, 97, 75), torch.float16, None),
    ("permute", (8, 4096, 32, 128), torch.bfloat16, (0, 2, 1, 3)),
    ("permute", (64, 256, 56, 56), torch.float16, (0, 2, 3, 1)),
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


def time_one(fn, flush, reps):
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
    a = ap.parse_args()
    dev = torch.cuda.get_device_properties(0)
    print("# %s, torch %s, %s" % (dev.name, torch.__version__, time.strftime("%Y-%m-%d %H:%M UTC",
                                                                          time.gmtime())))
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows = []
    print("| class | shape | dtype | tmakit GB/s | best other | GB/s | ratio | torch | torch.compile | cupy | jax |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for cls, shape, dtype, perm in ([] if a.host_only else CASES):
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
            gbps[name] = 2 * x.numel() * x.element_size() / (time_one(fn, flush, a.reps) * 1e6)
        others = {k: v for k, v in gbps.items() if k != "tmakit" and v}
        best = max(others, key=others.get) if others else None
        ratio = gbps["tmakit"] / others[best] if best and gbps.get("tmakit") else None
        fmt = lambda v: "%.0f" % v if v else "-"  # noqa: E731
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            cls, "x".join(map(str, shape)) + ("" if perm is None else " %s" % (perm,)),
            str(dtype).replace("torch.", ""), fmt(gbps.get("tmakit")), best or "-",
            fmt(others.get(best)), "%.2f" % ratio if ratio else "-", fmt(gbps.get("torch")),
            fmt(gbps.get("torch.compile")), fmt(gbps.get("cupy")), fmt(gbps.get("jax"))))
        rows.append({"class": cls, "shape": shape, "dtype": str(dtype), "perm": perm,
                     "gbps": gbps, "ratio": ratio})
    h = host_overhead()
    print()
    print("| host time per call, 64x64 f32, asynchronous | us |")
    print("|---|---|")
    for k, v in h.items():
        print("| %s | %.2f |" % (k, v))
    print("| tmakit.transpose over the binding's call | %.2f |"
          % (h["tmakit.transpose"] - h["C++ call (binding)"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"gpu": dev.name, "rows": rows, "host_us": h}, f, indent=1)


if __name__ == "__main__":
    main()
