"""What every ``keras.ops`` function shares: conversion, Keras' dtype promotion, the tables.

Keras 3 promotes dtypes as JAX does, unlike TensorFlow (which refuses mixed dtypes): an int32
tensor plus a float16 tensor is float16, int8 with uint8 is int16, float16 with bfloat16 is
float32, and Python scalars are *weak* (``x + 1.5`` keeps x's float dtype; on an integer
tensor a Python float gives ``floatx()``). Functions of the math family (``sin``, ``exp``,
``mean``...) compute integer and bool inputs in ``floatx()``.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from ...core import dtypes
from ...eager.execute import convert_to_tensor
from ...graph.tensor import Tensor
from ...numpy_api.policy import Policy
from ...ops import math_ops
from .. import settings as _backend
from ..layers.keras_tensor import has_keras_tensor, symbolic_op

_PY_SCALARS = (bool, int, float, complex)


def floatx() -> dtypes.DType:
    """Keras' default float dtype, as a DType."""
    return dtypes.as_dtype(_backend.floatx())


def tensor(x, dtype=None) -> Tensor:
    """``x`` as a tensor (a Python float becomes ``floatx()``, a Python int int32), cast to
    ``dtype`` when given."""
    if isinstance(x, Tensor):
        t = x
    elif isinstance(x, float) or (isinstance(x, (list, tuple)) and _has_float(x)):
        t = convert_to_tensor(x, dtype=floatx() if dtype is None else None)
    else:
        t = convert_to_tensor(x)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if t.dtype is not dtype:
            t = math_ops.cast(t, dtype)
    return t


def _has_float(x) -> bool:
    return any(_has_float(v) if isinstance(v, (list, tuple)) else isinstance(v, float)
               for v in x)


def _rank(d: dtypes.DType) -> tuple:
    """An order on dtypes of one kind: wider is larger."""
    return (d.size, d.name)


def result_type(*dts: dtypes.DType) -> dtypes.DType:
    """The dtype Keras gives a value computed from values of the dtypes ``dts``.

    Args:
        *dts: the operands' dtypes.

    Returns:
        The promoted dtype.
    """
    dts = [dtypes.as_dtype(d) for d in dts]
    complexes = [d for d in dts if d.is_complex]
    if complexes:
        floats = [d for d in dts if d.is_floating]
        wide = any(d is dtypes.float64 for d in floats) or dtypes.complex128 in complexes
        return dtypes.complex128 if wide else dtypes.complex64
    floats = [d for d in dts if d.is_floating]
    if floats:
        names = {d.name for d in floats}
        if "float64" in names:
            return dtypes.float64
        if "float32" in names or len(names) > 1:
            return dtypes.float32
        return floats[0]
    ints = [d for d in dts if d.is_integer]
    if ints:
        out = ints[0].np
        for d in ints[1:]:
            out = np.promote_types(out, d.np)
        return dtypes.from_numpy(out)
    return dts[0]


def promote(*xs) -> list:
    """The operands as tensors of one dtype, by Keras' promotion rules (Python scalars weak).
    """
    strong = [x for x in xs if not isinstance(x, _PY_SCALARS) and x is not None]
    ts = [tensor(x) for x in strong]
    if ts:
        dt = result_type(*[t.dtype for t in ts])
        if not dt.is_floating and not dt.is_complex and \
                any(isinstance(x, float) for x in xs if not isinstance(x, bool)):
            dt = floatx()
        if dt.is_bool and any(type(x) is int for x in xs):
            dt = dtypes.int32
    else:
        dt = result_type(*[tensor(x).dtype for x in xs])
    return [tensor(x, dt) for x in xs]


def as_float(x) -> Tensor:
    """``x`` as a floating tensor: integer and bool values in ``floatx()``."""
    t = tensor(x)
    if not (t.dtype.is_floating or t.dtype.is_complex):
        t = math_ops.cast(t, floatx())
    return t


def _accumulate(x) -> Tensor:
    """``x`` as ``sum``/``prod``/``cumsum`` accumulate it: bools and 8/16-bit ints widened to
    32 bits (as JAX)."""
    x = tensor(x)
    if x.dtype.is_bool or x.dtype.name in ("int8", "int16"):
        return math_ops.cast(x, dtypes.int32)
    if x.dtype.name in ("uint8", "uint16"):
        return math_ops.cast(x, dtypes.uint32)
    return x


# Keras' dtype rules, for the tables shared with tf.experimental.numpy (twinflow.numpy_api).
KERAS = Policy("keras.ops", tensor, promote, as_float, floatx, lambda: dtypes.int32,
               _accumulate)


_PARAMS = {
    "x": "a tensor (or anything convertible to one).",
    "x1": "the first operand.", "x2": "the second operand.",
    "axis": "the axis (or axes) to work along; None for all of them.",
    "keepdims": "keep reduced axes with length 1.",
    "dtype": "the result dtype; None for the default.",
}


def make(name: str, impl: Callable, doc: str, module: str, signature: str | None = None,
         params: dict | None = None) -> Callable:
    """A public ``keras.ops`` function: ``impl`` under ``name``, with Keras' signature and a doc.

    Args:
        name: the function's name.
        impl: the implementation, taking Keras' arguments.
        doc: its one-line summary.
        module: the module it is published in.
        signature: unused when None; otherwise shown in the docstring.
        params: descriptions of its parameters beyond the common ones.

    Returns:
        The function.
    """
    def fn(*args, **kwargs):
        if has_keras_tensor(args, kwargs):  # a functional model being built: a node
            return symbolic_op(name, args, kwargs)
        return impl(*args, **kwargs)
    sig = inspect.signature(impl)
    fn.__signature__ = sig
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = module
    fn.__annotations__ = {"return": "Tensor"}
    described = dict(_PARAMS, **(params or {}))
    lines = [f"    {p}: {described.get(p, 'as in keras.ops.' + name + '.')}"
             for p in sig.parameters]
    fn.__doc__ = doc + ("\n\nArgs:\n" + "\n".join(lines) if lines else "") + \
        "\n\nReturns:\n    The result.\n"
    return fn


def publish(namespace: dict, table: dict, module: str) -> list:
    """Adds a function to ``namespace`` for each ``name: (impl, doc)`` row of ``table``.

    Args:
        namespace: the module's ``globals()``.
        table: the rows.
        module: the module's name.

    Returns:
        The names added.
    """
    for name, (impl, doc) in table.items():
        namespace[name] = make(name, impl, doc, module)
    return list(table)
