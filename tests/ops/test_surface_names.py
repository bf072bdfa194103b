"""Top-level names of issue 16 built on existing machinery: initializers, gradient utilities,
tensor conversion, TensorProto helpers, tw.Operation, import_graph_def's TF arguments."""
import numpy as np
import pytest

import twinflow as tw
from twinflow.graph.registry import get_op


def test_initializers_values_dtypes_and_configs():
    init = tw.constant_initializer([1, 2, 3, 4])
    np.testing.assert_array_equal(init((2, 2)).numpy(), [[1, 2], [3, 4]])
    assert tw.constant_initializer(2.5)([3], tw.float64).dtype == tw.float64
    with pytest.raises(TypeError, match="4 elements"):
        tw.constant_initializer([1, 2, 3])((2, 2))
    assert tw.ones_initializer()([2], tw.int32).numpy().tolist() == [1, 1]
    assert tw.zeros_initializer()([2, 1]).numpy().tolist() == [[0.0], [0.0]]
    normal = tw.random_normal_initializer(mean=1.0, stddev=0.1, seed=3)
    a, b = normal([500]), normal([500])
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # seeded: the same on every call
    assert abs(a.numpy().mean() - 1.0) < 0.03 and abs(a.numpy().std() - 0.1) < 0.02
    uni = tw.random_uniform_initializer(-2.0, 3.0)([1000])
    assert -2.0 <= uni.numpy().min() and uni.numpy().max() < 3.0
    cfg = normal.get_config()
    assert cfg == {"mean": 1.0, "stddev": 0.1, "seed": 3}
    again = tw.random_normal_initializer.from_config(cfg)
    np.testing.assert_array_equal(again([500]).numpy(), a.numpy())
    with pytest.raises(ValueError, match="floating point"):
        tw.random_normal_initializer()([2], tw.int32)
    with pytest.raises(ValueError, match="partition"):
        tw.zeros_initializer()([2], partition_shape=[1])


def test_initializer_in_a_variable_and_a_function():
    v = tw.Variable(tw.random_uniform_initializer(0.0, 1.0, seed=1)([3]))
    assert v.shape == (3,)
    f = tw.function(lambda: tw.constant_initializer(7.0)([2]))
    assert f().numpy().tolist() == [7.0, 7.0]


def test_hessians_in_a_graph_against_the_analytic_one():
    @tw.function
    def hess(x):
        return tw.hessians(tw.reduce_sum(x[0] ** 2 * x[1] + tw.sin(x)), x)[0]

    x = np.array([0.3, -1.2], np.float32)
    want = np.array([[4 * x[1] - np.sin(x[0]), 4 * x[0]],  # sin(x) broadcasts: 2 terms
                     [4 * x[0], -np.sin(x[1])]])
    np.testing.assert_allclose(hess(tw.constant(x)).numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="eager"):
        tw.hessians(tw.constant(1.0), tw.constant(1.0))


def test_grad_pass_through_and_recompute_grad():
    x = tw.Variable(1.4)
    rounded = tw.grad_pass_through(tw.round)
    with tw.GradientTape() as t:
        y = rounded(x) * 3.0
    assert y.numpy() == 3.0 and t.gradient(y, x).numpy() == 3.0
    w = tw.Variable([0.5, -1.0])

    def block(a):
        return tw.reduce_sum(tw.tanh(a * w) * a)

    for fn in (block, tw.recompute_grad(block)):
        a = tw.constant([0.2, 0.7])
        with tw.GradientTape() as t:
            t.watch(a)
            y = fn(a)
        ga, gw = t.gradient(y, [a, w])
        if fn is block:
            want = (ga.numpy(), gw.numpy())
        else:
            np.testing.assert_allclose(ga.numpy(), want[0], rtol=1e-6)
            np.testing.assert_allclose(gw.numpy(), want[1], rtol=1e-6)


def test_register_gradient_and_no_gradient():
    opdef = get_op("PyFunc")
    assert opdef.grad is None
    try:
        @tw.RegisterGradient("PyFunc")
        def _grad(op, dy):
            return [dy * 2.0 for _ in op.inputs]

        x = tw.constant(3.0)
        with tw.GradientTape() as t:
            t.watch(x)
            y = tw.numpy_function(lambda a: a * 2.0, [x], tw.float32)
        assert t.gradient(y, x).numpy() == 2.0
        with pytest.raises(KeyError, match="two gradient"):
            tw.no_gradient("PyFunc")
    finally:
        opdef.grad = None
    try:
        tw.no_gradient("PyFunc")
        with tw.GradientTape() as t:
            t.watch(x)
            y = tw.numpy_function(lambda a: a * 2.0, [x], tw.float32)
        assert t.gradient(y, x) is None
    finally:
        opdef.grad = None
    with pytest.raises(KeyError, match="two gradient"):
        tw.RegisterGradient("MatMul")(lambda op, dy: None)
    with pytest.raises(KeyError, match="no op"):
        tw.no_gradient("NoSuchOpType")
    assert tw.AggregationMethod.DEFAULT == tw.AggregationMethod.ADD_N


class _Celsius:
    def __init__(self, v):
        self.v = v


def test_register_tensor_conversion_function():
    tw.register_tensor_conversion_function(
        _Celsius, lambda c, dtype=None, name=None, as_ref=False: tw.constant(c.v, dtype))
    assert tw.add(_Celsius(3.0), 1.0).numpy() == 4.0
    f = tw.function(lambda: tw.convert_to_tensor(_Celsius([1, 2])) * 2)
    assert f().numpy().tolist() == [2, 4]
    with pytest.raises(TypeError, match="NumPy"):
        tw.register_tensor_conversion_function(np.ndarray, lambda *a, **k: None)


def test_make_tensor_proto_round_trips():
    for values, kw, want in [([1.0, 2.0], {"shape": [4]}, [1.0, 2.0, 2.0, 2.0]),
                             (3, {"shape": [2, 2]}, [[3, 3], [3, 3]]),
                             (np.arange(6).reshape(2, 3), {}, np.arange(6).reshape(2, 3)),
                             ([b"a", b"bc"], {}, [b"a", b"bc"]),
                             (tw.constant([1, 2]), {"dtype": tw.int32}, [1, 2])]:
        got = tw.make_ndarray(tw.make_tensor_proto(values, **kw))
        np.testing.assert_array_equal(got, want)
    assert tw.make_ndarray(tw.make_tensor_proto(np.arange(3))).dtype == np.int64
    assert tw.make_ndarray(tw.make_tensor_proto([1, 2], dtype=tw.float64)).dtype == np.float64
    with pytest.raises(ValueError, match="Too many"):
        tw.make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match="shape"):
        tw.make_tensor_proto([1, 2], shape=[4], verify_shape=True)
    with pytest.raises(TypeError, match="TensorProto"):
        tw.make_ndarray([1, 2])


def test_operation_guarantee_const_and_import_graph_def_arguments():
    g = tw.Graph()
    with g.as_default():
        c = tw.guarantee_const(tw.constant([1.0, 2.0]), name="k")
    assert isinstance(c.op, tw.Operation)
    with pytest.raises(ValueError, match="producer_op_list"):
        tw.import_graph_def(g.as_graph_def(), producer_op_list=[])
    with tw.Graph().as_default():
        (t,) = tw.import_graph_def(g.as_graph_def(), return_elements=["k:0"], name="")
        assert t.name == "k:0"
    np.testing.assert_array_equal(tw.guarantee_const([3, 4]).numpy(), [3, 4])


def test_eig_at_the_top_level():
    vals = tw.eigvals(tw.constant([[2.0, 0.0], [0.0, 3.0]]))
    np.testing.assert_allclose(np.sort(vals.numpy().real), [2.0, 3.0])
    assert tw.eig is tw.linalg.eig


def test_fingerprint_of_strings_matches_tensorflow():
    got = tw.fingerprint(tw.constant([["hello", "x"]])).numpy().tolist()
    assert got == [[110, 77, 71, 18, 249, 61, 205, 159]]
    assert tw.fingerprint(tw.constant(["hello", "x"])).numpy()[0].tolist() == \
        [232, 12, 56, 49, 169, 229, 139, 180]


@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_bitcast_errors(mode):
    run = (lambda f: f()) if mode == "eager" else (lambda f: tw.function(f)())
    with pytest.raises(tw.errors.InvalidArgumentError, match="last dimension"):
        run(lambda: tw.bitcast(tw.constant([1, 2, 3], tw.uint8), tw.int32))
    with pytest.raises(tw.errors.InvalidArgumentError, match="rank >= 1"):
        run(lambda: tw.fingerprint(tw.constant(1)))
