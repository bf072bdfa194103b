"""``tw.types``: abstract types that twinflow's functions and values are instances of
(``isinstance(f, tw.types.experimental.PolymorphicFunction)`` for a ``tw.function``)."""
from __future__ import annotations

import abc
import types as _pytypes
from typing import Union

from .function.function import ConcreteFunction as _Concrete
from .function.function import Function as _Function
from .graph.tensor import TensorLike as _TensorLike

__all__ = ["experimental"]


class Callable(abc.ABC):
    """Something twinflow can call like a function (a ``tw.function``, a ConcreteFunction)."""

    @abc.abstractmethod
    def __call__(self, *args, **kwargs):
        """Calls the function."""


class ConcreteFunction(Callable):
    """A function traced into one graph (twinflow's ``ConcreteFunction``)."""


class GenericFunction(Callable):
    """A function that traces one ConcreteFunction per input signature (``tw.function``)."""


class PolymorphicFunction(GenericFunction):
    """TensorFlow 2.15+'s name for ``GenericFunction``."""


for _abstract, _concrete in ((ConcreteFunction, _Concrete), (PolymorphicFunction, _Function)):
    _abstract.register(_concrete)

TensorLike = Union[_TensorLike]


experimental = _pytypes.SimpleNamespace(
    Callable=Callable, ConcreteFunction=ConcreteFunction, GenericFunction=GenericFunction,
    PolymorphicFunction=PolymorphicFunction, TensorLike=TensorLike)
