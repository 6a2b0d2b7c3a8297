"""tmakit as torch operators: registered with torch.library, so that torch.compile (fullgraph
included) keeps them in its graph, CUDA graphs capture them, and autograd differentiates them.

    import torch, tmakit.ops
    y = tmakit.ops.transpose(x)                  # or torch.ops.tmakit.transpose(x)
    z = tmakit.ops.permute(x, [0, 2, 1, 3])
    w = tmakit.ops.transpose_accumulate(x, y, 2.0, 1.0)    # 2 * x^T + 1 * y, a new tensor
    tmakit.ops.transpose_accumulate_(x, y, 2.0, 1.0)       # the same, written into y

    f = torch.compile(lambda x: tmakit.ops.transpose(x) * 2, fullgraph=True)

Operators (namespace `tmakit`), each with a fake implementation (shapes and dtypes only: what
torch.compile traces with) and, for the functional ones, a gradient:
  transpose(x, variant)     x.transpose(-2, -1).contiguous(), rank 2-8; d/dx: transpose(grad)
  permute(x, dims, variant) x.permute(dims).contiguous(), rank 1-8; d/dx: permute(grad, dims^-1)
  transpose_accumulate(x, y, alpha, beta, variant)   alpha * x^T + beta * y as a new tensor
                            (y copied, then accumulated into: one more pass than the in-place
                            one); d/dx: alpha * transpose(grad), d/dy: beta * grad
  transpose_accumulate_(x, out, alpha, beta, variant)   out = alpha * x^T + beta * out in place
                            (declared as mutating out: compiles and captures; no gradient)
The work is tmakit.transpose / permute / transpose_accumulate on the caller's current stream.
Importing this module needs torch; `import tmakit` alone does not.
"""
from typing import List

import torch

from . import _permute_direct, _transpose_accumulate_direct, _transpose_direct

__all__ = ["transpose", "permute", "transpose_accumulate", "transpose_accumulate_", "calls"]

calls = {"transpose": 0, "permute": 0, "transpose_accumulate": 0}
"""How often each operator's CUDA work ran in this process (what the tests read to tell that a
compiled graph ran tmakit and not a decomposition of its own)."""


def _swap_last(rank):
    return list(range(rank - 2)) + [rank - 1, rank - 2]


def _src(x):
    """x as tmakit reads it: an expanded tensor (a stride of 0 over an extent above 1, as the
    gradient of a sum is) made dense first, since tmakit refuses a source whose elements alias."""
    if any(st == 0 and n > 1 for n, st in zip(x.shape, x.stride())):
        return x.contiguous()
    return x


def _check_rank(x, low, what):
    if x.dim() < low or x.dim() > 8:
        raise ValueError("tmakit.ops.%s: x has %d dimensions; it takes %d to 8" % (what, x.dim(),
                                                                                 low))


@torch.library.custom_op("tmakit::transpose", mutates_args=())
def transpose(x: torch.Tensor, variant: str = "auto") -> torch.Tensor:
    """x.transpose(-2, -1).contiguous(): a matrix or a batch of them (any leading dimensions)."""
    _check_rank(x, 2, "transpose")
    calls["transpose"] += 1
    if x.numel() == 0:
        return x.new_empty(x.shape[:-2] + (x.shape[-1], x.shape[-2]))
    x = _src(x)
    if x.dim() <= 3:
        return _transpose_direct(x, variant, None)
    return _permute_direct(x, _swap_last(x.dim()), variant, None)


@transpose.register_fake
def _(x, variant="auto"):
    _check_rank(x, 2, "transpose")
    return x.new_empty(x.shape[:-2] + (x.shape[-1], x.shape[-2]))


def _transpose_setup(ctx, inputs, output):
    ctx.variant = inputs[1]


def _transpose_backward(ctx, grad):
    # The variant named for the forward may not fit the transposed shape: auto picks again.
    return transpose(grad), None


transpose.register_autograd(_transpose_backward, setup_context=_transpose_setup)


@torch.library.custom_op("tmakit::permute", mutates_args=())
def permute(x: torch.Tensor, dims: List[int], variant: str = "auto") -> torch.Tensor:
    """x.permute(dims).contiguous(), rank 1-8."""
    _check_rank(x, 1, "permute")
    calls["permute"] += 1
    if x.numel() == 0:
        return x.new_empty([x.shape[d] for d in dims])
    return _permute_direct(_src(x), dims, variant, None)


@permute.register_fake
def _(x, dims, variant="auto"):
    _check_rank(x, 1, "permute")
    if sorted(dims) != list(range(x.dim())):
        raise ValueError("tmakit.ops.permute: dims %s is not a permutation of the %d dimensions "
                         "of x" % (list(dims), x.dim()))
    return x.new_empty([x.shape[d] for d in dims])


def _permute_setup(ctx, inputs, output):
    dims = inputs[1]
    inverse = [0] * len(dims)
    for k, d in enumerate(dims):
        inverse[d] = k
    ctx.inverse = inverse


def _permute_backward(ctx, grad):
    return permute(grad, ctx.inverse), None, None


permute.register_autograd(_permute_backward, setup_context=_permute_setup)


def _accumulate_shapes(x, y, what):
    if x.dim() not in (2, 3):
        raise ValueError("tmakit.ops.%s: x must be 2-D or a 3-D batch; it has shape %s"
                         % (what, tuple(x.shape)))
    want = tuple(x.shape[:-2]) + (x.shape[-1], x.shape[-2])
    if tuple(y.shape) != want:
        raise ValueError("tmakit.ops.%s: the accumulated tensor has shape %s; x^T has %s"
                         % (what, tuple(y.shape), want))
    if y.dtype != x.dtype:
        raise ValueError("tmakit.ops.%s: x is %s and the accumulated tensor %s" % (what, x.dtype,
                                                                                  y.dtype))


@torch.library.custom_op("tmakit::transpose_accumulate", mutates_args=())
def transpose_accumulate(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0,
                         beta: float = 1.0, variant: str = "auto") -> torch.Tensor:
    """alpha * x^T + beta * y, as a new tensor (x 2-D or a 3-D batch)."""
    _accumulate_shapes(x, y, "transpose_accumulate")
    calls["transpose_accumulate"] += 1
    out = y.contiguous().clone()
    if out.numel() == 0:
        return out
    _transpose_accumulate_direct(_src(x), out, alpha, beta, variant)
    return out


@transpose_accumulate.register_fake
def _(x, y, alpha=1.0, beta=1.0, variant="auto"):
    _accumulate_shapes(x, y, "transpose_accumulate")
    return torch.empty_like(y, memory_format=torch.contiguous_format)


def _accumulate_setup(ctx, inputs, output):
    ctx.alpha, ctx.beta = inputs[2], inputs[3]


def _accumulate_backward(ctx, grad):
    gx = gy = None
    if ctx.needs_input_grad[0]:
        gx = transpose(grad)
        if ctx.alpha != 1.0:
            gx = gx * ctx.alpha
    if ctx.needs_input_grad[1]:
        gy = grad * ctx.beta if ctx.beta != 1.0 else grad
    return gx, gy, None, None, None


transpose_accumulate.register_autograd(_accumulate_backward, setup_context=_accumulate_setup)


@torch.library.custom_op("tmakit::transpose_accumulate_", mutates_args=("out",))
def transpose_accumulate_(x: torch.Tensor, out: torch.Tensor, alpha: float = 1.0,
                          beta: float = 1.0, variant: str = "auto") -> None:
    """out = alpha * x^T + beta * out, in out's place."""
    _accumulate_shapes(x, out, "transpose_accumulate_")
    calls["transpose_accumulate"] += 1
    if out.numel() != 0:
        _transpose_accumulate_direct(_src(x), out, alpha, beta, variant)


@transpose_accumulate_.register_fake
def _(x, out, alpha=1.0, beta=1.0, variant="auto"):
    _accumulate_shapes(x, out, "transpose_accumulate_")
