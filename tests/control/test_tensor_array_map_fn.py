"""tw.TensorArray, tw.map_fn, tw.scan, tw.foldl, tw.foldr: eager, graph, gradients."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw

from .helpers import check_grad, in_graph, op_types, second_order


def _ta_program(x):
    ta = tw.TensorArray(tw.float32, size=0, dynamic_size=True, element_shape=[2])

    def body(i, ta):
        return i + 1, ta.write(i, x[i] * tw.cast(i + 1, tw.float32))
    _, ta = tw.while_loop(lambda i, ta: i < tw.shape(x)[0], body, [0, ta])
    other = tw.TensorArray(tw.float32, size=3).unstack(x)
    return ta.stack(), ta.size(), other.read(1), other.concat(), ta.element_shape


def test_tensor_array_eager_and_graph_agree():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    eager = _ta_program(tw.constant(a))
    (stack, size, read, concat), g = in_graph(lambda x: _ta_program(x)[:4], a,
                                              shapes=[[None, 2]])
    np.testing.assert_allclose(stack, a * np.array([[1], [2], [3]]))
    np.testing.assert_allclose(eager[0].numpy(), stack)
    assert int(size) == 3 == int(eager[1])
    np.testing.assert_allclose(read, a[1])
    np.testing.assert_allclose(concat, a.reshape(-1))
    assert eager[4] == tw.TensorShape([2])
    assert "TensorListSetItem" not in op_types(g)  # the write is inside the While body


def test_tensor_array_errors():
    ta = tw.TensorArray(tw.float32, size=2)
    # Eagerly TensorFlow 2.21 raises OutOfRangeError for both
    with pytest.raises(tw.errors.OutOfRangeError, match="not resizeable"):
        ta.write(5, 1.0)
    with pytest.raises(tw.errors.OutOfRangeError, match="size is: 2"):
        ta.read(3)
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        tw.TensorArray(tw.float32, size=2, element_shape=[3]).write(0, [1.0, 2.0])


def test_tensor_array_gradient_in_loop():
    def f(x):
        ta = tw.TensorArray(tw.float64, size=tw.shape(x)[0])
        _, ta = tw.while_loop(lambda i, ta: i < tw.shape(x)[0],
                              lambda i, ta: (i + 1, ta.write(i, x[i] * x[i])), [0, ta])
        return tw.reduce_sum(ta.stack() * tw.constant([1.0, 2.0, 3.0], tw.float64))
    check_grad(f, np.array([1.0, -2.0, 0.5]))


def test_tensor_array_concat_gradient():
    # The gradient of TensorListConcat is TensorListSplitLike (no registry case of its own).
    def f(x):
        ta = tw.TensorArray(tw.float64, size=3).unstack(x)
        return tw.reduce_sum(ta.concat() * tw.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                                                       tw.float64))
    g = check_grad(f, np.arange(6.0).reshape(3, 2))
    np.testing.assert_allclose(g, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def test_map_fn_values_and_signature():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)

    def f(x):
        return tw.map_fn(lambda r: tw.reduce_sum(r), x), \
            tw.map_fn(lambda r: tw.cast(r[0], tw.int32), x, fn_output_signature=tw.int32), \
            tw.map_fn(lambda r: (r[0], r * 2.0), x,
                      fn_output_signature=(tw.float32, tw.TensorSpec([2], tw.float32)))
    eager = f(tw.constant(a))
    got, g = in_graph(f, a, shapes=[[None, 2]])
    np.testing.assert_allclose(got[0], a.sum(1))
    np.testing.assert_array_equal(got[1], [0, 2, 4])
    np.testing.assert_allclose(got[2][1], a * 2)
    np.testing.assert_allclose(eager[0].numpy(), got[0])
    assert eager[1].dtype == tw.int32
    assert op_types(g).count("StatelessWhile") == 3


def test_map_fn_wrong_signature_explains():
    with pytest.raises(TypeError, match="fn_output_signature"):
        in_graph(lambda x: tw.map_fn(lambda r: tw.cast(r, tw.int32), x),
                 np.ones((2, 2), np.float32))


def test_scan_fold_values():
    a = np.arange(1, 5, dtype=np.float32)

    def f(x):
        return (tw.scan(lambda acc, r: acc + r, x), tw.scan(lambda acc, r: acc * r, x,
                                                            initializer=tw.constant(2.0)),
                tw.scan(lambda acc, r: acc + r, x, reverse=True),
                tw.foldl(lambda acc, r: acc - r, x), tw.foldr(lambda acc, r: acc - r, x),
                tw.foldl(lambda acc, r: (acc[0] + r, acc[1] * r), x,
                         initializer=(tw.constant(0.0), tw.constant(1.0))))
    eager = f(tw.constant(a))
    got, _ = in_graph(f, a, shapes=[[None]])
    np.testing.assert_allclose(got[0], np.cumsum(a))
    np.testing.assert_allclose(got[1], 2 * np.cumprod(a))
    np.testing.assert_allclose(got[2], np.cumsum(a[::-1])[::-1])
    assert float(got[3]) == 1 - 2 - 3 - 4 and float(got[4]) == 4 - 3 - 2 - 1
    assert float(got[5][0]) == 10 and float(got[5][1]) == 24
    for e, g_ in zip(tw.nest.flatten(eager), tw.nest.flatten(got)):
        np.testing.assert_allclose(e.numpy(), g_)


def test_map_fn_scan_gradients():
    def m(x):
        return tw.reduce_sum(tw.map_fn(lambda r: tw.reduce_sum(r * r) * r, x))
    check_grad(m, np.arange(6, dtype=np.float64).reshape(3, 2) / 4)

    def s(x):
        return tw.reduce_sum(tw.scan(lambda acc, r: acc * r + 1.0, x))
    check_grad(s, np.array([[0.5, 1.0], [1.5, -1.0], [2.0, 0.3]]))

    def fl(x):
        return tw.foldl(lambda acc, r: acc * r, x, initializer=tw.constant(1.0, tw.float64))
    check_grad(fl, np.array([0.5, 2.0, -1.5]))


def test_map_fn_and_scan_second_order_both_modes():
    m = second_order(lambda x: tw.map_fn(lambda r: r * r * r, x))
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(m(tw.constant(a)).numpy(), 6 * a)
    np.testing.assert_allclose(in_graph(m, a)[0], 6 * a)
    s = second_order(lambda x: tw.scan(lambda acc, r: acc * r, x))
    b = np.array([1.5, 2.0, 0.5])
    # y = x1 + x1 x2 + x1 x2 x3; g = sum_k dy/dx_k; dg/dx = (1 + x2 + x3, 1 + x1 + x3, x1 + x2)
    want = [1 + 2.0 + 0.5, 1 + 1.5 + 0.5, 1.5 + 2.0]
    np.testing.assert_allclose(s(tw.constant(b)).numpy(), want)
    np.testing.assert_allclose(in_graph(s, b)[0], want)


@pytest.mark.parametrize("traced", [False, True])
def test_back_prop_false_holds_the_results_constant(traced):
    x = tw.Variable(2.0)
    rows = tw.constant([1.0, 2.0])

    def grads():
        with tw.GradientTape(persistent=True) as tape:
            outs = [tw.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x),
                                  (0, tw.constant(1.0)), back_prop=False)[1],
                    tw.map_fn(lambda r: r * x, rows, back_prop=False),
                    tw.scan(lambda a, r: a + r * x, rows, back_prop=False),
                    tw.foldl(lambda a, r: a + r * x, rows, back_prop=False),
                    tw.map_fn(lambda r: r * x, rows)]
        return [tape.gradient(o, x) for o in outs]
    got = tw.function(grads)() if traced else grads()
    assert got[:4] == [None] * 4
    assert float(got[4]) == 3.0


def test_a_tf1_handle_is_refused():
    with pytest.raises(NotImplementedError, match="handle"):
        tw.TensorArray(tw.float32, size=2, handle=tw.constant(0))
