"""Element-wise functions and reductions of a NumPy-like API, as tables over twinflow's ops.

``math_tables(policy)`` returns three tables, ``name: (implementation, summary)``, of the
element-wise unary and binary functions and the reductions NumPy has; the policy
(``policy.py``) decides how arguments become tensors and which dtype results take, so
``keras.ops`` (Keras' promotion) and ``tf.experimental.numpy`` (NumPy's) publish the same rows.
The implementations are twinflow ops: every function runs eagerly and in ``tw.function`` and
differentiates wherever its math does.
"""
from __future__ import annotations

import math as _pymath

import numpy as np

from ..control.while_loop import while_loop
from ..core import dtypes
from ..ops import array_ops as A
from ..ops import math_ops as M
from ..ops import reduction_ops as R
from ..ops.math import special as S
from .policy import Policy


def math_tables(P: Policy) -> tuple:  # noqa: N803
    """The element-wise and reduction tables under the dtype rules ``P``.

    Args:
        P: the policy (conversion, promotion, default dtypes).

    Returns:
        ``(UNARY, BINARY, REDUCTIONS)``: dicts ``name: (function, summary)``.
    """
    tensor, promote, as_float = P.tensor, P.promote, P.as_float
    def _axis(axis):
        return list(axis) if isinstance(axis, tuple) else axis

    def _float_unary(fn):
        return lambda x: fn(as_float(x))

    def _exp2(x):
        return M.exp(as_float(x) * _pymath.log(2.0))

    def _log_base(base):
        return lambda x: M.log(as_float(x)) * (1.0 / _pymath.log(base))

    def _cbrt(x):
        x = as_float(x)
        return M.sign(x) * M.pow(M.abs(x), 1.0 / 3.0)

    def _sinc(x):
        x = as_float(x)
        zero = M.equal(x, 0.0)
        safe = M.where(zero, A.ones_like(x), x) * _pymath.pi
        return M.where(zero, A.ones_like(x), M.sin(safe) / safe)

    def _square(x):
        x = tensor(x)
        if x.dtype.is_bool:
            x = M.cast(x, dtypes.int32)
        return M.square(x)

    def _floor_like(fn):
        def f(x):
            x = tensor(x)
            return fn(x) if x.dtype.is_floating else as_float(x)
        return f

    def _trunc(x):
        x = tensor(x)
        return M.sign(x) * M.floor(M.abs(x)) if x.dtype.is_floating else x

    def _round(x, decimals: int = 0):
        x = tensor(x)
        if not x.dtype.is_floating:
            if decimals >= 0:
                return x
            f = 10 ** (-decimals)
            return M.cast(M.round(M.cast(x, dtypes.float64) / f) * f, x.dtype)
        if decimals == 0:
            return M.round(x)
        f = 10.0 ** decimals
        return M.round(x * f) / f

    def _signbit(x):
        x = tensor(x)
        if x.dtype.is_floating:
            return M.logical_or(M.less(x, 0.0),
                                M.logical_and(M.equal(x, 0.0), M.less(M.reciprocal(x), 0.0)))
        if x.dtype.is_unsigned or x.dtype.is_bool:
            return M.not_equal(x, x)
        return M.less(x, 0)

    def _is(pred):
        def f(x):
            x = tensor(x)
            if not (x.dtype.is_floating or x.dtype.is_complex):
                return M.equal(x, x) if pred is M.is_finite else M.not_equal(x, x)
            return pred(x)
        return f

    def _inf_sign(sign):
        def f(x):
            x = tensor(x)
            if not x.dtype.is_floating:
                return M.not_equal(x, x)
            return M.logical_and(M.is_inf(x), M.greater(x, 0.0) if sign > 0 else M.less(x, 0.0))
        return f

    def _isreal(x):
        x = tensor(x)
        if x.dtype.is_complex:
            return M.equal(M.imag(x), 0.0)
        return M.equal(x, x) if not x.dtype.is_floating else M.logical_or(M.equal(x, x),
                                                                         M.not_equal(x, x))

    def _binary(fn):
        return lambda x1, x2: fn(*promote(x1, x2))

    def _binary_float(fn):
        def f(x1, x2):
            a, b = promote(x1, x2)
            if not (a.dtype.is_floating or a.dtype.is_complex):
                a, b = as_float(a), as_float(b)
            return fn(a, b)
        return f

    def _compare(fn):
        return lambda x1, x2: fn(*promote(x1, x2))

    def _logical(fn):
        return lambda x1, x2: fn(M.cast(tensor(x1), dtypes.bool_), M.cast(tensor(x2), dtypes.bool_))

    def _fmax_fmin(fn):
        def f(x1, x2):
            a, b = promote(x1, x2)
            if not a.dtype.is_floating:
                return fn(a, b)
            return M.where(M.is_nan(a), b, M.where(M.is_nan(b), a, fn(a, b)))
        return f

    def _hypot(a, b):
        return M.sqrt(a * a + b * b)

    def _logaddexp(a, b):
        m = M.maximum(a, b)
        both_inf = M.logical_and(M.is_inf(m), M.equal(a, b))
        safe = M.where(both_inf, A.zeros_like(m), M.abs(a - b))
        return M.where(both_inf, m, m + M.log1p(M.exp(-safe)))

    def _logaddexp2(a, b):
        ln2 = _pymath.log(2.0)
        return _logaddexp(a * ln2, b * ln2) * (1.0 / ln2)

    def _heaviside(x1, x2):
        a, b = promote(x1, x2)
        if not a.dtype.is_floating:
            a, b = as_float(a), as_float(b)
        return M.where(M.less(a, 0.0), A.zeros_like(a), M.where(M.greater(a, 0.0), A.ones_like(a),
                                                                b + A.zeros_like(a)))

    def _ldexp(x1, x2):
        x = as_float(x1)
        return x * M.pow(M.cast(2.0, x.dtype) + A.zeros_like(x), M.cast(tensor(x2), x.dtype))

    def _power(x1, x2):
        a, b = promote(x1, x2)
        return M.pow(a, b)

    def _divide(x1, x2):
        a, b = promote(x1, x2)
        if not (a.dtype.is_floating or a.dtype.is_complex):
            a, b = as_float(a), as_float(b)
        return M.divide(a, b)

    def _divide_no_nan(x1, x2):
        a, b = promote(x1, x2)
        if not (a.dtype.is_floating or a.dtype.is_complex):
            a, b = as_float(a), as_float(b)
        return M.divide_no_nan(a, b)

    def _floor_divide(x1, x2):
        a, b = promote(x1, x2)
        return M.floordiv(a, b)

    def _gcd(x1, x2):
        a, b = promote(x1, x2)
        if not a.dtype.is_integer:
            raise TypeError(f"{P.name}.gcd needs integer inputs, got {a.dtype.name}")
        a, b = M.abs(a) + A.zeros_like(b), M.abs(b) + A.zeros_like(a)

        def body(a, b):
            nz = M.not_equal(b, 0)
            safe = M.where(nz, b, A.ones_like(b))
            return M.where(nz, b, a), M.where(nz, M.floormod(a, safe), b)
        return while_loop(lambda a, b: R.reduce_any(M.not_equal(b, 0)), body, [a, b])[0]

    def _lcm(x1, x2):
        a, b = promote(x1, x2)
        g = _gcd(a, b)
        safe = M.where(M.equal(g, 0), A.ones_like(g), g)
        return M.where(M.equal(g, 0), A.zeros_like(g), M.abs(M.floordiv(a, safe) * b))

    def _bitwise(fn, logical):
        # NumPy's bitwise functions are the logical ones on bools.
        def f(x, y):
            a, b = promote(x, y)
            return logical(a, b) if a.dtype.is_bool else fn(a, b)
        return f

    def _isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
        a, b = promote(x1, x2)
        if not a.dtype.is_floating:
            a, b = as_float(a), as_float(b)
        finite = M.logical_and(M.is_finite(a), M.is_finite(b))
        diff = M.where(finite, M.abs(a - b), A.zeros_like(a))
        close = M.logical_or(M.equal(a, b),
                             M.logical_and(finite, M.less_equal(diff, atol + rtol * M.abs(b))))
        if equal_nan:
            close = M.logical_or(close, M.logical_and(M.is_nan(a), M.is_nan(b)))
        return close

    def _allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
        return R.reduce_all(_isclose(x1, x2, rtol, atol, equal_nan))

    def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
        x = tensor(x)
        if not x.dtype.is_floating:
            return x
        big = float(np.finfo(x.dtype.np).max)
        x = M.where(M.is_nan(x), M.cast(nan, x.dtype) + A.zeros_like(x), x)
        x = M.where(_inf_sign(1)(x), M.cast(big if posinf is None else posinf, x.dtype)
                    + A.zeros_like(x), x)
        return M.where(_inf_sign(-1)(x), M.cast(-big if neginf is None else neginf, x.dtype)
                       + A.zeros_like(x), x)

    def _clip(x, x_min, x_max):
        x = tensor(x)
        if x.dtype.is_bool:
            x = M.cast(x, dtypes.int32)
        return M.minimum(M.maximum(x, tensor(x_min, x.dtype)), tensor(x_max, x.dtype))

    # -- reductions -------------------------------------------------------------------------

    def _sum_dtype(x):
        return P.accumulate(tensor(x))

    def _sum(x, axis=None, keepdims: bool = False):
        return R.reduce_sum(_sum_dtype(x), axis=_axis(axis), keepdims=keepdims)

    def _prod(x, axis=None, keepdims: bool = False, dtype=None):
        x = tensor(x, dtype) if dtype is not None else _sum_dtype(x)
        return R.reduce_prod(x, axis=_axis(axis), keepdims=keepdims)

    def _mean(x, axis=None, keepdims: bool = False):
        return R.reduce_mean(as_float(x), axis=_axis(axis), keepdims=keepdims)

    def _var(x, axis=None, keepdims: bool = False):
        return R.reduce_variance(as_float(x), axis=_axis(axis), keepdims=keepdims)

    def _std(x, axis=None, keepdims: bool = False):
        return R.reduce_std(as_float(x), axis=_axis(axis), keepdims=keepdims)

    def _extreme(op, combine):
        def f(x, axis=None, keepdims: bool = False, initial=None):
            x = tensor(x)
            out = op(x, axis=_axis(axis), keepdims=keepdims)
            return out if initial is None else combine(out, tensor(initial, x.dtype))
        return f

    def _amax(x, axis=None, keepdims: bool = False):
        return R.reduce_max(tensor(x), axis=_axis(axis), keepdims=keepdims)

    def _amin(x, axis=None, keepdims: bool = False):
        return R.reduce_min(tensor(x), axis=_axis(axis), keepdims=keepdims)

    def _bool_reduce(op):
        def f(x, axis=None, keepdims: bool = False):
            return op(M.cast(tensor(x), dtypes.bool_), axis=_axis(axis), keepdims=keepdims)
        return f

    def _arg(op):
        def f(x, axis=None, keepdims: bool = False):
            x = tensor(x)
            if axis is None:
                out = op(A.reshape(x, [-1]), axis=0, output_type=P.index_dtype())
                if keepdims:
                    out = A.reshape(out, [1] * (x.shape.rank or 0))
                return out
            out = op(x, axis=axis, output_type=P.index_dtype())
            return A.expand_dims(out, axis) if keepdims else out
        return f

    def _ptp(x, axis=None, keepdims: bool = False):
        return _amax(x, axis, keepdims) - _amin(x, axis, keepdims)

    def _logsumexp(x, axis=None, keepdims: bool = False):
        return R.reduce_logsumexp(as_float(x), axis=_axis(axis), keepdims=keepdims)

    def _count_nonzero(x, axis=None):
        return M.cast(R.count_nonzero(tensor(x), axis=_axis(axis)), P.index_dtype())

    def _average(x, axis=None, weights=None):
        x = as_float(x)
        if weights is None:
            return R.reduce_mean(x, axis=axis)
        x, w = promote(x, weights)
        if axis is not None and w.shape.rank == 1 and x.shape.rank not in (None, 1):
            shape = [1] * x.shape.rank
            shape[axis] = -1
            w = A.reshape(w, shape)
        return R.reduce_sum(x * w, axis=axis) / R.reduce_sum(w + A.zeros_like(x), axis=axis)

    def _cum(op):
        def f(x, axis=None, dtype=None):
            x = tensor(x, dtype) if dtype is not None else _sum_dtype(x)
            if axis is None:
                return op(A.reshape(x, [-1]), axis=0)
            return op(x, axis=axis)
        return f

    # Functions of floats: integer and bool arguments are converted first.
    FLOAT_UNARY = {
        "sqrt": (M.sqrt, "Square root"),
        "rsqrt": (M.rsqrt, "``1 / sqrt(x)``"),
        "reciprocal": (M.reciprocal, "``1 / x``"),
        "exp": (M.exp, "``e ** x``"),
        "expm1": (M.expm1, "``exp(x) - 1``"),
        "log": (M.log, "Natural logarithm"),
        "log1p": (M.log1p, "``log(1 + x)``"),
        "sin": (M.sin, "Sine"),
        "cos": (M.cos, "Cosine"),
        "tan": (M.tan, "Tangent"),
        "arcsin": (M.asin, "Inverse sine"),
        "arccos": (M.acos, "Inverse cosine"),
        "arctan": (M.atan, "Inverse tangent"),
        "sinh": (M.sinh, "Hyperbolic sine"),
        "cosh": (M.cosh, "Hyperbolic cosine"),
        "tanh": (M.tanh, "Hyperbolic tangent"),
        "arcsinh": (M.asinh, "Inverse hyperbolic sine"),
        "arccosh": (M.acosh, "Inverse hyperbolic cosine"),
        "arctanh": (M.atanh, "Inverse hyperbolic tangent"),
        "erf": (M.erf, "The error function"),
        "erfc": (M.erfc, "The complementary error function"),
        "erfinv": (S.erfinv, "The inverse error function"),
        "i0": (S.bessel_i0, "The modified Bessel function of order 0"),
    }
    UNARY = {
        **{name: (_float_unary(op), f"{what}, element-wise.")
           for name, (op, what) in FLOAT_UNARY.items()},
        **dict.fromkeys(("abs", "absolute"),
                        (lambda x: M.abs(tensor(x)), "Absolute value, element-wise.")),
        "fabs": (lambda x: M.abs(as_float(x)), "Absolute value as a float, element-wise."),
        "negative": (lambda x: M.negative(tensor(x)), "``-x``, element-wise."),
        "square": (_square, "``x * x``, element-wise."),
        "sign": (lambda x: M.sign(tensor(x)), "The sign (-1, 0, 1), element-wise."),
        "cbrt": (_cbrt, "Cube root, element-wise."),
        "exp2": (_exp2, "``2 ** x``, element-wise."),
        "log2": (_log_base(2.0), "Base-2 logarithm, element-wise."),
        "log10": (_log_base(10.0), "Base-10 logarithm, element-wise."),
        "sinc": (_sinc, "``sin(pi x) / (pi x)`` (1 at 0), element-wise."),
        "deg2rad": (lambda x: as_float(x) * (_pymath.pi / 180.0), "Degrees to radians."),
        "rad2deg": (lambda x: as_float(x) * (180.0 / _pymath.pi), "Radians to degrees."),
        "floor": (_floor_like(M.floor), "Round down, element-wise."),
        "ceil": (_floor_like(M.ceil), "Round up, element-wise."),
        "trunc": (_trunc, "Round toward zero, element-wise."),
        "round": (_round, "Round half to even to ``decimals`` decimals, element-wise."),
        **dict.fromkeys(("conj", "conjugate"),
                        (lambda x: M.conj(tensor(x)), "Complex conjugate, element-wise.")),
        "real": (lambda x: M.real(tensor(x)), "The real part, element-wise."),
        "imag": (lambda x: M.imag(tensor(x)), "The imaginary part, element-wise."),
        "angle": (lambda x: M.atan2(M.imag(as_float(x)), M.real(as_float(x))),
                  "The complex argument, element-wise."),
        "signbit": (_signbit, "Whether the sign bit is set (true for -0.0), element-wise."),
        "isnan": (_is(M.is_nan), "Whether ``x`` is NaN, element-wise."),
        "isinf": (_is(M.is_inf), "Whether ``x`` is infinite, element-wise."),
        "isfinite": (_is(M.is_finite), "Whether ``x`` is finite, element-wise."),
        "isposinf": (_inf_sign(1), "Whether ``x`` is +inf, element-wise."),
        "isneginf": (_inf_sign(-1), "Whether ``x`` is -inf, element-wise."),
        "isreal": (_isreal, "Whether ``x`` has no imaginary part, element-wise."),
        "logical_not": (lambda x: M.logical_not(M.cast(tensor(x), dtypes.bool_)),
                        "Logical NOT, element-wise."),
        **dict.fromkeys(("bitwise_invert", "bitwise_not"),
                        (lambda x: M.invert(tensor(x)), "Bitwise NOT, element-wise.")),
        "nan_to_num": (_nan_to_num, "NaN to ``nan``, infinities to ``posinf``/``neginf``."),
        "clip": (_clip, "``x`` limited to ``[x_min, x_max]``, element-wise."),
    }

    # The comparison ops (same names in math_ops) and their operators.
    COMPARISONS = {"equal": "==", "not_equal": "!=", "greater": ">", "greater_equal": ">=",
                   "less": "<", "less_equal": "<="}
    BINARY = {
        "add": (_binary(M.add), "``x1 + x2``, element-wise (the API's dtype promotion)."),
        "subtract": (_binary(M.subtract), "``x1 - x2``, element-wise."),
        "multiply": (_binary(M.multiply), "``x1 * x2``, element-wise."),
        **dict.fromkeys(("divide", "true_divide"),
                        (_divide, "``x1 / x2``, element-wise (integers divide as floats).")),
        "divide_no_nan": (_divide_no_nan, "``x1 / x2``, 0 where ``x2`` is 0."),
        "floor_divide": (_floor_divide, "``x1 // x2``, element-wise."),
        "mod": (_binary(M.floormod), "``x1 % x2`` (sign of the divisor), element-wise."),
        "fmod": (_binary(M.truncatemod), "The C remainder (sign of the dividend), element-wise."),
        "power": (_power, "``x1 ** x2``, element-wise."),
        "maximum": (_binary(M.maximum), "The larger value, element-wise."),
        "minimum": (_binary(M.minimum), "The smaller value, element-wise."),
        "fmax": (_fmax_fmin(M.maximum), "The larger value, ignoring NaNs, element-wise."),
        "fmin": (_fmax_fmin(M.minimum), "The smaller value, ignoring NaNs, element-wise."),
        "arctan2": (_binary_float(M.atan2), "``atan(x1 / x2)`` in the right quadrant."),
        "hypot": (_binary_float(_hypot), "``sqrt(x1**2 + x2**2)``, element-wise."),
        "logaddexp": (_binary_float(_logaddexp), "``log(exp(x1) + exp(x2))``, stably."),
        "logaddexp2": (_binary_float(_logaddexp2), "``log2(2**x1 + 2**x2)``, stably."),
        "heaviside": (_heaviside, "0 for x1 < 0, 1 for x1 > 0, x2 where x1 == 0."),
        "ldexp": (_ldexp, "``x1 * 2 ** x2``, element-wise."),
        "nextafter": (_binary_float(S.nextafter), "The next float after x1 toward x2."),
        "gcd": (_gcd, "Greatest common divisor of integers, element-wise."),
        "lcm": (_lcm, "Least common multiple of integers, element-wise."),
        **{name: (_compare(getattr(M, name)), f"``x1 {symbol} x2``, element-wise.")
           for name, symbol in COMPARISONS.items()},
        "logical_and": (_logical(M.logical_and), "Logical AND, element-wise."),
        "logical_or": (_logical(M.logical_or), "Logical OR, element-wise."),
        "logical_xor": (_logical(M.logical_xor), "Logical XOR, element-wise."),
        "bitwise_and": (_bitwise(M.bitwise_and, M.logical_and), "Bitwise AND, element-wise."),
        "bitwise_or": (_bitwise(M.bitwise_or, M.logical_or), "Bitwise OR, element-wise."),
        "bitwise_xor": (_bitwise(M.bitwise_xor, M.logical_xor), "Bitwise XOR, element-wise."),
        "isclose": (_isclose, "``|x1 - x2| <= atol + rtol * |x2|``, element-wise."),
        "allclose": (_allclose, "Whether ``isclose`` holds everywhere."),
    }

    REDUCTIONS = {
        "sum": (_sum, "Sum over ``axis``."),
        "prod": (_prod, "Product over ``axis``."),
        "mean": (_mean, "Mean over ``axis`` (integers average as floats)."),
        "var": (_var, "Variance over ``axis``."),
        "std": (_std, "Standard deviation over ``axis``."),
        "max": (_extreme(R.reduce_max, M.maximum), "Maximum over ``axis`` (and ``initial``)."),
        "min": (_extreme(R.reduce_min, M.minimum), "Minimum over ``axis`` (and ``initial``)."),
        "amax": (_amax, "Maximum over ``axis``."),
        "amin": (_amin, "Minimum over ``axis``."),
        "all": (_bool_reduce(R.reduce_all), "Whether every element along ``axis`` is true."),
        "any": (_bool_reduce(R.reduce_any), "Whether some element along ``axis`` is true."),
        "argmax": (_arg(R.argmax), "Index of the largest value along ``axis`` (flat if None)."),
        "argmin": (_arg(R.argmin), "Index of the smallest value along ``axis`` (flat if None)."),
        "ptp": (_ptp, "``max - min`` along ``axis``."),
        "logsumexp": (_logsumexp, "``log(sum(exp(x)))`` along ``axis``, stably."),
        "count_nonzero": (_count_nonzero, "How many elements along ``axis`` are not zero."),
        "average": (_average, "The (weighted) average along ``axis``."),
        "cumsum": (_cum(M.cumsum), "Cumulative sum along ``axis`` (of the flat array if None)."),
        "cumprod": (_cum(M.cumprod), "Cumulative product along ``axis`` (flat if None)."),
    }
    return UNARY, BINARY, REDUCTIONS
