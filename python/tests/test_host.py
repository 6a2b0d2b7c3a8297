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
