"""tmakit.ops, the torch operators: equal to torch's own results, registered correctly
(torch.library.opcheck), compiled with torch.compile(fullgraph=True) without a graph break and
running tmakit there, captured into a CUDA graph, differentiated (gradcheck). Skipped without a
GPU (conftest.gpu), failed then under TMAKIT_REQUIRE_GPU=1."""
import pytest


@pytest.fixture
def ops(gpu):
    import tmakit.ops
    return tmakit.ops


def _same(a, b):
    import torch
    return (a.shape == b.shape and a.dtype == b.dtype and
            torch.equal(a.contiguous().reshape(-1).view(torch.uint8),
                        b.contiguous().reshape(-1).view(torch.uint8)))


def test_ops_equal_torch(gpu, ops):
    torch = gpu
    g = torch.Generator(device="cuda").manual_seed(5)
    for shape in [(31, 33), (4, 97, 75), (2, 3, 40, 17), (2, 2, 3, 5, 7)]:
        x = torch.randn(shape, generator=g, device="cuda")
        assert _same(ops.transpose(x), x.transpose(-2, -1).contiguous()), shape
        assert _same(torch.ops.tmakit.transpose(x), x.transpose(-2, -1).contiguous()), shape
        dims = list(range(x.dim()))[::-1]
        assert _same(ops.permute(x, dims), x.permute(*dims).contiguous()), shape
    x = torch.randn(300, 73, generator=g, device="cuda")[:, ::2]  # odd extent, stride 2
    assert _same(ops.transpose(x), x.t().contiguous())
    x = torch.randn(257, 129, generator=g, device="cuda")
    y = torch.randn(129, 257, generator=g, device="cuda")
    ref = x.t() * 2 + y * 0.5
    assert torch.allclose(ops.transpose_accumulate(x, y, 2.0, 0.5), ref)
    y2 = y.clone()
    assert ops.transpose_accumulate_(x, y2, 2.0, 0.5) is None and torch.allclose(y2, ref)
    with pytest.raises(ValueError, match="shape"):
        ops.transpose_accumulate(x, x, 1.0, 1.0)
    e = torch.empty(0, 5, device="cuda")
    assert ops.transpose(e).shape == (5, 0)


def test_opcheck(gpu, ops):
    torch = gpu
    x = torch.randn(37, 19, device="cuda", dtype=torch.float64, requires_grad=True)
    y = torch.randn(19, 37, device="cuda", dtype=torch.float64, requires_grad=True)
    z = torch.randn(3, 4, 5, 6, device="cuda", requires_grad=True)
    torch.library.opcheck(torch.ops.tmakit.transpose.default, (x, "auto"))
    torch.library.opcheck(torch.ops.tmakit.transpose.default, (z, "auto"))
    torch.library.opcheck(torch.ops.tmakit.permute.default, (z, [2, 0, 3, 1], "auto"))
    torch.library.opcheck(torch.ops.tmakit.transpose_accumulate.default,
                          (x, y, 2.0, 3.0, "auto"))
    torch.library.opcheck(torch.ops.tmakit.transpose_accumulate_.default,
                          (x.detach(), y.detach().clone(), 2.0, 1.0, "auto"))


def test_compile_fullgraph_runs_tmakit(gpu, ops):
    torch = gpu
    import tmakit

    def f(x, y):
        a = ops.transpose(x) * 2
        b = ops.permute(y, [0, 2, 1, 3])
        c = tmakit.transpose(x + 1)  # the plain API, routed to the operator while compiling
        d = ops.transpose_accumulate(x, a, 1.0, 1.0)
        return a, b, c, d

    cf = torch.compile(f, fullgraph=True)  # fullgraph: a graph break is an error
    x = torch.randn(300, 257, device="cuda")
    y = torch.randn(4, 33, 8, 64, device="cuda")
    want = f(x, y)
    before = dict(ops.calls)
    got = cf(x, y)
    assert ops.calls["transpose"] - before["transpose"] >= 2, "the compiled graph ran no tmakit"
    assert ops.calls["permute"] - before["permute"] >= 1
    for w, g in zip(want, got):
        assert torch.allclose(w, g)

    def g(x, out):
        tmakit.transpose_accumulate(x, out, alpha=2.0, beta=1.0)
        return out * 1

    out = torch.ones(257, 300, device="cuda")
    r = torch.compile(g, fullgraph=True)(x, out.clone())
    assert torch.allclose(r, x.t() * 2 + 1)


def test_cuda_graph_capture(gpu, ops):
    torch = gpu
    import tmakit
    x = torch.randn(1000, 999, device="cuda")
    z = torch.randn(8, 33, 16, 24, device="cuda", dtype=torch.float16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm up off the capture, as torch's docs ask
        ops.transpose(x)
        ops.permute(z, [3, 1, 0, 2])
        tmakit.transpose(x)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = ops.transpose(x)
        w = ops.permute(z, [3, 1, 0, 2])
        v = tmakit.transpose(x)
    for k in range(3):
        x.copy_(torch.randn(1000, 999, device="cuda"))
        z.copy_(torch.randn(8, 33, 16, 24, device="cuda").half())
        graph.replay()
        torch.cuda.synchronize()
        assert _same(y, x.t().contiguous()), k
        assert _same(v, x.t().contiguous()), k
        assert _same(w, z.permute(3, 1, 0, 2).contiguous()), k


def test_gradients(gpu, ops):
    torch = gpu
    import tmakit
    from torch.autograd import gradcheck
    d = dict(device="cuda", dtype=torch.float64, requires_grad=True)
    x = torch.randn(7, 5, **d)
    xb = torch.randn(3, 6, 4, **d)
    assert gradcheck(lambda t: ops.transpose(t), (x,))
    assert gradcheck(lambda t: ops.transpose(t), (xb,))
    z = torch.randn(2, 3, 4, 5, **d)
    assert gradcheck(lambda t: ops.permute(t, [3, 1, 0, 2]), (z,))
    y = torch.randn(5, 7, **d)
    assert gradcheck(lambda a, b: ops.transpose_accumulate(a, b, 2.5, -0.5), (x, y))
    assert gradcheck(lambda t: tmakit.transpose(t), (x,))  # the plain API, routed
    assert gradcheck(lambda t: tmakit.permute(t, (1, 3, 0, 2)), (z,))
    # A gradient with a stride of 0 (the gradient of a sum) goes through too.
    w = torch.randn(40, 30, device="cuda", requires_grad=True)
    (tmakit.transpose(w) * 3).sum().backward()
    assert torch.equal(w.grad, torch.full_like(w, 3.0))
