"""Random ops: TensorFlow's seed rules, reproducibility, distributions, dropout."""
import numpy as np
import pytest

import twinflow as tw
from twinflow.compiler import run_graph
from twinflow.core.context import ctx


@pytest.fixture(autouse=True)
def _no_global_seed():
    yield
    tw.random.set_seed(None)


def test_set_seed_reproduces_the_sequence():
    tw.random.set_seed(1)
    a1, b1 = tw.random.normal([4]), tw.random.uniform([4])
    c1 = tw.random.normal([4])
    tw.random.set_seed(1)
    a2, b2 = tw.random.normal([4]), tw.random.uniform([4])
    c2 = tw.random.normal([4])
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)
    np.testing.assert_array_equal(c1, c2)
    assert not np.array_equal(a1, c1)  # each op takes its own op seed from the counter


def test_different_global_seeds_differ():
    tw.random.set_seed(1)
    a = tw.random.normal([5])
    tw.random.set_seed(2)
    b = tw.random.normal([5])
    assert not np.array_equal(a, b)


def test_op_seed_stream_advances_and_resets():
    tw.random.set_seed(3)
    x1 = tw.random.uniform([3], seed=7)
    x2 = tw.random.uniform([3], seed=7)
    assert not np.array_equal(x1, x2)
    tw.random.set_seed(3)
    np.testing.assert_array_equal(tw.random.uniform([3], seed=7), x1)
    np.testing.assert_array_equal(tw.random.uniform([3], seed=7), x2)


def test_op_seed_does_not_consume_the_counter():
    tw.random.set_seed(4)
    tw.random.normal([2], seed=9)
    a = tw.random.normal([2])
    tw.random.set_seed(4)
    b = tw.random.normal([2])
    np.testing.assert_array_equal(a, b)


def test_op_seed_without_global_seed_is_deterministic():
    tw.random.set_seed(None)
    a = tw.random.normal([3], seed=11)
    tw.random.set_seed(None)
    b = tw.random.normal([3], seed=11)
    np.testing.assert_array_equal(a, b)
    assert tw.random.get_seed(11) == (87654321, 11)


def test_no_seed_is_nondeterministic():
    tw.random.set_seed(None)
    assert tw.random.get_seed(None) == (0, 0)
    assert not np.array_equal(tw.random.normal([8]), tw.random.normal([8]))


def test_graph_ops_take_op_seeds_from_the_graph():
    tw.random.set_seed(5)
    g = tw.Graph()
    with g.as_default():
        a = tw.random.normal([3])
        b = tw.random.normal([3])
    assert (a.op.get_attr("seed"), a.op.get_attr("seed2")) == (5, 1)
    assert (b.op.get_attr("seed"), b.op.get_attr("seed2")) == (5, 2)
    assert ctx.op_seed_counter == 0
    first = run_graph([a], {})[0]
    second = run_graph([a], {})[0]
    assert not np.array_equal(first, second)  # stateful: each run draws anew


def test_set_seed_inside_a_graph_sets_the_graph_seed():
    g = tw.Graph()
    with g.as_default():
        tw.random.set_seed(12)
        a = tw.random.uniform([2])
    assert g.seed == 12 and ctx.global_seed is None
    assert a.op.get_attr("seed") == 12


def test_normal_distribution():
    tw.random.set_seed(0)
    x = tw.random.normal([10000], mean=3.0, stddev=2.0).numpy()
    assert x.dtype == np.float32
    assert abs(x.mean() - 3.0) < 0.1 and abs(x.std() - 2.0) < 0.1
    x64 = tw.random.normal([2, 3], dtype=tw.float64)
    assert x64.dtype == tw.float64 and x64.shape == (2, 3)


def test_normal_tensor_shape_and_scalar_shape():
    s = tw.constant([2, 5])
    assert tw.random.normal(s).shape == (2, 5)
    assert tw.random.normal([]).shape == ()
    assert tw.random.uniform([tw.constant(3), 2]).shape == (3, 2)


def test_uniform_distribution():
    tw.random.set_seed(0)
    x = tw.random.uniform([10000], -1.0, 3.0).numpy()
    assert x.min() >= -1.0 and x.max() < 3.0
    assert abs(x.mean() - 1.0) < 0.05
    h = tw.random.uniform([1000], dtype=tw.float16).numpy()
    assert h.dtype == np.float16 and h.max() < 1.0


def test_uniform_int_range():
    tw.random.set_seed(0)
    x = tw.random.uniform([5000], minval=-3, maxval=4, dtype=tw.int32).numpy()
    assert x.dtype == np.int32
    assert set(np.unique(x).tolist()) == set(range(-3, 4))
    y = tw.random.uniform([10], 0, 2**40, dtype=tw.int64)
    assert y.dtype == tw.int64


def test_uniform_int_needs_maxval():
    with pytest.raises(ValueError, match="maxval"):
        tw.random.uniform([3], dtype=tw.int32)


def test_normal_rejects_int_dtype():
    with pytest.raises(ValueError, match="floating"):
        tw.random.normal([3], dtype=tw.int32)


def test_truncated_normal_bounds():
    tw.random.set_seed(0)
    x = tw.random.truncated_normal([10000], mean=1.0, stddev=0.5).numpy()
    assert x.min() >= 0.0 and x.max() <= 2.0
    assert abs(x.mean() - 1.0) < 0.03
    # a normal truncated at two standard deviations has std 0.88 of the untruncated one
    assert abs(x.std() - 0.44) < 0.03


def test_categorical_respects_logits():
    tw.random.set_seed(0)
    logits = np.log([[0.1, 0.2, 0.7], [0.5, 0.5, 1.0]]).astype(np.float32)
    logits[1, 2] = -np.inf
    s = tw.random.categorical(logits, 6000)
    assert s.dtype == tw.int64 and s.shape == (2, 6000)
    s = s.numpy()
    freq = np.bincount(s[0], minlength=3) / 6000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.03)
    assert not (s[1] == 2).any()  # probability 0 (logit -inf) is never drawn


def test_shuffle_is_a_permutation_of_rows():
    tw.random.set_seed(0)
    x = np.arange(20).reshape(10, 2)
    y = tw.random.shuffle(x).numpy()
    assert sorted(map(tuple, y)) == sorted(map(tuple, x))
    assert not np.array_equal(x, y)


def test_stateless_is_a_function_of_the_seed():
    a = tw.random.stateless_normal([4], seed=[1, 2])
    b = tw.random.stateless_normal([4], seed=[1, 2])
    c = tw.random.stateless_normal([4], seed=[1, 3])
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    u = tw.random.stateless_uniform([100], seed=[4, 5], minval=2.0, maxval=3.0).numpy()
    assert u.min() >= 2.0 and u.max() < 3.0


def test_dropout_scales_kept_values():
    tw.random.set_seed(0)
    x = np.ones((100, 100), np.float32)
    y = tw.nn.dropout(x, rate=0.25).numpy()
    assert set(np.unique(y).tolist()) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.03


def test_dropout_noise_shape_and_gradient():
    tw.random.set_seed(0)
    x = tw.constant(np.arange(1.0, 41.0).reshape(4, 10))
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.nn.dropout(x, 0.5, noise_shape=[1, 10])
    kept = y.numpy() != 0
    assert (kept == kept[0]).all()  # one mask for every row
    g = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(g, np.where(kept, 2.0, 0.0))


def test_dropout_rate_bounds():
    x = tw.constant([1.0, 2.0])
    assert tw.nn.dropout(x, 0.0) is x
    with pytest.raises(ValueError, match="range"):
        tw.nn.dropout(x, 1.0)


def test_dropout_seed_reproducible():
    tw.random.set_seed(1)
    a = tw.nn.dropout(tw.ones([50]), 0.5, seed=3)
    tw.random.set_seed(1)
    b = tw.nn.dropout(tw.ones([50]), 0.5, seed=3)
    np.testing.assert_array_equal(a, b)


def test_generator_from_seed_is_reproducible_and_ignores_set_seed():
    g1 = tw.random.Generator.from_seed(42)
    tw.random.set_seed(1)
    a = g1.normal([5])
    b = g1.normal([5])
    assert not np.array_equal(a, b)  # one state, advancing
    g2 = tw.random.Generator.from_seed(42)
    tw.random.set_seed(2)
    np.testing.assert_array_equal(g2.normal([5]), a)
    np.testing.assert_array_equal(g2.normal([5]), b)


def test_generator_distributions_and_split():
    g = tw.random.Generator.from_seed(0)
    u = g.uniform([10000], 2.0, 4.0, dtype=tw.float64).numpy()
    assert u.min() >= 2.0 and u.max() < 4.0 and abs(u.mean() - 3.0) < 0.05
    i = g.uniform([100], 0, 3, dtype=tw.int64).numpy()
    assert set(i.tolist()) == {0, 1, 2}
    assert g.truncated_normal([1000]).numpy().max() <= 2.0
    s = g.make_seeds(3)
    assert s.shape == (2, 3) and s.dtype == tw.int64
    g_a, g_b = g.split(2)
    assert not np.array_equal(g_a.normal([4]), g_b.normal([4]))
    copy = tw.random.Generator(copy_from=g_a)
    np.testing.assert_array_equal(copy.normal([3]), g_a.normal([3]))


def test_generator_in_a_graph_advances_its_state():
    g = tw.random.Generator.from_seed(5)
    graph = tw.Graph()
    with graph.as_default():
        x = g.normal([3])
    first, second = run_graph([x], {})[0], run_graph([x], {})[0]
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, tw.random.Generator.from_seed(5).normal([3]))


def test_gamma_and_poisson_moments():
    tw.random.set_seed(0)
    g = tw.random.gamma([20000], [2.0, 5.0], beta=[1.0, 2.0]).numpy()
    assert g.shape == (20000, 2) and (g > 0).all()
    np.testing.assert_allclose(g.mean(0), [2.0, 2.5], rtol=0.05)  # alpha / beta
    np.testing.assert_allclose(g.var(0), [2.0, 1.25], rtol=0.1)  # alpha / beta**2
    p = tw.random.poisson([20000], [1.5, 4.0], dtype=tw.int64).numpy()
    assert p.dtype == np.int64 and p.min() >= 0
    np.testing.assert_allclose(p.mean(0), [1.5, 4.0], rtol=0.05)


def test_stateless_truncated_normal():
    a = tw.random.stateless_truncated_normal([1000], seed=[7, 8], mean=1.0).numpy()
    b = tw.random.stateless_truncated_normal([1000], seed=[7, 8], mean=1.0).numpy()
    np.testing.assert_array_equal(a, b)
    assert a.min() >= -1.0 and a.max() <= 3.0


@pytest.mark.parametrize("graph", [False, True])
def test_scalar_shape_samplers_return_scalars(graph):
    # NumPy's samplers return a Python scalar for a 0-d parameter; shapes as TensorFlow 2.21.
    seed = [1, 2]
    draws = {
        "gamma": (lambda: tw.random.gamma([], 2.0), ()),
        "gamma_alpha2": (lambda: tw.random.gamma([], [2.0, 3.0]), (2,)),
        "gamma_beta3": (lambda: tw.random.gamma([], 2.0, beta=[1.0, 2.0, 3.0]), (3,)),
        "poisson": (lambda: tw.random.poisson([], 2.0), ()),
        "s_gamma": (lambda: tw.random.stateless_gamma([], seed, alpha=2.0), ()),
        "s_poisson": (lambda: tw.random.stateless_poisson([], seed, lam=2.0), ()),
        "s_binomial": (lambda: tw.random.stateless_binomial([], seed, 3.0, 0.5), ()),
    }
    for name, (draw, shape) in draws.items():
        out = tw.function(draw)() if graph else draw()
        assert tuple(out.shape) == shape, name
        assert np.asarray(out).shape == shape, name
    # A stateless draw with a scalar shape cannot take a [2] alpha (TF: InvalidArgumentError).
    with pytest.raises(tw.errors.InvalidArgumentError):
        tw.random.stateless_gamma([], seed, alpha=[2.0, 3.0])
