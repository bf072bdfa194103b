"""``tw.TensorArray``: a list of tensors that can be written inside loops.

Eagerly it is a Python list of tensors (writes happen in place and return the array, as in
TensorFlow's eager mode; the tape sees the ops that produced and combine the elements).

In a graph it is a value: its ``flow`` is a ``variant`` tensor holding an immutable
``TensorList``, and every write returns a new TensorArray with a new flow (so a TensorArray is
an ordinary loop variable of a While). The TensorList ops have gradients; a gradient list holds
None for zeros, so that ``+`` and ``zeros_like`` of lists are all backprop needs.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.context import ctx
from ..core.errors import InvalidArgumentError, OutOfRangeError
from ..core.props import readonly
from ..core.shapes import TensorShape
from ..eager.execute import bind, convert_to_tensor
from ..framework.specs import TensorArraySpec
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import DTypeLike, ShapeLike, Tensor, TensorLike
from ..ops import array_ops
from ..ops.core import convert

_SCALAR = TensorShape([])
_VARIANT = dtypes.variant


class TensorList:
    """The immutable value of a graph TensorArray's flow: a list of arrays (None = unset)."""

    __slots__ = ("items", "element_shape", "np_dtype")
    dtype = np.dtype(object)
    shape = ()
    ndim = 0

    def __init__(self, items: list, element_shape=None, np_dtype=None) -> None:
        self.items = items
        self.element_shape = element_shape
        self.np_dtype = np_dtype

    def like(self, items: list) -> TensorList:
        return TensorList(items, self.element_shape, self.np_dtype)

    def __len__(self) -> int:
        return len(self.items)

    def __add__(self, other) -> TensorList:
        if not isinstance(other, TensorList):
            return NotImplemented
        n = max(len(self.items), len(other.items))
        a = self.items + [None] * (n - len(self.items))
        b = other.items + [None] * (n - len(other.items))
        return self.like([x if y is None else y if x is None else x + y for x, y in zip(a, b)])

    __radd__ = __add__

    def zeros_like(self) -> TensorList:
        return self.like([None] * len(self.items))

    def item(self, i: int, like=None):
        n = len(self.items)
        if not -n <= i < n:
            raise InvalidArgumentError(None, None, f"Tried to read from index {i} but array "
                                                   f"size is: {n}")
        v = self.items[i]
        if v is None:
            v = self._zeros(like)
        return v

    def _zeros(self, like=None):
        if like is not None:
            return np.zeros_like(like)
        for v in self.items:
            if v is not None:
                return np.zeros_like(v)
        if self.element_shape is not None and None not in self.element_shape:
            return np.zeros(self.element_shape, self.np_dtype)
        raise InvalidArgumentError(None, None, "Could not read an element of a TensorArray "
                                               "that was never written and whose element_shape "
                                               "is not fully known")

    def dense(self) -> list:
        return [self._zeros() if v is None else v for v in self.items]

    def __repr__(self) -> str:
        return f"<TensorList of {len(self.items)}>"


def _es(shape: TensorShape):
    return None if shape.rank is None else tuple(shape.as_list())


@register_op("TensorListReserve")
class TensorListReserve:
    """A TensorList of ``num_elements`` unset elements."""

    def infer(num_elements, *, element_dtype, element_shape):
        return _VARIANT, _SCALAR

    def kernel(num_elements, *, element_dtype, element_shape):
        return TensorList([None] * int(num_elements), _es(element_shape), element_dtype.np)

    def grad(op, dy):
        return None


@register_op("TensorListFromTensor")
class TensorListFromTensor:
    """A TensorList of the rows of ``tensor``."""

    def infer(tensor, *, element_shape):
        return _VARIANT, _SCALAR

    def kernel(tensor, *, element_shape):
        return TensorList(list(tensor), tuple(tensor.shape[1:]), tensor.dtype)

    def grad(op, dy):
        t = op.inputs[0]
        return bind(TensorListStack, [dy, t], {"element_dtype": t.dtype,
                                               "element_shape": t.shape[1:] if t.shape.rank
                                               else TensorShape(None)})


@register_op("TensorListStack")
class TensorListStack:
    """Stacks the elements into one tensor (optional ``like``: the stacked shape for zeros)."""

    def infer(handle, *like, element_dtype, element_shape):
        if like:
            return element_dtype, like[0].shape
        return element_dtype, TensorShape([None]).concatenate(element_shape)

    def kernel(handle, *like, element_dtype, element_shape):
        if like:
            if not handle.items:
                return np.zeros_like(like[0])
            return np.stack([np.zeros_like(like[0][i]) if v is None else v
                             for i, v in enumerate(handle.items)])
        if not handle.items:
            es = _es(element_shape)
            if es is None or None in es:
                es = handle.element_shape or (0,)
            return np.zeros((0,) + tuple(d or 0 for d in es), element_dtype.np)
        return np.stack(handle.dense()).astype(element_dtype.np, copy=False)

    def grad(op, dy):
        return [bind(TensorListFromTensor, [dy], {"element_shape": op.attrs["element_shape"]})] \
            + [None] * (len(op.inputs) - 1)


@register_op("TensorListGetItem")
class TensorListGetItem:
    """Element ``index`` (zeros like ``like`` if unset, when given)."""

    def infer(handle, index, *like, element_dtype, element_shape):
        return element_dtype, like[0].shape if like else element_shape

    def kernel(handle, index, *like, element_dtype, element_shape):
        return np.asarray(handle.item(int(index), like[0] if like else None),
                          dtype=element_dtype.np)

    def grad(op, dy):
        return [bind(TensorListOneHot, [op.inputs[0], op.inputs[1], dy]), None] + \
            [None] * (len(op.inputs) - 2)


@register_op("TensorListSetItem")
class TensorListSetItem:
    """A copy of the list with element ``index`` set (growing it if ``resize``)."""

    def infer(handle, index, item, *, resize):
        return _VARIANT, _SCALAR

    def kernel(handle, index, item, *, resize):
        i = int(index)
        items = list(handle.items)
        if i >= len(items):
            if not resize:
                raise InvalidArgumentError(
                    None, None, f"Tried to write to index {i} but array is not resizeable and "
                    f"size is: {len(items)} (create the TensorArray with dynamic_size=True)")
            items += [None] * (i + 1 - len(items))
        elif i < 0:
            raise InvalidArgumentError(None, None, f"Tried to write to index {i} < 0")
        items[i] = item
        return handle.like(items)

    def grad(op, dy):
        h, i, item = op.inputs
        return [bind(TensorListClearItem, [dy, i]), None,
                bind(TensorListGetItem, [dy, i, item], {"element_dtype": item.dtype,
                                                        "element_shape": item.shape})]


@register_op("TensorListClearItem")
class TensorListClearItem:
    """A copy of the list with element ``index`` unset (gradient helper)."""

    def infer(handle, index):
        return _VARIANT, _SCALAR

    def kernel(handle, index):
        items = list(handle.items)
        if int(index) < len(items):
            items[int(index)] = None
        return handle.like(items)

    def grad(op, dy):
        return [bind(TensorListClearItem, [dy, op.inputs[1]]), None]


@register_op("TensorListOneHot")
class TensorListOneHot:
    """A list as long as ``handle`` with ``value`` at ``index``, unset elsewhere (gradient)."""

    def infer(handle, index, value):
        return _VARIANT, _SCALAR

    def kernel(handle, index, value):
        items = [None] * max(len(handle.items), int(index) + 1)
        items[int(index)] = value
        return handle.like(items)

    def grad(op, dy):
        v = op.inputs[2]
        return [None, None, bind(TensorListGetItem, [dy, op.inputs[1], v],
                                 {"element_dtype": v.dtype, "element_shape": v.shape})]


@register_op("TensorListLength", schema="handle@input_handle:variant -> length:int32")
class TensorListLength:
    """The number of elements (int32 scalar)."""

    def infer(handle):
        return dtypes.int32, _SCALAR

    def kernel(handle):
        return np.int32(len(handle.items))

    def grad(op, dy):
        return None


@register_op("TensorListConcat")
class TensorListConcat:
    """Concatenates the elements along their first axis."""

    def infer(handle, *, element_dtype, element_shape):
        rest = element_shape[1:] if element_shape.rank else TensorShape(None)
        return element_dtype, TensorShape([None]).concatenate(rest)

    def kernel(handle, *, element_dtype, element_shape):
        items = handle.dense()
        if not items:
            return np.zeros((0,), element_dtype.np)
        return np.concatenate(items).astype(element_dtype.np, copy=False)

    def grad(op, dy):
        return bind(TensorListSplitLike, [dy, op.inputs[0]])


@register_op("TensorListSplitLike")
class TensorListSplitLike:
    """Splits ``tensor`` into a list whose element lengths are those of ``like``."""

    def infer(tensor, like):
        return _VARIANT, _SCALAR

    def kernel(tensor, like):
        sizes = np.cumsum([len(v) for v in like.dense()])[:-1]
        return like.like(list(np.split(tensor, sizes)))

    def grad(op, dy):
        return [bind(TensorListConcat, [dy], {"element_dtype": op.inputs[0].dtype,
                                             "element_shape": TensorShape(None)}), None]


# ---------------------------------------------------------------------------------------------

class TensorArray:
    """``tw.TensorArray``: a list of tensors of one dtype, for loops.

    Args:
        dtype: the elements' dtype.
        size: the initial number of elements.
        dynamic_size: allow writes past the end.
        clear_after_read: a hint that changes nothing: TensorFlow 2's TensorArrays (lists
            of tensors in a function, Python lists eagerly) ignore it too.
        tensor_array_name: a name only (TF1's resource name).
        handle: TF1's existing TensorArray resource: not supported (raises
            NotImplementedError when given; pass ``flow`` instead).
        flow: a variant tensor to wrap (graph mode).
        infer_shape: merge the shapes of written elements into ``element_shape``.
        element_shape: the elements' shape, if known.
        colocate_with_first_write_call: a hint that changes nothing (device placement;
            twinflow has one device).
        name: op name.
    """

    def __init__(self, dtype: DTypeLike, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape: bool = True,
                 element_shape: ShapeLike | None = None,
                 colocate_with_first_write_call: bool = True, name: str | None = None) -> None:
        if handle is not None:
            raise NotImplementedError("TensorArray(handle=...): TF1 TensorArray resources are "
                                      "not supported; pass `flow` (a list variant) instead")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        # Shared by the TensorArrays derived from this one by writes: one element shape.
        self._shape_cell = [TensorShape(element_shape) if element_shape is not None
                            else TensorShape(None)]
        self._eager = ctx.graph is None and flow is None
        if self._eager:
            n = 0 if size is None else int(size)
            self._items: list = [None] * n
            self._flow = None
        elif flow is not None:
            self._flow = flow
        else:
            size_t = convert_to_tensor(0 if size is None else size, dtype_hint=dtypes.int32)
            self._flow = bind(TensorListReserve, [size_t], {
                "element_dtype": self._dtype, "element_shape": self._shape_cell[0]},
                name=name or "TensorArray")

    # ----- properties -----
    dtype = readonly("_dtype", "The elements' dtype.")
    dynamic_size = readonly("_dynamic_size", "Whether writes past the end grow the array.")

    @property
    def element_shape(self) -> TensorShape:
        return self._shape_cell[0]

    flow = readonly("_flow", "The tensor that carries the array's state through the graph.")
    handle = readonly("_flow", "The array's handle (its flow).")

    def _derive(self, flow) -> TensorArray:
        ta = TensorArray.__new__(TensorArray)
        ta._dtype, ta._dynamic_size, ta._infer_shape = self._dtype, self._dynamic_size, \
            self._infer_shape
        ta._shape_cell = self._shape_cell
        ta._eager = False
        ta._flow = flow
        return ta

    # While loops carry a graph TensorArray as its flow tensor.
    def _loop_tensor(self):
        if self._eager:
            raise TypeError("an eager TensorArray cannot be a loop variable of a graph while "
                            "loop; create it inside the tw.function")
        return self._flow

    def _from_loop_tensor(self, t) -> TensorArray:
        return self._derive(t)

    def _merge_shape(self, shape: TensorShape) -> None:
        if not self._infer_shape:
            return
        cur = self._shape_cell[0]
        if not cur.is_compatible_with(shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {cur} (the "
                             "elements of a TensorArray must have one shape; use infer_shape="
                             "False to allow different shapes)")
        self._shape_cell[0] = cur.merge_with(shape)

    def _value(self, value) -> Tensor:
        v = convert(value, dtype=self._dtype) if isinstance(value, Tensor) else \
            convert_to_tensor(value, dtype=self._dtype)
        return v

    # ----- API -----
    def write(self, index, value: TensorLike, name: str | None = None) -> TensorArray:
        """Sets element ``index`` to ``value``; returns the TensorArray to use afterwards.

        Args:
            index: an int scalar.
            value: a tensor of the array's dtype.
            name: op name.

        Returns:
            The updated TensorArray.
        """
        v = self._value(value)
        self._merge_shape(v.shape)
        if self._eager:
            i = int(index)
            if i < 0:
                raise InvalidArgumentError(None, None, f"Tried to write to index {i} < 0")
            if i >= len(self._items):
                if not self._dynamic_size:  # OutOfRangeError eagerly, as TensorFlow
                    raise OutOfRangeError(
                        None, None, f"Tried to write to index {i} but array is not resizeable "
                        f"and size is: {len(self._items)} (use dynamic_size=True)")
                self._items += [None] * (i + 1 - len(self._items))
            self._items[i] = v
            return self
        idx = convert_to_tensor(index, dtype_hint=dtypes.int32)
        return self._derive(bind(TensorListSetItem, [self._flow, idx, v],
                                 {"resize": self._dynamic_size}, name=name))

    def read(self, index, name: str | None = None) -> Tensor:
        """Element ``index``.

        Args:
            index: an int scalar.
            name: op name.

        Returns:
            The element.
        """
        if self._eager:
            i = int(index)
            n = len(self._items)
            if not 0 <= i < n:  # OutOfRangeError eagerly, as TensorFlow
                raise OutOfRangeError(None, None, f"Tried to read from index {i} but "
                                                  f"array size is: {n}")
            v = self._items[i]
            if v is None:
                es = self.element_shape
                if not es.is_fully_defined():
                    raise InvalidArgumentError(None, None, f"Could not read index {i}: it was "
                                                           "never written")
                v = convert_to_tensor(np.zeros(es.as_list(), self._dtype.np))
            return v
        idx = convert_to_tensor(index, dtype_hint=dtypes.int32)
        return bind(TensorListGetItem, [self._flow, idx], {
            "element_dtype": self._dtype, "element_shape": self.element_shape}, name=name)

    def stack(self, name: str | None = None) -> Tensor:
        """All elements stacked along a new first axis.

        Args:
            name: the op name.

        Returns:
            A tensor of shape ``[size] + element_shape``.
        """
        if self._eager:
            items = [self.read(i) for i in range(len(self._items))]
            if not items:
                es = self.element_shape
                dims = es.as_list() if es.rank is not None else []
                return convert_to_tensor(np.zeros([0] + [d or 0 for d in dims], self._dtype.np))
            return array_ops.stack(items)
        return bind(TensorListStack, [self._flow], {
            "element_dtype": self._dtype, "element_shape": self.element_shape}, name=name)

    @name_scoped
    def gather(self, indices: TensorLike, name: str | None = None) -> Tensor:
        """The elements at ``indices``, stacked.

        Args:
            indices: a 1-D int tensor or list of element indices.

        Returns:
            A tensor of shape ``[len(indices)] + element_shape``.
        """
        if self._eager:
            return array_ops.stack([self.read(int(i)) for i in np.asarray(indices)])
        idx = np.asarray(indices).reshape(-1)
        return array_ops.stack([self.read(int(i)) for i in idx])

    def unstack(self, value: TensorLike, name: str | None = None) -> TensorArray:
        """Writes the rows of ``value`` as the elements.

        Args:
            value: a tensor; its first axis indexes the elements.
            name: the op name.

        Returns:
            The TensorArray holding the rows.
        """
        v = self._value(value)
        if v.shape.rank is not None and v.shape.rank > 0:
            self._merge_shape(v.shape[1:])
        if self._eager:
            self._items = list(array_ops.unstack(v)) if v.shape[0] else []
            return self
        return self._derive(bind(TensorListFromTensor, [v], {"element_shape":
                                                             self.element_shape}, name=name))

    @name_scoped
    def scatter(self, indices: TensorLike, value: TensorLike,
                name: str | None = None) -> TensorArray:
        """Writes row j of ``value`` to element ``indices[j]``.

        Args:
            indices: a 1-D int tensor or list of element indices.
            value: a tensor with one row per index.

        Returns:
            The TensorArray after the writes.
        """
        v = self._value(value)
        ta = self
        for j, i in enumerate(np.asarray(indices).reshape(-1)):
            ta = ta.write(int(i), v[j])
        return ta

    def concat(self, name: str | None = None) -> Tensor:
        """The elements concatenated along their first axis.

        Args:
            name: the op name.

        Returns:
            A tensor whose first axis is the sum of the elements' first axes.
        """
        if self._eager:
            return array_ops.concat([self.read(i) for i in range(len(self._items))], 0)
        return bind(TensorListConcat, [self._flow], {
            "element_dtype": self._dtype, "element_shape": self.element_shape}, name=name)

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements.

        Args:
            name: the op name.

        Returns:
            An int32 scalar tensor.
        """
        if self._eager:
            return convert_to_tensor(np.int32(len(self._items)))
        return bind(TensorListLength, [self._flow], name=name)

    def identity(self) -> TensorArray:
        """Returns this TensorArray (TensorFlow's identity; twinflow needs no copy)."""
        return self

    @name_scoped
    def close(self, name: str | None = None) -> None:
        """Does nothing: twinflow frees the elements with the TensorArray.

        Args:
        """
        return None

    def __repr__(self) -> str:
        where = "eager" if self._eager else f"flow={self._flow.name}"
        return f"<tw.TensorArray dtype={self._dtype.name} {where}>"


TensorArraySpec._tw_value_type = TensorArray

__all__ = ["TensorArray"]
