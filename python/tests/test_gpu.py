"""tmakit on torch and CuPy (and JAX where present) arrays on the GPU: results equal x.T and
x.permute(...) bit for bit over dtypes, shapes, strided views, streams and techniques; errors are
exceptions that leave the operands untouched. Skipped without a GPU (conftest.gpu), failed then
under TMAKIT_REQUIRE_GPU=1."""
import pytest

import tmakit

SHAPES = [(1, 1), (1, 257), (257, 1), (31, 33), (1000, 999), (4000, 16), (16, 4000), (4099, 2053)]


def _dtypes(torch):
    return [torch.int8, torch.float16, torch.bfloat16, torch.float32, torch.int32, torch.float64,
            torch.complex128]


def _rand(torch, shape, dtype, gen):
    if dtype.is_floating_point or dtype.is_complex:
        return (torch.randint(-1000, 1000, shape, generator=gen, device="cuda")
                .to(dtype))
    return torch.randint(-100, 100, shape, generator=gen, device="cuda").to(dtype)


def _same(a, b):
    """Same shape, dtype and bytes."""
    import torch
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return torch.equal(a.contiguous().reshape(-1).view(torch.uint8),
                       b.contiguous().reshape(-1).view(torch.uint8))


def test_transpose_matches_torch_bit_for_bit(gpu):
    torch = gpu
    g = torch.Generator(device="cuda").manual_seed(1)
    for dtype in _dtypes(torch):
        for shape in SHAPES:
            x = _rand(torch, shape, dtype, g)
            before = x.clone()
            y = tmakit.transpose(x)
            assert isinstance(y, torch.Tensor) and y.is_contiguous()
            assert _same(y, x.t().contiguous()), (dtype, shape)
            assert _same(x, before)


def test_batched_and_named_techniques(gpu):
    torch = gpu
    x = torch.arange(64 * 97 * 75, device="cuda", dtype=torch.float32).view(64, 97, 75)
    assert _same(tmakit.transpose(x), x.transpose(1, 2).contiguous())
    for v in ("smem_wide", "smem_flat", "tma_wide", "reg_realign"):
        y = tmakit.transpose(x[0].contiguous(), variant=v)
        assert _same(y, x[0].t().contiguous()), v


def test_strided_views_are_strided_calls(gpu):
    torch = gpu
    base = torch.arange(300 * 512, device="cuda", dtype=torch.float32).view(300, 512)
    views = [base[:, 7:400],          # rows 512 apart: a leading dimension
             base[10:250:3],          # every third row
             base.t(),                # a transposed view
             base[:, ::2],            # inner stride 2: a strided permutation
             base.view(3, 100, 512)[:, 1:90, 5:77]]  # a batch with gaps
    for v in views:
        y = tmakit.transpose(v)
        ref = v.transpose(-1, -2).contiguous()
        assert _same(y, ref), (v.shape, v.stride())
    out = torch.full((512, 400), -1.0, device="cuda")[:, :300]  # a strided out
    r = tmakit.transpose(base, out=out)
    assert r is out and _same(out, base.t().contiguous())


def test_runs_on_the_current_stream(gpu):
    torch = gpu
    s = torch.cuda.Stream()
    x = torch.randn(2048, 3001, device="cuda")
    with torch.cuda.stream(s):
        x2 = x * 2  # queued on s; tmakit must run after it on s
        y = tmakit.transpose(x2)
    s.synchronize()
    assert _same(y, (x * 2).t().contiguous())


def test_permute_matches_torch(gpu):
    torch = gpu
    import itertools
    g = torch.Generator(device="cuda").manual_seed(2)
    for shape in [(5, 7, 9), (8, 33, 16, 24), (3, 5, 7, 2, 11), (8, 64, 32, 128)]:
        for dtype in (torch.float16, torch.float32, torch.float64, torch.int8):
            x = _rand(torch, shape, dtype, g)
            perms = list(itertools.permutations(range(len(shape))))
            for p in perms[:: max(1, len(perms) // 12)]:
                assert _same(tmakit.permute(x, p), x.permute(*p).contiguous()), (shape, dtype, p)
    v = torch.randn(6, 40, 50, device="cuda")[:, 3:30, ::2]
    assert _same(tmakit.permute(v, (2, 0, 1)), v.permute(2, 0, 1).contiguous())


def test_transpose_accumulate(gpu):
    torch = gpu
    g = torch.Generator(device="cuda").manual_seed(3)
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32):
        for shape in [(31, 33), (1000, 999), (4000, 16), (16, 4000)]:
            x = _rand(torch, shape, dtype, g)
            out = _rand(torch, shape[::-1], dtype, g)
            ref = (x.t().to(torch.float64) * 2 + out.to(torch.float64)).to(dtype)
            r = tmakit.transpose_accumulate(x, out, alpha=2, beta=1)
            assert r is out and _same(out, ref), (dtype, shape)


def test_errors_are_exceptions_and_touch_nothing(gpu):
    torch = gpu
    with pytest.raises(ValueError, match="CUDA"):
        tmakit.transpose(torch.zeros(4, 4))
    x = torch.arange(64, device="cuda", dtype=torch.int8).view(8, 8)
    out = torch.zeros(8, 8, device="cuda", dtype=torch.int8)
    with pytest.raises(ValueError, match="accumulate types"):
        tmakit.transpose_accumulate(x, out)
    assert int(out.abs().sum()) == 0
    y = torch.arange(64, device="cuda", dtype=torch.float32).view(8, 8)
    before = y.clone()
    with pytest.raises(ValueError, match="overlap"):
        tmakit.transpose(y, out=y)
    assert _same(y, before)
    with pytest.raises(ValueError, match="shape"):
        tmakit.transpose(y, out=torch.zeros(8, 9, device="cuda"))
    with pytest.raises(ValueError):
        tmakit.transpose(y, variant="no_such_technique")
    with pytest.raises(ValueError, match="permutation"):
        tmakit.permute(y, (0, 0))


def test_cupy_arrays(gpu):
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(1000 * 999, dtype=cupy.float32).reshape(1000, 999)
    y = tmakit.transpose(x)
    assert isinstance(y, cupy.ndarray) and bool((y == x.T).all())
    v = x[5:900:2, 3:700]
    assert bool((tmakit.transpose(v) == v.T).all())
    z = cupy.arange(4 * 5 * 6 * 7, dtype=cupy.int16).reshape(4, 5, 6, 7)
    assert bool((tmakit.permute(z, (3, 1, 0, 2)) == z.transpose(3, 1, 0, 2)).all())
    s = cupy.cuda.Stream()
    with s:
        w = tmakit.transpose(x * 3)
    s.synchronize()
    assert bool((w == (x * 3).T).all())


def test_jax_arrays(gpu):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX has no GPU backend here")
    x = jnp.arange(300 * 257, dtype=jnp.float32).reshape(300, 257)
    y = tmakit.transpose(x)
    assert isinstance(y, jax.Array) and bool((y == x.T).all())


def test_plans_choose_once_and_remember_measurements(gpu, tmp_path):
    torch = gpu
    tmakit.clear_wisdom()
    tokens = {v["token"] for v in tmakit.variants()}
    x = torch.randn(3001, 257, device="cuda")
    p = tmakit.plan(x)
    assert p.source == "heuristic" and p.variant in tokens and p.variant in p.explain()
    x2 = torch.randn_like(x)
    assert _same(p(x2), x2.t().contiguous())
    out = torch.empty(257, 3001, device="cuda")
    assert p(x, out=out) is out and _same(out, x.t().contiguous())
    m = tmakit.plan(x, tuning="measure", rounds=3)
    assert m.source == "measured" and m.measured_us > 0 and m.tune_ms > 0
    assert m.timings[0][0] == m.variant and len(m.timings) >= 2
    assert _same(m(x2), x2.t().contiguous())
    again = tmakit.plan(x)  # the measured choice, remembered for this GPU
    assert again.source == "wisdom" and again.variant == m.variant
    path = tmp_path / "wisdom.txt"
    tmakit.save_wisdom(path)
    tmakit.clear_wisdom()
    assert tmakit.plan(x).source == "heuristic"
    entries, here, _ = tmakit.load_wisdom(path)
    assert entries >= 1 and here >= 1
    assert tmakit.plan(x).source == "wisdom"
    tmakit.clear_wisdom()
    # A batch, a named technique, an accumulate plan.
    xb = torch.randn(16, 97, 75, device="cuda")
    assert _same(tmakit.plan(xb)(xb), xb.transpose(1, 2).contiguous())
    assert tmakit.plan(x, variant="smem_wide").variant == "smem_wide"
    pa = tmakit.plan_accumulate(x, alpha=2.0, beta=1.0)
    acc = torch.randint(-50, 50, (257, 3001), device="cuda").float()
    xi = torch.randint(-50, 50, (3001, 257), device="cuda").float()
    ref = xi.t() * 2 + acc
    assert pa(xi, acc) is acc and _same(acc, ref)


def test_plan_errors_name_the_mismatch(gpu):
    torch = gpu
    x = torch.randn(300, 200, device="cuda")
    p = tmakit.plan(x)
    with pytest.raises(ValueError, match="shape"):
        p(torch.randn(300, 201, device="cuda"))
    with pytest.raises(ValueError, match="float64"):
        p(x.double())
    with pytest.raises(ValueError, match="C-contiguous"):
        p(x, out=torch.empty(200, 400, device="cuda")[:, :300])
    with pytest.raises(ValueError, match="row-major"):
        tmakit.plan(x[:, ::2])
    with pytest.raises(ValueError, match="needs out"):
        tmakit.plan_accumulate(x)(x)
    with pytest.raises(ValueError):
        tmakit.plan(x, variant="no_such_technique")


def test_jax_bfloat16_round_trip(gpu):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX has no GPU backend here")
    x = (jnp.arange(301 * 257, dtype=jnp.float32) % 509).astype(jnp.bfloat16).reshape(301, 257)
    y = tmakit.transpose(x)  # through DLPack: __cuda_array_interface__ has no bfloat16
    assert isinstance(y, jax.Array) and y.dtype == jnp.bfloat16 and y.shape == (257, 301)
    assert bool((y == x.T).all())
    back = tmakit.transpose(y)
    assert bool((back == x).all())
    z = (jnp.arange(4 * 5 * 6 * 7, dtype=jnp.float32)).astype(jnp.bfloat16).reshape(4, 5, 6, 7)
    assert bool((tmakit.permute(z, (3, 1, 0, 2)) == jnp.transpose(z, (3, 1, 0, 2))).all())


class _OnlyDLPack:
    """A DLPack producer that is neither torch nor anything tmakit knows by name: the protocol's
    two methods and nothing else (here over a CuPy array, handed out as the protocol says)."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, stream=None, **kwargs):
        return self._arr.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def test_a_dlpack_producer_other_than_torch(gpu):
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(333 * 129, dtype=cupy.int16).reshape(333, 129)
    out = cupy.empty((129, 333), dtype=cupy.int16)
    r = tmakit.transpose(_OnlyDLPack(x), out=out)
    assert r is out and bool((out == x.T).all())
    z = cupy.arange(6 * 7 * 8, dtype=cupy.float64).reshape(6, 7, 8)
    out = cupy.empty((8, 6, 7), dtype=cupy.float64)
    tmakit.permute(_OnlyDLPack(z), (2, 0, 1), out=out)
    assert bool((out == z.transpose(2, 0, 1)).all())
    with pytest.raises(ValueError, match="needs out="):
        tmakit.transpose(_OnlyDLPack(x))


def test_odd_extent_step_two_views(gpu):
    torch = gpu
    base = torch.arange(300 * 73, device="cuda", dtype=torch.float32).view(300, 73)
    v = base[..., ::2]  # strides (73, 2) over (300, 37): no two elements share an address
    assert v.stride() == (73, 2) and v.shape == (300, 37)
    assert _same(tmakit.transpose(v), v.t().contiguous())
    assert _same(tmakit.permute(v, (1, 0)), v.t().contiguous())
    b3 = torch.arange(5 * 11 * 73, device="cuda", dtype=torch.int16).view(5, 11, 73)[..., ::2]
    assert _same(tmakit.permute(b3, (2, 0, 1)), b3.permute(2, 0, 1).contiguous())
    dst_base = torch.full((37, 601), -1.0, device="cuda")
    out = dst_base[:, ::2]  # an odd-extent stride-2 out: (37, 301) strides (601, 2)
    src = torch.arange(301 * 37, device="cuda", dtype=torch.float32).view(301, 37)
    tmakit.transpose(src, out=out)
    assert _same(out, src.t().contiguous())
    assert bool((dst_base[:, 1::2] == -1).all())  # the gaps untouched
