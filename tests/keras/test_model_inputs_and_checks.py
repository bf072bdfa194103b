"""Issue 11's "wrong today" list and issue 17's Keras argument checks, each as TF/Keras 3 does."""
import numpy as np
import pytest

import twinflow as tw

keras = tw.keras


def _two_input_model(order):
    a = keras.Input((1,), name="a")
    b = keras.Input((1,), name="b")
    out = keras.layers.Subtract()([a, b])
    return keras.Model([a, b] if order == "ab" else [b, a], out)


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_dict_inputs_are_matched_by_input_name(order):
    model = _two_input_model(order)
    out = model({"a": np.array([[10.0]], np.float32), "b": np.array([[1.0]], np.float32)})
    np.testing.assert_allclose(out.numpy(), [[9.0]])
    pred = model.predict({"b": np.ones((3, 1), np.float32), "a": np.full((3, 1), 5.0,
                                                                          np.float32)},
                         verbose=0)
    np.testing.assert_allclose(pred, np.full((3, 1), 4.0))
    with pytest.raises(ValueError, match="missing"):
        model({"a": np.ones((1, 1), np.float32), "c": np.ones((1, 1), np.float32)})


@pytest.mark.parametrize("eager", [True, False])
def test_fit_without_labels_passes_the_inputs_themselves(eager):
    seen = []

    class M(keras.Model):
        def train_step(self, data):
            seen.append(data)
            return {"n": tw.reduce_sum(data)}

    inp = keras.Input((2,))
    model = M(inp, keras.layers.Dense(1)(inp))
    model.compile("sgd", run_eagerly=eager)
    model.fit(np.ones((4, 2), np.float32), batch_size=2, epochs=1, verbose=0)
    assert all(isinstance(d, tw.Tensor) and d.shape.as_list()[1:] == [2] for d in seen)


def test_learning_rate_is_the_current_rate_and_scheduler_logs_learning_rate():
    sched = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    opt = keras.optimizers.SGD(sched)
    assert float(opt.learning_rate) == pytest.approx(0.1)
    opt.iterations = 2
    assert float(opt.learning_rate) == pytest.approx(0.025)
    assert opt._learning_rate is sched
    with pytest.raises(TypeError, match="not settable"):
        opt.learning_rate = 0.5
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.01), "mse")
    cb = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    hist = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[cb])
    assert "lr" not in hist.history
    np.testing.assert_allclose(hist.history["learning_rate"], [0.005, 0.0025], rtol=1e-6)


def test_layer_input_and_output_after_a_functional_call():
    inp = keras.Input((3,), name="x")
    dense = keras.layers.Dense(2)
    with pytest.raises(AttributeError, match="never been called"):
        _ = dense.output
    out = dense(inp)
    assert dense.input is inp and dense.output is out
    assert inp._layer.output is inp and inp._layer.input is inp
    model = keras.Model(inp, out)
    assert model.input is inp and model.output is out
    assert model.layers[1].output.shape.as_list() == [None, 2]


def test_a_subclass_may_still_use_output_as_an_attribute():
    class M(keras.Model):
        def __init__(self):
            super().__init__()
            self.output = keras.layers.Dense(1)

        def call(self, x):
            return self.output(x)

    m = M()
    m(np.ones((2, 3), np.float32))
    assert len(m.trainable_weights) == 2


def test_tensor_set_shape():
    x = tw.constant([1.0, 2.0])
    x.set_shape([2])
    x.set_shape([None])
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape([3])

    def f(t):
        t.set_shape([2])
        return t

    out = tw.function(f).get_concrete_function(tw.TensorSpec([None])).structured_outputs
    assert out.shape == [2]
    with pytest.raises(ValueError, match="not compatible"):
        tw.function(f).get_concrete_function(tw.TensorSpec([3]))


def test_bad_arguments_raise_as_keras_does():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    x, y = np.ones((4, 3), np.float32), np.ones((4, 2), np.float32)
    for bad in (-1, 0, 2.5):
        with pytest.raises(ValueError, match="batch_size"):
            model.fit(x, y, batch_size=bad, verbose=0)
    with pytest.raises(ValueError, match="steps"):
        model.evaluate(x, y, steps=-2, verbose=0)
    for units in ("3", 0, -1, 2.0, True):
        with pytest.raises(ValueError, match="units"):
            keras.layers.Dense(units)
    with pytest.raises(ValueError, match="axis"):
        keras.Sequential([keras.Input((3,)), keras.layers.BatchNormalization(axis=5)])
    with pytest.raises(ValueError, match="axis"):
        keras.Sequential([keras.Input((3,)), keras.layers.LayerNormalization(axis=-3)])
    with pytest.raises(ValueError, match="incompatible shape"):
        model(np.ones((2, 3, 3), np.float32))
    with pytest.raises(ValueError, match="incompatible shape"):
        model.predict(np.ones((2, 4), np.float32), verbose=0)
    with pytest.raises(ValueError, match="reduction"):
        keras.losses.MeanSquaredError(reduction="bogus")


def test_functional_inputs_adjust_a_trailing_one_as_keras():
    inp = keras.Input((1,))
    model = keras.Model(inp, keras.layers.Activation("linear")(inp))
    assert model(np.ones((3,), np.float32)).shape.as_list() == [3, 1]
    inp2 = keras.Input((4,))
    model2 = keras.Model(inp2, keras.layers.Activation("linear")(inp2))
    assert model2(np.ones((3, 4, 1), np.float32)).shape.as_list() == [3, 4]


def test_loss_reductions():
    y, p, w = [[1.0], [2.0]], [[1.5], [2.5]], [1.0, 0.0]
    got = {r: float(keras.losses.MeanSquaredError(reduction=r)(y, p, sample_weight=w))
           for r in ("sum_over_batch_size", "mean", "sum", "mean_with_sample_weight")}
    assert got == pytest.approx({"sum_over_batch_size": 0.125, "mean": 0.125, "sum": 0.25,
                                 "mean_with_sample_weight": 0.25})
    none = keras.losses.MeanSquaredError(reduction=None)(y, p)
    assert none.shape.as_list() == [2]
