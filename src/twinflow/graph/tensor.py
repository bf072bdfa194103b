"""The Tensor base class shared by eager and symbolic tensors.

Operator overloads (``+``, ``@``, ``[]``...) are declared by the ops layer
(``twinflow.ops.overloads``) through ``register_operators``, as TensorFlow does, so this layer
needs no op; ``register_numpy_methods`` is the other registration point (the NumPy methods of
``experimental_enable_numpy_behavior``).
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import DType
from ..core.errors import OperatorNotAllowedInGraphError
from ..core.props import readonly
from ..core.shapes import TensorShape

_OPERATOR_NAMES = frozenset(
    f"__{n}__" for n in "add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod "
    "rmod pow rpow matmul rmatmul neg pos abs invert and rand or ror xor rxor lt le gt ge eq "
    "ne getitem".split())


def register_operators(methods: dict) -> None:
    """Declares the Python operators of every tensor (called once, by ``ops/overloads.py``).

    Args:
        methods: ``{dunder name: function(tensor, *args)}``, for names among Python's
            arithmetic, comparison, bitwise and indexing operators. They become methods of
            ``Tensor`` (plain class attributes: the fastest dispatch Python has).

    Raises:
        ValueError: a name that is not such an operator.
    """
    unknown = set(methods) - _OPERATOR_NAMES
    if unknown:
        raise ValueError(f"not tensor operators: {sorted(unknown)}")
    for name, fn in methods.items():
        setattr(Tensor, name, fn)


_NUMPY_METHOD_NAMES = frozenset(
    "T astype clip data flatten max mean min ravel reshape size tolist transpose "
    "__round__".split())


def register_numpy_methods(methods: dict) -> None:
    """Adds (or, for a value of None, removes) the NumPy methods TensorFlow gives tensors
    under ``tf.experimental.numpy.experimental_enable_numpy_behavior`` (called by
    ``numpy_api/behavior.py`` only).

    Args:
        methods: ``{name: function or property, or None}`` for names among ``T``, ``astype``,
            ``clip``, ``data``, ``flatten``, ``max``, ``mean``, ``min``, ``ravel``, ``reshape``,
            ``size``, ``tolist``, ``transpose``, ``__round__``.

    Raises:
        ValueError: another name.
    """
    unknown = set(methods) - _NUMPY_METHOD_NAMES
    if unknown:
        raise ValueError(f"not NumPy tensor methods: {sorted(unknown)}")
    for name, fn in methods.items():
        if fn is None:
            if name in Tensor.__dict__:
                delattr(Tensor, name)
        else:
            setattr(Tensor, name, fn)


class Tensor:
    """A multidimensional array with a dtype and a (possibly partial) static shape."""

    __slots__ = ()
    # Make NumPy defer to our reflected operators (ndarray + Tensor -> Tensor.__radd__).
    __array_priority__ = 100

    def get_shape(self) -> TensorShape:
        """Returns the static shape (alias of ``shape``)."""
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    def ref(self) -> Reference:
        """A hashable reference to this tensor (tensors themselves are unhashable)."""
        return Reference(self)

    def experimental_ref(self) -> Reference:
        """Returns a hashable reference to this tensor (tensors are unhashable)."""
        return Reference(self)

    def __hash__(self):
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


# For type hints: what ops accept where a tensor is expected (they convert_to_tensor it).
# Variables are tensor-like too, but live in a higher layer, so they are not named here.
TensorLike = (Tensor | np.ndarray | np.generic | bool | int | float | complex | str | bytes
              | list | tuple)
# What ``as_dtype`` accepts, and what ops accept as a shape (dims may be None where allowed).
DTypeLike = DType | str | type | np.dtype
ShapeLike = TensorShape | Tensor | np.ndarray | list | tuple


class Reference:
    """Hashable wrapper around a tensor or variable, compared by identity (``t.ref()``)."""

    __slots__ = ("_obj",)

    def __init__(self, obj) -> None:
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self) -> int:
        return id(self._obj)

    def __eq__(self, other) -> bool:
        return isinstance(other, Reference) and other._obj is self._obj

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._obj!r}>"


class SymbolicTensor(Tensor):
    """An output of an Operation in a Graph: a dtype and a static shape, no value."""

    __slots__ = ("op", "value_index", "dtype", "_shape", "__weakref__")

    def __init__(self, op, value_index: int, dtype, shape: TensorShape) -> None:
        self.op, self.value_index, self.dtype, self._shape = op, value_index, dtype, shape

    shape = readonly("_shape", "The static shape (``set_shape`` refines it).")

    def set_shape(self, shape) -> None:
        """Refines the static shape (raises ValueError if incompatible)."""
        self._shape = self._shape.merge_with(shape)

    @property
    def graph(self):
        return self.op.graph

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def device(self) -> str:
        return self.op.device

    def consumers(self) -> list:
        return [op for op in self.graph.get_operations() if any(t is self for t in op.inputs)]

    @property
    def numpy(self):
        # An AttributeError, as TensorFlow's SymbolicTensor has no numpy: hasattr(x, "numpy")
        # tells eager tensors from symbolic ones.
        raise AttributeError(
            f"{self.name} is a symbolic tensor: it has no numpy() while a graph is being built. "
            "Return it from the tw.function, or use tw.print to see its value at run time.")

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            f"Using a symbolic tw.Tensor ({self.name}) as a Python bool is not allowed while "
            "tracing: its value is only known when the graph runs. Use tw.cond or "
            "AutoGraph (the default of tw.function) for `if`/`while` on tensors.")

    def __iter__(self):
        dims = self._shape.as_tuple()
        if dims is None or not dims or dims[0] is None:
            raise OperatorNotAllowedInGraphError(
                f"Iterating over a symbolic tw.Tensor ({self.name}, shape {self._shape}) "
                "needs a known first dimension; use tw.map_fn or AutoGraph.")
        return (self[i] for i in range(dims[0]))

    def __len__(self) -> int:
        dims = self._shape.as_tuple()
        if dims is None or not dims or dims[0] is None:
            raise TypeError(f"len() of a tensor with unknown first dimension ({self.name}, "
                            f"shape {self._shape}) is not defined; use tw.shape(x)[0].")
        return dims[0]

    def __index__(self):
        raise TypeError(f"Symbolic tensor {self.name} cannot be used as a Python index.")

    def __hash__(self) -> int:
        # As in TensorFlow, tensors of a TF1-style graph (not a function being traced) hash by
        # identity, so they can key a Session's feed_dict.
        if getattr(self.op.graph, "building_function", False):
            return Tensor.__hash__(self)
        return id(self)

    def __repr__(self) -> str:
        return f"<tw.Tensor '{self.name}' shape={self._shape} dtype={self.dtype.name}>"

    def __str__(self) -> str:  # as TensorFlow: print(x) while tracing
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self.dtype.name})'

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic tw.Tensor ({self.name}) to a NumPy array: it has no "
            "value while tracing. Use tw ops instead of NumPy functions inside tw.function.")
