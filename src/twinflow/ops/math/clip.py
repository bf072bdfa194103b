"""Clipping by value and by norm, global norms."""
from __future__ import annotations

import numpy as np

from ...core.dtypes import kind_of
from ...core.errors import InvalidArgumentError
from ...eager.execute import bind
from ...graph.graph import name_scoped
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..array.create import ones_like, zeros_like
from ..array.shape import sum_to
from ..core import _fmt as _fmt_shape
from ..core import convert, convert_pair
from ..indexed_slices import IndexedSlices
from .binary import add_n, maximum, minimum, multiply, realdiv
from .cast import cast
from .comparison import _broadcast3, greater, greater_equal, less_equal, where
from .elementwise import REAL, check_kind
from .reduce import reduce_sum
from .unary import reciprocal, sqrt


def _clip_kernel(t, lo, hi):
    if kind_of(t.dtype) not in REAL:
        raise TypeError(f"unsupported dtype {t.dtype}")
    # maximum(minimum(.)) rather than np.clip: the same answer as TensorFlow when lo > hi
    return np.maximum(np.minimum(t, hi), lo)


@register_op("ClipByValue", same_dtype=True)
class ClipByValue:
    """min(max(t, clip_value_min), clip_value_max), with broadcasting of the bounds."""

    def infer(t, lo, hi):
        check_kind("ClipByValue", t, REAL)
        shape = _broadcast3("ClipByValue", t, lo, hi)
        if not shape.is_compatible_with(t.shape):
            raise InvalidArgumentError(
                None, None, f"ClipByValue: clip bounds of shapes {_fmt_shape(lo.shape)} and "
                f"{_fmt_shape(hi.shape)} do not broadcast to t's shape {_fmt_shape(t.shape)}")
        return t.dtype, t.shape.merge_with(shape)

    kernel = _clip_kernel

    def grad(op, dy):
        t, lo, hi = op.inputs
        zeros = zeros_like(dy)
        below_hi = less_equal(t, hi)
        m = minimum(t, hi)
        above_lo = greater_equal(m, lo)
        dm = where(above_lo, dy, zeros)
        return (sum_to(where(below_hi, dm, zeros), t), sum_to(where(above_lo, zeros, dy), lo),
                sum_to(where(below_hi, zeros, dm), hi))


# ----- public functions ---------------------------------------------------------------------------

def clip_by_value(t: TensorLike, clip_value_min, clip_value_max, name: str | None = None) -> Tensor:
    """Clips ``t`` to [clip_value_min, clip_value_max] (``tw.clip_by_value``).

    The gradient reaches ``t`` where it lies inside the range (bounds included) and the bounds
    where they were applied.

    Args:
        t: a real tensor.
        clip_value_min: the lower bound (a scalar or a tensor broadcasting to t's shape).
        clip_value_max: the upper bound (likewise).
        name: op name in graph mode.

    Returns:
        The clipped tensor, of t's shape and dtype.
    """
    t = convert(t)
    lo = convert_pair(t, clip_value_min)[1]
    hi = convert_pair(t, clip_value_max)[1]
    return bind(ClipByValue, (t, lo, hi), name=name)


def clip_by_norm(t: TensorLike, clip_norm, axes=None, name: str | None = None) -> Tensor:
    """Rescales ``t`` so that its L2 norm over ``axes`` is at most ``clip_norm``.

    As ``tf.clip_by_norm``: t * clip_norm / max(l2norm(t), clip_norm), with a zero-norm tensor
    left as is (and a finite gradient there).

    Args:
        t: a floating-point tensor.
        clip_norm: a positive scalar.
        axes: the axes over which the norm is taken (None: all).
        name: op name in graph mode.

    Returns:
        The clipped tensor.
    """
    t = convert(t)
    clip_norm = convert_pair(t, clip_norm)[1]
    l2sum = reduce_sum(multiply(t, t), axes, keepdims=True)
    pred = greater(l2sum, 0)
    # sqrt is not differentiable at 0: take it only where the sum is positive
    l2sum_safe = where(pred, l2sum, ones_like(l2sum))
    l2norm = where(pred, sqrt(l2sum_safe), l2sum)
    return realdiv(multiply(t, clip_norm), maximum(l2norm, clip_norm), name=name)


def global_norm(t_list, name: str | None = None) -> Tensor:
    """sqrt(sum of the squared L2 norms of the tensors in ``t_list``) (``tw.linalg.global_norm``).

    Args:
        t_list: tensors or IndexedSlices (their ``values`` count, as TensorFlow's); None
            entries are skipped.
        name: op name in graph mode.

    Returns:
        A scalar of the first tensor's dtype.
    """
    ts = [t.values if isinstance(t, IndexedSlices) else convert(t)
          for t in t_list if t is not None]
    if not ts:
        raise ValueError("global_norm needs at least one tensor")
    dtype = ts[0].dtype
    sums = [cast(reduce_sum(multiply(t, t)), dtype) for t in ts]
    return sqrt(add_n(sums), name=name)


@name_scoped
def clip_by_global_norm(t_list, clip_norm, use_norm=None,
                        name: str | None = None) -> tuple[list[Tensor], Tensor]:
    """Scales tensors so that their global norm is at most ``clip_norm`` (TensorFlow's rule).

    Args:
        t_list: tensors or IndexedSlices (kept sparse); None entries stay None.
        clip_norm: a positive scalar.
        use_norm: the global norm to use (computed from t_list if None).

    Returns:
        (list of clipped tensors, the global norm).
    """
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list)
    use_norm = convert(use_norm)
    clip_norm = cast(convert_pair(use_norm, clip_norm)[1], use_norm.dtype)
    scale = multiply(clip_norm, minimum(reciprocal(use_norm), reciprocal(clip_norm)))
    out = []
    for t in t_list:
        if t is None:
            out.append(None)
            continue
        if isinstance(t, IndexedSlices):
            out.append(IndexedSlices(multiply(t.values, cast(scale, t.dtype)), t.indices,
                                     t.dense_shape))
            continue
        t = convert(t)
        out.append(multiply(t, cast(scale, t.dtype)))
    return out, use_norm
