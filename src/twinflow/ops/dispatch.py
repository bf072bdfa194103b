"""Dispatch of public op functions to composite-tensor versions (TensorFlow's dispatch).

A RaggedTensor or SparseTensor given to a dense op raises ``CompositeArgument`` when the op
converts it (``_as_tensor``). The few generic entry points (the elementwise function
generator, the reduction helper, and concat/stack/gather/tile/expand_dims/where/abs/cast) catch
it and call ``dispatch``, which looks the op up in handlers registered by the composite
packages (``ops/ragged``); without a handler the error stays, and says how to convert.
Catching costs nothing on the dense path.
"""
from __future__ import annotations

from collections.abc import Callable


class CompositeArgument(TypeError):
    """A composite tensor reached an op that needs a dense one.

    Args:
        message: what happened and how to convert the value.
        value: the composite value.
    """

    def __init__(self, message: str, value) -> None:
        super().__init__(message)
        self.value = value


# (op name, composite class name) -> handler(*args, **kwargs); "elementwise" is the handler of
# every elementwise op (it receives the dense function first).
_HANDLERS: dict = {}


def register(name: str, kind: str, handler: Callable) -> None:
    """Registers ``handler`` for op ``name`` when an argument is a composite of class ``kind``.

    Args:
        name: the public function's name (``reduce_sum``, ``concat``...) or "elementwise".
        kind: the composite class name (``RaggedTensor``).
        handler: called with the op's arguments (elementwise: the dense function first).
    """
    _HANDLERS[(name, kind)] = handler


def dispatch(name: str, error: CompositeArgument, args: tuple, kwargs: dict, dense=None):
    """Runs the registered composite version of op ``name`` (re-raises ``error`` if none).

    Args:
        name: the op's public name.
        error: the CompositeArgument the dense op raised.
        args: the op's positional arguments.
        kwargs: its keyword arguments.
        dense: for elementwise ops, the dense function (mapped over the flat values).

    Returns:
        The composite op's result.
    """
    kind = type(error.value).__name__
    handler = _HANDLERS.get((name, kind)) if name != "elementwise" else None
    if handler is not None:
        return handler(*args, **kwargs)
    if dense is not None:
        handler = _HANDLERS.get(("elementwise", kind))
        if handler is not None:
            return handler(dense, *args, **kwargs)
    raise error

