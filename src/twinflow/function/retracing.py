"""Retracing diagnostics: TensorFlow's frequent-retracing warning, plus *why* each retrace
happened (which argument changed, and how to avoid it).

The warning uses TensorFlow's thresholds: when 5 or more of the last (at most) 10 calls of a
Python function, across every ``tw.function`` wrapping it, traced a new graph.
"""
from __future__ import annotations

import weakref

from .trace_type import is_tensor_key


def __getattr__(name: str):
    # ``retracing.logger``: the "twinflow" logger, loaded on first use.
    if name == "logger":
        import logging  # noqa: PLC0415  (on use: ``import twinflow`` does not load logging)
        return logging.getLogger("twinflow")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FREQUENT_TRACING_WARNING_THRESHOLD = 5
# Traced graphs one tw.function keeps (the least recently used beyond it are dropped).
MAX_TRACES = 1024
FREQUENT_TRACING_WARNING_MAX_CALL_HISTORY = 10


class CallCounter:
    """Counts calls and the tracing ones among the recent call history of one function."""

    def __init__(self) -> None:
        self._calls_per_tracings: list = []
        self.call_count = 0

    def called_with_tracing(self, function_name: str, reason: str | None) -> None:
        self.call_count += 1
        self._calls_per_tracings.append(1)
        while self._calls_per_tracings:
            if self.call_count - self._calls_per_tracings[0] \
                    > FREQUENT_TRACING_WARNING_MAX_CALL_HISTORY:
                self.call_count -= self._calls_per_tracings.pop(0)
            else:
                break
        if len(self._calls_per_tracings) >= FREQUENT_TRACING_WARNING_THRESHOLD:
            why = f" Latest reason: {reason}." if reason else ""
            __getattr__("logger").warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is "
                "expensive and the excessive number of tracings could be due to (1) creating "
                "@tf.function repeatedly in a loop, (2) passing tensors with different shapes, "
                "(3) passing Python objects instead of tensors. For (1), please define your "
                "@tf.function outside of the loop. For (2), @tf.function has "
                "reduce_retracing=True option that can avoid unnecessary retracing. For (3), "
                "please refer to https://www.tensorflow.org/guide/function#controlling_retracing"
                " and https://www.tensorflow.org/api_docs/python/tf/function for  more "
                "details. Each tw.function keeps its %d most recently used graphs; older ones "
                "are dropped (and traced again if needed).%s", len(self._calls_per_tracings),
                self.call_count, function_name, MAX_TRACES, why)

    def called_without_tracing(self) -> None:
        if not self._calls_per_tracings:
            self._calls_per_tracings = [0]
        self._calls_per_tracings[-1] += 1
        self.call_count += 1


_counters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_counters_by_id: dict = {}


def counter_for(python_function) -> CallCounter:
    """The CallCounter shared by every tw.function wrapping ``python_function``."""
    target = getattr(python_function, "__func__", python_function)
    try:
        c = _counters.get(target)
        if c is None:
            c = _counters[target] = CallCounter()
        return c
    except TypeError:
        c = _counters_by_id.get(id(target))
        if c is None:
            c = _counters_by_id[id(target)] = CallCounter()
        return c


# ----- reasons -----

def _is_scalar_key(k) -> bool:
    return type(k) is tuple and len(k) == 2 and isinstance(k[0], type) \
        and k[0] in (int, float, bool, str, bytes, complex, type(None))


def _describe_key(k) -> str:
    if is_tensor_key(k):
        dims = k[1]
        shape = "<unknown>" if dims is None else str(tuple(dims))
        return f"tensor {k[0]} of shape {shape}"
    if _is_scalar_key(k):
        return f"Python {k[0].__name__} {k[1]!r}"
    if type(k) is tuple and len(k) == 2 and k[0] in ("object", "variable"):
        return f"{k[0]} id 0x{k[1]:x}"
    if type(k) is tuple and len(k) == 2 and k[0] in ("list", "tuple", "dict"):
        return f"{k[0]} of {len(k[1])}"
    return repr(k)


def _advice(old, new) -> str:
    if is_tensor_key(old) and is_tensor_key(new):
        if old[0] != new[0]:
            return "cast to one dtype before calling"
        return "use reduce_retracing=True or an input_signature with None dimensions"
    if type(new) is tuple and len(new) == 2 and new[0] in (int, float, bool, complex):
        return "pass a tensor or use input_signature"
    if type(new) is tuple and len(new) == 2 and new[0] in ("object", "variable"):
        return "objects are compared by identity: pass the same object, or tensors"
    return "pass arguments of one structure, or tensors"


def _diff(old, new, path: str, out: list) -> None:
    if old == new:
        return
    if is_tensor_key(old) and is_tensor_key(new):
        if old[0] != new[0]:
            what = f"tensor dtype {old[0]} -> {new[0]}"
        else:
            fmt = (lambda d: "<unknown>" if d is None else str(tuple(d)))
            what = f"tensor shape {fmt(old[1])} -> {fmt(new[1])}"
        out.append(f"argument `{path}`: {what}; {_advice(old, new)}")
        return
    if _is_scalar_key(old) and _is_scalar_key(new) and old[0] is new[0]:
        out.append(f"argument `{path}`: Python {new[0].__name__} {old[1]!r} -> {new[1]!r}; "
                   f"{_advice(old, new)}")
        return
    same_container = (type(old) is tuple and type(new) is tuple and len(old) == 2
                      and len(new) == 2 and old[0] == new[0]
                      and old[0] in ("list", "tuple", "dict")
                      and len(old[1]) == len(new[1]))
    if same_container:
        for i, (a, b) in enumerate(zip(old[1], new[1])):
            if old[0] == "dict":
                _diff(a[1], b[1], f"{path}[{a[0]!r}]", out)
            else:
                _diff(a, b, f"{path}[{i}]", out)
        return
    out.append(f"argument `{path}`: {_describe_key(old)} -> {_describe_key(new)}; "
               f"{_advice(old, new)}")


def explain(old_key: tuple, new_key: tuple, names: list) -> str:
    """Why a call with ``new_key`` could not reuse the graph traced for ``old_key``.

    Args:
        old_key: the cache key of the closest earlier trace.
        new_key: the cache key of this call.
        names: parameter names, one per positional entry of the keys.

    Returns:
        One line per changed argument, joined with "; ".
    """
    out: list = []
    n = max(len(old_key), len(new_key))
    for i in range(n):
        a = old_key[i] if i < len(old_key) else None
        b = new_key[i] if i < len(new_key) else None
        if type(b) is tuple and b and b[0] == "**" and type(a) is tuple and a and a[0] == "**":
            da, db = dict(a[1]), dict(b[1])
            for k in sorted(set(da) | set(db), key=str):
                if da.get(k) != db.get(k):
                    _diff(da.get(k), db.get(k), k, out)
            continue
        name = names[i] if i < len(names) else f"arg{i}"
        _diff(a, b, name, out)
    return "; ".join(out) if out else "new input signature"
