"""Bad input to reductions and linear algebra: errors name the op and the offending values."""
import numpy as np
import pytest

import twinflow as tw
from twinflow.eager.execute import bind
from twinflow.graph.core_ops import Placeholder

X = tw.constant(np.arange(6.0).reshape(2, 3))


def _placeholder(dtype, shape):
    return bind(Placeholder, [], {"dtype": dtype, "shape": tw.TensorShape(shape)})


@pytest.mark.parametrize("fn,op", [(tw.reduce_sum, "Sum"), (tw.reduce_mean, "Mean"),
                                   (tw.reduce_max, "Max"), (tw.reduce_min, "Min"),
                                   (tw.reduce_prod, "Prod"), (tw.reduce_logsumexp,
                                                              "ReduceLogSumExp")])
@pytest.mark.parametrize("axis", [2, -3, [0, 5]])
def test_bad_axis_names_op_axis_and_rank(fn, op, axis):
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        fn(X, axis=axis)
    msg = str(e.value)
    assert f"[Op:{op}]" in msg
    assert "2 dimensions" in msg
    bad = axis if isinstance(axis, int) else 5
    assert str(bad) in msg


def test_bad_axis_in_graph_mode():
    g = tw.Graph()
    with g.as_default(), pytest.raises(tw.errors.InvalidArgumentError, match=r"\[Op:Sum\]"):
        tw.reduce_sum(_placeholder(tw.float32, [None, 3]), axis=2)


def test_bool_reductions_need_bool():
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"\[Op:Any\]"):
        tw.reduce_any(X)
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"\[Op:Sum\]"):
        tw.reduce_sum(tw.constant([True, False]))


def test_argmax_bad_axis():
    with pytest.raises(tw.errors.InvalidArgumentError,
                       match=r"axis 3 is out of range.*\[-2, 2\).*ArgMax"):
        tw.argmax(X, axis=3)
    with pytest.raises(tw.errors.InvalidArgumentError, match="ArgMin"):
        tw.argmin(tw.constant(1.0))


def test_argmax_defaults_match_tensorflow():
    out = tw.argmax(tw.constant([[1, 5], [7, 2]]))
    assert out.dtype is tw.int64
    assert out.numpy().tolist() == [1, 0]
    assert tw.math.argmax(X, axis=1, output_type=tw.int32).dtype is tw.int32


def test_integer_mean_truncates_toward_zero():
    x = tw.constant([[-7, 2], [3, 4], [-1, 0]])
    out = tw.reduce_mean(x, axis=1)
    assert out.dtype is tw.int32
    assert out.numpy().tolist() == [-2, 3, 0]


def test_kernels_keep_the_input_dtype():
    i32 = tw.constant([[1, 2], [3, 4]], dtype=tw.int32)
    for fn in (tw.reduce_sum, tw.reduce_prod, tw.reduce_max, tw.reduce_mean):
        assert fn(i32).dtype is tw.int32
        assert fn(i32, axis=0).dtype is tw.int32
    f16 = tw.constant([1.0, 2.0], dtype=tw.float16)
    assert tw.reduce_sum(f16).dtype is tw.float16
    assert tw.reduce_logsumexp(f16).dtype is tw.float16


def test_logsumexp_is_stable():
    big = tw.constant([1000.0, 1000.0], dtype=tw.float32)
    assert np.isclose(float(tw.reduce_logsumexp(big)), 1000.0 + np.log(2.0))
    neg = tw.constant([-np.inf, -np.inf])
    assert float(tw.reduce_logsumexp(neg)) == -np.inf


def test_max_gradient_splits_ties_equally():
    x = tw.constant([2.0, 5.0, 5.0, 5.0, 1.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_max(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0, 1 / 3, 1 / 3, 1 / 3, 0])


def test_prod_gradient_with_zeros():
    x = tw.constant([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0]])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_sum(tw.reduce_prod(x, axis=1))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[6.0, 0, 0], [0, 0, 0]])


def test_empty_reductions():
    e = tw.constant(np.zeros((0, 3), np.float32))
    assert tw.reduce_max(e, axis=0).numpy().tolist() == [-np.inf] * 3
    assert tw.reduce_sum(e, axis=0).numpy().tolist() == [0.0] * 3


def test_matmul_shape_mismatch_names_both_shapes_and_op():
    a, b = tw.constant(np.ones((2, 3))), tw.constant(np.ones((4, 5)))
    with pytest.raises(tw.errors.InvalidArgumentError) as e:
        tw.matmul(a, b)
    msg = str(e.value)
    assert "[2, 3]" in msg and "[4, 5]" in msg and "[Op:MatMul]" in msg
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"\[Op:MatMul\]"):
        tw.matmul(a, tw.constant(np.ones(3)))


def test_matmul_shape_mismatch_in_graph_mode():
    g = tw.Graph()
    with g.as_default(), pytest.raises(tw.errors.InvalidArgumentError, match=r"MatMul"):
        tw.matmul(_placeholder(tw.float32, [2, 3]), _placeholder(tw.float32, [4, 5]))


def test_mixed_dtypes_rejected():
    f32 = tw.constant(np.ones((2, 2), np.float32))
    f64 = tw.constant(np.ones((2, 2)))
    with pytest.raises(tw.errors.InvalidArgumentError, match="float32.*float64|MatMul"):
        tw.matmul(f32, f64)
    with pytest.raises(tw.errors.InvalidArgumentError, match="Einsum"):
        tw.einsum("ij,jk->ik", f32, f64)
    with pytest.raises(tw.errors.InvalidArgumentError):
        tw.tensordot(f32, f64, 1)


def test_einsum_bad_equations():
    a = tw.constant(np.ones((2, 3)))
    with pytest.raises(tw.errors.InvalidArgumentError, match="Einsum"):
        tw.einsum("ij,jk->ik", a)
    with pytest.raises(tw.errors.InvalidArgumentError, match="rank"):
        tw.einsum("ijk->i", a)
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"label 'j'.*\[Op:Einsum\]"):
        tw.einsum("ij,jk->ik", a, tw.constant(np.ones((4, 2))))
    with pytest.raises(tw.errors.InvalidArgumentError, match="output label"):
        tw.einsum("ij->iz", a)


def test_tensordot_mismatch():
    with pytest.raises(tw.errors.InvalidArgumentError, match="tensordot"):
        tw.tensordot(tw.constant(np.ones((2, 3))), tw.constant(np.ones((4, 2))), 1)


def test_matmul_fast_path_keeps_semantics():
    a = tw.constant(np.arange(4.0).reshape(2, 2))
    assert np.array_equal(tw.matmul(a, a).numpy(), a.numpy() @ a.numpy())
    # A tape must still see matmuls run while it records.
    with tw.GradientTape() as tape:
        tape.watch(a)
        y = tw.reduce_sum(tw.matmul(a, a))
    g = tape.gradient(y, a).numpy()
    ones = np.ones((2, 2))
    np.testing.assert_allclose(g, ones @ a.numpy().T + a.numpy().T @ ones)


def test_second_order_through_matmul():
    x = tw.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with tw.GradientTape() as outer:
        outer.watch(x)
        with tw.GradientTape() as inner:
            inner.watch(x)
            y = tw.reduce_sum(tw.matmul(x, x))
        g = inner.gradient(y, x)
        z = tw.reduce_sum(g * g)
    gg = outer.gradient(z, x).numpy()
    # g = 1 x^T + x^T 1; dz/dx by finite differences
    def f(v):
        o = np.ones((2, 2))
        gv = o @ v.T + v.T @ o
        return (gv * gv).sum()
    num = np.zeros((2, 2))
    for i in np.ndindex(2, 2):
        d = np.zeros((2, 2))
        d[i] = 1e-6
        num[i] = (f(x.numpy() + d) - f(x.numpy() - d)) / 2e-6
    np.testing.assert_allclose(gg, num, rtol=1e-5)


def test_norm_bad_ord_and_axis():
    with pytest.raises(ValueError, match="ord"):
        tw.norm(X, ord="nuc")
    with pytest.raises(ValueError, match="ord"):
        tw.norm(X, ord=-1)
    with pytest.raises(ValueError, match="axis"):
        tw.norm(X, axis=[0, 1, 1])
    with pytest.raises(tw.errors.InvalidArgumentError, match="dimensions"):
        tw.norm(X, axis=4)


def test_singular_matrix_raises():
    with pytest.raises(tw.errors.InvalidArgumentError, match="MatrixInverse"):
        tw.linalg.inv(tw.constant(np.zeros((2, 2))))
