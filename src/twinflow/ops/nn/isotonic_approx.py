"""``isotonic_regression`` (pool-adjacent-violators), ``approx_max_k``/``approx_min_k``
and ``tw.approx_top_k``.

The approximate top-k ops return the exact top k (TensorFlow allows any answer reaching
``recall_target``; the exact one reaches recall 1), sorted, with TensorFlow's gradient: each
output's gradient flows back to the position it came from.
"""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind
from ...graph.registry import register_op
from ...graph.tensor import TensorLike
from ..array.create import one_hot
from ..array.layout import expand_dims, transpose
from ..core import convert, normalize_axis
from ..math.binary import divide, multiply
from ..math.cast import cast
from ..math.comparison import equal
from ..math.reduce import reduce_sum
from ..math.unary import negative


def _err(msg: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, msg)


def _pav_decreasing(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The non-increasing least-squares fit of ``y`` and its segment ids."""
    means: list = []
    counts: list = []
    for v in y.tolist():
        means.append(float(v))
        counts.append(1)
        while len(means) > 1 and means[-2] < means[-1]:     # a violation: pool the blocks
            m, c = means.pop(), counts.pop()
            total = means[-1] * counts[-1] + m * c
            counts[-1] += c
            means[-1] = total / counts[-1]
    out = np.repeat(means, counts)
    seg = np.repeat(np.arange(len(means), dtype=np.int32), counts)
    return out, seg


_ISO_IN = "float,double,int32,uint8,int16,int8,int64,bfloat16,uint16,half,uint32,uint64"


@register_op("IsotonicRegression", multi_output=True, schema=(
    f"input:T -> output:output_dtype, segments:int32 | T:type in [{_ISO_IN}]; "
    "output_dtype:type=float in [half,bfloat16,float,double]"))
class IsotonicRegression:
    """The non-increasing isotonic fit of each row (last axis), and its segment ids."""

    def infer(input, *, output_dtype=dtypes.float32):
        return [(dtypes.as_dtype(output_dtype), input.shape), (dtypes.int32, input.shape)]

    def kernel(input, *, output_dtype=dtypes.float32):
        x = np.asarray(input, np.float64)
        rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
        out, seg = np.empty_like(rows), np.empty(rows.shape, np.int32)
        for i, r in enumerate(rows):
            out[i], seg[i] = _pav_decreasing(r)
        return (out.reshape(x.shape).astype(dtypes.as_dtype(output_dtype).np),
                seg.reshape(x.shape))

    def grad(op, dy, dseg):
        if dy is None:
            return None
        seg = op.outputs[1]
        same = cast(equal(expand_dims(seg, -1), expand_dims(seg, -2)), dy.dtype)
        mean = divide(reduce_sum(multiply(same, expand_dims(dy, -2)), axis=-1),
                      reduce_sum(same, axis=-1))
        return cast(mean, op.inputs[0].dtype) if op.inputs[0].dtype.is_floating else None


_PROMOTE = {dtypes.float32: dtypes.float32, dtypes.float16: dtypes.float16,
            dtypes.bfloat16: dtypes.bfloat16,
            dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32}


def isotonic_regression(inputs: TensorLike, decreasing: bool = True, axis: int = -1) -> tuple:
    """Solves ``min sum (y - x)^2`` subject to ``y`` monotone along ``axis``.

    Args:
        inputs: a real tensor.
        decreasing: non-increasing solutions (True) or non-decreasing (False).
        axis: the axis along which each problem lies.

    Returns:
        ``(output, segments)``: the solutions (float32 for float32/int8/int16 inputs, float16
        for float16, float64 otherwise) and int32 ids of the runs sharing a value (from 0 in
        each row).
    """
    x = convert(inputs)
    out_dt = _PROMOTE.get(x.dtype, dtypes.float64)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("isotonic_regression needs an input of known rank")
    ax = normalize_axis(int(axis), rank, "isotonic_regression")[0] if rank else 0
    perm = None
    if rank and ax != rank - 1:
        perm = list(range(rank))
        perm[ax], perm[-1] = perm[-1], perm[ax]
        x = transpose(x, perm)
    if not decreasing:
        x = negative(cast(x, out_dt)) if not x.dtype.is_floating else negative(x)
    out, seg = bind(IsotonicRegression, [x], {"output_dtype": out_dt})
    if not decreasing:
        out = negative(out)
    if perm is not None:
        out, seg = transpose(out, perm), transpose(seg, perm)
    return out, seg


def _topk_infer(input, *, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,
                reduction_input_size_override=-1, aggregate_to_topk=True):
    s = input.shape
    if s.rank is None:
        return [(input.dtype, s), (dtypes.int32, s)]
    d = normalize_axis(int(reduction_dimension), s.rank, "ApproxTopK")[0]
    if s[d] is not None and k > s[d]:
        raise _err(f"ApproxTopK: k ({k}) is larger than the reduction dimension ({s[d]})")
    dims = s.as_list()
    dims[d] = k
    return [(input.dtype, TensorShape(dims)), (dtypes.int32, TensorShape(dims))]


@register_op("ApproxTopK", multi_output=True, check_shapes=True, schema=(
    "input:T -> values:T, indices:int32 | k:int >=0; reduction_dimension:int=-1; "
    "recall_target:float=0.95; is_max_k:bool=True; reduction_input_size_override:int=-1; "
    "aggregate_to_topk:bool=True; T:type in [half,bfloat16,float]"))
class ApproxTopK:
    """The k largest (or smallest) entries along ``reduction_dimension`` and their indices,
    sorted (computed exactly)."""

    infer = _topk_infer

    def kernel(input, *, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,
               reduction_input_size_override=-1, aggregate_to_topk=True):
        if not 0 < recall_target <= 1:
            raise _err(f"recall_target must be in (0, 1], got {recall_target}")
        d = reduction_dimension % input.ndim
        key = -input if is_max_k else input
        idx = np.argsort(key, axis=d, kind="stable")
        idx = np.take(idx, np.arange(k), axis=d)
        return np.take_along_axis(input, idx, axis=d), idx.astype(np.int32)

    def grad(op, dvalues, dindices):
        if dvalues is None:
            return None
        x, idx = op.inputs[0], op.outputs[1]
        rank = x.shape.rank
        d = op.attrs.get("reduction_dimension", -1) % rank
        n = x.shape[d]
        if n is None:
            raise ValueError("the gradient of approx_top_k needs a static reduction size")
        oh = one_hot(idx, n, dtype=dvalues.dtype, axis=d + 1)      # [..., k, n, ...]
        return reduce_sum(multiply(oh, expand_dims(dvalues, d + 1)), axis=d)


def approx_top_k(input: TensorLike, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, is_max_k: bool = True,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
                 name: str | None = None) -> tuple:
    """The top k entries along a dimension (``tw.approx_top_k``; exact here).

    Args:
        input: a float16/float32 tensor.
        k: how many entries.
        reduction_dimension: the dimension searched.
        recall_target: the recall an approximation must reach (the exact answer reaches 1).
        is_max_k: the largest (True) or the smallest (False) entries.
        reduction_input_size_override: accepted for TPU compatibility (no effect on an exact
            search).
        aggregate_to_topk: the exact answer is already aggregated to k entries.
        name: op name.

    Returns:
        ``(values, indices)``, sorted (descending for max, ascending for min).
    """
    return tuple(bind(ApproxTopK, [convert(input)], {
        "k": int(k), "reduction_dimension": int(reduction_dimension),
        "recall_target": float(recall_target), "is_max_k": bool(is_max_k),
        "reduction_input_size_override": int(reduction_input_size_override),
        "aggregate_to_topk": bool(aggregate_to_topk)}, name=name))


def approx_max_k(operand: TensorLike, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True, name: str | None = None) -> tuple:
    """The k largest entries along a dimension (exact here; see ``approx_top_k``).

    Args:
        operand: a float16/float32 tensor.
        k: how many entries.
        reduction_dimension: the dimension searched.
        recall_target: the recall an approximation must reach.
        reduction_input_size_override: accepted for TPU compatibility.
        aggregate_to_topk: the exact answer is already aggregated.
        name: op name.

    Returns:
        ``(values, indices)`` in descending order.
    """
    return approx_top_k(operand, k, reduction_dimension, recall_target, True,
                        reduction_input_size_override, aggregate_to_topk, name)


def approx_min_k(operand: TensorLike, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True, name: str | None = None) -> tuple:
    """The k smallest entries along a dimension (exact here; see ``approx_top_k``).

    Args:
        operand, k, reduction_dimension, recall_target, reduction_input_size_override,
            aggregate_to_topk, name: as for ``approx_max_k``.

    Returns:
        ``(values, indices)`` in ascending order.
    """
    return approx_top_k(operand, k, reduction_dimension, recall_target, False,
                        reduction_input_size_override, aggregate_to_topk, name)


