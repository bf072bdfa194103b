"""Cases for the elementwise math ops (ops/math_ops.py): NumPy references, float64 gradients,
float32 and integer variants.

Inputs keep away from kinks and domain edges (abs near 0, floor near integers, log near 0) so
that central finite differences are meaningful.
"""
import math

import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(7)
SHAPE = (3, 4)


def _u(lo, hi, shape=SHAPE):
    return rng.uniform(lo, hi, size=shape)


def _away_from_zero(shape=SHAPE, lo=0.2, hi=2.0):
    return _u(lo, hi, shape) * rng.choice([-1.0, 1.0], size=shape)


def _off_grid(shape=SHAPE):
    """Values whose fractional part is far from 0 and 0.5 (no rounding jumps nearby)."""
    return rng.integers(-3, 4, size=shape) + rng.choice([0.2, 0.3, 0.7, 0.8], size=shape)


A = rng.normal(size=SHAPE)
B = rng.normal(size=SHAPE)
ROW = rng.normal(size=(4,))
POS = _u(0.5, 2.0)
POS_ROW = _u(0.5, 2.0, (4,))
NZ = _away_from_zero()
NZ_ROW = _away_from_zero((4,))
I = rng.integers(-9, 10, size=SHAPE).astype(np.int32)
I_NZ = (rng.integers(1, 5, size=SHAPE) * rng.choice([-1, 1], size=SHAPE)).astype(np.int32)
BOOL_A = rng.random(SHAPE) > 0.5
BOOL_B = rng.random(SHAPE) > 0.5
SPECIAL = np.array([[0.0, np.nan, np.inf, -np.inf], [1.5, -2.0, np.nan, 3.0]])


def _same_dtype(ref):
    """A reference computed in float64 and rounded back to its input's dtype."""
    return lambda x: np.asarray(ref(x)).astype(x.dtype)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_erf = _same_dtype(np.vectorize(math.erf))
_erfc = _same_dtype(np.vectorize(math.erfc))

# (function, reference, float64 input, name, extra Case kwargs)
UNARY = [
    (tw.negative, np.negative, A, "negative2", {}),
    (tw.abs, np.abs, NZ, "abs", {}),
    (tw.sign, np.sign, NZ, "sign", {}),
    (tw.square, np.square, A, "square", {}),
    (tw.math.reciprocal, np.reciprocal, NZ, "reciprocal", {}),
    (tw.sqrt, np.sqrt, POS, "sqrt", {}),
    (tw.math.rsqrt, lambda x: 1 / np.sqrt(x), POS, "rsqrt", {}),
    (tw.exp, np.exp, A, "exp2", {}),
    (tw.math.expm1, np.expm1, A, "expm1", {}),
    (tw.math.log, np.log, POS, "log", {}),
    (tw.math.log1p, np.log1p, _u(-0.5, 2.0), "log1p", {}),
    (tw.sigmoid, _sigmoid, _u(-6, 6), "sigmoid", {}),
    (tw.math.log_sigmoid, lambda x: -np.logaddexp(0, -x), _u(-6, 6), "log_sigmoid", {}),
    (tw.math.erf, _erf, _u(-2, 2), "erf", {}),
    (tw.math.erfc, _erfc, _u(-2, 2), "erfc", {}),
    (tw.sin, np.sin, A, "sin", {}),
    (tw.cos, np.cos, A, "cos", {}),
    (tw.tan, np.tan, _u(-1.2, 1.2), "tan", {}),
    (tw.asin, np.arcsin, _u(-0.9, 0.9), "asin", {}),
    (tw.acos, np.arccos, _u(-0.9, 0.9), "acos", {}),
    (tw.atan, np.arctan, A * 2, "atan", {}),
    (tw.sinh, np.sinh, A, "sinh", {}),
    (tw.cosh, np.cosh, A, "cosh", {}),
    (tw.tanh, np.tanh, A, "tanh", {}),
    (tw.asinh, np.arcsinh, A * 2, "asinh", {}),
    (tw.acosh, np.arccosh, _u(1.2, 3.0), "acosh", {}),
    (tw.atanh, np.arctanh, _u(-0.9, 0.9), "atanh", {}),
    (tw.math.floor, np.floor, _off_grid(), "floor", {}),
    (tw.math.ceil, np.ceil, _off_grid(), "ceil", {}),
    (tw.math.round, np.round, _off_grid(), "round", {}),
    (tw.math.rint, np.rint, _off_grid(), "rint", {}),
]

CASES = []
for _fn, _ref, _x, _name, _kw in UNARY:
    CASES.append(Case(_fn, [_x], _ref, name=_name, **_kw))
    CASES.append(Case(_fn, [_x.astype(np.float32)], _ref, name=_name + "_f32", rtol=2e-6,
                      atol=1e-6, **_kw))

CASES += [
    # ----- integer variants of unary ops
    Case(tw.negative, [I], np.negative, name="negative_i32"),
    Case(tw.abs, [I], np.abs, name="abs_i32"),
    Case(tw.sign, [I], np.sign, name="sign_i32"),
    Case(tw.square, [I], np.square, name="square_i32"),
    Case(tw.math.round, [np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.3, 2.7])], np.round,
         grad=(), name="round_half_to_even"),
    Case(tw.math.round, [I], lambda x: x, name="round_i32"),
    # ----- binary arithmetic
    Case(tw.truediv, [A, NZ_ROW], np.true_divide, name="truediv"),
    Case(tw.divide, [NZ_ROW.astype(np.float32), NZ.astype(np.float32)], np.true_divide,
         name="divide_f32", rtol=2e-6),
    Case(tw.truediv, [I, I_NZ], np.true_divide, name="truediv_i32_f64"),
    Case(tw.truediv, [I.astype(np.int8), I_NZ.astype(np.int8)],
         lambda x, y: (x.astype(np.float32) / y.astype(np.float32)), name="truediv_i8_f32"),
    Case(tw.truediv, [I.astype(np.int64), I_NZ.astype(np.int64)], np.true_divide,
         name="truediv_i64_f64"),
    Case(lambda x, y: x / y, [A, NZ], np.true_divide, name="truediv_operator"),
    Case(tw.math.divide_no_nan, [A, np.where(rng.random(SHAPE) > 0.5, NZ, 0.0)],
         lambda x, y: np.where(y == 0, 0.0, x / np.where(y == 0, 1.0, y)), grad=[0],
         name="div_no_nan_zeros"),
    Case(tw.math.divide_no_nan, [A, NZ_ROW], np.true_divide, name="div_no_nan"),
    Case(tw.math.reciprocal_no_nan, [np.array([2.0, 0.0, -0.5, 4.0])],
         lambda x: np.where(x == 0, 0.0, 1 / np.where(x == 0, 1.0, x)), grad=(),
         name="reciprocal_no_nan"),
    Case(tw.math.floordiv, [A * 3, NZ], np.floor_divide, name="floordiv"),
    Case(tw.math.floordiv, [I, I_NZ], np.floor_divide, name="floordiv_i32"),
    Case(lambda x, y: x // y, [I, I_NZ], np.floor_divide, name="floordiv_operator"),
    Case(tw.math.floormod, [A * 3, NZ], np.mod, name="floormod"),
    Case(tw.math.floormod, [I, I_NZ], np.mod, name="floormod_i32"),
    Case(lambda x, y: x % y, [A.astype(np.float32) * 3, NZ.astype(np.float32)], np.mod,
         name="mod_operator_f32", rtol=1e-5, atol=1e-6),
    Case(tw.truncatediv, [I, I_NZ], lambda x, y: np.trunc(x / y).astype(np.int32),
         name="truncatediv_i32"),
    Case(tw.truncatediv, [A * 3, NZ], lambda x, y: np.trunc(x / y), name="truncatediv"),
    Case(tw.truncatemod, [I, I_NZ], np.fmod, name="truncatemod_i32"),
    Case(tw.truncatemod, [A * 3, NZ], np.fmod, name="truncatemod"),
    Case(tw.pow, [POS, A], np.power, name="pow"),
    Case(tw.pow, [POS.astype(np.float32), A.astype(np.float32)], np.power, name="pow_f32",
         rtol=1e-5),
    Case(tw.pow, [I, np.abs(I_NZ)], np.power, name="pow_i32"),
    Case(lambda x: x ** 3, [A], lambda x: x ** 3, name="pow_operator_scalar"),
    Case(lambda x: 2.0 ** x, [A], lambda x: 2.0 ** x, name="rpow_operator"),
    Case(tw.maximum, [A, ROW], np.maximum, name="maximum"),
    Case(tw.maximum, [I, I_NZ], np.maximum, name="maximum_i32"),
    Case(tw.minimum, [A, ROW], np.minimum, name="minimum"),
    Case(tw.minimum, [A.astype(np.float32), B.astype(np.float32)], np.minimum,
         name="minimum_f32"),
    Case(tw.math.squared_difference, [A, ROW], lambda x, y: (x - y) ** 2,
         name="squared_difference"),
    Case(tw.math.squared_difference, [I, I_NZ], lambda x, y: (x - y) ** 2,
         name="squared_difference_i32"),
    Case(tw.math.atan2, [A, NZ], np.arctan2, name="atan2"),
    Case(lambda x: tw.scalar_mul(2.5, x), [A], lambda x: 2.5 * x, name="scalar_mul"),
    Case(tw.math.xlogy, [A, POS], lambda x, y: x * np.log(y), name="xlogy"),
    Case(tw.math.xlogy, [np.array([0.0, 0.0, 1.5]), np.array([0.0, 2.0, 0.5])],
         lambda x, y: np.array([0.0, 0.0, 1.5 * np.log(0.5)]), grad=[1], name="xlogy_zeros"),
    Case(tw.math.xdivy, [A, NZ_ROW], np.true_divide, name="xdivy"),
    Case(tw.math.xdivy, [np.array([0.0, 2.0]).astype(np.float32), np.zeros(2, np.float32)],
         lambda x, y: np.array([0.0, np.inf], np.float32), name="xdivy_zeros_f32"),
    Case(tw.math.multiply_no_nan, [A, B], np.multiply, name="mul_no_nan"),
    Case(tw.math.multiply_no_nan, [np.array([np.inf, np.nan, 2.0]), np.array([0.0, 0.0, 3.0])],
         lambda x, y: np.array([0.0, 0.0, 6.0]), grad=(), name="mul_no_nan_zeros"),
    Case(lambda x: tw.math.polyval([2.0, -1.0, 0.5], x), [A], lambda x: 2 * x * x - x + 0.5,
         name="polyval"),
    Case(lambda x, y: tw.math.accumulate_n([x, y, x]), [A, B], lambda x, y: 2 * x + y,
         name="accumulate_n"),
    # ----- complex numbers, checked through real-valued results
    Case(lambda a, b: tw.math.real(tw.complex(a, b) * tw.complex(b, a)), [A, B],
         lambda a, b: np.real((a + 1j * b) * (b + 1j * a)), name="complex_mul_real"),
    Case(lambda a, b: tw.abs(tw.complex(a, b)), [NZ, B], lambda a, b: np.abs(a + 1j * b),
         name="complex_abs"),
    Case(lambda a, b: tw.math.imag(tw.math.conj(tw.complex(a, b)) * tw.complex(a, a)),
         [A, B], lambda a, b: np.imag(np.conj(a + 1j * b) * (a + 1j * a)), name="conj_imag"),
    Case(lambda a, b: tw.math.real(tw.exp(tw.complex(a, b))), [A, B],
         lambda a, b: np.real(np.exp(a + 1j * b)), name="complex_exp"),
    Case(lambda a, b: tw.math.imag(tw.math.log(tw.complex(a, b) / tw.complex(b, a))), [NZ, B],
         lambda a, b: np.imag(np.log((a + 1j * b) / (b + 1j * a))), name="complex_log_div"),
    Case(lambda a, b: tw.math.real(tw.sqrt(tw.complex(a, b)) * tw.sin(tw.complex(b, a))),
         [POS, B], lambda a, b: np.real(np.sqrt(a + 1j * b) * np.sin(b + 1j * a)),
         name="complex_sqrt_sin"),
    Case(lambda a, b: tw.complex(a, b), [A.astype(np.float32), B.astype(np.float32)],
         lambda a, b: (a + 1j * b).astype(np.complex64), name="complex64"),
    # ----- comparisons, logic, bits
    Case(tw.equal, [I, I_NZ], np.equal, name="equal_i32"),
    Case(tw.equal, [BOOL_A, BOOL_B], np.equal, name="equal_bool"),
    Case(tw.not_equal, [A, np.where(BOOL_A, A, B)], np.not_equal, name="not_equal"),
    Case(tw.less, [A, ROW], np.less, name="less"),
    Case(tw.less_equal, [I, I_NZ], np.less_equal, name="less_equal_i32"),
    Case(tw.greater, [A.astype(np.float32), B.astype(np.float32)], np.greater,
         name="greater_f32"),
    Case(tw.greater_equal, [I, I_NZ], np.greater_equal, name="greater_equal_i32"),
    Case(lambda x: x > 0.5, [A], lambda x: x > 0.5, name="greater_operator_scalar"),
    Case(tw.logical_and, [BOOL_A, BOOL_B], np.logical_and, name="logical_and"),
    Case(tw.logical_or, [BOOL_A, BOOL_B], np.logical_or, name="logical_or"),
    Case(tw.logical_not, [BOOL_A], np.logical_not, name="logical_not"),
    Case(tw.math.logical_xor, [BOOL_A, BOOL_B], np.logical_xor, name="logical_xor"),
    Case(lambda x, y: (x & y) | ~x ^ y, [BOOL_A, BOOL_B], lambda x, y: (x & y) | ~x ^ y,
         name="bool_operators"),
    Case(tw.bitwise_and, [I, I_NZ], np.bitwise_and, name="bitwise_and"),
    Case(tw.bitwise_or, [I, I_NZ], np.bitwise_or, name="bitwise_or"),
    Case(tw.bitwise_xor, [I, I_NZ], np.bitwise_xor, name="bitwise_xor"),
    Case(tw.bitwise.left_shift,
         [np.array([-8, 5, 1, -1], np.int8), np.array([1, 9, -1, 7], np.int8)],
         lambda x, y: np.array([-16, -128, 1, -128], np.int8), name="left_shift_clamped"),
    Case(tw.bitwise.right_shift,
         [np.array([-8, 5, 1, -1], np.int8), np.array([1, 9, -1, 7], np.int8)],
         lambda x, y: np.array([-4, 0, 1, -1], np.int8), name="right_shift_clamped"),
    Case(tw.bitwise.left_shift, [np.array([[200], [5]], np.uint8), np.array([1, 3], np.uint8)],
         lambda x, y: np.left_shift(x, y), name="left_shift_uint8_broadcast"),
    Case(tw.bitwise.right_shift, [I, np.abs(I_NZ) % 3], np.right_shift, name="right_shift"),
    Case(tw.invert, [I], np.invert, name="invert"),
    Case(lambda x, y: (x & y) | ~x ^ y, [I, I_NZ], lambda x, y: (x & y) | ~x ^ y,
         name="int_bit_operators"),
    Case(tw.math.is_nan, [SPECIAL], np.isnan, name="is_nan"),
    Case(tw.math.is_inf, [SPECIAL], np.isinf, name="is_inf"),
    Case(tw.math.is_finite, [SPECIAL.astype(np.float32)], np.isfinite, name="is_finite_f32"),
    # ----- selection
    Case(tw.where, [BOOL_A, A, B], np.where, name="where"),
    Case(tw.where, [BOOL_A[0], A, ROW], np.where, name="where_broadcast"),
    Case(lambda x, y: tw.where(x > y, x, y), [A.astype(np.float32), B.astype(np.float32)],
         np.maximum, name="where_f32"),
    # ----- scans
    Case(tw.cumsum, [A], lambda x: np.cumsum(x, 0), name="cumsum"),
    Case(lambda x: tw.cumsum(x, axis=1, exclusive=True), [A],
         lambda x: np.cumsum(x, 1) - x, name="cumsum_exclusive"),
    Case(lambda x: tw.cumsum(x, axis=-1, reverse=True), [A],
         lambda x: np.cumsum(x[:, ::-1], 1)[:, ::-1], name="cumsum_reverse"),
    Case(lambda x: tw.math.cumsum(x, axis=1, exclusive=True, reverse=True), [A],
         lambda x: np.cumsum(x[:, ::-1], 1)[:, ::-1] - x, name="cumsum_exclusive_reverse"),
    Case(lambda x: tw.cumsum(x, axis=1), [I], lambda x: np.cumsum(x, 1, dtype=np.int32),
         name="cumsum_i32"),
    Case(lambda x: tw.math.cumprod(x, axis=1), [NZ], lambda x: np.cumprod(x, 1),
         name="cumprod"),
    Case(lambda x: tw.math.cumprod(x, axis=0, exclusive=True), [NZ],
         lambda x: np.concatenate([np.ones((1, 4)), np.cumprod(x, 0)[:-1]]),
         name="cumprod_exclusive"),
    Case(lambda x: tw.math.cumprod(x, axis=1, reverse=True), [NZ.astype(np.float32)],
         lambda x: np.cumprod(x[:, ::-1], 1)[:, ::-1], name="cumprod_reverse_f32",
         rtol=1e-5),
    Case(lambda x: tw.math.cumprod(x, axis=1, exclusive=True, reverse=True), [NZ],
         lambda x: np.cumprod(x[:, ::-1], 1)[:, ::-1] / x, name="cumprod_exclusive_reverse"),
    # ----- clipping
    Case(lambda x: tw.clip_by_value(x, -0.5, 0.7), [_off_grid() / 3],
         lambda x: np.clip(x, -0.5, 0.7), name="clip_by_value"),
    Case(tw.clip_by_value, [A, _u(-1.0, -0.1, (4,)), _u(0.1, 1.0, (4,))],
         lambda t, lo, hi: np.clip(t, lo, hi), name="clip_by_value_tensors"),
    Case(lambda x: tw.clip_by_value(x, -3, 4), [I], lambda x: np.clip(x, -3, 4),
         name="clip_by_value_i32"),
    Case(lambda x: tw.clip_by_norm(x, 1.0), [A],
         lambda x: x / max(np.sqrt((x ** 2).sum()), 1.0), name="clip_by_norm_active"),
    Case(lambda x: tw.clip_by_norm(x, 100.0), [A], lambda x: x, name="clip_by_norm_inactive"),
    Case(lambda x: tw.clip_by_norm(x, 1.2, axes=[1]), [A],
         lambda x: x * 1.2 / np.maximum(np.sqrt((x ** 2).sum(1, keepdims=True)), 1.2),
         name="clip_by_norm_axes"),
    Case(lambda x, y: tw.clip_by_global_norm([x, y], 1.5)[0], [A, ROW],
         lambda x, y: [v * 1.5 / max(np.sqrt((x ** 2).sum() + (y ** 2).sum()), 1.5)
                       for v in (x, y)], name="clip_by_global_norm"),
]

# Where's output length depends on the data, which the registry check's static-shape rule
# cannot accept; its own tests check it.
COVERED_ELSEWHERE = {
    "Where": "tests/ops/test_math_errors.py::test_where_coordinates",
}
