"""tw.sparse: each op against a NumPy reference, eagerly and in tw.function; gradients by
finite differences."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw
from tests.ops.composite_check import check, check_grad

IDX = [[0, 1], [2, 0], [2, 2]]
VALS = [1.0, -2.0, 3.0]
DENSE = np.array([[0, 1, 0], [0, 0, 0], [-2, 0, 3]], np.float32)


def sp(vals=VALS, idx=IDX, shape=(3, 3)):
    return tw.sparse.SparseTensor(idx, vals, shape)


def nz(d):
    """(indices, values, shape) of a dense NumPy array's non-zeros, row-major."""
    idx = np.argwhere(d != 0)
    return ("sparse", idx.tolist(), d[d != 0].tolist(), list(d.shape))


def test_construct_repr_and_spec():
    s = sp()
    assert s.shape.as_list() == [3, 3] and s.dtype is tw.float32
    assert s.indices.dtype is tw.int64 and s.dense_shape.dtype is tw.int64
    assert repr(s).startswith("SparseTensor(indices=tw.Tensor(")
    assert repr(s._type_spec) == "SparseTensorSpec(TensorShape([3, 3]), tw.float32)"
    assert tw.type_spec_from_value(s) == tw.SparseTensorSpec([3, 3], tw.float32)
    with pytest.raises(ValueError, match="2 indices but 3 values"):
        tw.sparse.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0, 3.0], [2, 2])


def test_dense_required_error_says_how_to_convert():
    with pytest.raises(TypeError, match=r"tw.sparse.to_dense\(x\)"):
        tw.matmul(sp(), tw.ones([3, 3]))
    with pytest.raises(TypeError, match="to_dense"):
        np.asarray(sp())


def test_from_dense_to_dense_roundtrip():
    check(lambda d: tw.sparse.from_dense(d), (tw.constant(DENSE),), nz(DENSE))
    check(lambda v: tw.sparse.to_dense(sp(v)), (tw.constant(VALS),), DENSE.tolist())
    want = np.where(DENSE != 0, DENSE, 7).tolist()
    check(lambda v: tw.sparse.to_dense(sp(v), default_value=7.0), (tw.constant(VALS),), want)
    check_grad(lambda v: tw.reduce_sum(tw.sparse.to_dense(sp(v)) * tw.constant(
        np.arange(9.0).reshape(3, 3))), np.array(VALS))


def test_to_indicator():
    ids = tw.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [2, 0, 3], [2, 2])
    want = [[True, False, True, False], [False, False, False, True]]
    check(lambda: tw.sparse.to_indicator(ids, 4), (), want)


def test_add_sparse_sparse_and_dense():
    other = tw.sparse.SparseTensor([[0, 1], [1, 1]], [5.0, 4.0], [3, 3])
    d2 = DENSE.copy()
    d2[0, 1] += 5
    d2[1, 1] += 4
    check(lambda: tw.sparse.add(sp(), other), (), nz(d2))
    check(lambda: tw.sparse.add(sp(), tw.ones([3, 3])), (), (DENSE + 1).tolist())
    other64 = tw.sparse.SparseTensor([[0, 1], [1, 1]], tw.constant([5.0, 4.0], tw.float64), [3, 3])
    check_grad(lambda v: tw.reduce_sum(tw.sparse.add(sp(v), other64).values ** 2),
               np.array(VALS))


def test_sparse_dense_matmul_and_grad():
    b = np.arange(6.0).reshape(3, 2)
    check(lambda v, m: tw.sparse.sparse_dense_matmul(sp(v), m),
          (tw.constant(VALS), tw.constant(b, tw.float32)), (DENSE @ b).tolist())
    check(lambda: tw.sparse.sparse_dense_matmul(sp(), tw.constant(b.T, tw.float32),
                                                adjoint_b=True), (), (DENSE @ b).tolist())
    check(lambda: tw.sparse.sparse_dense_matmul(sp(), tw.constant(b, tw.float32),
                                                adjoint_a=True)[:, :1], (),
          (DENSE.T @ b)[:, :1].tolist())
    check_grad(lambda v: tw.reduce_sum(tw.sparse.sparse_dense_matmul(
        sp(v, shape=(3, 3)), tw.constant(b)) ** 2), np.array(VALS))
    check_grad(lambda m: tw.reduce_sum(tw.sparse.sparse_dense_matmul(
        tw.sparse.SparseTensor(IDX, tw.constant(VALS, tw.float64), [3, 3]), m) ** 2), b)


def test_reductions():
    check(lambda: tw.sparse.reduce_sum(sp()), (), float(DENSE.sum()))
    check(lambda: tw.sparse.reduce_sum(sp(), axis=1), (), DENSE.sum(1).tolist())
    check(lambda: tw.sparse.reduce_sum(sp(), axis=0, keepdims=True), (),
          DENSE.sum(0, keepdims=True).tolist())
    # max over present entries only; a row with none gives 0 (TensorFlow's rule)
    check(lambda: tw.sparse.reduce_max(sp(), axis=1), (), [1.0, 0.0, 3.0])
    check(lambda: tw.sparse.reduce_sum(sp(), axis=1, output_is_sparse=True), (),
          ("sparse", [[0], [2]], [1.0, 1.0], [3]))
    check_grad(lambda v: tw.reduce_sum(tw.sparse.reduce_max(sp(v), axis=1) ** 2),
               np.array(VALS))


def test_reorder_reshape_transpose_expand_dims():
    shuffled = tw.sparse.SparseTensor([[2, 2], [0, 1], [2, 0]], [3.0, 1.0, -2.0], [3, 3])
    check(lambda: tw.sparse.reorder(shuffled), (), nz(DENSE))
    check(lambda: tw.sparse.reshape(sp(), [-1]), (), nz(DENSE.reshape(-1)))
    check(lambda: tw.sparse.reshape(sp(), [1, 9]), (), nz(DENSE.reshape(1, 9)))
    check(lambda: tw.sparse.transpose(sp()), (), nz(DENSE.T))
    check(lambda: tw.sparse.expand_dims(sp(), -1), (), nz(DENSE[..., None]))
    check(lambda: tw.sparse.expand_dims(sp(), 0), (), nz(DENSE[None]))


def test_slice_split_concat_retain():
    check(lambda: tw.sparse.slice(sp(), [1, 0], [2, 2]), (), nz(DENSE[1:3, 0:2]))
    parts = tw.sparse.split(sp_input=sp(), num_split=2, axis=1)
    assert [p.dense_shape.numpy().tolist() for p in parts] == [[3, 2], [3, 1]]
    check(lambda: tw.sparse.split(sp_input=sp(), num_split=2, axis=1)[1], (), nz(DENSE[:, 2:]))
    check(lambda: tw.sparse.concat(1, [sp(), sp()]), (), nz(np.concatenate([DENSE, DENSE], 1)))
    check(lambda: tw.sparse.concat(0, [sp(), sp()]), (), nz(np.concatenate([DENSE, DENSE], 0)))
    kept = DENSE.copy()
    kept[0, 1] = 0
    check(lambda: tw.sparse.retain(sp(), [False, True, True]), (), nz(kept))


def test_fill_empty_rows_map_values_softmax_eye_min_max():
    out, empty = tw.sparse.fill_empty_rows(sp(), 9.0)
    filled = DENSE.copy()
    filled[1, 0] = 9
    check(lambda: tw.sparse.fill_empty_rows(sp(), 9.0)[0], (), nz(filled))
    assert empty.numpy().tolist() == [False, True, False]
    check(lambda: tw.sparse.map_values(tw.multiply, sp(), 2.0), (), nz(DENSE * 2))
    e = np.exp(np.array([3.0]))
    check(lambda: tw.sparse.softmax(sp()), (), ("sparse", IDX, [1.0, float(np.exp(-2) / (
        np.exp(-2) + e[0])), float(e[0] / (np.exp(-2) + e[0]))], [3, 3]))
    check(lambda: tw.sparse.eye(2), (), nz(np.eye(2, dtype=np.float32)))
    other = tw.sparse.SparseTensor([[0, 1]], [5.0], [3, 3])
    check(lambda: tw.sparse.maximum(sp(), other), (),
          ("sparse", IDX, [5.0, 0.0, 3.0], [3, 3]))
    check(lambda: tw.sparse.minimum(sp(), other), (),
          ("sparse", IDX, [1.0, -2.0, 0.0], [3, 3]))


def test_operators_with_dense():
    check(lambda: sp() * tw.constant([1.0, 2.0, 3.0]), (), nz(DENSE * [1, 2, 3]))
    check(lambda: sp() / 2.0, (), nz(DENSE / 2))
    check(lambda: -sp(), (), nz(-DENSE))


def test_segment_ops():
    data = np.arange(12.0).reshape(4, 3)
    idx, seg = [0, 2, 3, 1], [0, 0, 1, 1]
    taken = data[idx]
    check(lambda d: tw.sparse.segment_sum(d, idx, seg), (tw.constant(data),),
          [taken[:2].sum(0).tolist(), taken[2:].sum(0).tolist()])
    check(lambda d: tw.sparse.segment_mean(d, idx, seg), (tw.constant(data),),
          [taken[:2].mean(0).tolist(), taken[2:].mean(0).tolist()])
    check(lambda d: tw.sparse.segment_sqrt_n(d, idx, seg, num_segments=3), (tw.constant(data),),
          [(taken[:2].sum(0) / np.sqrt(2)).tolist(), (taken[2:].sum(0) / np.sqrt(2)).tolist(),
           [0.0] * 3])
    check_grad(lambda d: tw.reduce_sum(tw.sparse.segment_mean(d, idx, seg) ** 2), data)


def test_mask_indexed_slices():
    s = tw.IndexedSlices(tw.constant([[1.0], [2.0], [3.0]]), tw.constant([0, 4, 7]),
                         tw.constant([8, 1]))
    out = tw.sparse.mask(s, [4])
    assert out.indices.numpy().tolist() == [0, 7]
    assert out.values.numpy().tolist() == [[1.0], [3.0]]


def test_sparse_in_function_traces_once_per_spec():
    f = tw.function(lambda s: tw.sparse.reduce_sum(s, axis=1))
    a = tw.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])
    b = tw.sparse.SparseTensor([[0, 0], [1, 1], [1, 0]], [1.0, 2.0, 3.0], [2, 2])
    assert f(a).numpy().tolist() == [1.0, 0.0]
    assert f(b).numpy().tolist() == [1.0, 5.0]
    assert f.experimental_get_tracing_count() == 1
    g = tw.function(lambda s: s, input_signature=[tw.SparseTensorSpec([None, 2], tw.float32)])
    out = g(b)
    assert isinstance(out, tw.SparseTensor) and out.values.numpy().tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        g(tw.sparse.SparseTensor([[0, 0, 0]], [1.0], [2, 2, 2]))


def test_embedding_lookup_sparse_against_tf_numbers():
    params = tw.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ids = tw.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], tw.constant([0, 2, 1], tw.int64),
                                 [4, 2])
    w = tw.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], [1.0, 3.0, 2.0], [4, 2])
    want = {"sum": [[16, 20], [0, 0], [6, 8]], "mean": [[4, 5], [0, 0], [3, 4]],
            "sqrtn": [[5.0596442, 6.3245554], [0, 0], [3, 4]]}
    for combiner, expected in want.items():
        check(lambda c=combiner: tw.nn.embedding_lookup_sparse(params, ids, w, combiner=c), (),
              np.asarray(expected, np.float64).tolist())
    check(lambda: tw.nn.embedding_lookup_sparse(params, ids, None, combiner="mean"), (),
          [[3.0, 4.0], [0.0, 0.0], [3.0, 4.0]])
    with tw.GradientTape() as t:
        t.watch(params)
        y = tw.reduce_sum(tw.nn.embedding_lookup_sparse(params, ids, w))
    assert isinstance(t.gradient(y, params), tw.IndexedSlices)
    w64 = tw.sparse.SparseTensor([[0, 0], [0, 1], [2, 0]], tw.constant([1.0, 3.0, 2.0],
                                                                        tw.float64), [4, 2])
    check_grad(lambda p: tw.reduce_sum(tw.nn.embedding_lookup_sparse(p, ids, w64) ** 2),
               np.arange(6.0).reshape(3, 2))


def test_bincount_and_sampled_addmm():
    v = tw.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [2, 0, 2], [2, 2])
    check(lambda: tw.sparse.bincount(v), (), ("sparse", [[0], [2]], [1, 2], [3]))
    check(lambda: tw.sparse.bincount(v, axis=-1, minlength=4, binary_output=True), (),
          ("sparse", [[0, 0], [0, 2], [1, 2]], [1, 1, 1], [2, 4]))
    check(lambda: tw.sparse.bincount(tw.constant([[1, 1], [3, 0]]), axis=-1), (),
          ("sparse", [[0, 1], [1, 0], [1, 3]], [2, 1, 1], [2, 4]))
    out = tw.sparse.sampled_addmm([[0, 0], [1, 1]], [1.0, 2.0], [2, 2], tw.ones([2, 3]),
                                  tw.ones([3, 2]))
    assert out[1].numpy().tolist() == [4.0, 5.0]


def test_cross_and_cross_hashed_match_tensorflow():
    feats = tw.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], ["a", "b", "c"], [2, 2])
    dense = tw.constant([["x"], ["y"]])
    check(lambda: tw.sparse.cross([feats, dense]), (),
          ("sparse", [[0, 0], [0, 1], [1, 0]], [b"a_X_x", b"b_X_x", b"c_X_y"], [2, 2]))
    check(lambda: tw.ragged.cross([tw.ragged.constant([["a"], ["b", "c"]]),
                                   tw.constant([[1], [2]], tw.int64)]), (),
          ("ragged", [[b"a_X_1"], [b"b_X_2", b"c_X_2"]]))
    # TensorFlow 2.21's values (FarmHash Fingerprint64 + FingerprintCat64)
    check(lambda: tw.sparse.cross_hashed([feats, dense], 10).values, (), [2, 4, 0])
    check(lambda: tw.sparse.cross_hashed([feats, dense]).values, (),
          [1484974617627318892, 3552177129620670004, 6571367263544129360])
    check(lambda: tw.sparse.cross_hashed([tw.constant([[1], [2]], tw.int64), dense]).values, (),
          [854275097015501859, 3006502044339696797])
    check(lambda: tw.sparse.cross_hashed([tw.constant([["a"], ["b"]])], hash_key=5).values, (),
          [5929359435688109312, 7163463728017094660])


def test_fingerprint64_matches_tensorflow_on_every_length_branch():
    from twinflow.ops.ragged.fingerprint import fingerprint64
    # tf.strings.to_hash_bucket_fast(strings, 2**63 - 1) in TensorFlow 2.21: lengths 0, 1..3,
    # 4..7, 8..16, 17..32, 33..64 and two over 64 (the loop)
    strings = [b"", b"a", b"abc", b"hello world", b"x" * 20, b"y" * 40, b"z" * 100,
               bytes(range(200))]
    want = [1936946117179621456, 3694432073954588132, 2640714258260161385,
            6381520714923946011, 8233088228747857348, 276292113409495006,
            9220849947163966073, 525935771297148851]
    assert [fingerprint64(s) % (2**63 - 1) for s in strings] == want


def test_zero_preserving_unary_ops_keep_sparse_as_tensorflow():
    s = sp()
    check(lambda: tw.math.sqrt(tw.abs(s)), (), nz(np.sqrt(np.abs(DENSE))))
    check(lambda: tw.negative(s), (), nz(-DENSE))
    check(lambda: tw.math.tanh(s), (), nz(np.tanh(DENSE)))
    check(lambda: tw.cast(s, tw.int32), (), nz(DENSE.astype(np.int32)))
    with pytest.raises(TypeError, match="Exp of a SparseTensor is not supported"):
        tw.exp(s)
    with pytest.raises(TypeError, match="to_dense"):
        tw.add(s, s)


def test_to_dense_validates_order_in_both_modes():
    unsorted = tw.sparse.SparseTensor([[2, 0], [0, 1]], [1.0, 2.0], [3, 3])
    for f in (tw.sparse.to_dense, tw.function(tw.sparse.to_dense, autograph=False)):
        with pytest.raises(tw.errors.InvalidArgumentError, match="row-major order"):
            f(unsorted)
    dense = tw.sparse.to_dense(unsorted, validate_indices=False).numpy()
    assert dense[2, 0] == 1.0 and dense[0, 1] == 2.0
    assert tw.sparse.to_dense(tw.sparse.reorder(unsorted)).numpy().tolist() == dense.tolist()


def test_sparse_dense_matmul_adjoints_conjugate_complex():
    s = tw.sparse.SparseTensor([[0, 1], [1, 0]], tw.constant([1 + 2j, 3j], tw.complex64),
                               [2, 2])
    b = np.array([[1 + 1j, 2], [3, 4j]], np.complex64)
    a = tw.sparse.to_dense(s).numpy()
    got = tw.sparse.sparse_dense_matmul(s, tw.constant(b), adjoint_a=True, adjoint_b=True)
    np.testing.assert_allclose(got.numpy(), a.conj().T @ b.conj().T, rtol=1e-6)
    with pytest.raises(ValueError, match="sharded"):
        tw.nn.embedding_lookup_sparse([tw.ones([2, 2])] * 2, s, None)
