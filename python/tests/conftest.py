"""GPU tests skip with a reason where no CUDA device (or no torch) is present, and fail instead
when TMAKIT_REQUIRE_GPU=1, as the C++ tests do."""
import os

import pytest


def _gpu_reason():
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device"
    return ""


@pytest.fixture
def gpu():
    why = _gpu_reason()
    if why:
        if os.environ.get("TMAKIT_REQUIRE_GPU") == "1":
            pytest.fail("TMAKIT_REQUIRE_GPU=1 but " + why)
        pytest.skip(why)
    import torch
    return torch
