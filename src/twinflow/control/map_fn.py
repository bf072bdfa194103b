"""``tw.map_fn``, ``tw.scan``, ``tw.foldl``, ``tw.foldr``: loops over the first axis.

Eagerly each is a Python loop over the rows; in a graph each is one While over TensorArrays
(so the rows are not unrolled and the gradient is the While's).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import dtypes, nest
from ..core.context import ctx
from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..framework.type_spec import TypeSpec
from ..graph.tensor import DTypeLike, Tensor
from ..ops import array_ops, math_ops
from ..ops.core import convert
from .tensor_array import TensorArray
from .while_loop import check_parallel_iterations, while_loop, without_gradient


def _rows(flat: list):
    """The static number of rows of ``flat`` tensors (None if unknown) and the dynamic one.

    Raises:
        ValueError: a scalar, or two tensors whose first dimensions differ (in every mode).
    """
    static = None
    for t in flat:
        if not nest.expands(t) and t.shape.rank == 0:  # (a composite: its rows)
            raise ValueError(f"elements must have rank >= 1 to be unstacked, got shape "
                             f"{t.shape}")
        d = t.shape[0] if t.shape.rank is not None else None
        if d is not None:
            if static is not None and d != static:
                raise ValueError(f"all elements must have the same first dimension, got "
                                 f"{static} and {d}")
            static = d
    if static is not None:
        return static, static
    first = flat[0]
    return None, first.nrows(out_type=dtypes.int32) if nest.expands(first) else \
        array_ops.shape(first)[0]


def _map_outputs(y, out_leaves: list) -> list:
    """``fn``'s result for one row as tensors of the expected dtypes (one rule, both modes)."""
    ys = nest.flatten(y)
    if len(ys) != len(out_leaves):
        raise ValueError(
            f"tw.map_fn: fn returned {len(ys)} tensors but {len(out_leaves)} were expected "
            "from the structure of elems; pass fn_output_signature describing fn's output.")
    out = []
    for v, (dt, spec) in zip(ys, out_leaves):
        if isinstance(spec, TypeSpec):  # a ragged row: _RowParts checks it
            out.append(v)
            continue
        v = convert(v) if isinstance(v, Tensor) else convert(v, dtype=dt)
        if v.dtype is not dt:
            raise TypeError(f"tw.map_fn: fn returned {v.dtype.name} where {dt.name} was "
                            "expected; pass fn_output_signature=tw."
                            f"{v.dtype.name} (or cast the result).")
        out.append(v)
    return out


def _check_accumulator(acc, new_acc, name: str) -> None:
    """``fn`` of scan/fold must return the structure of the accumulator (both modes)."""
    try:
        nest.assert_same_structure(acc, new_acc, check_types=False)
    except (ValueError, TypeError):
        def shape_of(x):
            return nest.map_structure(lambda _: "*", x)
        raise ValueError(f"tw.{name}: fn must return the structure of the accumulator, "
                         f"{shape_of(acc)!r}; it returned {shape_of(new_acc)!r}") from None


def _signature_leaves(sig, like_structure) -> list:
    """(dtype, TensorShape or None) for each leaf of an output signature."""
    out = []
    for s in nest.flatten(sig):
        if isinstance(s, TypeSpec) and not isinstance(s, TensorSpec):
            out.append((s.dtype, s))  # a composite row (RaggedTensorSpec): see _RowParts
        elif isinstance(s, TensorSpec):
            out.append((s.dtype, s.shape))
        else:
            out.append((dtypes.as_dtype(s), None))
    return out


def _stack_eager(results: list, structure, leaves=None):
    flat = [nest.flatten(r) for r in results]
    cols = []
    for k, col in enumerate(zip(*flat)):
        spec = leaves[k][1] if leaves is not None else None
        if isinstance(spec, TypeSpec):
            cols.append(_RowParts(spec, None).assemble_eager(list(col)))
        else:
            cols.append(array_ops.stack(list(col)))
    return nest.pack_sequence_as(structure, cols)


class _RowParts:
    """Rows of a ragged result (``fn_output_signature=tw.RaggedTensorSpec(...)``), collected
    as TensorArrays of their flat values and of the row lengths of each level, then joined
    into one RaggedTensor whose first ragged dimension is the row."""

    def __init__(self, spec, n) -> None:
        if not hasattr(spec, "ragged_rank"):
            raise TypeError(f"tw.map_fn: fn_output_signature {spec!r} is not supported; use "
                            "tensor specs/dtypes or tw.RaggedTensorSpec")
        self.spec = spec
        self.levels = spec.ragged_rank
        if n is not None:
            self.flat = TensorArray(spec.dtype, size=n, infer_shape=False)
            self.nrows = TensorArray(spec.row_splits_dtype, size=n)
            self.lens = [TensorArray(spec.row_splits_dtype, size=n, infer_shape=False)
                         for _ in range(self.levels)]

    def split(self, row) -> tuple:
        """(flat values, number of rows, [row lengths per ragged level]) of one row."""
        d = self.spec.row_splits_dtype
        if nest.expands(row):
            if row.ragged_rank != self.levels:
                raise ValueError(f"tw.map_fn: fn returned a RaggedTensor of ragged_rank "
                                 f"{row.ragged_rank}, the signature {self.spec!r} says "
                                 f"{self.levels}")
            return (row.flat_values, row.nrows(out_type=d),
                    [math_ops.cast(x, d) for x in row.nested_row_lengths()])
        if self.levels:
            raise ValueError(f"tw.map_fn: fn returned a dense tensor, the signature "
                             f"{self.spec!r} wants a RaggedTensor")
        row = convert(row, dtype=self.spec.dtype)
        return row, array_ops.shape(row, out_type=d)[0], []

    def write(self, i, row) -> list:
        flat, n0, lens = self.split(row)
        self.flat = self.flat.write(i, flat)
        self.nrows = self.nrows.write(i, n0)
        self.lens = [ta.write(i, x) for ta, x in zip(self.lens, lens)]
        return [self.flat, self.nrows] + self.lens

    def read_back(self, tas: list) -> None:
        self.flat, self.nrows, self.lens = tas[0], tas[1], list(tas[2:])

    def assemble(self):
        return self._build(self.flat.concat(), self.nrows.stack(),
                           [ta.concat() for ta in self.lens])

    def assemble_eager(self, rows: list):
        parts = [self.split(r) for r in rows]
        return self._build(array_ops.concat([p[0] for p in parts], 0),
                           array_ops.stack([p[1] for p in parts]),
                           [array_ops.concat([p[2][j] for p in parts], 0)
                            for j in range(self.levels)])

    def _build(self, flat, nrows, lens):
        # The result's spec has one more ragged dimension (the rows): its value_type builds it.
        outer = type(self.spec)(None, self.spec.dtype, self.levels + 1,
                                self.spec.row_splits_dtype)
        return outer.value_type.from_nested_row_lengths(flat, [nrows] + lens, validate=False)


def map_fn(fn: Callable, elems: Any, dtype: DTypeLike | None = None, parallel_iterations=None,
           back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
           name: str | None = None, fn_output_signature=None) -> Any:
    """``tw.map_fn``: applies ``fn`` to each row of ``elems`` and stacks the results.

    Args:
        fn: callable taking one row (in the structure of ``elems``).
        elems: a tensor or nested structure of tensors with a common first dimension.
        dtype: deprecated alias of ``fn_output_signature``.
        parallel_iterations: None or a positive integer (iterations run in order).
        back_prop: False holds the results constant (no gradient flows back; deprecated).
        swap_memory: a hint that changes nothing (TensorFlow's GPU-to-host swapping).
        infer_shape: a hint that changes nothing: TensorFlow's check that every step
            gives one shape (twinflow's stacking checks it anyway).
        name: op name.
        fn_output_signature: dtype, TensorSpec, or structure of them describing fn's output
            (default: the structure and dtypes of ``elems``).

    Returns:
        The stacked outputs.
    """
    if not back_prop:
        return without_gradient(map_fn(fn, elems, dtype, parallel_iterations, True, swap_memory,
                                       infer_shape, name, fn_output_signature))
    if parallel_iterations is not None:
        check_parallel_iterations(parallel_iterations)
    sig = fn_output_signature if fn_output_signature is not None else dtype
    # Composite elems (RaggedTensor...) are indexed row by row; dense ones become TensorArrays.
    flat_elems = [e if nest.expands(e) else convert(e) for e in nest.flatten(elems)]
    packed_elems = nest.pack_sequence_as(elems, flat_elems)
    static_n, n = _rows(flat_elems)
    # Without a signature TensorFlow assumes fn keeps the dtypes of elems (not the shapes).
    out_leaves = _signature_leaves(sig, elems) if sig is not None else \
        [(t.dtype, None) for t in flat_elems]
    if ctx.graph is None:
        results = [fn(nest.map_structure(lambda e, i=i: e[i], packed_elems)) for i in range(n)]
        if results:  # checked once, as a graph traces fn once
            _map_outputs(results[0], out_leaves)
        if not results:
            out_struct = sig if sig is not None else elems
            leaves = _signature_leaves(out_struct, None) if sig is not None else \
                [(t.dtype, t.shape[1:]) for t in flat_elems]
            zeros = [convert(np.zeros([0] + [d or 0 for d in (s.as_list() if s is not None and
                                                             s.rank is not None else [])],
                                      dt.np)) for dt, s in leaves]
            return nest.pack_sequence_as(out_struct, zeros)
        if sig is not None:
            leaves = _signature_leaves(sig, None)
            return _stack_eager(results, sig if nest.is_nested(sig) else results[0], leaves)
        return _stack_eager(results, results[0])
    out_struct = sig if sig is not None else elems
    in_tas = [None if nest.expands(t) else TensorArray(t.dtype, size=n).unstack(t)
              for t in flat_elems]
    parts = [_RowParts(s, n) if isinstance(s, TypeSpec) else None for _, s in out_leaves]
    out_tas = [[TensorArray(dt, size=n, element_shape=s)] if p is None else
               [p.flat, p.nrows] + p.lens for (dt, s), p in zip(out_leaves, parts)]

    def body(i, tas):
        row = nest.pack_sequence_as(elems, [e[i] if ta is None else ta.read(i)
                                            for e, ta in zip(flat_elems, in_tas)])
        ys = _map_outputs(fn(row), out_leaves)
        new = []
        for ta, v, p in zip(tas, ys, parts):
            if p is not None:  # a ragged row: its parts
                p.read_back(ta)
                new.append(p.write(i, v))
            else:
                new.append([ta[0].write(i, v)])
        return i + 1, new

    _, tas = while_loop(lambda i, _: i < n, body, (convert(0), out_tas),
                        parallel_iterations=parallel_iterations or 10,
                        maximum_iterations=n, name=name or "map")
    outs = []
    for ta, p in zip(tas, parts):
        if p is not None:
            p.read_back(ta)
            outs.append(p.assemble())
            continue
        o = ta[0].stack()
        if static_n is not None and o.shape.rank is not None:
            o.set_shape(TensorShape([static_n]).concatenate(o.shape[1:]))
        outs.append(o)
    if sig is None:
        return nest.pack_sequence_as(out_struct, outs)
    return nest.pack_sequence_as(sig, outs) if nest.is_nested(sig) else outs[0]


def _scan_impl(fn, elems, initializer, reverse: bool, keep_all: bool, name: str):
    flat_elems = [convert(e) for e in nest.flatten(elems)]
    packed = nest.pack_sequence_as(elems, flat_elems)
    static_n, n = _rows(flat_elems)
    if initializer is None and static_n == 0:
        raise ValueError(f"tw.{name} on empty elems needs an initializer")
    if ctx.graph is None:
        order = list(range(n))[::-1] if reverse else list(range(n))
        if initializer is None:
            acc = nest.map_structure(lambda e: e[order[0]], packed)
            outs = [acc]
            order = order[1:]
        else:
            acc = initializer
            outs = []
        for k, i in enumerate(order):
            new_acc = fn(acc, nest.map_structure(lambda e, i=i: e[i], packed))
            if k == 0:  # checked once, as a graph traces fn once
                _check_accumulator(acc, new_acc, name)
            acc = new_acc
            outs.append(acc)
        if not keep_all:
            return acc
        if reverse:
            outs = outs[::-1]
        return _stack_eager(outs, outs[0])
    in_tas = [TensorArray(t.dtype, size=n).unstack(t) for t in flat_elems]

    def row(i):
        return nest.pack_sequence_as(elems, [ta.read(i) for ta in in_tas])

    def index(k):
        return n - 1 - k if reverse else k

    if initializer is None:
        acc0 = row(index(0))
        start = 1
    else:
        acc0 = nest.map_structure(convert, initializer)
        start = 0
    flat_acc = nest.flatten(acc0)
    out_tas = [TensorArray(a.dtype, size=n, element_shape=a.shape) for a in flat_acc]
    if start:
        out_tas = [ta.write(index(0), a) for ta, a in zip(out_tas, flat_acc)]

    def body(k, acc, tas):
        packed_acc = nest.pack_sequence_as(acc0, acc)
        new_acc = fn(packed_acc, row(index(k)))
        _check_accumulator(packed_acc, new_acc, name)
        flat_new = [convert(v) for v in nest.flatten(new_acc)]
        if keep_all:
            tas = [ta.write(index(k), v) for ta, v in zip(tas, flat_new)]
        return k + 1, flat_new, tas

    _, acc, tas = while_loop(lambda k, *_: k < n, body, (convert(start), flat_acc, out_tas),
                             name=name)
    if not keep_all:
        return nest.pack_sequence_as(acc0, acc)
    outs = []
    for ta in tas:
        o = ta.stack()
        if static_n is not None and o.shape.rank is not None:
            o.set_shape(TensorShape([static_n]).concatenate(o.shape[1:]))
        outs.append(o)
    return nest.pack_sequence_as(acc0, outs)


def scan(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
         back_prop: bool = True, swap_memory: bool = False, infer_shape: bool = True,
         reverse: bool = False, name: str | None = None) -> Any:
    """``tw.scan``: the running accumulation ``a = fn(a, row)`` over rows, stacked.

    Args:
        fn: callable (accumulator, row) -> new accumulator.
        elems: a tensor or nested structure of tensors with a common first dimension.
        initializer: the first accumulator (default: the first row, which is then output).
        parallel_iterations: a positive integer (iterations run in order).
        back_prop: False holds the results constant (no gradient flows back; deprecated).
        swap_memory: a hint that changes nothing (TensorFlow's GPU-to-host swapping).
        infer_shape: a hint that changes nothing: TensorFlow's check that every step
            gives one shape (twinflow's stacking checks it anyway).
        reverse: scan from the last row to the first.
        name: op name.

    Returns:
        The accumulators, stacked (in the structure of the accumulator).
    """
    check_parallel_iterations(parallel_iterations)
    out = _scan_impl(fn, elems, initializer, reverse, True, name or "scan")
    return out if back_prop else without_gradient(out)


def _fold(fn_name: str, reverse: bool) -> Callable[..., Any]:
    """``tw.foldl`` (``reverse=False``) or ``tw.foldr``: a scan that keeps only the last
    accumulator."""
    def fold(fn: Callable, elems: Any, initializer: Any = None, parallel_iterations: int = 10,
             back_prop: bool = True, swap_memory: bool = False, name: str | None = None) -> Any:
        check_parallel_iterations(parallel_iterations)
        out = _scan_impl(fn, elems, initializer, reverse, False, name or fn_name)
        return out if back_prop else without_gradient(out)
    order, first = ("last to first", "last") if reverse else ("first to last", "first")
    fold.__name__ = fold.__qualname__ = fn_name
    fold.__doc__ = f"""``tw.{fn_name}``: ``a = fn(a, row)`` over rows {order}; returns the
    final ``a``.

    Args:
        fn: callable (accumulator, row) -> new accumulator.
        elems: a tensor or nested structure of tensors with a common first dimension.
        initializer: the first accumulator (default: the {first} row).
        parallel_iterations: a positive integer (iterations run in order).
        back_prop: False holds the results constant (no gradient flows back; deprecated).
        swap_memory: a hint that changes nothing (TensorFlow's GPU-to-host swapping).
        name: op name.

    Returns:
        The final accumulator.
    """
    return fold


foldl = _fold("foldl", reverse=False)
foldr = _fold("foldr", reverse=True)


__all__ = ["map_fn", "scan", "foldl", "foldr"]
