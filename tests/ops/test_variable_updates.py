"""Variable updates: ``v[key].assign``, ``v.scatter_*`` and ``v.scatter_nd_*``.

Each update op runs three ways against a NumPy reference: eagerly, inside ``tw.function``
(traced, optimized, compiled; called twice) and in a TF1-style graph run by ``compiler.run_graph``.
"""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph

START = np.arange(12, dtype=np.float32).reshape(4, 3) + 1.0
ROWS = np.array([2, 0], dtype=np.int32)
ROW_VALUES = np.array([[10.0, 20.0, 30.0], [2.0, 4.0, 8.0]], dtype=np.float32)
ND = np.array([[3, 1], [0, 2]], dtype=np.int32)
ND_VALUES = np.array([5.0, 100.0], dtype=np.float32)

ROW_UFUNCS = {"update": None, "add": np.add, "sub": np.subtract, "mul": np.multiply,
              "div": np.divide, "max": np.maximum, "min": np.minimum}
ND_UFUNCS = {"update": None, "add": np.add, "sub": np.subtract, "max": np.maximum,
             "min": np.minimum}


def _np_rows(kind, x):
    out = x.copy()
    if ROW_UFUNCS[kind] is None:
        out[ROWS] = ROW_VALUES
    else:
        ROW_UFUNCS[kind].at(out, ROWS, ROW_VALUES)
    return out


def _np_nd(kind, x):
    out = x.copy()
    idx = (ND[:, 0], ND[:, 1])
    if ND_UFUNCS[kind] is None:
        out[idx] = ND_VALUES
    else:
        ND_UFUNCS[kind].at(out, idx, ND_VALUES)
    return out


def _three_ways(update, reference, op_type):
    """Runs ``update(v)`` eagerly, in tw.function (twice) and in a graph."""
    v = tw.Variable(START)
    assert update(v) is v
    np.testing.assert_allclose(v.numpy(), reference(START))

    v = tw.Variable(START)

    @tw.function(autograph=False)
    def f():
        update(v)
        return v.read_value()
    np.testing.assert_allclose(f().numpy(), reference(START))
    np.testing.assert_allclose(f().numpy(), reference(reference(START)))
    assert op_type in [op.type for op in f.get_concrete_function().graph.get_operations()]

    v = tw.Variable(START)
    g = tw.Graph()
    with g.as_default():
        new = update(v)
        assert op_type in [op.type for op in g.get_operations()]
    np.testing.assert_array_equal(v.numpy(), START)   # building the graph changed nothing
    np.testing.assert_allclose(run_graph([new], {})[0], reference(START))
    np.testing.assert_allclose(v.numpy(), reference(START))


@pytest.mark.parametrize("kind", list(ROW_UFUNCS))
def test_scatter_rows(kind):
    delta = tw.IndexedSlices(tw.constant(ROW_VALUES), tw.constant(ROWS))
    _three_ways(lambda v: getattr(v, f"scatter_{kind}")(delta), lambda x: _np_rows(kind, x),
                f"ResourceScatter{kind.capitalize()}")


@pytest.mark.parametrize("kind", list(ND_UFUNCS))
def test_scatter_nd(kind):
    _three_ways(lambda v: getattr(v, f"scatter_nd_{kind}")(ND, ND_VALUES),
                lambda x: _np_nd(kind, x), f"ResourceScatterNd{kind.capitalize()}")


def _np_set(key, value):
    def ref(x):
        out = x.copy()
        out[key] = value
        return out
    return ref


@pytest.mark.parametrize("key, value", [
    (0, [7.0, 8.0, 9.0]),
    ((slice(1, 3),), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    ((slice(None), 1), [-1.0, -2.0, -3.0, -4.0]),
    ((slice(None, None, 2), slice(1, None)), 0.5),       # a scalar broadcasts
    ((Ellipsis, -1), [0.0, 0.0, 0.0, 0.0]),
    ((1, 2), 42.0),
], ids=["row", "rows", "column", "strided_broadcast", "ellipsis", "element"])
def test_sliced_assign(key, value):
    _three_ways(lambda v: v[key].assign(value), _np_set(key, value),
                "ResourceStridedSliceAssign")


def test_sliced_assign_vector_and_tensor_index():
    v = tw.Variable([1, 2, 3, 4])
    v[0].assign(5)
    v[tw.constant(1):3].assign(tw.constant([6, 7]))
    np.testing.assert_array_equal(v.numpy(), [5, 6, 7, 4])

    @tw.function
    def f(i):
        v[i].assign(v[i] * 10)
        return v.read_value()
    np.testing.assert_array_equal(f(tw.constant(3)).numpy(), [5, 6, 7, 40])
    np.testing.assert_array_equal(f(tw.constant(0)).numpy(), [50, 6, 7, 40])


def test_sliced_value_is_a_normal_tensor():
    v = tw.Variable(START)
    s = v[1]
    np.testing.assert_array_equal((s + 1).numpy(), START[1] + 1)
    np.testing.assert_array_equal(s[1:].numpy(), START[1, 1:])
    assert not hasattr(tw.constant(START)[1], "assign")
    with tw.GradientTape() as tape:
        y = tw.reduce_sum(v[1:3] * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(),
                                  [[0, 0, 0], [2, 2, 2], [2, 2, 2], [0, 0, 0]])


def test_sliced_assign_earlier_reads_keep_their_values():
    v = tw.Variable([1.0, 2.0])
    before = v.read_value()
    v[0].assign(9.0)
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [9.0, 2.0])


def test_update_errors():
    v = tw.Variable(START)
    with pytest.raises(tw.errors.InvalidArgumentError, match="does not match"):
        v[0].assign([1.0, 2.0])
    with pytest.raises(tw.errors.InvalidArgumentError, match="not in"):
        v.scatter_update(tw.IndexedSlices(tw.constant(ROW_VALUES), tw.constant([0, 9])))
    with pytest.raises(tw.errors.InvalidArgumentError):
        v.scatter_nd_add([[7, 0]], [1.0])
    with pytest.raises(TypeError):
        v.scatter_add((ROW_VALUES, ROWS))
    np.testing.assert_array_equal(v.numpy(), START)   # a failed update changes nothing


def test_scatter_converts_python_values_to_the_variable_dtype():
    v = tw.Variable([0, 0, 0])
    v.scatter_nd_add([[1], [1]], [2, 3])
    v.scatter_update(tw.IndexedSlices([9], [2]))
    np.testing.assert_array_equal(v.numpy(), [0, 5, 9])
    assert v.dtype == tw.int32


def test_sparse_read_and_gather_nd():
    v = tw.Variable(START)
    np.testing.assert_array_equal(v.sparse_read([3, 0]).numpy(), START[[3, 0]])
    np.testing.assert_array_equal(v.gather_nd([[1, 2]]).numpy(), [START[1, 2]])


def test_indexed_slices_container():
    s = tw.IndexedSlices(tw.constant([[1.0, 2.0]]), tw.constant([1]), tw.constant([2, 2]))
    assert s.dtype == tw.float32 and s.shape == tw.TensorShape([2, 2])
    np.testing.assert_array_equal(tw.convert_to_tensor(s).numpy(), [[0, 0], [1, 2]])
    with pytest.raises(ValueError):
        tw.convert_to_tensor(tw.IndexedSlices(tw.constant([1.0]), tw.constant([0])))


def test_sliced_value_is_a_tensor_argument_of_functions():
    v = tw.Variable(START)
    f = tw.function(lambda x: x * 2.0)
    f(tw.constant(START[0]))
    np.testing.assert_array_equal(f(v[1]).numpy(), START[1] * 2)   # keyed as a tensor:
    np.testing.assert_array_equal(f(v[2]).numpy(), START[2] * 2)   # no retracing
    assert f.experimental_get_tracing_count() == 1
