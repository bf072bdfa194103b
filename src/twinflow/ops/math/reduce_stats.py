"""Statistics and norms built on reductions: logsumexp, variance, std, argmax/argmin, norm,
count_nonzero."""
from __future__ import annotations

import numpy as np

from ...core import dtypes
from ...core.errors import InvalidArgumentError
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant_value
from ...graph.checks import normalize_axis as _normalize_axis
from ...graph.registry import register_op
from ...graph.tensor import DTypeLike, Tensor, TensorLike
from ..core import convert, static_int
from .binary import multiply, subtract
from .binary import pow as pow_op
from .cast import cast
from .comparison import not_equal
from .complex import abs as abs_op
from .reduce import Mean, _axes, _float_infer, _kept, _reduce, reduce_max, reduce_sum
from .unary import exp, sqrt, square

# ----- logsumexp, variance, std -------------------------------------------------------------------

@register_op("ReduceLogSumExp")
class ReduceLogSumExp:
    """log(sum(exp(x))) over ``axis``, computed stably (shifted by the maximum)."""

    infer = _float_infer

    def kernel(x, *, axis, keepdims=False):
        if x.size == 0:
            return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims, dtype=x.dtype))
        m = np.max(x.real if x.dtype.kind == "c" else x, axis=axis, keepdims=True)
        # All -inf (or inf) groups would give nan from inf - inf; shift those by 0 instead.
        m = np.where(np.isfinite(m), m, 0).astype(x.dtype)
        s = np.sum(np.exp(x - m), axis=axis, keepdims=True, dtype=x.dtype)
        with np.errstate(divide="ignore"):
            out = np.log(s) + m
        if not keepdims:
            out = np.squeeze(out, axis=axis)
        return np.asarray(out, dtype=x.dtype)[()]

    def grad(op, dy):
        x = op.inputs[0]
        softmax = exp(subtract(x, _kept(op, op.outputs[0])))
        return multiply(_kept(op, dy), softmax)


def reduce_logsumexp(input_tensor: TensorLike, axis: TensorLike | None = None,
                     keepdims: bool = False, name: str | None = None) -> Tensor:
    """``log(reduce_sum(exp(x)))`` without overflow (``tw.reduce_logsumexp``).

    Args:
        input_tensor: a float tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor.
    """
    return _reduce(ReduceLogSumExp, "reduce_logsumexp", input_tensor, axis, keepdims, name)


def reduce_variance(input_tensor: TensorLike, axis: TensorLike | None = None,
                    keepdims: bool = False, name: str | None = None) -> Tensor:
    """Population variance over ``axis`` (``tw.math.reduce_variance``).

    Args:
        input_tensor: a float or complex tensor (complex gives a real variance).
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The variance, ``mean(|x - mean(x)|**2)``.
    """
    x = convert(input_tensor)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise TypeError(f"reduce_variance: input must be a float or complex tensor, got "
                        f"{x.dtype.name} (use tw.cast)")
    axes = _axes(x, axis, Mean, "reduce_variance")
    mean = bind(Mean, [x], {"axis": axes, "keepdims": True})
    d = subtract(x, mean)
    if x.dtype.is_complex:
        sq = square(abs_op(d))
    else:
        sq = multiply(d, d)
    return bind(Mean, [sq], {"axis": axes, "keepdims": bool(keepdims)}, name=name)


def reduce_std(input_tensor: TensorLike, axis: TensorLike | None = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Population standard deviation over ``axis`` (``tw.math.reduce_std``).

    Args:
        input_tensor, axis, keepdims, name: as for ``reduce_variance``.

    Returns:
        ``sqrt(reduce_variance(x))``.
    """
    return sqrt(reduce_variance(input_tensor, axis, keepdims), name=name)


def reduce_euclidean_norm(input_tensor: TensorLike, axis: TensorLike | None = None,
                          keepdims: bool = False, name: str | None = None) -> Tensor:
    """``sqrt(reduce_sum(|x|**2))`` over ``axis`` (``tw.math.reduce_euclidean_norm``).

    Args:
        input_tensor: a float or complex tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        name: op name.

    Returns:
        The reduced tensor.
    """
    return norm(input_tensor, "euclidean", _axis_list(axis), keepdims, name=name)


def _axis_list(axis):
    """An ``axis`` of a reduction in the form tw.norm accepts for a vector norm."""
    if axis is None or isinstance(axis, int):
        return axis
    v = constant_value(axis)
    axes = np.asarray(axis if v is None else v).reshape(-1).tolist()
    return axes[0] if len(axes) == 1 else axes


# ----- argmax, argmin ---------------------------------------------------------------------------


def _arg_infer(x, *, axis, output_type):
    d = x.dtype
    if not (d.is_floating or d.is_integer or d.is_bool):
        raise InvalidArgumentError(
            None, None, f"Value for attr 'T' of {d.name} is not in the list of allowed values: "
            "a real tensor is needed")
    rank = x.shape.rank
    if rank is None:
        return output_type, TensorShape(None)
    dims = x.shape.as_list()
    del dims[_normalize_axis(axis, rank, None)]
    return output_type, TensorShape(dims)


def _arg_kernel(fn, x, axis, output_type):
    if x.shape[axis] == 0:
        raise InvalidArgumentError(None, None, f"Reduction axis {axis} is empty in shape "
                                               f"{list(x.shape)}")
    if x.dtype.kind in "fc" and np.isnan(x).any():
        # As TensorFlow's kernels (strict comparisons), a NaN is never the extremum; NumPy's
        # argmax/argmin would return the first NaN.
        x = np.where(np.isnan(x), -np.inf if fn is np.argmax else np.inf, x)
    return np.asarray(fn(x, axis=axis)).astype(output_type.np)


def _arg(opdef, fn_name, input, axis, output_type, name):
    x = convert(input)
    if axis is None:
        axis = 0
    v = constant_value(axis)
    if v is None:
        raise InvalidArgumentError(None, None, f"{fn_name}: axis must be known when the graph "
                                               f"is built [Op:{opdef.name}]")
    axis = static_int(v, f"{fn_name}: axis") if np.size(v) == 1 else v
    if not isinstance(axis, int):
        raise InvalidArgumentError(None, None, f"{fn_name}: axis must be a scalar, got {axis} "
                                               f"[Op:{opdef.name}]")
    output_type = dtypes.as_dtype(output_type)
    if output_type not in (dtypes.int32, dtypes.int64, dtypes.int16, dtypes.uint16):
        raise TypeError(f"{fn_name}: output_type must be int32 or int64, got {output_type.name}")
    rank = x.shape.rank
    if rank is not None:
        try:
            _arg_infer(x, axis=axis, output_type=output_type)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(None, None, f"{fn_name}: {e} [Op:{opdef.name}]") from None
        axis %= rank
    return bind(opdef, [x], {"axis": axis, "output_type": output_type}, name=name)


def _arg_function(fn_name: str, opdef, word: str):
    """The public function of ArgMax / ArgMin."""
    def fn(input: TensorLike, axis: TensorLike | None = None,
           output_type: DTypeLike = dtypes.int64, name: str | None = None) -> Tensor:
        return _arg(opdef, fn_name, input, axis, output_type, name)
    fn.__name__ = fn.__qualname__ = fn_name
    where = f"(``tw.{fn_name}``, ``tw.math.{fn_name}``)"
    fn.__doc__ = f"""Index of the {word} value along ``axis`` {where}.

    Args:
        input: a real tensor.
        axis: the axis (an int or scalar tensor); None means 0, as in TensorFlow.
        output_type: int64 (default) or int32.
        name: op name.

    Returns:
        An integer tensor with ``axis`` removed.
    """
    return fn


def _arg_op(op_name: str, np_arg, word: str):
    """Declares ArgMax / ArgMin (``np_arg`` along ``axis``) and returns it with its public
    function."""
    def kernel(x, *, axis, output_type):
        return _arg_kernel(np_arg, x, axis, output_type)

    def grad(op, dy):
        return None
    ns = {"__doc__": f"Index of the {word} value along ``axis`` (the first one on ties).",
          "infer": _arg_infer, "kernel": kernel, "grad": grad}
    opdef = register_op(op_name)(type(op_name, (), ns))
    return opdef, _arg_function(op_name.lower(), opdef, word)


ArgMax, argmax = _arg_op("ArgMax", np.argmax, "largest")
ArgMin, argmin = _arg_op("ArgMin", np.argmin, "smallest")


# ----- norm, count_nonzero ----------------------------------------------------------------------


def _norm_axis(x, axis):
    """``axis`` of tw.norm as a list of one (vector norm) or two (matrix norm) axes, or None."""
    if axis is None:
        return None
    v = constant_value(axis)
    axes = np.asarray(axis if v is None else v).reshape(-1).tolist()
    rank = x.shape.rank
    if len(axes) not in (1, 2) or len(set(axes)) != len(axes) or (
            rank is not None and len({a % rank for a in axes}) != len(axes)):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                         f"got {axis}")
    _normalize_axis(axes, rank, "norm")
    return axes


def _abs(x):
    return x if x.dtype.is_bool else abs_op(x)


def norm(tensor: TensorLike, ord="euclidean", axis: TensorLike | None = None, keepdims=None,
         name: str | None = None) -> Tensor:
    """Vector and matrix norms (``tw.norm``, ``tw.linalg.norm``).

    Args:
        tensor: a float or complex tensor.
        ord: 'euclidean' or 'fro' (the 2-norm of the flattened axes), 1, 2, ``np.inf``, or any
            p > 0 for vector norms; for matrix norms (two axes) 'fro', 'euclidean', 1 (largest
            column sum of absolute values) or ``np.inf`` (largest row sum).
        axis: None (all elements, as one vector), an int, or a pair of ints (matrix norm).
        keepdims: keep the reduced dimensions with length 1.
        name: op name.

    Returns:
        The norm, real-valued.
    """
    x = convert(tensor)
    if not (x.dtype.is_floating or x.dtype.is_complex):
        raise InvalidArgumentError(None, None, f"norm needs a float or complex tensor, got "
                                               f"{x.dtype.name} [Op:Norm]")
    axes = _norm_axis(x, axis)
    is_matrix = axes is not None and len(axes) == 2
    keepdims = bool(keepdims)
    supported_vec = ord == "euclidean" or (
        not isinstance(ord, str) and np.isreal(ord) and ord > 0)
    if is_matrix and ord not in ("euclidean", "fro", 1, np.inf):
        raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, "
                         f"inf], got {ord}")
    if not is_matrix and not supported_vec:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    if ord in ("euclidean", "fro") or ord == 2:
        if x.dtype.is_complex:
            sq = square(abs_op(x))
        else:
            sq = multiply(x, x)
        return sqrt(reduce_sum(sq, axes, keepdims=keepdims), name=name)
    a = _abs(x)
    if is_matrix:
        inner, outer = (axes[0], axes[1]) if ord == 1 else (axes[1], axes[0])
        # Sum over one axis keeping it, then max over both: max over a length-1 axis is free.
        s = reduce_sum(a, inner, keepdims=True)
        return reduce_max(s, axes, keepdims=keepdims, name=name)
    if ord == np.inf:
        return reduce_max(a, axes, keepdims=keepdims, name=name)
    if ord == 1:
        return reduce_sum(a, axes, keepdims=keepdims, name=name)
    p = float(ord)
    powered = pow_op(a, cast(p, a.dtype))
    return pow_op(reduce_sum(powered, axes, keepdims=keepdims),
                        cast(1.0 / p, a.dtype), name=name)


def count_nonzero(input: TensorLike, axis: TensorLike | None = None, keepdims=None,
                  dtype: DTypeLike = dtypes.int64, name: str | None = None) -> Tensor:
    """Number of non-zero elements over ``axis`` (``tw.math.count_nonzero``).

    Args:
        input: a numeric or bool tensor.
        axis: an int, list of ints, or None for all axes.
        keepdims: keep reduced dimensions with length 1.
        dtype: the output dtype (int64 by default).
        name: op name.

    Returns:
        The count.
    """
    x = convert(input)
    nz = x if x.dtype.is_bool else not_equal(x, cast(0, x.dtype))
    return reduce_sum(cast(nz, dtype), axis, keepdims=bool(keepdims), name=name)


