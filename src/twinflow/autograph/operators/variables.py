"""Placeholders for variables that have no value yet.

``Undefined('x')`` stands for a variable that a branch or loop did not assign. Any use of it
raises ``UndefinedVariableError`` naming the variable, where it lost its value, and the fix.
``UndefinedReturnValue`` is the return value of a function before a ``return`` ran.
"""
from __future__ import annotations


class UndefinedVariableError(UnboundLocalError):
    """A variable is used where AutoGraph could not give it a value."""


class Undefined:
    """A variable without a value (see the module docstring).

    Args:
        symbol_name: the variable's name.
        reason: why it has no value and how to fix it (shown when it is used).
    """

    __slots__ = ("symbol_name", "reason")

    def __init__(self, symbol_name: str, reason: str | None = None) -> None:
        self.symbol_name = symbol_name
        self.reason = reason

    def _fail(self, *args, **kwargs):
        msg = self.reason or (f"local variable '{self.symbol_name}' is used before it is "
                              "assigned a value")
        raise UndefinedVariableError(msg)

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._fail()

    def __repr__(self) -> str:
        return f"Undefined({self.symbol_name!r})"


_OPERATORS = ("__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ "
              "__floordiv__ __rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __matmul__ "
              "__rmatmul__ __neg__ __pos__ __abs__ __lt__ __le__ __gt__ __ge__ __getitem__ "
              "__setitem__ __iter__ __len__ __bool__ __call__ __int__ __float__ __index__ "
              "__and__ __or__ __invert__ __array__").split()
for _name in _OPERATORS:
    setattr(Undefined, _name, Undefined._fail)


class UndefinedReturnValue:
    """The value of ``retval_`` before any ``return`` statement ran."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UndefinedReturnValue()"


def retval(value):
    """The function's return value: None if no ``return`` ran."""
    return None if isinstance(value, UndefinedReturnValue) else value


def is_undefined(value) -> bool:
    return isinstance(value, (Undefined, UndefinedReturnValue))
