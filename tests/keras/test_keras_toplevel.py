"""tf.keras top-level names (Variable, Function, Operation, name_scope, scopes...),
keras.config logging and traceback toggles, and the tf.keras 2 backend functions in graphs."""
import logging
import traceback

import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
K = keras.backend


def test_keras_variable_from_initializer_and_value():
    v = keras.Variable("ones", shape=(2, 3), name="w")
    assert v.numpy().tolist() == [[1.0] * 3] * 2 and v.path == "w" and v.dtype == tw.float32
    v2 = keras.Variable(np.arange(3.0))
    assert v2.dtype == tw.float64 and v2.value.numpy().tolist() == [0.0, 1.0, 2.0]  # as Keras
    assert keras.Variable([1.0]).dtype == tw.float32 and keras.Variable([1]).dtype == tw.int32
    v3 = keras.Variable(keras.initializers.Constant(2.0), shape=(2,), dtype="float64")
    assert v3.dtype == tw.float64 and v3.numpy().tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="shape"):
        keras.Variable("zeros")
    assert isinstance(v, tw.Variable)


def test_function_and_operation():
    a = keras.Input((3,))
    out = keras.layers.Dense(2, kernel_initializer="ones")(a)
    fn = keras.Function(a, out)
    assert fn(np.ones((1, 3), np.float32)).numpy().tolist() == [[3.0, 3.0]]
    assert len(fn.inputs) == 1 and len(fn.operations) >= 1

    class Double(keras.Operation):
        def call(self, x):
            return x * 2.0

    assert Double()(tw.constant([1.0])).numpy().tolist() == [2.0]


def test_name_scope_device_version_remat():
    @tw.function
    def f(x):
        with keras.name_scope("block"):
            return tw.identity(x, name="out")
    graph = f.get_concrete_function(tw.TensorSpec([2], tw.float32)).graph
    assert any(op.name.startswith("block/") for op in graph.get_operations())
    with pytest.raises(ValueError, match="/"):
        keras.name_scope("a/b")
    with keras.device("cpu:0"):
        assert (tw.constant(1.0) + 1.0).numpy() == 2.0
    assert keras.version().startswith("3.")
    x = tw.constant([0.5, 1.0])
    with tw.GradientTape() as tape:
        tape.watch(x)
        y = tw.reduce_sum(keras.remat(lambda t: tw.sin(t) * t)(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               np.sin([0.5, 1.0]) + np.array([0.5, 1.0]) * np.cos([0.5, 1.0]),
                               rtol=1e-6)
    with pytest.raises(NotImplementedError, match="remat"):
        keras.RematScope("full")
    with keras.RematScope(None):
        pass


def test_stateless_and_symbolic_scopes():
    v = tw.Variable([1.0, 2.0])
    with keras.StatelessScope([(v, np.array([5.0, 5.0], np.float32))]) as scope:
        assert v.numpy().tolist() == [5.0, 5.0]     # reads see the scope's value
        v.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [1.0, 2.0]         # the variable itself is unchanged
    assert scope.get_current_value(v).numpy().tolist() == [6.0, 6.0]
    with pytest.raises(ValueError, match="Variable"):
        keras.StatelessScope([(np.ones(2), 1.0)])
    from twinflow.keras import toplevel
    assert not toplevel.in_symbolic_scope()
    with keras.SymbolicScope():
        assert toplevel.in_symbolic_scope()


def test_interactive_logging_toggle(caplog, capsys):
    cfg = keras.config
    assert keras.utils.disable_interactive_logging is cfg.disable_interactive_logging
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    cfg.disable_interactive_logging()
    try:
        assert not cfg.is_interactive_logging_enabled()
        with caplog.at_level(logging.INFO, logger="twinflow.keras"):
            model.fit(x, y, epochs=1, verbose=2)
        assert "loss" in caplog.text and "loss" not in capsys.readouterr().out
    finally:
        cfg.enable_interactive_logging()
    model.fit(x, y, epochs=1, verbose=2)
    assert "loss" in capsys.readouterr().out


def test_traceback_filtering_toggle():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")

    def frames():
        try:
            model.fit(np.ones((4, 3), np.float32), np.ones((4, 1)), verbose=0)
        except ValueError as e:
            return [f.filename for f in traceback.extract_tb(e.__traceback__)]
        raise AssertionError("no error")

    assert keras.config.is_traceback_filtering_enabled()
    short = frames()
    keras.config.disable_traceback_filtering()
    try:
        full = frames()
    finally:
        keras.config.enable_traceback_filtering()
    inside = [f for f in short[:-1] if "/src/twinflow/" in f]
    assert len(inside) <= 1 and len(full) > len(short)   # (the re-raising wrapper's frame)


def test_backend_functions_in_a_graph():
    x = np.random.RandomState(0).randn(2, 5, 5, 3).astype("float32")
    k = np.random.RandomState(1).randn(3, 3, 3, 4).astype("float32")

    @tw.function
    def f(x):
        y = K.conv2d(x, k, padding="same")
        y = K.pool2d(y, (2, 2), (2, 2), pool_mode="avg")
        y = K.resize_images(y, 2, 2, "channels_last")
        _, outs, _ = K.rnn(lambda t, s: (t + s[0], [t + s[0]]),
                           tw.reshape(y, [2, 4, -1]), [tw.zeros([2, 16])])
        return outs
    np.testing.assert_allclose(f(x).numpy(), f.python_function(tw.constant(x)).numpy(),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="data_format"):
        K.conv2d(x, k, data_format="nhwc")
    with pytest.raises(ValueError, match="pool_mode"):
        K.pool2d(x, (2, 2), pool_mode="min")
    with pytest.raises(ValueError, match="padding"):
        K.spatial_2d_padding(x, ((1, 1),))


def test_backend_helpers():
    assert K.result_type("int32", "float16") == "float16"
    assert K.result_type(float, "int32") == "float32" and K.result_type(int, "int8") == "int8"
    v = K.random_uniform_variable((3, 2), -1.0, 1.0, seed=3)
    assert v.shape == (3, 2) and np.all(np.abs(v.numpy()) <= 1.0)
    n = K.random_normal_variable((500,), 2.0, 0.5, seed=1)
    assert abs(float(np.mean(n.numpy())) - 2.0) < 0.1
    sp = tw.sparse.SparseTensor([[0, 1]], [3.0], [2, 2])
    assert K.is_sparse(sp) and not K.is_sparse(tw.constant(1.0))
    assert K.to_dense(sp).numpy().tolist() == [[0.0, 3.0], [0.0, 0.0]]

    @tw.function
    def g(x):
        with K.name_scope("outer"):
            return tw.identity(x, name="y")
    graph = g.get_concrete_function(tw.TensorSpec([], tw.float32)).graph
    assert any(op.name.startswith("outer/") for op in graph.get_operations())


@pytest.mark.parametrize("kw", [{}, {"go_backwards": True}, {"mask": True},
                                {"mask": True, "zero_output_for_mask": True},
                                {"return_all_outputs": False}])
def test_backend_rnn_of_unknown_length_matches_unrolled(kw):
    def step(inp, states):
        out = 0.5 * states[0] + inp
        return out, [out]
    seq = np.random.RandomState(0).randn(2, 4, 3).astype("float32")
    mask = np.array([[1, 1, 0, 1], [1, 0, 0, 1]], bool)
    args = dict(kw, mask=mask) if "mask" in kw else kw
    want = K.rnn(step, seq, [np.zeros((2, 3), "float32")], **args)

    @tw.function(input_signature=[tw.TensorSpec([2, None, 3], tw.float32),
                                  tw.TensorSpec([2, None], tw.bool)])
    def f(x, m):
        return K.rnn(step, x, [tw.zeros([2, 3])], **(dict(kw, mask=m) if "mask" in kw else kw))
    got = f(seq, mask)
    for a, b in zip((want[0], want[1], want[2][0]), (got[0], got[1], got[2][0])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
