"""TensorShape: a possibly partially known shape (unknown rank, or unknown dims as None)."""
from __future__ import annotations

import operator
from collections.abc import Iterable


class TensorShape:
    """The static shape of a tensor, as TensorFlow's ``tf.TensorShape``.

    ``dims`` is None for an unknown rank, else a tuple of ints and Nones.

    Args:
        dims: None (unknown rank), a TensorShape, or an iterable of ints and Nones.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims=None) -> None:
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, int):
            self._dims = (dims,)
        else:
            self._dims = tuple(_as_dim(d) for d in dims)

    @classmethod
    def _from_tuple(cls, dims: tuple) -> TensorShape:
        # Fast constructor for eager tensors, whose dims are known ints.
        s = object.__new__(cls)
        s._dims = dims
        return s

    @property
    def dims(self) -> list | None:
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self) -> list:
        """Returns the dims as a list of ints and Nones.

        Raises:
            ValueError: the rank is unknown.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self) -> tuple | None:
        """Returns the dims as a tuple, or None for an unknown rank."""
        return self._dims

    def is_fully_defined(self) -> bool:
        """Returns whether the rank and every dimension are known."""
        return self._dims is not None and None not in self._dims

    def num_elements(self) -> int | None:
        """Returns the number of elements, or None unless the shape is fully defined."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        """Whether the two shapes could describe the same tensor (unknowns match anything).

        Args:
            other: a TensorShape, or a list/tuple of dims (ints or None), or None.

        Returns:
            True unless a known rank or dimension differs.
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other) -> TensorShape:
        """Combines the known dims of both shapes.

        Args:
            other: a TensorShape, or a list/tuple of dims (ints or None), or None.

        Returns:
            The shape with every dim known in either shape.

        Raises:
            ValueError: the shapes are incompatible.
        """
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The most specific shape that both self and other are compatible with.

        Args:
            other: a TensorShape, or a list/tuple of dims (ints or None), or None.

        Returns:
            A shape keeping the dims on which both agree, None elsewhere.
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    def with_rank(self, rank: int) -> TensorShape:
        """Checks (or, for an unknown rank, sets) the rank.

        Args:
            rank: the required rank.

        Returns:
            This shape, or ``rank`` unknown dims when the rank was unknown.

        Raises:
            ValueError: the rank is known and differs.
        """
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def concatenate(self, other) -> TensorShape:
        """Appends the dims of ``other``.

        Args:
            other: a TensorShape, or a list/tuple of dims (ints or None), or None.

        Returns:
            The concatenated shape (unknown rank if either is).
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self) -> bool:
        return self._dims is not None

    def __eq__(self, other) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._dims)

    def __add__(self, other) -> TensorShape:
        return self.concatenate(other)

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"


def _as_dim(d):
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # a Dimension-like
        d = d.value
        if d is None:
            return None
    try:
        i = operator.index(d)  # as TensorFlow: 2.5 is no dimension (int(2.5) would say 2)
    except TypeError as e:
        raise TypeError(f"Dimension value must be integer or None or have an __index__ "
                        f"method, got value {d!r} with type {type(d)}") from e
    if i < 0:
        if i == -1:
            return None
        raise ValueError(f"Dimension {i} must be >= 0")
    return i


def as_shape(value) -> TensorShape:
    """Converts a TensorShape, list/tuple of dims, or None into a TensorShape."""
    if isinstance(value, TensorShape):
        return value
    return TensorShape(value)


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape | None:
    """NumPy broadcasting of two static shapes; None means they cannot broadcast."""
    if a._dims is None or b._dims is None:
        return TensorShape(None)
    da, db = a._dims, b._dims
    n = max(len(da), len(db))
    da = (1,) * (n - len(da)) + da
    db = (1,) * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x == y:
            out.append(x)
        else:
            return None
    return TensorShape._from_tuple(tuple(out))


def dims_of(shape: Iterable) -> tuple:
    return tuple(_as_dim(d) for d in shape)
