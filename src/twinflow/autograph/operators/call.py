"""``converted_call``: how converted code calls functions.

User functions are converted (recursively, once per code object) before they are called;
twinflow itself, builtins, the standard library and installed packages are called as they are.
``range``/``len`` on symbolic tensors become ``tw.range``/``tw.shape``; a list grown in a graph
loop is passed to ``tw.stack``/``tw.concat`` (and any other function) as its stacked tensor.
"""
from __future__ import annotations

import builtins

from ...graph.tensor import SymbolicTensor
from ...ops import array_ops
from .. import conversion
from .data_structures import GraphList

_STRICT: list = [False]


def _range(*args):
    if any(isinstance(a, SymbolicTensor) for a in args):
        return array_ops.range(*args)
    return builtins.range(*args)


def _len(x):
    if isinstance(x, GraphList):
        return x.size()
    if isinstance(x, SymbolicTensor):
        if x.shape.rank and x.shape[0] is not None:
            return x.shape[0]
        if x.shape.rank == 0:
            raise TypeError(f"len() of a scalar tensor ({x.name}) is not defined")
        return array_ops.shape(x)[0]
    return builtins.len(x)


def converted_call(f, args: tuple, kwargs: dict | None = None):
    """Calls ``f(*args, **kwargs)`` from converted code.

    Args:
        f: the callable.
        args: positional arguments.
        kwargs: keyword arguments.

    Returns:
        What ``f`` returns.
    """
    kwargs = kwargs or {}
    if f is builtins.range:
        return _range(*args)
    if f is builtins.len and len(args) == 1:
        return _len(args[0])
    if args and isinstance(args[0], GraphList):
        if f is array_ops.stack:
            return args[0].stack()
        if f is array_ops.concat:
            return args[0].concat()
    if any(isinstance(a, GraphList) for a in args):
        args = tuple(a.stack() if isinstance(a, GraphList) else a for a in args)
    if conversion.user_module_of(f):
        f = conversion.convert(f, strict=_STRICT[0])
    else:
        # Library functions that take user callbacks (tw.map_fn, tw.while_loop, tw.cond...)
        # trace them: convert those too, as TensorFlow's control flow ops do.
        args = tuple(_convert_arg(a) for a in args)
        if kwargs:
            kwargs = {k: _convert_arg(v) for k, v in kwargs.items()}
    return f(*args, **kwargs)


def _convert_arg(a):
    if conversion.user_module_of(a):
        return conversion.convert(a, strict=_STRICT[0])
    return a
