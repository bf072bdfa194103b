"""tw.sets in tw.function graphs, strings, and errors in both modes."""
import numpy as np
import pytest

import twinflow as tw

from .cases_sets import A, B


def test_set_ops_in_a_function_match_eager():
    @tw.function
    def f(a, b):
        u = tw.sets.union(a, b)
        d = tw.sets.difference(a, b)
        return u.values, u.dense_shape, tw.sets.size(d), tw.sets.intersection(a, b).indices

    got = f(tw.constant(A), tw.constant(B))
    u = tw.sets.union(A, B)
    np.testing.assert_array_equal(got[0].numpy(), u.values.numpy())
    np.testing.assert_array_equal(got[1].numpy(), u.dense_shape.numpy())
    np.testing.assert_array_equal(got[2].numpy(), [[1, 0], [1, 2]])
    np.testing.assert_array_equal(got[3].numpy(), tw.sets.intersection(A, B).indices.numpy())


def test_strings_and_sparse_first_argument():
    r = tw.sets.intersection(tw.constant([["a", "b"]]), tw.constant([["b", "c"]]))
    assert r.values.numpy().tolist() == [b"b"]
    s = tw.SparseTensor([[0, 0], [0, 1], [1, 0]], tw.constant([3, 1, 2]), [2, 3])
    d = tw.sets.difference(s, tw.constant([[1], [0]]))  # sparse a, dense b: a - b still
    assert d.values.numpy().tolist() == [3, 2]


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_errors(mode):
    run = (lambda f: f()) if mode == "eager" else (lambda f: tw.function(f)())
    with pytest.raises(tw.errors.InvalidArgumentError, match="batch shapes differ"):
        run(lambda: tw.sets.union(tw.constant([[1, 2]]), tw.constant([[1], [2]])).values)
    with pytest.raises(tw.errors.InvalidArgumentError, match="rank >= 2"):
        run(lambda: tw.sets.union(tw.constant([1, 2]), tw.constant([1, 2])).values)
    with pytest.raises((TypeError, tw.errors.InvalidArgumentError)):
        run(lambda: tw.sets.union(tw.constant([[1.0]]), tw.constant([[1.0]])).values)
    with pytest.raises(TypeError, match="SparseTensor"):
        tw.sets.size(tw.constant([[1, 2]]))
