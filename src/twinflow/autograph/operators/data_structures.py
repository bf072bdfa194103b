"""Lists in converted code: ``list_append``, and lists carried by tensor loops.

A Python list that starts empty and is appended to inside a loop over tensors becomes a
``TensorList``-backed ``GraphList`` for that loop (one write per iteration, not an unrolled
Python list). After the loop, ``tw.stack(xs)``/``tw.concat(xs, 0)``/``len(xs)``/``xs[i]`` work
on it; iterating over it does not (its length is known only when the graph runs).
"""
from __future__ import annotations

from ...control.tensor_array import TensorArray
from ...core.shapes import TensorShape
from ...ops.core import convert


class GraphList:
    """A list grown inside a graph loop, stored in a TensorArray.

    Args:
        name: the variable's name (for errors).
        ta: the TensorArray holding the elements.
    """

    def __init__(self, name: str, ta: TensorArray) -> None:
        self.name = name
        self.ta = ta

    @classmethod
    def empty(cls, name: str, dtype, element_shape: TensorShape) -> GraphList:
        return cls(name, TensorArray(dtype, size=0, dynamic_size=True,
                                     element_shape=element_shape))

    def append(self, value) -> GraphList:
        v = convert(value)
        return GraphList(self.name, self.ta.write(self.ta.size(), v))

    def stack(self):
        return self.ta.stack()

    def concat(self):
        return self.ta.concat()

    def size(self):
        return self.ta.size()

    def __getitem__(self, i):
        return self.ta.read(i)

    def _as_tensor(self, dtype=None):
        return self.ta.stack()

    def _loop_tensor(self):
        return self.ta._loop_tensor()

    def _from_loop_tensor(self, t) -> GraphList:
        return GraphList(self.name, self.ta._from_loop_tensor(t))

    def __iter__(self):
        raise TypeError(
            f"cannot iterate over list '{self.name}': it was grown inside a loop over tensors, "
            "so its length is known only when the graph runs. Use tw.stack("
            f"{self.name}) to get one tensor, or {self.name}[i] to read one element.")

    def __len__(self) -> int:
        raise TypeError(f"len() of list '{self.name}' grown in a tensor loop is a tensor: "
                        f"use tw.shape(tw.stack({self.name}))[0] (or len() inside "
                        "converted code, which AutoGraph maps to the TensorArray's size)")

    def __repr__(self) -> str:
        return f"<list '{self.name}' grown in a graph loop ({self.ta!r})>"


def list_append(target, element):
    """``target.append(element)`` in converted code; returns the list to use afterwards.

    Args:
        target: a Python list or a GraphList.
        element: the value to append.

    Returns:
        The list (a new GraphList for a graph list).
    """
    if isinstance(target, GraphList):
        return target.append(element)
    target.append(element)
    return target
