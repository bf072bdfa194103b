"""The former one-file math module, kept so ``twinflow.ops.math_ops`` imports keep working.

The ops live by family in ``twinflow.ops.math`` (listed in ``ops/__init__.py``); this module
only re-exports them (``__all__`` is the public ``tw.math`` list).
"""
from __future__ import annotations

from .core import reexport
from .math import binary as _binary
from .math import cast as _cast
from .math import clip as _clip
from .math import comparison as _comparison
from .math import complex as _complex
from .math import elementwise as _elementwise
from .math import scan as _scan
from .math import unary as _unary

reexport(globals(), _elementwise, _comparison, _cast, _unary, _binary, _complex, _scan, _clip)

__all__ = [
    # arithmetic
    "add", "subtract", "multiply", "scalar_mul", "add_n", "truediv", "divide", "realdiv",
    "div_no_nan", "divide_no_nan", "reciprocal_no_nan", "floordiv", "floor_div", "floormod",
    "mod", "truncatediv", "truncatemod", "pow", "maximum", "minimum", "squared_difference",
    "negative", "abs", "sign", "square", "reciprocal", "sqrt", "rsqrt", "xlogy", "xdivy",
    "mul_no_nan", "multiply_no_nan", "accumulate_n", "polyval",
    # transcendental
    "exp", "expm1", "log", "log1p", "sigmoid", "log_sigmoid", "erf", "erfc",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh",
    # rounding, complex parts, casts
    "floor", "ceil", "round", "rint", "conj", "real", "imag", "complex", "cast",
    # comparisons, logic, bits, selection
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_not", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "is_nan", "is_inf", "is_finite", "where",
    # scans and clipping
    "cumsum", "cumprod", "clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm",
    "TensorShape",
]
