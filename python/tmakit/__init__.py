"""tmakit from Python: Hopper TMA transposes and permutations on torch, CuPy and JAX arrays.

    import torch, tmakit
    x = torch.randn(4096, 1000, device="cuda")
    y = tmakit.transpose(x)                  # == x.T.contiguous(), bit for bit
    z = tmakit.permute(x.view(8, 512, 1000), (2, 0, 1))
    p = tmakit.plan(x, tuning="measure")     # choose once (timed, kept as wisdom), run often
    y = p(x)

Arrays are used where they lie (no copy): a CUDA torch tensor, a CuPy array, a JAX array on a
GPU, or any other DLPack producer on a CUDA device (read through the protocol's C structs, the
array made ready on the legacy default stream by the stream handshake: dtypes that
__cuda_array_interface__ cannot name, such as bfloat16, included). The result is a new array of the same library, or `out=`. The call runs on the caller's
current stream (torch's current stream for torch tensors, CuPy's for CuPy arrays; JAX arrays
are made ready first and the call waits for its kernel). Strided views are strided calls: the
strides go to the C++ library as they are, never through a hidden copy. Every error is an
exception with tmakit's message, raised before anything is written.
"""
import sys as _sys

from . import _tmakit
from . import tensormap  # noqa: F401  (tmakit.tensormap.validate / explain)

__all__ = ["transpose", "transpose_accumulate", "permute", "variants", "explain_permute",
           "tensormap", "plan", "plan_accumulate", "Plan", "load_wisdom", "save_wisdom",
           "export_wisdom", "clear_wisdom"]

_ACC_TYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
              "int32": "i32"}


# ---- DLPack (the protocol's C structs, read through ctypes: no library needed) ----
import ctypes as _ct


class _DLDevice(_ct.Structure):
    _fields_ = [("device_type", _ct.c_int32), ("device_id", _ct.c_int32)]


class _DLDataType(_ct.Structure):
    _fields_ = [("code", _ct.c_uint8), ("bits", _ct.c_uint8), ("lanes", _ct.c_uint16)]


class _DLTensor(_ct.Structure):
    _fields_ = [("data", _ct.c_void_p), ("device", _DLDevice), ("ndim", _ct.c_int32),
                ("dtype", _DLDataType), ("shape", _ct.POINTER(_ct.c_int64)),
                ("strides", _ct.POINTER(_ct.c_int64)), ("byte_offset", _ct.c_uint64)]


class _DLManagedTensor(_ct.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", _ct.c_void_p),
                ("deleter", _ct.c_void_p)]


_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex", 6: "bool"}
_capsule_name = _ct.pythonapi.PyCapsule_GetName
_capsule_name.restype, _capsule_name.argtypes = _ct.c_char_p, [_ct.py_object]
_capsule_pointer = _ct.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = _ct.c_void_p, [_ct.py_object, _ct.c_char_p]


def _dlpack_view(x, what, stream):
    """(capsule, address, shape, strides in elements, element bytes, dtype name, device id) of a
    DLPack producer on a CUDA device. The protocol's stream handshake: the producer makes the
    array ready for `stream` (None: the legacy default stream) before handing it over. The
    capsule is kept (not consumed) while the call runs: the producer's array stays alive."""
    dev_type, dev_id = x.__dlpack_device__()
    if int(dev_type) not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise ValueError("tmakit: %s is a DLPack array on device type %d (kDLCUDA is 2); tmakit "
                         "runs on CUDA arrays" % (what, int(dev_type)))
    try:
        cap = x.__dlpack__(stream=stream)
    except TypeError:  # a producer of the protocol before the stream argument
        cap = x.__dlpack__()
    name = _capsule_name(cap)
    if name not in (b"dltensor", b"dltensor_versioned"):
        raise ValueError("tmakit: %s's DLPack capsule is %r (already used?)" % (what, name))
    if name == b"dltensor_versioned":
        # DLManagedTensorVersioned: {version (2 x u32), manager_ctx, deleter, flags (u64),
        # dl_tensor}: the tensor after 32 bytes.
        t = _DLTensor.from_address(_capsule_pointer(cap, name) + 32)
    else:
        t = _DLManagedTensor.from_address(_capsule_pointer(cap, name)).dl_tensor
    dt = t.dtype
    if dt.lanes != 1 or dt.bits % 8 or dt.code not in _DL_CODES:
        raise ValueError("tmakit: %s has DLPack dtype code %d, %d bits, %d lanes: tmakit takes "
                         "whole-byte scalars" % (what, dt.code, dt.bits, dt.lanes))
    itemsize = dt.bits // 8
    shape = tuple(t.shape[k] for k in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[k] for k in range(t.ndim))
    else:  # NULL strides: C-contiguous
        st, acc = [], 1
        for n in reversed(shape):
            st.insert(0, acc)
            acc *= n
        strides = tuple(st)
    dtype = _DL_CODES[dt.code] + str(dt.bits)
    dtype = {"bfloat16": "bfloat16", "bool8": "bool"}.get(dtype, dtype)
    return cap, (t.data or 0) + t.byte_offset, shape, strides, itemsize, dtype, int(dev_id)


_torch = None  # the torch module, once a torch tensor has been seen
_TORCH_DTYPES = {}  # torch.dtype -> its name ("float32"), filled as dtypes are seen


def _torch_stream(device_index):
    """torch's current stream on a device, as an address: the raw query (a fraction of a
    microsecond) where this torch has it, else the public call (a few microseconds)."""
    raw = getattr(_torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(device_index)
    return _torch.cuda.current_stream(device_index).cuda_stream


class _Array:
    """What tmakit needs of an array: address, shape, strides in elements, element size, dtype
    name, its library, and (for an operand that picks the stream) the stream to run on.
    Per-call cost matters here: the torch path reads each attribute once and nothing else."""

    __slots__ = ("obj", "lib", "ptr", "shape", "strides", "itemsize", "dtype", "stream", "sync",
                 "device", "capsule")

    def __init__(self, x, what, want_stream=True):
        global _torch
        mod = type(x).__module__.split(".", 1)[0]
        self.obj = x
        self.stream = 0
        self.sync = False
        self.device = None
        self.capsule = None
        if mod == "torch":
            if _torch is None:
                import torch
                _torch = torch
            if not x.is_cuda:
                raise ValueError("tmakit: %s is a torch tensor on %s; tmakit runs on CUDA arrays "
                                 "(move it with .cuda())" % (what, x.device))
            self.lib = "torch"
            self.ptr = x.data_ptr()
            self.shape = tuple(x.shape)
            self.strides = x.stride()
            self.itemsize = x.element_size()
            dt = x.dtype
            name = _TORCH_DTYPES.get(dt)
            if name is None:
                name = _TORCH_DTYPES[dt] = str(dt).replace("torch.", "")
            self.dtype = name
            self.device = x.device
            if want_stream:
                self.stream = _torch_stream(x.get_device())
        elif hasattr(x, "__cuda_array_interface__"):
            cai = x.__cuda_array_interface__
            self.lib = "jax" if mod in ("jax", "jaxlib") else ("cupy" if mod == "cupy" else mod)
            self.ptr = cai["data"][0]
            self.shape = tuple(cai["shape"])
            import numpy as np
            dt = getattr(x, "dtype", None)
            self.itemsize = np.dtype(dt).itemsize if dt is not None else np.dtype(cai["typestr"]).itemsize
            self.dtype = str(dt) if dt is not None else np.dtype(cai["typestr"]).name
            st = cai.get("strides")
            if st is None:  # C-contiguous
                st, acc = [], 1
                for n in reversed(self.shape):
                    st.insert(0, acc)
                    acc *= n
                self.strides = tuple(st)
            else:
                if any(s % self.itemsize for s in st):
                    raise ValueError("tmakit: %s has strides %s that are not whole elements"
                                     % (what, st))
                self.strides = tuple(s // self.itemsize for s in st)
            if want_stream and self.lib == "cupy":
                import cupy
                self.stream = cupy.cuda.get_current_stream().ptr
            elif want_stream:  # JAX (XLA's own streams): made ready, the call waits for its kernel
                if hasattr(x, "block_until_ready"):
                    x.block_until_ready()
                self.sync = True
        elif hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
            # Any other producer, and dtypes __cuda_array_interface__ has no name for (JAX's
            # bfloat16): DLPack, ready on the legacy default stream, which the call runs on.
            self.lib = "jax" if mod in ("jax", "jaxlib") else mod
            (self.capsule, self.ptr, self.shape, self.strides, self.itemsize, self.dtype,
             _) = _dlpack_view(x, what, 1)
            self.sync = self.lib == "jax"  # as above: a JAX result is read right after
        else:
            raise TypeError("tmakit: %s is a %s.%s; tmakit takes CUDA arrays: torch tensors, CuPy "
                            "arrays, JAX arrays on a GPU, or any DLPack producer on a CUDA "
                            "device" % (what, type(x).__module__, type(x).__name__))

    def new(self, shape):
        """A new C-contiguous array of this library, dtype and device."""
        if self.lib == "torch":
            return _torch.empty(shape, dtype=self.obj.dtype, device=self.device)
        if self.lib == "cupy":
            import cupy
            return cupy.empty(shape, dtype=self.obj.dtype)
        if self.lib == "jax":
            return _JaxOut(shape, self.obj.dtype)
        raise ValueError("tmakit: a result in %s's arrays needs out= (tmakit makes new torch, CuPy "
                         "and JAX arrays only)" % self.lib)


class _JaxOut:
    """A JAX result: written through a CuPy (or torch) buffer, handed over by DLPack."""

    def __init__(self, shape, dtype):
        try:
            import cupy
            self.buf = cupy.empty(shape, dtype=dtype)
        except (ImportError, TypeError, ValueError):  # no CuPy, or a dtype it lacks (bfloat16)
            import torch
            import numpy as np
            tdt = getattr(torch, np.dtype(dtype).name)
            self.buf = torch.empty(shape, dtype=tdt, device="cuda")

    def finish(self):
        import jax.dlpack
        return jax.dlpack.from_dlpack(self.buf)


def _out(a, out, shape, what):
    """The destination: `out` checked against the expected shape and dtype, or a new array."""
    if out is None:
        o = a.new(shape)
        target = o.buf if isinstance(o, _JaxOut) else o
        return o, _Array(target, "out", want_stream=False)
    d = _Array(out, "out", want_stream=False)
    if d.shape != tuple(shape):
        raise ValueError("tmakit.%s: out has shape %s, the result has %s" % (what, d.shape,
                                                                             tuple(shape)))
    if d.itemsize != a.itemsize or d.dtype != a.dtype:
        raise ValueError("tmakit.%s: out is %s, x is %s" % (what, d.dtype, a.dtype))
    return out, d


def _result(o):
    return o.finish() if isinstance(o, _JaxOut) else o


def _row_major(a):
    """(batch, rows, cols, ld, batch stride) when a is a batch of row-major matrices with
    leading dimensions (unit inner stride, rows ld >= cols apart, matrices apart enough)."""
    if len(a.shape) == 2:
        b, r, c = 1, a.shape[0], a.shape[1]
        sb, sr, sc = 0, a.strides[0], a.strides[1]
    else:
        b, r, c = a.shape
        sb, sr, sc = a.strides
    if sc != 1 and c > 1:
        return None
    ld = sr if r > 1 else max(c, 1)
    if ld < c:
        return None
    bs = sb if b > 1 else ld * r
    if b > 1 and bs < ld * (r - 1) + c:
        return None
    return b, r, c, ld, bs


def _check_matrix(a, what):
    if len(a.shape) not in (2, 3):
        raise ValueError("tmakit.%s: x must be 2-D (rows, cols) or 3-D (batch, rows, cols); it "
                         "has shape %s (tmakit.permute takes any rank up to 8)" % (what, a.shape))


def _torch_ops(x, out):
    """tmakit.ops (the torch operators) when x is a torch tensor that torch.compile is tracing,
    or that needs a gradient, and no out= is given; else None (the direct call)."""
    t = _sys.modules.get("torch")
    if t is None or out is not None or not isinstance(x, t.Tensor):
        return None
    if t.compiler.is_compiling() or (x.requires_grad and t.is_grad_enabled()):
        from . import ops
        return ops
    return None


def transpose(x, *, variant="auto", out=None):
    """x.T for a 2-D array, x.transpose(1, 2) for a 3-D batch, as a new C-contiguous array of
    x's library (or written into `out`). variant: "auto" or a technique of variants().
    A torch tensor under torch.compile, or one that needs a gradient, goes through the
    operator tmakit.ops.transpose (traced into the graph, differentiable)."""
    ops = _torch_ops(x, out)
    if ops is not None:
        if x.dim() not in (2, 3):
            raise ValueError("tmakit.transpose: x must be 2-D (rows, cols) or 3-D (batch, rows, "
                             "cols); it has shape %s" % (tuple(x.shape),))
        return ops.transpose(x, variant)
    return _transpose_direct(x, variant, out)


def _transpose_direct(x, variant, out):
    a = _Array(x, "x")
    _check_matrix(a, "transpose")
    shape = a.shape[:-2] + (a.shape[-1], a.shape[-2])
    if out is None and a.lib == "torch":
        # The common call, kept short (host time per call is measured against torch's own
        # x.t().contiguous()): a new C-contiguous result, whose layout is known without reading
        # it back, and a source that is (a batch of) row-major matrices.
        src = _row_major(a)
        if src is not None:
            b, r, c, lds, bss = src
            o = x.new_empty(shape)  # dtype and device taken over, nothing parsed
            _tmakit.transpose(a.ptr, o.data_ptr(), r, c, a.itemsize, b, lds, r, bss, r * c,
                              variant, a.stream, a.sync)
            return o
    o, d = _out(a, out, shape, "transpose")
    src, dst = _row_major(a), _row_major(d)
    if src is not None and dst is not None:
        b, r, c, lds, bss = src
        _, _, _, ldd, bsd = dst
        _tmakit.transpose(a.ptr, d.ptr, r, c, a.itemsize, b, lds, ldd, bss, bsd, variant,
                          a.stream, a.sync)
    else:  # a view no matrix layout describes: the same call as a strided permutation
        perm = [1, 0] if len(a.shape) == 2 else [0, 2, 1]
        _tmakit.permute(a.ptr, d.ptr, list(a.shape), perm, a.itemsize, list(a.strides),
                        list(d.strides), "auto" if variant == "auto" else variant, a.stream,
                        a.sync)
    return _result(o)


def transpose_accumulate(x, out, *, alpha=1.0, beta=1.0, variant="auto"):
    """out = alpha * x.T + beta * out, in out's place (x 2-D, or a 3-D batch transposed per
    matrix). Types: float16, bfloat16, float32, float64, int32. Returns out. Under
    torch.compile it is the operator tmakit.ops.transpose_accumulate_ (for a gradient, use the
    functional tmakit.ops.transpose_accumulate)."""
    t = _sys.modules.get("torch")
    if t is not None and isinstance(x, t.Tensor) and t.compiler.is_compiling():
        from . import ops
        ops.transpose_accumulate_(x, out, float(alpha), float(beta), variant)
        return out
    return _transpose_accumulate_direct(x, out, alpha, beta, variant)


def _transpose_accumulate_direct(x, out, alpha, beta, variant):
    a = _Array(x, "x")
    _check_matrix(a, "transpose_accumulate")
    t = _ACC_TYPES.get(a.dtype)
    if t is None:
        raise ValueError("tmakit.transpose_accumulate: x is %s; the accumulate types are %s"
                         % (a.dtype, ", ".join(_ACC_TYPES)))
    shape = a.shape[:-2] + (a.shape[-1], a.shape[-2])
    _, d = _out(a, out, shape, "transpose_accumulate")
    src, dst = _row_major(a), _row_major(d)
    if src is None or dst is None:
        raise ValueError("tmakit.transpose_accumulate: x and out must be (batches of) row-major "
                         "matrices with unit inner stride; x has strides %s, out %s"
                         % (a.strides, d.strides))
    b, r, c, lds, bss = src
    _, _, _, ldd, bsd = dst
    _tmakit.transpose_accumulate(a.ptr, d.ptr, r, c, t, float(alpha), float(beta), b, lds, ldd,
                                 bss, bsd, variant, a.stream, a.sync)
    return out


def permute(x, dims, *, variant="auto", out=None):
    """x.permute(dims) made contiguous (ranks 1-8), as a new array of x's library or into
    `out`; strided x and out are strided calls. A torch tensor under torch.compile, or one that
    needs a gradient, goes through the operator tmakit.ops.permute."""
    ops = _torch_ops(x, out)
    if ops is not None:
        return ops.permute(x, [int(p) for p in dims], variant)
    return _permute_direct(x, dims, variant, out)


def _permute_direct(x, dims, variant, out):
    a = _Array(x, "x")
    dims = [int(p) for p in dims]
    if sorted(dims) != list(range(len(a.shape))):
        raise ValueError("tmakit.permute: dims %s is not a permutation of the %d dimensions of "
                         "x" % (dims, len(a.shape)))
    shape = tuple(a.shape[p] for p in dims)
    o, d = _out(a, out, shape, "permute")
    _tmakit.permute(a.ptr, d.ptr, list(a.shape), dims, a.itemsize, list(a.strides),
                    list(d.strides), variant, a.stream, a.sync)
    return _result(o)


def _native_property(name, doc):
    """A read-only attribute of the C++ plan underneath."""
    return property(lambda self: getattr(self._native, name), doc=doc)


class Plan:
    """A transpose (or transpose-accumulate) of one problem: x's shape, dtype, strides and array
    library. The checks and the technique's choice happened when it was made; a call runs the
    launch on the operands given (any addresses), on the current stream. Made by plan() and
    plan_accumulate(); the C++ tmakit::Plan underneath."""

    def __init__(self, native, a, layout, acc):
        self._native = native
        self._shape, self._dtype, self._lib = a.shape, a.dtype, a.lib
        self._layout = layout  # (batch, rows, cols, ld, batch stride) of x
        self._acc = acc

    variant = _native_property("variant", "The technique it runs on aligned operands.")
    fallback_reason = _native_property("fallback_reason",
                                       "Why that is not the one asked for, or empty.")
    source = _native_property("source", 'How it was chosen: "named", "heuristic", "measured" or '
                                        '"wisdom".')
    tuning = _native_property("tuning", '"heuristic" or "measure".')
    measured_us = _native_property("measured_us", "The winner's median when measured (or from "
                                                  "wisdom), else 0.")
    tune_ms = _native_property("tune_ms", "Host time spent measuring when it was made (0: none).")
    timings = _native_property("timings", "[(technique, microseconds)] of every candidate timed, "
                                          "fastest first.")

    def explain(self):
        """The problem, the device, the technique and why, in words."""
        return self._native.explain()

    def __repr__(self):
        return "<tmakit.Plan %s %s %s: %s (%s)>" % (
            "transpose_accumulate" if self._acc else "transpose",
            "x".join(map(str, self._shape)), self._dtype, self.variant, self.source)

    def _check(self, a):
        if a.lib != self._lib or a.shape != self._shape or a.dtype != self._dtype:
            raise ValueError("tmakit.Plan: the plan is for a %s %s array of shape %s; x is a %s "
                             "%s array of shape %s" % (self._lib, self._dtype, self._shape,
                                                       a.lib, a.dtype, a.shape))
        if _row_major(a) != self._layout:
            raise ValueError("tmakit.Plan: x has strides %s; the plan's x had the layout "
                             "(batch, rows, cols, leading dimension, batch stride) %s"
                             % (a.strides, self._layout))

    def _dst(self, d, what):
        b, r, c, _, _ = self._layout
        if _row_major(d) != (b, c, r, r, r * c):
            raise ValueError("tmakit.Plan: %s must be C-contiguous (strides %s)" % (what,
                                                                                 d.strides))

    def __call__(self, x, out=None):
        """transpose(x) (out=: written there), or for an accumulate plan
        out = alpha * x.T + beta * out (out required). Returns the result."""
        a = _Array(x, "x")
        self._check(a)
        shape = a.shape[:-2] + (a.shape[-1], a.shape[-2])
        if self._acc and out is None:
            raise ValueError("tmakit.Plan: an accumulate plan needs out (out = alpha * x.T + "
                             "beta * out)")
        o, d = _out(a, out, shape, "Plan")
        self._dst(d, "out")
        self._native.run(a.ptr, d.ptr, a.stream)
        return out if self._acc else _result(o)


def _plan_layout(x, what):
    a = _Array(x, "x")
    _check_matrix(a, what)
    layout = _row_major(a)
    if layout is None:
        raise ValueError("tmakit.%s: x must be (a batch of) row-major matrices with unit inner "
                         "stride (strides %s); tmakit.transpose takes any view" % (what,
                                                                                   a.strides))
    return a, layout


def plan(x, *, variant="auto", tuning="heuristic", rounds=7, use_wisdom=True):
    """A Plan for transpose(x) on arrays like x (shape, dtype, strides, library); the result is
    C-contiguous. tuning="measure" times every technique that can run it (on scratch buffers,
    L2 flushed, median of `rounds`) and keeps the fastest, recorded as wisdom for this GPU;
    "heuristic" (the default) takes the built-in table's pick, or the wisdom recorded."""
    a, (b, r, c, ld, bs) = _plan_layout(x, "plan")
    native = _tmakit.make_plan(r, c, a.itemsize, b, ld, r, bs, r * c, variant, a.sync, tuning,
                               int(rounds), bool(use_wisdom))
    return Plan(native, a, (b, r, c, ld, bs), None)


def plan_accumulate(x, *, alpha=1.0, beta=1.0, variant="auto", tuning="heuristic", rounds=7,
                    use_wisdom=True):
    """A Plan for out = alpha * x.T + beta * out on arrays like x (out C-contiguous); called as
    p(x, out). Types as transpose_accumulate."""
    a, (b, r, c, ld, bs) = _plan_layout(x, "plan_accumulate")
    t = _ACC_TYPES.get(a.dtype)
    if t is None:
        raise ValueError("tmakit.plan_accumulate: x is %s; the accumulate types are %s"
                         % (a.dtype, ", ".join(_ACC_TYPES)))
    native = _tmakit.make_accumulate_plan(r, c, t, float(alpha), float(beta), b, ld, r, bs, r * c,
                                          variant, a.sync, tuning, int(rounds), bool(use_wisdom))
    return Plan(native, a, (b, r, c, ld, bs), (alpha, beta))


def load_wisdom(path):
    """Merges a wisdom file (measured choices; `tmakit tune --wisdom FILE` writes one too).
    Returns (entries, for this GPU, for other GPUs)."""
    return _tmakit.load_wisdom(str(path))


def save_wisdom(path):
    """Writes every measured choice held (all GPUs) to path."""
    _tmakit.save_wisdom(str(path))


def export_wisdom():
    """The wisdom held, as the file's text."""
    return _tmakit.export_wisdom()


def clear_wisdom():
    """Forgets every measured choice held in this process."""
    _tmakit.clear_wisdom()


def variants():
    """Every technique: dicts of token, description, kind (transpose, copy, accumulate,
    permute), min_cc, uses_tma and elem_bytes."""
    return _tmakit.variants()


def explain_permute(shape, dims, elem_bytes, src_strides=(), dst_strides=()):
    """What permute() does with a problem, in words, with no GPU: the reduction, the kernel's
    walk and permute_tma's two tensor maps."""
    return _tmakit.explain_permute(list(shape), [int(p) for p in dims], int(elem_bytes),
                                   list(src_strides), list(dst_strides))
