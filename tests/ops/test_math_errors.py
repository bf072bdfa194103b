"""Dtype rules, error messages and special cases of the elementwise math ops."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.ops import math_ops

F32 = tw.constant([1.0, 2.0])
I32 = tw.constant([1, 2])

BINARY = [tw.add, tw.subtract, tw.multiply, tw.maximum, tw.minimum, tw.pow, tw.math.floordiv,
          tw.math.floormod, tw.equal, tw.not_equal, tw.less, tw.less_equal, tw.greater,
          tw.greater_equal, tw.math.squared_difference, tw.math.divide_no_nan]


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
def test_dtype_mismatch_names_op_and_dtypes(fn):
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        fn(F32, I32)
    msg = str(e.value)
    assert "float32" in msg and "int32" in msg and "[Op:" in msg


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
def test_dtype_mismatch_in_graph(fn):
    with tw.Graph().as_default():
        with pytest.raises(tw.errors.InvalidArgumentError) as e:
            fn(tw.constant([1.0, 2.0]), tw.constant([1, 2]))
    msg = str(e.value)
    assert "float32" in msg and "int32" in msg and "[Op:" in msg


@pytest.mark.parametrize("fn,op", [(tw.add, "AddV2"), (tw.multiply, "Mul"),
                                   (tw.maximum, "Maximum"), (tw.less, "Less"),
                                   (tw.math.floormod, "FloorMod"), (tw.truediv, "RealDiv")])
def test_shape_mismatch_names_op_and_shapes(fn, op):
    x = tw.constant(np.ones((2, 3), np.float32))
    y = tw.constant(np.ones((3, 2), np.float32))
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        fn(x, y)
    msg = str(e.value)
    assert f"[Op:{op}]" in msg and "[2,3]" in msg and "[3,2]" in msg
    with tw.Graph().as_default():
        with pytest.raises(tw.errors.InvalidArgumentError) as e:
            fn(tw.constant(np.ones((2, 3), np.float32)), tw.constant(np.ones((3, 2), np.float32)))
    assert op in str(e.value) and "[2,3]" in str(e.value)


@pytest.mark.parametrize("fn,op", [(tw.sqrt, "Sqrt"), (tw.exp, "Exp"), (tw.math.log, "Log"),
                                   (tw.sigmoid, "Sigmoid"), (tw.math.erf, "Erf"),
                                   (tw.sin, "Sin"), (tw.math.floor, "Floor"),
                                   (tw.math.is_nan, "IsNan")])
def test_float_ops_reject_integers(fn, op):
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        fn(I32)
    assert f"[Op:{op}]" in str(e.value) and "int32" in str(e.value)
    with tw.Graph().as_default():
        with pytest.raises(tw.errors.InvalidArgumentError):
            fn(tw.constant([1, 2]))


def test_logic_and_bit_ops_check_dtypes():
    with pytest.raises(tw.errors.InvalidArgumentError, match="LogicalAnd"):
        tw.logical_and(I32, I32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="LogicalNot"):
        tw.logical_not(F32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="BitwiseAnd"):
        tw.bitwise_and(F32, F32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="Invert"):
        tw.invert(tw.constant([True]))
    with pytest.raises(tw.errors.InvalidArgumentError):
        tw.math.logical_xor(I32, I32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="Neg"):
        tw.negative(tw.constant([True]))


def test_int_division_gives_float():
    out = tw.constant([1, 2, 3]) / tw.constant([2, 2, 2])
    assert out.dtype is tw.float64
    np.testing.assert_allclose(out.numpy(), [0.5, 1.0, 1.5])
    assert (tw.constant([1, 2], tw.int64) / 2).dtype is tw.float64
    assert (tw.constant([1, 2], tw.int16) / 2).dtype is tw.float32
    assert (tw.constant([1, 2], tw.uint8) / 2).dtype is tw.float32
    assert (tw.constant([1.0], tw.float16) / 2).dtype is tw.float16
    assert (7 / tw.constant(2)).dtype is tw.float64


def test_truediv_mixed_dtypes():
    with pytest.raises(tw.errors.InvalidArgumentError, match="RealDiv") as e:
        tw.truediv(F32, I32)
    assert "float32" in str(e.value) and "int32" in str(e.value)
    with pytest.raises(tw.errors.InvalidArgumentError, match="int32.*int64"):
        tw.constant([1], tw.int32) / tw.constant([1], tw.int64)
    with pytest.raises(tw.errors.InvalidArgumentError, match="bool"):
        tw.truediv(tw.constant([True]), tw.constant([False]))


def test_floordiv_and_floormod_follow_python():
    x = tw.constant([7, -7, 7, -7])
    y = tw.constant([2, 2, -2, -2])
    assert (x // y).numpy().tolist() == [3, -4, -4, 3]
    assert (x % y).numpy().tolist() == [1, 1, -1, -1]
    assert (x // y).dtype is tw.int32
    xf = tw.constant([7.5, -7.5])
    np.testing.assert_allclose((xf % 2.0).numpy(), [1.5, 0.5])
    np.testing.assert_allclose((xf // 2.0).numpy(), [3.0, -4.0])
    assert tw.truncatediv(tw.constant([-7]), tw.constant([2])).numpy().tolist() == [-3]
    assert tw.truncatemod(tw.constant([-7]), tw.constant([2])).numpy().tolist() == [-1]


def test_integer_division_by_zero_raises():
    for fn in (tw.math.floordiv, tw.math.floormod, tw.truncatediv, tw.truncatemod):
        with pytest.raises(tw.errors.InvalidArgumentError, match="division by zero"):
            fn(tw.constant([1, 2]), tw.constant([1, 0]))


def test_float_edge_values_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tw.math.log(tw.constant(0.0)).numpy() == -np.inf
        assert (tw.constant(1.0) / 0.0).numpy() == np.inf
        assert np.isnan(tw.sqrt(tw.constant(-1.0)).numpy())
        assert tw.exp(tw.constant(1000.0)).numpy() == np.inf
        assert tw.math.divide_no_nan(tw.constant(1.0), 0.0).numpy() == 0.0
        assert tw.sigmoid(tw.constant(-1000.0)).numpy() == 0.0
        assert tw.sigmoid(tw.constant(1000.0)).numpy() == 1.0
        assert tw.sigmoid(tw.constant(-100.0, tw.float64)).numpy() == pytest.approx(
            math.exp(-100.0), rel=1e-12)
        assert np.isfinite(tw.math.log_sigmoid(tw.constant(-1000.0)).numpy())


def test_python_scalars_adopt_tensor_dtype():
    assert (tw.constant([1, 2], tw.int64) + 1).dtype is tw.int64
    assert (tw.constant([1.0], tw.float64) * 2).dtype is tw.float64
    assert (2 * tw.constant([1.0], tw.float16)).dtype is tw.float16
    assert (1 - tw.constant([1], tw.int8)).dtype is tw.int8
    assert (tw.constant([1.0], tw.float64) ** 2).dtype is tw.float64
    assert tw.maximum(tw.constant([1.0], tw.float64), 0).dtype is tw.float64
    assert tw.where(tw.constant([True]), tw.constant([1.0], tw.float64), 0).dtype is tw.float64


def test_int_tensor_plus_float_scalar_raises():
    # TensorFlow refuses to convert 1.5 to int32 rather than promoting
    with pytest.raises((TypeError, tw.errors.InvalidArgumentError)):
        tw.constant(1) + 1.5
    with pytest.raises((TypeError, tw.errors.InvalidArgumentError)):
        tw.multiply(tw.constant([1, 2]), 0.5)


def test_comparisons_give_bool():
    x = tw.constant([1.0, 2.0, 3.0])
    assert (x > 2).dtype is tw.bool
    assert (x == tw.constant([1.0, 0.0, 3.0])).numpy().tolist() == [True, False, True]
    assert (x != 2.0).numpy().tolist() == [True, False, True]
    assert tw.equal(tw.constant(["a", "b"]), tw.constant(["a", "c"])).numpy().tolist() == \
        [True, False]


def test_where_coordinates():
    cond = np.array([[True, False, True], [False, False, True]])
    out = tw.where(tw.constant(cond))
    assert out.dtype is tw.int64
    np.testing.assert_array_equal(out.numpy(), np.argwhere(cond))
    with tw.Graph().as_default():
        ph_out = tw.where(tw.constant(cond))
        assert ph_out.shape.as_list() == [None, 2]
        assert ph_out.dtype is tw.int64
    np.testing.assert_array_equal(run_graph([ph_out], {})[0], np.argwhere(cond))
    assert tw.where(tw.constant(False)).shape == (0, 0)


def test_where_argument_errors():
    with pytest.raises(ValueError, match="both"):
        tw.where(tw.constant([True]), tw.constant([1.0]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="bool"):
        tw.where(tw.constant([1]), tw.constant([1.0]), tw.constant([2.0]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="float32.*int32"):
        tw.where(tw.constant([True]), tw.constant([1.0]), tw.constant([2]))


def test_abs_of_complex_is_real():
    z = tw.complex(tw.constant([3.0]), tw.constant([4.0]))
    assert z.dtype is tw.complex64
    out = tw.abs(z)
    assert out.dtype is tw.float32 and out.numpy().tolist() == [5.0]
    assert tw.math.real(z).dtype is tw.float32
    assert tw.math.imag(tw.constant([1.0])).numpy().tolist() == [0.0]
    assert tw.math.conj(F32) is F32


def test_round_is_bankers():
    x = tw.constant([0.5, 1.5, 2.5, -0.5, -2.5, 2.6])
    assert tw.math.round(x).numpy().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 3.0]
    assert tw.math.round(I32) is I32


def test_erf_is_accurate():
    xs = np.array([-3.0, -0.5, 0.0, 1e-8, 0.7, 2.5, 6.0])
    got = tw.math.erf(tw.constant(xs)).numpy()
    np.testing.assert_allclose(got, [math.erf(v) for v in xs], rtol=1e-14, atol=0)
    np.testing.assert_allclose(tw.math.erfc(tw.constant(xs)).numpy(),
                               [math.erfc(v) for v in xs], rtol=1e-14, atol=0)


def test_erf_without_scipy(monkeypatch):
    monkeypatch.setattr(math_ops, "_ERF_IMPL", (np.frompyfunc(math.erf, 1, 1),
                                                np.frompyfunc(math.erfc, 1, 1)))
    out = tw.math.erf(tw.constant([0.5, -1.0], tw.float32))
    assert out.dtype is tw.float32
    np.testing.assert_allclose(out.numpy(), [math.erf(0.5), math.erf(-1.0)], rtol=1e-7)
    assert tw.math.erfc(tw.constant(0.0, tw.float64)).numpy() == 1.0


def test_cumsum_bad_axis():
    with pytest.raises(tw.errors.InvalidArgumentError, match="Cumsum"):
        tw.cumsum(tw.constant([[1.0, 2.0]]), axis=2)


def test_second_order_gradients():
    x = tw.constant(2.0, tw.float64)
    with tw.GradientTape() as t2:
        t2.watch(x)
        with tw.GradientTape() as t1:
            t1.watch(x)
            y = x ** 3
        dy = t1.gradient(y, x)
    assert float(dy) == pytest.approx(12.0)
    assert float(t2.gradient(dy, x)) == pytest.approx(12.0)
    for fn, d2 in [(tw.tanh, lambda v: -2 * np.tanh(v) * (1 - np.tanh(v) ** 2)),
                   (tw.sigmoid, lambda v: (s := 1 / (1 + np.exp(-v))) * (1 - s) * (1 - 2 * s)),
                   (tw.math.erf, lambda v: -4 * v / np.sqrt(np.pi) * np.exp(-v * v)),
                   (tw.sqrt, lambda v: -0.25 * v ** -1.5)]:
        v = tw.constant(0.7, tw.float64)
        with tw.GradientTape() as t2:
            t2.watch(v)
            with tw.GradientTape() as t1:
                t1.watch(v)
                y = fn(v)
            g = t1.gradient(y, v)
        assert float(t2.gradient(g, v)) == pytest.approx(d2(0.7), rel=1e-10)


def test_maximum_tie_goes_to_x():
    x = tw.constant([1.0, 2.0])
    y = tw.constant([1.0, 3.0])
    with tw.GradientTape(persistent=True) as t:
        t.watch([x, y])
        mx = tw.maximum(x, y)
        mn = tw.minimum(x, y)
    assert t.gradient(mx, x).numpy().tolist() == [1.0, 0.0]
    assert t.gradient(mx, y).numpy().tolist() == [0.0, 1.0]
    assert t.gradient(mn, x).numpy().tolist() == [1.0, 1.0]


def test_clip_by_value_gradient_at_bounds():
    x = tw.constant([-2.0, -1.0, 0.0, 1.0, 2.0])
    with tw.GradientTape() as t:
        t.watch(x)
        y = tw.clip_by_value(x, -1.0, 1.0)
    np.testing.assert_array_equal(y.numpy(), [-1.0, -1.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), [0.0, 1.0, 1.0, 1.0, 0.0])


def test_non_differentiable_ops_give_no_gradient():
    x = tw.constant([0.3, 1.7])
    for fn in (tw.math.floor, tw.math.ceil, tw.math.round):
        with tw.GradientTape() as t:
            t.watch(x)
            y = fn(x)
        assert t.gradient(y, x) is None
    # TensorFlow 2.21 gives zeros (not None) for tf.sign
    with tw.GradientTape() as t:
        t.watch(x)
        y = tw.sign(x)
    assert t.gradient(y, x).numpy().tolist() == [0.0, 0.0]


def test_clip_by_norm_of_zeros_has_finite_gradient():
    x = tw.constant([0.0, 0.0])
    with tw.GradientTape() as t:
        t.watch(x)
        y = tw.clip_by_norm(x, 1.0)
    assert np.isfinite(t.gradient(y, x).numpy()).all()


def test_clip_by_global_norm_returns_norm():
    a, b = tw.constant([3.0]), tw.constant([4.0])
    clipped, norm = tw.clip_by_global_norm([a, None, b], 1.0)
    assert float(norm) == pytest.approx(5.0)
    assert clipped[1] is None
    np.testing.assert_allclose([float(clipped[0][0]), float(clipped[2][0])], [0.6, 0.8],
                               rtol=1e-6)


def test_math_namespace():
    for name in ("is_nan", "is_inf", "is_finite", "divide_no_nan", "log_sigmoid", "cumprod",
                 "floormod", "mod", "reduce_sum", "add", "erf", "squared_difference"):
        assert hasattr(tw.math, name), name
