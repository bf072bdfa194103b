"""Joining and splitting: concat, split, tile, pad."""
from __future__ import annotations

import numpy as np

from ...core.shapes import TensorShape
from ...eager.execute import bind, constant, constant_value
from ...graph.checks import normalize_axis as _normalize_axis
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..core import OnesLike, Pack, Unpack, ZerosLike, _fmt, convert, convert_n
from ..core import invalid_argument as _err
from ..dispatch import CompositeArgument, dispatch
from .shape import SumToShape, _elems, _int_input, _norm_axis, _static_int, identity, reshape, shape
from .slicing import Slice


@register_op("ConcatV2", same_dtype=True)
class ConcatV2:
    """Joins tensors along an existing ``axis``."""

    def infer(*values, axis):
        ranks = [v.shape.rank for v in values if v.shape.rank is not None]
        if not ranks:
            return values[0].dtype, TensorShape(None)
        r = ranks[0]
        ax = _normalize_axis(axis, r, "ConcatV2")
        first = next(v for v in values if v.shape.rank is not None)
        out = list(first.shape.as_list())
        out[ax] = 0
        for i, v in enumerate(values):
            if v.shape.rank is None:
                out[ax] = None
                continue
            if v.shape.rank != r:
                raise _err(f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                           f"{_fmt(values[0].shape)} vs. shape[{i}] = {_fmt(v.shape)}")
            for j, d in enumerate(v.shape.as_list()):
                if j == ax:
                    out[ax] = None if out[ax] is None or d is None else out[ax] + d
                elif d is not None:
                    if out[j] is not None and out[j] != d:
                        raise _err(f"ConcatOp : Dimension {j} in both shapes must be equal: "
                                   f"shape[0] = {_fmt(first.shape)} vs. shape[{i}] = "
                                   f"{_fmt(v.shape)}")
                    out[j] = d
        return values[0].dtype, TensorShape(out)

    def kernel(*values, axis):
        return np.concatenate(values, axis=axis)

    def constant_value(op):
        vals = [constant_value(t) for t in op.inputs]
        if any(v is None for v in vals):
            return None
        return np.concatenate(vals, axis=op.attrs["axis"])

    def grad(op, dy):
        xs = op.inputs
        axis = op.attrs["axis"]
        shapes = [shape(x) for x in xs]
        offsets = bind(ConcatOffset, shapes, {"axis": axis})
        return [bind(Slice, [dy, off, s]) for off, s in zip(offsets, shapes)]


@register_op("ConcatOffset", multi_output=True,
             schema="shapes@shape:N*shape_type -> offset:N*shape_type | "
                    "shape_type:type in [int32,int64]; axis@concat_dim:int")
class ConcatOffset:
    """Where each of the shapes begins in their concatenation along ``axis`` (concat grad)."""

    def infer(*shapes, axis):
        return [(s.dtype, s.shape) for s in shapes]

    def kernel(*shapes, axis):
        out, pos = [], 0
        for s in shapes:
            off = np.zeros_like(s)
            if len(s):
                ax = axis % len(s)
                off[ax] = pos
                pos += s[ax]
            out.append(off)
        return tuple(out)

    def grad(op, *dys):
        return [None] * len(op.inputs)


def concat(values: TensorLike, axis: TensorLike, name: str = "concat") -> Tensor:
    """Concatenates tensors along ``axis`` (``tw.concat``).

    Args:
        values: a list of tensors of one dtype and rank, equal in all other dimensions.
        axis: the dimension to join along (negative counts from the end).
        name: op name.

    Returns:
        The joined tensor.
    """
    try:
        xs = convert_n(values if isinstance(values, (list, tuple)) else [values])
    except CompositeArgument as e:  # ragged inputs
        return dispatch("concat", e, (values, axis), {})
    if not xs:
        raise ValueError("tw.concat needs at least one tensor")
    axis = _static_int(axis, "concat: axis")
    if len(xs) == 1:
        rank_ = xs[0].shape.rank
        _norm_axis(axis, rank_, "concat")
        return identity(xs[0], name=name)
    return bind(ConcatV2, xs, {"axis": axis}, name=name)


def _zeros_for_missing(dys, outputs) -> list:
    return [dy if dy is not None else bind(ZerosLike, [o]) for dy, o in zip(dys, outputs)]


@register_op("Split", multi_output=True)
class Split:
    """Splits ``value`` into ``num_split`` equal pieces along ``axis``."""

    def infer(value, *, num_split, axis):
        if value.shape.rank is None:
            return [(value.dtype, TensorShape(None))] * num_split
        dims = value.shape.as_list()
        ax = _norm_axis(axis, len(dims), "split")
        d = dims[ax]
        if d is not None:
            if num_split <= 0 or d % num_split:
                raise _err(f"Number of ways to split should evenly divide the split dimension, "
                           f"but got split_dim {ax} (size = {d}) and num_split {num_split}")
            dims[ax] = d // num_split
        return [(value.dtype, TensorShape(dims))] * num_split

    def kernel(value, *, num_split, axis):
        return tuple(np.split(value, num_split, axis=axis))

    def grad(op, *dys):
        dys = _zeros_for_missing(dys, op.outputs)
        return dys[0] if len(dys) == 1 else bind(ConcatV2, dys, {"axis": op.attrs["axis"]})


def _resolve_sizes(sizes: list, d: int | None) -> list:
    if d is not None and sizes.count(-1) == 1 and None not in sizes:
        rest = sum(s for s in sizes if s != -1)
        return [d - rest if s == -1 else s for s in sizes]
    return sizes


@register_op("SplitV", multi_output=True)
class SplitV:
    """Splits ``value`` along ``axis`` into pieces of ``size_splits`` (one may be -1)."""

    def infer(value, size_splits, *, num_split, axis):
        sizes = _elems(size_splits, num_split) or [None] * num_split
        if value.shape.rank is None:
            return [(value.dtype, TensorShape(None))] * num_split
        dims = value.shape.as_list()
        ax = _norm_axis(axis, len(dims), "split")
        d = dims[ax]
        if sizes.count(-1) > 1:
            raise _err(f"There can only be one -1 in the input size_splits, got {sizes}")
        known = [s for s in sizes if s is not None and s != -1]
        if d is not None and None not in sizes:
            total = sum(known)
            if (-1 in sizes and total > d) or (-1 not in sizes and total != d):
                raise _err(f"Determined shape must either match input shape along split_dim "
                           f"exactly if fully specified, or be less than the size of the input "
                           f"along split_dim if not fully specified. Got: {total} (size_splits "
                           f"{sizes}, dimension {ax} of {_fmt(value.shape)})")
        sizes = _resolve_sizes(sizes, d)
        out = []
        for s in sizes:
            dd = list(dims)
            dd[ax] = None if s is None or s == -1 else s
            out.append((value.dtype, TensorShape(dd)))
        return out

    def kernel(value, size_splits, *, num_split, axis):
        sizes = _resolve_sizes([int(s) for s in size_splits], value.shape[axis])
        if sum(sizes) != value.shape[axis] or min(sizes) < 0:
            raise _err(f"size_splits {list(size_splits)} do not split dimension {axis} of "
                       f"size {value.shape[axis]}")
        return tuple(np.split(value, np.cumsum(sizes)[:-1], axis=axis))

    def grad(op, *dys):
        dys = _zeros_for_missing(dys, op.outputs)
        g = dys[0] if len(dys) == 1 else bind(ConcatV2, dys, {"axis": op.attrs["axis"]})
        return g, None


def split(value: TensorLike, num_or_size_splits, axis: int = 0, num=None,
          name: str = "split") -> list:
    """Splits ``value`` along ``axis`` (``tw.split``).

    Args:
        value: a tensor.
        num_or_size_splits: an int (that many equal pieces) or a list of sizes (one may be -1).
        axis: the dimension to split.
        num: the number of pieces, needed only when it cannot be inferred.
        name: op name.

    Returns:
        A list of tensors.
    """
    x = convert(value)
    axis = _static_int(axis, "split: axis")
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        return bind(Split, [x], {"num_split": n, "axis": axis}, name=name)
    sizes = _int_input(num_or_size_splits, "num_or_size_splits")
    if sizes.shape.rank == 0:
        n = _static_int(sizes, "split: num_or_size_splits")
        return bind(Split, [x], {"num_split": n, "axis": axis}, name=name)
    if num is None:
        num = sizes.shape[0] if sizes.shape.rank == 1 else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {sizes.shape}")
    return bind(SplitV, [x, sizes], {"num_split": int(num), "axis": axis}, name=name)


# ----- tile, pad ------------------------------------------------------------------------------

@register_op("Tile")
class Tile:
    """Repeats ``x`` ``multiples[i]`` times along each dimension i."""

    def infer(x, multiples):
        m = _elems(multiples)
        if x.shape.rank is None:
            return x.dtype, TensorShape(None if m is None else [None] * len(m))
        dims = x.shape.as_list()
        if m is not None and len(m) != len(dims):
            raise _err(f"Expected multiples argument to be a vector of length {len(dims)} but "
                       f"got length {len(m)} (input shape {_fmt(x.shape)})")
        if m is None:
            return x.dtype, TensorShape([None] * len(dims))
        for k in m:
            if k is not None and k < 0:
                raise _err(f"Expected multiples to be non-negative, got {m}")
        return x.dtype, TensorShape([None if d is None or k is None else d * k
                                     for d, k in zip(dims, m)])

    def kernel(x, multiples):
        if len(multiples) != np.ndim(x):
            raise _err(f"Expected multiples argument to be a vector of length {np.ndim(x)} but "
                       f"got length {len(multiples)}")
        return np.tile(x, tuple(int(k) for k in multiples)) if np.ndim(x) else np.array(x)

    def grad(op, dy):
        x, m = op.inputs
        xs = shape(x, out_type=m.dtype)
        # dy viewed as [m0, n0, m1, n1, ...], summed over the m axes.
        split_shape = reshape(bind(Pack, [m, xs], {"axis": 1}), [-1])
        target = reshape(bind(Pack, [bind(OnesLike, [m]), xs], {"axis": 1}), [-1])
        g = bind(SumToShape, [reshape(dy, split_shape), target])
        return reshape(g, xs), None


def tile(input: TensorLike, multiples: TensorLike, name: str | None = None) -> Tensor:
    """Tiles ``input`` ``multiples[i]`` times along dimension i (``tw.tile``).

    Args:
        input: a tensor.
        multiples: a 1-D int list or tensor, one entry per dimension.
        name: op name.

    Returns:
        The tiled tensor.
    """
    try:
        x = convert(input)
    except CompositeArgument as e:
        return dispatch("tile", e, (input, multiples), {})
    return bind(Tile, [x, _int_input(multiples, "multiples")], name=name)


def _pad_infer_dims(x, paddings, limit=None):
    """Output dims of padding ``x``; ``limit(d)`` bounds each pad for mirror modes."""
    p = constant_value(paddings)
    r = x.shape.rank
    if paddings.shape.rank is not None and paddings.shape.rank != 2 or (
            paddings.shape.rank == 2 and paddings.shape[1] not in (None, 2)):
        raise _err(f"paddings must be a matrix with 2 columns, got shape {_fmt(paddings.shape)}")
    if r is None:
        n = paddings.shape[0] if paddings.shape.rank == 2 else None
        return None if n is None else [None] * n
    if paddings.shape.rank == 2 and paddings.shape[0] not in (None, r):
        raise _err(f"The first dimension of paddings must be the rank of inputs"
                   f"{_fmt(paddings.shape)}, {_fmt(x.shape)}")
    dims = x.shape.as_list()
    if p is None:
        return [None] * r
    p = np.asarray(p).reshape(r, 2)
    if (p < 0).any():
        raise _err(f"The paddings must be non-negative, got {p.tolist()}")
    out = []
    for d, (a, b) in zip(dims, p.tolist()):
        if limit is not None and d is not None and (a > limit(d) or b > limit(d)):
            raise _err(f"paddings must be no greater than the dimension size ({limit(d)} for "
                       f"size {d}), got {a}, {b} (input shape {_fmt(x.shape)})")
        out.append(None if d is None else d + a + b)
    return out


@register_op("PadV2")
class PadV2:
    """Pads ``x`` with ``constant_values`` by ``paddings`` (``[rank, 2]``: before, after)."""

    def infer(x, paddings, constant_values):
        dims = _pad_infer_dims(x, paddings)
        if constant_values.dtype is not x.dtype:
            raise _err(f"pad: constant_values has dtype {constant_values.dtype.name}, the input "
                       f"{x.dtype.name}")
        return x.dtype, TensorShape(dims)

    def kernel(x, paddings, constant_values):
        if np.shape(paddings) != (np.ndim(x), 2):  # (np.pad would broadcast them)
            raise ValueError("paddings must be [rank, 2]")
        if (np.asarray(paddings) < 0).any():
            raise _err(f"The paddings must be non-negative, got {np.asarray(paddings).tolist()}")
        return np.pad(x, np.asarray(paddings).reshape(-1, 2), constant_values=constant_values)

    def grad(op, dy):
        x, paddings, _ = op.inputs
        begin = bind(Unpack, [paddings], {"num": 2, "axis": 1})[0]
        return bind(Slice, [dy, begin, shape(x, out_type=paddings.dtype)]), None, None


def _mirror_index(n: int, a: int, b: int, offset: int) -> np.ndarray:
    q = np.arange(-a, n + b)
    return np.where(q < 0, -q - 1 + offset, np.where(q >= n, 2 * n - 1 - offset - q, q))


@register_op("MirrorPad")
class MirrorPad:
    """Pads ``x`` by reflecting it at its edges (mode REFLECT or SYMMETRIC)."""

    def infer(x, paddings, *, mode):
        off = 1 if mode == "REFLECT" else 0
        return x.dtype, TensorShape(_pad_infer_dims(x, paddings, lambda d: d - off))

    def kernel(x, paddings, *, mode):
        off = 1 if mode == "REFLECT" else 0
        out = x
        for ax, (a, b) in enumerate(np.asarray(paddings).reshape(-1, 2).tolist()):
            n = x.shape[ax]
            if a < 0 or b < 0 or a > n - off or b > n - off:
                raise _err(f"paddings must be no greater than the dimension size ({n - off} "
                           f"for size {n} in mode {mode}), got {a}, {b}")
            if a or b:
                out = np.take(out, _mirror_index(n, a, b, off), axis=ax)
        return out

    def grad(op, dy):
        return bind(MirrorPadGrad, [dy, op.inputs[1]], op.attrs), None


@register_op("MirrorPadGrad")
class MirrorPadGrad:
    """Folds a mirror-padded gradient back onto the unpadded shape."""

    def infer(dy, paddings, *, mode):
        p = constant_value(paddings)
        if dy.shape.rank is None:
            return dy.dtype, TensorShape(None)
        if p is None:
            return dy.dtype, TensorShape([None] * dy.shape.rank)
        p = np.asarray(p).reshape(-1, 2)
        return dy.dtype, TensorShape([None if d is None else d - int(a) - int(b)
                                      for d, (a, b) in zip(dy.shape.as_list(), p)])

    def kernel(dy, paddings, *, mode):
        off = 1 if mode == "REFLECT" else 0
        out = dy
        for ax, (a, b) in enumerate(np.asarray(paddings).reshape(-1, 2).tolist()):
            if not (a or b):
                continue
            n = out.shape[ax] - a - b
            folded = np.zeros(out.shape[:ax] + (n,) + out.shape[ax + 1:], dtype=dy.dtype)
            np.add.at(np.moveaxis(folded, ax, 0), _mirror_index(n, a, b, off),
                      np.moveaxis(out, ax, 0))
            out = folded
        return out

    def grad(op, dy):
        return bind(MirrorPad, [dy, op.inputs[1]], op.attrs), None


def pad(tensor: TensorLike, paddings: TensorLike, mode="CONSTANT", constant_values=0,
        name: str | None = None) -> Tensor:
    """Pads ``tensor`` (``tw.pad``).

    Args:
        tensor: a tensor.
        paddings: an int ``[rank, 2]`` list or tensor: how much to add before and after each
            dimension.
        mode: "CONSTANT", "REFLECT" or "SYMMETRIC" (case-insensitive).
        constant_values: the fill value in CONSTANT mode.
        name: op name.

    Returns:
        The padded tensor.
    """
    x, p, mode = convert(tensor), _int_input(paddings, "paddings"), str(mode).upper()
    if mode == "CONSTANT":
        c = constant_values
        if not isinstance(c, Tensor):
            if np.ndim(c) == 0 and not isinstance(c, (str, bytes)) and c == 0:
                c = np.zeros((), x.dtype.np)  # the dtype's zero: False, b'', 0
                if x.dtype.is_string:
                    c = np.array(b"", dtype=object)
            c = constant(c, x.dtype)
        return bind(PadV2, [x, p, c], name=name)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f'pad: mode must be "CONSTANT", "REFLECT" or "SYMMETRIC", got {mode!r}')
    return bind(MirrorPad, [x, p], {"mode": mode}, name=name)
