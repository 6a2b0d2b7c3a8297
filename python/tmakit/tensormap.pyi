from typing import List, NamedTuple, Optional, Sequence, Tuple

class Report(NamedTuple):
    ok: bool
    errors: List[Tuple[str, str]]
    warnings: List[Tuple[str, str]]

def validate(shape: Sequence[int], box: Sequence[int], elem_bytes: int, *,
             pitch_bytes: Sequence[int] = ..., swizzle: int = 0, address: Optional[int] = None,
             cc: int = 90) -> Report: ...
def explain(shape: Sequence[int], box: Sequence[int], elem_bytes: int, *,
            pitch_bytes: Sequence[int] = ..., swizzle: int = 0, address: Optional[int] = None) -> str: ...
def rules() -> List[Tuple[str, str]]: ...
