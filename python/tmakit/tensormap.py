"""Tensor maps (CUtensorMap) in the user's terms, with no GPU: validate a row-major tensor and
its box against every rule tmakit knows, and explain the descriptor in words.

    from tmakit import tensormap
    r = tensormap.validate(shape=(4096, 1000), box=(64, 64), elem_bytes=4, swizzle=128)
    r.ok, r.errors        # [(rule id, message), ...]
    print(tensormap.explain(shape=(4096, 1024), box=(64, 32), elem_bytes=4, swizzle=128))
"""
from collections import namedtuple

from . import _tmakit

Report = namedtuple("Report", "ok errors warnings")


# Where no address is given, the address rules are checked against a 1024-byte aligned one.
_ANY_ALIGNED_ADDRESS = 1 << 20


def validate(shape, box, elem_bytes, *, pitch_bytes=(), swizzle=0, address=None, cc=90):
    """Every rule the map breaks, at once: Report(ok, errors, warnings), each violation a
    (rule id, message) pair. shape and box outermost first; pitch_bytes: the outer dimensions'
    byte strides (dense when empty); swizzle: 0, 32, 64 or 128 bytes; address: the tensor's
    device address (None: any aligned one); cc: compute capability as major * 10 + minor."""
    address = _ANY_ALIGNED_ADDRESS if address is None else address
    ok, errors, warnings = _tmakit.tensormap_validate(
        [int(n) for n in shape], [int(n) for n in box], int(elem_bytes),
        [int(p) for p in pitch_bytes], int(swizzle), int(address), int(cc))
    return Report(ok, errors, warnings)


def explain(shape, box, elem_bytes, *, pitch_bytes=(), swizzle=0, address=None):
    """The descriptor in words: both dimension orders, the box bytes (the mbarrier's expected
    transaction bytes per copy), the shared-memory layout."""
    address = _ANY_ALIGNED_ADDRESS if address is None else address
    return _tmakit.tensormap_describe([int(n) for n in shape], [int(n) for n in box],
                                      int(elem_bytes), [int(p) for p in pitch_bytes],
                                      int(swizzle), int(address))


def rules():
    """Every rule validate() checks, in order: (id, text) pairs."""
    return _tmakit.tensormap_rules()
