"""Scatter updates: ``tw.tensor_scatter_nd_sub/max/min``, ``tw.IndexedSlices`` and the variable
updates ``v[1:3].assign(x)``, ``v.scatter_nd_update(...)``, ``v.scatter_add(IndexedSlices)``...

The variable updates are stateful ops on the variable's resource handle, like AssignVariableOp:
they run eagerly, in ``tw.function`` (in program order) and in TF1 graphs. Each builds a new
array and replaces the variable's (arrays are never mutated in place). They have no gradients,
as in TensorFlow. Importing this module installs the methods on ``tw.Variable``.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..core.context import ctx
from ..eager.execute import bind
from ..eager.tensor import EagerTensor
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import SymbolicTensor, Tensor, TensorLike
from .array_ops import (
    GatherNd,
    ScatterNd,
    _check_indices,
    _index_tuple,
    _int_input,
    _nd_index,
    gather,
    gather_nd,
    scatter_infer,
    scatter_kernel,
    shape,
    slice_helper,
    slice_spec,
    tensor_scatter_function,
)
from .core import convert
from .core import invalid_argument as _err
from .indexed_slices import IndexedSlices
from .math_ops import cast, divide, equal, multiply, negative
from .variables import Variable, _convert_initial

__all__ = ["tensor_scatter_nd_sub", "tensor_scatter_nd_max", "tensor_scatter_nd_min",
           "IndexedSlices"]


# ----- tensor_scatter_nd_sub / max / min -------------------------------------------------------

@register_op("TensorScatterSub")
class TensorScatterSub:
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices``."""

    infer = scatter_infer
    kernel = scatter_kernel(np.subtract)

    def grad(op, dy):
        return dy, None, negative(bind(GatherNd, [dy, op.inputs[1]], {"batch_dims": 0}))


def _minmax_grad(op, dy):
    """TensorFlow's rule: ``dy`` goes to the tensor where it kept its value and to the updates
    that won, split evenly on ties."""
    x, indices, updates = op.inputs
    y = op.outputs[0]
    x_ind = cast(equal(x, y), dy.dtype)
    y_ind = cast(equal(updates, gather_nd(y, indices)), dy.dtype)
    ys_ind = bind(ScatterNd, [indices, y_ind, shape(x, out_type=indices.dtype)],
                  {"batch_dims": 0})
    total = x_ind + ys_ind
    return (multiply(divide(dy, total), x_ind), None,
            multiply(gather_nd(divide(dy, total), indices), y_ind))


@register_op("TensorScatterMax")
class TensorScatterMax:
    """A copy of ``tensor`` with ``maximum(tensor, updates)`` at ``indices``."""

    infer = scatter_infer
    kernel = scatter_kernel(np.maximum)
    grad = _minmax_grad


@register_op("TensorScatterMin")
class TensorScatterMin:
    """A copy of ``tensor`` with ``minimum(tensor, updates)`` at ``indices``."""

    infer = scatter_infer
    kernel = scatter_kernel(np.minimum)
    grad = _minmax_grad


tensor_scatter_nd_sub = tensor_scatter_function(
    "tensor_scatter_nd_sub", TensorScatterSub,
    "Subtracts ``updates`` from the slices of ``tensor`` at ``indices`` (duplicates sum).",
    __name__)


tensor_scatter_nd_max = tensor_scatter_function(
    "tensor_scatter_nd_max", TensorScatterMax,
    "The elementwise maximum of ``tensor``'s slices at ``indices`` and ``updates``.", __name__)
tensor_scatter_nd_min = tensor_scatter_function(
    "tensor_scatter_nd_min", TensorScatterMin,
    "The elementwise minimum of ``tensor``'s slices at ``indices`` and ``updates``.", __name__)


# ----- variable updates -------------------------------------------------------------------------

@register_op("ResourceStridedSliceAssign", stateful=True, multi_output=True)
class ResourceStridedSliceAssign:
    """Sets ``variable[begin:end:strides]`` (StridedSlice's spec and masks) to ``value``."""

    def infer(resource, begin, end, strides, value, **masks):
        return []

    def kernel(resource, begin, end, strides, value, **masks):
        new = np.array(resource._value)
        idx = _index_tuple(new.shape, begin, end, strides, masks)
        target = np.shape(new[idx])
        try:
            ok = np.broadcast_shapes(np.shape(value), target) == target
        except ValueError:
            ok = False
        if not ok:
            raise _err(f"sliced l-value shape {list(target)} does not match r-value shape "
                       f"{list(np.shape(value))}")
        new[idx] = value
        resource._set(new)
        return ()


def _rows_update(ufunc):
    def kernel(resource, indices, updates):
        new = np.array(resource._value)
        _check_indices(indices, new.shape[0] if new.ndim else 0)
        want = indices.shape + new.shape[1:]
        upd = np.broadcast_to(updates, want) if np.ndim(updates) == 0 else updates
        if np.shape(upd) != want:
            raise _err(f"updates must have shape indices.shape + variable.shape[1:] = "
                       f"{list(want)}, got {list(np.shape(updates))}")
        if ufunc is None:
            new[indices] = upd
        else:
            ufunc.at(new, indices, upd)
        resource._set(new)
        return ()
    return kernel


def _nd_update(ufunc):
    def kernel(resource, indices, updates):
        old = resource._value
        view, idx = _nd_index(old.shape, indices, 0)
        new = np.array(old).reshape(view)
        want = new[idx].shape
        if np.size(updates) != int(np.prod(want)):
            raise _err(f"updates of shape {list(np.shape(updates))} do not fit indices of shape "
                       f"{list(indices.shape)} into a variable of shape {list(old.shape)}")
        upd = np.reshape(updates, want)
        if ufunc is None:
            new[idx] = upd
        else:
            ufunc.at(new, idx, upd)
        resource._set(new.reshape(old.shape))
        return ()
    return kernel


def _no_outputs(resource, indices, updates):
    return []


def _declare_update(name: str, kernel, doc: str):
    ns = {"__doc__": doc, "infer": _no_outputs, "kernel": kernel}
    return register_op(name, stateful=True, multi_output=True)(type(name, (), ns))


_ROW_UFUNCS = {"Update": None, "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
               "Div": np.divide, "Max": np.maximum, "Min": np.minimum}
_ND_UFUNCS = {"Update": None, "Add": np.add, "Sub": np.subtract, "Max": np.maximum,
              "Min": np.minimum}
ROW_OPS = {k: _declare_update(f"ResourceScatter{k}", _rows_update(u),
                              f"Scatter-{k.lower()}s ``updates`` into the variable's rows at "
                              "``indices``.")
           for k, u in _ROW_UFUNCS.items()}
ND_OPS = {k: _declare_update(f"ResourceScatterNd{k}", _nd_update(u),
                             f"Scatter-{k.lower()}s ``updates`` into the variable at the "
                             "``[..., M]`` ``indices``.")
          for k, u in _ND_UFUNCS.items()}


def _after_update(var: Variable, read_value: bool):
    g = ctx.graph
    if g is None:
        return var
    if not read_value:
        return None
    with g.control_dependencies([g.get_operations()[-1]]):
        return var.read_value()


def _value_for(var: Variable, value) -> Tensor:
    if isinstance(value, Tensor):
        return convert(value, dtype=var.dtype)
    return convert(_convert_initial(value, var.dtype))


def _rows(var: Variable, kind: str, sparse_delta, read_value: bool = True):
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(f"sparse_delta must be a tw.IndexedSlices, got {sparse_delta!r}")
    bind(ROW_OPS[kind], [var.handle, sparse_delta.indices, _value_for(var, sparse_delta.values)])
    return _after_update(var, read_value)


def _nd(var: Variable, kind: str, indices, updates, read_value: bool = True):
    bind(ND_OPS[kind], [var.handle, _int_input(indices, "indices"), _value_for(var, updates)])
    return _after_update(var, read_value)


def _named(method, name: str, summary: str, args: list, returns: str):
    """``method`` named ``name``, documented (one ``"arg: text"`` per ``args`` entry) and
    name-scoped."""
    method.__name__ = name
    method.__doc__ = (f"{summary}\n\nArgs:\n" + "".join(f"    {a}\n" for a in args)
                      + f"\nReturns:\n    {returns}\n")
    return name_scoped(method)


def _row_method(kind: str):
    def method(self, sparse_delta: IndexedSlices, use_locking: bool = False,
               name: str | None = None, read_value: bool = True) -> Variable | Tensor | None:
        return _rows(self, kind, sparse_delta, read_value)
    return _named(method, f"scatter_{kind.lower()}",
                  f"Scatter-{kind.lower()}s ``sparse_delta`` (a ``tw.IndexedSlices``) into the "
                  "variable's rows.",
                  ["sparse_delta: the rows and their indices.", "use_locking: unused.",
                   "read_value: in a graph, return the new value (else None)."],
                  "The variable eagerly; its new value (or None) in a graph.")


def _nd_method(kind: str):
    def method(self, indices: TensorLike, updates: TensorLike,
               name: str | None = None) -> Variable | Tensor | None:
        return _nd(self, kind, indices, updates)
    return _named(method, f"scatter_nd_{kind.lower()}",
                  f"Scatter-{kind.lower()}s ``updates`` at the ``[..., M]`` ``indices``.",
                  ["indices: an int tensor ``[..., M]``.",
                   "updates: the values, ``indices.shape[:-1] + shape[M:]``."],
                  "The variable eagerly; its new value in a graph.")


# ----- v[key].assign(value) --------------------------------------------------------------------

_SLICED: dict = {}  # id(sliced tensor) -> (variable, key, weakref); entries leave with it


def _assign_slice(t, value, read_value: bool = True):
    var, key, _ = _SLICED[id(t)]
    spec, attrs = slice_spec(key)
    bind(ResourceStridedSliceAssign, [var.handle] + spec + [_value_for(var, value)], attrs)
    return _after_update(var, read_value)


class _EagerVariableSlice(EagerTensor):
    """``v[key]`` read eagerly: a tensor whose ``assign`` writes the slice of the variable."""

    __slots__ = ()

    @name_scoped
    def assign(self, value, name=None, read_value: bool = True):
        """Sets this slice of the variable to ``value`` (NumPy broadcasting).

        Args:
            value: a tensor or value broadcastable to the slice.
            read_value: in a graph, return the new value (else None).

        Returns:
            The variable eagerly; its new value (or None) in a graph.
        """
        return _assign_slice(self, value, read_value)


class _SymbolicVariableSlice(SymbolicTensor):
    """``v[key]`` while tracing: ``assign`` adds a ResourceStridedSliceAssign op."""

    __slots__ = ()
    assign = _EagerVariableSlice.assign


def _variable_getitem(self, key) -> Tensor:
    """``v[key]``: the slice of the variable's value, a tensor whose ``assign`` writes it back.

    Args:
        key: an indexing key, as for tensors.

    Returns:
        The sliced value (recorded on tapes like any read of the variable).
    """
    t = slice_helper(self.read_value(), key)
    if type(t) is EagerTensor:
        t.__class__ = _EagerVariableSlice
    elif type(t) is SymbolicTensor:
        t.__class__ = _SymbolicVariableSlice
    else:
        return t
    i = id(t)
    # The weak reference (kept in the entry) removes the entry when the tensor goes away.
    _SLICED[i] = (self, key if isinstance(key, tuple) else (key,),
                  weakref.ref(t, lambda _, i=i: _SLICED.pop(i, None)))
    return t


@name_scoped
def _sparse_read(self, indices: TensorLike, name: str | None = None) -> Tensor:
    """The variable's rows at ``indices`` (``gather`` of its value).

    Args:
        indices: an int tensor of row indices.

    Returns:
        The gathered rows.
    """
    return gather(self.read_value(), indices)


@name_scoped
def _gather_nd(self, indices: TensorLike, name: str | None = None) -> Tensor:
    """``gather_nd`` of the variable's value.

    Args:
        indices: an int tensor ``[..., M]``.

    Returns:
        The gathered slices.
    """
    return gather_nd(self.read_value(), indices)


def _install() -> None:
    for kind in _ROW_UFUNCS:
        setattr(Variable, f"scatter_{kind.lower()}", _row_method(kind))
    for kind in _ND_UFUNCS:
        setattr(Variable, f"scatter_nd_{kind.lower()}", _nd_method(kind))
    Variable.__getitem__ = _variable_getitem
    Variable.sparse_read = _sparse_read
    Variable.gather_nd = _gather_nd


_install()
