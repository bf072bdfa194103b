"""``tw.types``: abstract types that twinflow's functions and values are instances of
(``isinstance(f, tw.types.experimental.PolymorphicFunction)`` for a ``tw.function``)."""
from __future__ import annotations

import abc
import inspect as _inspect
import types as _pytypes
import typing as _typing
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


class AtomicFunction(Callable):
    """A function that runs one graph as one unit (twinflow's ``ConcreteFunction``)."""


AtomicFunction.register(_Concrete)


class TraceType(abc.ABC):
    """The type ``tw.function`` keys its traces by, for objects that define their own
    (``SupportsTracingProtocol``): instances must be hashable and compare equal exactly when
    the same trace may serve both objects."""

    @abc.abstractmethod
    def is_subtype_of(self, other) -> bool:
        """Whether every value of this type is also of ``other``.

        Args:
            other: a TraceType.
        """

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The narrowest type of which this and ``others`` are subtypes (None if none).

        Args:
            others: TraceTypes.
        """

    def placeholder_value(self, placeholder_context=None):
        """The value the traced function receives for this type (by default it is traced with
        the object itself).

        Args:
            placeholder_context: unused by twinflow.
        """
        raise NotImplementedError(f"{type(self).__name__}.placeholder_value")

    @abc.abstractmethod
    def __hash__(self) -> int:
        """Types used as trace keys are hashable."""

    @abc.abstractmethod
    def __eq__(self, other) -> bool:
        """Equal types share a trace."""


@_typing.runtime_checkable
class SupportsTracingProtocol(_typing.Protocol):
    """An object that says how ``tw.function`` keys it: ``__tf_tracing_type__(context)``
    returns a TraceType; calls with equal types share a trace."""

    def __tf_tracing_type__(self, context) -> TraceType:
        """This object's TraceType.

        Args:
            context: the tracing context (None in twinflow).
        """


class FunctionType(_inspect.Signature):
    """The signature of a traced function: an ``inspect.Signature`` (TensorFlow's
    ``FunctionType`` subclasses it the same way)."""


def _distributed_hook(names: tuple):
    # tw.distribute loads on first use: its classes are recognised by module and name.
    def hook(cls, klass):
        for k in getattr(klass, "__mro__", ()):
            if k.__module__.startswith("twinflow.distribute.") and k.__name__ in names:
                return True
        return NotImplemented
    return classmethod(hook)


class _Mirrored(abc.ABC):  # noqa: B024  (a type to test against, nothing to implement)
    """A distributed value holding the same value on every replica (``tw.distribute``'s
    ``Mirrored`` values and mirrored variables are instances)."""

    __subclasshook__ = _distributed_hook(("Mirrored", "MirroredVariable"))


class _PerReplica(abc.ABC):  # noqa: B024
    """A distributed value holding one value per replica (``tw.distribute``'s
    ``PerReplica``)."""

    __subclasshook__ = _distributed_hook(("PerReplica",))


_Mirrored.__name__ = _Mirrored.__qualname__ = "Mirrored"
_PerReplica.__name__ = _PerReplica.__qualname__ = "PerReplica"

experimental = _pytypes.SimpleNamespace(
    Callable=Callable, ConcreteFunction=ConcreteFunction, GenericFunction=GenericFunction,
    PolymorphicFunction=PolymorphicFunction, TensorLike=TensorLike,
    AtomicFunction=AtomicFunction, TraceType=TraceType,
    SupportsTracingProtocol=SupportsTracingProtocol, FunctionType=FunctionType,
    distributed=_pytypes.SimpleNamespace(Mirrored=_Mirrored, PerReplica=_PerReplica))
