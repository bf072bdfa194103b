"""The new losses and metrics against values computed with Keras 3 (numbers in the test) and
NumPy; eager and inside tw.function."""
import numpy as np
import pytest

import twinflow as tw

keras = tw.keras
Y = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], np.float32)
P = np.array([[0.2, 0.9, 1.5], [0.6, 0.3, 0.1]], np.float32)
KERAS3 = {  # keras.losses.<name>(Y, P) with TensorFlow 2.21 / Keras 3.15
    "hinge": [0.43333337, 0.93333334], "squared_hinge": [0.48333335, 1.02],
    "categorical_hinge": [0.0, 0.7], "log_cosh": [0.04832475, 0.04242863],
    "poisson": [0.76663178, 0.50360852], "cosine_similarity": [-0.96386319, -0.88465172],
    "mean_absolute_percentage_error": [66666688.0, 133333352.0],
    "mean_squared_logarithmic_error": [0.02855506, 0.04257066],
}

CLASSES = {"hinge": "Hinge", "squared_hinge": "SquaredHinge",
           "categorical_hinge": "CategoricalHinge", "log_cosh": "LogCosh",
           "poisson": "Poisson", "cosine_similarity": "CosineSimilarity",
           "mean_absolute_percentage_error": "MeanAbsolutePercentageError",
           "mean_squared_logarithmic_error": "MeanSquaredLogarithmicError"}


@pytest.mark.parametrize("name", sorted(KERAS3))
def test_losses_match_keras_3(name):
    fn = getattr(keras.losses, name)
    np.testing.assert_allclose(fn(Y, P).numpy(), KERAS3[name], rtol=1e-5)
    graph = tw.function(lambda a, b: fn(a, b))(tw.constant(Y), tw.constant(P))
    np.testing.assert_allclose(graph.numpy(), KERAS3[name], rtol=1e-5)
    loss_cls = getattr(keras.losses, CLASSES[name])
    np.testing.assert_allclose(float(loss_cls()(Y, P)), np.mean(KERAS3[name]), rtol=1e-5)
    assert keras.losses.get(name) is fn


def test_loss_style_metrics():
    m = keras.metrics.Hinge()
    m.update_state(Y, P)
    np.testing.assert_allclose(float(m.result()), np.mean(KERAS3["hinge"]), rtol=1e-5)
    c = keras.metrics.CosineSimilarity()
    c.update_state(Y, P)
    np.testing.assert_allclose(float(c.result()), -np.mean(KERAS3["cosine_similarity"]),
                               rtol=1e-5)
    r = keras.metrics.RootMeanSquaredError()
    r.update_state(Y, P)
    np.testing.assert_allclose(float(r.result()), np.sqrt(((Y - P) ** 2).mean()), rtol=1e-6)
    with pytest.raises(TypeError):
        keras.metrics.Hinge(k=3)


def test_top_k():
    y = np.array([2, 0, 1])
    p = np.array([[0.1, 0.5, 0.4], [0.2, 0.7, 0.1], [0.3, 0.2, 0.5]], np.float32)
    m = keras.metrics.SparseTopKCategoricalAccuracy(k=2)
    m.update_state(y, p)
    assert float(m.result()) == pytest.approx(2 / 3)
    m = keras.metrics.TopKCategoricalAccuracy(k=1)
    m.update_state(np.eye(3)[y], p)
    assert float(m.result()) == pytest.approx(0.0)


def test_confusion_counts_and_f_scores():
    y = np.array([1, 0, 1, 1, 0], np.float32)
    p = np.array([0.9, 0.6, 0.4, 0.8, 0.1], np.float32)
    for cls, want in ((keras.metrics.TruePositives, 2), (keras.metrics.FalsePositives, 1),
                      (keras.metrics.TrueNegatives, 1), (keras.metrics.FalseNegatives, 1)):
        m = cls()
        m.update_state(y, p)
        assert float(m.result()) == want
    tp = keras.metrics.TruePositives(thresholds=[0.3, 0.85])
    tp.update_state(y, p)
    assert tp.result().numpy().tolist() == [3.0, 1.0]
    yt = np.eye(3, dtype=np.float32)[[0, 1, 2, 2, 1]]
    yp = np.array([[.8, .1, .1], [.2, .7, .1], [.1, .6, .3], [.1, .1, .8], [.5, .4, .1]],
                  np.float32)
    f1 = keras.metrics.F1Score()
    f1.update_state(yt, yp)
    # class 0: tp1 fp1 fn0 -> 2/3; class 1: tp1 fp1 fn1 -> 1/2; class 2: tp1 fp0 fn1 -> 2/3
    np.testing.assert_allclose(f1.result().numpy(), [2 / 3, 0.5, 2 / 3], rtol=1e-6)
    macro = keras.metrics.F1Score(average="macro")
    macro.update_state(yt, yp)
    np.testing.assert_allclose(float(macro.result()), (2 / 3 + 0.5 + 2 / 3) / 3, rtol=1e-6)
    micro = keras.metrics.FBetaScore(average="micro", beta=2.0)
    micro.update_state(yt, yp)
    np.testing.assert_allclose(float(micro.result()), 0.6, rtol=1e-6)
    with pytest.raises(ValueError, match="average"):
        keras.metrics.F1Score(average="mean")


def test_iou():
    y = np.array([0, 0, 1, 1])
    p = np.array([0, 1, 0, 1])
    m = keras.metrics.MeanIoU(num_classes=2)
    m.update_state(y, p)
    np.testing.assert_allclose(float(m.result()), (1 / 3 + 1 / 3) / 2, rtol=1e-6)
    i = keras.metrics.IoU(num_classes=2, target_class_ids=[0])
    i.update_state(y, p, sample_weight=[0.3, 0.3, 0.7, 0.3])
    np.testing.assert_allclose(float(i.result()), 0.3 / (0.6 + 1.0 - 0.3), rtol=1e-6)


def test_compile_with_new_metrics():
    x = np.random.default_rng(0).normal(size=(12, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="softmax")])
    model.compile("adam", "sparse_categorical_crossentropy",
                  metrics=["sparse_top_k_categorical_accuracy",
                           keras.metrics.MeanIoU(2, sparse_y_pred=False)])
    hist = model.fit(x, y, epochs=1, batch_size=4, verbose=0)
    assert "sparse_top_k_categorical_accuracy" in hist.history
