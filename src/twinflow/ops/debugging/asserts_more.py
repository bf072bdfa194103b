"""``tw.debugging`` leftovers: assert_rank_in, assert_same_float_dtype, the traceback-filtering
switches and get_log_device_placement."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.devices import runtime
from ...graph.graph import name_scoped
from ...graph.tensor import Tensor, TensorLike
from .asserts import _static, _static_rank_check, _to_tensor


@name_scoped
def assert_rank_in(x: TensorLike, ranks, message: str | None = None,
                   name: str | None = None) -> None:
    """Asserts that the rank of ``x`` is one of ``ranks`` (checked on the static shape).

    Args:
        x: a tensor.
        ranks: the allowed ranks (ints or scalar int tensors with known values).
        message: text prepended to the error.

    Returns:
        None.

    Raises:
        InvalidArgumentError: the rank is not one of ``ranks``.
    """
    x = _to_tensor(x)
    allowed = tuple(int(np.asarray(_static(_to_tensor(r)) if isinstance(r, Tensor) else r))
                    for r in ranks)
    _static_rank_check(x, lambda k: k in allowed, f"rank in {allowed}", message)
    return None


def assert_same_float_dtype(tensors=None, dtype=None) -> dtypes.DType:
    """Checks that ``tensors`` (and ``dtype``) share one floating dtype.

    Args:
        tensors: tensors (or None).
        dtype: an expected dtype (or None).

    Returns:
        The common dtype (float32 when there is nothing to check).

    Raises:
        ValueError: the dtypes differ, or the common one is not floating point.
    """
    first = None
    for t in tensors or ():
        if t is None:
            continue
        if dtype is None:
            dtype, first = t.dtype, t
        elif t.dtype != dtype:
            was = f" as {first}" if first is not None else ""
            raise ValueError(f"{t}, type={t.dtype!r}, must be of the same type ({dtype!r})"
                             f"{was}.")
    if dtype is None:
        return dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype!r}.")
    return dtype


def is_traceback_filtering_enabled() -> bool:
    """Whether tracebacks hide the framework's frames: never in twinflow.

    Returns:
        False (twinflow's errors carry full tracebacks; graph errors name the op and the
        user's source line instead).
    """
    return False


def disable_traceback_filtering() -> None:
    """Shows full tracebacks: twinflow always does, so this changes nothing."""


def enable_traceback_filtering() -> None:
    """Would hide the framework's frames from tracebacks (not supported: raises).

    Raises:
        NotImplementedError: twinflow does not filter tracebacks.
    """
    raise NotImplementedError("twinflow does not filter tracebacks: errors keep every frame "
                              "(graph errors also name the failing op and your source line)")


def get_log_device_placement() -> bool:
    """Whether op placements are logged (``set_log_device_placement``).

    Returns:
        The flag.
    """
    return runtime.log_placement
