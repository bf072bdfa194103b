"""Slicing and indexing: slice, strided_slice, ``t[...]``."""
from __future__ import annotations

import builtins as _py  # this module defines tw.slice: the builtin is _py.slice

import numpy as np

from ...core import dtypes
from ...core.context import ctx, process
from ...core.shapes import TensorShape
from ...eager.execute import bind, constant, constant_value
from ...eager.tensor import EagerTensor
from ...graph.registry import register_op
from ...graph.tensor import Tensor, TensorLike
from ..core import _fmt, convert, shape_from_tensor
from ..core import invalid_argument as _err
from .shape import _elems, _int_input, shape


@register_op("Slice")
class Slice:
    """``size`` elements of ``x`` from ``begin`` in each dimension (size -1: to the end)."""

    def infer(x, begin, size):
        r = x.shape.rank
        bs, ss = _elems(begin, r), _elems(size, r)
        n = r if r is not None else (len(bs) if bs is not None else None)
        if n is None:
            return x.dtype, TensorShape(None)
        bs = bs or [None] * n
        ss = ss or [None] * n
        if len(bs) != n or len(ss) != n:
            raise _err(f"Expected begin and size arguments to be 1-D tensors of size {n}, but "
                       f"got shapes {_fmt(begin.shape)} and {_fmt(size.shape)} instead.")
        dims = x.shape.as_list() if r is not None else [None] * n
        out = []
        for i, (d, b, s) in enumerate(zip(dims, bs, ss)):
            if b is not None and (b < 0 or d is not None and b > d):
                raise _err(f"Expected begin[{i}] in [0, {d}], but got {b}")
            if s is not None and s >= 0:
                if b is not None and d is not None and b + s > d:
                    raise _err(f"Expected size[{i}] in [0, {d - b}], but got {s}")
                out.append(s)
            elif s == -1 and b is not None and d is not None:
                out.append(d - b)
            else:
                out.append(None)
        return x.dtype, TensorShape(out)

    def kernel(x, begin, size):
        if len(begin) != np.ndim(x) or len(size) != np.ndim(x):  # (zip would cut them short)
            raise ValueError("begin and size must have one entry per dimension")
        idx = []
        for i, (d, b, s) in enumerate(zip(np.shape(x), begin, size)):
            b, s = int(b), int(s)
            e = d if s == -1 else b + s
            if not 0 <= b <= d or not b <= e <= d:
                raise _err(f"Expected begin[{i}] in [0, {d}] and size[{i}] in [0, {d - b}] "
                           f"(or -1), but got begin {b} and size {s}")
            idx.append(_py.slice(b, e))
        return x[tuple(idx)]

    def grad(op, dy):
        x, begin, _ = op.inputs
        return bind(SliceGrad, [shape(x, out_type=begin.dtype), begin, dy]), None, None


@register_op("SliceGrad")
class SliceGrad:
    """Zeros of ``shape`` with ``dy`` placed at ``begin`` (gradient of Slice)."""

    def infer(shape_, begin, dy):
        return dy.dtype, shape_from_tensor(shape_)

    def kernel(shape_, begin, dy):
        out = np.zeros(tuple(int(d) for d in shape_), dtype=dy.dtype)
        out[tuple(_py.slice(int(b), int(b) + n) for b, n in zip(begin, np.shape(dy)))] = dy
        return out

    def grad(op, ddx):
        _, begin, dy = op.inputs
        return None, None, bind(Slice, [ddx, begin, shape(dy, out_type=begin.dtype)])


def slice(input_: TensorLike, begin, size, name: str | None = None) -> Tensor:
    """Extracts a block of ``input_`` (``tw.slice``).

    Args:
        input_: a tensor.
        begin: the start index in each dimension.
        size: the block size in each dimension; -1 takes everything from ``begin`` on.
        name: op name.

    Returns:
        The block.
    """
    b = _int_input(begin, "begin")
    s = _int_input(size, "size", dtype=b.dtype if not isinstance(size, Tensor) else None)
    return bind(Slice, [convert(input_), b, s], name=name)


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _ss_plan(rank: int | None, n: int, begin_mask=0, end_mask=0, ellipsis_mask=0,
             new_axis_mask=0, shrink_axis_mask=0):
    """What each of the ``n`` slice-spec entries does to a tensor of ``rank``.

    Returns:
        (entries, trailing): entries are ("ellipsis", first_dim, count), ("new",),
        ("shrink", dim, i) or ("slice", dim, i); ``trailing`` is the first input dimension the
        spec leaves untouched (None when the rank is unknown and an ellipsis is present).
    """
    ells = [i for i in range(n) if ellipsis_mask >> i & 1]
    if len(ells) > 1:
        raise _err("Multiple ellipses in slice spec not allowed")
    consumed = sum(1 for i in range(n)
                   if not (ellipsis_mask >> i & 1) and not (new_axis_mask >> i & 1))
    if rank is not None and consumed > rank:
        raise _err(f"Index out of range using input dim {rank}; input has only {rank} dims "
                   f"(got {consumed} indices)")
    entries, d = [], 0
    for i in range(n):
        if ellipsis_mask >> i & 1:
            k = None if rank is None else rank - consumed
            entries.append(("ellipsis", d, k))
            d = None if k is None else d + k
        elif new_axis_mask >> i & 1:
            entries.append(("new",))
        elif shrink_axis_mask >> i & 1:
            entries.append(("shrink", d, i))
            d = None if d is None else d + 1
        else:
            entries.append(("slice", d, i))
            d = None if d is None else d + 1
    return entries, d


def _index_tuple(x_shape, begin, end, strides, masks) -> tuple:
    """The NumPy index equivalent to a StridedSlice spec on an array of ``x_shape``."""
    entries, _ = _ss_plan(len(x_shape), len(begin), **masks)
    bm, em = masks.get("begin_mask", 0), masks.get("end_mask", 0)
    idx = []
    for e in entries:
        kind = e[0]
        if kind == "ellipsis":
            idx.append(Ellipsis)
        elif kind == "new":
            idx.append(None)
        elif kind == "shrink":
            _, d, i = e
            b, n = int(begin[i]), x_shape[d]
            if not -n <= b < n:
                raise _err(f"slice index {b} of dimension {d} out of bounds.")
            idx.append(b)
        else:
            _, d, i = e
            s = int(strides[i])
            if s == 0:
                raise _err(f"strides[{i}] must be non-zero")
            idx.append(_py.slice(None if bm >> i & 1 else int(begin[i]),
                                 None if em >> i & 1 else int(end[i]), s))
    return tuple(idx)


def _slice_len(d, b, e, s, bmask: bool, emask: bool):
    if s is None or d is None or (b is None and not bmask) or (e is None and not emask):
        return None
    return len(range(*_py.slice(None if bmask else b, None if emask else e, s).indices(d)))


@register_op("StridedSlice")
class StridedSlice:
    """Python-style basic indexing: ``x[begin:end:strides]`` per dimension, with masks.

    Bit i of ``begin_mask``/``end_mask`` ignores begin[i]/end[i]; of ``ellipsis_mask`` makes
    entry i an ellipsis; of ``new_axis_mask`` a new length-1 axis; of ``shrink_axis_mask`` an
    integer index (end[i] is then ignored).
    """

    def infer(x, begin, end, strides, **masks):
        n = begin.shape[0] if begin.shape.rank == 1 else None
        if n is None:
            return x.dtype, TensorShape(None)
        rank = x.shape.rank
        entries, trailing = _ss_plan(rank, n, **masks)
        if rank is None:
            return x.dtype, TensorShape(None)
        bv, ev, sv = _elems(begin, n), _elems(end, n), _elems(strides, n)
        bm, em = masks.get("begin_mask", 0), masks.get("end_mask", 0)
        dims = x.shape.as_list()
        out = []
        for e in entries:
            kind = e[0]
            if kind == "ellipsis":
                out.extend(dims[e[1]:e[1] + e[2]])
            elif kind == "new":
                out.append(1)
            elif kind == "shrink":
                _, d, i = e
                b, size_ = bv[i], dims[d]
                if b is not None and size_ is not None and not -size_ <= b < size_:
                    raise _err(f"slice index {b} of dimension {d} out of bounds.")
            else:
                _, d, i = e
                if sv[i] == 0:
                    raise _err(f"strides[{i}] must be non-zero")
                out.append(_slice_len(dims[d], bv[i], ev[i], sv[i], bool(bm >> i & 1),
                                      bool(em >> i & 1)))
        out.extend(dims[trailing:])
        return x.dtype, TensorShape(out)

    def kernel(x, begin, end, strides, **masks):
        return x[_index_tuple(np.shape(x), begin, end, strides, masks)]

    def constant_value(op):
        vals = [constant_value(t) for t in op.inputs]
        if any(v is None for v in vals):
            return None
        return StridedSlice.kernel(*vals, **op.attrs)

    def grad(op, dy):
        x, begin, end, strides = op.inputs
        g = bind(StridedSliceGrad, [shape(x, out_type=begin.dtype), begin, end, strides, dy],
                 op.attrs)
        return g, None, None, None


@register_op("StridedSliceGrad")
class StridedSliceGrad:
    """Zeros of ``shape`` with ``dy`` placed where StridedSlice took its values."""

    def infer(shape_, begin, end, strides, dy, **masks):
        return dy.dtype, shape_from_tensor(shape_)

    def kernel(shape_, begin, end, strides, dy, **masks):
        out = np.zeros(tuple(int(d) for d in shape_), dtype=dy.dtype)
        idx = _index_tuple(out.shape, begin, end, strides, masks)
        out[idx] = np.reshape(dy, np.shape(out[idx]))
        return out

    def grad(op, ddx):
        _, begin, end, strides, _ = op.inputs
        return None, None, None, None, bind(StridedSlice, [ddx, begin, end, strides], op.attrs)


def strided_slice(input_: TensorLike, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0,
                  name: str | None = None) -> Tensor:
    """Extracts a strided slice of ``input_`` (``tw.strided_slice``); ``x[...]`` uses this.

    Args:
        input_: a tensor.
        begin: 1-D int start indices, one per slice-spec entry.
        end: 1-D int end indices (exclusive).
        strides: 1-D int steps (default all 1).
        begin_mask: bit i set ignores begin[i] (start from the first/last element).
        end_mask: bit i set ignores end[i].
        ellipsis_mask: bit i set makes entry i an ellipsis.
        new_axis_mask: bit i set makes entry i a new length-1 dimension.
        shrink_axis_mask: bit i set makes entry i an integer index (removing the dimension).
        name: op name.

    Returns:
        The slice.
    """
    b = _int_input(begin, "begin")
    e = _int_input(end, "end", dtype=None if isinstance(end, Tensor) else b.dtype)
    if strides is None:
        n = b.shape[0] if b.shape.rank == 1 else None
        if n is None:
            raise ValueError("strided_slice: strides are needed when begin has unknown length")
        strides = [1] * n
    s = _int_input(strides, "strides", dtype=None if isinstance(strides, Tensor) else b.dtype)
    attrs = dict(zip(_MASKS, (int(begin_mask), int(end_mask), int(ellipsis_mask),
                              int(new_axis_mask), int(shrink_axis_mask))))
    return bind(StridedSlice, [convert(input_), b, e, s], attrs, name=name)


def _index_value(v, key):
    """A slice bound or integer index: a Python int, or a scalar int symbolic tensor."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(_BAD_INDEX.format(key=key))
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, Tensor) and v.dtype.is_integer and v.shape.rank == 0:
        c = constant_value(v)
        return v if c is None else int(c)
    idx = getattr(v, "__index__", None)
    if idx is not None and not isinstance(v, Tensor):
        return int(idx())
    raise TypeError(_BAD_INDEX.format(key=key))


_BAD_INDEX = ("Only integers, slices (`:`), ellipsis (`...`), tw.newaxis (`None`) and scalar "
              "tw.int32/tw.int64 tensors are valid indices, got {key!r}")


def _spec_tensor(values: list, dtype) -> Tensor:
    if any(isinstance(v, Tensor) for v in values):
        return convert(values, dtype)
    return constant(np.asarray(values, dtype=dtype.np))


def _plain(key: tuple) -> bool:
    """Whether every entry of ``key`` is a Python int, None, ``...`` or a slice of ints."""
    for k in key:
        t = type(k)
        if t is int or k is None or k is Ellipsis:
            continue
        if t is _py.slice and all(type(v) is int or v is None
                                   for v in (k.start, k.stop, k.step)):
            continue
        return False
    return True


def _put(begin: list, end: list, strides: list, b, e, s) -> None:
    begin.append(b)
    end.append(e)
    strides.append(s)


def slice_helper(tensor, key) -> Tensor:
    """``tensor[key]``: basic indexing as one StridedSlice op, as TensorFlow does.

    Args:
        tensor: the tensor being indexed.
        key: an int, slice, ``...``, ``tw.newaxis`` (None), scalar int tensor, or a tuple of
            these.

    Returns:
        The indexed tensor.
    """
    if not isinstance(key, tuple):
        key = (key,)
    if (type(tensor) is EagerTensor and _plain(key)
            and (process.quiet or (ctx.graph is None and not ctx.slow_path
                                  and not process.eager_hook))):
        # Nothing records this op, so NumPy's identical basic indexing can do it directly.
        try:
            v = tensor._value[key]
        except (IndexError, ValueError, TypeError):
            pass  # StridedSlice below raises TensorFlow's error for this key
        else:
            if type(v) is bytes:  # an element of a string tensor: keep it an array
                v = np.asarray(v, dtype=object)
            return EagerTensor(v)
    spec, attrs = slice_spec(key)
    return bind(StridedSlice, [convert(tensor)] + spec, attrs)


def slice_spec(key: tuple) -> tuple:
    """The StridedSlice inputs and attrs for an indexing key (``x[key]``, ``v[key].assign``).

    Args:
        key: a tuple of ints, slices, ``...``, None and scalar int tensors.

    Returns:
        ([begin, end, strides] as int tensors, the mask attrs).
    """
    begin, end, strides = [], [], []
    bm = em = ell = new = shrink = 0
    for i, k in enumerate(key):
        bit = 1 << i
        if k is Ellipsis:
            ell |= bit
            _put(begin, end, strides, 0, 0, 1)
        elif k is None:
            new |= bit
            _put(begin, end, strides, 0, 0, 1)
        elif isinstance(k, _py.slice):
            if k.start is None:
                bm |= bit
                begin.append(0)
            else:
                begin.append(_index_value(k.start, k))
            if k.stop is None:
                em |= bit
                end.append(0)
            else:
                end.append(_index_value(k.stop, k))
            step = 1 if k.step is None else _index_value(k.step, k)
            if isinstance(step, int) and step == 0:
                raise _err("slice step cannot be zero (strides must be non-zero)")
            strides.append(step)
        else:
            v = _index_value(k, k)
            shrink |= bit
            # StridedSlice ignores end for a shrunk axis, so a tensor index needs no v + 1.
            _put(begin, end, strides, v, v + 1 if isinstance(v, int) else v, 1)
    dts = {v.dtype for v in begin + end + strides if isinstance(v, Tensor)}
    dt = dtypes.int64 if dtypes.int64 in dts else dtypes.int32
    attrs = {"begin_mask": bm, "end_mask": em, "ellipsis_mask": ell, "new_axis_mask": new,
             "shrink_axis_mask": shrink}
    return [_spec_tensor(begin, dt), _spec_tensor(end, dt), _spec_tensor(strides, dt)], attrs
