"""Arguments added to match TensorFlow 2.21's signatures: they do what TF's do."""
import numpy as np
import pytest

import twinflow as tw


@pytest.mark.parametrize("index_type", [tw.int16, tw.int32, tw.int64])
def test_top_k_index_type(index_type):
    x = tw.constant([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    for run in (lambda v: tw.math.top_k(v, 2, index_type=index_type),
                tw.function(lambda v: tw.nn.top_k(v, 2, index_type=index_type))):
        values, indices = run(x)
        assert indices.dtype == index_type
        np.testing.assert_array_equal(indices, [[0, 2], [1, 2]])
        np.testing.assert_array_equal(values, [[3.0, 2.0], [5.0, 4.0]])
    with pytest.raises(TypeError, match="index_type"):
        tw.math.top_k(x, index_type=tw.float32)


def test_l2_normalize_dim_is_axis():
    x = tw.constant([[3.0, 4.0], [6.0, 8.0]])
    np.testing.assert_allclose(tw.nn.l2_normalize(x, dim=1), tw.nn.l2_normalize(x, axis=1))
    np.testing.assert_allclose(tw.math.l2_normalize(x, dim=0), [[0.4472136, 0.4472136],
                                                                [0.8944272, 0.8944272]])
    with pytest.raises(ValueError, match="both"):
        tw.nn.l2_normalize(x, axis=0, dim=0)


def test_logical_xor_default_name_and_required_xent_arguments():
    g = tw.function(lambda a, b: tw.math.logical_xor(a, b)).get_concrete_function(
        tw.TensorSpec([2], tw.bool), tw.TensorSpec([2], tw.bool)).graph
    assert any(op.name == "LogicalXor" for op in g.get_operations())
    with pytest.raises(TypeError):
        tw.nn.sparse_softmax_cross_entropy_with_logits(labels=[0])


@pytest.mark.parametrize("fn", [tw.random.stateless_normal, tw.random.stateless_uniform,
                                tw.random.stateless_truncated_normal])
def test_stateless_samplers_check_alg(fn):
    base = fn([3], seed=[1, 2])
    for alg in ("philox", "THREEFRY", "auto_select", tw.random.Algorithm.PHILOX, 1):
        np.testing.assert_array_equal(fn([3], seed=[1, 2], alg=alg), base)  # PCG64 always
    with pytest.raises(ValueError, match="algorithm"):
        fn([3], seed=[1, 2], alg="mersenne")


def test_embedding_lookup_sparse_v2_arguments():
    params = tw.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ids = tw.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], tw.constant([0, 2, 1], tw.int64),
                                 [2, 2])
    mean = tw.nn.embedding_lookup_sparse(params, ids, None)  # combiner None: mean
    np.testing.assert_allclose(mean, [[3.0, 4.0], [3.0, 4.0]])
    total = tw.function(lambda p: tw.nn.embedding_lookup_sparse(p, ids, None, "sum",
                                                                name="emb"))(params)
    np.testing.assert_allclose(total, [[6.0, 8.0], [3.0, 4.0]])
