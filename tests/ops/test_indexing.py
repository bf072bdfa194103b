"""Indexing (``Tensor.__getitem__`` -> StridedSlice) against NumPy, eagerly and in graphs, plus
the array ops' graph-only behaviour (dynamic shapes) and their error messages."""
import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.eager.execute import bind
from twinflow.graph.core_ops import Placeholder

X = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)

KEYS = [
    0, -1, 1, (1, 2), (0, 1, 3), (-1, -3, -4),
    slice(None), slice(1, None), slice(None, 1), slice(None, None, -1), slice(5, -7, -1),
    (slice(None), 1), (slice(None), slice(None), slice(1, 3)), (slice(0, 2), slice(None, None, 2)),
    (slice(None), slice(None, None, -2), slice(3, 0, -1)), (slice(-100, 100),),
    Ellipsis, (Ellipsis, 1), (0, Ellipsis), (Ellipsis, slice(None, None, -1)), (1, Ellipsis, 2),
    None, (None, 0), (0, None), (Ellipsis, None), (None, Ellipsis, None, 1), (1, None, None, 2),
    (slice(1, 2), None, slice(None), 0), (), (np.int64(1), np.int32(-1)),
]


def _ph(dtype, shape):
    return bind(Placeholder, [], {"dtype": tw.as_dtype(dtype), "shape": tw.TensorShape(shape)})


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
@pytest.mark.parametrize("taped", [False, True], ids=["fast", "taped"])
def test_eager_matches_numpy(key, taped):
    # Under a tape indexing runs the StridedSlice kernel; without one, NumPy indexing directly.
    x = tw.constant(X)
    if taped:
        with tw.GradientTape() as tape:
            tape.watch(x)
            got = x[key]
        assert tape.gradient(got, x).shape == X.shape
    else:
        got = x[key]
    want = X[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)
    assert got.dtype == tw.float64


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
@pytest.mark.parametrize("known", [True, False], ids=["known", "unknown"])
def test_graph_matches_numpy(key, known):
    g = tw.Graph()
    with g.as_default():
        x = _ph(tw.float64, X.shape if known else [None, None, None])
        y = x[key]
    want = X[key]
    if known:
        assert y.shape == want.shape
    else:
        assert y.shape.is_compatible_with(want.shape)
        assert y.shape.rank == want.ndim
    (got,) = run_graph([y], {id(x): X})
    np.testing.assert_array_equal(np.asarray(got), want)


def test_unknown_rank_gives_unknown_shape():
    g = tw.Graph()
    with g.as_default():
        x = _ph(tw.float64, None)
        y = x[1, ..., ::2]
    assert y.shape.rank is None
    (got,) = run_graph([y], {id(x): X})
    np.testing.assert_array_equal(got, X[1, ..., ::2])


def test_scalar_tensor_indices_eager():
    x = tw.constant(X)
    i, j = tw.constant(1), tw.constant(2, dtype=tw.int64)
    np.testing.assert_array_equal(x[i].numpy(), X[1])
    np.testing.assert_array_equal(x[i, j].numpy(), X[1, 2])
    np.testing.assert_array_equal(x[:, i:, :j].numpy(), X[:, 1:, :2])
    np.testing.assert_array_equal(x[..., tw.constant(-1)].numpy(), X[..., -1])


@pytest.mark.parametrize("dtype", [tw.int32, tw.int64])
def test_symbolic_scalar_indices(dtype):
    g = tw.Graph()
    with g.as_default():
        x = _ph(tw.float64, X.shape)
        i = _ph(dtype, [])
        outs = [x[i], x[:, i], x[i, 1:], x[0, i:], x[..., ::i], x[i, None, -1]]
    assert outs[0].shape == (3, 4)
    assert outs[1].shape == (2, 4)
    assert outs[2].shape == (2, 4)
    assert outs[3].shape.as_list() == [None, 4]
    assert outs[5].shape == (1, 4)
    got = run_graph(outs, {id(x): X, id(i): np.array(1, dtype.np)})
    wants = [X[1], X[:, 1], X[1, 1:], X[0, 1:], X[..., ::1], X[1, None, -1]]
    for gv, w in zip(got, wants):
        np.testing.assert_array_equal(gv, w)


def test_iteration():
    x = tw.constant(X)
    rows = list(x)
    assert len(rows) == 2
    np.testing.assert_array_equal(rows[1].numpy(), X[1])
    g = tw.Graph()
    with g.as_default():
        p = _ph(tw.float64, X.shape)
        parts = list(p)
    assert [t.shape for t in parts] == [tw.TensorShape([3, 4])] * 2
    got = run_graph(parts, {id(p): X})
    np.testing.assert_array_equal(got[0], X[0])
    with pytest.raises(TypeError):
        iter(tw.constant(1.0))


@pytest.mark.parametrize("key,index,dim", [(5, 5, 0), ((0, 3), 3, 1), ((0, 0, -5), -5, 2),
                                           ((Ellipsis, 4), 4, 2), (-3, -3, 0)])
def test_out_of_range_index(key, index, dim):
    with pytest.raises(tw.errors.InvalidArgumentError,
                       match=f"slice index {index} of dimension {dim} out of bounds"):
        tw.constant(X)[key]
    # With a constant index the graph refuses at build time ...
    with tw.Graph().as_default():
        x = _ph(tw.float64, X.shape)
        with pytest.raises(tw.errors.InvalidArgumentError, match=f"slice index {index}"):
            x[key]


def test_out_of_range_symbolic_index_fails_at_run_time():
    g = tw.Graph()
    with g.as_default():
        x = _ph(tw.float64, X.shape)
        i = _ph(tw.int32, [])
        y = x[i]
    with pytest.raises(tw.errors.InvalidArgumentError, match="slice index 7 of dimension 0"):
        run_graph([y], {id(x): X, id(i): np.array(7, np.int32)})


def test_bad_indices():
    x = tw.constant(X)
    for key in (1.5, [0, 1], "a", tw.constant([0, 1]), tw.constant(1.0)):
        with pytest.raises(TypeError, match="valid indices"):
            x[key]
    with pytest.raises(tw.errors.InvalidArgumentError, match="Index out of range"):
        x[0, 0, 0, 0]
    with pytest.raises(tw.errors.InvalidArgumentError, match="Multiple ellipses"):
        x[..., 0, ...]
    with pytest.raises(tw.errors.InvalidArgumentError, match="step"):
        x[::0]
    with pytest.raises(tw.errors.InvalidArgumentError, match="input has only 0 dims"):
        tw.constant(3.0)[0]


def test_indexing_gradient_and_second_order():
    x = tw.constant(X)
    with tw.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tw.GradientTape() as inner:
            inner.watch(x)
            y = x[1:, ::-2, 1] * x[1:, ::-2, 1]
            loss = tw.reduce_sum(y)
        g = inner.gradient(loss, x)
        gg = tw.reduce_sum(g * g)
    want = np.zeros_like(X)
    want[1:, ::-2, 1] = 2 * X[1:, ::-2, 1]
    np.testing.assert_allclose(g.numpy(), want)
    np.testing.assert_allclose(outer.gradient(gg, x).numpy(), 4 * want)


def test_stop_gradient_blocks():
    x = tw.constant(2.0)
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.stop_gradient(x * x) + x
    assert float(tape.gradient(y, x)) == 1.0


def test_dynamic_shapes_in_graph():
    g = tw.Graph()
    with g.as_default():
        x = _ph(tw.float32, [None, 3])
        n = _ph(tw.int32, [])
        m = _ph(tw.bool, [None])
        z = tw.zeros([tw.shape(x)[0], 2])
        r = tw.range(n)
        f = tw.fill(tw.shape(x), 1.5)
        bm = tw.boolean_mask(x, m)
        t = tw.tile(x, [n, 1])
        u, idx = tw.unique(tw.reshape(x, [-1]))
        e = tw.eye(n)
    assert z.shape.as_list() == [None, 2]
    assert r.shape.as_list() == [None] and r.dtype == tw.int32
    assert f.shape.as_list() == [None, 3]
    assert bm.shape.as_list() == [None, 3]
    assert t.shape.as_list() == [None, 3]
    assert e.shape.as_list() == [None, None]
    xv = np.arange(12, dtype=np.float32).reshape(4, 3) % 5
    mv = np.array([True, False, True, True])
    got = run_graph([z, r, f, bm, t, u, idx, e],
                    {id(x): xv, id(n): np.array(3, np.int32), id(m): mv})
    assert got[0].shape == (4, 2)
    np.testing.assert_array_equal(got[1], np.arange(3))
    np.testing.assert_array_equal(got[2], np.full((4, 3), 1.5, np.float32))
    np.testing.assert_array_equal(got[3], xv[mv])
    np.testing.assert_array_equal(got[4], np.tile(xv, (3, 1)))
    np.testing.assert_array_equal(got[5][got[6]], xv.reshape(-1))
    np.testing.assert_array_equal(got[7], np.eye(3, dtype=np.float32))


def test_unique_in_graph():
    g = tw.Graph()
    with g.as_default():
        x = _ph(tw.int32, [None])
        y, idx = tw.unique(x)
    assert y.shape.as_list() == [None] and idx.dtype == tw.int32
    yv, iv = run_graph([y, idx], {id(x): np.array([5, 5, 2, 9, 2], np.int32)})
    np.testing.assert_array_equal(yv, [5, 2, 9])
    np.testing.assert_array_equal(iv, [0, 0, 1, 2, 1])


def test_boolean_mask_gradient_with_dynamic_mask():
    x = tw.constant(np.arange(6.0).reshape(2, 3))
    mask = tw.constant([[True, False, True], [False, True, False]])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_sum(tw.boolean_mask(x, mask) * tw.constant([1.0, 2.0, 3.0], tw.float64))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[1, 0, 2], [0, 3, 0]])


def test_error_messages():
    err = tw.errors.InvalidArgumentError
    a, b = tw.zeros([2, 3]), tw.zeros([2, 4])
    with pytest.raises(err, match=r"ConcatOp.*\[2,3\].*\[2,4\].*\[Op:ConcatV2\]"):
        tw.concat([a, b], 0)
    with pytest.raises(err, match="ConcatV2"):
        with tw.Graph().as_default():
            tw.concat([_ph(tw.float32, [2, 3]), _ph(tw.float32, [2, 4])], 0)
    with pytest.raises(err, match="Can not squeeze dim"):
        tw.squeeze(a, axis=0)
    with pytest.raises(err, match=r"axis 5 is out of range for an input with 2 dim.*ExpandDims"):
        tw.expand_dims(a, 5)
    with pytest.raises(err, match=r"indices\[1\] = 9 is not in \[0, 2\)"):
        tw.gather(a, [0, 9])
    with pytest.raises(err, match="permutation"):
        tw.transpose(a, [0, 0])
    with pytest.raises(err, match="evenly divide"):
        tw.split(a, 2, axis=1)
    with pytest.raises(err, match="at least k columns"):
        tw.math.top_k(a, 5) if hasattr(tw.math, "top_k") else tw.top_k(a, 5)
    with pytest.raises(err, match="does not index into param shape"):
        tw.gather_nd(a, [[2, 0]])
    with pytest.raises(err, match="delta != 0"):
        tw.range(0, 5, 0)
    with pytest.raises(err, match="paddings must be no greater"):
        tw.pad(a, [[2, 0], [0, 0]], "REFLECT")
    with pytest.raises(err, match="size"):
        tw.slice(a, [1, 0], [2, 1])


SECOND_ORDER = {
    "getitem": lambda x: x[1:, ::-2],
    "concat": lambda x: tw.concat([x, x[:, :2]], 1),
    "slice": lambda x: tw.slice(x, [1, 1], [2, -1]),
    "gather": lambda x: tw.gather(x, [2, 0, 2], axis=1),
    "gather_batch": lambda x: tw.gather(x, [[1, 1], [0, 3], [2, 2]], axis=1, batch_dims=1),
    "gather_nd": lambda x: tw.gather_nd(x, [[0, 1], [2, 3], [0, 1]]),
    "pad_reflect": lambda x: tw.pad(x, [[1, 2], [2, 1]], "REFLECT"),
    "pad_constant": lambda x: tw.pad(x, [[1, 0], [0, 2]]),
    "tile": lambda x: tw.tile(x, [2, 3]),
    "boolean_mask": lambda x: tw.boolean_mask(x, [True, False, True]),
    "repeat": lambda x: tw.repeat(x, [2, 0, 1, 1], axis=1),
    "sort": lambda x: tw.sort(x, axis=0),
    "top_k": lambda x: tw.top_k(x, 2)[0],
    "split": lambda x: tw.split(x, [1, -1], axis=1)[1],
    "scatter_update": lambda x: tw.tensor_scatter_nd_update(x, [[1, 1]], [7.0]),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order(name):
    """d/dx of sum(v * d/dx sum(w * f(x)**2)) against finite differences: exercises the
    gradients of the ops that gradients use (SliceGrad, GatherGrad, MirrorPadGrad...)."""
    fn = SECOND_ORDER[name]
    rng = np.random.default_rng(1)
    x0 = rng.permutation(12).reshape(3, 4) + rng.uniform(0, 0.1, (3, 4))
    v = rng.uniform(0.5, 1.5, (3, 4))
    w = rng.uniform(0.5, 1.5, np.shape(fn(tw.constant(x0))))

    def grad_dot_v(xv, outer=None):
        x = tw.constant(xv)
        if outer is not None:
            outer.watch(x)
        with tw.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
            loss = tw.reduce_sum(y * y * tw.constant(w))
        g = tape.gradient(loss, x)
        return x, tw.reduce_sum(g * tw.constant(v))

    with tw.GradientTape() as outer:
        x, gv = grad_dot_v(x0, outer)
    hv = outer.gradient(gv, x).numpy()
    eps = 1e-6
    num = np.zeros_like(x0)
    for j in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[j] = eps
        num[j] = (float(grad_dot_v(x0 + d)[1]) - float(grad_dot_v(x0 - d)[1])) / (2 * eps)
    np.testing.assert_allclose(hv, num, rtol=1e-4, atol=1e-5)
