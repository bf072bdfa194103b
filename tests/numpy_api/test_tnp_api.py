"""``tw.experimental.numpy``'s surface: TensorFlow's signatures, dtypes and constants, the
random functions, and ``experimental_enable_numpy_behavior``."""
from __future__ import annotations

import inspect
import pathlib

import numpy as np
import pytest

import twinflow as tw
from twinflow.numpy_api import behavior

tnp = tw.experimental.numpy
SIGNATURES = dict(
    line.rstrip("\n").split("\t") for line in
    (pathlib.Path(__file__).parents[1] / "fixtures" / "experimental_numpy"
     / "tnp_signatures.tsv").read_text().splitlines() if not line.startswith("#"))


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_matches_tensorflow(name):
    obj = tnp
    for part in name.split("."):
        obj = getattr(obj, part)
    sig = inspect.signature(obj)
    bare = sig.replace(parameters=[p.replace(annotation=p.empty) for p in
                                   sig.parameters.values()], return_annotation=sig.empty)
    assert str(bare) == SIGNATURES[name]  # names, kinds, defaults (annotations aside)


def test_types_and_constants():
    assert tnp.float32 is np.float32 and tnp.int_ is np.int64 and tnp.bool_ is np.bool_
    assert tnp.ndarray is tw.Tensor and isinstance(tnp.ones(2), tnp.ndarray)
    assert tnp.newaxis is None and tnp.pi == np.pi and tnp.e == np.e and tnp.inf == np.inf
    assert tnp.finfo(tnp.float32).eps == np.finfo(np.float32).eps
    assert tnp.finfo(tw.float16).max == np.finfo(np.float16).max
    assert tnp.iinfo(tnp.int8).min == -128
    assert tnp.issubdtype(tw.float32, tnp.inexact) and not tnp.issubdtype("int32", np.floating)
    assert tnp.promote_types(tw.int32, "float32") == np.float64
    assert tnp.result_type(tnp.ones(2, tnp.float16), 1.5) is tw.float16
    assert tnp.zeros(2, dtype=tw.int8).dtype is tw.int8


def test_out_arguments_are_refused():
    with pytest.raises(ValueError, match="out= is not supported"):
        tnp.amax([1, 2], out=tnp.zeros(1))
    with pytest.raises(ValueError, match="where= is not supported"):
        tnp.sign([1.0], where=True)
    with pytest.raises(TypeError, match="unexpected keyword"):
        tnp.sign([1.0], casting="unsafe")
    with pytest.raises(ValueError, match="order must be one of"):
        tnp.reshape([1, 2], (2, 1), order="X")
    with pytest.raises(ValueError, match="structured"):
        tnp.sort([1, 2], order="f")


def test_reshape_fortran_order():
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(tnp.reshape(x, (3, 2), order="F").numpy(),
                                  np.reshape(x, (3, 2), order="F"))
    np.testing.assert_array_equal(tnp.flatten(x, "F").numpy(), x.flatten("F"))


def test_take_modes_and_meshgrid_sparse():
    x = np.array([10, 20, 30])
    assert tnp.take(x, [5, -9]).numpy().tolist() == [30, 10]  # clipped, as TensorFlow's default
    assert tnp.take(x, [4, -1], mode="wrap").numpy().tolist() == [20, 30]
    a, b = tnp.meshgrid([1, 2, 3], [4, 5], sparse=True)
    ea, eb = np.meshgrid([1, 2, 3], [4, 5], sparse=True)
    assert a.shape == ea.shape and b.shape == eb.shape


def test_random_functions():
    tnp.random.seed(7)
    a = tnp.random.rand(2, 3)
    tnp.random.seed(7)
    assert np.array_equal(a.numpy(), tnp.random.rand(2, 3).numpy())
    assert a.dtype is tw.float64 and a.shape == (2, 3)
    assert 0.0 <= float(tnp.min(a)) and float(tnp.max(a)) < 1.0
    assert tnp.random.randn(4).dtype is tw.float64
    assert tnp.random.standard_normal((2,)).shape == (2,)
    assert tnp.random.random().shape == ()
    u = tnp.random.uniform(2.0, 3.0, size=(50,)).numpy()
    assert u.min() >= 2.0 and u.max() < 3.0
    r = tnp.random.randint(3, 6, size=(100,))
    assert r.dtype is tw.int64 and set(r.numpy().tolist()) <= {3, 4, 5}
    assert tnp.random.randint(4, dtype=np.int32).dtype is tw.int32
    p = tnp.random.poisson(3.0, size=(20,))
    assert p.dtype is tw.int64 and (p.numpy() >= 0).all()
    r = tnp.random.randint([0, 10], [2, 13], size=(50, 2)).numpy()
    assert r.dtype == np.int64 and set(r[:, 0]) <= {0, 1} and set(r[:, 1]) <= {10, 11, 12}
    with pytest.raises(ValueError, match="low >= high"):
        tnp.random.randint(3, 3)
    f = tw.function(lambda: tnp.random.uniform(size=(3,)))
    assert f().shape == (3,)


@pytest.fixture
def numpy_behavior():
    tnp.experimental_enable_numpy_behavior()
    yield
    behavior.disable_numpy_behavior()


def test_numpy_methods(numpy_behavior):
    x = tw.constant([[1, 2, 3], [4, 5, 6]])
    assert x.T.shape == (3, 2) and x.ndim == 2 and x.size == 6
    assert x.reshape(3, 2).shape == (3, 2) and x.reshape((6,)).shape == (6,)
    assert x.ravel().shape == (6,) and x.flatten().shape == (6,)
    assert x.transpose().shape == (3, 2) and x.transpose(1, 0).shape == (3, 2)
    assert x.astype("float32").dtype is tw.float32 and x.astype(float).dtype is tw.float64
    assert x.clip(2, 4).numpy().tolist() == [[2, 2, 3], [4, 4, 4]]
    assert x.tolist() == [[1, 2, 3], [4, 5, 6]] and x.data is x
    assert float(x.mean()) == 3.5 and x.mean().dtype is tw.float64
    assert int(x.max()) == 6 and x.min(axis=0).numpy().tolist() == [1, 2, 3]
    assert round(tw.constant(2.6)).numpy() == 3.0


def test_numpy_promotion_in_operators(numpy_behavior):
    i, f = tw.constant([1, 2]), tw.constant([0.5, 1.5])
    assert (i + f).dtype is tw.float64 and (f + i).dtype is tw.float64
    assert (i / i).dtype is tw.float64 and (i * 2.5).dtype is tw.float64
    assert (i + 1).dtype is tw.int32 and (f * 2).dtype is tw.float32
    assert (i < f).numpy().tolist() == [False, False] and (2.0 > i).numpy().tolist() == [True,
                                                                                            False]
    assert (tw.constant([True]) & tw.constant([1])).dtype is tw.int32
    assert (i == tw.constant([1.0, 2.5])).numpy().tolist() == [True, False]
    assert (i != 2.0).numpy().tolist() == [True, False] and (i == None) is False  # noqa: E711
    g = tw.function(lambda a, b: a + b)(i, f)
    assert g.dtype is tw.float64


def test_numpy_indexing(numpy_behavior):
    x = np.arange(24).reshape(2, 3, 4)
    t = tw.constant(x)
    keys = [[1, 0], (slice(None), [0, 2]), (0, [2, 0], 1), (Ellipsis, [3, 1]),
            ([1, 0], slice(None), [3, 3]), (slice(None), [[0], [2]], [1, 2]),
            (x > 20,), (np.array([True, False]),), (slice(None), [-1]), (1, slice(1, None), [0])]
    for key in keys:
        np.testing.assert_array_equal(t[key].numpy(), x[key], err_msg=str(key))
    got = tw.function(lambda a: a[:, [2, 0]])(t)
    np.testing.assert_array_equal(got.numpy(), x[:, [2, 0]])
    assert t[1, 2].numpy().tolist() == x[1, 2].tolist()  # basic indexing unchanged


def test_disable_restores_tensorflow_rules(numpy_behavior):
    behavior.disable_numpy_behavior()
    with pytest.raises(Exception, match="int32|float32|dtype"):
        _ = tw.constant([1]) + tw.constant([1.5])
    assert not hasattr(tw.constant([1]), "T")
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    assert tnp.asarray(1.5).dtype is tw.float32 and tnp.asarray(1).dtype is tw.int64


def test_unsupported_conversion_mode():
    with pytest.raises(ValueError, match="not supported"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")


def test_conversion_of_mixed_values():
    assert tnp.asarray([[tw.constant(1.0), 2.0], [3.0, 4.0]]).dtype is tw.float32
    f = tw.function(lambda a: tnp.asarray([a, 2 * a]))
    assert f(tw.constant(1, tw.int8)).dtype is tw.int8
    assert tnp.asarray(["a", "b"]).dtype is tw.string
    assert tnp.asarray(np.float32(1.5)).dtype is tw.float32  # NumPy scalars are not weak
    with pytest.raises(TypeError, match="None is not an array"):
        tnp.asarray(None)
    with pytest.raises(ValueError, match="a_min or a_max"):
        tnp.clip([1, 2], None, None)


def test_variables_and_tapes():
    v = tw.Variable([1.0, 2.0, 3.0])
    with tw.GradientTape() as tape:
        loss = tnp.sum(tnp.square(v)) + tnp.mean(v)
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), 2 * v.numpy() + 1 / 3)
    assert tnp.add(v, 1).dtype is tw.float32 and tnp.add(v, 1.5).dtype is tw.float32


def test_numpy_functions_dispatch_to_the_methods(numpy_behavior):
    x = tw.constant([[1.0, -2.0], [3.0, 4.0]])
    assert float(np.mean(x)) == 1.5 and float(np.max(x)) == 4.0 and float(np.min(x)) == -2.0
    assert np.transpose(x).shape == (2, 2) and np.clip(x, 0.0, 1.0).numpy().min() == 0.0
    assert np.reshape(x, (4,)).shape == (4,)
    with pytest.raises(ValueError, match="out= is not supported"):
        x.max(out=x)


def test_numpy_indexing_matches_numpy_on_random_keys(numpy_behavior):
    x = np.arange(120).reshape(2, 3, 4, 5)
    t = tw.constant(x)
    rng = np.random.default_rng(0)
    choices = [slice(None), slice(1, None), 0, 1, -1, [0, 1], [[1], [0]], None, Ellipsis,
               np.array([1, 0, 1])]
    checked = 0
    for _ in range(400):
        key = tuple(choices[i] for i in rng.integers(0, len(choices), rng.integers(1, 5)))
        try:
            want = x[key]
        except IndexError:
            continue  # NumPy refuses it too (too many indices, two ellipses...)
        np.testing.assert_array_equal(t[key].numpy(), want, err_msg=str(key))
        checked += 1
    assert checked > 300


def test_bfloat16_promotes_as_tensorflow():
    # TensorFlow 2.21's answers: NumPy does not count ml_dtypes' bfloat16 as inexact.
    x = tw.constant([1.0, 2.0], tw.bfloat16)
    assert tnp.add(x, 1.5).dtype is tw.float64 and tnp.add(x, 1).dtype is tw.bfloat16
    assert tnp.add(x, tw.constant([1.0, 2.0])).dtype is tw.float32
    assert tnp.sin(x).dtype is tw.float64 and tnp.sum(x).dtype is tw.bfloat16


def test_conversion_mode_off_keeps_operator_rules():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="off")
    try:
        i = tw.constant([1, 2])
        with pytest.raises(Exception, match="int32|float"):
            _ = i + tw.constant([0.5, 1.0])
        assert i.T.shape == (2,) and i[[1, 0]].numpy().tolist() == [2, 1]
        assert tnp.add(i, tw.constant([0.5, 1.0])).dtype is tw.float64
        tnp.experimental_enable_numpy_behavior()  # a second call replaces the mode
        assert (i + tw.constant([0.5, 1.0])).dtype is tw.float64
    finally:
        behavior.disable_numpy_behavior()
