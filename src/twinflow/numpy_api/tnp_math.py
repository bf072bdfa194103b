"""``tf.experimental.numpy``'s element-wise functions and reductions, as table rows.

Most rows are the shared tables of ``elementwise.py`` built under TensorFlow's NumPy dtype
rules (``config.TNP``); the rest are small functions where TensorFlow's tnp has its own
semantics (true division of integers, ``fabs``/``fix`` dtypes, NumPy's ``out``/``dtype``
arguments of reductions). Each row is ``name: (implementation, signature, summary)``.
"""
from __future__ import annotations

import math as _pymath

import numpy as np

from ..core import dtypes
from ..ops import array_ops as A
from ..ops import math_ops as M
from ..ops import reduction_ops as R
from .config import SETTINGS, TNP, as_dtype, as_float, promote, result_type, tensor
from .elementwise import math_tables

UNARY, BINARY, REDUCTIONS = math_tables(TNP)


def _strong_float(t):
    # TensorFlow's log2/log10/logaddexp2 divide by a NumPy float64 constant, which NumPy's
    # promotion does not treat as weak: float32 inputs give float64 (float32 with
    # prefer_float32, where that constant is float32).
    return M.cast(t, result_type(t, np.float32 if SETTINGS.prefer_float32 else np.float64))


def _log_base(base: float):
    def f(x):
        t = _strong_float(as_float(x))
        return M.log(t) * (1.0 / _pymath.log(base))
    return f


def _fix(x):
    t = as_float(x)
    return M.sign(t) * M.floor(M.abs(t))


def _iscomplex(x):
    t = tensor(x)
    if t.dtype.is_complex:
        return M.not_equal(M.imag(t), 0.0)
    return A.zeros_like(t, dtype=dtypes.bool_)


def _bitwise_not(x):
    t = tensor(x)
    return M.logical_not(t) if t.dtype.is_bool else M.invert(t)


def _angle(z, deg=False):
    out = UNARY["angle"][0](z)
    return out * (180.0 / _pymath.pi) if deg else out


def _true_divide(x1, x2):
    # As TensorFlow's truediv: 8/16-bit integers divide in float32, wider ones in float64.
    a, b = promote(x1, x2)
    if a.dtype.is_bool:
        a, b = M.cast(a, dtypes.float64), M.cast(b, dtypes.float64)
    elif a.dtype.is_integer:
        dt = dtypes.float32 if a.dtype.size <= 2 else dtypes.float64
        a, b = M.cast(a, dt), M.cast(b, dt)
    return M.divide(a, b)


def _logaddexp2(x1, x2):
    a, b = promote(x1, x2)
    return BINARY["logaddexp2"][0](_strong_float(as_float(a)), _strong_float(as_float(b)))


def _clip(a, a_min, a_max):
    if a_min is None and a_max is None:
        raise ValueError("tf.experimental.numpy.clip: give a_min or a_max (or both)")
    t, lo, hi = promote(a, a_min, a_max)
    if lo is not None:
        t = M.maximum(t, lo)
    return t if hi is None else M.minimum(t, hi)


def _bool_as(name: str, logical):
    # NumPy computes + and * (and maximum/minimum) of bools as logical or/and.
    impl = BINARY[name][0]

    def f(x1, x2):
        a, b = promote(x1, x2)
        return logical(a, b) if a.dtype.is_bool else impl(a, b)
    return f


def _divmod(x1, x2):
    a, b = promote(x1, x2)
    return M.floordiv(a, b), M.floormod(a, b)


def _array_equal(a1, a2):
    a, b = promote(a1, a2)
    if a.shape.is_fully_defined() and b.shape.is_fully_defined() and \
            a.shape.as_list() != b.shape.as_list():
        return tensor(False)
    return R.reduce_all(M.equal(a, b))


# -- reductions: NumPy's dtype= (accumulate in it), keepdims=None ------------------------------

def _in(a, dtype):
    return tensor(a) if dtype is None else tensor(a, dtype)


def _keep(keepdims) -> bool:
    return bool(keepdims) if keepdims is not None else False


def _reduction(name: str):
    impl = REDUCTIONS[name][0]

    def f(a, axis=None, dtype=None, keepdims=None):
        return impl(_in(a, dtype), axis, _keep(keepdims))
    return f


def _plain(name: str):
    impl = REDUCTIONS[name][0]
    return lambda a, axis=None, keepdims=None: impl(a, axis, _keep(keepdims))


def _mean(a, axis=None, dtype=None, keepdims=None):
    t = _in(a, dtype)
    if dtype is not None and not (t.dtype.is_floating or t.dtype.is_complex):
        return R.reduce_mean(t, axis=_axis(axis), keepdims=_keep(keepdims))
    return REDUCTIONS["mean"][0](t, axis, _keep(keepdims))


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def _var(a, axis=None, dtype=None, ddof=0, keepdims=None):
    t = as_float(_in(a, dtype))
    out = R.reduce_variance(t, axis=_axis(axis), keepdims=_keep(keepdims))
    if ddof:
        n = M.cast(A.size(t), out.dtype) / M.cast(A.size(out), out.dtype)
        out = out * n / (n - ddof)
    return out


def _std(a, axis=None, keepdims=None):
    return R.reduce_std(as_float(a), axis=_axis(axis), keepdims=_keep(keepdims))


def _cum(name: str):
    impl = REDUCTIONS[name][0]
    return lambda a, axis=None, dtype=None: impl(a, axis, None if dtype is None
                                                 else as_dtype(dtype))


def _average(a, axis=None, weights=None, returned=False):
    t = as_float(a)
    out = REDUCTIONS["average"][0](t, axis, weights)
    if not returned:
        return out
    if weights is None:
        count = M.cast(A.size(t), out.dtype) / M.cast(A.size(out), out.dtype)
        return out, A.fill(A.shape(out), count)
    _, w = promote(t, weights)
    if axis is not None and w.shape.rank == 1 and t.shape.rank not in (None, 1):
        shape = [1] * t.shape.rank
        shape[axis] = -1
        w = A.reshape(w, shape)
    return out, R.reduce_sum(w + A.zeros_like(t), axis=axis)


def _nan_fill(a, value):
    t = tensor(a)
    if not t.dtype.is_floating:
        return t
    return M.where(M.is_nan(t), M.cast(value, t.dtype) + A.zeros_like(t), t)


def _nansum(a, axis=None, dtype=None, keepdims=False):
    return REDUCTIONS["sum"][0](_nan_fill(_in(a, dtype), 0), axis, _keep(keepdims))


def _nanprod(a, axis=None, dtype=None, keepdims=False):
    return REDUCTIONS["prod"][0](_nan_fill(_in(a, dtype), 1), axis, _keep(keepdims))


def _nanmean(a, axis=None, dtype=None, keepdims=None):
    t = as_float(_in(a, dtype))
    total = R.reduce_sum(_nan_fill(t, 0), axis=_axis(axis), keepdims=_keep(keepdims))
    count = R.reduce_sum(M.cast(M.logical_not(M.is_nan(t)), t.dtype), axis=_axis(axis),
                         keepdims=_keep(keepdims))
    return total / count


_UNARY_NAMES = (
    "abs absolute arccos arccosh arcsin arcsinh arctan arctanh cbrt ceil conj conjugate cos "
    "cosh deg2rad exp exp2 expm1 floor isfinite isinf isnan isneginf isposinf isreal log "
    "log1p logical_not negative rad2deg reciprocal signbit sin sinc sinh sqrt square tan "
    "tanh").split()
_BINARY_NAMES = (
    "add arctan2 bitwise_and bitwise_or bitwise_xor equal floor_divide gcd greater "
    "greater_equal heaviside hypot lcm less less_equal logaddexp logical_and logical_or "
    "logical_xor maximum minimum mod multiply nextafter not_equal power subtract").split()

ROWS = {n: (UNARY[n][0], "x", UNARY[n][1]) for n in _UNARY_NAMES}
ROWS.update({n: (BINARY[n][0], "x1, x2", BINARY[n][1]) for n in _BINARY_NAMES})
ROWS.update({
    "add": (_bool_as("add", M.logical_or), "x1, x2", BINARY["add"][1]),
    "multiply": (_bool_as("multiply", M.logical_and), "x1, x2", BINARY["multiply"][1]),
    "maximum": (_bool_as("maximum", M.logical_or), "x1, x2", BINARY["maximum"][1]),
    "minimum": (_bool_as("minimum", M.logical_and), "x1, x2", BINARY["minimum"][1]),
    "fabs": (UNARY["abs"][0], "x", "Absolute value, element-wise (integers stay integers)."),
    "positive": (lambda x: A.identity(tensor(x)), "x", "``+x``, element-wise."),
    "fix": (_fix, "x", "Round toward zero, element-wise (as floats)."),
    "log2": (_log_base(2.0), "x", "Base-2 logarithm, element-wise."),
    "log10": (_log_base(10.0), "x", "Base-10 logarithm, element-wise."),
    "iscomplex": (_iscomplex, "x", "Whether the imaginary part is not zero, element-wise."),
    "bitwise_not": (_bitwise_not, "x", "Bitwise NOT (logical NOT of bools), element-wise."),
    "sign": (UNARY["sign"][0], "x, out=None, where=None, **kwargs",
             "The sign (-1, 0, 1), element-wise."),
    "angle": (_angle, "z, deg=False", "The complex argument (in degrees if ``deg``)."),
    "real": (UNARY["real"][0], "val", "The real part, element-wise."),
    "imag": (UNARY["imag"][0], "val", "The imaginary part, element-wise."),
    "around": (UNARY["round"][0], "a, decimals=0", "Round half to even to ``decimals``."),
    "round": (UNARY["round"][0], "a, decimals=0", "Round half to even to ``decimals``."),
    "clip": (_clip, "a, a_min, a_max", "``a`` limited to ``[a_min, a_max]`` (either may be None)."),
    "divide": (_true_divide, "x1, x2", "``x1 / x2`` (integers divide as floats)."),
    "true_divide": (_true_divide, "x1, x2", "``x1 / x2`` (integers divide as floats)."),
    "remainder": (BINARY["mod"][0], "x1, x2", "``x1 % x2`` (sign of the divisor)."),
    "float_power": (BINARY["power"][0], "x1, x2",
                    "``x1 ** x2`` (as TensorFlow's tnp: in the promoted dtype)."),
    "logaddexp2": (_logaddexp2, "x1, x2", "``log2(2**x1 + 2**x2)``, stably."),
    "divmod": (_divmod, "x1, x2", "``(x1 // x2, x1 % x2)``."),
    "isclose": (BINARY["isclose"][0], "a, b, rtol=1e-05, atol=1e-08, equal_nan=False",
                "``|a - b| <= atol + rtol * |b|``, element-wise."),
    "allclose": (BINARY["allclose"][0], "a, b, rtol=1e-05, atol=1e-08, equal_nan=False",
                 "Whether ``isclose`` holds everywhere."),
    "array_equal": (_array_equal, "a1, a2", "Whether both have one shape and equal elements."),
    "all": (_plain("all"), "a, axis=None, keepdims=None", "Whether all elements are true."),
    "any": (_plain("any"), "a, axis=None, keepdims=None", "Whether some element is true."),
    "amax": (_plain("amax"), "a, axis=None, out=None, keepdims=None", "Maximum over axis."),
    "amin": (_plain("amin"), "a, axis=None, out=None, keepdims=None", "Minimum over axis."),
    "max": (_plain("amax"), "a, axis=None, keepdims=None", "Maximum over ``axis``."),
    "min": (_plain("amin"), "a, axis=None, keepdims=None", "Minimum over ``axis``."),
    "ptp": (_plain("ptp"), "a, axis=None, keepdims=None", "``max - min`` over ``axis``."),
    "argmax": (lambda a, axis=None: REDUCTIONS["argmax"][0](a, axis), "a, axis=None",
               "Index of the largest value (of the flattened array if axis is None)."),
    "argmin": (lambda a, axis=None: REDUCTIONS["argmin"][0](a, axis), "a, axis=None",
               "Index of the smallest value (of the flattened array if axis is None)."),
    "count_nonzero": (REDUCTIONS["count_nonzero"][0], "a, axis=None",
                      "How many elements are not zero."),
    "sum": (_reduction("sum"), "a, axis=None, dtype=None, keepdims=None", "Sum over axis."),
    "prod": (_reduction("prod"), "a, axis=None, dtype=None, keepdims=None",
             "Product over ``axis``."),
    "mean": (_mean, "a, axis=None, dtype=None, out=None, keepdims=None",
             "Mean over ``axis`` (integers average as float64)."),
    "std": (_std, "a, axis=None, keepdims=None", "Standard deviation over ``axis``."),
    "var": (_var, "a, axis=None, dtype=None, out=None, ddof=0, keepdims=None",
            "Variance over ``axis`` (divided by ``n - ddof``)."),
    "cumsum": (_cum("cumsum"), "a, axis=None, dtype=None", "Cumulative sum (flat if None)."),
    "cumprod": (_cum("cumprod"), "a, axis=None, dtype=None", "Cumulative product."),
    "average": (_average, "a, axis=None, weights=None, returned=False",
                "The (weighted) average; with ``returned``, also the sum of weights."),
    "nansum": (_nansum, "a, axis=None, dtype=None, keepdims=False", "Sum, NaNs as 0."),
    "nanprod": (_nanprod, "a, axis=None, dtype=None, keepdims=False", "Product, NaNs as 1."),
    "nanmean": (_nanmean, "a, axis=None, dtype=None, keepdims=None",
                "Mean of the values that are not NaN."),
})
