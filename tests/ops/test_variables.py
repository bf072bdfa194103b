"""tw.Variable: construction, assignment, reading, operators, gradients and graph ops."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph


def test_repr_scalar():
    v = tw.Variable(2.0)
    assert repr(v) == "<tw.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>"


def test_repr_array_and_name():
    v = tw.Variable([[1, 2], [3, 4]], name="w")
    assert v.name == "w:0"
    assert repr(v) == ("<tw.Variable 'w:0' shape=(2, 2) dtype=int32, numpy=\n"
                       "array([[1, 2],\n       [3, 4]], dtype=int32)>")


def test_dtype_shape_defaults():
    assert tw.Variable(1.0).dtype == tw.float32
    assert tw.Variable(1).dtype == tw.int32
    assert tw.Variable(np.float64(1.0)).dtype == tw.float64
    assert tw.Variable([1.0, 2.0], dtype=tw.float64).dtype == tw.float64
    v = tw.Variable(np.zeros((2, 3), np.float32))
    assert v.shape == (2, 3) and v.ndim == 2 and v.get_shape() == tw.TensorShape([2, 3])


def test_initial_value_callable_and_tensor():
    assert float(tw.Variable(lambda: tw.constant(4.0))) == 4.0
    t = tw.constant([1.0, 2.0])
    v = tw.Variable(t)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_initial_value_required():
    with pytest.raises(ValueError):
        tw.Variable()


def test_trainable_flag():
    assert tw.Variable(1.0).trainable
    assert not tw.Variable(1.0, trainable=False).trainable


def test_assign_family_returns_variable():
    v = tw.Variable(1.0)
    assert v.assign(5.0) is v
    assert float(v) == 5.0
    v.assign_add(2.0)
    assert float(v) == 7.0
    v.assign_sub(10.0)
    assert float(v) == -3.0
    v.assign(tw.constant(8.0))
    assert v.numpy() == 8.0


def test_read_value_is_a_snapshot():
    v = tw.Variable([1.0, 2.0])
    before = v.read_value()
    v.assign([3.0, 4.0])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.read_value().numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(v.value().numpy(), [3.0, 4.0])


def test_numpy_is_a_copy():
    v = tw.Variable([1.0, 2.0])
    a = v.numpy()
    a[0] = 99.0
    assert v.numpy()[0] == 1.0


def test_assign_shape_mismatch_raises_and_keeps_value():
    v = tw.Variable([1.0, 2.0])
    with pytest.raises(tw.errors.InvalidArgumentError, match="shape"):
        v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_assign_dtype_mismatch_raises():
    v = tw.Variable([1.0, 2.0])
    with pytest.raises((tw.errors.InvalidArgumentError, TypeError, ValueError)):
        v.assign(tw.constant([1, 2]))
    i = tw.Variable(1)
    with pytest.raises(TypeError):
        i.assign(1.5)


def test_unvalidated_shape_may_change():
    v = tw.Variable([1.0], shape=tw.TensorShape(None))
    v.assign([1.0, 2.0, 3.0])
    assert v.shape == (3,)


def test_operators():
    v = tw.Variable(3.0)
    assert float(v + 1.0) == 4.0
    assert float(1.0 + v) == 4.0
    assert float(v * v) == 9.0
    assert float(v - 1.0) == 2.0
    assert float(-v) == -3.0
    assert float(v / 2.0) == 1.5
    assert float(v ** 2) == 9.0
    assert bool(v > 2.0) and not bool(v < 2.0)
    m = tw.Variable([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal((m @ m).numpy(), [[7.0, 10.0], [15.0, 22.0]])
    np.testing.assert_array_equal(m[1].numpy(), [3.0, 4.0])
    assert len(m) == 2
    assert [r.numpy().tolist() for r in m] == [[1.0, 2.0], [3.0, 4.0]]


def test_conversions_and_numpy_interop():
    v = tw.Variable([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])
    np.testing.assert_array_equal(np.multiply(v, 2.0), [2.0, 4.0])
    t = tw.convert_to_tensor(v)
    assert isinstance(t, tw.Tensor) and t.dtype == tw.float32
    assert int(tw.Variable(3)) == 3
    assert f"{tw.Variable(2.5):.1f}" == "2.5"


def test_unhashable_but_ref():
    v = tw.Variable(1.0)
    with pytest.raises(TypeError):
        hash(v)
    d = {v.ref(): 1}
    assert v.ref() in d and v.ref().deref() is v


def test_deepcopy():
    v = tw.Variable([1.0, 2.0])
    w = copy.deepcopy(v)
    w.assign([5.0, 6.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_gradient_via_tape():
    w = tw.Variable([[1.0]])
    with tw.GradientTape() as tape:
        loss = w * w
    grad = tape.gradient(loss, w)
    assert str(grad) == "tw.Tensor([[2.]], shape=(1, 1), dtype=float32)"


def test_gradient_after_assign_uses_new_value():
    v = tw.Variable(1.0)
    v.assign(4.0)
    with tw.GradientTape() as tape:
        y = v * v
    assert float(tape.gradient(y, v)) == 8.0


def test_read_and_assign_ops_in_graph():
    v = tw.Variable(1.0)
    g = tw.Graph()
    with g.as_default():
        r = v.read_value()
        new = v.assign_add(2.0)
        assert not isinstance(new, tw.Variable)
        assert "tw.Variable 'Variable:0' shape=() dtype=float32>" in repr(v)
    types = [op.type for op in g.get_operations()]
    assert "ReadVariableOp" in types and "AssignAddVariableOp" in types
    assert float(v) == 1.0                    # building the graph changed nothing
    got = run_graph([new], {})
    assert float(got[0]) == 3.0 and float(v) == 3.0
    run_graph([new], {})
    assert float(v) == 5.0
    assert float(run_graph([r], {})[0]) == 5.0


def test_assign_op_in_graph():
    v = tw.Variable([0.0, 0.0])
    g = tw.Graph()
    with g.as_default():
        a = v.assign([1.0, 2.0], read_value=False)
        assign_op = [op for op in g.get_operations() if op.type == "AssignVariableOp"][0]
    assert a is None
    run_graph([assign_op], {})
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_numpy_in_graph_raises():
    v = tw.Variable(1.0)
    g = tw.Graph()
    with g.as_default():
        with pytest.raises(NotImplementedError):
            v.numpy()


def test_variable_created_in_graph_is_tracked():
    g = tw.Graph()
    with g.as_default():
        v = tw.Variable(2.0)
    assert v in g.variables if False else any(x is v for x in g.variables)
    assert v.graph is g
