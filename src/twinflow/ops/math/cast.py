"""Casts between dtypes."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import UnimplementedError
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..core import convert
from ..dispatch import CompositeArgument, dispatch


@register_op("Cast")
class Cast:
    """Converts ``x`` to ``DstT``; complex -> real keeps the real part, float -> int truncates."""

    def infer(x, *, DstT):
        _check_cast(x.dtype.is_string, DstT)
        return DstT, x.shape

    def kernel(x, *, DstT):
        k = x.dtype.kind
        if k == "O" or DstT.is_string:
            _check_cast(k == "O", DstT)
        if k == "c" and DstT.np.kind != "c":
            x = np.real(x)
        if k in "fc" and DstT.np.kind in "iu" or DstT.np.itemsize < x.dtype.itemsize:
            with np.errstate(all="ignore"):  # out-of-range values wrap silently, as TensorFlow
                return np.asarray(x).astype(DstT.np)
        return np.asarray(x).astype(DstT.np)

    def grad(op, dy):
        src = op.inputs[0].dtype
        if not (src.is_floating or src.is_complex) or not dy.dtype.is_differentiable:
            return None
        return cast(dy, src)


def _check_cast(from_string: bool, to) -> None:
    """As TensorFlow: Cast never converts between strings and numbers (tw.strings does)."""
    if from_string != to.is_string:
        src = "string" if from_string else "non-string"
        raise UnimplementedError(None, None, f"Cast {src} to {to.name} is not supported")


# ----- public function ----------------------------------------------------------------------------

def cast(x: TensorLike, dtype: DTypeLike, name: str | None = None) -> Tensor:
    """Casts ``x`` to ``dtype`` (``tw.cast``).

    Args:
        x: a tensor or value.
        dtype: the target dtype.
        name: op name.

    Returns:
        The cast tensor (``x`` itself if it already has that dtype).
    """
    try:
        x = convert(x)
    except CompositeArgument as e:  # RaggedTensor, SparseTensor: their values
        return dispatch("cast", e, (x, dtype), {}, dense=cast)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype is dtype:
        return x
    return bind(Cast, (x,), {"DstT": dtype}, name=name)
