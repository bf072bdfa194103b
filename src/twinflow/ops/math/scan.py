"""Cumulative sums and products along an axis."""
from __future__ import annotations

import numpy as np

from ...core.dtypes import kind_of
from ...core.errors import InvalidArgumentError
from ...eager.execute import bind
from ...graph.checks import normalize_axis as _normalize_axis
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..core import convert, quietly, static_int, static_value
from .binary import multiply, realdiv
from .elementwise import NUMERIC, check_kind
from .unary import _c


def _scan_infer(op_name: str):
    def infer(x, *, axis, exclusive=False, reverse=False):
        check_kind(op_name, x, NUMERIC)
        _normalize_axis(axis, x.shape.rank, op_name)
        return x.dtype, x.shape
    return infer


def _scan(fn, identity, x, axis, exclusive, reverse):
    if x.dtype.kind not in NUMERIC:
        if kind_of(x.dtype) != "f":
            raise TypeError(f"unsupported dtype {x.dtype}")
        # bfloat16: accumulate in float32 and round, as TensorFlow's CPU kernel does
        return _scan(fn, identity, x.astype(np.float32), axis, exclusive, reverse).astype(x.dtype)
    if x.ndim == 0:
        raise IndexError("scan over a scalar")
    if reverse:
        x = np.flip(x, axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        # shift one step along axis, starting from the identity element
        head = np.full_like(np.take(out, [0], axis=axis), identity)
        out = np.concatenate([head, np.delete(out, -1, axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out)


def _cumsum_grad(op, dy):
    a = op.attrs
    return cumsum(dy, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])


def _cumprod_grad(op, dy):
    # As TensorFlow: exact when x has no zeros.
    x, a = op.inputs[0], op.attrs
    prod = op.outputs[0]
    out = cumsum(multiply(prod, dy), a["axis"], exclusive=a["exclusive"],
                 reverse=not a["reverse"])
    return realdiv(out, _c(x))


def _scan_op(name: str, np_scan, identity: int, word: str, grad):
    """Declares Cumsum / Cumprod: ``np_scan`` along ``axis``, starting from ``identity``."""
    def kernel(x, *, axis, exclusive=False, reverse=False):
        return quietly(_scan, np_scan, identity, x, axis, exclusive, reverse)
    doc = f"Cumulative {word} along ``axis`` (optionally exclusive and/or reversed)."
    ns = {"__doc__": doc, "infer": _scan_infer(name), "kernel": kernel, "grad": grad}
    return register_op(name)(type(name, (), ns))


Cumsum = _scan_op("Cumsum", np.cumsum, 0, "sum", _cumsum_grad)
Cumprod = _scan_op("Cumprod", np.cumprod, 1, "product", _cumprod_grad)


def _static_axis(axis, op_name: str) -> int:
    v = static_value(axis, f"{op_name}: axis")
    if np.ndim(v) != 0:
        raise InvalidArgumentError(None, None, f"{op_name}: axis must be a scalar, got {v} "
                                               f"[Op:{op_name}]")
    return static_int(v, f"{op_name}: axis")


def _scan_function(fn_name: str, opdef, word: str, where: str, identity: str, op: str):
    """The public function of a scan op; ``op`` is its infix symbol in the docstring."""
    def fn(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Tensor:
        attrs = {"axis": _static_axis(axis, opdef.name), "exclusive": bool(exclusive),
                 "reverse": bool(reverse)}
        return bind(opdef, (convert(x),), attrs, name=name)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"""Cumulative {word} along ``axis`` ({where}).

    Args:
        x: a numeric tensor.
        axis: the axis to scan (an int; negative counts from the end).
        exclusive: exclude each element itself: [a, b, c] -> [{identity}, a, a {op} b].
        reverse: scan from the end: [a, b, c] -> [a {op} b {op} c, b {op} c, c].
        name: op name in graph mode.

    Returns:
        A tensor like ``x``.
    """
    return fn


cumsum = _scan_function("cumsum", Cumsum, "sum", "``tw.cumsum``, ``tw.math.cumsum``", "0", "+")
cumprod = _scan_function("cumprod", Cumprod, "product", "``tw.math.cumprod``", "1", "*")
