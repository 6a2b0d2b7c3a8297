"""The host part: import, the registry, tensor maps and permutation plans in words. No GPU."""
import pytest

import tmakit
from tmakit import tensormap


def test_variants_are_the_registry():
    vs = tmakit.variants()
    tokens = {v["token"]: v for v in vs}
    for t in ("smem_wide", "tma_wide", "flat_accumulate", "sector_accumulate", "permute_tma"):
        assert t in tokens, t
    assert tokens["tma_wide"]["uses_tma"] and tokens["tma_wide"]["min_cc"] == 90
    assert tokens["flat_accumulate"]["kind"] == "accumulate"
    assert tokens["permute_tile"]["kind"] == "permute"
    assert 16 in tokens["tma_wide"]["elem_bytes"] and 16 not in tokens["smem_wide"]["elem_bytes"]


def test_tensormap_validate_names_each_broken_rule():
    good = tensormap.validate(shape=(4096, 1024), box=(64, 32), elem_bytes=4, swizzle=128)
    assert good.ok and good.errors == []
    bad = tensormap.validate(shape=(4096, 1000), box=(300, 32), elem_bytes=4, swizzle=128,
                             pitch_bytes=(4004,))
    assert not bad.ok
    ids = [rule for rule, _ in bad.errors]
    assert len(ids) >= 2, bad.errors  # the box extent and the pitch, at once
    assert all(isinstance(m, str) and m for _, m in bad.errors)
    known = {rule for rule, _ in tensormap.rules()}
    assert set(ids) <= known


def test_tensormap_explain_and_permute_explain_in_words():
    text = tensormap.explain(shape=(4096, 1024), box=(64, 32), elem_bytes=4, swizzle=128)
    assert "box" in text.lower() and "128" in text
    words = tmakit.explain_permute((8, 4096, 32, 128), (0, 2, 1, 3), 2)
    assert "rows" in words or "tile" in words


def test_bad_input_is_a_clear_exception_before_any_gpu():
    with pytest.raises(TypeError, match="CUDA arrays"):
        tmakit.transpose([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="swizzle"):
        tensormap.validate(shape=(64, 64), box=(8, 8), elem_bytes=4, swizzle=48)


def test_plan_arguments_are_checked_before_any_gpu():
    make = tmakit._tmakit.make_plan
    with pytest.raises(ValueError, match="tuning 'fast'"):
        make(64, 64, 4, 1, 64, 64, 4096, 4096, "auto", False, "fast", 7, True)
    with pytest.raises(ValueError, match="rounds"):
        make(64, 64, 4, 1, 64, 64, 4096, 4096, "auto", False, "measure", 0, True)
    with pytest.raises(ValueError, match="dtype 'int8'"):
        tmakit._tmakit.make_accumulate_plan(64, 64, "int8", 1.0, 1.0, 1, 64, 64, 4096, 4096,
                                            "auto", False, "heuristic", 7, True)
    with pytest.raises(TypeError, match="CUDA arrays"):
        tmakit.plan([[1.0, 2.0]])


class _FakeDLPack:
    """A DLPack producer built with ctypes (no GPU, no array library): what tmakit reads of it
    is checked field by field."""

    def __init__(self, device_type, shape, strides, code, bits, address=0x7F0000001000):
        import ctypes
        from tmakit import _DLManagedTensor
        n = len(shape)
        self.shape = (ctypes.c_int64 * n)(*shape)
        self.strides = (ctypes.c_int64 * n)(*strides) if strides is not None else None
        mt = _DLManagedTensor()
        t = mt.dl_tensor
        t.data = address
        t.device.device_type, t.device.device_id = device_type, 0
        t.ndim = n
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        t.strides = (ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
                     if self.strides is not None else None)
        t.byte_offset = 64
        self.mt = mt
        self.device_type = device_type
        self.stream_seen = "not asked"

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None):
        import ctypes
        self.stream_seen = stream
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                       ctypes.c_void_p]
        return new(ctypes.addressof(self.mt), b"dltensor", None)


def test_dlpack_producers_are_read_field_by_field():
    # A bfloat16 strided view on a CUDA device (what __cuda_array_interface__ cannot name).
    x = _FakeDLPack(2, (37, 50), (2, 101), code=4, bits=16)
    cap, ptr, shape, strides, itemsize, dtype, dev = tmakit._dlpack_view(x, "x", 1)
    assert (ptr, shape, strides, itemsize, dtype, dev) == (0x7F0000001000 + 64, (37, 50),
                                                           (2, 101), 2, "bfloat16", 0)
    assert x.stream_seen == 1  # the handshake: ready on the legacy default stream
    # NULL strides: C-contiguous; float8 (code 2, 8 bits) and int types by their names.
    y = _FakeDLPack(2, (4, 5, 6), None, code=0, bits=8)
    assert tmakit._dlpack_view(y, "y", 1)[2:6] == ((4, 5, 6), (30, 6, 1), 1, "int8")
    z = _FakeDLPack(13, (3,), (1,), code=2, bits=64)  # managed memory counts as CUDA
    assert tmakit._dlpack_view(z, "z", 1)[5] == "float64"
    # On the CPU, or of a type that is not a whole-byte scalar: a clear error, nothing run.
    with pytest.raises(ValueError, match="device type 1"):
        tmakit.transpose(_FakeDLPack(1, (4, 4), None, code=2, bits=32))
    with pytest.raises(ValueError, match="whole-byte"):
        tmakit.transpose(_FakeDLPack(2, (4, 4), None, code=1, bits=4))
    # A producer tmakit cannot make new arrays of: out= is asked for, before anything runs.
    with pytest.raises(ValueError, match="out="):
        tmakit.transpose(_FakeDLPack(2, (4, 4), None, code=2, bits=32))
