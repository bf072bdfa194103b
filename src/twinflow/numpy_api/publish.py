"""Turning implementation functions into ``tf.experimental.numpy`` functions with TensorFlow's
signatures (argument names, defaults, order) and docstrings.

A row gives the signature as text, ``"a, axis=None, out=None, keepdims=None"``; the public
function binds its arguments to it, refuses the NumPy arguments TensorFlow also refuses
(``out``, ``where``: accepted only as None), and calls the implementation with the remaining
values in order.
"""
from __future__ import annotations

import ast
import inspect
from collections.abc import Callable

import numpy as np

_NAMES = {"float": float, "int": int, "bool": bool, "np.int64": np.int64, "None": None,
          "True": True, "False": False}
_ONLY_NONE = ("out", "where")
MODULE = "twinflow.experimental.numpy"


def _default(text: str):
    return _NAMES[text] if text in _NAMES else ast.literal_eval(text)


def _split(text: str) -> list:
    """Top-level comma split (defaults may be tuples)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def signature(text: str) -> inspect.Signature:
    """An ``inspect.Signature`` from its text (``"a, axis=None, *arys, **kwargs"``).

    Args:
        text: the parameters as written in a ``def``.

    Returns:
        The signature.
    """
    params = []
    for part in _split(text):
        if part.startswith("**"):
            params.append(inspect.Parameter(part[2:], inspect.Parameter.VAR_KEYWORD))
        elif part.startswith("*"):
            params.append(inspect.Parameter(part[1:], inspect.Parameter.VAR_POSITIONAL))
        elif "=" in part:
            name, value = part.split("=", 1)
            params.append(inspect.Parameter(name.strip(), inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            default=_default(value.strip())))
        else:
            params.append(inspect.Parameter(part, inspect.Parameter.POSITIONAL_OR_KEYWORD))
    return inspect.Signature(params)


def _describe(param: str) -> str:
    if param in _ONLY_NONE:
        return "must be None (NumPy's output/mask arguments are not supported)."
    return {"x": "an array (tensor, NumPy array or Python value).",
            "x1": "the first operand.", "x2": "the second operand.",
            "a": "the array.", "axis": "the axis (or axes); None for all.",
            "keepdims": "keep the reduced axes with length 1 (None: False).",
            "dtype": "the result dtype; None for NumPy's."}.get(
        param, "as in NumPy's function of this name.")


def make(name: str, impl: Callable, sig: str, doc: str) -> Callable:
    """A public function ``name`` with signature ``sig`` that calls ``impl``.

    Args:
        name: the public name.
        impl: the implementation; it takes the signature's values in order, without the
            parameters that must be None.
        sig: the signature text.
        doc: a one-line summary.

    Returns:
        The function.
    """
    sign = signature(sig)
    only_none = [p for p in sign.parameters if p in _ONLY_NONE]
    var_kw = [p.name for p in sign.parameters.values() if p.kind is p.VAR_KEYWORD]
    takes_kwargs = any(p.kind is p.VAR_KEYWORD
                       for p in inspect.signature(impl).parameters.values())

    defaults = [p.default for p in sign.parameters.values()]
    required = sum(d is inspect.Parameter.empty for d in defaults)
    plain = not only_none and not var_kw and all(
        p.kind is p.POSITIONAL_OR_KEYWORD for p in sign.parameters.values())

    def fn(*args, **kwargs):
        if plain and not kwargs and required <= len(args) <= len(defaults):
            return impl(*args, *defaults[len(args):])  # positional call: no binding needed
        bound = sign.bind(*args, **kwargs)
        bound.apply_defaults()
        values = bound.arguments
        for p in only_none:
            if values[p] is not None:
                raise ValueError(f"tf.experimental.numpy.{name}: {p}= is not supported "
                                 "(arrays are immutable tensors); pass None")
        extra = {}
        for p in var_kw:
            if values[p] and not takes_kwargs:
                raise TypeError(f"tf.experimental.numpy.{name} got unexpected keyword "
                                f"arguments {sorted(values[p])}")
            extra.update(values[p])
        call = []
        for pname, param in sign.parameters.items():
            if pname in only_none or param.kind is param.VAR_KEYWORD:
                continue
            if param.kind is param.VAR_POSITIONAL:
                call.extend(values[pname])
            else:
                call.append(values[pname])
        return impl(*call, **extra)

    fn.__signature__ = sign
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = MODULE
    fn.__annotations__ = {"return": "Tensor"}
    lines = [f"    {p}: {_describe(p)}" for p in sign.parameters]
    fn.__doc__ = (doc + ("\n\nArgs:\n" + "\n".join(lines) if lines else "")
                  + "\n\nReturns:\n    The result (a tensor unless NumPy returns something "
                  "else).\n")
    return fn


def publish(namespace: dict, rows: dict) -> list:
    """Adds ``make(name, *row)`` to ``namespace`` for each ``name: (impl, sig, doc)`` row.

    Args:
        namespace: the module's ``globals()``.
        rows: the table.

    Returns:
        The names added.
    """
    for name, (impl, sig, doc) in rows.items():
        namespace[name] = make(name, impl, sig, doc)
    return list(rows)
