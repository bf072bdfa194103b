"""Dispatch of public op functions to composite-tensor versions (TensorFlow's dispatch).

A RaggedTensor or SparseTensor given to a dense op raises ``CompositeArgument`` when the op
converts it (``_as_tensor``). The few generic entry points (the elementwise function
generator, the reduction helper, and concat/stack/gather/tile/expand_dims/where/abs/cast) catch
it and call ``dispatch``, which looks the op up in handlers registered by the composite
packages (``ops/ragged``); without a handler the error stays, and says how to convert.
Catching costs nothing on the dense path.
"""
from __future__ import annotations

import inspect
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
    user = user_dispatch(dense if dense is not None and name == "elementwise" else name, args,
                         kwargs, elementwise=getattr(dense, "_tw_elementwise", None))
    if user is not NOT_FOUND:
        return user
    kind = type(error.value).__name__
    handler = _HANDLERS.get((name, kind)) if name != "elementwise" else None
    if handler is not None:
        return handler(*args, **kwargs)
    if dense is not None:
        handler = _HANDLERS.get(("elementwise", kind))
        if handler is not None:
            return handler(dense, *args, **kwargs)
    raise error



# ---------------------------------------------------------------------------------------------
# Dispatch for user types (tw.experimental.dispatch_for_api and friends)
#
# Consulted only where a dispatchable API fails to convert an argument (a CompositeArgument,
# or, in the elementwise functions, any TypeError/ValueError of conversion): the dense path
# pays nothing.

NOT_FOUND = object()
_API_TARGETS: dict = {}     # api name -> [(api, signature, target)]
_ELEMENTWISE: dict = {1: [], 2: [], "assert": []}   # arity -> [(types, handler)]


def _matches(value, annotation) -> bool:
    if annotation is None or annotation is object:
        return True
    origin = getattr(annotation, "__origin__", None)
    if origin is not None and str(origin) in ("typing.Union", "<class 'types.UnionType'>"):
        return any(_matches(value, a) for a in annotation.__args__)
    if type(annotation).__name__ == "UnionType":
        return any(_matches(value, a) for a in annotation.__args__)
    if origin in (list, tuple):
        (inner, *_) = getattr(annotation, "__args__", (object,))
        return isinstance(value, (list, tuple)) and all(_matches(v, inner) for v in value)
    return isinstance(value, annotation)


def register_api_target(api, signature: dict, target: Callable) -> None:
    """Calls ``target`` instead of ``api`` when the arguments match ``signature``.

    Args:
        api: the public function.
        signature: parameter name -> type (a class, a Union, or ``list[...]``).
        target: the function to call with the API's arguments.
    """
    _API_TARGETS.setdefault(api.__name__, []).append((api, signature, target))


def register_elementwise(kind, types: tuple, handler: Callable) -> None:
    """Calls ``handler(api, *args)`` for every elementwise API of ``kind`` (1: unary, 2:
    binary, "assert": binary asserts) whose tensor arguments are instances of ``types``.

    Args:
        kind: 1, 2 or "assert".
        types: one type per tensor argument.
        handler: the handler.
    """
    _ELEMENTWISE[kind].append((types, handler))


def unregister(target: Callable) -> bool:
    """Removes every registration of ``target``.

    Args:
        target: a dispatch target or handler.

    Returns:
        Whether anything was removed.
    """
    found = False
    for name, entries in list(_API_TARGETS.items()):
        kept = [e for e in entries if e[2] is not target]
        found = found or len(kept) != len(entries)
        _API_TARGETS[name] = kept
    for kind, entries in _ELEMENTWISE.items():
        kept = [e for e in entries if e[1] is not target]
        found = found or len(kept) != len(entries)
        _ELEMENTWISE[kind] = kept
    return found


def user_dispatch(api, args: tuple, kwargs: dict, elementwise=None):
    """The result of the user target registered for this call of ``api``, or NOT_FOUND.

    Args:
        api: the public function called (or its name).
        args: its positional arguments.
        kwargs: its keyword arguments.
        elementwise: 1/2/"assert" for elementwise APIs (their handlers apply too).

    Returns:
        The target's result, or ``NOT_FOUND``.
    """
    name = api if isinstance(api, str) else getattr(api, "__name__", "")
    for registered, signature, target in _API_TARGETS.get(name, ()):
        if not isinstance(api, str) and registered is not api and \
                getattr(registered, "op_name", 0) != getattr(api, "op_name", 1):
            continue
        try:
            bound = _signature(registered).bind(*args, **kwargs)
        except TypeError:
            continue
        if all(_matches(bound.arguments.get(p), t) for p, t in signature.items()
               if p in bound.arguments):
            return target(*args, **kwargs)
    if elementwise is not None:
        n = 1 if elementwise == 1 else 2
        for types, handler in _ELEMENTWISE[elementwise]:
            if len(args) >= n and all(isinstance(a, t) for a, t in zip(args[:n], types)):
                return handler(api, *args, **kwargs)
    return NOT_FOUND


def _signature(fn):
    return inspect.signature(fn)
