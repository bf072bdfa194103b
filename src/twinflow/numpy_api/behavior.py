"""``experimental_enable_numpy_behavior``: tensors that behave like NumPy arrays.

As TensorFlow's, it changes three things, process-wide:

* tensors gain NumPy's methods and properties: ``T``, ``astype``, ``clip``, ``data``,
  ``flatten``, ``max``, ``mean``, ``min``, ``ravel``, ``reshape`` (also ``reshape(2, 3)``),
  ``size``, ``tolist``, ``transpose``, ``round()`` (``ndim`` exists already);
* the Python operators of tensors promote mixed dtypes as NumPy does (``int32 + float32`` is
  float64, ``int32 / int32`` float64) instead of raising, and ``tw.experimental.numpy``'s
  promotion applies (``prefer_float32`` makes Python floats float32);
* indexing accepts NumPy's advanced indices: integer arrays and boolean masks
  (``indexing.py``).

The ops themselves (``tw.add``...) keep TensorFlow's rule of one dtype.
"""
from __future__ import annotations

import numpy as np

from ..graph.tensor import Tensor, register_numpy_methods, register_operators
from ..ops import array_ops as A
from ..ops import linalg_ops as L
from ..ops import math_ops as M
from .config import SETTINGS, as_dtype, promote
from .indexing import getitem
from .tnp_array import ROWS as _ARRAY
from .tnp_math import ROWS as _MATH

_MODES = ("legacy", "off")
_OPERATORS = {
    "add": M.add, "sub": M.subtract, "mul": M.multiply, "floordiv": M.floordiv,
    "mod": M.floormod, "pow": M.pow, "matmul": L.matmul, "lt": M.less, "le": M.less_equal,
    "gt": M.greater, "ge": M.greater_equal,
}
_saved: dict = {}


def _promoting(fn):
    def forward(x, y):
        return fn(*promote(x, y))

    def reflected(y, x):
        return fn(*promote(x, y))
    return forward, reflected


def _truediv(x, y):
    return _MATH["true_divide"][0](x, y)


def _bitwise(logical, bitwise):
    def f(x, y):
        a, b = promote(x, y)
        return logical(a, b) if a.dtype.is_bool else bitwise(a, b)
    return f


def _equality(base, unequal: bool):
    # == and != keep TensorFlow's answers for None and unbroadcastable shapes (a Python or
    # scalar bool), after promoting the operands as NumPy does.
    def f(x, y):
        if y is None:
            return unequal
        try:
            a, b = promote(x, y)
        except (TypeError, ValueError):
            return unequal
        return base(a, b)
    return f


def _reshape(self, *args, order="C"):
    shape = args[0] if len(args) == 1 else args
    return _ARRAY["reshape"][0](self, shape, order)


def _operators() -> dict:
    table = {}
    for name, fn in _OPERATORS.items():
        forward, reflected = _promoting(fn)
        table[f"__{name}__"] = forward
        if name not in ("lt", "le", "gt", "ge"):  # Python reflects comparisons itself
            table[f"__r{name}__"] = reflected
    table["__truediv__"] = _truediv
    table["__rtruediv__"] = lambda y, x: _truediv(x, y)
    for name, (logical, bitwise) in {"and": (M.logical_and, M.bitwise_and),
                                     "or": (M.logical_or, M.bitwise_or),
                                     "xor": (M.logical_xor, M.bitwise_xor)}.items():
        f = _bitwise(logical, bitwise)
        table[f"__{name}__"] = f
        table[f"__r{name}__"] = lambda y, x, f=f: f(x, y)
    for name, unequal in (("eq", False), ("ne", True)):
        table[f"__{name}__"] = _equality(Tensor.__dict__[f"__{name}__"], unequal)
    basic = Tensor.__dict__["__getitem__"]  # TensorFlow's basic indexing (StridedSlice)
    table["__getitem__"] = lambda x, key: getitem(x, key, basic)
    return table


def _no_out(out, name: str) -> None:
    if out is not None:
        raise ValueError(f"Tensor.{name}: out= is not supported (tensors are immutable)")


def _transpose(self, *axes):
    # x.transpose(), x.transpose(1, 0), x.transpose((1, 0)) and NumPy's x.transpose(None)
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (list, tuple))):
        axes = axes[0]
    return A.transpose(self, None if not axes else list(axes))


def _reduce(name: str):
    impl = _MATH[name][0]

    def method(self, axis=None, out=None, keepdims=None):
        _no_out(out, name)
        return impl(self, axis, keepdims)
    return method


def _mean(self, axis=None, dtype=None, out=None, keepdims=None):
    _no_out(out, "mean")
    return _MATH["mean"][0](self, axis, dtype, keepdims)


def _clip(self, a_min=None, a_max=None, out=None):
    _no_out(out, "clip")
    return _MATH["clip"][0](self, a_min, a_max)


def _methods() -> dict:
    # Their arguments are NumPy's, out= included, so NumPy's functions (np.mean(t),
    # np.clip(t, 0, 1), np.transpose(t)) dispatch to them as to an array's methods.
    return {
        "T": property(lambda self: A.transpose(self)),
        "astype": lambda self, dtype: M.cast(self, as_dtype(dtype)),
        "clip": _clip,
        "data": property(lambda self: self),
        "flatten": lambda self, order="C": _ARRAY["flatten"][0](self, order),
        "max": _reduce("max"),
        "min": _reduce("min"),
        "mean": _mean,
        "ravel": lambda self: A.reshape(self, [-1]),
        "reshape": _reshape,
        "size": property(lambda self: _ARRAY["size"][0](self)),
        "tolist": lambda self: np.asarray(self.numpy()).tolist(),
        "transpose": _transpose,
        "__round__": lambda self, ndigits=None: _MATH["around"][0](self, ndigits or 0),
    }


def experimental_enable_numpy_behavior(prefer_float32: bool = False,
                                       dtype_conversion_mode: str = "legacy") -> None:
    """Makes tensors behave like NumPy arrays, process-wide (see the module docstring).

    Calling it again replaces the earlier settings.

    Args:
        prefer_float32: make Python floats (and lists of them) float32 rather than NumPy's
            float64 in ``tw.experimental.numpy`` and in tensor operators.
        dtype_conversion_mode: ``'legacy'`` (operators promote as NumPy) or ``'off'``
            (operators keep TensorFlow's one-dtype rule; the methods and NumPy indexing are
            still added). TensorFlow's auto-conversion modes ``'safe'``/``'all'`` (weak
            tensors) are not supported and raise.

    Raises:
        ValueError: an unknown or unsupported ``dtype_conversion_mode``.
    """
    if dtype_conversion_mode not in _MODES:
        raise ValueError(f"experimental_enable_numpy_behavior: dtype_conversion_mode "
                         f"{dtype_conversion_mode!r} is not supported by twinflow (only "
                         f"'legacy', NumPy's promotion, and 'off')")
    with SETTINGS.lock:
        _restore()
        SETTINGS.prefer_float32 = bool(prefer_float32)
        SETTINGS.dtype_conversion_mode = dtype_conversion_mode
        table = _operators()
        if dtype_conversion_mode == "off":
            table = {"__getitem__": table["__getitem__"]}
        for name in table:
            _saved[name] = Tensor.__dict__[name]
        register_operators(table)
        register_numpy_methods(_methods())
        SETTINGS.numpy_behavior = True


def _restore() -> None:
    if SETTINGS.numpy_behavior:
        register_operators(dict(_saved))
        _saved.clear()
        register_numpy_methods({name: None for name in _methods()})
        SETTINGS.numpy_behavior = False


def disable_numpy_behavior() -> None:
    """Undoes ``experimental_enable_numpy_behavior`` (TensorFlow has no such switch; tests use
    it to leave the process as they found it)."""
    with SETTINGS.lock:
        _restore()
        SETTINGS.prefer_float32 = False
        SETTINGS.dtype_conversion_mode = "legacy"
