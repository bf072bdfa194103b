"""tw.IndexedSlices: the gradient of gather / embedding_lookup / Embedding, its aggregation,
densifying, clipping and sparse optimizer updates (numbers from TensorFlow 2.21 + Keras 3,
printed by tests/fixtures/composite/make_fixtures.py)."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw


def test_gather_gradient_is_indexed_slices_and_aggregates_like_tf():
    v = tw.Variable(np.ones((4, 2), np.float32))
    with tw.GradientTape() as t:
        y = tw.reduce_sum(tw.gather(v, [0, 0]) * 2) + tw.reduce_sum(tw.gather(v, [1]))
    g = t.gradient(y, v)
    assert isinstance(g, tw.IndexedSlices)
    assert g.indices.numpy().tolist() == [1, 0, 0]
    assert g.values.numpy().tolist() == [[1, 1], [2, 2], [2, 2]]
    assert g.dense_shape.numpy().tolist() == [4, 2]
    assert tw.convert_to_tensor(g).numpy().tolist() == [[4, 4], [1, 1], [0, 0], [0, 0]]
    assert repr(g).startswith("IndexedSlices(indices=tw.Tensor([1 0 0], shape=(3,)")
    # mixed with a dense gradient, the sum is dense (as TensorFlow)
    with tw.GradientTape() as t:
        y = tw.reduce_sum(tw.gather(v, [0, 0]) * 2) + tw.reduce_sum(v)
    assert t.gradient(y, v).numpy().tolist() == [[5, 5], [1, 1], [1, 1], [1, 1]]


def test_which_gradients_are_sparse():
    x = tw.constant(np.ones((4, 2), np.float32))

    def grad(fn):
        with tw.GradientTape() as t:
            t.watch(x)
            y = tw.reduce_sum(fn(x))
        return t.gradient(y, x)

    assert isinstance(grad(lambda p: tw.gather(p, [[0, 1]])), tw.IndexedSlices)
    assert isinstance(grad(lambda p: tw.nn.embedding_lookup(p, [0, 1])), tw.IndexedSlices)
    assert not isinstance(grad(lambda p: tw.gather(p, [0, 1], axis=1)), tw.IndexedSlices)
    assert not isinstance(grad(lambda p: tw.gather(p * 2, [0, 1])), tw.IndexedSlices)
    np.testing.assert_allclose(np.asarray(grad(lambda p: tw.gather(p * 2, [0, 0]))),
                               [[4, 4], [0, 0], [0, 0], [0, 0]])


def test_gradient_in_function_and_keras_embedding():
    v = tw.Variable(np.ones((4, 2), np.float32))

    @tw.function
    def f():
        with tw.GradientTape() as t:
            y = tw.reduce_sum(tw.gather(v, [2, 2]))
        return t.gradient(y, v)

    g = f()
    assert isinstance(g, tw.IndexedSlices) and g.indices.numpy().tolist() == [2, 2]
    emb = tw.keras.layers.Embedding(5, 2)
    with tw.GradientTape() as t:
        y = tw.reduce_sum(emb(tw.constant([[1, 2]])))
    (ge,) = t.gradient(y, emb.trainable_variables)
    assert isinstance(ge, tw.IndexedSlices) and ge.indices.numpy().tolist() == [1, 2]


def test_clip_by_global_norm_keeps_slices():
    g = tw.IndexedSlices(tw.constant([[3.0, 4.0]]), tw.constant([1]), tw.constant([3, 2]))
    (c,), norm = tw.clip_by_global_norm([g], 1.0)
    assert float(norm) == 5.0 and isinstance(c, tw.IndexedSlices)
    np.testing.assert_allclose(c.values.numpy(), [[0.6, 0.8]], rtol=1e-6)
    assert float(tw.linalg.global_norm([g, tw.constant([0.0, 12.0])])) == 13.0


@pytest.mark.parametrize("make,want", [
    (lambda: tw.keras.optimizers.SGD(0.1), [0.8, 0.8, 1.0, 1.0]),
    (lambda: tw.keras.optimizers.SGD(0.1, momentum=0.9), [0.62, 0.8, 1.0, 1.0]),
    (lambda: tw.keras.optimizers.Adam(0.1), [0.833, 0.9256, 1.0, 1.0]),
    (lambda: tw.keras.optimizers.RMSprop(0.1), [0.6838, 0.6838, 1.0, 1.0]),
    (lambda: tw.keras.optimizers.Adagrad(0.1), [0.9012, 0.9012, 1.0, 1.0]),
])
def test_optimizers_apply_slices_as_tensorflow(make, want):
    opt = make()
    v = tw.Variable(np.ones((4, 2), np.float32))
    for step in range(2):
        with tw.GradientTape() as t:
            y = tw.reduce_sum(tw.gather(v, [step]) ** 2)
        g = t.gradient(y, v)
        assert isinstance(g, tw.IndexedSlices)
        opt.apply_gradients([(g, v)])
    np.testing.assert_allclose(v.numpy()[:, 0], want, atol=1e-4)


def test_spec_and_nest():
    g = tw.IndexedSlices(tw.constant([[1.0, 2.0]]), tw.constant([3]), tw.constant([5, 2]))
    spec = g._type_spec
    assert spec == tw.IndexedSlicesSpec([5, 2], tw.float32, tw.int32, tw.int32, [None])
    f = tw.function(lambda s: tw.convert_to_tensor(s))
    f(g)
    f(tw.IndexedSlices(tw.constant([[1.0, 2.0], [3.0, 4.0]]), tw.constant([0, 0]),
                       tw.constant([5, 2])))
    assert f.experimental_get_tracing_count() == 1
    flat = tw.nest.flatten(g, expand_composites=True)
    assert len(flat) == 3
    back = tw.nest.pack_sequence_as(g, flat, expand_composites=True)
    assert back.indices.numpy().tolist() == [3]
    with pytest.raises(ValueError, match="without dense_shape"):
        tw.convert_to_tensor(tw.IndexedSlices(tw.constant([1.0]), tw.constant([0])))
