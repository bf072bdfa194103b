import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
K = keras.backend
X = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -1.5]], np.float32)


@pytest.mark.parametrize("name, args, ref", [
    ("abs", (X,), np.abs(X)), ("exp", (X,), np.exp(X)), ("square", (X,), X ** 2),
    ("sign", (X,), np.sign(X)), ("tanh", (X,), np.tanh(X)), ("sin", (X,), np.sin(X)),
    ("sigmoid", (X,), 1 / (1 + np.exp(-X))), ("pow", (X, 2.0), X ** 2),
    ("maximum", (X, 0.0), np.maximum(X, 0)), ("minimum", (X, 0.0), np.minimum(X, 0)),
    ("sum", (X, 1), X.sum(1)), ("mean", (X,), X.mean()), ("max", (X, 0, True),
                                                           X.max(0, keepdims=True)),
    ("min", (X, 1), X.min(1)), ("prod", (X, 0), X.prod(0)), ("std", (X, 1), X.std(1)),
    ("var", (X,), X.var()), ("argmax", (X,), X.argmax(-1)), ("argmin", (X, 0), X.argmin(0)),
    ("cumsum", (X, 1), X.cumsum(1)), ("cumprod", (X,), X.cumprod(0)),
    ("clip", (X, 0.0, 1.0), np.clip(X, 0, 1)),
    ("concatenate", ([X, X],), np.concatenate([X, X], -1)), ("stack", ([X, X], 1),
                                                                np.stack([X, X], 1)),
    ("reshape", (X, (3, 2)), X.reshape(3, 2)),
    ("permute_dimensions", (X, (1, 0)), X.T), ("transpose", (X,), X.T),
    ("expand_dims", (X,), X[..., None]), ("squeeze", (X[None], 0), X),
    ("flatten", (X,), X.ravel()), ("batch_flatten", (X[..., None],), X),
    ("tile", (X, (2, 1)), np.tile(X, (2, 1))), ("repeat_elements", (X, 2, 1),
                                                   X.repeat(2, 1)),
    ("repeat", (X, 3), np.repeat(X[:, None], 3, 1)), ("reverse", (X, 1), X[:, ::-1]),
    ("gather", (X, [1, 0]), X[[1, 0]]), ("ones", ((2, 3),), np.ones((2, 3))),
    ("zeros_like", (X,), np.zeros_like(X)), ("eye", (3,), np.eye(3)),
    ("arange", (1, 7, 2), np.arange(1, 7, 2)), ("one_hot", ([0, 2], 3), np.eye(3)[[0, 2]]),
    ("dot", (X, X.T), X @ X.T), ("batch_dot", (X, X), (X * X).sum(1, keepdims=True)),
    ("l2_normalize", (X, 1), X / np.linalg.norm(X, axis=1, keepdims=True)),
    ("relu", (X, 0.1, 2.0), np.clip(X, 0, 2) - 0.1 * np.maximum(-X, 0)),
    ("elu", (X, 0.5), np.where(X > 0, X, 0.5 * np.expm1(X))),
    ("softmax", (X,), np.exp(X) / np.exp(X).sum(-1, keepdims=True)),
    ("hard_sigmoid", (X,), np.clip(X / 6 + 0.5, 0, 1)),
    ("greater", (X, 0.5), X > 0.5), ("less_equal", (X, 0.5), X <= 0.5),
    ("any", (X > 3, 1), (X > 3).any(1)), ("all", (X > -3,), (X > -3).all()),
    ("cast", (X, "int32"), X.astype(np.int32)),
])
def test_backend_functions(name, args, ref):
    fn = getattr(K, name)
    args = tuple(tw.constant(a) if isinstance(a, np.ndarray) else a for a in args)
    np.testing.assert_allclose(np.asarray(fn(*args)), ref, rtol=1e-5, atol=1e-6)
    assert fn.__doc__ and "Args:" in fn.__doc__


def test_backend_settings_and_values():
    assert K.floatx() == "float32" and K.epsilon() == 1e-7 and K.backend() == "tensorflow"
    K.set_epsilon(1e-5)
    assert K.epsilon() == 1e-5
    K.set_epsilon(1e-7)
    with pytest.raises(ValueError):
        K.set_floatx("float8")
    with pytest.raises(ValueError):
        K.set_image_data_format("nhwc")
    v = K.variable([1.0, 2.0])
    K.set_value(v, [3.0, 4.0])
    K.batch_set_value([(v, [5.0, 6.0])])
    assert K.batch_get_value([v])[0].tolist() == [5.0, 6.0] and K.eval(v).tolist() == [5, 6]
    assert K.int_shape(keras.Input((3,))) == (None, 3) and K.ndim(X) == 2
    assert K.count_params(v) == 2 and K.is_keras_tensor(keras.Input((3,)))
    assert not K.is_keras_tensor(tw.constant(1.0)) and K.dtype(v) == "float32"
    assert K.get_uid("x") + 1 == K.get_uid("x")
    assert K.constant(2.0, shape=(2,)).numpy().tolist() == [2.0, 2.0]
    K.clear_session()


def test_pad_sequences():
    seqs = [[1, 2, 3], [4], [5, 6, 7, 8]]
    np.testing.assert_array_equal(keras.utils.pad_sequences(seqs),
                                  [[0, 1, 2, 3], [0, 0, 0, 4], [5, 6, 7, 8]])
    np.testing.assert_array_equal(
        keras.utils.pad_sequences(seqs, maxlen=3, padding="post", truncating="post", value=-1),
        [[1, 2, 3], [4, -1, -1], [5, 6, 7]])
    np.testing.assert_array_equal(keras.utils.pad_sequences(seqs, maxlen=2), [[2, 3], [0, 4],
                                                                              [7, 8]])
    with pytest.raises(ValueError, match="padding"):
        keras.utils.pad_sequences(seqs, padding="middle")


def test_register_keras_serializable_loads_without_custom_objects(tmp_path):
    @keras.utils.register_keras_serializable(package="Tests")
    class Doubler(keras.layers.Layer):
        def call(self, x):
            return x * 2.0

    assert keras.utils.get_registered_name(Doubler) == "Tests>Doubler"
    assert keras.utils.get_registered_object("Tests>Doubler") is Doubler
    assert keras.utils.get_custom_objects()["Doubler"] is Doubler
    model = keras.Sequential([keras.Input((2,)), Doubler()])
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(np.ones((1, 2)), verbose=0), [[2.0, 2.0]])
    keras.utils.get_custom_objects().pop("Doubler")
    keras.utils.get_custom_objects().pop("Tests>Doubler")


def test_timeseries_dataset_from_array():
    data = np.arange(10)
    ds = keras.utils.timeseries_dataset_from_array(data, data + 100, sequence_length=3,
                                                   sequence_stride=2, batch_size=2)
    batches = [(x.numpy(), y.numpy()) for x, y in ds]
    np.testing.assert_array_equal(batches[0][0], [[0, 1, 2], [2, 3, 4]])
    np.testing.assert_array_equal(batches[0][1], [100, 102])
    assert sum(len(b[0]) for b in batches) == 4
    ds = keras.utils.timeseries_dataset_from_array(data, None, sequence_length=4,
                                                   sampling_rate=2, batch_size=None)
    np.testing.assert_array_equal([x.numpy() for x in ds], [[0, 2, 4, 6], [1, 3, 5, 7],
                                                            [2, 4, 6, 8], [3, 5, 7, 9]])
    with pytest.raises(ValueError, match="sequence_length"):
        keras.utils.timeseries_dataset_from_array(data, None, 0)


def test_small_utils():
    np.testing.assert_allclose(keras.utils.normalize(np.array([[3.0, 4.0]])), [[0.6, 0.8]])
    x, y, w = keras.utils.unpack_x_y_sample_weight((1, 2))
    assert (x, y, w) == (1, 2, None)
    assert keras.utils.pack_x_y_sample_weight(1, 2) == (1, 2)
    with keras.utils.custom_object_scope({"f": len}):
        pass
